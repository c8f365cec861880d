// Proves the ghost plan rules. PVEC_GHOST_REUSE_PLAN replays the previous ghost_get: the
// same ghosts in the same slots, with the listed properties' current values (the list may
// differ from the first call's). PVEC_GHOST_SKIP_POSITIONS (with REUSE_PLAN) leaves the
// ghosts' positions as they are and sends fewer bytes. Without a valid plan (never made,
// after map, after append or remove on one rank only, SKIP_POSITIONS without REUSE_PLAN)
// ghost_get and ghost_put fail with INVALID_ARGUMENT on every rank and change nothing, and a
// plain ghost_get then works again. On the host and the device path.
#include "dist_util.hpp"

#include <algorithm>
#include <cmath>
#include <map>

using namespace dist;

namespace {

// Slot-by-slot view of the ghosts: ids and coordinates in storage order.
struct Slots {
  std::vector<int64_t> ids;
  std::vector<double> xs;
};

Slots slots(pvec_vector_t v, const Props& p) {
  const int dim = dim_of(v);
  const int64_t n = n_local(v), g = n_ghost(v);
  Column idc = column(v, p.id), pos = column(v, PVEC_POS);
  Slots s;
  for (int64_t j = n; j < n + g; ++j) {
    s.ids.push_back(static_cast<int64_t>(idc.bits(j, 0)));
    for (int d = 0; d < dim; ++d) s.xs.push_back(get_pos(pos, j, d));
  }
  return s;
}

int64_t bytes_sent(pvec_vector_t v) { return op_stats(v).bytes_sent; }

pvec_status ghost_get(pvec_vector_t v, Path path, const std::vector<int>& props, unsigned flags,
                      Failures& f, std::string* err = nullptr) {
  return run_on(
      v, path,
      [&](unsigned fl) {
        return pvec_ghost_get(v, props.empty() ? nullptr : props.data(),
                              static_cast<int>(props.size()), flags | fl);
      },
      f, err);
}

// A call that must fail with INVALID_ARGUMENT on every rank and leave the vector (both
// mirrors, sizes, capacity, generation) as it was.
void expect_rejected(pvec_vector_t v, Path path, const std::function<pvec_status(unsigned)>& op,
                     const char* what) {
  Failures f;
  const Snapshot before = snapshot(v);
  std::string err;
  const pvec_status st = run_on(v, path, op, f, &err);
  INFO(what << " on the " << name_of(path) << " path: status " << st << ": " << err);
  DIST_REQUIRE(st == PVEC_ERROR_INVALID_ARGUMENT);
  if (err.empty()) f.add("no error message");
  const Snapshot after = snapshot(v);
  if (after.n_local != before.n_local || after.n_ghost != before.n_ghost ||
      after.capacity != before.capacity || after.generation != before.generation)
    f.addf("sizes/capacity/generation changed: ", before.n_local, "+", before.n_ghost, "/",
           before.capacity, "/", before.generation, " -> ", after.n_local, "+", after.n_ghost, "/",
           after.capacity, "/", after.generation);
  else if (!compare_rows(before, after, before.rows()).empty())
    f.add(std::string("values changed: ") + compare_rows(before, after, before.rows()));
  f.require(what);
}

void check_reference(pvec_vector_t v, const Props& p, const Setup& s, Failures& f) {
  const Decomp dc = decomposition(v);
  const AllParticles all = gather_particles(v, p);
  compare_ghosts(reference_ghosts(dc, s.pos, s.width, all, rank()), actual_ghosts(v, p), s.dim, f);
}

void run(const Setup& s, Path path) {
  CAPTURE(s.dim, pvec_dtype_name(s.pos), s.width, name_of(path));
  Props p;
  pvec_vector_t v = make_mapped(s, &p);
  const unsigned reuse = PVEC_GHOST_REUSE_PLAN;
  const unsigned skip = PVEC_GHOST_SKIP_POSITIONS;
  auto get = [&](std::vector<int> props, unsigned flags) {
    return [=](unsigned fl) {
      return pvec_ghost_get(v, props.empty() ? nullptr : props.data(),
                            static_cast<int>(props.size()), flags | fl);
    };
  };
  auto put = [&](unsigned fl) { return pvec_ghost_put(v, &p.i32, 1, PVEC_REDUCE_ADD, fl); };

  // No plan yet (the vector was just mapped).
  expect_rejected(v, path, get({}, reuse), "REUSE_PLAN before any ghost_get");
  expect_rejected(v, path, get({}, reuse | skip), "REUSE_PLAN|SKIP_POSITIONS before ghost_get");
  expect_rejected(v, path, put, "ghost_put before any ghost_get");
  expect_rejected(v, path, get({}, skip), "SKIP_POSITIONS without REUSE_PLAN");

  Failures f;
  DIST_REQUIRE(ghost_get(v, path, {}, 0, f) == PVEC_SUCCESS);
  check_reference(v, p, s, f);
  f.require("first ghost_get");
  const Slots first = slots(v, p);
  DIST_REQUIRE(sum(static_cast<int64_t>(first.ids.size())) > 0);
  expect_rejected(v, path, get({}, skip), "SKIP_POSITIONS without REUSE_PLAN, with a plan");

  // Replay with new values and another property list: same slots, new values.
  const int64_t n = n_local(v);
  fill_values(v, p, 0, n, s.seed + 1);
  const std::vector<int> some = {p.id, p.f64, p.t23};
  DIST_REQUIRE(ghost_get(v, path, some, reuse, f) == PVEC_SUCCESS);
  const int64_t with_positions = bytes_sent(v);
  Slots again = slots(v, p);
  if (again.ids != first.ids) f.add("REUSE_PLAN put the ghosts in other slots");
  if (again.xs != first.xs) f.add("REUSE_PLAN changed the ghosts' positions");
  const int64_t g = n_ghost(v);
  check_values(v, p, n, n + g, s.seed + 1, f, &some);
  f.require("REUSE_PLAN");

  // Local positions changed since the ghosts last got theirs (declared on the host; on the
  // device path run_on's copy brings them to the device) make SKIP_POSITIONS a misuse: the
  // ghosts' positions would no longer match their sources. Refused on every rank. (A copy of
  // unchanged positions is no reason: run_on copies both ways around every call.)
  const int pos_prop = PVEC_POS;
  DIST_OK(pvec_vector_mark_modified(v, &pos_prop, 1, PVEC_ROWS_LOCAL));
  expect_rejected(v, path, get(some, reuse | skip),
                  "SKIP_POSITIONS after the local positions changed");

  // Skip positions, with no transfer in between (direct calls, not run_on): poisoned ghost
  // positions stay poisoned (they were not resent) on the host path; on the device path the
  // ghosts keep the positions the last ghost_get gave them. Fewer bytes either way.
  const unsigned on = flag_of(path);
  DIST_OK(pvec_ghost_get(v, some.data(), static_cast<int>(some.size()), reuse | on));
  const int64_t with_positions_direct = bytes_sent(v);
  fill_values(v, p, 0, n, s.seed + 2);
  if (path == Path::host) {
    Column pos = column(v, PVEC_POS);
    for (int64_t j = n; j < n + g; ++j)
      for (int d = 0; d < s.dim; ++d) set_pos(pos, j, d, 1000.0 + static_cast<double>(j));
  } else {
    // The new values reach the device without the positions.
    std::vector<int> values = some;
    DIST_OK(pvec_host_to_device(v, values.data(), static_cast<int>(values.size())));
  }
  DIST_OK(pvec_ghost_get(v, some.data(), static_cast<int>(some.size()), reuse | skip | on));
  const int64_t without_positions = bytes_sent(v);
  if (path == Path::device) DIST_OK(pvec_device_to_host(v, nullptr, 0));
  again = slots(v, p);
  if (again.ids != first.ids) f.add("SKIP_POSITIONS put the ghosts in other slots");
  if (path == Path::host) {
    for (size_t j = 0; j < again.xs.size(); ++j)
      if (again.xs[j] != 1000.0 + static_cast<double>(n + static_cast<int64_t>(j) / s.dim)) {
        f.addf("SKIP_POSITIONS changed ghost ", j / s.dim, "'s position to ", again.xs[j]);
        break;
      }
  } else if (again.xs != first.xs) {
    f.add("SKIP_POSITIONS changed the ghosts' positions on the device");
  }
  check_values(v, p, n, n + g, s.seed + 2, f, &some);
  // (A rank that sends no ghost entries sends no bytes either way.)
  if (with_positions == 0 ? without_positions != 0 : without_positions >= with_positions)
    f.addf("bytes sent with SKIP_POSITIONS ", without_positions, ", with positions ",
           with_positions);
  if (with_positions_direct != with_positions)
    f.addf("bytes sent with positions: ", with_positions_direct, " then ", with_positions);
  // Replaying with positions repairs them.
  DIST_REQUIRE(ghost_get(v, path, some, reuse, f) == PVEC_SUCCESS);
  again = slots(v, p);
  if (again.ids != first.ids || again.xs != first.xs)
    f.add("REUSE_PLAN after SKIP_POSITIONS did not restore the positions");
  f.require("SKIP_POSITIONS");

  // ghost_put uses the replayed plan.
  DIST_REQUIRE(run_on(v, path, put, f) == PVEC_SUCCESS);
  f.require("ghost_put after REUSE_PLAN");

  // map forgets the plan.
  DIST_REQUIRE(run_on(
                   v, path, [&](unsigned fl) { return pvec_map(v, fl, nullptr); }, f) ==
               PVEC_SUCCESS);
  f.require("map");
  expect_rejected(v, path, get({}, reuse), "REUSE_PLAN after map");
  expect_rejected(v, path, put, "ghost_put after map");

  // A change on one rank only invalidates the plan on every rank, even when the local size
  // is back to what it was (append then remove).
  DIST_REQUIRE(ghost_get(v, path, {}, 0, f) == PVEC_SUCCESS);
  f.require("ghost_get after map");
  const bool last = rank() == size() - 1;
  int64_t at = -1;
  if (last) DIST_OK(pvec_vector_append(v, 1, &at));
  if (!last) DIST_OK(pvec_vector_get_size(v, &at));  // keeps the collective check in step
  expect_rejected(v, path, get({}, reuse), "REUSE_PLAN after append on the last rank");
  if (last) {
    DIST_OK(pvec_vector_remove(v, &at, 1));
  } else {
    DIST_OK(pvec_vector_get_size(v, &at));
  }
  expect_rejected(v, path, get({}, reuse), "REUSE_PLAN after append and remove on one rank");
  expect_rejected(v, path, put, "ghost_put after append and remove on one rank");

  // A plain ghost_get works again.
  DIST_REQUIRE(ghost_get(v, path, {}, 0, f) == PVEC_SUCCESS);
  check_reference(v, p, s, f);
  f.require("ghost_get after the rejected calls");
  DIST_OK(pvec_vector_destroy(v));
}

}  // namespace

TEST_CASE("ghost plan reuse, skipped positions and invalidation", "[dist][ghost]") {
  Setup a;
  a.dim = 2;
  a.pos = PVEC_FLOAT64;
  a.periodic[0] = 1;
  a.periodic[1] = 1;
  a.width = 0.3;
  a.n_per_rank = 120;
  a.seed = 501;
  Setup b;
  b.dim = 3;
  b.pos = PVEC_FLOAT32;
  b.periodic[1] = 1;
  b.width = 0.25;
  b.n_per_rank = 120;
  b.edge_fraction = 0;  // float32 reference checks away from rounding edges
  b.seed = 502;
  for (Path path : {Path::host, Path::device}) {
    run(a, path);
    run(b, path);
  }
}

// The molecular-dynamics use of PVEC_GHOST_REUSE_PLAN (docs/distribution.md): the ghost set
// is kept while particles move by less than the skin, and positions are re-sent every step.
// After every particle moved, a replay gives each ghost its source's new position with the
// plan's periodic shift, on both paths.
TEST_CASE("REUSE_PLAN re-sends moved positions with the plan's shifts", "[dist][ghost]") {
  Setup s;
  s.dim = 3;
  s.pos = PVEC_FLOAT64;
  s.periodic[0] = s.periodic[1] = s.periodic[2] = 1;
  s.width = 0.2;
  s.n_per_rank = 150;
  s.edge_fraction = 0;
  s.seed = 503;
  for (Path path : {Path::host, Path::device}) {
    CAPTURE(name_of(path));
    Props p;
    pvec_vector_t v = make_mapped(s, &p);
    Failures f;
    DIST_REQUIRE(ghost_get(v, path, {}, 0, f) == PVEC_SUCCESS);
    f.require("first ghost_get");
    const Slots before = slots(v, p);
    const AllParticles all_before = gather_particles(v, p);
    // Every local particle moves by a small amount (deterministic per id).
    const int64_t n = n_local(v);
    Column pos = column(v, PVEC_POS), idc = column(v, p.id);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t id = static_cast<int64_t>(idc.bits(i, 0));
      for (int d = 0; d < s.dim; ++d)
        set_pos(pos, i, d, get_pos(pos, i, d) + 1e-3 * static_cast<double>((id * 7 + d) % 5 - 2));
    }
    DIST_REQUIRE(ghost_get(v, path, {}, PVEC_GHOST_REUSE_PLAN, f) == PVEC_SUCCESS);
    f.require("replay after the move");
    const Slots after = slots(v, p);
    const AllParticles all_after = gather_particles(v, p);
    std::map<int64_t, size_t> at_before, at_after;
    for (size_t k = 0; k < all_before.ids.size(); ++k) at_before[all_before.ids[k]] = k;
    for (size_t k = 0; k < all_after.ids.size(); ++k) at_after[all_after.ids[k]] = k;
    if (after.ids != before.ids) f.add("the replay put the ghosts in other slots");
    for (size_t j = 0; j < after.ids.size() && after.ids == before.ids; ++j) {
      const size_t kb = at_before[after.ids[j]], ka = at_after[after.ids[j]];
      for (int d = 0; d < s.dim; ++d) {
        // The ghost moved with its source, keeping the plan's shift.
        const double moved_source = all_after.xs[ka * s.dim + d] - all_before.xs[kb * s.dim + d];
        const double moved_ghost = after.xs[j * s.dim + d] - before.xs[j * s.dim + d];
        if (std::fabs(moved_source - moved_ghost) > 1e-12) {
          f.addf("ghost ", j, " (id ", after.ids[j], ") moved by ", moved_ghost, " along ", d,
                 ", its source by ", moved_source);
          break;
        }
      }
    }
    f.require("ghosts follow their sources");
    DIST_OK(pvec_vector_destroy(v));
  }
}

TEST_CASE("a replay writes only the listed properties of the ghost rows", "[dist][ghost]") {
  Setup s;
  s.dim = 2;
  s.periodic[0] = s.periodic[1] = 1;
  s.width = 0.2;
  s.n_per_rank = 120;
  s.seed = 509;
  for (Path path : {Path::host, Path::device}) {
    CAPTURE(name_of(path));
    Props p;
    pvec_vector_t v = make_mapped(s, &p);
    Failures f;
    DIST_REQUIRE(ghost_get(v, path, {}, 0, f) == PVEC_SUCCESS);
    // The caller writes a mark into the ghost rows of f64; a replay that lists only f32 (and
    // sends positions) must leave them, while f32's ghost rows get their sources' new values.
    const int64_t n = n_local(v), ng = n_ghost(v);
    const Column mark = column(v, p.f64);
    for (int64_t g = n; g < n + ng; ++g) mark.set_bits(g, 0, 0x4045000000000000ull + g);
    fill_values(v, p, 0, n, 77);
    DIST_REQUIRE(ghost_get(v, path, {p.f32}, PVEC_GHOST_REUSE_PLAN, f) == PVEC_SUCCESS);
    const Column kept = column(v, p.f64);
    for (int64_t g = n; g < n + ng; ++g)
      if (kept.bits(g, 0) != 0x4045000000000000ull + static_cast<uint64_t>(g)) {
        f.addf("ghost row ", g, ": the unlisted property was written");
        break;
      }
    const std::vector<int> listed{p.f32};
    check_values(v, p, n, n + ng, 77, f, &listed);
    f.require("unlisted properties of ghost rows after a replay");
    DIST_OK(pvec_vector_destroy(v));
  }
}
