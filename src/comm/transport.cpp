#include "comm/transport.hpp"

#include "backend/device.hpp"
#include "common/clock.hpp"
#include "common/error.hpp"
#include "runtime/environment.hpp"

#include <algorithm>

namespace pvec::impl {

Transport::Transport(const Communicator& comm, bool cuda) : comm_(comm) {
  const bool ipc = comm.size() > 1 && cuda && comm.single_node() && ipc_enabled();
  if (!comm.any(!ipc)) ipc_ = std::make_unique<IpcExchange>(comm);
  // One backend on every rank, so that every rank of a host operation asks for shared memory
  // (a device operation on a CUDA rank exchanges device buffers).
  const bool some_cuda = comm.any(cuda), some_host = comm.any(!cuda);
  const bool shm =
      comm.size() > 1 && comm.single_node() && shm_enabled() && !(some_cuda && some_host);
  if (!comm.any(!shm)) shm_ = std::make_unique<ShmExchange>(comm);
}

void Transport::release() {
  if (ipc_) ipc_->release();
  if (shm_) shm_->release();
}

Route Transport::prepare(bool on_gpu, int64_t send_total, int64_t recv_total, OpStats& stats) {
  if (on_gpu ? ipc_ == nullptr : shm_ == nullptr) return Route::mpi;
  auto t0 = Clock::now();
  const Route route = on_gpu ? (ipc_->prepare(true, recv_total) ? Route::cuda_ipc : Route::mpi)
                             : (shm_->prepare(send_total) ? Route::shared_memory : Route::mpi);
  const double dt = seconds_since(t0);
  stats.exchange_seconds += dt;
  stats.compute_seconds -= dt;
  return route;
}

const char* Transport::exchange(bool on_gpu, Route route, const void* send,
                                const std::vector<int64_t>& send_bytes,
                                const std::vector<int64_t>& send_displs, void* recv,
                                const std::vector<int64_t>& recv_bytes,
                                std::vector<int64_t>& recv_displs, void* stream,
                                ScratchBuffer& stage_send, ScratchBuffer& stage_recv,
                                OpStats& stats) {
  Flight f = start(on_gpu, route, send, send_bytes, send_displs, recv, recv_bytes, recv_displs,
                   stream, stage_send, stage_recv, stats);
  return finish(f, recv_bytes, recv_displs, stats);
}

Transport::Flight Transport::start(bool on_gpu, Route route, const void* send,
                                   const std::vector<int64_t>& send_bytes,
                                   const std::vector<int64_t>& send_displs, void* recv,
                                   const std::vector<int64_t>& recv_bytes,
                                   std::vector<int64_t>& recv_displs, void* stream,
                                   ScratchBuffer& stage_send, ScratchBuffer& stage_recv,
                                   OpStats& stats) {
  Flight f;
  f.route = route;
  f.recv = recv;
  f.stream = stream;
  const int P = comm_.size(), me = comm_.rank();
  // A rank's own block is always empty: map sends nothing to itself, and ghost_get/ghost_put
  // write or read their own periodic images in place.
  if (send_bytes[me] != 0 || recv_bytes[me] != 0)
    fail(PVEC_ERROR_INTERNAL, "a message block from a rank to itself");
  int64_t send_total = 0, recv_total = 0;
  for (int r = 0; r < P; ++r) {
    send_total += send_bytes[r];
    recv_total += recv_bytes[r];
  }
  stats.bytes_sent += send_total;
  stats.bytes_received += recv_total;
  auto t0 = Clock::now();
  if (on_gpu) stream_synchronize(stream);  // packing done before MPI reads the buffers
  const bool ipc = route == Route::cuda_ipc, shm = route == Route::shared_memory;
  stats.transport = P == 1                        ? PVEC_TRANSPORT_NONE
                    : ipc                         ? PVEC_TRANSPORT_CUDA_IPC
                    : shm                         ? PVEC_TRANSPORT_SHARED_MEMORY
                    : !on_gpu || mpi_cuda_aware() ? PVEC_TRANSPORT_MPI
                                                  : PVEC_TRANSPORT_MPI_STAGED;
  if (ipc) {
    // Every rank takes part, with or without blocks of its own.
    f.got = static_cast<const char*>(
        ipc_->exchange(send, send_bytes, send_displs, recv_displs, stream));
  } else if (shm) {
    if (send != shm_->segment())
      fail(PVEC_ERROR_INTERNAL, "shared-memory blocks packed outside the shared segment");
    shm_->start(send_bytes, send_displs, recv_bytes);
  } else if (send_total + recv_total == 0) {
    // nothing for MPI
  } else if (!on_gpu || mpi_cuda_aware()) {
    comm_.exchange_data(send, send_bytes, send_displs, recv, recv_bytes, recv_displs, false);
  } else {
    // Stage through pinned host buffers kept between calls: one copy each way of the whole
    // message area.
    const int64_t send_span = send_displs[P - 1] + send_bytes[P - 1];
    f.recv_span = recv_displs[P - 1] + recv_bytes[P - 1];
    void* hs = stage_send.ensure(std::max<int64_t>(send_span, 1));
    f.stage = stage_recv.ensure(std::max<int64_t>(f.recv_span, 1));
    f.staged = true;
    copy_bytes(hs, send, send_span, true, stream);
    stream_synchronize(stream);
    comm_.exchange_data(hs, send_bytes, send_displs, f.stage, recv_bytes, recv_displs, false);
  }
  stats.exchange_seconds += seconds_since(t0);
  return f;
}

const char* Transport::finish(Flight& f, const std::vector<int64_t>& recv_bytes,
                              std::vector<int64_t>& recv_displs, OpStats& stats) {
  auto t0 = Clock::now();
  const char* got = static_cast<const char*>(f.recv);
  if (f.route == Route::cuda_ipc) {
    got = f.got;
  } else if (f.route == Route::shared_memory) {
    got = shm_->finish(recv_bytes, recv_displs);
  } else {
    comm_.wait_pending();
    if (f.staged) {
      copy_bytes(f.recv, f.stage, f.recv_span, true, f.stream);
      stream_synchronize(f.stream);
    }
  }
  stats.exchange_seconds += seconds_since(t0);
  return got;
}

void Transport::exchange_pieces(const std::vector<Communicator::Piece>& sends,
                                const std::vector<Communicator::Piece>& recvs, OpStats& stats,
                                bool wait) {
  const int me = comm_.rank();
  for (const auto* list : {&sends, &recvs})
    for (const Communicator::Piece& p : *list) {
      if (p.peer == me) fail(PVEC_ERROR_INTERNAL, "a message piece from a rank to itself");
      (list == &sends ? stats.bytes_sent : stats.bytes_received) += p.bytes;
    }
  auto t0 = Clock::now();
  stats.transport = comm_.size() == 1 ? PVEC_TRANSPORT_NONE : PVEC_TRANSPORT_MPI;
  comm_.exchange_pieces(sends, recvs, wait);
  stats.exchange_seconds += seconds_since(t0);
}

void Transport::finish_pieces(OpStats& stats) {
  auto t0 = Clock::now();
  comm_.wait_pending();
  stats.exchange_seconds += seconds_since(t0);
}

}  // namespace pvec::impl
