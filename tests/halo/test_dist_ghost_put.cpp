// Proves that pvec_ghost_put sends every ghost's value back to the particle it copies and
// combines it there: ADD of ones gives each particle the number of its ghost copies counted
// by brute force; ADD/MIN/MAX of random values (integers, and floats holding small integers,
// so the result does not depend on the order) equal the reference built from all ranks'
// ghosts; REPLACE takes the single copy's value (or one of the copies'). Unlisted properties,
// positions and the ghosts themselves are left as they were; the other mirror is untouched.
// Each case runs on the host and the device path.
#include "dist_util.hpp"

#include <algorithm>
#include <map>
#include <set>

using namespace dist;

namespace {

template <class T>
uint64_t to_bits(T v) {
  uint64_t b = 0;
  std::memcpy(&b, &v, sizeof v);
  return b;
}

template <class T>
T from_bits(uint64_t b) {
  T v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

// The integer n as a value of dtype t (unsigned types wrap), as raw bits.
uint64_t number(pvec_dtype t, int64_t n) {
  return by_dtype(t, [&](auto z) { return to_bits(static_cast<decltype(z)>(n)); });
}

uint64_t combined(pvec_dtype t, uint64_t a, uint64_t b, pvec_reduce_op op) {
  return by_dtype(t, [&](auto z) {
    using T = decltype(z);
    const T x = from_bits<T>(a), y = from_bits<T>(b);
    switch (op) {
      case PVEC_REDUCE_ADD:
        return to_bits(static_cast<T>(x + y));
      case PVEC_REDUCE_MIN:
        return to_bits(std::min(x, y));
      case PVEC_REDUCE_MAX:
        return to_bits(std::max(x, y));
      default:
        return to_bits(y);
    }
  });
}

const char* op_name(pvec_reduce_op op) {
  switch (op) {
    case PVEC_REDUCE_ADD:
      return "ADD";
    case PVEC_REDUCE_MIN:
      return "MIN";
    case PVEC_REDUCE_MAX:
      return "MAX";
    default:
      return "REPLACE";
  }
}

// ones: every ghost value is 1 and the expected sums use the brute-force copy counts;
// otherwise ghost values are random and the reference is built from the gathered ghosts.
void run(const Setup& s, Path path, pvec_reduce_op op, bool ones) {
  CAPTURE(s.dim, pvec_dtype_name(s.pos), s.width, name_of(path), op_name(op), ones);
  Props p;
  pvec_vector_t v = make_mapped(s, &p);
  const Decomp dc = decomposition(v);
  Failures f;
  DIST_REQUIRE(run_on(
                   v, path, [&](unsigned fl) { return pvec_ghost_get(v, nullptr, 0, fl); }, f) ==
               PVEC_SUCCESS);
  f.require("ghost_get");
  const int64_t n = n_local(v), g = n_ghost(v);
  DIST_REQUIRE(sum(g) > 0);  // the case must exercise something

  // The properties put back, and one column per (property, component).
  const std::vector<int> targets = {p.i32, p.u64, p.f64, p.vi3, p.tu23, p.f32};
  struct Comp {
    int prop;
    int64_t c;
    pvec_dtype t;
  };
  std::vector<Comp> comps;
  for (int prop : targets) {
    const Column col = column(v, prop);
    for (int64_t c = 0; c < col.ncomp; ++c) comps.push_back({prop, c, col.dtype});
  }
  const size_t nc = comps.size();
  Column idc = column(v, p.id);
  Rng rng(s.seed * 31 + static_cast<uint64_t>(rank()) + 17 * static_cast<uint64_t>(op));
  for (int64_t i = 0; i < n + g; ++i) {
    const int64_t id = static_cast<int64_t>(idc.bits(i, 0));
    for (size_t k = 0; k < nc; ++k) {
      const Column col = column(v, comps[k].prop);
      const bool unsign = comps[k].t == PVEC_UINT32 || comps[k].t == PVEC_UINT64;
      int64_t value;
      if (i < n)
        value = id % 97 - (unsign ? 0 : 40) + comps[k].c;
      else
        value = ones ? 1 : rng.below(101) - (unsign ? 0 : 50);
      col.set_bits(i, comps[k].c, number(comps[k].t, value));
    }
  }
  // One row per ghost of every rank: id, then its value of every comp.
  std::vector<uint64_t> table;
  for (int64_t j = 0; j < g; ++j) {
    table.push_back(idc.bits(n + j, 0));
    for (size_t k = 0; k < nc; ++k)
      table.push_back(column(v, comps[k].prop).bits(n + j, comps[k].c));
  }
  const std::vector<uint64_t> all_rows = allgather(table);
  std::map<int64_t, std::vector<size_t>> copies;  // id -> rows of its ghost copies
  for (size_t r = 0; r * (nc + 1) < all_rows.size(); ++r)
    copies[static_cast<int64_t>(all_rows[r * (nc + 1)])].push_back(r);
  std::map<int64_t, int64_t> brute;  // id -> ghost copies by brute force
  if (ones) {
    const AllParticles all = gather_particles(v, p);
    for (int r = 0; r < dc.ranks; ++r)
      for (const GhostEntry& e : reference_ghosts(dc, s.pos, s.width, all, r)) ++brute[e.id];
  }

  const Snapshot before = snapshot(v);
  std::string err;
  const pvec_status st = run_on(
      v, path,
      [&](unsigned fl) {
        return pvec_ghost_put(v, targets.data(), static_cast<int>(targets.size()), op, fl);
      },
      f, &err);
  INFO("ghost_put: " << err);
  DIST_REQUIRE(st == PVEC_SUCCESS);
  {
    // The figures: every ghost goes back; those copying this rank's own particles (periodic
    // images) are reduced in place and travel in no message.
    std::set<int64_t> local_ids;
    for (int64_t i = 0; i < n; ++i) local_ids.insert(static_cast<int64_t>(idc.bits(i, 0)));
    int64_t own_images = 0;
    for (int64_t j = 0; j < g; ++j)
      own_images += local_ids.count(static_cast<int64_t>(idc.bits(n + j, 0))) != 0 ? 1 : 0;
    const pvec_op_stats ops = op_stats(v);
    if (ops.particles_sent != g) f.addf("ghost_put particles_sent ", ops.particles_sent, " != ", g);
    check_exchange_figures(ops, own_images, "ghost_put", f);
  }
  const Snapshot after = snapshot(v);
  if (after.n_local != n || after.n_ghost != g) f.add("ghost_put changed the sizes");
  if (after.generation != before.generation) f.add("ghost_put changed the generation");
  // Everything but the targets' local values is as before: positions, other properties,
  // and every ghost value.
  for (size_t q = 0; q < before.cols.size(); ++q) {
    const int prop = static_cast<int>(q) - 1;
    const bool target = std::find(targets.begin(), targets.end(), prop) != targets.end();
    const size_t e = before.elem[q];
    for (int64_t c = 0; c < before.ncomp[q]; ++c)
      for (int64_t i = target ? n : 0; i < n + g; ++i)
        if (std::memcmp(before.cols[q].data() + (c * before.rows() + i) * e,
                        after.cols[q].data() + (c * after.rows() + i) * e, e) != 0)
          f.addf("ghost_put changed property ", prop, " component ", c, " of ",
                 i < n ? "local particle " : "ghost ", i);
  }
  // The targets' local values.
  for (int64_t i = 0; i < n; ++i) {
    const int64_t id = static_cast<int64_t>(idc.bits(i, 0));
    const auto it = copies.find(id);
    const std::vector<size_t> none;
    const std::vector<size_t>& mine = it == copies.end() ? none : it->second;
    if (ones && static_cast<int64_t>(mine.size()) != brute[id])
      f.addf("id ", id, " has ", mine.size(), " ghost copies, brute force says ", brute[id]);
    for (size_t k = 0; k < nc; ++k) {
      const size_t q = static_cast<size_t>(comps[k].prop + 1);
      const size_t e = before.elem[q];
      uint64_t old = 0;
      std::memcpy(&old, before.cols[q].data() + (comps[k].c * before.rows() + i) * e, e);
      const uint64_t got = column(v, comps[k].prop).bits(i, comps[k].c);
      if (op == PVEC_REDUCE_REPLACE && mine.size() > 1) {
        bool one_of = false;
        for (size_t r : mine) one_of = one_of || all_rows[r * (nc + 1) + 1 + k] == got;
        if (!one_of)
          f.addf("REPLACE: id ", id, " property ", comps[k].prop, " component ", comps[k].c,
                 " is none of its ", mine.size(), " ghosts' values");
        continue;
      }
      uint64_t want = old;
      if (ones && op == PVEC_REDUCE_ADD)
        want = combined(comps[k].t, old, number(comps[k].t, brute[id]), op);
      else
        for (size_t r : mine) want = combined(comps[k].t, want, all_rows[r * (nc + 1) + 1 + k], op);
      if (got != want)
        f.addf("id ", id, " property ", comps[k].prop, " component ", comps[k].c, ": bits 0x",
               std::hex, got, " expected 0x", want, std::dec, " (", mine.size(), " copies)");
    }
  }
  f.require("ghost_put result");
  DIST_OK(pvec_vector_destroy(v));
}

Setup setup(int dim, pvec_dtype t, std::initializer_list<int> periodic, double width, int64_t n,
            uint64_t seed) {
  Setup s;
  s.dim = dim;
  s.pos = t;
  int d = 0;
  for (int b : periodic) s.periodic[d++] = b;
  s.width = width;
  s.n_per_rank = n;
  s.seed = seed;
  return s;
}

}  // namespace

TEST_CASE("ghost_put ADD of ones counts each particle's ghost copies", "[dist][ghost_put]") {
  for (Path path : {Path::host, Path::device}) {
    run(setup(1, PVEC_FLOAT64, {1}, 0.3, 80, 401), path, PVEC_REDUCE_ADD, true);
    run(setup(2, PVEC_FLOAT64, {1, 1}, 0.9, 60, 402), path, PVEC_REDUCE_ADD, true);
    run(setup(3, PVEC_FLOAT64, {1, 0, 1}, 0.2, 100, 403), path, PVEC_REDUCE_ADD, true);
  }
}

TEST_CASE("ghost_put ADD, MIN, MAX of random values match the reference", "[dist][ghost_put]") {
  for (Path path : {Path::host, Path::device})
    for (pvec_reduce_op op : {PVEC_REDUCE_ADD, PVEC_REDUCE_MIN, PVEC_REDUCE_MAX}) {
      run(setup(2, PVEC_FLOAT32, {1, 0}, 0.4, 80, 411), path, op, false);
      run(setup(3, PVEC_FLOAT64, {1, 1, 1}, 0.3, 60, 412), path, op, false);
    }
}

TEST_CASE("ghost_put REPLACE takes the ghost's value", "[dist][ghost_put]") {
  // A small width keeps most particles at one copy or none; with several copies the result
  // must be one of them.
  for (Path path : {Path::host, Path::device}) {
    run(setup(1, PVEC_FLOAT64, {1}, 0.05, 80, 421), path, PVEC_REDUCE_REPLACE, false);
    run(setup(3, PVEC_FLOAT32, {0, 1, 0}, 0.1, 100, 422), path, PVEC_REDUCE_REPLACE, false);
  }
}
