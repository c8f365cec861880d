#include "decomp/cartesian_grid.hpp"

#include <limits>

namespace pvec::impl {
namespace {
void search(int left, int d, int dim, const double* L, int* cur, double& best, int* out) {
  if (d == dim - 1) {
    cur[d] = left;
    // Surface of one subdomain: sum over faces of the product of the other sides.
    double surface = 0;
    for (int a = 0; a < dim; ++a) {
      double face = 1;
      for (int b = 0; b < dim; ++b)
        if (b != a) face *= L[b] / cur[b];
      surface += face;
    }
    if (dim == 1) surface = 1;
    if (surface < best * (1 - 1e-12)) {
      best = surface;
      for (int k = 0; k < dim; ++k) out[k] = cur[k];
    }
    return;
  }
  for (int f = 1; f <= left; ++f)
    if (left % f == 0) {
      cur[d] = f;
      search(left / f, d + 1, dim, L, cur, best, out);
    }
}
}  // namespace

void choose_grid_dims(int ranks, int dim, const double* lengths, int* dims) {
  int cur[PVEC_MAX_DIM] = {1, 1, 1, 1};
  double best = std::numeric_limits<double>::infinity();
  for (int d = 0; d < PVEC_MAX_DIM; ++d) dims[d] = 1;
  search(ranks, 0, dim, lengths, cur, best, dims);
}

}  // namespace pvec::impl
