// Section 10 of pvec.h: neighbour search.
#include "capi/guard.hpp"
#include "capi/versioned.hpp"

using namespace pvec::impl;
using namespace pvec::impl::capi;

namespace {

DistVector& vector_of(pvec_vector_t vec, const char* kind) {
  try {
    return vec_of(vec);
  } catch (const Error& e) {
    fail(PVEC_ERROR_INVALID_HANDLE, "the vector of this ", kind, " was destroyed (", e.what(), ")");
  }
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

}  // namespace

/* ---- 10. Cell lists -------------------------------------------------------------------- */

extern "C" pvec_status pvec_cell_list_create(pvec_vector_t vec, double cutoff, int cells_per_cutoff,
                                             unsigned flags, pvec_cell_list_t* out) {
  return guard("pvec_cell_list_create", [&] {
    DistVector& v = vec_of(vec);
    out_arg(out, "out");
    check_flags(flags, PVEC_ON_DEVICE | PVEC_CELLS_GHOSTS);
    auto obj = std::make_unique<CellListObject>();
    obj->vec = vec;
    obj->params.cutoff = cutoff;
    obj->params.span = cells_per_cutoff;
    obj->params.ghosts = (flags & PVEC_CELLS_GHOSTS) != 0;
    obj->params.device = (flags & PVEC_ON_DEVICE) != 0;
    obj->list.build(v.neighbor_input(), obj->params);
    *out = to_handle<pvec_cell_list_t>(cell_lists().insert(std::move(obj)));
  });
}

extern "C" pvec_status pvec_cell_list_build(pvec_cell_list_t list) {
  return guard("pvec_cell_list_build", [&] {
    CellListObject& o = cell_lists().get(list);
    DistVector& v = vector_of(o.vec, "cell list");
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
  return guard("pvec_vector_sort", [&] {
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
  return guard("pvec_verlet_create", [&] {
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
    obj->list.build(v.neighbor_input(), obj->params);
    *out = to_handle<pvec_verlet_t>(verlet_lists().insert(std::move(obj)));
  });
}

extern "C" pvec_status pvec_verlet_build(pvec_verlet_t list) {
  return guard("pvec_verlet_build", [&] {
    VerletObject& o = verlet_lists().get(list);
    DistVector& v = vector_of(o.vec, "Verlet list");
    o.list.build(v.neighbor_input(), o.params);
  });
}

extern "C" pvec_status pvec_verlet_get_info(pvec_verlet_t list, pvec_verlet_info* out) {
  return guard("pvec_verlet_get_info", [&] {
    VerletObject& o = verlet_lists().get(list);
    const DistVector& v = vector_of(o.vec, "Verlet list");
    versioned_size(out, PVEC_VERLET_INFO_SIZE_V1, "out", "pvec_verlet_info");
    require_fresh(o.list.epoch(), o.list.built(), v, "Verlet list", "pvec_verlet_build");
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
  return guard("pvec_verlet_check", [&] {
    VerletObject& o = verlet_lists().get(list);
    DistVector& v = vector_of(o.vec, "Verlet list");
    out_arg(rebuild, "rebuild");
    bool moved = true;
    // A rank that fails makes every rank fail (no rank is left waiting in the reduction).
    v.comm().agree("pvec_verlet_check", [&] {
      const bool stale = !o.list.built() || o.list.epoch() != v.rows_epoch();
      moved = stale || o.list.moved_too_far(v.neighbor_input());
    });
    *rebuild = v.comm().any(moved) ? 1 : 0;
  });
}

extern "C" pvec_status pvec_verlet_destroy(pvec_verlet_t list) {
  return guard("pvec_verlet_destroy", [&] { verlet_lists().take(list); });
}
