// DistContext: what map, ghost_get and ghost_put work on: one rank's particles, the
// decomposition, the transport between ranks, the work buffers kept between calls, and the
// figures of the call. The owner (vector/DistVector) makes one per call.
#pragma once

#include "comm/communicator.hpp"
#include "comm/op_stats.hpp"
#include "comm/transport.hpp"
#include "decomp/cartesian_grid.hpp"
#include "memory/workspace.hpp"
#include "particles/particle_set.hpp"

#include <pvec.h>

#include <cstdint>
#include <exception>
#include <utility>
#include <vector>

namespace pvec::impl {

struct DistContext {
  ParticleSet& ps;
  const CartGrid& grid;
  pvec_dtype pos_dtype;
  double ghost_width;
  const Communicator& comm;
  Transport& transport;
  Workspace& ws;
  OpStats& stats;
  // Set by the owner when this rank must refuse the call (a mirror older than the other one):
  // the operation rethrows it inside its first agreement, so that every rank fails together
  // before anything changes.
  std::exception_ptr refusal = nullptr;
  // ghost_get with PVEC_GHOST_SKIP_POSITIONS: the local positions of the mirror changed since
  // its ghosts last received theirs (the owner's mirror versions tell).
  bool positions_changed = false;

  void refuse_if_asked() const {
    if (refusal) std::rethrow_exception(refusal);
  }

  // Runs f, then every rank learns whether any rank failed (Communicator::agree).
  template <class F>
  void agree(const char* what, F&& f) const {
    comm.agree(what, std::forward<F>(f));
  }
  // Transport::prepare for an operation on the device mirrors (device) or the host mirrors.
  Route prepare_exchange(bool device, int64_t send_total, int64_t recv_total);
  // Where the operation packs its blocks of send_total bytes: the shared segment
  // (Route::shared_memory) or the work buffer of its side, made to hold them (throws
  // OUT_OF_MEMORY when it cannot grow).
  char* send_buffer(bool device, Route route, int64_t send_total);
  // Transport::exchange on the side the operation runs on (with shared memory, recv_displs
  // is rewritten: the blocks are read where their senders packed them).
  const char* exchange(bool device, Route route, const void* send,
                       const std::vector<int64_t>& send_bytes,
                       const std::vector<int64_t>& send_displs, void* recv,
                       const std::vector<int64_t>& recv_bytes, std::vector<int64_t>& recv_displs);
  // exchange in two halves (Transport::start / finish): the split-phase ghost exchange.
  Transport::Flight start_exchange(bool device, Route route, const void* send,
                                   const std::vector<int64_t>& send_bytes,
                                   const std::vector<int64_t>& send_displs, void* recv,
                                   const std::vector<int64_t>& recv_bytes,
                                   std::vector<int64_t>& recv_displs);
  const char* finish_exchange(Transport::Flight& f, const std::vector<int64_t>& recv_bytes,
                              std::vector<int64_t>& recv_displs) {
    return transport.finish(f, recv_bytes, recv_displs, stats);
  }
  // Transport::exchange_pieces (host buffers); with wait false completed by finish_pieces.
  void exchange_pieces(const std::vector<Communicator::Piece>& sends,
                       const std::vector<Communicator::Piece>& recvs, bool wait = true) {
    transport.exchange_pieces(sends, recvs, stats, wait);
  }
  void finish_pieces() { transport.finish_pieces(stats); }
  // Upload small per-peer arrays to the side an operation runs on; returns their addresses.
  // Allocates nothing when reserve_peers made room for at least as many words.
  int64_t* upload_peers(bool device, const std::vector<const std::vector<int64_t>*>& arrays);
  // Room for `words` int64 in upload_peers' buffers (both sides), so that a later upload
  // cannot fail; throws on OOM, like every allocation before an operation commits.
  void reserve_peers(bool device, size_t words);
};

}  // namespace pvec::impl
