// Proves pvec_map's all-or-nothing rule: particles outside a non-periodic boundary (far, or
// one ulp past hi or below lo) or with a NaN/+Inf/-Inf coordinate, on one rank only or on
// several, make EVERY rank return PVEC_ERROR_PARTICLES_OUTSIDE with the global count in the
// message, and leave every rank's vector exactly as it was (sizes, capacity, generation,
// ghosts, every value of both mirrors). With PVEC_MAP_REMOVE_OUTSIDE exactly those particles
// are removed, n_removed is the global count on every rank, and the others are conserved.
// Each path reads only its own mirror. On the host and the device path.
#include "dist_util.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace dist;

namespace {

enum class Bad { far_above, ulp_above, ulp_below, nan, pos_inf, neg_inf };

const char* name_of(Bad b) {
  switch (b) {
    case Bad::far_above:
      return "far above hi";
    case Bad::ulp_above:
      return "one ulp above hi";
    case Bad::ulp_below:
      return "one ulp below lo";
    case Bad::nan:
      return "NaN";
    case Bad::pos_inf:
      return "+Inf";
    default:
      return "-Inf";
  }
}

// The bad coordinate and the dimension it goes in (NaN/Inf also on a periodic dimension).
void bad_coordinate(Bad b, const Decomp& dc, pvec_dtype t, int np_dim, int p_dim, int* d,
                    double* x) {
  *d = np_dim;
  switch (b) {
    case Bad::far_above:
      *x = dc.hi[np_dim] + 0.25 * dc.len(np_dim);
      break;
    case Bad::ulp_above:
      *x = nudge(dc.hi[np_dim], t, 1);
      break;
    case Bad::ulp_below:
      *x = nudge(dc.lo[np_dim], t, -1);
      break;
    case Bad::nan:
      *d = p_dim;
      *x = std::numeric_limits<double>::quiet_NaN();
      break;
    case Bad::pos_inf:
      *x = std::numeric_limits<double>::infinity();
      break;
    default:
      *d = p_dim;
      *x = -std::numeric_limits<double>::infinity();
      break;
  }
}

// After a map with PVEC_MAP_REMOVE_OUTSIDE of N particles in all, of which the bad_ids (this
// rank's) were outside: n_removed is their global count, exactly the other ids remain (rank 0
// compares), with their values, each on the rank owning it, and no ghosts.
void check_after_removal(pvec_vector_t v, const Props& p, const Decomp& dc, uint64_t seed,
                         int64_t N, const std::vector<int64_t>& bad_ids, int64_t removed,
                         Failures& f) {
  const int64_t global_bad = sum(static_cast<int64_t>(bad_ids.size()));
  if (removed != global_bad) f.addf("n_removed ", removed, ", expected ", global_bad);
  const int64_t m = n_local(v);
  if (sum(m) != N - global_bad) f.addf("global count ", sum(m), ", expected ", N - global_bad);
  if (n_ghost(v) != 0) f.add("ghosts left after map");
  std::vector<int64_t> mine(m);
  for (int64_t i = 0; i < m; ++i) mine[i] = id_of(v, p, i);
  std::vector<int64_t> every = allgather(mine), gone = allgather(bad_ids);
  std::sort(every.begin(), every.end());
  std::sort(gone.begin(), gone.end());
  if (rank() == 0) {
    std::vector<int64_t> want;
    for (int64_t id = 0; id < N; ++id)
      if (!std::binary_search(gone.begin(), gone.end(), id)) want.push_back(id);
    if (every != want) f.add("the remaining ids are not exactly the good ones");
  }
  check_values(v, p, 0, m, seed, f);
  check_positions_owned(v, dc, f);
}

// bad_here: how many particles this rank spoils (the first ones).
void run(const Setup& s, int np_dim, int p_dim, Bad b, Path path, int64_t bad_here) {
  CAPTURE(s.dim, pvec_dtype_name(s.pos), name_of(b), name_of(path), bad_here);
  Props p;
  pvec_vector_t v = make_mapped(s, &p);
  const Decomp dc = decomposition(v);
  Failures f;
  // Ghosts present: they are part of what must stay unchanged.
  DIST_REQUIRE(run_on(
                   v, path, [&](unsigned fl) { return pvec_ghost_get(v, nullptr, 0, fl); }, f) ==
               PVEC_SUCCESS);
  f.require("ghost_get");
  const int64_t n = n_local(v);
  const int64_t N = sum(n);
  const int64_t spoil = std::min(bad_here, n);
  const int64_t global_bad = sum(spoil);
  DIST_REQUIRE(global_bad > 0);
  int d = 0;
  double x = 0;
  bad_coordinate(b, dc, s.pos, np_dim, p_dim, &d, &x);
  std::vector<int64_t> bad_ids;
  {
    Column pos = column(v, PVEC_POS);
    for (int64_t i = 0; i < spoil; ++i) {
      set_pos(pos, i, d, x);
      bad_ids.push_back(id_of(v, p, i));
    }
  }

  // 1. Refused everywhere, nothing changed.
  const Snapshot before = snapshot(v);
  std::string err;
  int64_t removed = -7;
  const pvec_status st = run_on(
      v, path, [&](unsigned fl) { return pvec_map(v, fl, &removed); }, f, &err);
  INFO("map: " << err);
  DIST_REQUIRE(st == PVEC_ERROR_PARTICLES_OUTSIDE);
  if (!mentions_number(err, global_bad))
    f.addf("the message does not give the global count ", global_bad, ": ", err);
  const Snapshot after = snapshot(v);  // the device mirror's data on the device path
  if (after.n_local != before.n_local || after.n_ghost != before.n_ghost ||
      after.capacity != before.capacity || after.generation != before.generation)
    f.addf("sizes/capacity/generation changed: ", before.n_local, "+", before.n_ghost, "/",
           before.capacity, "/", before.generation, " -> ", after.n_local, "+", after.n_ghost, "/",
           after.capacity, "/", after.generation);
  else if (!compare_rows(before, after, before.rows()).empty())
    f.add("a failed map changed values: " + compare_rows(before, after, before.rows()));
  f.require("refused map");

  // 2. Removed with PVEC_MAP_REMOVE_OUTSIDE; the rest conserved.
  err.clear();
  removed = -7;
  const pvec_status st2 = run_on(
      v, path, [&](unsigned fl) { return pvec_map(v, fl | PVEC_MAP_REMOVE_OUTSIDE, &removed); }, f,
      &err);
  INFO("map REMOVE_OUTSIDE: " << err);
  DIST_REQUIRE(st2 == PVEC_SUCCESS);
  check_after_removal(v, p, dc, s.seed, N, bad_ids, removed, f);
  f.require("map with REMOVE_OUTSIDE");
  DIST_OK(pvec_vector_destroy(v));
}

Setup setup(int dim, pvec_dtype t, std::initializer_list<int> periodic, uint64_t seed) {
  Setup s;
  s.dim = dim;
  s.pos = t;
  int d = 0;
  for (int b : periodic) s.periodic[d++] = b;
  s.width = 0.2;
  s.n_per_rank = 60;
  s.seed = seed;
  return s;
}

// The path flag decides which mirror map reads: a bad coordinate only in the other mirror
// does not matter.
void run_mirror_separation(Path path) {
  CAPTURE(name_of(path));
  Props p;
  const Setup s = setup(2, PVEC_FLOAT64, {0, 1}, 611);
  pvec_vector_t v = make_mapped(s, &p);
  const bool spoil = rank() == 0 && n_local(v) > 0;
  const double good = spoil ? get_pos(column(v, PVEC_POS), 0, 0) : 0;
  // The bad value goes into the mirror the path does NOT read.
  if (path == Path::host) {
    if (spoil) set_pos(column(v, PVEC_POS), 0, 0, std::numeric_limits<double>::quiet_NaN());
    DIST_OK(pvec_host_to_device(v, nullptr, 0));
    if (spoil) set_pos(column(v, PVEC_POS), 0, 0, good);
  } else {
    DIST_OK(pvec_host_to_device(v, nullptr, 0));
    if (spoil) set_pos(column(v, PVEC_POS), 0, 0, std::numeric_limits<double>::quiet_NaN());
  }
  const pvec_status st = pvec_map(v, flag_of(path), nullptr);
  INFO(pvec_last_error());
  DIST_REQUIRE(st == PVEC_SUCCESS);
  DIST_OK(pvec_vector_destroy(v));
}

// Removal and arrivals together: every rank spoils its first two particles and sends the
// next 2 r + 1 to the next rank, so rank 0 receives more than leaves it (arrivals fill every
// hole, removed rows included, and go on after the old end) and the other ranks fewer
// (stayers beyond the new end fill the holes the arrivals leave).
void run_remove_and_move(Path path) {
  CAPTURE(name_of(path));
  Props p;
  const Setup s = setup(2, PVEC_FLOAT64, {1, 0}, 621);
  pvec_vector_t v = make_mapped(s, &p);
  const Decomp dc = decomposition(v);
  Failures f;
  const int64_t n = n_local(v), N = sum(n);
  const int next = (rank() + 1) % size();
  const int64_t spoil = std::min<int64_t>(2, n);
  const int64_t send = std::min<int64_t>(2 * rank() + 1, n - spoil);
  std::vector<int64_t> bad_ids;
  {
    Column pos = column(v, PVEC_POS);
    for (int64_t i = 0; i < spoil; ++i) {
      set_pos(pos, i, 0, std::numeric_limits<double>::quiet_NaN());
      bad_ids.push_back(id_of(v, p, i));
    }
    for (int64_t i = spoil; i < spoil + send; ++i)
      for (int d = 0; d < dc.dim; ++d)
        set_pos(pos, i, d,
                0.5 * (dc.sub_lo[next * dc.dim + d] + dc.sub_hi[next * dc.dim + d]) +
                    1e-3 * static_cast<double>(i - spoil));
  }
  int64_t removed = -7;
  std::string err;
  const pvec_status st = run_on(
      v, path, [&](unsigned fl) { return pvec_map(v, fl | PVEC_MAP_REMOVE_OUTSIDE, &removed); }, f,
      &err);
  INFO("map REMOVE_OUTSIDE with movers: " << err);
  DIST_REQUIRE(st == PVEC_SUCCESS);
  check_after_removal(v, p, dc, s.seed, N, bad_ids, removed, f);
  f.require("map with REMOVE_OUTSIDE and movers");
  DIST_OK(pvec_vector_destroy(v));
}

}  // namespace

TEST_CASE("map removes outside particles while others leave and arrive", "[dist][map]") {
  run_remove_and_move(Path::host);
  run_remove_and_move(Path::device);
}

TEST_CASE("map refuses bad particles on every rank and changes nothing", "[dist][map]") {
  const Setup a = setup(2, PVEC_FLOAT64, {0, 1}, 601);
  const Setup c = setup(3, PVEC_FLOAT32, {1, 0, 1}, 602);
  const bool last = rank() == size() - 1;
  for (Path path : {Path::host, Path::device})
    for (Bad b :
         {Bad::far_above, Bad::ulp_above, Bad::ulp_below, Bad::nan, Bad::pos_inf, Bad::neg_inf}) {
      // One particle on the last rank only.
      run(a, 0, 1, b, path, last ? 1 : 0);
      // Several ranks: 2 on the last, 1 on rank 0.
      run(c, 1, 2, b, path, (last ? 2 : 0) + (rank() == 0 ? 1 : 0));
    }
}

TEST_CASE("map reads only the mirror of its path", "[dist][map]") {
  run_mirror_separation(Path::host);
  run_mirror_separation(Path::device);
}
