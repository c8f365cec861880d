// make_cell_grid (cell_grid.hpp).
#include "neighbors/cell_grid.hpp"

#include "common/error.hpp"

#include <cmath>

namespace pvec::impl {

pvec::cell_list_view make_cell_grid(const NeighborInput& in, double cutoff, int span,
                                    const char* what, bool check_ghost_width) {
  const int dim = in.grid.dim;
  if (dim > 3)
    fail(PVEC_ERROR_NOT_SUPPORTED, "neighbour search is for 1, 2 and 3 dimensions; the vector has ",
         dim);
  if (!(cutoff > 0) || !std::isfinite(cutoff))
    fail(PVEC_ERROR_INVALID_ARGUMENT, what, " = ", cutoff, " must be positive and finite");
  if (check_ghost_width && in.ghost_width == 0)
    fail(PVEC_ERROR_INVALID_ARGUMENT,
         "the vector's ghost width is 0, so it can have no cell or "
         "Verlet list (",
         what, " = ", cutoff,
         "): create it with a ghost width of at least the "
         "cutoff, plus the skin of a Verlet list, also on one rank");
  if (check_ghost_width && cutoff > in.ghost_width)
    fail(PVEC_ERROR_INVALID_ARGUMENT, what, " = ", cutoff, " exceeds the vector's ghost width ",
         in.ghost_width,
         ": neighbours across a subdomain boundary would be missed (create the vector with a "
         "ghost width of at least the cutoff, plus the skin of a Verlet list)");
  if (span < 1 || span > 8)
    fail(PVEC_ERROR_INVALID_ARGUMENT, "cells per cutoff = ", span, " must be in [1, 8]");
  pvec::cell_list_view g{};
  g.dim = dim;
  g.span = span;
  double lo[PVEC_MAX_DIM], hi[PVEC_MAX_DIM];
  in.grid.subdomain(in.comm.rank(), lo, hi);
  // Cells a hair wider than cutoff / span, so that rounding in the cell coordinates (and the
  // distance test in float) never puts two particles closer than the cutoff more than span
  // cells apart.
  const double min_width = cutoff / span * (1 + 1e-6);
  int64_t ncells = 1;
  for (int d = 0; d < 3; ++d) {
    if (d >= dim) {
      g.origin[d] = 0;
      g.width[d] = g.inv_width[d] = 1;
      g.dims[d] = 1;
      continue;
    }
    const double a = lo[d] - in.ghost_width, b = hi[d] + in.ghost_width, extent = b - a;
    const double k = std::floor(extent / min_width);
    const int64_t n = k < 1 ? 1 : (k > 2e9 ? int64_t{2000000000} : static_cast<int64_t>(k));
    g.origin[d] = a;
    g.dims[d] = n;
    g.width[d] = extent / static_cast<double>(n);
    g.inv_width[d] = static_cast<double>(n) / extent;
    if (ncells > (int64_t{INT32_MAX} - 1) / n)
      fail(PVEC_ERROR_NOT_SUPPORTED, "a cell list of cutoff ", cutoff, " / ", span,
           " over this subdomain would have more than 2^31 - 1 cells; use a larger cutoff");
    ncells *= n;
  }
  g.ncells = ncells;
  return g;
}

}  // namespace pvec::impl
