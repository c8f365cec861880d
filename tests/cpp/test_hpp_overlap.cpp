// pvec.hpp's split-phase ghost exchange: ghost_get_begin / _end and ghost_put_begin / _end give
// bitwise the blocking calls' rows (new plan, replayed plan with listed properties, ghost_put
// of listed and of every property), and calls that must wait throw pvec::error STATE.
#include "catch_compat.hpp"
#include "hpp_test_util.hpp"

#include <pvec.hpp>

#include <cstdint>
#include <cstring>

using hpp_test::require_error;

namespace {

// One of two vectors with the same 300 particles in the periodic unit cube (id, val, w), mapped.
pvec::vector make_twin() {
  pvec::schema s;
  s.add_scalar<std::int64_t>("id");
  s.add_scalar<double>("val");
  s.add_scalar<double>("w");
  const std::int64_t n = 300;
  pvec::vector v(pvec::vector_desc()
                     .domain({0, 0, 0}, {1, 1, 1})
                     .periodic()
                     .ghost_width(0.15)
                     .particles(n, PVEC_PLACE_LOCAL),
                 s);
  auto x = v.host_view<double>(PVEC_POS);
  auto id = v.host_view<std::int64_t>(0);
  auto val = v.host_view<double>(1);
  for (std::int64_t i = 0; i < n; ++i) {
    const double k = static_cast<double>(i);
    x(i, 0) = k * 0.6180339887 - static_cast<double>(static_cast<std::int64_t>(k * 0.6180339887));
    x(i, 1) = k * 0.4142135623 - static_cast<double>(static_cast<std::int64_t>(k * 0.4142135623));
    x(i, 2) = k * 0.7320508075 - static_cast<double>(static_cast<std::int64_t>(k * 0.7320508075));
    id(i) = i;
    val(i) = 10.0 * k;
  }
  v.map();
  return v;
}

// Rows [first, last) of the positions and the three properties are equal, bit for bit.
void require_same_rows(const pvec::vector& a, const pvec::vector& b, std::int64_t first,
                       std::int64_t last) {
  const auto xa = a.host_view<double>(PVEC_POS), xb = b.host_view<double>(PVEC_POS);
  const auto ia = a.host_view<std::int64_t>(0), ib = b.host_view<std::int64_t>(0);
  const auto va = a.host_view<double>(1), vb = b.host_view<double>(1);
  const auto wa = a.host_view<double>(2), wb = b.host_view<double>(2);
  for (std::int64_t i = first; i < last; ++i) {
    INFO("row " << i);
    for (int d = 0; d < 3; ++d) REQUIRE(std::memcmp(&xa(i, d), &xb(i, d), sizeof(double)) == 0);
    REQUIRE(ia(i) == ib(i));
    REQUIRE(std::memcmp(&va(i), &vb(i), sizeof(double)) == 0);
    REQUIRE(std::memcmp(&wa(i), &wb(i), sizeof(double)) == 0);
  }
}

}  // namespace

TEST_CASE("split-phase ghost_get and ghost_put equal the blocking calls", "[cpp][overlap]") {
  pvec::vector a = make_twin(), b = make_twin();
  REQUIRE(a.size() == b.size());
  const std::int64_t n = a.size();

  // A new plan, every property: blocking on a, split on b.
  a.ghost_get();
  b.ghost_get_begin();
  CHECK(b.ghost_size() == 0);  // the previous count until end
  const std::uint64_t gen = b.generation();
  require_error([&] { b.map(); }, PVEC_ERROR_STATE);
  require_error([&] { b.ghost_get(); }, PVEC_ERROR_STATE);
  require_error([&] { b.ghost_get_begin(); }, PVEC_ERROR_STATE);
  require_error([&] { b.ghost_put_begin(); }, PVEC_ERROR_STATE);
  require_error([&] { b.ghost_put_end(); }, PVEC_ERROR_STATE);  // a ghost_get is in flight
  CHECK(b.size() == n);                                         // queries work
  b.ghost_get_end();
  CHECK(b.generation() == gen);  // end invalidates nothing
  REQUIRE(a.ghost_size() > 0);   // a 0.15 halo in a periodic box has periodic images
  REQUIRE(b.ghost_size() == a.ghost_size());
  require_same_rows(a, b, 0, n + a.ghost_size());
  require_error([&] { b.ghost_get_end(); }, PVEC_ERROR_STATE);  // nothing in flight now

  // The listed properties with the plan replayed (the initializer_list overloads).
  for (pvec::vector* v : {&a, &b}) {
    auto val = v->host_view<double>(1);
    for (std::int64_t i = 0; i < n; ++i) val(i) = -val(i);
  }
  a.ghost_get({1}, PVEC_GHOST_REUSE_PLAN);
  b.ghost_get_begin({1}, PVEC_GHOST_REUSE_PLAN);
  b.ghost_get_end();
  REQUIRE(b.ghost_size() == a.ghost_size());
  const std::int64_t g = a.ghost_size();
  require_same_rows(a, b, 0, n + g);

  // ghost_put of one listed property, then of every property with another op.
  for (pvec::vector* v : {&a, &b}) {
    auto w = v->host_view<double>(2);
    for (std::int64_t i = 0; i < n; ++i) w(i) = 0.5;
    for (std::int64_t i = n; i < n + g; ++i) w(i) = 1.0 + static_cast<double>(i % 7);
  }
  a.ghost_put({2}, PVEC_REDUCE_ADD);
  b.ghost_put_begin({2}, PVEC_REDUCE_ADD);
  require_error([&] { b.map(); }, PVEC_ERROR_STATE);
  require_error([&] { b.ghost_get_end(); }, PVEC_ERROR_STATE);  // a ghost_put is in flight
  b.ghost_put_end();
  require_same_rows(a, b, 0, n + g);
  a.ghost_put(PVEC_REDUCE_MAX);
  b.ghost_put_begin(PVEC_REDUCE_MAX);
  b.ghost_put_end();
  require_same_rows(a, b, 0, n + g);
  require_error([&] { b.ghost_put_end(); }, PVEC_ERROR_STATE);

  // Nothing in flight: map runs again.
  b.map();
}
