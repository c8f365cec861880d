// White-box test of ghost_get's candidate count: the fast path (NearCells: the cells
// own-2 .. own+2 per dimension tested in the position type) must give every particle exactly
// the count and record of the general path (cells tested in double precision), and its
// record must emit the same entries (through the tables of wrapped cells and shifts), on
// coordinates placed where rounding decides: a few units in the last place around every bound
// of every candidate cell, after the periodic shift in the position type, as PackRows applies
// it. Grids of 1-5 subdomains per dimension, periodic or not, an odd box, widths from 0 to just
// below half a subdomain, float and double, 1-3 dimensions, every rank's subdomain.
#include "halo/ghost_candidates.cuh"
#include "halo/ghost_plan_host.hpp"

#include "catch_compat.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace pvec::impl;

namespace {

template <class T>
T step(T x, int k) {  // k units in the last place up (k > 0) or down
  const T dir = k > 0 ? std::numeric_limits<T>::infinity() : -std::numeric_limits<T>::infinity();
  for (int i = 0; i < (k > 0 ? k : -k); ++i) x = std::nextafter(x, dir);
  return x;
}

struct Tally {
  int64_t particles = 0;   // compared
  int64_t fast = 0;        // of them, decided by the fast path
  int64_t candidates = 0;  // sum of counts
  int64_t emitted = 0;     // particles whose entries were compared
  int64_t from_words = 0;  // of them, also emitted from their cell word
  int64_t word_mismatches = 0;
  std::vector<std::string> mismatches;
};

template <class T, int DIM>
void compare_paths(const CartGrid& g, int me, double width, std::mt19937_64& rng, Tally& tally) {
  NearCells<T, DIM> cells;
  if (!near_cells<T, DIM>(g, me, width, cells)) return;  // the fast path does not apply
  int own[PVEC_MAX_DIM] = {0, 0, 0, 0};
  g.cells_of_rank(me, own);
  const Band<T, DIM> band = own_band<T, DIM>(g, me);

  // Per dimension, coordinates inside this rank's subdomain where some test flips: for every
  // bound b of every candidate cell, the x whose shifted value x + add lands on b, and a few
  // units in the last place around it; plus the subdomain's own edges and random values.
  std::vector<T> interesting[DIM];
  for (int d = 0; d < DIM; ++d) {
    std::vector<T> seeds = {band.lo[d], step(band.hi[d], -1)};
    for (int k = 0; k < NearCells<T, DIM>::kCells; ++k) {
      if (((cells.exists[d] >> k) & 1u) == 0) continue;
      for (T b : {cells.lo[d][k], cells.hi[d][k]})
        seeds.push_back(static_cast<T>(b - cells.add[d][k]));
    }
    for (T s : seeds)
      for (int u = -3; u <= 3; ++u) {
        const T x = step(s, u);
        if (std::isfinite(x) && x >= band.lo[d] && x < band.hi[d]) interesting[d].push_back(x);
      }
  }
  const int64_t n = 600;
  std::vector<T> pos(DIM * n);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int64_t i = 0; i < n; ++i)
    for (int d = 0; d < DIM; ++d) {
      T x;
      if (unit(rng) < 0.7 && !interesting[d].empty()) {
        x = interesting[d][rng() % interesting[d].size()];
      } else {
        x = static_cast<T>(g.edge(d, own[d]) + unit(rng) * g.h[d]);
        if (!(x >= band.lo[d] && x < band.hi[d])) x = band.lo[d];
      }
      pos[d * n + i] = x;
    }
  GhostCandidates<T, DIM> f{};
  f.g = g;
  f.width = width;
  f.me = me;
  for (int d = 0; d < DIM; ++d) f.own[d] = own[d];
  f.pos = pos.data();
  f.cap = n;
  for (int d = 0; d < DIM; ++d) f.inner.lo[d] = 1, f.inner.hi[d] = 0;  // empty: all examined
  f.cells = cells;
  std::vector<NearRecord<DIM>> rec_general(n), rec_fast(n);
  std::vector<int64_t> count_general(n), count_fast(n);
  typename GhostCandidates<T, DIM>::Input in;
  // The emitted entries of each path, reused from particle to particle (assign keeps the
  // capacity): an allocation per particle made this test 80x slower under AddressSanitizer.
  std::vector<int32_t> peer[3], shift[3], src_narrow[3];
  std::vector<int64_t> src_wide;
  f.use_cells = false;
  for (int64_t j = 0; j < n; ++j) {
    f.load(j, in);
    count_general[j] = f.examine(j, in, rec_general[j]);
  }
  f.use_cells = true;
  for (int64_t j = 0; j < n; ++j) {
    f.load(j, in);
    count_fast[j] = f.examine(j, in, rec_fast[j]);
  }

  for (int64_t j = 0; j < n; ++j) {
    ++tally.particles;
    tally.candidates += count_general[j];
    T xs[DIM];
    for (int d = 0; d < DIM; ++d) xs[d] = pos[d * n + j];
    if (band.contains(xs)) ++tally.fast;
    bool same = count_fast[j] == count_general[j] && rec_fast[j].i == rec_general[j].i;
    for (int d = 0; d < DIM; ++d) {
      same = same && rec_fast[j].mask[d] == rec_general[j].mask[d];
      // The first valid cell; meaningless (and free to differ) when there is none.
      same = same && (rec_fast[j].mask[d] == 0 || rec_fast[j].lo[d] == rec_general[j].lo[d]);
    }
    // A fast record and only a fast record has a cell word (what the count pass hands the
    // fill pass instead of the coordinates).
    const uint32_t word = f.cell_word(rec_fast[j]);
    if ((word != GhostCandidates<T, DIM>::kNoCellWord) != rec_fast[j].in_cells) {
      same = false;
      ++tally.word_mismatches;
    }
    // The entries both records emit (the fast one through the cell tables), and the fast
    // record rebuilt from its cell word: the same, in the same order. The general path writes
    // its sources as int64, the others as int32 (IndexList, both kinds).
    std::string entries;
    if (same && count_general[j] > 0) {
      const size_t k = static_cast<size_t>(count_general[j]);
      const int paths = rec_fast[j].in_cells ? 3 : 2;
      src_wide.assign(k + 1, -7);
      for (int path = 0; path < paths; ++path) {
        peer[path].assign(k + 1, -7);  // one guard entry each: nothing is written past k
        shift[path].assign(k + 1, -7);
        src_narrow[path].assign(k + 1, -7);
        f.peer = peer[path].data();
        f.src = path == 0 ? IndexList{src_wide.data(), false}
                          : IndexList{src_narrow[path].data(), true};
        f.shift = shift[path].data();
        if (path == 2)
          f.emit_in_cells(f.from_cell_word(j, word), 0);
        else
          f.emit(path == 0 ? rec_general[j] : rec_fast[j], 0);
      }
      f.peer = nullptr, f.src = IndexList{}, f.shift = nullptr;
      same = src_wide[k] == -7;
      for (size_t e = 0; e < k; ++e) same = same && src_wide[e] == j;
      for (int path = 1; path < paths; ++path) {
        same =
            same && peer[path] == peer[0] && shift[path] == shift[0] && src_narrow[path][k] == -7;
        for (size_t e = 0; e < k; ++e) same = same && src_narrow[path][e] == j;
      }
      same = same && peer[0][k] == -7 && shift[0][k] == -7;
      if (!same) entries = "; emitted entries differ";
      ++tally.emitted;
      if (paths == 3) ++tally.from_words;
    }
    if (!same && tally.mismatches.size() < 5) {
      std::ostringstream o;
      o.precision(std::numeric_limits<T>::max_digits10);
      o << DIM << "D " << (sizeof(T) == 4 ? "float" : "double") << " rank " << me << " width "
        << width << " x =";
      for (int d = 0; d < DIM; ++d) o << ' ' << xs[d];
      o << ": count fast " << count_fast[j] << " general " << count_general[j] << "; masks";
      for (int d = 0; d < DIM; ++d)
        o << ' ' << rec_fast[j].lo[d] << '/' << rec_fast[j].mask[d] << " vs "
          << rec_general[j].lo[d] << '/' << rec_general[j].mask[d];
      o << entries;
      tally.mismatches.push_back(o.str());
    }
  }
}

template <class T, int DIM>
void sweep(Tally& tally) {
  std::mt19937_64 rng(0x9e3779b97f4a7c15ull + DIM * 7 + sizeof(T));
  const int dims_choices[] = {1, 2, 3, 5};
  for (int dc = 0; dc < 4; ++dc)
    for (int periodic = 0; periodic < 2; ++periodic) {
      CartGrid g;
      g.dim = DIM;
      for (int d = 0; d < DIM; ++d) {
        g.dims[d] = dims_choices[(dc + d) % 4];
        g.lo[d] = -1.3 + 0.1 * d;  // not representable: the bounds round
        g.hi[d] = 2.7 + 0.37 * d;
        g.periodic[d] = (periodic + d) % 2;  // mixed boundaries
      }
      g.set_cells();
      int ranks = 1;
      for (int d = 0; d < DIM; ++d) ranks *= g.dims[d];
      double hmin = g.h[0];
      for (int d = 1; d < DIM; ++d) hmin = std::min(hmin, g.h[d]);
      for (double frac : {0.0, 1e-9, 0.01, 0.1, 0.3, 0.4999})
        for (int me = 0; me < ranks; ++me) compare_paths<T, DIM>(g, me, frac * hmin, rng, tally);
    }
}

}  // namespace

TEST_CASE("ghost candidates: the position-type fast path equals the general path",
          "[dist][ghost]") {
  Tally tally;
  sweep<float, 1>(tally);
  sweep<float, 2>(tally);
  sweep<float, 3>(tally);
  sweep<double, 1>(tally);
  sweep<double, 2>(tally);
  sweep<double, 3>(tally);
  sweep<float, 4>(tally);  // four dimensions fill every byte of a cell word
  sweep<double, 4>(tally);
  std::string report;
  for (const auto& m : tally.mismatches) report += "\n  " + m;
  INFO(tally.particles << " particles compared, " << tally.fast << " on the fast path, "
                       << tally.candidates << " candidates, " << tally.emitted
                       << " particles' entries compared (" << tally.from_words
                       << " also from cell words; " << tally.word_mismatches
                       << " cell words where there should be none or none where there should be"
                       << "); first mismatches:" << report);
  CHECK(tally.mismatches.empty());
  // The sweep must exercise the fast path and find candidates, or it proves nothing.
  CHECK(tally.fast > tally.particles / 2);
  CHECK(tally.candidates > tally.particles);
  CHECK(tally.emitted > tally.particles / 4);
  CHECK(tally.from_words > tally.emitted / 2);
}

TEST_CASE("the host plan's kept particles of a tile: every length, sparse and dense votes",
          "[dist][ghost]") {
  std::mt19937_64 rng(77);
  unsigned char vote[detail::kPlanTile];
  int32_t kept[detail::kPlanTile];
  for (int64_t len = 0; len <= detail::kPlanTile; ++len) {
    for (double p : {0.0, 0.02, 0.1, 0.5, 0.9, 1.0}) {
      std::bernoulli_distribution one(p);
      std::vector<int32_t> want;
      for (int64_t q = 0; q < detail::kPlanTile; ++q) {
        vote[q] = q < len ? (one(rng) ? 1 : 0) : 0xab;  // beyond len: garbage, to be ignored
        if (q < len && vote[q] != 0) want.push_back(static_cast<int32_t>(q));
      }
      const int64_t k = detail::kept_of_votes(vote, len, kept);
      REQUIRE(k == static_cast<int64_t>(want.size()));
      for (int64_t c = 0; c < k; ++c) REQUIRE(kept[c] == want[static_cast<size_t>(c)]);
    }
  }
}
