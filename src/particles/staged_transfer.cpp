// Pageable host <-> device copies through page-locked blocks on the host threads
// (staged_transfer.hpp).
#include "particles/staged_transfer.hpp"

#include "backend/device.hpp"
#include "backend/host_parallel.hpp"
#include "common/error.hpp"
#include "memory/allocator.hpp"
#include "runtime/options.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>

namespace pvec::impl {

namespace {

constexpr size_t kStagedFrom = size_t{16} << 20;  // smaller transfers: one cudaMemcpy2D each
constexpr size_t kBlock = size_t{1} << 20;        // a page-locked block of its own pages
constexpr size_t kTestBlock = 4096;

// -1: automatic, 0: off, 1: always, 2: always, in blocks of kTestBlock (option
// PVEC_STAGED_TRANSFER).
int mode() { return option_value(Option::staged_transfer); }

// The calling thread's current device is `device` for the scope, then what it was.
class DeviceScope {
 public:
  explicit DeviceScope(int device) : before_(device_current()) {
    if (before_ != device) device_select(device);
  }
  ~DeviceScope() {
    try {
      device_select(before_);
    } catch (...) {
    }
  }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int before_;
};

struct Job {
  bool to_device;
  int device;
  const std::vector<StagedRange>* pieces;  // each at most one block
  StagingLanes::Lane* lanes;
  std::vector<std::exception_ptr> error;  // per range of pieces
};

// The pieces [b, e) on one thread, through lane r: slot k on stream k. Host to device, piece
// i: wait for stream k (slot k's last copy), fill slot k, copy it on stream k, so piece i's
// host copy overlaps piece i - 1's engine copy. Device to host: copy piece i into slot k on
// stream k, then wait for stream 1 - k and empty slot 1 - k (piece i - 1).
void run_pieces(void* ctx, int64_t b, int64_t e, int r) {
  Job& job = *static_cast<Job*>(ctx);
  StagingLanes::Lane& lane = job.lanes[r];
  try {
    DeviceScope scope(job.device);
    const std::vector<StagedRange>& pieces = *job.pieces;
    const bool staged = lane.slot[0] != nullptr && lane.slot[1] != nullptr;
    const StagedRange* prev = nullptr;  // device to host: the piece waiting in slot 1 - k
    for (int64_t i = b; i < e; ++i) {
      const StagedRange& p = pieces[static_cast<size_t>(i)];
      const int k = static_cast<int>((i - b) & 1);
      if (!staged) {
        if (job.to_device)
          copy_bytes(p.dev, p.host, p.bytes, true, lane.stream[0]);
        else
          copy_bytes(p.host, p.dev, p.bytes, true, lane.stream[0]);
        stream_synchronize(lane.stream[0]);
      } else if (job.to_device) {
        stream_synchronize(lane.stream[k]);
        std::memcpy(lane.slot[k], p.host, p.bytes);
        copy_bytes(p.dev, lane.slot[k], p.bytes, true, lane.stream[k]);
      } else {
        copy_bytes(lane.slot[k], p.dev, p.bytes, true, lane.stream[k]);
        if (prev != nullptr) {
          stream_synchronize(lane.stream[1 - k]);
          std::memcpy(prev->host, lane.slot[1 - k], prev->bytes);
        }
        prev = &p;
      }
    }
    if (prev != nullptr) {
      const int k = static_cast<int>((e - 1 - b) & 1);
      stream_synchronize(lane.stream[k]);
      std::memcpy(prev->host, lane.slot[k], prev->bytes);
    }
    for (int k = 0; k < 2; ++k) stream_synchronize(lane.stream[k]);
  } catch (...) {
    job.error[static_cast<size_t>(r)] = std::current_exception();
  }
}

}  // namespace

void StagingLanes::release() noexcept {
  for (Lane& l : lanes_) {
    for (int k = 0; k < 2; ++k) {
      if (l.stream[k] != nullptr) {
        try {
          stream_synchronize(l.stream[k]);  // no copy from a block may outlive it
        } catch (...) {
        }
      }
      if (l.slot[k] != nullptr) deallocate(MemKind::pinned, l.slot[k], block_);
      stream_destroy(l.stream[k]);
    }
  }
  lanes_.clear();
  block_ = 0;
  device_ = -1;
}

std::vector<StagingLanes::Lane>& StagingLanes::ensure(int count, size_t block, int device) {
  if (block != block_ || device != device_) release();
  if (static_cast<int>(lanes_.size()) >= count) return lanes_;
  DeviceScope scope(device);
  block_ = block;
  device_ = device;
  while (static_cast<int>(lanes_.size()) < count) {
    lanes_.emplace_back();
    Lane& l = lanes_.back();
    for (int k = 0; k < 2; ++k) {
      l.stream[k] = stream_create();
      try {
        l.slot[k] = static_cast<char*>(allocate(MemKind::pinned, block));
      } catch (const Error&) {
        l.slot[k] = nullptr;  // this lane copies from pageable memory instead
      }
    }
  }
  return lanes_;
}

LaneUpload::LaneUpload(StagingLanes& lanes, int threads, int device, bool pinned_host, void* stream)
    : next_(static_cast<size_t>(std::max(threads, 1)), 0),
      threads_(std::max(threads, 1)),
      device_(device),
      pinned_host_(pinned_host),
      stream_(stream) {
  stream_drain(stream_);  // what the vector's stream had ordered comes first
  if (pinned_host_) return;
  try {
    lanes_ = lanes.ensure(threads_, kBlock, device).data();
  } catch (...) {
    lanes.release();
    throw;
  }
  block_ = lanes.block();
}

size_t LaneUpload::max_bytes() const { return pinned_host_ ? SIZE_MAX : block_; }

void LaneUpload::upload(int r, const char* host, size_t hpitch, char* dev, size_t dpitch,
                        size_t width, size_t height) {
  if (width == 0 || height == 0) return;
  if (r < 0 || r >= threads_ || width * height > max_bytes())
    fail(PVEC_ERROR_INTERNAL, "LaneUpload: thread ", r, " of ", threads_, ", ", width * height,
         " bytes for blocks of ", max_bytes());
  DeviceScope scope(device_);  // the runtime's current device is per thread
  if (pinned_host_) {
    copy_2d(dev, dpitch, host, hpitch, width, height, true, stream_);
    return;
  }
  StagingLanes::Lane& lane = lanes_[r];
  const int k = next_[static_cast<size_t>(r)];
  next_[static_cast<size_t>(r)] = 1 - k;
  if (lane.slot[k] == nullptr) {  // no page-locked block: the runtime stages, synchronously
    copy_2d(dev, dpitch, host, hpitch, width, height, true, lane.stream[k]);
    stream_synchronize(lane.stream[k]);
    return;
  }
  stream_synchronize(lane.stream[k]);  // slot k's previous block has left
  for (size_t row = 0; row < height; ++row)
    std::memcpy(lane.slot[k] + row * width, host + row * hpitch, width);
  copy_2d(dev, dpitch, lane.slot[k], width, width, height, true, lane.stream[k]);
}

void LaneUpload::finish() {
  DeviceScope scope(device_);
  if (pinned_host_) {
    stream_synchronize(stream_);
    return;
  }
  for (int r = 0; r < threads_; ++r)
    for (int k = 0; k < 2; ++k) stream_synchronize(lanes_[r].stream[k]);
}

bool staged_transfer_allowed() { return mode() != 0; }

bool staged_transfer_wanted(size_t bytes) {
  const int m = mode();
  if (m >= 0) return m >= 1;
  return bytes >= kStagedFrom && host_threads() >= 2;
}

void staged_transfer(bool to_device, const std::vector<StagedRange>& ranges, int device,
                     void* stream, StagingLanes& lanes) {
  stream_drain(stream);  // what the vector's stream (and, if legacy, the device) had ordered
  const size_t block = mode() == 2 ? kTestBlock : kBlock;
  std::vector<StagedRange> pieces;
  for (const StagedRange& r : ranges)
    for (size_t off = 0; off < r.bytes; off += block)
      pieces.push_back({r.host + off, r.dev + off, std::min(block, r.bytes - off)});
  if (pieces.empty()) return;
  const int64_t n = static_cast<int64_t>(pieces.size());
  const int64_t t = std::max<int64_t>(
      1, std::min<int64_t>({host_threads(), int64_t{StagingLanes::kMaxLanes}, n}));
  const int64_t grain = (n + t - 1) / t;  // at most t ranges, so lanes [0, t) serve
  Job job{to_device, device, &pieces, nullptr, {}};
  try {
    job.lanes = lanes.ensure(static_cast<int>(t), block, device).data();
  } catch (...) {
    lanes.release();
    throw;
  }
  job.error.resize(static_cast<size_t>(t));
  host_ranges(n, grain, &run_pieces, &job);
  for (const std::exception_ptr& e : job.error) {
    if (e) {
      lanes.release();
      std::rethrow_exception(e);
    }
  }
}

}  // namespace pvec::impl
