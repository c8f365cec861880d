// Shared decompositions and neighbours in another vector at 1-4 ranks, host and device path: a
// wall vector that follows a fluid vector (pvec_vector_follow) takes its boxes at every
// rebalance, nothing of either is lost over steps of moves and rebalances, every particle
// lives on the rank whose box holds it; a key-ordered list of each fluid particle's wall
// neighbours (pvec_verlet_options.source) equals a brute force over the whole wall set; its
// check watches the walls too; what is refused (a follower's own rebalance, chains, mismatched
// domains, lists between different boxes) changes nothing.
#include "dist_util.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

using namespace dist;

namespace {

constexpr int kId = 0;
constexpr int64_t kFluid = 1200, kWalls = 800;
constexpr double kCut = 0.1, kSkin = 0.02, kGhost = 0.13;

struct P {
  double x[2];
  int64_t id;
};

// Fluid particles: a dense column in the low x corner (and a few elsewhere); walls: spread
// over the box. The same on every rank; ids are k for fluid, 10^6 + k for walls.
std::vector<P> particles(bool walls, int step) {
  const int64_t n = walls ? kWalls : kFluid;
  std::vector<P> out(static_cast<size_t>(n));
  Rng rng(walls ? 77 : 55);
  for (int64_t k = 0; k < n; ++k) {
    P& p = out[static_cast<size_t>(k)];
    const bool dense = !walls && k % 10 != 0;
    p.x[0] = dense ? rng.uniform(0.0, 0.25) : rng.uniform();
    p.x[1] = rng.uniform();
    // A step moves every particle by a small id-dependent amount (periodic along x).
    Rng move(static_cast<uint64_t>(k) * 31 + static_cast<uint64_t>(step) + (walls ? 9 : 0));
    for (int s = 0; s < step; ++s) {
      p.x[0] = std::fmod(p.x[0] + 0.01 * move.uniform(-1, 1) + 1.0, 1.0);
      p.x[1] = std::min(std::max(p.x[1] + 0.01 * move.uniform(-1, 1), 0.0), 0.999999);
    }
    p.id = (walls ? 1000000 : 0) + k;
  }
  return out;
}

pvec_vector_t make(bool walls) {
  pvec_schema_t s = nullptr;
  REQUIRE(pvec_schema_create(&s) == PVEC_SUCCESS);
  REQUIRE(pvec_schema_add_scalar(s, "id", PVEC_INT64, nullptr) == PVEC_SUCCESS);
  pvec_vector_desc d = PVEC_VECTOR_DESC_INIT;
  d.dim = 2;
  d.boundary[0] = PVEC_PERIODIC;
  d.ghost_width = kGhost;
  const std::vector<P> all = particles(walls, 0);
  const int64_t n = static_cast<int64_t>(all.size());
  d.n_particles = (n - rank() + size() - 1) / size();
  d.placement = PVEC_PLACE_LOCAL;
  pvec_vector_t v = nullptr;
  DIST_OK(pvec_vector_create(&d, s, &v));
  pvec_schema_destroy(s);
  const Column pos = column(v, PVEC_POS), id = column(v, kId);
  int64_t i = 0;
  for (int64_t k = rank(); k < n; k += size(), ++i) {
    for (int c = 0; c < 2; ++c) set_pos(pos, i, c, all[k].x[c]);
    reinterpret_cast<int64_t*>(id.base)[i] = all[k].id;
  }
  DIST_OK(pvec_host_to_device(v, nullptr, 0));
  return v;
}

// Moves every local particle to where step `step` puts it (by id), on both mirrors.
void move_to(pvec_vector_t v, bool walls, int step) {
  DIST_OK(pvec_vector_sync(v, nullptr, 0, 0));  // after a device map the host rows are older
  const std::vector<P> all = particles(walls, step);
  const Column pos = column(v, PVEC_POS), id = column(v, kId);
  for (int64_t i = 0; i < n_local(v); ++i) {
    const int64_t k = reinterpret_cast<int64_t*>(id.base)[i] - (walls ? 1000000 : 0);
    for (int c = 0; c < 2; ++c) set_pos(pos, i, c, all[static_cast<size_t>(k)].x[c]);
  }
  DIST_OK(pvec_host_to_device(v, nullptr, 0));
}

std::vector<double> boxes(pvec_vector_t v) {
  const Decomp dc = decomposition(v);
  std::vector<double> out = dc.sub_lo;
  out.insert(out.end(), dc.sub_hi.begin(), dc.sub_hi.end());
  return out;
}

// Every id of the set once over the ranks, each particle on the rank whose box holds it.
void check_held(pvec_vector_t v, bool walls, Failures& f) {
  std::vector<int64_t> ids;
  const Column id = column(v, kId);
  for (int64_t i = 0; i < n_local(v); ++i) ids.push_back(reinterpret_cast<int64_t*>(id.base)[i]);
  std::vector<int64_t> all = allgather(ids);
  std::sort(all.begin(), all.end());
  const int64_t n = walls ? kWalls : kFluid;
  bool ok = static_cast<int64_t>(all.size()) == n;
  for (int64_t k = 0; ok && k < n; ++k)
    ok = all[static_cast<size_t>(k)] == (walls ? 1000000 : 0) + k;
  if (!ok) f.addf(walls ? "walls" : "fluid", ": ", all.size(), " ids, not each of the set once");
  check_positions_owned(v, decomposition(v), f);
}

// The list of each local fluid particle's wall neighbours against a brute force over the whole
// wall set at step `step` (ids ascending: the list is key-ordered by the walls' ids).
void check_cross(pvec_vector_t fluid, pvec_vector_t walls, pvec_verlet_t l, int step, Failures& f) {
  pvec_verlet_info info = PVEC_VERLET_INFO_INIT;
  DIST_OK(pvec_verlet_get_info(l, &info));
  const auto off = fetch(info.offsets, info.n + 1, info.on_device != 0);
  const auto nbr = fetch(info.neighbors, info.n_pairs, info.on_device != 0);
  const std::vector<P> wall_set = particles(true, step);
  const Column fpos = column(fluid, PVEC_POS);
  const auto* wid = reinterpret_cast<const int64_t*>(column(walls, kId).base);
  if (info.n != n_local(fluid)) f.addf("the list has ", info.n, " particles");
  const double r = kCut + kSkin;
  for (int64_t i = 0; i < std::min(info.n, n_local(fluid)); ++i) {
    std::vector<int64_t> want, got;
    const double xi[2] = {get_pos(fpos, i, 0), get_pos(fpos, i, 1)};
    for (const P& w : wall_set) {
      double dx = w.x[0] - xi[0];
      dx -= std::round(dx);
      const double dy = w.x[1] - xi[1];
      if (dx * dx + dy * dy < r * r) want.push_back(w.id);
    }
    for (int64_t e = off[i]; e < off[i + 1]; ++e) got.push_back(wid[nbr[e]]);
    if (got != want) {
      f.addf("fluid row ", i, ": ", got.size(), " wall neighbours listed, ", want.size(),
             " by brute force");
      if (f.count() > 5) return;
    }
  }
}

}  // namespace

TEST_CASE("a vector that follows another shares its boxes through rebalances", "[balance]") {
  for (Path p : {Path::host, Path::device}) {
    INFO(name_of(p) << " path");
    const unsigned on = flag_of(p);
    Failures f;
    pvec_vector_t fluid = make(false), walls = make(true);
    DIST_OK(pvec_map(fluid, on, nullptr));
    DIST_OK(pvec_vector_follow(walls, fluid, on));
    for (int step = 0; step <= 12; ++step) {
      if (step > 0) {
        move_to(fluid, false, step);
        move_to(walls, true, step);
        DIST_OK(pvec_map(fluid, on, nullptr));
        DIST_OK(pvec_map(walls, on, nullptr));
      }
      if (step % 4 == 0) {
        double before = 0, after = 0;
        DIST_OK(pvec_vector_rebalance(fluid, PVEC_NO_WEIGHT, 1.0, on, &before, &after));
        if (size() > 1 && !(after <= 1.05)) f.addf("step ", step, ": imbalance ", after);
      }
      if (p == Path::device) {
        DIST_OK(pvec_device_to_host(fluid, nullptr, 0));
        DIST_OK(pvec_device_to_host(walls, nullptr, 0));
      }
      if (boxes(fluid) != boxes(walls)) f.addf("step ", step, ": the walls' boxes differ");
      check_held(fluid, false, f);
      check_held(walls, true, f);

      // The fluid particles' wall neighbours, key-ordered by the walls' ids.
      const int id_prop = kId;
      DIST_OK(pvec_ghost_get(walls, &id_prop, 1, on));
      if (p == Path::device) DIST_OK(pvec_device_to_host(walls, nullptr, 0));
      pvec_verlet_options o = PVEC_VERLET_OPTIONS_INIT;
      o.cutoff = kCut;
      o.skin = kSkin;
      o.flags = on;
      o.key_prop = kId;
      o.source = walls;
      pvec_verlet_t l = nullptr;
      DIST_OK(pvec_verlet_create_with(fluid, &o, &l));
      check_cross(fluid, walls, l, step, f);
      int rebuild = -1;
      DIST_OK(pvec_verlet_check(l, &rebuild));
      if (rebuild != 0) f.addf("step ", step, ": check wants a rebuild right after the build");
      // A wall that moves more than skin / 2 on one rank asks every rank for a rebuild.
      if (rank() == 0 && n_local(walls) > 0) {
        const Column wp = column(walls, PVEC_POS);
        set_pos(wp, 0, 1, get_pos(wp, 0, 1) + (get_pos(wp, 0, 1) > 0.5 ? -0.6 : 0.6) * kSkin);
        REQUIRE(pvec_host_to_device(walls, nullptr, 0) == PVEC_SUCCESS);  // local, one rank
      }
      DIST_OK(pvec_verlet_check(l, &rebuild));
      if (rebuild != (sum(rank() == 0 && n_local(walls) > 0 ? 1 : 0) > 0 ? 1 : 0))
        f.addf("step ", step, ": check did not see the wall that moved");
      // A map of the walls makes the list stale.
      DIST_OK(pvec_map(walls, on, nullptr));
      pvec_verlet_info info = PVEC_VERLET_INFO_INIT;
      if (pvec_verlet_get_info(l, &info) != PVEC_ERROR_STATE) f.add("stale after the walls' map");
      DIST_OK(pvec_verlet_destroy(l));
      move_to(walls, true, step);
      DIST_OK(pvec_map(walls, on, nullptr));
    }
    f.require("follow");
    DIST_OK(pvec_vector_destroy(walls));
    DIST_OK(pvec_vector_destroy(fluid));
  }
}

TEST_CASE("pvec_vector_follow and cross lists refuse what would be wrong", "[balance]") {
  pvec_vector_t fluid = make(false), walls = make(true), other = make(true);
  DIST_OK(pvec_map(fluid, 0, nullptr));
  DIST_OK(pvec_map(walls, 0, nullptr));
  DIST_OK(pvec_map(other, 0, nullptr));
  CHECK(pvec_vector_follow(fluid, fluid, 0) == PVEC_ERROR_INVALID_ARGUMENT);
  CHECK(pvec_vector_follow(walls, fluid, 1u << 20) == PVEC_ERROR_INVALID_ARGUMENT);
  CHECK(pvec_vector_follow(walls, nullptr, 0) == PVEC_SUCCESS);  // following nothing: no-op
  DIST_OK(pvec_vector_follow(walls, fluid, 0));
  DIST_OK(pvec_vector_follow(walls, fluid, 0));  // again: nothing changes
  CHECK(pvec_vector_rebalance(walls, PVEC_NO_WEIGHT, 1.0, 0, nullptr, nullptr) == PVEC_ERROR_STATE);
  CHECK(std::string(pvec_last_error()).find("rebalance the leader") != std::string::npos);
  CHECK(pvec_vector_follow(other, walls, 0) == PVEC_ERROR_STATE);  // a chain
  CHECK(pvec_vector_follow(fluid, other, 0) == PVEC_ERROR_STATE);  // fluid is followed
  // Another domain.
  pvec_schema_t s = nullptr;
  REQUIRE(pvec_schema_create(&s) == PVEC_SUCCESS);
  pvec_vector_desc d = PVEC_VECTOR_DESC_INIT;
  d.dim = 2;
  d.domain_hi[1] = 2.0;
  pvec_vector_t tall = nullptr;
  DIST_OK(pvec_vector_create(&d, s, &tall));
  pvec_schema_destroy(s);
  CHECK(pvec_vector_follow(tall, fluid, 0) == PVEC_ERROR_INVALID_ARGUMENT);

  // A list between vectors of different boxes is refused at the build, and a half list or a
  // pair filter with a source at the creation.
  DIST_OK(pvec_vector_rebalance(fluid, PVEC_NO_WEIGHT, 1.0, 0, nullptr, nullptr));
  const int id_prop = kId;
  DIST_OK(pvec_ghost_get(other, &id_prop, 1, 0));
  DIST_OK(pvec_ghost_get(walls, &id_prop, 1, 0));
  pvec_verlet_options o = PVEC_VERLET_OPTIONS_INIT;
  o.cutoff = kCut;
  o.source = other;
  pvec_verlet_t l = nullptr;
  const pvec_status st = pvec_verlet_create_with(fluid, &o, &l);
  if (size() > 1)
    CHECK(st == PVEC_ERROR_STATE);  // rebalanced boxes against equal ones
  else if (st == PVEC_SUCCESS)
    DIST_OK(pvec_verlet_destroy(l));
  l = nullptr;
  o.source = walls;
  o.flags = PVEC_VERLET_HALF;
  CHECK(pvec_verlet_create_with(fluid, &o, &l) == PVEC_ERROR_INVALID_ARGUMENT);
  o.flags = 0;
  o.skip_prop = kId;
  CHECK(pvec_verlet_create_with(fluid, &o, &l) == PVEC_ERROR_INVALID_ARGUMENT);
  o.skip_prop = PVEC_NO_PROPERTY;
  o.cutoff = kGhost;  // above the walls' ghost width with the skin
  o.skin = 0.05;
  CHECK(pvec_verlet_create_with(fluid, &o, &l) == PVEC_ERROR_INVALID_ARGUMENT);
  CHECK(l == nullptr);

  // A follower's map that fails (a wall beyond the open y boundary) fails the rebalance: every
  // vector keeps its old boxes and its particles.
  {
    move_to(fluid, false, 20);
    DIST_OK(pvec_map(fluid, 0, nullptr));
    const std::vector<double> fb = boxes(fluid), wb = boxes(walls);
    REQUIRE(fb == wb);
    const Column wp = column(walls, PVEC_POS);
    const bool mine = rank() == size() - 1 && n_local(walls) > 0;
    double y0 = 0;
    if (mine) {
      y0 = get_pos(wp, 0, 1);
      set_pos(wp, 0, 1, 1.5);
    }
    // (One rank has nothing to rebalance: no map runs, nothing fails.)
    CHECK(pvec_vector_rebalance(fluid, PVEC_NO_WEIGHT, 1.0, 0, nullptr, nullptr) ==
          (size() > 1 ? PVEC_ERROR_PARTICLES_OUTSIDE : PVEC_SUCCESS));
    CHECK(boxes(fluid) == fb);
    CHECK(boxes(walls) == wb);
    Failures f;
    check_held(fluid, false, f);
    f.require("fluid after the failed rebalance");
    if (mine) set_pos(wp, 0, 1, y0);
    Failures g;
    check_held(walls, true, g);
    g.require("walls after the failed rebalance");
  }

  // Stop following: the next rebalance of fluid leaves the walls' boxes alone.
  DIST_OK(pvec_vector_follow(walls, nullptr, 0));
  const std::vector<double> before = boxes(walls);
  move_to(fluid, false, 30);
  DIST_OK(pvec_map(fluid, 0, nullptr));
  DIST_OK(pvec_vector_rebalance(fluid, PVEC_NO_WEIGHT, 1.0, 0, nullptr, nullptr));
  CHECK(boxes(walls) == before);
  // A destroyed leader leaves its followers on their own: they may rebalance.
  DIST_OK(pvec_vector_follow(walls, fluid, 0));
  DIST_OK(pvec_vector_destroy(fluid));
  DIST_OK(pvec_vector_rebalance(walls, PVEC_NO_WEIGHT, 1.0, 0, nullptr, nullptr));
  DIST_OK(pvec_vector_destroy(tall));
  DIST_OK(pvec_vector_destroy(other));
  DIST_OK(pvec_vector_destroy(walls));
}
