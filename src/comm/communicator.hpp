// Communicator: pvec's private duplicate of the vector's MPI communicator, and the few
// collective patterns the distribution layer needs. Without MPI it is a single rank.
#pragma once

#include "common/error.hpp"

#include <cstdint>
#include <exception>
#include <memory>
#include <vector>

namespace pvec::impl {

enum class AllreduceOp { sum, min, max };

class Communicator {
 public:
  // Duplicates the communicator (MPI_COMM_WORLD unless has_comm; comm_f is a Fortran handle).
  // Collective.
  Communicator(bool has_comm, int64_t comm_f);
  ~Communicator();
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }

  int64_t allreduce_sum(int64_t v) const;
  int64_t allreduce_max(int64_t v) const;
  // values[0, count) of dtype (any pvec_dtype), combined over the ranks in place.
  void allreduce(void* values, int64_t count, pvec_dtype dtype, AllreduceOp op) const;
  int64_t exclusive_scan_sum(int64_t v) const;
  // Every rank learns whether any rank failed; used so that an error on one rank becomes an
  // error on all ranks instead of a hang.
  bool any(bool flag) const { return allreduce_max(flag ? 1 : 0) != 0; }
  // Runs f, then every rank learns whether any rank failed: the failing rank rethrows its
  // error, the others fail with PVEC_ERROR_MPI naming the (highest) failing rank, so no rank
  // is left waiting in a collective.
  template <class F>
  void agree(const char* what, F&& f) const {
    std::exception_ptr error;
    try {
      f();
    } catch (...) {
      error = std::current_exception();
    }
    const int64_t failed = allreduce_max(error != nullptr ? rank() + 1 : 0);
    if (failed != 0) {
      if (error) std::rethrow_exception(error);
      fail(PVEC_ERROR_MPI, what, " failed on rank ", failed - 1,
           " (its own status and message are there); nothing was changed");
    }
  }
  // Every rank's `bytes` bytes at mine, in rank order, into all (size() * bytes).
  void allgather_bytes(const void* mine, size_t bytes, void* all) const;
  // Fortran handle (MPI_Comm_c2f) of pvec's private communicator, for libraries that take an
  // MPI_Comm and duplicate it themselves (parallel HDF5, MPI-IO); -1 without MPI.
  int64_t fortran_handle() const;
  // Whether o holds the same processes in the same order (MPI_Comm_compare: identical or
  // congruent). Local.
  bool same_ranks(const Communicator& o) const;
  // Whether every rank runs on this rank's node (shared memory; true without MPI).
  bool single_node() const { return single_node_; }

  // A window of memory that every rank maps (MPI-3 shared memory; only when single_node()):
  // this rank's segment of `bytes` bytes (0 allowed); `bases` receives every rank's segment
  // address, in rank order, as this process sees them. The segments are one contiguous
  // mapping (MPI's default), so an address in one segment plus a byte offset reaches any other.
  // Collective. Returns an opaque handle, or null when MPI could not make the window here
  // (then nothing is held on this rank; the other ranks may hold theirs: the caller agrees).
  void* shared_window(int64_t bytes, std::vector<char*>& bases) const;
  // Collective over the ranks that hold the window: frees it (nothing after MPI_Finalize).
  void free_shared_window(void* win) const noexcept;
  // Orders this rank's stores to and loads from the window against the other ranks', around
  // the messages that tell them (MPI_Win_sync).
  void sync_shared_window(void* win) const;

  // Personalised all-to-all of bytes. send_counts[r] bytes for rank r start at
  // send + send_displs[r]. Counts are exchanged first; recv_counts/recv_displs receive the
  // layout and the caller's allocator `ensure_recv(total)` returns the receive buffer.
  // Messages go only between ranks with something to say.
  template <class EnsureRecv>
  void exchange(const void* send, const std::vector<int64_t>& send_counts,
                const std::vector<int64_t>& send_displs, std::vector<int64_t>& recv_counts,
                std::vector<int64_t>& recv_displs, EnsureRecv ensure_recv) const {
    exchange_counts(send_counts, recv_counts);
    recv_displs.assign(size_, 0);
    int64_t total = 0;
    for (int r = 0; r < size_; ++r) {
      recv_displs[r] = total;
      total += recv_counts[r];
    }
    void* recv = ensure_recv(total);
    exchange_data(send, send_counts, send_displs, recv, recv_counts, recv_displs);
  }

  void exchange_counts(const std::vector<int64_t>& send_counts,
                       std::vector<int64_t>& recv_counts) const;
  // With wait false, returns once the messages are posted: they complete in wait_pending(),
  // and neither buffer may be touched until then (the split-phase ghost exchange).
  void exchange_data(const void* send, const std::vector<int64_t>& send_counts,
                     const std::vector<int64_t>& send_displs, void* recv,
                     const std::vector<int64_t>& recv_counts,
                     const std::vector<int64_t>& recv_displs, bool wait = true) const;

  // A contiguous piece of a message: `bytes` at `at`, to or from rank `peer`.
  struct Piece {
    int peer;
    char* at;
    int64_t bytes;
  };
  // Sends the pieces `sends` and receives `recvs`, each piece its own message (or several of at
  // most 1 GiB): the pieces between two ranks travel in the order listed, so the receiver lists
  // the same sizes in the sender's order, and they land wherever it points them (a block's
  // columns straight in their rows). Returns when all are done (wait false: once posted, as
  // exchange_data). No piece from a rank to itself.
  void exchange_pieces(const std::vector<Piece>& sends, const std::vector<Piece>& recvs,
                       bool wait = true) const;
  // Completes the messages posted with wait false (nothing when none are pending). Throws
  // PVEC_ERROR_MPI when one failed; none is pending afterwards.
  void wait_pending() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int rank_ = 0;
  int size_ = 1;
  bool single_node_ = true;
};

}  // namespace pvec::impl
