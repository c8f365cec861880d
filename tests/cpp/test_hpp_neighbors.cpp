// C++ neighbour search: pvec::cell_list, pvec::verlet_list (pvec_neighbors.hpp) and
// pvec::vector::sort (pvec.hpp) wrap pvec.h section 10: views equal a brute-force reference,
// stale lists throw pvec::error with PVEC_ERROR_STATE naming the C++ caller, bad input throws
// with the C message, handles are released exactly once.
#include "catch_compat.hpp"
#include "hpp_test_util.hpp"

#include <pvec.hpp>
#include <pvec_neighbors.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

using hpp_test::require_error;

namespace {

static_assert(!std::is_copy_constructible<pvec::cell_list>::value, "cell_list is move-only");
static_assert(std::is_nothrow_move_constructible<pvec::cell_list>::value, "");
static_assert(std::is_nothrow_move_assignable<pvec::cell_list>::value, "");
static_assert(!std::is_copy_constructible<pvec::verlet_list>::value, "verlet_list is move-only");
static_assert(std::is_nothrow_move_constructible<pvec::verlet_list>::value, "");
static_assert(std::is_nothrow_move_assignable<pvec::verlet_list>::value, "");

constexpr double kGhost = 0.25;

// 400 uniform random particles in the periodic unit cube, mapped, with ghosts.
pvec::vector make_box(std::int64_t n = 400, unsigned seed = 3) {
  pvec::schema s;
  s.add_scalar<std::int64_t>("id");
  pvec::vector v(pvec::vector_desc()
                     .domain({0, 0, 0}, {1, 1, 1})
                     .periodic()
                     .ghost_width(kGhost)
                     .particles(n, PVEC_PLACE_LOCAL),
                 s);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  auto x = v.host_view<double>(PVEC_POS);
  auto id = v.host_view<std::int64_t>(0);
  for (std::int64_t i = 0; i < n; ++i) {
    for (int d = 0; d < 3; ++d) x(i, d) = u(rng);
    id(i) = i;
  }
  v.map();
  v.ghost_get();
  return v;
}

double dist2(const pvec::view<double>& x, std::int64_t i, std::int64_t j) {
  double r2 = 0;
  for (int d = 0; d < 3; ++d) {
    const double dx = x(j, d) - x(i, d);
    r2 += dx * dx;
  }
  return r2;
}

// Rows j != i of [0, total) closer than r to row i, ascending.
std::vector<std::int32_t> brute(const pvec::vector& v, std::int64_t i, double r) {
  const auto x = v.host_view<double>(PVEC_POS);
  const std::int64_t total = v.size() + v.ghost_size();
  std::vector<std::int32_t> out;
  for (std::int64_t j = 0; j < total; ++j)
    if (j != i && dist2(x, i, j) < r * r) out.push_back(static_cast<std::int32_t>(j));
  return out;
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("verlet_list view equals a brute-force reference", "[cpp][neighbors]") {
  pvec::vector v = make_box();
  const double rc = 0.15, skin = 0.05;
  pvec::verlet_list full(v, rc, skin);
  const pvec_verlet_info info = full.info();
  CHECK(info.half == 0);
  CHECK(info.cutoff == rc);
  CHECK(info.skin == skin);
  const pvec::verlet_view l = full.view();
  REQUIRE(l.n == v.size());
  CHECK(l.offsets[l.n] == info.n_pairs);
  for (std::int64_t i = 0; i < l.n; ++i) {
    std::vector<std::int32_t> got(l.neighbors + l.begin(i), l.neighbors + l.end(i));
    std::sort(got.begin(), got.end());
    REQUIRE(got == brute(v, i, rc + skin));
  }

  // A half list holds each pair once: its entries are half the full list's over local pairs
  // plus the ghost pairs this rank owns.
  pvec::verlet_list half(v, rc, skin, 1, PVEC_VERLET_HALF);
  const pvec::verlet_view h = half.view();
  CHECK(h.half != 0);
  std::int64_t local_full = 0, local_half = 0;
  for (std::int64_t i = 0; i < l.n; ++i) {
    for (std::int64_t e = l.begin(i); e < l.end(i); ++e) local_full += l[e] < v.size();
    for (std::int64_t e = h.begin(i); e < h.end(i); ++e) local_half += h[e] < v.size();
  }
  CHECK(local_full == 2 * local_half);
}

TEST_CASE("cell_list view finds every neighbour through for_each_near", "[cpp][neighbors]") {
  pvec::vector v = make_box();
  const double rc = 0.2;
  for (int per : {1, 2}) {
    pvec::cell_list cl(v, rc, per, PVEC_CELLS_GHOSTS);
    const pvec_cell_list_info info = cl.info();
    const pvec::cell_list_view c = cl.view();
    CHECK(c.dim == 3);
    CHECK(c.span == info.span);
    CHECK(c.ncells == info.ncells);
    CHECK(c.n_entries == v.size() + v.ghost_size());
    CHECK(c.cell_offsets[c.ncells] == c.n_entries);
    const auto x = v.host_view<double>(PVEC_POS);
    for (std::int64_t i = 0; i < v.size(); ++i) {
      const double xi[3] = {x(i, 0), x(i, 1), x(i, 2)};
      std::vector<std::int32_t> got;
      c.for_each_near(xi, [&](std::int32_t j) {
        if (j != i && dist2(x, i, j) < rc * rc) got.push_back(j);
      });
      std::sort(got.begin(), got.end());
      REQUIRE(got == brute(v, i, rc));
    }
  }
}

TEST_CASE("sort reports whether rows moved and makes lists stale", "[cpp][neighbors]") {
  pvec::vector v = make_box();
  pvec::verlet_list nl(v, 0.1, 0.02);
  pvec::cell_list cl(v, 0.1);
  const std::uint64_t gen = v.generation();
  CHECK(v.sort(0.1, PVEC_SORT_MORTON | PVEC_SORT_BOTH_MIRRORS));
  CHECK(v.generation() != gen);
  CHECK_FALSE(v.sort(0.1, PVEC_SORT_MORTON));  // in cell order already: nothing moves
  CHECK(v.sort(0.1));                          // row-major order of cells, the cell list's
  CHECK_FALSE(v.sort(0.1));

  std::string m = require_error([&] { nl.view(); }, PVEC_ERROR_STATE);
  CHECK(contains(m, "pvec::verlet_list::view"));
  m = require_error([&] { cl.view(); }, PVEC_ERROR_STATE);
  CHECK(contains(m, "pvec::cell_list::view"));
  require_error([&] { nl.info(); }, PVEC_ERROR_STATE);
  CHECK(nl.check());  // a stale list asks for a rebuild

  v.ghost_get();  // sort forgot the ghost plan
  nl.build();
  cl.build();
  CHECK(nl.view().n == v.size());
  CHECK(cl.view().sorted != 0);  // locals of cell c are rows local_offsets[c]..
  CHECK_FALSE(nl.check());

  // A ghost_get that replays its plan keeps the rows: lists stay current.
  v.ghost_get(PVEC_GHOST_REUSE_PLAN);
  CHECK(nl.view().n == v.size());
  // Growth makes them stale.
  v.append(1);
  require_error([&] { nl.view(); }, PVEC_ERROR_STATE);
}

TEST_CASE("check is true exactly when a particle moved more than skin/2", "[cpp][neighbors]") {
  pvec::vector v = make_box();
  const double skin = 0.04;
  pvec::verlet_list nl(v, 0.1, skin);
  CHECK_FALSE(nl.check());
  auto x = v.host_view<double>(PVEC_POS);
  const double x0 = x(0, 0);
  x(0, 0) = x0 + 0.4 * skin;
  CHECK_FALSE(nl.check());
  x(0, 0) = x0 + 0.6 * skin;
  CHECK(nl.check());
}

TEST_CASE("bad input throws pvec::error with the message", "[cpp][neighbors][errors]") {
  pvec::vector v = make_box(100);
  std::string m = require_error([&] { pvec::cell_list(v, -1.0); }, PVEC_ERROR_INVALID_ARGUMENT);
  CHECK(contains(m, "pvec::cell_list: "));
  m = require_error([&] { pvec::verlet_list(v, 0.2, 0.1); }, PVEC_ERROR_INVALID_ARGUMENT);
  CHECK(contains(m, "pvec::verlet_list: "));
  CHECK(contains(m, "ghost"));  // cutoff + skin above the ghost width
  require_error([&] { pvec::cell_list(v, 0.1, 9); }, PVEC_ERROR_INVALID_ARGUMENT);
  m = require_error([&] { v.sort(0.0); }, PVEC_ERROR_INVALID_ARGUMENT);
  CHECK(contains(m, "pvec::vector::sort: "));
  require_error([&] { v.sort(0.1, 1u << 20); }, PVEC_ERROR_INVALID_ARGUMENT);

  pvec::vector empty;
  require_error([&] { pvec::cell_list(empty, 0.1); }, PVEC_ERROR_INVALID_HANDLE);
  pvec::verlet_list none;
  CHECK_FALSE(none);
  require_error([&] { none.view(); }, PVEC_ERROR_INVALID_HANDLE);
  require_error([&] { none.build(); }, PVEC_ERROR_INVALID_HANDLE);
  require_error([&] { none.check(); }, PVEC_ERROR_INVALID_HANDLE);
  pvec::cell_list no_cells;
  require_error([&] { no_cells.info(); }, PVEC_ERROR_INVALID_HANDLE);
}

TEST_CASE("lists release their handle once; moves transfer it", "[cpp][neighbors][raii]") {
  pvec::vector v = make_box(100);
  pvec_verlet_t raw = nullptr;
  {
    pvec::verlet_list a(v, 0.1, 0.02);
    raw = a.get();
    pvec::verlet_list b(std::move(a));
    CHECK_FALSE(a);
    CHECK(b.get() == raw);
    pvec::verlet_list c;
    c = std::move(b);
    CHECK(c.view().n == v.size());
  }
  pvec_verlet_info info = PVEC_VERLET_INFO_INIT;
  CHECK(pvec_verlet_get_info(raw, &info) == PVEC_ERROR_INVALID_HANDLE);

  pvec_cell_list_t rc = nullptr;
  {
    pvec::cell_list a(v, 0.1);
    rc = a.release();
  }
  pvec_cell_list_info ci = PVEC_CELL_LIST_INFO_INIT;
  CHECK(pvec_cell_list_get_info(rc, &ci) == PVEC_SUCCESS);  // release() did not destroy it
  CHECK(pvec_cell_list_destroy(rc) == PVEC_SUCCESS);

  // A list outliving its vector reports INVALID_HANDLE instead of reading freed rows.
  pvec::cell_list orphan(v, 0.1);
  v.reset();
  require_error([&] { orphan.build(); }, PVEC_ERROR_INVALID_HANDLE);
}
