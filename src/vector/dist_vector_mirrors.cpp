// DistVector's mirror coherence (docs/coherence.md): the checks before an operation reads a
// mirror, the copies of automatic synchronisation, and the caller's declarations.
#include "vector/dist_vector.hpp"

#include "common/error.hpp"

#include <algorithm>

namespace pvec::impl {

namespace {
const char* side_name(bool device) { return device ? "device" : "host"; }
}  // namespace

void DistVector::throw_stale(bool device, const MirrorState::Stale& st, const char* what) const {
  const char* rows = st.rows == kRowsGhost ? "ghost rows" : "local rows";
  const char* by = st.newer.by != nullptr ? st.newer.by : "an earlier operation";
  fail(PVEC_ERROR_STALE_MIRROR, what, " reads '", name_of(st.column), "' (", rows, ") on the ",
       side_name(device), " mirror, but the ", side_name(!device),
       " mirror holds newer values (written by ", by, " on the ", side_name(st.newer.device),
       " mirror); copy them first (", device ? "pvec_host_to_device" : "pvec_device_to_host",
       " or pvec_vector_sync), declare this mirror's values current "
       "(pvec_vector_mark_modified), or turn on pvec_vector_set_auto_sync");
}

void DistVector::check_current(bool device, const std::vector<int>& columns, unsigned rows,
                               const char* what) {
  if (ps_->n_ghost() == 0) rows &= ~kRowsGhost;
  for (;;) {
    const MirrorState::Stale st = mirror_state_.first_stale(device, columns, rows);
    if (st.column < 0) return;
    if (!auto_sync_) throw_stale(device, st, what);
    sync(device, {st.column}, st.rows);
  }
}

void DistVector::check_current_together(bool device, const std::vector<int>& columns, unsigned rows,
                                        const char* what) {
  comm_->agree(what, [&] { check_current(device, columns, rows, what); });
}

std::exception_ptr DistVector::refusal(bool device, const std::vector<int>& columns, unsigned rows,
                                       const char* what) {
  try {
    check_current(device, columns, rows, what);
  } catch (...) {
    return std::current_exception();
  }
  return nullptr;
}

void DistVector::mark_written(bool device, const std::vector<int>& columns, unsigned rows,
                              const char* by) {
  mirror_state_.wrote(device, columns, rows, by);
}

void DistVector::sync(bool to_device, const std::vector<int>& columns, unsigned rows) {
  std::vector<int> local, ghost;
  for (const int c : columns) {
    if ((rows & kRowsLocal) && !mirror_state_.current(c, to_device, kRowsLocal)) local.push_back(c);
    if ((rows & kRowsGhost) && !mirror_state_.current(c, to_device, kRowsGhost)) ghost.push_back(c);
  }
  void* s = ps_->stream();
  const int64_t n = ps_->n_local(), total = ps_->n_total();
  if (!local.empty()) ps_->transfer(to_device, local, s, true, 0, n);
  if (!ghost.empty() && total > n) ps_->transfer(to_device, ghost, s, true, n, total);
  mirror_state_.copied(to_device, local, kRowsLocal);
  mirror_state_.copied(to_device, ghost, kRowsGhost);
  for (const int c : ghost) note_ghost_rows(c, to_device, ghost_rows_current(c, !to_device));
}

unsigned DistVector::currency(int column) const {
  unsigned bits = 0;
  if (mirror_state_.current(column, false, kRowsLocal)) bits |= PVEC_MIRROR_HOST_LOCAL;
  if (mirror_state_.current(column, true, kRowsLocal)) bits |= PVEC_MIRROR_DEVICE_LOCAL;
  if (mirror_state_.current(column, false, kRowsGhost)) bits |= PVEC_MIRROR_HOST_GHOST;
  if (mirror_state_.current(column, true, kRowsGhost)) bits |= PVEC_MIRROR_DEVICE_GHOST;
  return bits;
}

void DistVector::transfer(bool to_device, const std::vector<int>& columns, void* stream,
                          bool wait) {
  require_no_flight(to_device ? "a copy to the device mirror" : "a copy to the host mirror");
  // Copying older local rows over newer ones would lose the newer values: refused (with
  // automatic synchronisation too: the caller asked for this copy). Ghost rows that are older
  // on the source are left out: the destination keeps its newer ghosts.
  const bool from_device = !to_device;
  const MirrorState::Stale st = mirror_state_.first_stale(from_device, columns, kRowsLocal);
  if (st.column >= 0)
    fail(PVEC_ERROR_STALE_MIRROR, "would copy '", name_of(st.column), "' (local rows) from the ",
         side_name(from_device), " mirror over newer values on the ", side_name(to_device),
         " mirror (written by ", st.newer.by != nullptr ? st.newer.by : "an earlier operation",
         " on the ", side_name(st.newer.device), " mirror); copy the other way, or declare the ",
         side_name(from_device), " values current (pvec_vector_mark_modified)");
  std::vector<int> whole, local_only;
  for (const int c : columns)
    (ps_->n_ghost() > 0 && !mirror_state_.current(c, from_device, kRowsGhost) ? local_only : whole)
        .push_back(c);
  if (!whole.empty()) ps_->transfer(to_device, whole, stream, wait && local_only.empty());
  if (!local_only.empty()) ps_->transfer(to_device, local_only, stream, wait, 0, ps_->n_local());
  mirror_state_.copied(to_device, whole, kRowsAll);
  mirror_state_.copied(to_device, local_only, kRowsLocal);
  // The copy carries the ghost rows too: they are as current as they were on the source.
  for (const int c : whole) note_ghost_rows(c, to_device, ghost_rows_current(c, !to_device));
}

void DistVector::require_idle(const char* what) const {
  require_no_flight(what);
  if (spawn_.open)
    fail(PVEC_ERROR_STATE, what,
         " changes the particles while a spawn is open: commit or cancel it first "
         "(pvec_vector_spawn_commit / _cancel)");
}

void DistVector::require_no_flight(const char* what) const {
  if (!flight_.active()) return;
  const bool get = flight_.kind == GhostFlight::Kind::get;
  fail(PVEC_ERROR_STATE, what, " while a ", get ? "pvec_ghost_get_begin" : "pvec_ghost_put_begin",
       " is in flight on this vector: its ", get ? "ghost rows" : "rows",
       ", work buffers and messages are the exchange's until ",
       get ? "pvec_ghost_get_end" : "pvec_ghost_put_end");
}

}  // namespace pvec::impl
