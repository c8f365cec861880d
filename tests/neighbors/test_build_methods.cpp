// Every device build method of the neighbour lists (sort, pass) gives the host's arrays, at
// 1-4 ranks: at the first build and at rebuilds, in random and sorted row order, at and near
// the cutoff, and when a rebuild's lists outgrow the last build's room.
#include "neighbors_util.hpp"

#include <cstdlib>
#include <vector>

using namespace nbr_test;

namespace {

// The arrays of a cell list (locals, and locals + ghosts) and of full and half Verlet lists
// of v on path p.
struct Arrays {
  std::vector<int32_t> off[2], parts[2], loc[2];
  int sorted[2] = {0, 0};
  bool on_device = false;  // the cell lists were built on a device mirror
  HostList full, half;
  HostList full_again, half_again;  // after a second build of the same lists
};

Arrays build_all(pvec_vector_t v, Path p, int span, double cutoff, double skin) {
  Arrays a;
  const unsigned on = flag_of(p);
  for (int gh = 0; gh < 2; ++gh) {
    pvec_cell_list_t cl = nullptr;
    DIST_OK(pvec_cell_list_create(v, cutoff + skin, span, on | (gh ? PVEC_CELLS_GHOSTS : 0u), &cl));
    pvec_cell_list_info info = PVEC_CELL_LIST_INFO_INIT;
    DIST_OK(pvec_cell_list_get_info(cl, &info));
    const bool dev = info.on_device != 0;
    a.on_device = dev;
    a.off[gh] = fetch(info.cell_offsets, info.ncells + 1, dev);
    a.parts[gh] = fetch(info.cell_particles, info.n_entries, dev);
    a.loc[gh] = fetch(info.local_offsets, info.ncells + 1, dev);
    a.sorted[gh] = info.sorted;
    DIST_OK(pvec_cell_list_destroy(cl));
  }
  pvec_verlet_t full = nullptr, half = nullptr;
  DIST_OK(pvec_verlet_create(v, cutoff, skin, span, on, &full));
  DIST_OK(pvec_verlet_create(v, cutoff, skin, span, on | PVEC_VERLET_HALF, &half));
  a.full = fetch_list(full);
  a.half = fetch_list(half);
  // Rebuilt with the room of the first build (what steady state does; on the device a
  // one-pass build fills only when its entries fit).
  DIST_OK(pvec_verlet_build(full));
  DIST_OK(pvec_verlet_build(half));
  a.full_again = fetch_list(full);
  a.half_again = fetch_list(half);
  DIST_OK(pvec_verlet_destroy(full));
  DIST_OK(pvec_verlet_destroy(half));
  return a;
}

void compare(const Arrays& want, const Arrays& got, Failures& f) {
  for (int gh = 0; gh < 2; ++gh) {
    const char* what = gh ? "cell list with ghosts" : "cell list";
    if (got.off[gh] != want.off[gh]) f.addf(what, ": cell_offsets differ");
    if (got.parts[gh] != want.parts[gh]) f.addf(what, ": cell_particles differ");
    if (got.loc[gh] != want.loc[gh]) f.addf(what, ": local_offsets differ");
    if (got.sorted[gh] != want.sorted[gh]) f.addf(what, ": sorted ", got.sorted[gh]);
  }
  if (got.full.offsets != want.full.offsets || got.full.nbr != want.full.nbr)
    f.add("full Verlet lists differ");
  if (got.half.offsets != want.half.offsets || got.half.nbr != want.half.nbr)
    f.add("half Verlet lists differ");
  if (got.full_again.offsets != want.full.offsets || got.full_again.nbr != want.full.nbr)
    f.add("full Verlet lists differ after a rebuild");
  if (got.half_again.offsets != want.half.offsets || got.half_again.nbr != want.half.nbr)
    f.add("half Verlet lists differ after a rebuild");
}

}  // namespace

// The device builds (a radix or an atomic counting sort of the rows by their count, a
// warp-per-cell Verlet pass where the stencil fits a warp (span 1), a per-particle one where it
// does not (span 2)) must give exactly the host's arrays, in random row order and
// after a locality sort (whose cell list of locals takes the no-sort path), at the first build
// and at a rebuild of the same lists (steady state: the buffers exist), including cells of
// more than 32 particles (a warp takes them in chunks), and particles at and near the cutoff
// (lattice boxes: host and device round distances alike, so they agree on every pair).
TEST_CASE("every build method gives the host's arrays", "[neighbors]") {
  std::vector<Box> bs = boxes();
  // ~40 particles per cell of 0.12 (24,000 in the unit box). PVEC_TEST_LIGHT (set by the
  // sanitizer step of scripts/hardening.sh, where this box's pair loops took 100 s) makes it
  // ~13 per cell, still several rounds of candidates per particle.
  Box dense;
  dense.n_per_rank = (std::getenv("PVEC_TEST_LIGHT") != nullptr ? 8000 : 24000) / size();
  dense.seed = 99;
  bs.push_back(dense);
  for (pvec_dtype t : {PVEC_FLOAT64, PVEC_FLOAT32}) {
    Box lat;  // pairs at the cutoff (0.12 = 2 spacings) and near it
    lat.lattice = 0.06;
    lat.pos = t;
    lat.n_per_rank = 1200 / size();
    lat.seed = 31;
    bs.push_back(lat);
  }
  for (const Box& b : bs)
    for (int sorted : {0, 1}) {
      INFO(box_name(b) << (sorted ? ", sorted" : ", random order"));
      Failures f;
      pvec_vector_t v = make_box(b);
      const double cutoff = 0.1, skin = 0.02;
      if (sorted) {  // by the grid of the span-1 lists (same width, same origin)
        DIST_OK(pvec_vector_sort(v, cutoff + skin, PVEC_SORT_BOTH_MIRRORS, nullptr));
        DIST_OK(pvec_ghost_get(v, nullptr, 0, 0));
        DIST_OK(pvec_host_to_device(v, nullptr, 0));
      }
      for (int span : {1, 2}) {
        const Arrays ref = build_all(v, Path::host, span, cutoff, skin);
        if (sorted && span == 1 && ref.sorted[0] == 0)
          f.add("a sorted vector's cell list says unsorted");
        INFO("span " << span);
        compare(ref, build_all(v, Path::device, span, cutoff, skin), f);
      }
      f.require("build methods");
      DIST_OK(pvec_vector_destroy(v));
    }
}

// A device rebuild fills padded rows of the room the last build needed; when the particles
// crowd (each rank's locals pulled halfway to its subdomain's centre: 2^dim times the density)
// the counts outgrow that room, and the rebuild must still give exactly the host's arrays (the
// counts it made are scanned and the CSR fill runs); the rebuild after it, with the new room,
// again.
TEST_CASE("device rebuilds whose lists outgrow the last build's room", "[neighbors]") {
  for (pvec_dtype t : {PVEC_FLOAT64, PVEC_FLOAT32})
    for (int dim : {2, 3}) {
      Box b;
      b.dim = dim;
      b.pos = t;
      b.n_per_rank = (dim == 3 ? 2400 : 800) / size() + 1;
      b.seed = 57 + static_cast<uint64_t>(dim);
      INFO(box_name(b));
      Failures f;
      pvec_vector_t v = make_box(b);
      run_path(v, Path::device);
      const double cutoff = 0.1, skin = 0.02;
      pvec_verlet_t full = nullptr, half = nullptr;
      const unsigned dev = flag_of(Path::device);
      DIST_OK(pvec_verlet_create(v, cutoff, skin, 1, dev, &full));
      DIST_OK(pvec_verlet_create(v, cutoff, skin, 1, dev | PVEC_VERLET_HALF, &half));
      double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
      DIST_OK(pvec_vector_get_subdomain(v, lo, hi));
      Column pos = column(v, PVEC_POS);
      for (int64_t i = 0; i < n_local(v); ++i)
        for (int d = 0; d < dim; ++d) {
          const double c = 0.5 * (lo[d] + hi[d]);
          set_pos(pos, i, d, c + 0.5 * (get_pos(pos, i, d) - c));
        }
      DIST_OK(pvec_ghost_get(v, nullptr, 0, 0));
      DIST_OK(pvec_host_to_device(v, nullptr, 0));
      run_path(v, Path::device);
      for (int round = 0; round < 2; ++round) {
        INFO((round == 0 ? "rebuild past the room" : "rebuild within the new room"));
        DIST_OK(pvec_verlet_build(full));
        DIST_OK(pvec_verlet_build(half));
        const HostList df = fetch_list(full), dh = fetch_list(half);
        pvec_verlet_t hf = nullptr, hh = nullptr;
        DIST_OK(pvec_verlet_create(v, cutoff, skin, 1, 0, &hf));
        DIST_OK(pvec_verlet_create(v, cutoff, skin, 1, PVEC_VERLET_HALF, &hh));
        const HostList rf = fetch_list(hf), rh = fetch_list(hh);
        if (df.offsets != rf.offsets || df.nbr != rf.nbr) f.add("full lists differ");
        if (dh.offsets != rh.offsets || dh.nbr != rh.nbr) f.add("half lists differ");
        check_full_list(v, df, cutoff + skin, f);
        DIST_OK(pvec_verlet_destroy(hf));
        DIST_OK(pvec_verlet_destroy(hh));
      }
      f.require("rebuilds past the room");
      DIST_OK(pvec_verlet_destroy(full));
      DIST_OK(pvec_verlet_destroy(half));
      DIST_OK(pvec_vector_destroy(v));
    }
}
