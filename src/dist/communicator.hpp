// Communicator: pvec's private duplicate of the vector's MPI communicator, and the few
// collective patterns the distribution layer needs. Without MPI it is a single rank.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace pvec::detail {

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
  int64_t exclusive_scan_sum(int64_t v) const;
  // Every rank learns whether any rank failed; used so that an error on one rank becomes an
  // error on all ranks instead of a hang.
  bool any(bool flag) const { return allreduce_max(flag ? 1 : 0) != 0; }

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
  void exchange_data(const void* send, const std::vector<int64_t>& send_counts,
                     const std::vector<int64_t>& send_displs, void* recv,
                     const std::vector<int64_t>& recv_counts,
                     const std::vector<int64_t>& recv_displs) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace pvec::detail
