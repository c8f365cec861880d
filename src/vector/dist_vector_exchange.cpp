// DistVector's exchanges between ranks (docs/distribution.md, docs/overlap.md): map, and
// ghost_get and ghost_put, blocking or in two halves, with the mirrors' bookkeeping around them.
#include "vector/dist_vector.hpp"

#include "common/error.hpp"
#include "halo/ghost_get.hpp"
#include "halo/ghost_put.hpp"
#include "migrate/map.hpp"

#include <algorithm>

namespace pvec::impl {

DistContext DistVector::context() {
  return DistContext{*ps_, grid_, pos_dtype_, ghost_width_, *comm_, *transport_, ws_, stats_};
}

int64_t DistVector::map(unsigned flags) {
  require_idle("pvec_map");
  const bool device = (flags & PVEC_ON_DEVICE) != 0;
  DistContext ctx = context();
  ctx.refusal = refusal(device, all_columns(), kRowsLocal, "pvec_map");
  const int64_t removed = impl::map(ctx, flags);
  dropped_ghosts();
  mark_written(device, all_columns(), kRowsLocal, "pvec_map");
  return removed;
}

void DistVector::ghost_get(const int* props, int nprops, unsigned flags) {
  start_ghost_get(props, nprops, flags, "pvec_ghost_get");
  finish_ghost_get("pvec_ghost_get");
}

void DistVector::ghost_get_begin(const int* props, int nprops, unsigned flags) {
  start_ghost_get(props, nprops, flags, "pvec_ghost_get_begin");
}

void DistVector::ghost_get_end() {
  if (flight_.kind != GhostFlight::Kind::get)
    fail(PVEC_ERROR_STATE, "no pvec_ghost_get_begin in flight",
         flight_.kind == GhostFlight::Kind::put ? " (a ghost_put is: pvec_ghost_put_end)" : "");
  finish_ghost_get("pvec_ghost_get_end");
}

void DistVector::start_ghost_get(const int* props, int nprops, unsigned flags, const char* what) {
  require_idle(what);
  std::vector<int> cols = columns_of(props, nprops, false);
  const std::vector<int> carried = cols;
  const bool device = (flags & PVEC_ON_DEVICE) != 0;
  const bool skip_pos = (flags & PVEC_GHOST_SKIP_POSITIONS) != 0;
  // Refused before anything below forgets the ghosts' state (impl::ghost_get says it too).
  if (skip_pos && (flags & PVEC_GHOST_REUSE_PLAN) == 0)
    fail(PVEC_ERROR_INVALID_ARGUMENT,
         "PVEC_GHOST_SKIP_POSITIONS needs PVEC_GHOST_REUSE_PLAN (positions decide the plan)");
  std::vector<int> sent = carried;  // what travels: the positions too unless left out
  if (!skip_pos && std::find(sent.begin(), sent.end(), 0) == sent.end())
    sent.insert(sent.begin(), 0);
  DistContext ctx = context();
  ctx.refusal = refusal(device, sent, kRowsLocal, what);
  ctx.positions_changed = mirror_state_.version(0, device, kRowsLocal) != pos_sent_version_[device];
  // A new plan may put other particles in the ghost rows (even when it fails half way): no
  // column's ghost rows are current on either mirror until this one brings them.
  if ((flags & PVEC_GHOST_REUSE_PLAN) == 0) {
    ++rows_epoch_;
    ghost_current_[0].clear();
    ghost_current_[1].clear();
    mirror_state_.forget(kRowsGhost);
  }
  impl::ghost_get_begin(ctx, halo_, std::move(cols), flags, flight_);
  flight_carried_ = carried;
  flight_sent_ = sent;
  flight_skip_pos_ = skip_pos;
  flight_pos_version_ = mirror_state_.version(0, device, kRowsLocal);
}

void DistVector::finish_ghost_get(const char* what) {
  const bool device = flight_.device;
  DistContext ctx = context();
  try {
    impl::ghost_get_end(ctx, halo_, flight_);
  } catch (...) {
    // The ghost rows hold part of the messages: no ghosts, no plan.
    ps_->set_sizes(ps_->n_local(), 0);
    dropped_ghosts();
    throw;
  }
  for (const int c : flight_carried_) note_ghost_rows(c, device, true);
  mark_written(device, flight_sent_, kRowsGhost, what);
  if (!flight_skip_pos_) pos_sent_version_[device] = flight_pos_version_;
}

void DistVector::ghost_put(const int* props, int nprops, pvec_reduce_op op, unsigned flags) {
  start_ghost_put(props, nprops, op, flags, "pvec_ghost_put");
  finish_ghost_put("pvec_ghost_put");
}

void DistVector::ghost_put_begin(const int* props, int nprops, pvec_reduce_op op, unsigned flags) {
  start_ghost_put(props, nprops, op, flags, "pvec_ghost_put_begin");
}

void DistVector::ghost_put_end() {
  if (flight_.kind != GhostFlight::Kind::put)
    fail(PVEC_ERROR_STATE, "no pvec_ghost_put_begin in flight",
         flight_.kind == GhostFlight::Kind::get ? " (a ghost_get is: pvec_ghost_get_end)" : "");
  finish_ghost_put("pvec_ghost_put_end");
}

void DistVector::start_ghost_put(const int* props, int nprops, pvec_reduce_op op, unsigned flags,
                                 const char* what) {
  require_no_flight(what);
  const std::vector<int> cols = columns_of(props, nprops, false);
  const bool device = (flags & PVEC_ON_DEVICE) != 0;
  DistContext ctx = context();
  ctx.refusal = refusal(device, cols, kRowsAll, what);
  // The owners' rows change, so the ghost copies on this mirror no longer match them.
  for (const int c : cols) note_ghost_rows(c, device, false);
  impl::ghost_put_begin(ctx, halo_.plan.get(), cols, op, flags, flight_);
  flight_carried_ = cols;
}

void DistVector::finish_ghost_put(const char* what) {
  const bool device = flight_.device;
  DistContext ctx = context();
  // (A failure here leaves the local rows partly combined: the error says so to the caller.)
  impl::ghost_put_end(ctx, halo_.plan.get(), flight_);
  mark_written(device, flight_carried_, kRowsLocal, what);
}

}  // namespace pvec::impl
