// HaloOrder: the halo-first cell order of pvec_vector_sort (PVEC_SORT_HALO_FIRST). Along each
// dimension a cell of the sort's grid is low (it reaches into the band of one ghost width
// inside the subdomain's lower face), high (the same at the upper face) or inner; the cells
// fall into 3^dim groups by these classes, ordered with dimension 0 most significant and
// low < high < inner in each digit, so that the all-inner group comes last and the groups a
// face's neighbour needs (the same class along one dimension) are few runs of consecutive
// rows (one run for dimension 0). Within a group the cells are row-major. The key of a cell
// is its rank in this order: keys are a permutation of [0, ncells).
#pragma once

#include "common/hd.hpp"

#include <pvec_neighbors_view.hpp>

#include <cmath>
#include <cstdint>

namespace pvec::impl {

struct HaloOrder {
  bool enabled = false;
  // Per dimension: cells [0, a) are low, [b, dims) high, [a, b) inner (a <= b).
  int64_t a[3] = {0, 0, 0};
  int64_t b[3] = {1, 1, 1};
  int64_t first[27] = {};  // first key of each group
};

// The class digit (0 low, 1 high, 2 inner), first cell and cell count of cell coordinate c
// along d.
PVEC_HD inline int halo_class(const HaloOrder& h, int d, int64_t c) {
  return c < h.a[d] ? 0 : (c >= h.b[d] ? 1 : 2);
}
PVEC_HD inline int64_t halo_start(const HaloOrder& h, int d, int k) {
  return k == 0 ? 0 : (k == 1 ? h.b[d] : h.a[d]);
}
PVEC_HD inline int64_t halo_len(const HaloOrder& h, const int64_t* dims, int d, int k) {
  return k == 0 ? h.a[d] : (k == 1 ? dims[d] - h.b[d] : h.b[d] - h.a[d]);
}

// Rank of the cell at coordinates c (DIM of them) in the halo-first order.
template <int DIM>
PVEC_HD inline int64_t halo_key(const HaloOrder& h, const int64_t* dims, const int64_t* c) {
  int group = 0;
  int64_t within = 0;
  PVEC_UNROLL
  for (int d = 0; d < DIM; ++d) {
    const int k = halo_class(h, d, c[d]);
    group = group * 3 + k;
    within = within * halo_len(h, dims, d, k) + (c[d] - halo_start(h, d, k));
  }
  return h.first[group] + within;
}

// The order for grid g (the sort's grid: the subdomain widened by ghost_width on every side)
// and ghost width w: along d the low band is grid coordinates [w, 2w), the high band
// [extent - 2w, extent - w). With w = 0 every cell is inner (plain row-major order).
inline HaloOrder make_halo_order(const pvec::cell_list_view& g, double ghost_width) {
  HaloOrder h;
  h.enabled = true;
  for (int d = 0; d < 3; ++d) {
    if (d >= g.dim || !(ghost_width > 0)) {
      h.a[d] = 0;
      h.b[d] = g.dims[d];
      continue;
    }
    const double extent = g.width[d] * static_cast<double>(g.dims[d]);
    const double a = std::ceil(2 * ghost_width / g.width[d]);
    const double b = std::floor((extent - 2 * ghost_width) / g.width[d]);
    const double n = static_cast<double>(g.dims[d]);
    h.a[d] = static_cast<int64_t>(a < 0 ? 0 : (a > n ? n : a));
    h.b[d] = static_cast<int64_t>(b < 0 ? 0 : (b > n ? n : b));
    if (h.b[d] < h.a[d]) h.b[d] = h.a[d];  // a thin subdomain: low takes the shared cells
  }
  int groups = 1;
  for (int d = 0; d < g.dim; ++d) groups *= 3;
  int64_t next = 0;
  for (int q = 0; q < groups; ++q) {
    h.first[q] = next;
    int64_t size = 1;
    for (int d = g.dim - 1, r = q; d >= 0; --d, r /= 3) size *= halo_len(h, g.dims, d, r % 3);
    next += size;
  }
  return h;
}

}  // namespace pvec::impl
