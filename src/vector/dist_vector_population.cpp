// DistVector's population changes on one mirror (docs/population.md): removal by mark (and its
// asynchronous form, whose size the host takes later), spawns, and particle ids.
#include "vector/dist_vector.hpp"

#include "backend/device.hpp"
#include "common/error.hpp"

#include <limits>

namespace pvec::impl {

std::vector<int> DistVector::all_columns() const {
  std::vector<int> all(static_cast<size_t>(ps_->column_count()));
  for (int c = 0; c < ps_->column_count(); ++c) all[static_cast<size_t>(c)] = c;
  return all;
}

namespace {
void check_marks(const ParticleSet& ps, const MarkSource& mark, bool device) {
  if (mark.column >= 0) {
    if (mark.flags != nullptr)
      fail(PVEC_ERROR_INVALID_ARGUMENT,
           "both a mark property and a marks array were given: pass PVEC_NO_PROPERTY as "
           "mark_prop to use the array, or marks = NULL to use the property");
    if (mark.column == 0)
      fail(PVEC_ERROR_INVALID_ARGUMENT, "the positions cannot be the mark (PVEC_POS given)");
    const PropertySpec& s = ps.column(mark.column).spec;
    if (s.ncomp != 1 || s.rank != 0)
      fail(PVEC_ERROR_INVALID_ARGUMENT, "the mark property '", s.name,
           "' has several components: it must be a scalar");
    return;
  }
  if (mark.flags == nullptr && ps.n_local() > 0)
    fail(PVEC_ERROR_INVALID_ARGUMENT, "no marks: mark_prop is PVEC_NO_PROPERTY and marks is NULL");
  if (mark.flags != nullptr && device && ps.cuda() && !device_readable(mark.flags))
    fail(PVEC_ERROR_INVALID_ARGUMENT,
         "marks is not memory the device can read (pass a device array with PVEC_ON_DEVICE)");
}
}  // namespace

int64_t DistVector::remove_marked(const MarkSource& mark, unsigned flags) {
  require_idle("pvec_vector_remove_marked");
  const bool device = (flags & PVEC_ON_DEVICE) != 0;
  check_marks(*ps_, mark, device);
  check_current(device, all_columns(), kRowsLocal, "pvec_vector_remove_marked");
  const int64_t removed =
      impl::remove_marked(*ps_, device, mark, (flags & PVEC_REMOVE_FILL_HOLES) == 0, removal_);
  forget_ghost_plan();
  mirror_state_.forget(kRowsGhost);
  if (removed > 0) mark_written(device, all_columns(), kRowsLocal, "pvec_vector_remove_marked");
  return removed;
}

void DistVector::remove_marked_async(const MarkSource& mark, unsigned flags,
                                     int64_t* n_removed_dev) {
  if ((flags & PVEC_ON_DEVICE) == 0)
    fail(PVEC_ERROR_INVALID_ARGUMENT,
         "the asynchronous removal runs on the device mirror: "
         "pass PVEC_ON_DEVICE");
  if (!ps_->cuda()) {  // the host backend: at once
    const int64_t removed = remove_marked(mark, flags);
    if (n_removed_dev != nullptr) *n_removed_dev = removed;
    return;
  }
  require_idle("pvec_vector_remove_marked_async");
  check_marks(*ps_, mark, true);
  if (n_removed_dev != nullptr && !device_readable(n_removed_dev))
    fail(PVEC_ERROR_INVALID_ARGUMENT, "n_removed_dev is not device memory");
  check_current(true, all_columns(), kRowsLocal, "pvec_vector_remove_marked_async");
  pending_.n_before = ps_->n_local();
  impl::remove_marked_async(*ps_, mark, (flags & PVEC_REMOVE_FILL_HOLES) == 0, removal_,
                            n_removed_dev);
  pending_.active = true;
  // The ghosts are gone now (their rows may be overwritten); the local count follows.
  ps_->set_sizes(ps_->n_local(), 0);
  forget_ghost_plan();
  mirror_state_.forget(kRowsGhost);
  mark_written(true, all_columns(), kRowsLocal, "pvec_vector_remove_marked_async");
}

void DistVector::settle() {
  if (!pending_.active) return;
  ps_->sync_stream();
  pending_.active = false;
  ps_->set_sizes(pending_.n_before - landed_count(removal_), 0);
}

pvec_spawner DistVector::spawn_begin(int64_t max_new, unsigned flags) {
  require_no_flight("pvec_vector_spawn_begin");
  if (spawn_.open) fail(PVEC_ERROR_STATE, "a spawn is already open: commit or cancel it first");
  const bool device = (flags & PVEC_ON_DEVICE) != 0;
  check_current(device, all_columns(), kRowsLocal, "pvec_vector_spawn_begin");
  int64_t id_first = -1, id_stride = 0;
  if (ids_.set) {
    id_first = ids_.id_at(0, comm_->rank(), comm_->size());
    if (max_new > 0) ids_.id_at(max_new - 1, comm_->rank(), comm_->size());  // fits
    id_stride = comm_->size();
  }
  const pvec_spawner sp = open_spawn(*ps_, device, max_new, spawn_, id_first, id_stride);
  forget_ghost_plan();
  mirror_state_.forget(kRowsGhost);
  return sp;
}

int64_t DistVector::spawn_commit(int64_t* n_added) {
  if (!spawn_.open) fail(PVEC_ERROR_STATE, "no spawn is open (pvec_vector_spawn_begin)");
  spawn_.open = false;
  const int64_t asked = claimed_slots(*ps_, spawn_);
  if (ids_.set) ids_.next += std::min(asked, spawn_.limit);  // handed out either way
  if (n_added != nullptr) *n_added = asked;
  if (asked > spawn_.limit)
    fail(PVEC_ERROR_OUT_OF_RANGE, "the kernels asked for ", asked, " slots but ", spawn_.limit,
         " were reserved: nothing was added (reserve ", asked,
         " with pvec_vector_spawn_begin and run them again)");
  ps_->set_sizes(spawn_.first + asked, 0);
  forget_ghost_plan();
  if (asked > 0) mark_written(spawn_.device, all_columns(), kRowsLocal, "pvec_vector_spawn_commit");
  return asked;
}

void DistVector::spawn_cancel() {
  if (!spawn_.open) fail(PVEC_ERROR_STATE, "no spawn is open (pvec_vector_spawn_begin)");
  spawn_.open = false;
}

void DistVector::ids_init(int prop, unsigned flags) {
  const bool device = (flags & PVEC_ON_DEVICE) != 0;
  const bool keep = (flags & PVEC_IDS_KEEP) != 0;
  int col = -1;
  comm_->agree("pvec_vector_ids_init", [&] {
    require_idle("pvec_vector_ids_init");
    col = column_of(prop);
    const PropertySpec& s = ps_->column(col).spec;
    if (col == 0 || (s.dtype != PVEC_INT64 && s.dtype != PVEC_UINT64) || s.ncomp != 1 ||
        s.rank != 0)
      fail(PVEC_ERROR_INVALID_ARGUMENT, "the id property must be a scalar int64 or uint64; '",
           col == 0 ? "pos" : s.name.c_str(), "' is not");
    if (keep) check_current(device, {col}, kRowsLocal, "pvec_vector_ids_init");
  });
  require_same_args({static_cast<double>(prop), static_cast<double>(flags)},
                    "id property and flags (pvec_vector_ids_init)");
  IdCounter next = ids_;
  next.set = true;
  next.column = col;
  next.next = 0;
  if (keep) {
    int64_t top = -1;
    if (ps_->column(col).spec.dtype == PVEC_INT64) {
      int64_t lo = 0;
      reduce(prop, AllreduceOp::min, device, &lo);
      if (lo < 0 && comm_->allreduce_max(ps_->n_local()) > 0)
        fail(PVEC_ERROR_INVALID_ARGUMENT, "PVEC_IDS_KEEP: an id is negative (", lo, ")");
      reduce(prop, AllreduceOp::max, device, &top);
    } else {
      uint64_t u = 0;
      reduce(prop, AllreduceOp::max, device, &u);
      if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max() - 1))
        fail(PVEC_ERROR_INVALID_ARGUMENT, "PVEC_IDS_KEEP: an id (", u, ") is beyond 2^63 - 2");
      top = static_cast<int64_t>(u);
    }
    // No particle anywhere: the max of nothing is the type's smallest value.
    next.base = comm_->allreduce_max(ps_->n_local()) > 0 ? top + 1 : 0;
  } else {
    const int64_t n = ps_->n_local();
    std::vector<int64_t> counts(static_cast<size_t>(comm_->size()));
    comm_->allgather_bytes(&n, sizeof n, counts.data());
    int64_t offset = 0, total = 0;
    for (int r = 0; r < comm_->size(); ++r) {
      if (r < comm_->rank()) offset += counts[static_cast<size_t>(r)];
      total += counts[static_cast<size_t>(r)];
    }
    number_ids(*ps_, device, col, offset);
    mark_written(device, {col}, kRowsLocal, "pvec_vector_ids_init");
    next.base = total;
  }
  ids_ = next;
}

void DistVector::ids_take(int64_t count, int64_t* first, int64_t* stride) {
  if (count < 0) fail(PVEC_ERROR_INVALID_ARGUMENT, "count ", count, " is negative");
  if (first == nullptr || stride == nullptr)
    fail(PVEC_ERROR_INVALID_ARGUMENT, first == nullptr ? "first" : "stride", " is NULL");
  const int64_t f = ids_.id_at(0, comm_->rank(), comm_->size());
  if (count > 0) ids_.id_at(count - 1, comm_->rank(), comm_->size());
  *first = f;
  *stride = comm_->size();
  ids_.next += count;
}

}  // namespace pvec::impl
