// Band: an axis-aligned box with bounds in the position type, so that the position kernels
// test coordinates with a few comparisons in T and no conversion.
#pragma once

#include "common/hd.hpp"
#include "decomp/cartesian_grid.hpp"

#include <cmath>

namespace pvec::impl {

// A periodic coordinate wrapped into [lo, hi) as stored in T (rounding to T can land on hi,
// which belongs to the low end).
PVEC_HD inline float next_up(float x) { return ::nextafterf(x, INFINITY); }
PVEC_HD inline double next_up(double x) { return ::nextafter(x, static_cast<double>(INFINITY)); }

// Smallest T not below v.
template <class T>
PVEC_HD T ceil_to(double v) {
  T t = static_cast<T>(v);
  return static_cast<double>(t) < v ? next_up(t) : t;
}

// An axis-aligned band [lo_d, hi_d) per dimension with bounds stored in the position type:
// for x of type T and a double bound b, x >= b exactly when x >= ceil_to<T>(b) (and likewise
// for <), so the test is a few comparisons in T, no conversion and no double arithmetic.
// Built on the host (band_of) for the fast paths of the position kernels.
template <class T, int DIM>
struct Band {
  T lo[DIM];
  T hi[DIM];
  // All coordinates inside (false for NaN).
  PVEC_HD bool contains(const T* x) const {
    bool in = true;
    PVEC_UNROLL
    for (int d = 0; d < DIM; ++d) in = in && x[d] >= lo[d] && x[d] < hi[d];
    return in;
  }
};

template <class T, int DIM>
Band<T, DIM> band_of(const double* lo, const double* hi) {
  Band<T, DIM> b;
  for (int d = 0; d < DIM; ++d) {
    b.lo[d] = ceil_to<T>(lo[d]);
    b.hi[d] = ceil_to<T>(hi[d]);
  }
  return b;
}

// This rank's subdomain as a Band: the particles LabelOwner can label without arithmetic.
template <class T, int DIM>
Band<T, DIM> own_band(const CartGrid& g, int me) {
  int c[PVEC_MAX_DIM] = {0, 0, 0, 0};
  g.cells_of_rank(me, c);
  double lo[DIM], hi[DIM];
  for (int d = 0; d < DIM; ++d) {
    lo[d] = g.edge(d, c[d]);
    hi[d] = g.edge(d, c[d] + 1);
  }
  return band_of<T, DIM>(lo, hi);
}

// The subdomain shrunk by the ghost width on every side with a neighbour: a particle inside
// is a ghost nowhere (GhostNear). Non-periodic domain boundaries have no neighbour; across a
// periodic one the images are tested on coordinates rounded to T, so the band gives way by a
// few units in the last place there.
template <class T, int DIM>
Band<T, DIM> inner_band(const CartGrid& g, int me, double width) {
  int c[PVEC_MAX_DIM] = {0, 0, 0, 0};
  g.cells_of_rank(me, c);
  const double eps = sizeof(T) == 4 ? 1.1920928955078125e-7 : 2.220446049250313e-16;
  double lo[DIM], hi[DIM];
  for (int d = 0; d < DIM; ++d) {
    const double slack = 4 * eps * (std::fabs(g.lo[d]) + std::fabs(g.hi[d]) + g.length(d));
    const bool first = c[d] == 0, last = c[d] == g.dims[d] - 1;
    lo[d] = g.edge(d, c[d]) + (first && !g.periodic[d] ? 0 : width + (first ? slack : 0));
    hi[d] = g.edge(d, c[d] + 1) - (last && !g.periodic[d] ? 0 : width + (last ? slack : 0));
  }
  return band_of<T, DIM>(lo, hi);
}

}  // namespace pvec::impl
