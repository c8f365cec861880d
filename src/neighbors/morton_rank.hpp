// The Morton (Z-order) rank of a cell: its position along the Z curve among the cells of the
// grid, in [0, ncells). The locality sort keys rows by it, so that its buckets are the grid's
// cells (work memory O(rows + cells)) rather than the Z curve's code space, which for a long
// thin grid is far larger (530 x 30 x 30 cells span 2^30 codes).
#pragma once

#include "common/hd.hpp"

#include <cstdint>

namespace pvec::impl {

// The Z curve interleaves the coordinates' bits, level b (from the top) before level b - 1 and,
// within a level, dimension 0 first. The cells whose codes come before cell c's are, for each
// 1 bit of c's code (level b, dimension d), those that share c's code above that bit and have
// 0 there: a box that fixes the bits above level b of every coordinate, bit b of the
// coordinates k <= d (k < d as c's, d's as 0), and leaves the rest free. Each such box meets
// the grid [0, dims) in a product of intervals, which is counted directly: O(bits x DIM^2)
// per cell, no table of the code space.
template <int DIM>
PVEC_HD inline int64_t morton_rank(const int64_t* c, const int64_t* dims, int bits) {
  int64_t rank = 0;
  for (int b = bits - 1; b >= 0; --b)
    for (int d = 0; d < DIM; ++d) {
      if (((c[d] >> b) & 1) == 0) continue;
      int64_t count = 1;
      for (int k = 0; k < DIM && count > 0; ++k) {
        const int shift = k < d ? b : b + 1;  // bits of coordinate k fixed from here up
        const int64_t lo = (c[k] >> shift) << shift;
        const int64_t hi = lo + (int64_t{1} << (k > d ? b + 1 : b));
        const int64_t top = hi < dims[k] ? hi : dims[k];
        count *= top > lo ? top - lo : 0;
      }
      rank += count;
    }
  return rank;
}

// rank[c] = morton_rank of row-major cell c, for every cell (a for_each body).
template <int DIM>
struct MortonRankTable {
  int64_t dims[3];
  int bits;
  int32_t* rank;
  PVEC_HD void operator()(int64_t cell) const {
    int64_t c[3] = {0, 0, 0};
    int64_t r = cell;
    for (int d = DIM - 1; d >= 0; --d) {
      c[d] = r % dims[d];
      r /= dims[d];
    }
    rank[cell] = static_cast<int32_t>(morton_rank<DIM>(c, dims, bits));
  }
};

}  // namespace pvec::impl
