// pvec_vector_rebalance at 1-4 ranks, on the host and the device path: clustered particles (90%
// in a tenth of the box) and a weight property end within 1.05 of balance; nothing is lost or
// changed (ids, values, every particle on the rank whose new box holds it); ghost_get on the
// new boxes equals the brute-force reference (periodic images too); the same input gives the
// same boxes; degenerate inputs (every particle at one point, on one plane) and empty ranks do
// not fail; a hundred steps of random moves, maps and rebalances conserve everything; and what
// is refused leaves the decomposition and the particles as they were.
#include "dist_util.hpp"

#include <cmath>
#include <cstdio>
#include <cstdint>
#include <string>
#include <vector>

#include <unistd.h>

using namespace dist;

namespace {

// Every rank's subdomain, flattened (to compare decompositions).
std::vector<double> boxes(pvec_vector_t v) {
  const Decomp dc = decomposition(v);
  std::vector<double> out = dc.sub_lo;
  out.insert(out.end(), dc.sub_hi.begin(), dc.sub_hi.end());
  return out;
}

// Moves 90% of the local particles into the low corner tenth of the box (per dimension a
// fraction tenth^(1/dim) of the side), at positions that are functions of the id.
void cluster(pvec_vector_t v, const Props& p, int dim) {
  const Column pos = column(v, PVEC_POS);
  const double side = std::pow(0.1, 1.0 / dim);
  for (int64_t i = 0; i < n_local(v); ++i) {
    const int64_t id = id_of(v, p, i);
    if (id % 10 == 9) continue;
    Rng rng(static_cast<uint64_t>(id) * 7 + 3);
    for (int d = 0; d < dim; ++d) {
      const double L = kDomainHi[d] - kDomainLo[d];
      set_pos(pos, i, d, kDomainLo[d] + rng.uniform() * side * L * 0.999);
    }
  }
}

// The conservation checks: ids 0..N-1 once each, values by id, every particle owned.
void check_conserved(pvec_vector_t v, const Props& p, int64_t total, uint64_t salt, Failures& f) {
  std::vector<int64_t> ids;
  for (int64_t i = 0; i < n_local(v); ++i) ids.push_back(id_of(v, p, i));
  const std::vector<int64_t> all = allgather(ids);
  std::vector<int> seen(static_cast<size_t>(total), 0);
  for (int64_t id : all)
    if (id < 0 || id >= total || seen[static_cast<size_t>(id)]++)
      f.addf("id ", id, " out of range or repeated");
  if (static_cast<int64_t>(all.size()) != total) f.addf(all.size(), " particles, want ", total);
  check_values(v, p, 0, n_local(v), salt, f);
  check_positions_owned(v, decomposition(v), f);
}

double imbalance(pvec_vector_t v, int weight) {
  double c = 0, w = 0;
  DIST_OK(pvec_vector_get_imbalance(v, weight, 0, &c, &w));
  return weight == PVEC_NO_WEIGHT ? c : w;
}

}  // namespace

TEST_CASE("clustered particles end balanced; nothing lost; ghosts equal brute force", "[balance]") {
  for (Path path : {Path::host, Path::device})
    for (int dim : {1, 2, 3}) {
      CAPTURE(name_of(path), dim);
      Setup s;
      s.dim = dim;
      s.periodic[0] = 1;
      s.periodic[dim - 1] = 1;
      s.n_per_rank = 3000;
      Props p;
      pvec_vector_t v = make_mapped(s, &p);
      const int64_t total = sum(n_local(v));
      cluster(v, p, dim);
      DIST_OK(pvec_map(v, 0, nullptr));
      const double uneven = imbalance(v, PVEC_NO_WEIGHT);
      if (path == Path::device) DIST_OK(pvec_host_to_device(v, nullptr, 0));
      double before = 0, after = 0;
      DIST_OK(pvec_vector_rebalance(v, PVEC_NO_WEIGHT, 1.0, flag_of(path), &before, &after));
      if (path == Path::device) DIST_OK(pvec_device_to_host(v, nullptr, 0));
      Failures f;
      if (before != uneven) f.addf("before = ", before, ", measured ", uneven);
      const double now = imbalance(v, PVEC_NO_WEIGHT);
      if (now != after) f.addf("after = ", after, ", measured ", now);
      if (size() > 1 && !(now <= 1.05))
        f.addf("imbalance ", now, " after rebalancing (", uneven, " before)");
      if (size() == 1 && !(now == 1.0 && after == 1.0)) f.add("one rank: not balanced?");
      check_conserved(v, p, total, s.seed, f);
      f.require("rebalance");
      // Ghosts on the new boxes: the brute-force reference from the subdomains pvec reports.
      const Decomp dc = decomposition(v);
      const AllParticles all = gather_particles(v, p);
      DIST_OK(run_on(
          v, path, [&](unsigned fl) { return pvec_ghost_get(v, nullptr, 0, fl); }, f));
      compare_ghosts(reference_ghosts(dc, s.pos, s.width, all, rank()), actual_ghosts(v, p), dim,
                     f);
      check_values(v, p, n_local(v), n_local(v) + n_ghost(v), s.seed, f);
      f.require("ghosts on the balanced boxes");
      // Again from the same particles: the same boxes (deterministic).
      const std::vector<double> first = boxes(v);
      DIST_OK(pvec_vector_rebalance(v, PVEC_NO_WEIGHT, 1.0, flag_of(path), nullptr, nullptr));
      if (size() > 1 && boxes(v) != first)
        f.add("a second rebalance of the same particles moved the boxes");
      f.require("determinism");
      DIST_OK(pvec_vector_destroy(v));
    }
}

TEST_CASE("a weight property: the cost ends balanced, not the count", "[balance]") {
  for (Path path : {Path::host, Path::device}) {
    CAPTURE(name_of(path));
    Setup s;
    s.n_per_rank = 2000;
    Props p;
    pvec_vector_t v = make_mapped(s, &p);
    const int64_t total = sum(n_local(v));
    // Cost: 20 for particles with x < 0 (half the box), 1 elsewhere.
    const Column pos = column(v, PVEC_POS), w = column(v, p.f64);
    for (int64_t i = 0; i < n_local(v); ++i) {
      const double cost = get_pos(pos, i, 0) < 0 ? 20.0 : 1.0;
      std::memcpy(w.at(i, 0), &cost, sizeof cost);
    }
    if (path == Path::device) DIST_OK(pvec_host_to_device(v, nullptr, 0));
    double before = 0, after = 0;
    DIST_OK(pvec_vector_rebalance(v, p.f64, 1.02, flag_of(path), &before, &after));
    if (path == Path::device) DIST_OK(pvec_device_to_host(v, nullptr, 0));
    Failures f;
    const double now = imbalance(v, p.f64);
    if (size() > 1 && !(now <= 1.05)) f.addf("weight imbalance ", now, " (", before, " before)");
    if (now != after) f.addf("after = ", after, ", measured ", now);
    // Restore the original values (by id) to check conservation of everything else (the map
    // may have moved the column: a new Column).
    const Column w_now = column(v, p.f64);
    for (int64_t i = 0; i < n_local(v); ++i) {
      const uint64_t bits = value_bits(id_of(v, p, i), p.f64, 0, s.seed);
      std::memcpy(w_now.at(i, 0), &bits, sizeof(double));
    }
    check_conserved(v, p, total, s.seed, f);
    f.require("weighted rebalance");
    DIST_OK(pvec_vector_destroy(v));
  }
}

TEST_CASE("degenerate inputs and below the threshold", "[balance]") {
  for (Path path : {Path::host, Path::device})
    for (int mode : {0, 1, 2}) {  // every particle at one point; on one plane; no particles
      CAPTURE(name_of(path), mode);
      Setup s;
      s.n_per_rank = mode == 2 ? 0 : 500;
      Props p;
      pvec_vector_t v = make_mapped(s, &p);
      const int64_t total = sum(n_local(v));
      const Column pos = column(v, PVEC_POS);
      for (int64_t i = 0; i < n_local(v); ++i)
        for (int d = 0; d < (mode == 0 ? 3 : 1); ++d) set_pos(pos, i, d, kDomainLo[d] + 0.25);
      DIST_OK(pvec_map(v, 0, nullptr));
      if (path == Path::device) DIST_OK(pvec_host_to_device(v, nullptr, 0));
      DIST_OK(pvec_vector_rebalance(v, PVEC_NO_WEIGHT, 1.0, flag_of(path), nullptr, nullptr));
      if (path == Path::device) DIST_OK(pvec_device_to_host(v, nullptr, 0));
      Failures f;
      check_conserved(v, p, total, s.seed, f);
      // On one plane x = const: the other dimensions still split the particles.
      if (mode == 1 && size() > 1 && !(imbalance(v, PVEC_NO_WEIGHT) <= 1.05))
        f.addf("one plane: imbalance ", imbalance(v, PVEC_NO_WEIGHT));
      f.require("degenerate");
      // Balanced (or as balanced as it can be): a threshold above changes nothing.
      const std::vector<double> first = boxes(v);
      double before = 0, after = 0;
      DIST_OK(pvec_vector_rebalance(v, PVEC_NO_WEIGHT, static_cast<double>(size()) + 1, 0, &before,
                                    &after));
      DIST_REQUIRE((before == after && boxes(v) == first));
      DIST_OK(pvec_vector_destroy(v));
    }
}

TEST_CASE("a hundred steps of moves, maps and rebalances conserve everything", "[balance]") {
  for (Path path : {Path::host, Path::device}) {
    CAPTURE(name_of(path));
    Setup s;
    s.periodic[0] = s.periodic[1] = s.periodic[2] = 1;
    s.n_per_rank = 400;
    Props p;
    pvec_vector_t v = make_mapped(s, &p);
    const int64_t total = sum(n_local(v));
    Failures f;
    for (int step = 0; step < 100; ++step) {
      // Drift towards the low corner, with noise: the particles gather, rebalancing follows.
      const Column pos = column(v, PVEC_POS);
      for (int64_t i = 0; i < n_local(v); ++i) {
        Rng rng(static_cast<uint64_t>(id_of(v, p, i)) * 1000 + step);
        for (int d = 0; d < 3; ++d) {
          const double x = get_pos(pos, i, d);
          const double L = kDomainHi[d] - kDomainLo[d];
          set_pos(pos, i, d, x - 0.01 * L * rng.uniform() + 0.002 * L * (rng.uniform() - 0.5));
        }
      }
      if (path == Path::device) DIST_OK(pvec_host_to_device(v, nullptr, 0));
      DIST_OK(pvec_map(v, flag_of(path), nullptr));
      if (step % 10 == 9)
        DIST_OK(pvec_vector_rebalance(v, PVEC_NO_WEIGHT, 1.1, flag_of(path), nullptr, nullptr));
      if (path == Path::device) DIST_OK(pvec_device_to_host(v, nullptr, 0));
    }
    check_conserved(v, p, total, s.seed, f);
    f.require("after 100 steps");
    DIST_OK(pvec_vector_destroy(v));
  }
}

TEST_CASE("refusals leave the decomposition and the particles as they were", "[balance]") {
  Setup s;
  s.n_per_rank = 300;
  Props p;
  pvec_vector_t v = make_mapped(s, &p);
  cluster(v, p, 3);
  DIST_OK(pvec_map(v, 0, nullptr));
  const std::vector<double> first = boxes(v);
  const Snapshot snap = snapshot(v);
  for (double t : {0.5, -1.0, std::nan(""), HUGE_VAL})
    DIST_REQUIRE(pvec_vector_rebalance(v, PVEC_NO_WEIGHT, t, 0, nullptr, nullptr) ==
                 PVEC_ERROR_INVALID_ARGUMENT);
  DIST_REQUIRE(pvec_vector_rebalance(v, p.id, 1.0, 0, nullptr, nullptr) ==
               PVEC_ERROR_DTYPE_MISMATCH);
  // Ranks that disagree (one of them passing a threshold it alone would refuse): every rank
  // refuses, none waits for the others.
  if (size() > 1) {
    const double t = rank() == size() - 1 ? 0.5 : 1.0;
    DIST_REQUIRE(pvec_vector_rebalance(v, PVEC_NO_WEIGHT, t, 0, nullptr, nullptr) ==
                 PVEC_ERROR_INVALID_ARGUMENT);
    const int w = rank() == 0 ? p.f64 : PVEC_NO_WEIGHT;
    DIST_REQUIRE(pvec_vector_get_imbalance(v, w, 0, nullptr, nullptr) ==
                 PVEC_ERROR_INVALID_ARGUMENT);
  }
  DIST_REQUIRE(pvec_vector_rebalance(v, PVEC_NO_WEIGHT, 1.0, 1u << 20, nullptr, nullptr) ==
               PVEC_ERROR_INVALID_ARGUMENT);
  // A particle outside the (non-periodic) box: the map refuses, the old boxes stay.
  const Column pos = column(v, PVEC_POS);
  if (rank() == 0 && n_local(v) > 0) set_pos(pos, 0, 1, kDomainHi[1] + 1.0);
  const Snapshot outside = snapshot(v);
  const pvec_status st = pvec_vector_rebalance(v, PVEC_NO_WEIGHT, 1.0, 0, nullptr, nullptr);
  const bool planted = sum(rank() == 0 && n_local(v) > 0 ? 1 : 0) > 0;
  if (planted && size() > 1) DIST_REQUIRE(st == PVEC_ERROR_PARTICLES_OUTSIDE);
  DIST_REQUIRE(boxes(v) == first);
  DIST_REQUIRE(snapshot(v) == outside);
  (void)snap;
  DIST_OK(pvec_vector_destroy(v));
}

TEST_CASE("a checkpoint keeps the rebalanced boxes for a restart on the same ranks",
          "[balance][io]") {
  int hdf5 = 0;
  DIST_OK(pvec_has_hdf5(&hdf5));
  if (!hdf5) {
    WARN("pvec built without parallel HDF5: not run");
    return;
  }
  Setup s;
  s.n_per_rank = 700;
  Props p;
  pvec_vector_t v = make_mapped(s, &p);
  cluster(v, p, 3);
  DIST_OK(pvec_map(v, 0, nullptr));
  DIST_OK(pvec_vector_rebalance(v, PVEC_NO_WEIGHT, 1.0, 0, nullptr, nullptr));
  const std::vector<double> balanced = boxes(v);
  const int64_t mine = n_local(v);
  int64_t pid = rank() == 0 ? static_cast<int64_t>(getpid()) : 0;
  pid = sum(pid);
  const std::string path = "rebalance_ckpt_" + std::to_string(pid) + ".h5";
  DIST_OK(pvec_checkpoint_write(v, path.c_str(), 1, 0.0, nullptr, 0, 0, nullptr, nullptr, nullptr,
                                nullptr, 0));
  pvec_vector_desc d = PVEC_VECTOR_DESC_INIT;
  pvec_schema_t schema = nullptr;
  DIST_OK(pvec_checkpoint_describe(path.c_str(), &d, &schema, nullptr, nullptr));
  d.backend = PVEC_BACKEND_HOST;
  pvec_vector_t r = nullptr;
  DIST_OK(pvec_checkpoint_restart(path.c_str(), &d, schema, 0, &r));
  pvec_schema_destroy(schema);
  Failures f;
  if (boxes(r) != balanced) f.add("the restart did not get the rebalanced boxes back");
  const pvec_op_stats st = op_stats(r);
  if (st.particles_sent != 0) f.addf("the restart's map sent ", st.particles_sent, " particles");
  if (n_local(r) != mine) f.addf(n_local(r), " rows after the restart, ", mine, " written");
  check_positions_owned(r, decomposition(r), f);
  f.require("restart on the rebalanced boxes");
  DIST_OK(pvec_vector_destroy(r));
  DIST_OK(pvec_vector_destroy(v));
  barrier();
  if (rank() == 0) {
    std::remove(path.c_str());
    std::remove((path.substr(0, path.size() - 3) + ".xmf").c_str());
  }
  barrier();
}
