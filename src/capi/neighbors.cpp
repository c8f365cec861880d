// Section 10 of pvec.h: neighbour search.
#include "capi/guard.hpp"
#include "capi/versioned.hpp"
#include "common/dtype.hpp"

using namespace pvec::impl;
using namespace pvec::impl::capi;

namespace {

DistVector& vector_of(pvec_vector_t vec, const char* kind) {
  DistVector* v = nullptr;
  try {
    v = &vec_unsettled(vec);
  } catch (const Error& e) {
    fail(PVEC_ERROR_INVALID_HANDLE, "the vector of this ", kind, " was destroyed (", e.what(), ")");
  }
  v->settle();
  return *v;
}

void require_fresh(uint64_t built_epoch, bool built, const DistVector& v, const char* kind,
                   const char* rebuild) {
  if (!built)
    fail(PVEC_ERROR_STATE, "the ", kind, " is not built (its last build failed); call ", rebuild);
  if (built_epoch != v.rows_epoch())
    fail(PVEC_ERROR_STATE, "the ", kind,
         " is stale: the vector's rows changed since it was built (map, sort, ghost_get with a "
         "new plan, or a change of the particles); call ",
         rebuild);
}

// The column of an option's property (pvec_verlet_options: key_prop, skip_prop), -1 for
// PVEC_NO_PROPERTY: a scalar integer property.
int option_column(const DistVector& v, int prop, const char* what) {
  if (prop == PVEC_NO_PROPERTY) return -1;
  if (prop == PVEC_POS)
    fail(PVEC_ERROR_INVALID_ARGUMENT, what, " is PVEC_POS: it must be a scalar integer property");
  if (prop < 0 || prop >= v.schema().count())
    fail(PVEC_ERROR_OUT_OF_RANGE, what, " = ", prop, " is neither a property index (0..",
         v.schema().count() - 1, ") nor PVEC_NO_PROPERTY");
  const int col = v.column_of(prop);
  const PropertySpec& s = v.particles().column(col).spec;
  if (s.dtype != PVEC_INT32 && s.dtype != PVEC_UINT32 && s.dtype != PVEC_INT64 &&
      s.dtype != PVEC_UINT64)
    fail(PVEC_ERROR_DTYPE_MISMATCH, what, " '", s.name, "' is ", dtype_name(s.dtype),
         ": it must be an integer property (int32, uint32, int64 or uint64)");
  if (s.ncomp != 1 || s.rank != 0)
    fail(PVEC_ERROR_INVALID_ARGUMENT, what, " '", s.name,
         "' has several components: it must be a scalar (one value per particle)");
  return col;
}

// A list option reads its property on the ghost rows too: they must be current there.
void require_ghost_values(const DistVector& v, int col, bool device, const char* what) {
  if (col < 0 || v.particles().n_ghost() == 0 || v.ghost_rows_current(col, device)) return;
  fail(PVEC_ERROR_STATE, "the ", what, " property '", v.name_of(col), "' is not current on the ",
       device ? "device" : "host",
       " mirror's ghost rows: no ghost_get on that mirror brought it since the ghost rows were "
       "made (or a ghost_put changed it since); add it to the property list of pvec_ghost_get",
       device ? " (with PVEC_ON_DEVICE)" : "");
}

// What a list reads (the positions and its option properties, local and ghost rows) must be
// current on its mirror.
void require_current(DistVector& v, bool device, std::initializer_list<int> cols,
                     const char* what) {
  std::vector<int> read;
  for (const int c : cols)
    if (c >= 0) read.push_back(c);
  v.check_current(device, read, kRowsAll, what);
}

void build_list(VerletObject& o, DistVector& v) {
  require_current(v, o.params.device, {0, o.params.key_col, o.params.skip_col},
                  "the Verlet list build");
  if (o.source == nullptr) {
    require_ghost_values(v, o.params.key_col, o.params.device, "key");
    require_ghost_values(v, o.params.skip_col, o.params.device, "pair filter");
    o.list.build(v.neighbor_input(), o.params);
    return;
  }
  DistVector& s = vector_of(o.source, "Verlet list's source");
  if (!s.grid().same_boxes(v.grid()))
    fail(PVEC_ERROR_STATE,
         "the source vector's subdomains differ from the vector's (a rebalance of one of them, "
         "or two decompositions): a list of neighbours in another vector needs the same boxes; "
         "make one follow the other (pvec_vector_follow)");
  require_ghost_values(s, o.params.key_col, o.params.device, "key");
  require_current(s, o.params.device, {0, o.params.key_col}, "the Verlet list build (source)");
  o.list.build_cross(v.neighbor_input(), s.neighbor_input(), o.params);
}

// A list is stale when the rows of its vector, or of its source, changed since its build.
bool list_stale(const VerletObject& o, const DistVector& v) {
  if (!o.list.built() || o.list.epoch() != v.rows_epoch()) return true;
  if (o.source == nullptr) return false;
  return o.list.source_epoch() != vector_of(o.source, "Verlet list's source").rows_epoch();
}

}  // namespace

/* ---- 10. Cell lists -------------------------------------------------------------------- */

extern "C" pvec_status pvec_cell_list_create(pvec_vector_t vec, double cutoff, int cells_per_cutoff,
                                             unsigned flags, pvec_cell_list_t* out) {
  return op_guard("pvec_cell_list_create", [&] {
    DistVector& v = vec_of(vec);
    out_arg(out, "out");
    check_flags(flags, PVEC_ON_DEVICE | PVEC_CELLS_GHOSTS);
    auto obj = std::make_unique<CellListObject>();
    obj->vec = vec;
    obj->params.cutoff = cutoff;
    obj->params.span = cells_per_cutoff;
    obj->params.ghosts = (flags & PVEC_CELLS_GHOSTS) != 0;
    obj->params.device = (flags & PVEC_ON_DEVICE) != 0;
    require_current(v, obj->params.device, {0}, "pvec_cell_list_create");
    obj->list.build(v.neighbor_input(), obj->params);
    *out = to_handle<pvec_cell_list_t>(cell_lists().insert(std::move(obj)));
  });
}

extern "C" pvec_status pvec_cell_list_build(pvec_cell_list_t list) {
  return op_guard("pvec_cell_list_build", [&] {
    CellListObject& o = cell_lists().get(list);
    DistVector& v = vector_of(o.vec, "cell list");
    require_current(v, o.params.device, {0}, "pvec_cell_list_build");
    o.list.build(v.neighbor_input(), o.params);
  });
}

extern "C" pvec_status pvec_cell_list_get_info(pvec_cell_list_t list, pvec_cell_list_info* out) {
  return guard("pvec_cell_list_get_info", [&] {
    CellListObject& o = cell_lists().get(list);
    const DistVector& v = vector_of(o.vec, "cell list");
    versioned_size(out, PVEC_CELL_LIST_INFO_SIZE_V1, "out", "pvec_cell_list_info");
    require_fresh(o.list.epoch(), o.list.built(), v, "cell list", "pvec_cell_list_build");
    const pvec::cell_list_view& g = o.list.view();
    pvec_cell_list_info info{};
    info.dim = g.dim;
    info.span = g.span;
    info.on_device = o.list.on_device_memory() ? 1 : 0;
    info.sorted = g.sorted;
    info.cutoff = o.params.cutoff;
    for (int d = 0; d < 3; ++d) {
      info.origin[d] = g.origin[d];
      info.width[d] = g.width[d];
      info.inv_width[d] = g.inv_width[d];
      info.dims[d] = g.dims[d];
    }
    info.ncells = g.ncells;
    info.n_local = g.n_local;
    info.n_entries = g.n_entries;
    info.cell_offsets = g.cell_offsets;
    info.cell_particles = g.cell_particles;
    info.local_offsets = g.local_offsets;
    write_versioned(out, info, PVEC_CELL_LIST_INFO_SIZE_V1, "out", "pvec_cell_list_info");
  });
}

extern "C" pvec_status pvec_cell_list_destroy(pvec_cell_list_t list) {
  return guard("pvec_cell_list_destroy", [&] { cell_lists().take(list); });
}

/* ---- 10. Locality sort ----------------------------------------------------------------- */

extern "C" pvec_status pvec_vector_sort(pvec_vector_t vec, double cell_width, unsigned flags,
                                        int* moved) {
  return op_guard("pvec_vector_sort", [&] {
    DistVector& v = vec_of(vec);
    check_flags(flags,
                PVEC_ON_DEVICE | PVEC_SORT_MORTON | PVEC_SORT_BOTH_MIRRORS | PVEC_SORT_HALO_FIRST);
    SortParams p;
    p.cell_width = cell_width;
    p.morton = (flags & PVEC_SORT_MORTON) != 0;
    p.halo_first = (flags & PVEC_SORT_HALO_FIRST) != 0;
    p.device = (flags & PVEC_ON_DEVICE) != 0;
    p.both_mirrors = (flags & PVEC_SORT_BOTH_MIRRORS) != 0;
    const bool m = v.sort(p);
    if (moved != nullptr) *moved = m ? 1 : 0;
  });
}

/* ---- 10. Verlet lists ------------------------------------------------------------------ */

extern "C" pvec_status pvec_verlet_create(pvec_vector_t vec, double cutoff, double skin,
                                          int cells_per_cutoff, unsigned flags,
                                          pvec_verlet_t* out) {
  return op_guard("pvec_verlet_create", [&] {
    DistVector& v = vec_of(vec);
    out_arg(out, "out");
    check_flags(flags, PVEC_ON_DEVICE | PVEC_VERLET_HALF);
    auto obj = std::make_unique<VerletObject>();
    obj->vec = vec;
    obj->params.cutoff = cutoff;
    obj->params.skin = skin;
    obj->params.span = cells_per_cutoff;
    obj->params.half = (flags & PVEC_VERLET_HALF) != 0;
    obj->params.device = (flags & PVEC_ON_DEVICE) != 0;
    build_list(*obj, v);
    *out = to_handle<pvec_verlet_t>(verlet_lists().insert(std::move(obj)));
  });
}

extern "C" pvec_status pvec_verlet_options_init(pvec_verlet_options* opts) {
  return guard("pvec_verlet_options_init", [&] {
    if (opts == nullptr) fail(PVEC_ERROR_INVALID_ARGUMENT, "opts is NULL");
    *opts = pvec_verlet_options PVEC_VERLET_OPTIONS_INIT;
  });
}

extern "C" pvec_status pvec_verlet_create_with(pvec_vector_t vec, const pvec_verlet_options* opts,
                                               pvec_verlet_t* out) {
  return op_guard("pvec_verlet_create_with", [&] {
    DistVector& v = vec_of(vec);
    const pvec_verlet_options o =
        read_versioned(opts, pvec_verlet_options PVEC_VERLET_OPTIONS_INIT,
                       PVEC_VERLET_OPTIONS_SIZE_V1, "opts", "pvec_verlet_options");
    out_arg(out, "out");
    check_flags(o.flags, PVEC_ON_DEVICE | PVEC_VERLET_HALF);
    auto obj = std::make_unique<VerletObject>();
    obj->vec = vec;
    obj->params.cutoff = o.cutoff;
    obj->params.skin = o.skin;
    obj->params.span = o.cells_per_cutoff;
    obj->params.half = (o.flags & PVEC_VERLET_HALF) != 0;
    obj->params.device = (o.flags & PVEC_ON_DEVICE) != 0;
    if (o.source != nullptr && o.source != vec) {
      const DistVector& s = vec_of(o.source);
      if (o.skip_prop != PVEC_NO_PROPERTY)
        fail(PVEC_ERROR_INVALID_ARGUMENT,
             "skip_prop filters pairs of one vector: not with a source vector");
      if ((o.flags & PVEC_VERLET_HALF) != 0)
        fail(PVEC_ERROR_INVALID_ARGUMENT,
             "a list of neighbours in another vector is a full list (no PVEC_VERLET_HALF)");
      if (s.pos_dtype() != v.pos_dtype())
        fail(PVEC_ERROR_INVALID_ARGUMENT, "the source's positions are ", dtype_name(s.pos_dtype()),
             ", the vector's ", dtype_name(v.pos_dtype()), ": they must be of one type");
      if (s.particles().cuda() != v.particles().cuda())
        fail(PVEC_ERROR_INVALID_ARGUMENT,
             "the source and the vector have different backends (host and CUDA)");
      obj->source = o.source;
      obj->params.key_col = option_column(s, o.key_prop, "key_prop");
    } else {
      obj->params.key_col = option_column(v, o.key_prop, "key_prop");
      obj->params.skip_col = option_column(v, o.skip_prop, "skip_prop");
    }
    build_list(*obj, v);
    *out = to_handle<pvec_verlet_t>(verlet_lists().insert(std::move(obj)));
  });
}

extern "C" pvec_status pvec_verlet_build(pvec_verlet_t list) {
  return op_guard("pvec_verlet_build", [&] {
    VerletObject& o = verlet_lists().get(list);
    DistVector& v = vector_of(o.vec, "Verlet list");
    build_list(o, v);
  });
}

extern "C" pvec_status pvec_verlet_get_info(pvec_verlet_t list, pvec_verlet_info* out) {
  return guard("pvec_verlet_get_info", [&] {
    VerletObject& o = verlet_lists().get(list);
    const DistVector& v = vector_of(o.vec, "Verlet list");
    versioned_size(out, PVEC_VERLET_INFO_SIZE_V1, "out", "pvec_verlet_info");
    require_fresh(o.list.epoch(), o.list.built(), v, "Verlet list", "pvec_verlet_build");
    if (list_stale(o, v))
      fail(PVEC_ERROR_STATE,
           "the Verlet list is stale: the rows of its source vector changed since it was built "
           "(map, sort, ghost_get with a new plan, or a change of the particles); call "
           "pvec_verlet_build");
    const pvec::verlet_view w = o.list.view();
    pvec_verlet_info info{};
    info.half = w.half;
    info.on_device = o.list.on_device_memory() ? 1 : 0;
    info.cutoff = o.params.cutoff;
    info.skin = o.params.skin;
    info.n = w.n;
    info.n_pairs = o.list.n_pairs();
    info.offsets = w.offsets;
    info.neighbors = w.neighbors;
    write_versioned(out, info, PVEC_VERLET_INFO_SIZE_V1, "out", "pvec_verlet_info");
  });
}

extern "C" pvec_status pvec_verlet_check(pvec_verlet_t list, int* rebuild) {
  return op_guard("pvec_verlet_check", [&] {
    VerletObject& o = verlet_lists().get(list);
    DistVector& v = vector_of(o.vec, "Verlet list");
    out_arg(rebuild, "rebuild");
    bool moved = true;
    // A rank that fails makes every rank fail (no rank is left waiting in the reduction).
    v.comm().agree("pvec_verlet_check", [&] {
      if (list_stale(o, v)) return;
      if (o.source == nullptr) {
        moved = o.list.moved_too_far(v.neighbor_input());
      } else {
        DistVector& s = vector_of(o.source, "Verlet list's source");
        const NeighborInput src = s.neighbor_input();
        moved = o.list.moved_too_far(v.neighbor_input(), &src);
      }
    });
    *rebuild = v.comm().any(moved) ? 1 : 0;
  });
}

extern "C" pvec_status pvec_verlet_destroy(pvec_verlet_t list) {
  return guard("pvec_verlet_destroy", [&] { verlet_lists().take(list); });
}
