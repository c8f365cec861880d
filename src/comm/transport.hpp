// Transport: how the message blocks of one distribution call travel between ranks. Host
// buffers go through MPI; device buffers through CUDA IPC where every rank can map the
// others' landing buffers, else through a CUDA-aware MPI, else staged through pinned host
// buffers.
#pragma once

#include "comm/communicator.hpp"
#include "comm/ipc_exchange.hpp"
#include "comm/op_stats.hpp"
#include "memory/scratch_buffer.hpp"

#include <cstdint>
#include <memory>
#include <vector>

namespace pvec::impl {

class Transport {
 public:
  // Collective: decides together whether device messages may go through CUDA IPC (every rank
  // runs the CUDA backend on one node, and PVEC_IPC is not 0).
  Transport(const Communicator& comm, bool cuda);
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  // Collective, before an operation changes anything: whether its exchange goes through CUDA
  // IPC (then the caller needs no receive buffer: exchange returns where the data landed).
  // recv_total: the bytes this rank receives. Throws (on every rank) when a landing buffer
  // cannot grow. The bookkeeping is counted as exchange time, taken from compute time.
  bool prepare(bool on_gpu, int64_t recv_total, OpStats& stats);

  // Exchange blocks between ranks; buffers are on the side the operation runs on (on_gpu:
  // device memory, ordered on stream). Returns where the received blocks are, laid out by
  // recv_displs: recv, or this rank's IPC landing buffer. stage_send and stage_recv are the
  // pinned host buffers for staging when MPI cannot take device pointers.
  const char* exchange(bool on_gpu, bool ipc, const void* send,
                       const std::vector<int64_t>& send_bytes,
                       const std::vector<int64_t>& send_displs, void* recv,
                       const std::vector<int64_t>& recv_bytes,
                       const std::vector<int64_t>& recv_displs, void* stream,
                       ScratchBuffer& stage_send, ScratchBuffer& stage_recv, OpStats& stats);

  // exchange of host buffers in pieces (Communicator::exchange_pieces), so that the receiver
  // can point each piece at its final place; the same figures as exchange.
  void exchange_pieces(const std::vector<Communicator::Piece>& sends,
                       const std::vector<Communicator::Piece>& recvs, OpStats& stats);

  // Collective: unmaps and frees the IPC buffers on every rank (the vector's destruction).
  void release();

 private:
  const Communicator& comm_;
  std::unique_ptr<IpcExchange> ipc_;  // null: MPI only
};

}  // namespace pvec::impl
