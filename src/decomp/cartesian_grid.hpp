// CartGrid: a box split into dims[0] x ... x dims[dim-1] equal subdomains, one per rank,
// rank = row-major cell index (last dimension fastest). A plain struct with PVEC_HD methods,
// passed by value into the labelling kernels.
#pragma once

#include "common/hd.hpp"

#include <pvec.h>

#include <cmath>
#include <cstdint>

namespace pvec::impl {

struct CartGrid {
  int dim = 1;
  int dims[PVEC_MAX_DIM] = {1, 1, 1, 1};
  double lo[PVEC_MAX_DIM] = {0, 0, 0, 0};
  double hi[PVEC_MAX_DIM] = {1, 1, 1, 1};
  int periodic[PVEC_MAX_DIM] = {0, 0, 0, 0};
  // Cell width and its inverse per dimension (set_cells), so that the labelling kernels
  // divide nothing.
  double h[PVEC_MAX_DIM] = {1, 1, 1, 1};
  double inv_h[PVEC_MAX_DIM] = {1, 1, 1, 1};

  // Call after dim, dims, lo and hi are set.
  void set_cells() {
    for (int d = 0; d < PVEC_MAX_DIM; ++d) {
      h[d] = (hi[d] - lo[d]) / dims[d];
      inv_h[d] = dims[d] / (hi[d] - lo[d]);
    }
  }

  PVEC_HD double length(int d) const { return hi[d] - lo[d]; }

  // Low edge of cell c along d (c may equal dims[d], giving hi). The one definition of the
  // subdomain boundaries: labelling, ghosts and pvec_vector_get_subdomain all use it.
  PVEC_HD double edge(int d, int c) const { return c >= dims[d] ? hi[d] : lo[d] + c * h[d]; }

  // Cell along d containing coordinate x (not clamped; may be outside [0, dims)).
  // Saturates at +-2^50 (NaN gives the low end), so that no cast or later +-1 overflows.
  PVEC_HD int64_t cell_unclamped(int d, double x) const {
    double f = std::floor((x - lo[d]) * inv_h[d]);
    const double limit = 1125899906842624.0;  // 2^50
    if (!(f > -limit)) f = -limit;
    if (f > limit) f = limit;
    return static_cast<int64_t>(f);
  }

  // Cell of an in-box coordinate, clamped so that x == hi (non-periodic) lands in the last.
  PVEC_HD int cell(int d, double x) const {
    int64_t c = cell_unclamped(d, x);
    if (c < 0) c = 0;
    if (c >= dims[d]) c = dims[d] - 1;
    // Rounding may put x one cell off near an edge: the edges decide.
    if (c > 0 && x < edge(d, static_cast<int>(c)))
      --c;
    else if (c + 1 < dims[d] && x >= edge(d, static_cast<int>(c + 1)))
      ++c;
    return static_cast<int>(c);
  }

  PVEC_HD int rank_of_cells(const int* c) const {
    int r = 0;
    for (int d = 0; d < dim; ++d) r = r * dims[d] + c[d];
    return r;
  }

  PVEC_HD void cells_of_rank(int rank, int* c) const {
    for (int d = dim - 1; d >= 0; --d) {
      c[d] = rank % dims[d];
      rank /= dims[d];
    }
  }

  // Wrap a periodic coordinate into [lo, hi): x - k L for the integer k that puts it there,
  // rounded once (a fused multiply-add), so the result is the exactly rounded x - k L, the
  // same value a ghost image x + s L of the other side gets. k is first floor((x - lo) / L)
  // and corrected by one when rounding put the quotient on the wrong side; a result that
  // rounds to hi is lo. Non-periodic coordinates, and coordinates in the box, are returned as
  // they are.
  PVEC_HD double wrap(int d, double x) const {
    if (!periodic[d] || (x >= lo[d] && x < hi[d])) return x;  // in the box: untouched
    const double L = length(d);
    double k = std::floor((x - lo[d]) / L);
    double w = std::fma(-k, L, x);
    if (w >= hi[d]) {
      k += 1;
      w = std::fma(-k, L, x);
    } else if (w < lo[d]) {
      k -= 1;
      w = std::fma(-k, L, x);
    }
    return w >= lo[d] && w < hi[d] ? w : lo[d];
  }

  // The decomposition interface (decomp/decomposition.hpp).
  // Subdomain of rank: the half-open box [lo, hi) per dimension (either may be null).
  PVEC_HD void subdomain(int rank, double* lo_out, double* hi_out) const {
    int c[PVEC_MAX_DIM] = {0, 0, 0, 0};
    cells_of_rank(rank, c);
    for (int d = 0; d < dim; ++d) {
      if (lo_out) lo_out[d] = edge(d, c[d]);
      if (hi_out) hi_out[d] = edge(d, c[d] + 1);
    }
  }
  // Rank owning point x, whose coordinates are inside() the domain (periodic ones are
  // wrapped here).
  PVEC_HD int owner(const double* x) const {
    int c[PVEC_MAX_DIM] = {0, 0, 0, 0};
    for (int d = 0; d < dim; ++d) c[d] = cell(d, wrap(d, x[d]));
    return rank_of_cells(c);
  }

  // Inside the domain after wrapping: finite, and within [lo, hi] where non-periodic.
  PVEC_HD bool inside(int d, double x) const {
    if (!(x == x) || x - x != 0) return false;  // NaN or +-Inf
    if (periodic[d]) return true;
    return x >= lo[d] && x <= hi[d];
  }
};

// Choose dims for `ranks` subdomains of the box, minimising the subdomain surface (so the
// ghost layer), preferring splits along long sides.
void choose_grid_dims(int ranks, int dim, const double* lengths, int* dims);

}  // namespace pvec::impl
