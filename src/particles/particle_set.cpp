#include "particles/particle_set.hpp"

#include "backend/exec.hpp"
#include "backend/gather_rows.hpp"
#include "backend/host_parallel.hpp"
#include "common/checked.hpp"
#include "common/error.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

namespace pvec::impl {

int64_t round_capacity(int64_t n) {
  if (n < 0) fail(PVEC_ERROR_INVALID_ARGUMENT, "negative particle count ", n);
  if (n > std::numeric_limits<int64_t>::max() - 63)
    fail(PVEC_ERROR_OVERFLOW, "particle count ", n, " too large");
  return std::max<int64_t>(64, (n + 63) / 64 * 64);
}

ParticleSet::ParticleSet(std::vector<PropertySpec> columns, bool cuda, MemKind host_kind,
                         int64_t n_local)
    : cuda_(cuda), device_(cuda ? device_current() : -1), host_kind_(host_kind) {
  for (auto& spec : columns) {
    PropertyBuffer b;
    b.spec = std::move(spec);
    cols_.push_back(std::move(b));
  }
  for (auto& s : device_scratch_) s.set_kind(device_kind());
  for (auto& s : host_scratch_) s.set_kind(cuda_ ? host_kind_ : MemKind::host);
  reallocate(round_capacity(n_local));
  generation_ = 0;
  n_local_ = n_local;
  zero_particles(0, n_local);
  flush_device();
}

ParticleSet::~ParticleSet() {
  staging_.release();  // waits for copies still in flight through the lanes (a failed restart)
  if (cuda_) {
    try {
      sync_stream();
    } catch (...) {  // a sticky CUDA error: nothing more can be done while destroying
    }
  }
  for (auto& c : cols_) {
    deallocate(host_kind_, c.host, c.bytes(capacity_));
    deallocate(device_kind(), c.dev, c.bytes(capacity_));
  }
}

Exec ParticleSet::exec(bool device) const {
  Exec e;
  e.on_device = device && cuda_;
  e.stream = stream_;
  return e;
}

void ParticleSet::sync_stream() const {
  if (cuda_) stream_synchronize(stream_);
}

ParticleSet::Reservation::~Reservation() {
  for (const auto& b : buffers) {
    deallocate(host_kind, b.host, b.bytes);
    deallocate(device_kind, b.dev, b.bytes);
  }
}

ParticleSet::Reservation ParticleSet::reserve_buffers(int64_t new_capacity) const {
  // Everything is allocated before anything changes; the Reservation frees it if unused.
  Reservation r;
  r.capacity = new_capacity;
  r.host_kind = host_kind_;
  r.device_kind = device_kind();
  for (const auto& c : cols_) {
    int64_t row = checked_mul(new_capacity, static_cast<int64_t>(c.spec.elem_size), "row bytes");
    size_t bytes = static_cast<size_t>(checked_mul(row, c.spec.ncomp, "property bytes"));
    r.buffers.push_back(Reservation::Buffers{nullptr, nullptr, bytes});
    r.buffers.back().host = allocate(host_kind_, bytes);
    r.buffers.back().dev = allocate(device_kind(), bytes);
  }
  return r;
}

void ParticleSet::install(Reservation& r, int64_t keep) {
  if (r.capacity == 0) return;  // nothing was needed
  const int64_t new_capacity = r.capacity;
  const int64_t live = std::min(keep < 0 ? n_total() : keep, new_capacity);
  for (size_t k = 0; k < cols_.size(); ++k) {
    PropertyBuffer& c = cols_[k];
    size_t width = static_cast<size_t>(live) * c.spec.elem_size;
    if (c.host != nullptr) {
      copy_2d(r.buffers[k].host, c.row_bytes(new_capacity), c.host, c.row_bytes(capacity_), width,
              c.spec.ncomp, false, nullptr);
      // Device rows are re-strided on the device; never through the host.
      copy_2d(r.buffers[k].dev, c.row_bytes(new_capacity), c.dev, c.row_bytes(capacity_), width,
              c.spec.ncomp, cuda_, stream_);
    }
  }
  if (cuda_) sync_stream();
  for (size_t k = 0; k < cols_.size(); ++k) {
    PropertyBuffer& c = cols_[k];
    deallocate(host_kind_, c.host, c.bytes(capacity_));
    deallocate(device_kind(), c.dev, c.bytes(capacity_));
    c.host = r.buffers[k].host;
    c.dev = r.buffers[k].dev;
    r.buffers[k].host = r.buffers[k].dev = nullptr;
  }
  capacity_ = new_capacity;
  ++generation_;
}

void ParticleSet::reallocate(int64_t new_capacity, int64_t keep) {
  Reservation r = reserve_buffers(new_capacity);
  install(r, keep);
}

ParticleSet::Reservation ParticleSet::reserve_growth(int64_t total) const {
  if (total <= capacity_) return Reservation{};
  int64_t want = round_capacity(total);
  int64_t doubled = capacity_ > std::numeric_limits<int64_t>::max() / 2 ? want : 2 * capacity_;
  return reserve_buffers(std::max(want, round_capacity(doubled)));
}

void ParticleSet::install_growth(Reservation& r, int64_t live) {
  if (r.capacity == 0) return;
  sync_stream();
  flush_device();
  install(r, live);
}

void ParticleSet::zero_particles(int64_t from, int64_t to) {
  if (to <= from) return;
  for (auto& c : cols_) {
    size_t e = c.spec.elem_size;
    zero_2d(static_cast<char*>(c.host) + from * e, c.row_bytes(capacity_), (to - from) * e,
            c.spec.ncomp, false, nullptr);
    if (!cuda_)
      zero_2d(static_cast<char*>(c.dev) + from * e, c.row_bytes(capacity_), (to - from) * e,
              c.spec.ncomp, false, nullptr);
  }
  if (cuda_) device_zero_from_ = std::min(device_zero_from_, from);
}

void ParticleSet::flush_device() {
  if (!cuda_ || device_zero_from_ >= n_local_) {
    device_zero_from_ = INT64_MAX;
    return;
  }
  const int64_t from = device_zero_from_;
  for (auto& c : cols_) {
    size_t e = c.spec.elem_size;
    zero_2d(static_cast<char*>(c.dev) + from * e, c.row_bytes(capacity_), (n_local_ - from) * e,
            c.spec.ncomp, true, stream_);
  }
  // Wait, so that kernels the user launches on another stream see the zeros.
  sync_stream();
  device_zero_from_ = INT64_MAX;
}

void ParticleSet::reserve(int64_t n) {
  int64_t cap = round_capacity(n);
  sync_stream();
  if (cap > capacity_) {
    flush_device();
    reallocate(cap);
  }
  n_ghost_ = 0;
}

void ParticleSet::resize(int64_t n) {
  int64_t cap = round_capacity(n);
  sync_stream();
  if (cap > capacity_) {
    flush_device();
    reallocate(cap);
  }
  n_ghost_ = 0;
  const int64_t old = n_local_;
  n_local_ = n;
  if (n > old) zero_particles(old, n);
  if (device_zero_from_ >= n_local_) device_zero_from_ = INT64_MAX;
}

void ParticleSet::grow_for(int64_t total, int64_t live) {
  if (total <= capacity_) return;
  int64_t want = round_capacity(total);
  int64_t doubled = capacity_ > std::numeric_limits<int64_t>::max() / 2 ? want : 2 * capacity_;
  sync_stream();
  flush_device();
  reallocate(std::max(want, round_capacity(doubled)), live);
}

int64_t ParticleSet::append(int64_t k) {
  if (k < 0) fail(PVEC_ERROR_INVALID_ARGUMENT, "cannot append a negative count ", k);
  if (k > std::numeric_limits<int64_t>::max() - 63 - n_local_)
    fail(PVEC_ERROR_OVERFLOW, "appending ", k, " particles to ", n_local_, " overflows");
  const int64_t first = n_local_;
  grow_for(n_local_ + k, n_local_);  // ghosts are dropped: they need not be copied
  n_ghost_ = 0;
  n_local_ += k;
  zero_particles(first, n_local_);
  return first;
}

void ParticleSet::remove(const int64_t* idx, int64_t count) {
  if (count < 0) fail(PVEC_ERROR_INVALID_ARGUMENT, "negative removal count ", count);
  if (count == 0) {
    n_ghost_ = 0;
    return;
  }
  if (idx == nullptr) fail(PVEC_ERROR_INVALID_ARGUMENT, "indices is NULL with count ", count);
  // Validate everything before changing anything.
  std::vector<char> gone(static_cast<size_t>(n_local_), 0);
  int64_t first = n_local_;
  for (int64_t j = 0; j < count; ++j) {
    int64_t i = idx[j];
    if (i < 0 || i >= n_local_)
      fail(PVEC_ERROR_OUT_OF_RANGE, "index ", i, " (entry ", j, ") outside [0, ", n_local_, ")");
    if (gone[i]) fail(PVEC_ERROR_INVALID_ARGUMENT, "index ", i, " listed twice");
    gone[i] = 1;
    first = std::min(first, i);
  }
  const int64_t tail = n_local_ - first - count;  // survivors that move
  size_t max_row = 0;
  for (auto& c : cols_) max_row = std::max(max_row, c.spec.elem_size * c.spec.ncomp);
  int64_t* src_host = host_scratch_[0].ensure_as<int64_t>(std::max<int64_t>(tail, 1));
  void* tmp_host = host_scratch_[1].ensure(max_row * std::max<int64_t>(tail, 1));
  int64_t* src_dev = device_scratch_[0].ensure_as<int64_t>(std::max<int64_t>(tail, 1));
  void* tmp_dev = device_scratch_[1].ensure(max_row * std::max<int64_t>(tail, 1));

  sync_stream();
  flush_device();
  int64_t t = 0;
  for (int64_t i = first; i < n_local_; ++i)
    if (!gone[i]) src_host[t++] = i;
  copy_bytes(src_dev, src_host, sizeof(int64_t) * tail, cuda_, stream_);
  for (auto& c : cols_) {
    const size_t e = c.spec.elem_size;
    for (int side = 0; side < 2; ++side) {
      const bool dev = side == 1;
      char* base = static_cast<char*>(c.mirror(dev));
      void* tmp = dev ? tmp_dev : tmp_host;
      gather_rows(exec(dev), tmp, tail, base, capacity_, dev ? src_dev : src_host, tail,
                  c.spec.ncomp, e);
      copy_2d(base + first * e, c.row_bytes(capacity_), tmp, tail * e, tail * e, c.spec.ncomp,
              dev && cuda_, stream_);
    }
  }
  sync_stream();
  n_local_ -= count;
  n_ghost_ = 0;
  ++generation_;
}

void ParticleSet::shrink_to_fit() {
  sync_stream();
  staging_.release();
  int64_t cap = round_capacity(n_local_);
  if (cap < capacity_) {
    flush_device();
    reallocate(cap, n_local_);
  }
  n_ghost_ = 0;
}

void ParticleSet::set_sizes(int64_t n_local, int64_t n_ghost) {
  n_local_ = n_local;
  n_ghost_ = n_ghost;
  if (device_zero_from_ >= n_local_) device_zero_from_ = INT64_MAX;
}

void ParticleSet::transfer(bool to_device, const std::vector<int>& columns, void* stream, bool wait,
                           int64_t begin, int64_t end) {
  flush_device();
  if (end < 0) end = n_total();
  const int64_t live = end - begin;
  if (live <= 0) return;
  if (cuda_ && wait && host_kind_ == MemKind::host) {
    // Pageable host mirrors: blocking copies through page-locked blocks on the host threads
    // (particles/staged_transfer.hpp), from 16 MiB in all with two or more host threads.
    size_t total = 0;
    for (int k : columns)
      total += static_cast<size_t>(live * cols_[k].spec.ncomp) * cols_[k].spec.elem_size;
    if (staged_transfer_wanted(total)) {
      std::vector<StagedRange> ranges;
      for (int k : columns) {
        PropertyBuffer& c = cols_[k];
        const size_t pitch = c.row_bytes(capacity_), bytes = live * c.spec.elem_size;
        for (int64_t comp = 0; comp < c.spec.ncomp; ++comp)
          ranges.push_back({static_cast<char*>(c.host) + comp * pitch + begin * c.spec.elem_size,
                            static_cast<char*>(c.dev) + comp * pitch + begin * c.spec.elem_size,
                            bytes});
      }
      staged_transfer(to_device, ranges, device_, stream, staging_);
      return;
    }
  }
  for (int k : columns) {
    PropertyBuffer& c = cols_[k];
    size_t pitch = c.row_bytes(capacity_);
    const int64_t skip = begin * static_cast<int64_t>(c.spec.elem_size);
    void* dst = static_cast<char*>(to_device ? c.dev : c.host) + skip;
    const void* src = static_cast<const char*>(to_device ? c.host : c.dev) + skip;
    if (cuda_) {
      copy_2d(dst, pitch, src, pitch, live * c.spec.elem_size, c.spec.ncomp, true, stream);
      continue;
    }
    // Host backend: both mirrors are host memory, copied by the host threads in ranges of
    // bytes (a fresh mirror's first touch, which dominates a restart's copy, spreads over
    // them too). The same bytes at any thread count.
    const int64_t bytes = live * static_cast<int64_t>(c.spec.elem_size);
    for (int k = 0; k < c.spec.ncomp; ++k) {
      char* d = static_cast<char*>(dst) + k * pitch;
      const char* s = static_cast<const char*>(src) + k * pitch;
      host_for_ranges(
          bytes,
          [&](int64_t b, int64_t e) { std::memcpy(d + b, s + b, static_cast<size_t>(e - b)); },
          int64_t{1} << 20);
    }
  }
  if (wait && cuda_) stream_synchronize(stream);
}

}  // namespace pvec::impl
