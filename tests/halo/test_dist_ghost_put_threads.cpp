// Proves that the host ghost_put gives every owner row the bytes of one thread at any thread
// count, and that one thread combines a row's contributions in the serial order of the plan:
// by destination rank, then in ghost order (halo/ghost_put_host.hpp). Floats hold random
// values of random exponents, so another order of an ADD changes bits; ghost widths wider
// than a subdomain or the box in periodic boxes give particles many ghost copies (own images
// at 1 rank). ADD, MIN, MAX and REPLACE of every dtype at 1, 2, 3 and 5 forced threads,
// against a reference that applies every rank's ghosts in that order; 1-4 ranks.
#include "backend/host_parallel.hpp"
#include "dist_util.hpp"

#include <cmath>
#include <map>

using namespace dist;

namespace {

// The library's combination (halo/reduce_column.cuh), on raw bits.
uint64_t combine_bits(pvec_dtype t, uint64_t a, uint64_t b, pvec_reduce_op op) {
  uint64_t out = 0;
  by_dtype(t, [&](auto z) {
    using T = decltype(z);
    T x, y, r;
    std::memcpy(&x, &a, sizeof x);
    std::memcpy(&y, &b, sizeof y);
    if (op == PVEC_REDUCE_ADD) {
      if constexpr (std::is_integral<T>::value) {
        using U = typename std::make_unsigned<T>::type;
        r = static_cast<T>(static_cast<U>(x) + static_cast<U>(y));
      } else {
        r = x + y;
      }
    } else if (op == PVEC_REDUCE_MIN) {
      r = y < x ? y : x;
    } else if (op == PVEC_REDUCE_MAX) {
      r = y > x ? y : x;
    } else {
      r = y;
    }
    std::memcpy(&out, &r, sizeof r);
  });
  return out;
}

// Floats of random sign, mantissa and exponent (2^-20 .. 2^20); integers of random bits.
uint64_t random_bits(pvec_dtype t, Rng& rng) {
  uint64_t out = rng.next();
  if (t == PVEC_FLOAT32 || t == PVEC_FLOAT64) {
    const double x = (rng.chance(0.5) ? -1 : 1) * rng.uniform(1, 2) *
                     std::ldexp(1.0, static_cast<int>(rng.below(41)) - 20);
    by_dtype(t, [&](auto z) {
      const auto y = static_cast<decltype(z)>(x);
      out = 0;
      std::memcpy(&out, &y, sizeof y);
    });
  }
  return out;
}

struct Comp {
  int prop;
  int64_t c;
  pvec_dtype t;
};

// ghost_get, random values in every row of the properties, then ghost_put op of them on
// `threads` threads; the vector's snapshot after it. With a reference, also checks one
// thread's rows against the plan order.
pvec_test::Snapshot put_on(const Setup& s, pvec_reduce_op op, int threads, bool reference,
                           Failures& f) {
  pvec::impl::force_host_threads(threads, 4);
  Props p;
  pvec_vector_t v = make_mapped(s, &p);
  DIST_OK(pvec_ghost_get(v, nullptr, 0, 0));
  const int64_t n = n_local(v), g = n_ghost(v);
  std::vector<Comp> comps;
  for (int prop : p.values) {
    const Column col = column(v, prop);
    for (int64_t c = 0; c < col.ncomp; ++c) comps.push_back({prop, c, col.dtype});
  }
  // The host columns of each comp, fetched once (a layout query per value made this test
  // slow under the sanitizers); ghost_put leaves them valid, and they are fetched again after.
  std::vector<Column> cols;
  for (const Comp& k : comps) cols.push_back(column(v, k.prop));
  Rng rng(s.seed * 7919 + static_cast<uint64_t>(rank()) * 31 + static_cast<uint64_t>(op));
  for (int64_t i = 0; i < n + g; ++i)
    for (size_t k = 0; k < comps.size(); ++k)
      cols[k].set_bits(i, comps[k].c, random_bits(comps[k].t, rng));
  // Every rank's ghosts in rank order, then in row order: id, then each comp's bits.
  std::vector<uint64_t> table;
  const Column idc = column(v, p.id);
  for (int64_t j = n; j < n + g; ++j) {
    table.push_back(idc.bits(j, 0));
    for (size_t k = 0; k < comps.size(); ++k) table.push_back(cols[k].bits(j, comps[k].c));
  }
  const std::vector<uint64_t> rows = reference ? allgather(table) : std::vector<uint64_t>{};
  std::vector<std::vector<uint64_t>> want;
  std::map<uint64_t, int64_t> local;
  if (reference) {
    for (int64_t i = 0; i < n; ++i) local[idc.bits(i, 0)] = i;
    for (size_t k = 0; k < comps.size(); ++k) {
      std::vector<uint64_t> col(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) col[i] = cols[k].bits(i, comps[k].c);
      want.push_back(std::move(col));
    }
    const size_t w = comps.size() + 1;
    for (size_t r = 0; r < rows.size(); r += w) {
      const auto it = local.find(rows[r]);
      if (it == local.end()) continue;
      for (size_t k = 0; k < comps.size(); ++k) {
        uint64_t& x = want[k][static_cast<size_t>(it->second)];
        x = combine_bits(comps[k].t, x, rows[r + 1 + k], op);
      }
    }
  }
  DIST_OK(pvec_ghost_put(v, p.values.data(), static_cast<int>(p.values.size()), op, 0));
  for (size_t k = 0; k < comps.size(); ++k) cols[k] = column(v, comps[k].prop);
  if (reference)
    for (size_t k = 0; k < comps.size(); ++k)
      for (int64_t i = 0; i < n; ++i)
        if (cols[k].bits(i, comps[k].c) != want[k][static_cast<size_t>(i)]) {
          f.addf("one thread: property ", comps[k].prop, " component ", comps[k].c, " of particle ",
                 i, " is not the plan-order result");
          break;
        }
  pvec_test::Snapshot out = pvec_test::snapshot(v);
  DIST_OK(pvec_vector_destroy(v));
  pvec::impl::force_host_threads(0);
  return out;
}

void run(int dim, pvec_dtype t, std::initializer_list<int> periodic, double width, int64_t n,
         uint64_t seed) {
  Setup s;
  s.dim = dim;
  s.pos = t;
  int d = 0;
  for (int b : periodic) s.periodic[d++] = b;
  s.width = width;
  s.n_per_rank = n;
  s.seed = seed;
  for (pvec_reduce_op op :
       {PVEC_REDUCE_ADD, PVEC_REDUCE_MIN, PVEC_REDUCE_MAX, PVEC_REDUCE_REPLACE}) {
    CAPTURE(dim, pvec_dtype_name(t), width, n, static_cast<int>(op));
    Failures f;
    const pvec_test::Snapshot one = put_on(s, op, 1, true, f);
    DIST_REQUIRE(sum(one.n_ghost) > 2 * sum(one.n_local));  // many copies per particle
    for (int threads : {2, 3, 5}) {
      const pvec_test::Snapshot many = put_on(s, op, threads, false, f);
      if (many.n_local != one.n_local || many.n_ghost != one.n_ghost) {
        f.addf(threads, " threads: sizes ", many.n_local, "+", many.n_ghost, " against ",
               one.n_local, "+", one.n_ghost);
        continue;
      }
      const std::string diff = pvec_test::compare_rows(one, many, one.rows());
      if (!diff.empty()) f.addf(threads, " threads against one: ", diff);
    }
    f.require("ghost_put at 1, 2, 3 and 5 threads");
  }
}

}  // namespace

TEST_CASE("host ghost_put is bitwise one thread's at 1, 2, 3 and 5 threads", "[dist][ghost_put]") {
  run(1, PVEC_FLOAT64, {1}, 2.5, 400, 1101);        // wider than the box: ~3.5 copies each
  run(2, PVEC_FLOAT32, {1, 1}, 2.2, 300, 1102);     // ~7 copies each
  run(3, PVEC_FLOAT64, {1, 1, 1}, 0.9, 250, 1103);  // corners: up to 26 images
  run(3, PVEC_FLOAT32, {1, 0, 1}, 1.1, 200, 1104);  // one dimension not periodic
}
