// CartGrid: a box split into dims[0] x ... x dims[dim-1] subdomains, one per rank, rank =
// row-major cell index (last dimension fastest). The cells of a dimension are equal, or, after a
// rebalance (balance/), bounded by cuts of its own: a rectilinear grid whose cut planes follow
// the particles (set_cuts). A plain struct with PVEC_HD methods, passed by value into the
// labelling kernels; the cuts live in it (kMaxCuts), so kernels need no other memory.
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
  // divide nothing. With cuts, h is the narrowest cell's width (what the ghost fast path
  // needs to know) and inv_h is unused.
  double h[PVEC_MAX_DIM] = {1, 1, 1, 1};
  double inv_h[PVEC_MAX_DIM] = {1, 1, 1, 1};
  // Cuts: the interior edges of dimension d, when it has its own (cut_at[d] >= 0), are
  // cuts[cut_at[d]] .. cuts[cut_at[d] + dims[d] - 2], increasing, inside (lo, hi).
  static constexpr int kMaxCuts = 128;
  int cut_at[PVEC_MAX_DIM] = {-1, -1, -1, -1};
  double cuts[kMaxCuts] = {};

  // Equal cells in every dimension. Call after dim, dims, lo and hi are set.
  void set_cells() {
    for (int d = 0; d < PVEC_MAX_DIM; ++d) {
      cut_at[d] = -1;
      h[d] = (hi[d] - lo[d]) / dims[d];
      inv_h[d] = dims[d] / (hi[d] - lo[d]);
    }
  }

  // Cells bounded by given cuts: interior[d] holds dims[d] - 1 increasing values inside
  // (lo[d], hi[d]) (null, or dims[d] == 1: equal cells along d). The caller checks the
  // values (valid_cuts) and that they fit (sum of dims[d] - 1 <= kMaxCuts).
  void set_cuts(const double* const* interior) {
    set_cells();
    int at = 0;
    for (int d = 0; d < dim; ++d) {
      if (interior == nullptr || interior[d] == nullptr || dims[d] == 1) continue;
      cut_at[d] = at;
      double narrow = hi[d] - lo[d];
      for (int c = 0; c + 1 < dims[d]; ++c) cuts[at + c] = interior[d][c];
      for (int c = 0; c < dims[d]; ++c) {
        const double w = edge(d, c + 1) - edge(d, c);
        if (w < narrow) narrow = w;
      }
      h[d] = narrow;
      at += dims[d] - 1;
    }
  }

  // Whether o splits the same box into the same subdomains (every edge equal).
  bool same_boxes(const CartGrid& o) const {
    if (dim != o.dim) return false;
    for (int d = 0; d < dim; ++d) {
      if (dims[d] != o.dims[d] || lo[d] != o.lo[d] || hi[d] != o.hi[d] ||
          periodic[d] != o.periodic[d])
        return false;
      for (int c = 1; c < dims[d]; ++c)
        if (edge(d, c) != o.edge(d, c)) return false;
    }
    return true;
  }

  // Whether dimension d has cuts of its own (else equal cells).
  PVEC_HD bool has_cuts(int d) const { return cut_at[d] >= 0; }

  PVEC_HD double length(int d) const { return hi[d] - lo[d]; }

  // Low edge of cell c along d (0 <= c <= dims[d]; dims[d] gives hi). The one definition of
  // the subdomain boundaries: labelling, ghosts and pvec_vector_get_subdomain all use it.
  PVEC_HD double edge(int d, int c) const {
    if (c >= dims[d]) return hi[d];
    if (cut_at[d] < 0) return lo[d] + c * h[d];
    return c <= 0 ? lo[d] : cuts[cut_at[d] + c - 1];
  }

  // Cell along d containing coordinate x (not clamped; may be outside [0, dims)).
  // Saturates at +-2^50 (NaN gives the low end), so that no cast or later +-1 overflows.
  // With cuts, outside the box: the cell of the periodic image in the box, k dims[d] away
  // for the image k box lengths away (exact up to a cell, which is what the callers need:
  // they widen the range by one and test the edges).
  PVEC_HD int64_t cell_unclamped(int d, double x) const {
    const double limit = 1125899906842624.0;  // 2^50
    if (cut_at[d] >= 0) {
      double k = std::floor((x - lo[d]) / length(d));
      if (!(k > -limit / dims[d])) k = -limit / dims[d];
      if (k > limit / dims[d]) k = limit / dims[d];
      double xin = x - k * length(d);
      if (!(xin >= lo[d])) xin = lo[d];
      if (xin >= hi[d]) xin = hi[d];
      return static_cast<int64_t>(k) * dims[d] + search_cut(d, xin);
    }
    double f = std::floor((x - lo[d]) * inv_h[d]);
    if (!(f > -limit)) f = -limit;
    if (f > limit) f = limit;
    return static_cast<int64_t>(f);
  }

  // With cuts: the cell c in [0, dims) with edge(d, c) <= x < edge(d, c + 1), x in [lo, hi]
  // (hi gives the last cell).
  PVEC_HD int search_cut(int d, double x) const {
    int a = 0, b = dims[d] - 1;  // the answer lies in [a, b]
    while (a < b) {
      const int m = (a + b + 1) / 2;
      if (x >= cuts[cut_at[d] + m - 1])
        a = m;
      else
        b = m - 1;
    }
    return a;
  }

  // Cell of an in-box coordinate, clamped so that x == hi (non-periodic) lands in the last.
  PVEC_HD int cell(int d, double x) const {
    if (cut_at[d] >= 0) return search_cut(d, x >= lo[d] ? (x < hi[d] ? x : hi[d]) : lo[d]);
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

// Whether interior cuts of dimension d suit g (dims[d] - 1 finite values, strictly increasing,
// strictly inside (lo, hi)); why not in *why when not null.
inline bool valid_cuts(const CartGrid& g, int d, const double* interior, const char** why) {
  const char* problem = nullptr;
  for (int c = 0; c + 1 < g.dims[d] && problem == nullptr; ++c) {
    const double x = interior[c];
    if (!std::isfinite(x))
      problem = "a cut is not finite";
    else if (!(x > g.lo[d] && x < g.hi[d]))
      problem = "a cut is not strictly inside the domain";
    else if (c > 0 && !(x > interior[c - 1]))
      problem = "the cuts are not strictly increasing";
  }
  if (why != nullptr) *why = problem;
  return problem == nullptr;
}

}  // namespace pvec::impl
