// Proves that pvec_map conserves particles exactly: over 100 random steps (about 10% of the
// particles move per step: small steps, far jumps, periodic crossings, subdomain edges) in
// 1D, 2D and 3D, mixed periodic/non-periodic, float32 and float64 positions, on the host and
// the device path, every map leaves the global count and the id set unchanged, every value
// of every property (all dtypes, scalar/vector/tensor) bit for bit, non-periodic coordinates
// bit for bit, periodic ones wrapped into [lo, hi) by a whole number of periods, every
// particle inside its rank's subdomain, no ghosts, and the other mirror untouched.
#include "dist_util.hpp"
#include "test_support.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <iomanip>

using namespace dist;

namespace {

struct Case {
  int dim;
  pvec_dtype pos;
  int periodic[3];
};

const double kLo[3] = {-1.0, 0.0, 0.5};
const double kHi[3] = {1.0, 3.0, 2.25};

double eps_of(pvec_dtype t) {
  return t == PVEC_FLOAT32 ? std::numeric_limits<float>::epsilon()
                           : std::numeric_limits<double>::epsilon();
}

// A new coordinate d for a mover: mostly small steps, some far jumps, some crossings of a
// periodic boundary or landings on a boundary, some exactly on a subdomain edge.
double move(Rng& rng, const Case& c, const Decomp& dc, int d, double x) {
  const double L = dc.len(d), lo = dc.lo[d], hi = dc.hi[d];
  const double u = rng.uniform();
  double y;
  if (u < 0.6) {
    y = x + rng.uniform(-0.15, 0.15) * L;
  } else if (u < 0.8) {
    y = c.periodic[d] ? rng.uniform(lo - 3 * L, hi + 3 * L) : rng.uniform(lo, hi);
  } else if (u < 0.9) {
    switch (rng.below(5)) {
      case 0:
        y = hi;
        break;
      case 1:
        y = lo;
        break;
      case 2:
        y = nudge(hi, c.pos, 1);
        break;
      case 3:
        y = nudge(lo, c.pos, -1);
        break;
      default:
        y = x + static_cast<double>(rng.below(5) - 2) * L;
        break;
    }
  } else {
    const int r = static_cast<int>(rng.below(dc.ranks));
    const double e = rng.chance(0.5) ? dc.sub_lo[r * dc.dim + d] : dc.sub_hi[r * dc.dim + d];
    y = nudge(e, c.pos, static_cast<int>(rng.below(3)) - 1);
  }
  if (!c.periodic[d]) y = std::min(std::max(y, lo), hi);  // this test stays inside
  return y;
}

void run(const Case& c, Path path, int steps, int64_t n_per_rank, uint64_t seed) {
  Props p;
  pvec_schema_t schema = make_full_schema(&p);
  pvec_vector_desc desc = PVEC_VECTOR_DESC_INIT;
  desc.dim = c.dim;
  desc.pos_dtype = c.pos;
  for (int d = 0; d < c.dim; ++d) {
    desc.domain_lo[d] = kLo[d];
    desc.domain_hi[d] = kHi[d];
    desc.boundary[d] = c.periodic[d] ? PVEC_PERIODIC : PVEC_NON_PERIODIC;
  }
  desc.ghost_width = 0.1;
  // Unequal counts per rank, so that the totals are not symmetric.
  desc.n_particles = n_per_rank + 7 * rank();
  desc.placement = PVEC_PLACE_LOCAL;
  pvec_vector_t v = nullptr;
  DIST_OK(pvec_vector_create(&desc, schema, &v));
  pvec_schema_destroy(schema);
  const Decomp dc = decomposition(v);
  const int dim = c.dim;

  const int64_t n0 = n_local(v);
  const int64_t N = sum(n0);
  const int64_t first_id = exscan(n0);
  Rng rng(seed * 7919 + static_cast<uint64_t>(rank()));
  {
    Column idc = column(v, p.id), pos = column(v, PVEC_POS);
    for (int64_t i = 0; i < n0; ++i) {
      idc.set_bits(i, 0, static_cast<uint64_t>(first_id + i));
      for (int d = 0; d < dim; ++d) set_pos(pos, i, d, rng.uniform(dc.lo[d], dc.hi[d]));
    }
  }
  const uint64_t salt = seed;
  fill_values(v, p, 0, n0, salt);

  for (int step = 0; step <= steps; ++step) {
    const int64_t n = n_local(v);
    Column pos = column(v, PVEC_POS), idc = column(v, p.id);
    if (step > 0)
      for (int64_t i = 0; i < n; ++i)
        if (rng.chance(0.1))
          for (int d = 0; d < dim; ++d) set_pos(pos, i, d, move(rng, c, dc, d, get_pos(pos, i, d)));
    // Every 10 steps map with ghosts present: they must be dropped.
    if (step % 10 == 5) {
      Failures g;
      const pvec_status st = run_on(
          v, path, [&](unsigned fl) { return pvec_ghost_get(v, nullptr, 0, fl); }, g);
      DIST_REQUIRE(st == PVEC_SUCCESS);
      g.require("ghost_get before map");
      pos = column(v, PVEC_POS);
      idc = column(v, p.id);
    }
    // Expected position of every id, from before the map.
    std::vector<int64_t> ids(n);
    std::vector<double> xs(n * dim);
    for (int64_t i = 0; i < n; ++i) {
      ids[i] = static_cast<int64_t>(idc.bits(i, 0));
      for (int d = 0; d < dim; ++d) xs[i * dim + d] = get_pos(pos, i, d);
    }
    const std::vector<int64_t> all_ids = allgather(ids);
    const std::vector<double> all_xs = allgather(xs);
    std::vector<double> expect(N * dim, std::numeric_limits<double>::quiet_NaN());
    for (size_t k = 0; k < all_ids.size(); ++k)
      for (int d = 0; d < dim; ++d) expect[all_ids[k] * dim + d] = all_xs[k * dim + d];

    Failures f;
    const uint64_t gen0 = generation(v);
    int64_t removed = -1;
    std::string err;
    const pvec_status st = run_on(
        v, path, [&](unsigned fl) { return pvec_map(v, fl, &removed); }, f, &err);
    INFO("map: " << err);
    DIST_REQUIRE(st == PVEC_SUCCESS);

    const int64_t m = n_local(v);
    if (n_ghost(v) != 0) f.addf("ghost size ", n_ghost(v), " after map");
    if (removed != 0) f.addf("n_removed ", removed, " with every particle inside");
    if (generation(v) < gen0) f.add("generation went back");
    const int64_t total = sum(m);
    if (total != N) f.addf("global count ", total, " expected ", N);
    // The id set: every id exactly once over all ranks.
    idc = column(v, p.id);
    pos = column(v, PVEC_POS);
    std::vector<int64_t> mine(m);
    for (int64_t i = 0; i < m; ++i) mine[i] = static_cast<int64_t>(idc.bits(i, 0));
    std::vector<int64_t> every = allgather(mine);
    std::sort(every.begin(), every.end());
    if (rank() == 0) {
      bool same = static_cast<int64_t>(every.size()) == N;
      for (int64_t k = 0; same && k < N; ++k) same = every[k] == k;
      if (!same) f.add("the set of ids after map is not {0, ..., N-1} each exactly once");
    }
    check_values(v, p, 0, m, salt, f);
    check_positions_owned(v, dc, f);
    // Coordinates: non-periodic bit for bit; periodic the same modulo the period (the
    // bit-for-bit rule for in-box periodic coordinates has its own test below).
    for (int64_t i = 0; i < m; ++i) {
      const int64_t id = mine[i];
      if (id < 0 || id >= N) continue;  // reported by the id-set check
      for (int d = 0; d < dim; ++d) {
        const double x = get_pos(pos, i, d), e = expect[id * dim + d];
        if (!c.periodic[d]) {
          if (std::memcmp(&x, &e, sizeof x) != 0)
            f.addf("id ", id, " coordinate ", d, " is ", x, ", expected exactly ", e);
          continue;
        }
        const double L = dc.len(d);
        const double k = std::round((x - e) / L);
        const double tol =
            2 * eps_of(c.pos) * std::max({std::fabs(e), std::fabs(dc.lo[d]), std::fabs(dc.hi[d])});
        if (!(std::fabs(x - e - k * L) <= tol))
          f.addf("id ", id, " coordinate ", d, " wrapped to ", x, " from ", e,
                 ": not a whole number of periods");
      }
    }
    std::ostringstream ctx;
    ctx << "dim " << dim << " pos " << pvec_dtype_name(c.pos) << " path " << name_of(path)
        << " step " << step;
    f.require(ctx.str().c_str());
  }
  DIST_OK(pvec_vector_destroy(v));
}

// 100 map steps per case and path (40 under PVEC_TEST_LIGHT: the sanitizer runs, where these
// loops took most of the test's time).
void run_cases(const std::vector<Case>& cases, uint64_t seed) {
  const int steps = pvec_test::light() ? 40 : 100;
  for (const Case& c : cases)
    for (Path path : {Path::host, Path::device}) {
      CAPTURE(c.dim, c.periodic[0], c.periodic[1], c.periodic[2], name_of(path));
      run(c, path, steps, 150, seed++);
    }
}

}  // namespace

TEST_CASE("map conserves particles in 1D", "[dist][map]") {
  run_cases({{1, PVEC_FLOAT64, {1, 0, 0}}, {1, PVEC_FLOAT32, {0, 0, 0}}}, 11);
}

TEST_CASE("map conserves particles in 2D", "[dist][map]") {
  run_cases({{2, PVEC_FLOAT32, {1, 0, 0}}, {2, PVEC_FLOAT64, {0, 1, 0}}}, 21);
}

TEST_CASE("map conserves particles in 3D", "[dist][map]") {
  run_cases(
      {{3, PVEC_FLOAT64, {1, 0, 1}}, {3, PVEC_FLOAT32, {0, 1, 0}}, {3, PVEC_FLOAT32, {1, 1, 1}}},
      31);
}

// Enough particles per rank that the host labelling and wrap take their blocks in spread
// order (backend/host_parallel.hpp, several blocks of 8192) when they run parallel ranges
// (dist_host_threads: 3 threads). PVEC_TEST_LIGHT: three blocks per rank instead of five to
// eight.
TEST_CASE("map conserves particles over several host blocks per rank", "[dist][map]") {
  const bool light = pvec_test::light();
  run({3, PVEC_FLOAT32, {1, 1, 1}}, Path::host, 3, light ? 20000 : 60000, 41);
  run({2, PVEC_FLOAT64, {1, 0, 0}}, Path::host, 3, light ? 17000 : 40000, 42);
}

// A periodic coordinate already in [lo, hi) is left exactly as it is: wrapping must not move
// a particle near hi by a period (the nearest representable values below hi, in both
// position types, and a few other in-box values).
TEST_CASE("map keeps in-box periodic coordinates bit for bit", "[dist][map]") {
  for (pvec_dtype t : {PVEC_FLOAT64, PVEC_FLOAT32})
    for (Path path : {Path::host, Path::device}) {
      CAPTURE(pvec_dtype_name(t), name_of(path));
      pvec_schema_t schema = nullptr;
      REQUIRE(pvec_schema_create(&schema) == PVEC_SUCCESS);
      pvec_vector_desc desc = PVEC_VECTOR_DESC_INIT;
      desc.dim = 1;
      desc.pos_dtype = t;
      desc.domain_lo[0] = -1.0;
      desc.domain_hi[0] = 1.0;
      desc.boundary[0] = PVEC_PERIODIC;
      const double xs[] = {
          nudge(1.0, t, -1), nudge(1.0, t, -2), nudge(-1.0, t, 1), -1.0, nudge(0.5, t, -1), 0.0,
          nudge(0.0, t, -1)};
      const int64_t k = sizeof xs / sizeof xs[0];
      desc.n_particles = k;
      desc.placement = PVEC_PLACE_LOCAL;
      pvec_vector_t v = nullptr;
      DIST_OK(pvec_vector_create(&desc, schema, &v));
      pvec_schema_destroy(schema);
      Column pos = column(v, PVEC_POS);
      for (int64_t i = 0; i < k; ++i) set_pos(pos, i, 0, xs[i]);
      Failures f;
      DIST_REQUIRE(run_on(
                       v, path, [&](unsigned fl) { return pvec_map(v, fl, nullptr); }, f) ==
                   PVEC_SUCCESS);
      // Every rank sent the same k values: each must come back unchanged, size() times.
      pos = column(v, PVEC_POS);
      std::vector<double> got(n_local(v));
      for (size_t i = 0; i < got.size(); ++i) got[i] = get_pos(pos, i, 0);
      std::vector<double> all = allgather(got);
      if (rank() == 0)
        for (double x : xs) {
          const int64_t found = std::count(all.begin(), all.end(), x);
          if (found != size()) {
            std::ostringstream s;
            s << std::setprecision(17) << "coordinate " << x << " found " << found
              << " times after map, expected " << size() << " (values now:";
            for (double y : all) s << " " << y;
            f.add(s.str() + ")");
          }
        }
      f.require("in-box periodic coordinates");
      DIST_OK(pvec_vector_destroy(v));
    }
}

// With float32 positions and bounds that float32 cannot hold (0.7 and 1.7), a periodic
// coordinate must still be stored inside [lo, hi): float32(0.7) < 0.7 is not.
TEST_CASE("map wraps float32 coordinates into bounds float32 cannot represent", "[dist][map]") {
  for (Path path : {Path::host, Path::device}) {
    CAPTURE(name_of(path));
    pvec_schema_t schema = nullptr;
    REQUIRE(pvec_schema_create(&schema) == PVEC_SUCCESS);
    pvec_vector_desc desc = PVEC_VECTOR_DESC_INIT;
    desc.dim = 1;
    desc.pos_dtype = PVEC_FLOAT32;
    desc.domain_lo[0] = 0.7;
    desc.domain_hi[0] = 1.7;
    desc.boundary[0] = PVEC_PERIODIC;
    const float xs[] = {0.7f, 1.7f, std::nextafter(0.7f, 0.0f), std::nextafter(1.7f, 0.0f), -0.3f,
                        2.7f, 1.2f};
    const int64_t k = sizeof xs / sizeof xs[0];
    desc.n_particles = k;
    desc.placement = PVEC_PLACE_LOCAL;
    pvec_vector_t v = nullptr;
    DIST_OK(pvec_vector_create(&desc, schema, &v));
    pvec_schema_destroy(schema);
    Column pos = column(v, PVEC_POS);
    for (int64_t i = 0; i < k; ++i) set_pos(pos, i, 0, xs[i]);
    Failures f;
    DIST_REQUIRE(run_on(
                     v, path, [&](unsigned fl) { return pvec_map(v, fl, nullptr); }, f) ==
                 PVEC_SUCCESS);
    const Decomp dc = decomposition(v);
    check_positions_owned(v, dc, f);
    pos = column(v, PVEC_POS);
    for (int64_t i = 0; i < n_local(v); ++i) {
      const double x = get_pos(pos, i, 0);
      if (!(x >= 0.7 && x < 1.7))
        f.addf(std::setprecision(9), "coordinate ", x, " not in [0.7, 1.7)");
    }
    f.require("float32 wrap with inexact bounds");
    DIST_OK(pvec_vector_destroy(v));
  }
}

// Every particle moves to one rank (which must grow), then they spread again. Growth
// changes the generation; counts, ids and values survive.
TEST_CASE("map concentrates all particles on one rank and spreads them back", "[dist][map]") {
  for (Path path : {Path::host, Path::device}) {
    CAPTURE(name_of(path));
    Setup s;
    s.dim = 2;
    s.periodic[0] = 1;
    s.n_per_rank = 64;  // exactly one capacity block per rank before the first map
    s.edge_fraction = 0;
    s.seed = 81;
    Props p;
    pvec_vector_t v = make_mapped(s, &p);
    const Decomp dc = decomposition(v);
    const int64_t N = sum(n_local(v));
    Rng rng(82 + static_cast<uint64_t>(rank()));
    for (int phase = 0; phase < 2; ++phase) {
      const int64_t n = n_local(v);
      Column pos = column(v, PVEC_POS);
      for (int64_t i = 0; i < n; ++i)
        for (int d = 0; d < 2; ++d) {
          // phase 0: into the last rank's subdomain; phase 1: anywhere.
          const int r = dc.ranks - 1;
          const double a = phase == 0 ? dc.sub_lo[r * 2 + d] : dc.lo[d];
          const double b = phase == 0 ? dc.sub_hi[r * 2 + d] : dc.hi[d];
          set_pos(pos, i, d, a + (b - a) * rng.uniform(0.01, 0.99));
        }
      const uint64_t gen = generation(v);
      const int64_t cap = capacity(v);
      Failures f;
      DIST_REQUIRE(run_on(
                       v, path, [&](unsigned fl) { return pvec_map(v, fl, nullptr); }, f) ==
                   PVEC_SUCCESS);
      const int64_t m = n_local(v);
      if (phase == 0 && m != (rank() == dc.ranks - 1 ? N : 0))
        f.addf("phase 0: ", m, " particles here");
      if (capacity(v) < m || capacity(v) % 64 != 0) f.addf("capacity ", capacity(v));
      if (capacity(v) != cap && generation(v) == gen)
        f.add("the capacity changed but the generation did not");
      if (sum(m) != N) f.add("global count changed");
      std::vector<int64_t> ids(m);
      for (int64_t i = 0; i < m; ++i) ids[i] = id_of(v, p, i);
      std::vector<int64_t> all = allgather(ids);
      std::sort(all.begin(), all.end());
      if (rank() == 0)
        for (int64_t k = 0; k < N; ++k)
          if (static_cast<int64_t>(all.size()) != N || all[k] != k) {
            f.add("ids not conserved");
            break;
          }
      check_values(v, p, 0, m, s.seed, f);
      check_positions_owned(v, dc, f);
      f.require(phase == 0 ? "concentrate" : "spread");
    }
    DIST_OK(pvec_vector_destroy(v));
  }
}

// No particles anywhere, and no properties: map and ghost_get still work.
TEST_CASE("map and ghost_get with no particles and no properties", "[dist][map]") {
  for (Path path : {Path::host, Path::device}) {
    CAPTURE(name_of(path));
    pvec_schema_t schema = nullptr;
    REQUIRE(pvec_schema_create(&schema) == PVEC_SUCCESS);
    pvec_vector_desc desc = PVEC_VECTOR_DESC_INIT;
    desc.boundary[0] = PVEC_PERIODIC;
    desc.ghost_width = 0.3;
    pvec_vector_t v = nullptr;
    DIST_OK(pvec_vector_create(&desc, schema, &v));
    pvec_schema_destroy(schema);
    Failures f;
    int64_t removed = -1;
    DIST_REQUIRE(run_on(
                     v, path, [&](unsigned fl) { return pvec_map(v, fl, &removed); }, f) ==
                 PVEC_SUCCESS);
    DIST_REQUIRE(run_on(
                     v, path, [&](unsigned fl) { return pvec_ghost_get(v, nullptr, 0, fl); }, f) ==
                 PVEC_SUCCESS);
    DIST_REQUIRE(
        run_on(
            v, path,
            [&](unsigned fl) { return pvec_ghost_get(v, nullptr, 0, fl | PVEC_GHOST_REUSE_PLAN); },
            f) == PVEC_SUCCESS);
    if (removed != 0 || n_local(v) != 0 || n_ghost(v) != 0) f.add("particles appeared");
    f.require("empty vector");
    DIST_OK(pvec_vector_destroy(v));
  }
}
