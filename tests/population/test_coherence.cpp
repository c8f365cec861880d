// Mirror coherence at 1-4 ranks: every stale-mirror case is refused with STALE_MIRROR on every
// rank, naming the property and the operation that changed the other side, and changes
// nothing; it is not refused after the right copy or declaration; automatic synchronisation
// copies instead; pvec_vector_sync copies only the older row sets; the OpenFPM ghost-buffering
// pattern (ghost positions set by hand, kept by PVEC_GHOST_SKIP_POSITIONS) works on both paths,
// and a declared change of local positions refuses it.
#include "dist_util.hpp"

#include <cmath>
#include <string>
#include <vector>

using namespace dist;

namespace {

constexpr int kRho = 0, kForce = 1;

pvec_vector_t make(int64_t n) {
  pvec_schema_t s = nullptr;
  REQUIRE(pvec_schema_create(&s) == PVEC_SUCCESS);
  REQUIRE(pvec_schema_add_scalar(s, "rho", PVEC_FLOAT64, nullptr) == PVEC_SUCCESS);
  REQUIRE(pvec_schema_add_vector(s, "force", PVEC_FLOAT64, 2, nullptr) == PVEC_SUCCESS);
  pvec_vector_desc d = PVEC_VECTOR_DESC_INIT;
  d.dim = 2;
  d.boundary[0] = d.boundary[1] = PVEC_PERIODIC;
  d.ghost_width = 0.15;
  d.n_particles = n;
  d.placement = PVEC_PLACE_LOCAL;
  pvec_vector_t v = nullptr;
  DIST_OK(pvec_vector_create(&d, s, &v));
  pvec_schema_destroy(s);
  Rng rng(3 + static_cast<uint64_t>(rank()));
  const Column pos = column(v, PVEC_POS), rho = column(v, kRho);
  for (int64_t i = 0; i < n; ++i) {
    set_pos(pos, i, 0, rng.uniform());
    set_pos(pos, i, 1, rng.uniform());
    reinterpret_cast<double*>(rho.base)[i] = 1.0 + i;
  }
  DIST_OK(pvec_host_to_device(v, nullptr, 0));
  return v;
}

unsigned state_of(pvec_vector_t v, int prop) {
  unsigned s = 0;
  REQUIRE(pvec_vector_get_mirror_state(v, prop, &s) == PVEC_SUCCESS);
  return s;
}

// A collective call refused on every rank with STALE_MIRROR, the message naming what.
void refused_stale(pvec_status st, const char* name, const char* by) {
  const std::string e = pvec_last_error();
  INFO(e);
  DIST_REQUIRE(st == PVEC_ERROR_STALE_MIRROR || st == PVEC_ERROR_MPI);
  DIST_REQUIRE(st != PVEC_ERROR_STALE_MIRROR ||
               (e.find(name) != std::string::npos && e.find(by) != std::string::npos));
}

}  // namespace

TEST_CASE("a device operation after a host map is refused until the device is current") {
  pvec_vector_t v = make(300);
  DIST_OK(pvec_map(v, 0, nullptr));
  DIST_REQUIRE(state_of(v, kRho) ==
               (PVEC_MIRROR_HOST_LOCAL | PVEC_MIRROR_HOST_GHOST | PVEC_MIRROR_DEVICE_GHOST));
  const Snapshot before = snapshot(v);
  const int64_t n = n_local(v);
  refused_stale(pvec_ghost_get(v, nullptr, 0, PVEC_ON_DEVICE), "pos", "pvec_map");
  refused_stale(pvec_map(v, PVEC_ON_DEVICE, nullptr), "pos", "pvec_map");
  double sum = 0;
  refused_stale(pvec_vector_reduce(v, kRho, PVEC_REDUCE_ADD, PVEC_ON_DEVICE, &sum), "rho",
                "pvec_map");
  // The copy the wrong way (older device values over the host's) is refused too.
  DIST_REQUIRE(pvec_device_to_host(v, nullptr, 0) == PVEC_ERROR_STALE_MIRROR);
  DIST_REQUIRE(n_local(v) == n && compare_rows(before, snapshot(v), n).empty());
  // After the copy every device operation runs.
  DIST_OK(pvec_host_to_device(v, nullptr, 0));
  DIST_REQUIRE(state_of(v, kRho) == 15u);
  DIST_OK(pvec_ghost_get(v, nullptr, 0, PVEC_ON_DEVICE));
  DIST_OK(pvec_vector_reduce(v, kRho, PVEC_REDUCE_ADD, PVEC_ON_DEVICE, &sum));
  // The device ghost_get wrote the device ghost rows: the host ones are older.
  DIST_REQUIRE((state_of(v, kRho) & PVEC_MIRROR_HOST_GHOST) == 0);
  DIST_REQUIRE((state_of(v, kRho) & PVEC_MIRROR_HOST_LOCAL) != 0);
  pvec_vector_destroy(v);
}

TEST_CASE("declarations, pvec_vector_sync and automatic synchronisation") {
  pvec_vector_t v = make(200);
  DIST_OK(pvec_map(v, 0, nullptr));
  DIST_OK(pvec_host_to_device(v, nullptr, 0));
  // The caller's kernel wrote rho on the device: the host is older for rho only.
  const int rho = kRho;
  DIST_OK(pvec_vector_mark_modified(v, &rho, 1, PVEC_ON_DEVICE | PVEC_ROWS_LOCAL));
  DIST_REQUIRE(state_of(v, kRho) ==
               (PVEC_MIRROR_DEVICE_LOCAL | PVEC_MIRROR_HOST_GHOST | PVEC_MIRROR_DEVICE_GHOST));
  DIST_REQUIRE(state_of(v, kForce) == 15u);
  double s = 0;
  refused_stale(pvec_vector_reduce(v, kRho, PVEC_REDUCE_ADD, 0, &s), "rho",
                "pvec_vector_mark_modified");
  double force_sum[2] = {0, 0};  // force has two components
  DIST_OK(pvec_vector_reduce(v, kForce, PVEC_REDUCE_ADD, 0, force_sum));
  // sync copies rho to the host (only rho: force's host values, changed here without a
  // declaration, stay as they are).
  const Column rh = column(v, kRho), f = column(v, kForce);
  reinterpret_cast<double*>(f.base)[0] = -5;
  DIST_OK(pvec_vector_sync(v, nullptr, 0, 0));
  DIST_REQUIRE(state_of(v, kRho) == 15u);
  DIST_REQUIRE(n_local(v) == 0 || reinterpret_cast<double*>(f.base)[0] == -5);
  DIST_OK(pvec_vector_reduce(v, kRho, PVEC_REDUCE_ADD, 0, &s));
  (void)rh;
  // Automatic synchronisation: a device map after a host map copies first.
  DIST_OK(pvec_map(v, 0, nullptr));
  DIST_OK(pvec_vector_set_auto_sync(v, 1));
  DIST_OK(pvec_ghost_get(v, nullptr, 0, PVEC_ON_DEVICE));
  DIST_REQUIRE((state_of(v, kRho) & PVEC_MIRROR_DEVICE_LOCAL) != 0);
  DIST_OK(pvec_vector_set_auto_sync(v, 0));
  // Bad input.
  DIST_REQUIRE(pvec_vector_mark_modified(v, &rho, -1, 0) == PVEC_ERROR_INVALID_ARGUMENT);
  DIST_REQUIRE(pvec_vector_mark_modified(v, &rho, 1, 1u << 30) == PVEC_ERROR_INVALID_ARGUMENT);
  const int bad = 7;
  DIST_REQUIRE(pvec_vector_sync(v, &bad, 1, 0) == PVEC_ERROR_OUT_OF_RANGE);
  DIST_REQUIRE(pvec_vector_get_mirror_state(v, kRho, nullptr) == PVEC_ERROR_INVALID_ARGUMENT);
  DIST_REQUIRE(pvec_vector_get_mirror_state(nullptr, kRho, nullptr) == PVEC_ERROR_INVALID_HANDLE);
  pvec_vector_destroy(v);
}

TEST_CASE("a rank that declares alone makes every rank refuse the collective") {
  pvec_vector_t v = make(100);
  DIST_OK(pvec_map(v, 0, nullptr));
  DIST_OK(pvec_host_to_device(v, nullptr, 0));
  // A local call on one rank only (DIST_OK is collective).
  const pvec_status declared = rank() == size() - 1
                                   ? pvec_vector_mark_modified(v, nullptr, 0, PVEC_ON_DEVICE)
                                   : PVEC_SUCCESS;
  DIST_REQUIRE(declared == PVEC_SUCCESS);
  const pvec_status st = pvec_ghost_get(v, nullptr, 0, 0);
  DIST_REQUIRE(st != PVEC_SUCCESS);
  DIST_REQUIRE(rank() != size() - 1 || st == PVEC_ERROR_STALE_MIRROR);
  DIST_OK(pvec_vector_sync(v, nullptr, 0, 0));
  DIST_OK(pvec_ghost_get(v, nullptr, 0, 0));
  pvec_vector_destroy(v);
}

TEST_CASE("ghost buffering: hand-set ghost positions kept by SKIP_POSITIONS on both paths") {
  for (const Path p : {Path::host, Path::device}) {
    INFO(name_of(p) << " path");
    const unsigned on = flag_of(p);
    pvec_vector_t v = make(250);
    DIST_OK(pvec_map(v, 0, nullptr));
    DIST_OK(pvec_host_to_device(v, nullptr, 0));
    DIST_OK(pvec_ghost_get(v, nullptr, 0, on));
    if (p == Path::device) DIST_OK(pvec_device_to_host(v, nullptr, 0));
    // Ghost positions set by hand on the host (a marker), local rho changed on the host.
    const int64_t n = n_local(v), g = n_ghost(v);
    const Column pos = column(v, PVEC_POS), rho = column(v, kRho);
    for (int64_t i = n; i < n + g; ++i) set_pos(pos, i, 0, -7.0);
    for (int64_t i = 0; i < n; ++i) reinterpret_cast<double*>(rho.base)[i] = 100.0 + i;
    const int prop_rho = kRho, prop_pos = PVEC_POS;
    DIST_OK(pvec_vector_mark_modified(v, &prop_pos, 1, PVEC_ROWS_GHOST));
    DIST_OK(pvec_vector_mark_modified(v, &prop_rho, 1, PVEC_ROWS_LOCAL));
    // A whole copy of the positions carries unchanged local rows: not a reason to refuse.
    if (p == Path::device) DIST_OK(pvec_host_to_device(v, nullptr, 0));
    DIST_OK(
        pvec_ghost_get(v, &prop_rho, 1, on | PVEC_GHOST_REUSE_PLAN | PVEC_GHOST_SKIP_POSITIONS));
    if (p == Path::device) DIST_OK(pvec_device_to_host(v, nullptr, 0));
    Failures f;
    for (int64_t i = n; i < n + g; ++i) {
      if (get_pos(pos, i, 0) != -7.0) f.addf("ghost ", i, ": position not kept");
      if (reinterpret_cast<double*>(rho.base)[i] < 100.0) f.addf("ghost ", i, ": rho not sent");
    }
    f.require("ghost buffering");
    // A declared change of local positions: SKIP_POSITIONS is refused on every rank.
    DIST_OK(pvec_vector_mark_modified(v, &prop_pos, 1, on | PVEC_ROWS_LOCAL));
    DIST_REQUIRE(
        pvec_ghost_get(v, &prop_rho, 1, on | PVEC_GHOST_REUSE_PLAN | PVEC_GHOST_SKIP_POSITIONS) ==
        PVEC_ERROR_INVALID_ARGUMENT);
    pvec_vector_destroy(v);
  }
}

TEST_CASE("pvec_vector_sync copies only the older row set") {
  pvec_vector_t v = make(200);
  DIST_OK(pvec_map(v, 0, nullptr));
  DIST_OK(pvec_host_to_device(v, nullptr, 0));
  DIST_OK(pvec_ghost_get(v, nullptr, 0, 0));
  DIST_OK(pvec_host_to_device(v, nullptr, 0));
  const int64_t n = n_local(v), g = n_ghost(v);
  const Column rho = column(v, kRho);
  // Host: ghost rows declared written; local rows changed without a declaration.
  for (int64_t i = 0; i < n + g; ++i) reinterpret_cast<double*>(rho.base)[i] = -1.0 - i;
  const int prop = kRho;
  DIST_OK(pvec_vector_mark_modified(v, &prop, 1, PVEC_ROWS_GHOST));
  DIST_OK(pvec_vector_sync(v, &prop, 1, PVEC_ON_DEVICE));
  // Back on the host: the device's local rows are the old ones, its ghost rows the new ones.
  DIST_OK(pvec_device_to_host(v, &prop, 1));
  Failures f;
  for (int64_t i = 0; i < n; ++i)
    if (reinterpret_cast<double*>(rho.base)[i] < 0) f.addf("local row ", i, " was copied");
  for (int64_t i = n; i < n + g; ++i)
    if (reinterpret_cast<double*>(rho.base)[i] != -1.0 - i) f.addf("ghost row ", i, " not copied");
  f.require("sync of the ghost rows");
  pvec_vector_destroy(v);
}
