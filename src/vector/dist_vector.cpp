#include "vector/dist_vector.hpp"

#include "backend/device.hpp"
#include "common/dtype.hpp"
#include "common/error.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

namespace pvec::impl {

namespace {

void validate(const pvec_vector_desc& d) {
  if (d.dim < 1 || d.dim > PVEC_MAX_DIM)
    fail(PVEC_ERROR_INVALID_ARGUMENT, "dim ", d.dim, " outside 1..", PVEC_MAX_DIM);
  int pos_dtype;  // read as int: a C caller may have stored any value in the enum field
  std::memcpy(&pos_dtype, &d.pos_dtype, sizeof pos_dtype);
  if (pos_dtype != PVEC_FLOAT32 && pos_dtype != PVEC_FLOAT64)
    fail(PVEC_ERROR_INVALID_ARGUMENT, "position dtype must be float32 or float64, not ",
         dtype_name(pos_dtype), " (", pos_dtype, ")");
  for (int k = 0; k < d.dim; ++k) {
    if (!std::isfinite(d.domain_lo[k]) || !std::isfinite(d.domain_hi[k]) ||
        !(d.domain_lo[k] < d.domain_hi[k]))
      fail(PVEC_ERROR_INVALID_ARGUMENT, "domain along dimension ", k, " is [", d.domain_lo[k], ", ",
           d.domain_hi[k], "]: need finite lo < hi");
    if (d.boundary[k] != PVEC_PERIODIC && d.boundary[k] != PVEC_NON_PERIODIC)
      fail(PVEC_ERROR_INVALID_ARGUMENT, "boundary ", d.boundary[k], " of dimension ", k,
           " is neither PVEC_PERIODIC nor PVEC_NON_PERIODIC");
  }
  if (!std::isfinite(d.ghost_width) || d.ghost_width < 0)
    fail(PVEC_ERROR_INVALID_ARGUMENT, "ghost width ", d.ghost_width, " must be finite and >= 0");
  if (d.n_particles < 0)
    fail(PVEC_ERROR_INVALID_ARGUMENT, "negative particle count ", d.n_particles);
  if (d.placement != PVEC_PLACE_EVEN && d.placement != PVEC_PLACE_LOCAL)
    fail(PVEC_ERROR_INVALID_ARGUMENT, "unknown placement ", d.placement);
  if (d.backend != PVEC_BACKEND_AUTO && d.backend != PVEC_BACKEND_HOST &&
      d.backend != PVEC_BACKEND_CUDA)
    fail(PVEC_ERROR_INVALID_ARGUMENT, "unknown backend ", d.backend);
  if (d.host_memory != PVEC_HOST_PINNED && d.host_memory != PVEC_HOST_PAGEABLE)
    fail(PVEC_ERROR_INVALID_ARGUMENT, "unknown host memory kind ", d.host_memory);
  if (d.has_comm != 0 && d.has_comm != 1)
    fail(PVEC_ERROR_INVALID_ARGUMENT, "has_comm must be 0 or 1, not ", d.has_comm);
}

}  // namespace

DistVector::DistVector(const pvec_vector_desc& d, const Schema& schema) : schema_(schema) {
  validate(d);
  bool cuda = false;
  if (d.backend == PVEC_BACKEND_CUDA) {
    if (device_count() == 0)
      fail(PVEC_ERROR_NO_DEVICE,
           "backend CUDA requested but no CUDA device is usable (or pvec was built without "
           "CUDA)");
    cuda = true;
  } else if (d.backend == PVEC_BACKEND_AUTO) {
    cuda = device_count() > 0;
  }
  pos_dtype_ = d.pos_dtype;
  ghost_width_ = d.ghost_width;
  grid_.dim = d.dim;
  double lengths[PVEC_MAX_DIM];
  for (int k = 0; k < d.dim; ++k) {
    grid_.lo[k] = d.domain_lo[k];
    grid_.hi[k] = d.domain_hi[k];
    grid_.periodic[k] = d.boundary[k] == PVEC_PERIODIC;
    lengths[k] = d.domain_hi[k] - d.domain_lo[k];
  }
  comm_ = std::make_unique<Communicator>(d.has_comm != 0, d.comm_f);
  choose_grid_dims(comm_->size(), d.dim, lengths, grid_.dims);
  grid_.set_cells();

  int64_t n_local = d.n_particles;
  if (d.placement == PVEC_PLACE_EVEN) {
    int64_t p = comm_->size(), r = comm_->rank();
    n_local = d.n_particles / p + (r < d.n_particles % p ? 1 : 0);
  }
  std::vector<PropertySpec> cols;
  cols.push_back(position_spec(d.dim, d.pos_dtype));
  for (const auto& p : schema_.props()) cols.push_back(p);
  // Creation is collective: if one rank fails (say, out of memory), all report it.
  std::string local_error;
  pvec_status local_status = PVEC_SUCCESS;
  try {
    ps_ = std::make_unique<ParticleSet>(
        std::move(cols), cuda,
        d.host_memory == PVEC_HOST_PINNED && cuda ? MemKind::pinned : MemKind::host, n_local);
  } catch (const Error& e) {
    local_status = e.status();
    local_error = e.what();
  }
  if (ps_) ws_.set_kinds(ps_->device_kind(), cuda ? ps_->host_kind() : MemKind::host);
  if (comm_->any(local_status != PVEC_SUCCESS)) {
    if (local_status != PVEC_SUCCESS) throw Error(local_status, local_error);
    fail(PVEC_ERROR_MPI, "vector creation failed on another rank");
  }
  mirror_state_.resize(ps_->column_count());
  // Device messages through CUDA IPC where every rank can take part (decided together).
  transport_ = std::make_unique<Transport>(*comm_, cuda);
}

DistVector::~DistVector() {
  // An asynchronous removal may still run on the stream: its work buffers are freed below.
  try {
    if (pending_.active) ps_->sync_stream();
  } catch (...) {  // a sticky CUDA error: nothing more can be done while destroying
  }
  // A split-phase exchange in flight: its messages land in buffers freed below. Every rank
  // began it (a collective), so completing it waits only for messages already posted.
  try {
    if (flight_.kind == GhostFlight::Kind::get) finish_ghost_get("pvec_vector_destroy");
    if (flight_.kind == GhostFlight::Kind::put) finish_ghost_put("pvec_vector_destroy");
  } catch (...) {  // an MPI failure: the vector goes anyway
  }
  // A leader's followers keep the boxes they have, on their own; a follower leaves its leader.
  for (DistVector* f : followers_) f->leader_ = nullptr;
  if (leader_ != nullptr) {
    auto& fs = leader_->followers_;
    fs.erase(std::remove(fs.begin(), fs.end(), this), fs.end());
  }
  if (transport_) transport_->release();  // collective, like the destruction itself
}

std::vector<DistVector*> DistVector::followers_with_this() {
  std::vector<DistVector*> all{this};
  all.insert(all.end(), followers_.begin(), followers_.end());
  for (DistVector* v : all) v->settle();
  return all;
}

void DistVector::follow(DistVector* leader, bool device) {
  if (leader == leader_) return;  // already following it (or following nothing)
  if (leader == nullptr) {        // stop following; the boxes stay
    auto& fs = leader_->followers_;
    fs.erase(std::remove(fs.begin(), fs.end(), this), fs.end());
    leader_ = nullptr;
    return;
  }
  const CartGrid& g = leader->grid_;
  // A rank that refuses makes every rank refuse, before the collective map.
  comm_->agree("pvec_vector_follow", [&] {
    if (leader == this) fail(PVEC_ERROR_INVALID_ARGUMENT, "a vector cannot follow itself");
    if (!followers_.empty())
      fail(PVEC_ERROR_STATE, "this vector is followed by ", followers_.size(),
           " other vector(s): it cannot follow another (make them follow the new leader)");
    if (leader->leader_ != nullptr)
      fail(PVEC_ERROR_STATE,
           "the leader follows another vector itself: follow that one (its decomposition is "
           "the same)");
    if (g.dim != grid_.dim)
      fail(PVEC_ERROR_INVALID_ARGUMENT, "the leader is ", g.dim, "-dimensional, this vector ",
           grid_.dim, "-dimensional");
    for (int d = 0; d < g.dim; ++d)
      if (g.lo[d] != grid_.lo[d] || g.hi[d] != grid_.hi[d] || g.periodic[d] != grid_.periodic[d])
        fail(PVEC_ERROR_INVALID_ARGUMENT, "the leader's domain or boundary along dimension ", d,
             " ([", g.lo[d], ", ", g.hi[d], "], ", g.periodic[d] ? "periodic" : "open",
             ") differs from this vector's ([", grid_.lo[d], ", ", grid_.hi[d], "], ",
             grid_.periodic[d] ? "periodic" : "open", ")");
    if (!comm_->same_ranks(*leader->comm_))
      fail(PVEC_ERROR_INVALID_ARGUMENT,
           "the leader's communicator holds other ranks (or the same in another order)");
  });
  const CartGrid old = grid_;
  const bool moved = !g.same_boxes(grid_);
  if (moved) {
    set_grid(g);
    try {
      map(device ? static_cast<unsigned>(PVEC_ON_DEVICE) : 0u);
    } catch (...) {
      set_grid(old);
      throw;
    }
  }
  if (leader_ != nullptr) follow(nullptr, device);
  leader_ = leader;
  leader->followers_.push_back(this);
}

int DistVector::column_of(int prop) const {
  if (prop == PVEC_POS) return 0;
  if (prop < 0 || prop >= schema_.count())
    fail(PVEC_ERROR_OUT_OF_RANGE, "property ", prop, " out of range: vector has ", schema_.count(),
         " properties (and PVEC_POS = -1 for positions)");
  return prop + 1;
}

namespace {
bool no_props(const int* props, int nprops) {
  if (props != PVEC_NO_PROPS) return false;
  if (nprops != 0)
    fail(PVEC_ERROR_INVALID_ARGUMENT, "PVEC_NO_PROPS goes with nprops = 0, not ", nprops);
  return true;
}
}  // namespace

std::vector<int> DistVector::prop_list(const int* props, int nprops) const {
  std::vector<int> out;
  for (int c : columns_of(props, nprops, true)) out.push_back(c == 0 ? PVEC_POS : c - 1);
  return out;
}

pvec_layout DistVector::layout(int prop) {
  const int col = column_of(prop);
  ps_->flush_device();
  const PropertyBuffer& b = ps_->column(col);
  pvec_layout l = PVEC_LAYOUT_INIT;
  l.prop = prop;
  l.name = b.spec.name.c_str();
  l.dtype = b.spec.dtype;
  l.elem_size = b.spec.elem_size;
  l.rank = b.spec.rank;
  for (int k = 0; k < PVEC_MAX_RANK; ++k) l.extents[k] = b.spec.extents[k];
  l.ncomp = b.spec.ncomp;
  l.capacity = ps_->capacity();
  l.stride_elems = ps_->capacity();
  l.stride_bytes = ps_->capacity() * static_cast<int64_t>(b.spec.elem_size);
  l.n_local = ps_->n_local();
  l.n_ghost = ps_->n_ghost();
  l.generation = ps_->generation();
  l.host_ptr = b.host;
  l.device_ptr = b.dev;
  return l;
}

std::vector<int> DistVector::columns_of(const int* props, int nprops, bool positions_if_all) const {
  std::vector<int> cols;
  if (no_props(props, nprops)) return cols;
  if (props == nullptr) {
    for (int k = positions_if_all ? 0 : 1; k < ps_->column_count(); ++k) cols.push_back(k);
    return cols;
  }
  if (nprops < 0) fail(PVEC_ERROR_INVALID_ARGUMENT, "nprops is negative (", nprops, ")");
  std::set<int> seen;
  for (int k = 0; k < nprops; ++k) {
    int c = column_of(props[k]);
    if (!seen.insert(c).second)
      fail(PVEC_ERROR_INVALID_ARGUMENT, "property ", props[k], " listed twice");
    cols.push_back(c);
  }
  return cols;
}

void DistVector::subdomain(int rank, double* lo, double* hi) const {
  grid_.subdomain(rank, lo, hi);
}

int DistVector::owner_rank(const double* x) const {
  for (int d = 0; d < grid_.dim; ++d)
    if (!grid_.inside(d, x[d]))
      fail(PVEC_ERROR_INVALID_ARGUMENT, "coordinate ", d, " = ", x[d],
           std::isfinite(x[d]) ? " is outside the non-periodic domain" : " is not finite");
  return grid_.owner(x);
}

void DistVector::dropped_ghosts() {
  forget_ghost_plan();
  mirror_state_.forget(kRowsGhost);
}

void DistVector::forget_ghost_plan() {
  halo_.forget();
  ++rows_epoch_;
}

NeighborInput DistVector::neighbor_input() {
  require_no_flight("a neighbour search or sort");
  return NeighborInput{*ps_,       grid_, pos_dtype_, ghost_width_, *comm_, halo_.plan.get(),
                       rows_epoch_};
}

bool DistVector::sort(const SortParams& p) {
  require_idle("pvec_vector_sort");
  check_current(p.device, all_columns(), kRowsLocal, "pvec_vector_sort");
  // With both mirrors, the other one takes the same permutation: the columns it held as new
  // as this one stay equal; older ones stay older.
  std::vector<int> equal;
  if (p.both_mirrors)
    for (const int c : all_columns())
      if (mirror_state_.current(c, !p.device, kRowsLocal)) equal.push_back(c);
  const bool moved = locality_sort(neighbor_input(), p, sort_);
  if (moved) {
    forget_ghost_plan();
    mark_written(p.device, all_columns(), kRowsLocal, "pvec_vector_sort");
    mirror_state_.copied(!p.device, equal, kRowsLocal);
  }
  return moved;
}

void DistVector::reduce(int prop, AllreduceOp op, bool device, void* result) {
  const int col = column_of(prop);
  check_current_together(device, {col}, kRowsLocal, "pvec_vector_reduce");
  reduce_column(*ps_, col, device, op, *comm_, reduce_scratch(), result);
}

ReduceScratch& DistVector::reduce_scratch() {
  if (!reduce_kind_set_) {
    for (ScratchBuffer* b : {&reduce_.tmp, &reduce_.out}) b->set_kind(ps_->device_kind());
    reduce_kind_set_ = true;
  }
  return reduce_;
}

void DistVector::require_same_args(const std::vector<double>& args, const char* what) const {
  std::vector<double> both;
  for (double a : args) both.push_back(a == a ? a : -1e300);  // NaN compares as one value
  const size_t n = both.size();
  for (size_t k = 0; k < n; ++k) both.push_back(-both[k]);
  comm_->allreduce(both.data(), static_cast<int64_t>(both.size()), PVEC_FLOAT64, AllreduceOp::max);
  for (size_t k = 0; k < n; ++k)
    if (both[k] != -both[n + k])
      fail(PVEC_ERROR_INVALID_ARGUMENT, "the ranks did not all pass the same ", what,
           " (the call is collective: every rank makes the same call); nothing was done");
}

Imbalance DistVector::imbalance(int weight_prop, bool device) {
  const int col = weight_prop == PVEC_NO_WEIGHT ? -1 : column_of(weight_prop);
  if (col == 0)
    fail(PVEC_ERROR_INVALID_ARGUMENT, "the positions cannot be a weight (PVEC_POS given)");
  if (col > 0) check_current_together(device, {col}, kRowsLocal, "pvec_vector_get_imbalance");
  return measure_imbalance(*ps_, *comm_, col, device, reduce_scratch());
}

bool DistVector::rebalance(int weight_prop, double threshold, bool device, double* before,
                           double* after) {
  if (!(threshold >= 1.0) || !std::isfinite(threshold))
    fail(PVEC_ERROR_INVALID_ARGUMENT, "threshold ", threshold,
         " is not a finite imbalance >= 1 (1 rebalances whenever anything is uneven)");
  if (leader_ != nullptr)
    fail(PVEC_ERROR_STATE,
         "this vector follows another's decomposition (pvec_vector_follow): rebalance the "
         "leader, which maps its followers too");
  require_idle("pvec_vector_rebalance");
  for (const DistVector* f : followers_) f->require_idle("pvec_vector_rebalance (of its leader)");
  check_current_together(device, {0}, kRowsLocal, "pvec_vector_rebalance");
  const bool weighted = weight_prop != PVEC_NO_WEIGHT;
  const Imbalance now = imbalance(weight_prop, device);  // checks the weights
  const double measure = weighted ? now.weight : now.count;
  if (before) *before = measure;
  if (after) *after = measure;
  if (!(measure > threshold) || comm_->size() == 1) return false;
  const int col = weighted ? column_of(weight_prop) : -1;
  double wmax = 0;  // imbalance() checked the weights: a float scalar, finite, >= 0
  if (weighted) reduce_column(*ps_, col, device, AllreduceOp::max, *comm_, reduce_scratch(), &wmax);
  if (!balance_kind_set_) {
    for (ScratchBuffer* b : {&balance_.hist, &balance_.refine, &balance_.boxes, &balance_.request})
      b->set_kind(ps_->device_kind());
    balance_kind_set_ = true;
  }
  CartGrid next;
  comm_->agree("pvec_vector_rebalance: computing the decomposition",
               [&] { next = balanced_grid(*ps_, *comm_, grid_, col, wmax, device, balance_); });
  const CartGrid old = grid_;
  const unsigned on = device ? static_cast<unsigned>(PVEC_ON_DEVICE) : 0u;
  // The leader first, then its followers. A map that fails leaves its vector as it was; the
  // vectors already mapped go back to the old boxes, so that all still share one.
  std::vector<DistVector*> moved, mapped;  // given the new boxes; mapped to them
  try {
    for (DistVector* v : followers_with_this()) {
      moved.push_back(v);
      v->set_grid(next);
      v->map(on);
      mapped.push_back(v);
    }
  } catch (...) {
    for (DistVector* v : moved) v->set_grid(old);
    for (DistVector* v : mapped) v->map(on);
    throw;
  }
  // Measured on the particles where they are now, as pvec_vector_get_imbalance measures.
  const Imbalance done = imbalance(weight_prop, device);
  if (after) *after = weighted ? done.weight : done.count;
  return true;
}

bool DistVector::ghost_rows_current(int column, bool device) const {
  const std::vector<char>& v = ghost_current_[device ? 1 : 0];
  return column >= 0 && static_cast<size_t>(column) < v.size() && v[column] != 0;
}

void DistVector::note_ghost_rows(int column, bool device, bool current) {
  std::vector<char>& v = ghost_current_[device ? 1 : 0];
  if (v.size() <= static_cast<size_t>(column)) v.resize(static_cast<size_t>(column) + 1, 0);
  v[column] = current ? 1 : 0;
}

void DistVector::reserve(int64_t n) {
  require_idle("pvec_vector_reserve");
  ps_->reserve(n);
  dropped_ghosts();
}

void DistVector::resize(int64_t n) {
  require_idle("pvec_vector_resize");
  ps_->resize(n);
  dropped_ghosts();
}

int64_t DistVector::append(int64_t k) {
  require_idle("pvec_vector_append");
  const int64_t first = ps_->append(k);
  dropped_ghosts();
  return first;
}

void DistVector::remove(const int64_t* indices, int64_t count) {
  require_idle("pvec_vector_remove");
  ps_->remove(indices, count);
  dropped_ghosts();
}

void DistVector::shrink_to_fit() {
  require_idle("pvec_vector_shrink_to_fit");
  ps_->shrink_to_fit();
  dropped_ghosts();
}

}  // namespace pvec::impl
