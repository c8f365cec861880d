// Transport: how the message blocks of one distribution call travel between ranks. Host
// buffers go through shared memory where every rank runs on one node (ShmExchange), else
// through MPI; device buffers through CUDA IPC where every rank can map the others' landing
// buffers, else through a CUDA-aware MPI, else staged through pinned host buffers.
#pragma once

#include "comm/communicator.hpp"
#include "comm/ipc_exchange.hpp"
#include "comm/op_stats.hpp"
#include "comm/shm_exchange.hpp"
#include "memory/scratch_buffer.hpp"

#include <cstdint>
#include <memory>
#include <vector>

namespace pvec::impl {

// How the blocks of one operation travel (Transport::prepare).
enum class Route {
  mpi,            // from the caller's send buffer into its receive buffer
  cuda_ipc,       // device blocks into this rank's IPC landing buffer: no receive buffer
  shared_memory,  // host blocks packed into the shared segment, read where they are
};

class Transport {
 public:
  // Collective: decides together whether device messages may go through CUDA IPC (every rank
  // runs the CUDA backend on one node, and PVEC_IPC is not 0) and host messages through shared
  // memory (every rank on one node, all on the same backend, and PVEC_SHM is not 0).
  Transport(const Communicator& comm, bool cuda);
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  // Collective, before an operation changes anything: how its blocks travel. With cuda_ipc
  // and shared_memory the caller needs no receive buffer (exchange returns where the blocks
  // are); with shared_memory it packs into shared_segment(), which holds send_total bytes.
  // recv_total: the bytes this rank receives. Throws (on every rank) when an IPC landing
  // buffer cannot grow. The bookkeeping is counted as exchange time, taken from compute time.
  Route prepare(bool on_gpu, int64_t send_total, int64_t recv_total, OpStats& stats);

  // After prepare returned Route::shared_memory, until the next prepare: where to pack.
  char* shared_segment() const { return shm_ ? shm_->segment() : nullptr; }

  // Exchange blocks between ranks; buffers are on the side the operation runs on (on_gpu:
  // device memory, ordered on stream). Returns where the received blocks are, laid out by
  // recv_displs: recv, this rank's IPC landing buffer, or (shared memory, where recv_displs is
  // rewritten) a base in the shared window from which each block is read in its sender's
  // segment. stage_send and stage_recv are the pinned host buffers for staging when MPI
  // cannot take device pointers.
  const char* exchange(bool on_gpu, Route route, const void* send,
                       const std::vector<int64_t>& send_bytes,
                       const std::vector<int64_t>& send_displs, void* recv,
                       const std::vector<int64_t>& recv_bytes, std::vector<int64_t>& recv_displs,
                       void* stream, ScratchBuffer& stage_send, ScratchBuffer& stage_recv,
                       OpStats& stats);

  // exchange in two halves, for the split-phase ghost exchange: start posts the messages and
  // returns; finish completes them and returns what exchange returns (and rewrites
  // recv_displs as exchange does). Between them the send and receive buffers, the shared
  // segment and the transport are the flight's: no other exchange may start. What travels
  // while the caller computes: MPI messages (host buffers, CUDA-aware MPI, and the MPI part of
  // staging: the device-to-host copy is in start, the host-to-device copy in finish) and the
  // notices of shared memory; CUDA IPC copies complete inside start.
  struct Flight {
    Route route = Route::mpi;
    bool staged = false;
    void* recv = nullptr;       // where the blocks land (staged: the device receive buffer)
    const char* got = nullptr;  // CUDA IPC: where they landed
    void* stage = nullptr;      // staged: the pinned receive buffer
    int64_t recv_span = 0;      // staged: bytes to copy back
    void* stream = nullptr;
  };
  Flight start(bool on_gpu, Route route, const void* send, const std::vector<int64_t>& send_bytes,
               const std::vector<int64_t>& send_displs, void* recv,
               const std::vector<int64_t>& recv_bytes, std::vector<int64_t>& recv_displs,
               void* stream, ScratchBuffer& stage_send, ScratchBuffer& stage_recv, OpStats& stats);
  const char* finish(Flight& f, const std::vector<int64_t>& recv_bytes,
                     std::vector<int64_t>& recv_displs, OpStats& stats);

  // exchange of host buffers in pieces (Communicator::exchange_pieces), so that the receiver
  // can point each piece at its final place; the same figures as exchange. With wait false
  // the pieces are only posted: finish_pieces completes them.
  void exchange_pieces(const std::vector<Communicator::Piece>& sends,
                       const std::vector<Communicator::Piece>& recvs, OpStats& stats,
                       bool wait = true);
  void finish_pieces(OpStats& stats);

  // Collective: unmaps and frees the IPC buffers and the shared window on every rank (the
  // vector's destruction).
  void release();

 private:
  const Communicator& comm_;
  std::unique_ptr<IpcExchange> ipc_;  // null: device blocks through MPI
  std::unique_ptr<ShmExchange> shm_;  // null: host blocks through MPI
};

}  // namespace pvec::impl
