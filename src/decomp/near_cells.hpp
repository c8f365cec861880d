// NearCells: the fast path's table of the candidate cells own-2 .. own+2 per dimension, for
// the ghost candidates of a particle inside this rank's subdomain.
#pragma once

#include "common/hd.hpp"
#include "decomp/band.hpp"
#include "decomp/cartesian_grid.hpp"

#include <cstdint>

namespace pvec::impl {

// The fast path of GhostCandidates' count, for a ghost width below half of every subdomain
// width and a particle inside this rank's subdomain: along each dimension only the unwrapped
// cells own-2 .. own+2 can be candidates (the general path examines a subset of them), so
// their tests are precomputed here in the position type. Cell k (unwrapped own-2+k) exists
// when bit k of exists[d] is set; the coordinate it tests is x + add[d][k], added in T
// exactly as PackRows shifts it (add is 0 without a shift), and it is a candidate when
// lo[d][k] <= that < hi[d][k]: the widened subdomain's bounds rounded up to T, which gives
// the same answer as the double comparison of the general path (see Band).
template <class T, int DIM>
struct NearCells {
  static constexpr int kCells = 5;
  T lo[DIM][kCells];
  T hi[DIM][kCells];
  T add[DIM][kCells];
  uint32_t exists[DIM];
  int32_t cell[DIM][kCells];   // where cell k exists: its wrapped cell along d
  uint32_t code[DIM][kCells];  // and its periodic shift, in byte d as PackRows reads it
  Band<T, DIM> own;            // this rank's subdomain
};

}  // namespace pvec::impl
