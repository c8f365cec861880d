// White-box: CartGrid::wrap gives the exactly rounded x - k L (binary128 reference), for boxes
// that do not start at 0, where lo + ((x - lo) - k L) is up to a few ulp off.
#include "catch_compat.hpp"
#include "decomp/cartesian_grid.hpp"
#include "wrap_reference.hpp"

#include <cstdint>
#include <cmath>
#include <cstring>
#include <random>
#include <string>

using pvec::impl::CartGrid;

TEST_CASE("wrap is the exactly rounded x - k L", "[decomp]") {
  const double boxes[][2] = {
      {-0.5, 1.5}, {0.0, 1.0}, {-3.25, 0.1}, {1e3, 1e3 + 7.3}, {-1e-3, 2e-3}};
  std::mt19937_64 rng(42);
  int64_t checked = 0, differs_naive = 0;
  for (const auto& b : boxes) {
    CartGrid g;
    g.dim = 1;
    g.lo[0] = b[0];
    g.hi[0] = b[1];
    g.periodic[0] = 1;
    g.set_cells();
    const double L = b[1] - b[0];
    std::uniform_real_distribution<double> out(-5 * L, 5 * L);
    for (int i = 0; i < 200000; ++i) {
      double x = b[0] + out(rng);
      if (i % 1000 == 0) x = b[1];  // exactly hi wraps to lo
      if (i % 1000 == 1) x = b[0] - L;
      const double want = pvec_test::wrap_reference(x, b[0], b[1]);
      const double got = g.wrap(0, x);
      if (std::memcmp(&want, &got, sizeof got) != 0) {
        INFO("box [" << b[0] << ", " << b[1] << ") x = " << x);
        CHECK(got == want);
      }
      ++checked;
      const double y = x - b[0];
      const double naive = b[0] + (y - std::floor(y / L) * L);
      differs_naive += naive != want;
    }
  }
  CHECK(checked == 1000000);
  // The old formula differs often in boxes not starting at 0: the test can tell them apart.
  CHECK(differs_naive > 1000);
}

TEST_CASE("cuts: every point lies in the subdomain of its owner", "[decomp]") {
  CartGrid g;
  g.dim = 3;
  g.dims[0] = 4;
  g.dims[1] = 1;
  g.dims[2] = 3;
  for (int d = 0; d < 3; ++d) {
    g.lo[d] = -1.0 + d;
    g.hi[d] = 2.0 + 2 * d;
    g.periodic[d] = d != 1;
  }
  const double x_cuts[] = {-0.99, -0.25, 1.999};  // a thin first cell, a thin last one
  const double z_cuts[] = {2.0, 2.0 + 1e-9};      // a cell 1e-9 wide
  const double* interior[] = {x_cuts, nullptr, z_cuts};
  const char* why = nullptr;
  REQUIRE(pvec::impl::valid_cuts(g, 0, x_cuts, &why));
  REQUIRE(pvec::impl::valid_cuts(g, 2, z_cuts, &why));
  g.set_cuts(interior);
  CHECK(g.has_cuts(0));
  CHECK(!g.has_cuts(1));
  CHECK(g.edge(0, 0) == g.lo[0]);
  CHECK(g.edge(0, 2) == -0.25);
  CHECK(g.edge(0, 4) == g.hi[0]);
  CHECK(g.h[2] < 2e-9);  // the narrowest cell
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-1.5, 1.5);
  for (int k = 0; k < 20000; ++k) {
    double x[3];
    for (int d = 0; d < 3; ++d) {
      const double L = g.hi[d] - g.lo[d];
      x[d] = g.lo[d] + (0.5 + (k % 7 == 0 ? 0.0 : u(rng))) * L;  // in the box and beyond
      if (k % 5 == 0 && d == 0) x[d] = x_cuts[k % 3];            // exactly on a cut
      if (k % 11 == 0 && d == 2) x[d] = std::nextafter(z_cuts[1], 0.0);
      if (d == 1) x[d] = std::fmin(std::fmax(x[d], g.lo[d]), g.hi[d]);  // non-periodic
    }
    const int r = g.owner(x);
    REQUIRE((r >= 0 && r < 12));
    double lo[3], hi[3];
    g.subdomain(r, lo, hi);
    for (int d = 0; d < 3; ++d) {
      const double w = g.wrap(d, x[d]);
      const bool last = hi[d] == g.hi[d] && !g.periodic[d];
      INFO("point " << k << " dimension " << d << " x " << w);
      CHECK(w >= lo[d]);
      CHECK((w < hi[d] || (last && w == hi[d])));
      // cell_unclamped: the cell of the image in the box, shifted by whole periods.
      const int64_t u_cell = g.cell_unclamped(d, x[d]);
      const int64_t in_box = ((u_cell % g.dims[d]) + g.dims[d]) % g.dims[d];
      if (g.has_cuts(d) && g.periodic[d]) {
        const double lo_c = g.edge(d, static_cast<int>(in_box));
        const double hi_c = g.edge(d, static_cast<int>(in_box) + 1);
        CHECK((w >= lo_c - 1e-12 && w <= hi_c + 1e-12));  // up to rounding of x - k L
      }
    }
  }
}

TEST_CASE("valid_cuts refuses what no grid can use", "[decomp]") {
  CartGrid g;
  g.dim = 1;
  g.dims[0] = 3;
  g.lo[0] = 0;
  g.hi[0] = 1;
  const char* why = nullptr;
  const double ok[] = {0.2, 0.7}, flat[] = {0.5, 0.5}, out[] = {0.0, 0.5}, nan[] = {0.1, NAN};
  CHECK(pvec::impl::valid_cuts(g, 0, ok, &why));
  CHECK(why == nullptr);
  CHECK(!pvec::impl::valid_cuts(g, 0, flat, &why));
  CHECK(std::string(why).find("increasing") != std::string::npos);
  CHECK(!pvec::impl::valid_cuts(g, 0, out, &why));
  CHECK(!pvec::impl::valid_cuts(g, 0, nan, &why));
}
