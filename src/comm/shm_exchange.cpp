#include "comm/shm_exchange.hpp"

#include "common/error.hpp"
#include "memory/allocator.hpp"

#include <algorithm>
#include <cstdint>

namespace pvec::impl {

namespace {
int g_refusing_rank = -1;
// Segments start at 64 KiB and are whole pages.
constexpr int64_t kMinSegment = int64_t{1} << 16;
constexpr int64_t kPage = 4096;
}  // namespace

void shm_refuse_on_rank(int rank) { g_refusing_rank = rank; }

ShmExchange::ShmExchange(const Communicator& comm)
    : comm_(comm),
      notice_out_(static_cast<size_t>(comm.size()), 0),
      notice_in_(static_cast<size_t>(comm.size()), 0) {}

ShmExchange::~ShmExchange() {
  // Freeing a window is collective: one destroyed without release() (a vector whose creation
  // failed after it) is left to MPI_Finalize; only the accounting is settled here.
  if (win_ != nullptr) count_released(MemKind::host, static_cast<size_t>(seg_bytes_));
}

void ShmExchange::free_window() noexcept {
  if (win_ == nullptr) return;
  comm_.free_shared_window(win_);
  count_released(MemKind::host, static_cast<size_t>(seg_bytes_));
  win_ = nullptr;
  seg_bytes_ = 0;
  bases_.clear();
}

void ShmExchange::release() noexcept {
  free_window();  // every rank holds one or none alike: windows are made and freed together
  on_ = false;
}

bool ShmExchange::prepare(int64_t send_bytes) {
  if (!on_) return false;
  const bool grows = send_bytes > seg_bytes_ || win_ == nullptr;
  // The steady state: one small collective, which also tells that the previous operation's
  // readers are done with every segment.
  if (!comm_.any(grows)) return true;
  int64_t want = std::max(seg_bytes_, kMinSegment);  // no rank's segment is empty
  if (send_bytes > seg_bytes_) {
    want = std::max(send_bytes + send_bytes / 4, kMinSegment);
    want = (want + kPage - 1) / kPage * kPage;
  }
  // Make the new window before freeing the old one: a rank that cannot is left with the old.
  std::vector<char*> bases;
  void* fresh = comm_.shared_window(want, bases);
  const int me = comm_.rank();
  const bool refused = g_refusing_rank == me || g_refusing_rank == kShmAllRanks;
  const bool made_everywhere = !comm_.any(fresh == nullptr);
  if (made_everywhere && !comm_.any(refused)) {
    free_window();
    win_ = fresh;
    seg_bytes_ = want;
    bases_ = std::move(bases);
    count_acquired(MemKind::host, static_cast<size_t>(want));
    return true;
  }
  // Off for good, on every rank. Freeing is collective over the ranks that hold a window: it
  // is safe only when every rank made the new one (a refusal); after a real failure the ranks
  // that made theirs leave them to MPI_Finalize.
  if (made_everywhere) comm_.free_shared_window(fresh);
  free_window();
  on_ = false;
  return false;
}

const char* ShmExchange::exchange(const std::vector<int64_t>& send_bytes,
                                  const std::vector<int64_t>& send_displs,
                                  const std::vector<int64_t>& recv_bytes,
                                  std::vector<int64_t>& recv_displs) {
  start(send_bytes, send_displs, recv_bytes);
  return finish(recv_bytes, recv_displs);
}

void ShmExchange::start(const std::vector<int64_t>& send_bytes,
                        const std::vector<int64_t>& send_displs,
                        const std::vector<int64_t>& recv_bytes) {
  const int P = comm_.size();
  std::vector<Communicator::Piece> sends, recvs;
  for (int r = 0; r < P; ++r) {
    if (send_bytes[r] > 0) {
      notice_out_[r] = send_displs[r];
      sends.push_back({r, reinterpret_cast<char*>(&notice_out_[r]), sizeof(int64_t)});
    }
    if (recv_bytes[r] > 0)
      recvs.push_back({r, reinterpret_cast<char*>(&notice_in_[r]), sizeof(int64_t)});
  }
  comm_.sync_shared_window(win_);  // the packed blocks before their notices
  comm_.exchange_pieces(sends, recvs, false);
}

const char* ShmExchange::finish(const std::vector<int64_t>& recv_bytes,
                                std::vector<int64_t>& recv_displs) {
  const int P = comm_.size();
  comm_.wait_pending();
  comm_.sync_shared_window(win_);  // the notices before the blocks' loads
  // Every segment lies in one mapping (Communicator::shared_window): offsets from the first.
  const char* base = bases_[0];
  for (int r = 0; r < P; ++r)
    recv_displs[r] = recv_bytes[r] > 0 ? (bases_[r] - base) + notice_in_[r] : 0;
  return base;
}

}  // namespace pvec::impl
