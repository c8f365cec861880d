// ShmExchange: the host messages of map, ghost_get and ghost_put between the ranks of one
// node through memory they share instead of MPI messages. Every rank packs its blocks into its
// own segment of a window that every rank maps (MPI-3 shared memory); a receiver reads its
// blocks straight from the senders' segments (ghost_get copies them into its ghost rows, map
// unpacks them into its rows, ghost_put reduces from them). A block is written once, by its
// sender, and read once, by its receiver: no message copy, no receive buffer, no rendezvous
// per block. MPI carries only a notice per block (it is packed, and where it starts) and the
// collective that grows the window.
//
// Every call is collective. A Transport makes one when every rank of the communicator runs on
// one node, with more than one rank, and PVEC_SHM is not 0 (decided together).
#pragma once

#include "comm/communicator.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace pvec::impl {

// White-box tests: a rank (kShmAllRanks: every rank) that fails to make the window, as if
// shared memory were not allowed there, so that the fallback to MPI runs; -1 (the default)
// for none.
constexpr int kShmAllRanks = -2;
void shm_refuse_on_rank(int rank);

class ShmExchange {
 public:
  explicit ShmExchange(const Communicator& comm);
  // Local: a window that release() did not free is left to MPI_Finalize (freeing is
  // collective, and a destructor may run on one rank alone).
  ~ShmExchange();
  ShmExchange(const ShmExchange&) = delete;
  ShmExchange& operator=(const ShmExchange&) = delete;

  // Before an operation packs anything: whether its exchange goes through shared memory. Then
  // this rank's segment holds at least `send_bytes`. When any rank needs more room, every rank
  // makes the window again (the new one at least 5/4 of the need); when the window cannot be
  // made on some rank, shared memory is turned off on every rank for good, and false
  // returned (the exchange then goes through MPI). Its collective also tells each rank that
  // every other rank has finished reading the blocks of the previous operation, so the
  // segments may be written again.
  bool prepare(int64_t send_bytes);

  // This rank's segment, where the operation packs its blocks (valid after prepare returned
  // true, until the next prepare).
  char* segment() const { return bases_.empty() ? nullptr : bases_[comm_.rank()]; }

  // After the blocks are packed in the segment (send_bytes[r] bytes for rank r at
  // send_displs[r]): tells every receiver where its block is and waits for the notices of the
  // ranks this one receives from. Returns a base address and rewrites recv_displs so that the
  // block from rank r is recv_bytes[r] bytes at base + recv_displs[r], in r's segment. The
  // blocks stay readable until this rank's next prepare.
  const char* exchange(const std::vector<int64_t>& send_bytes,
                       const std::vector<int64_t>& send_displs,
                       const std::vector<int64_t>& recv_bytes, std::vector<int64_t>& recv_displs);
  // exchange in two halves: start sends the notices and posts their receives; finish waits
  // for them and returns what exchange returns. Between them this rank may compute, but must
  // not write its segment or prepare another exchange.
  void start(const std::vector<int64_t>& send_bytes, const std::vector<int64_t>& send_displs,
             const std::vector<int64_t>& recv_bytes);
  const char* finish(const std::vector<int64_t>& recv_bytes, std::vector<int64_t>& recv_displs);

  // Collective: frees the window on every rank.
  void release() noexcept;

 private:
  void free_window() noexcept;

  const Communicator& comm_;
  bool on_ = true;
  void* win_ = nullptr;                          // Communicator::shared_window's handle
  int64_t seg_bytes_ = 0;                        // this rank's segment
  std::vector<char*> bases_;                     // every rank's segment, as mapped here
  std::vector<int64_t> notice_out_, notice_in_;  // per rank: where a block starts
};

}  // namespace pvec::impl
