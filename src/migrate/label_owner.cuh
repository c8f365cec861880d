// LabelOwner: map's labelling pass (the owner of each particle), and MoverKeys, the sort keys
// of the movers it found.
#pragma once

#include "common/hd.hpp"
#include "decomp/band.hpp"
#include "decomp/cartesian_grid.hpp"

#include <pvec.h>

#include <cstdint>

namespace pvec::impl {

// dest[i] = rank owning particle i, or -1 when it is outside a non-periodic boundary or not
// finite. Returns the bits kOutside (dest -1), kMover (dest is not this rank, kOutside
// included) and kWrap (a periodic coordinate lies outside the box: WrapPositions has work),
// which for_each_count sums in the same pass.
template <class T, int DIM>
struct LabelOwner {
  static constexpr uint32_t kOutside = 1, kMover = 2, kWrap = 4;
  CartGrid g;
  const T* pos;
  int64_t cap;
  int32_t* dest;
  uint8_t* wrap_flag;  // 1 where WrapPositions has work
  int me;
  Band<T, DIM> own;  // this rank's subdomain: a particle inside stays, with no arithmetic
  // The host's for_each_count: operator() for items [i0, i0 + len) (len <= 32) into bits,
  // the own-subdomain test first for the whole tile, branch-free so that it vectorises (the
  // same comparisons as own.contains), operator() only for the particles outside it.
  void label_tile(int64_t i0, int len, uint32_t* bits) const {
    unsigned char in[32];
    for (int q = 0; q < len; ++q) {
      bool c = true;
      PVEC_UNROLL
      for (int d = 0; d < DIM; ++d) {
        const T x = pos[d * cap + i0 + q];
        c = c & (x >= own.lo[d]) & (x < own.hi[d]);
      }
      in[q] = c ? 1 : 0;
    }
    for (int q = 0; q < len; ++q) {
      if (in[q] != 0) {
        dest[i0 + q] = me;
        wrap_flag[i0 + q] = 0;
        bits[q] = 0;
      } else {
        bits[q] = (*this)(i0 + q);
      }
    }
  }

  PVEC_HD uint32_t operator()(int64_t i) const {
    T xs[DIM];
    PVEC_UNROLL
    for (int d = 0; d < DIM; ++d) xs[d] = load_ro(pos + d * cap + i);
    if (own.contains(xs)) {
      dest[i] = me;
      wrap_flag[i] = 0;
      return 0;
    }
    int r = 0;
    bool inside = true, wrap = false;
    PVEC_UNROLL
    for (int d = 0; d < DIM; ++d) {
      const T x = xs[d];
      const double xd = static_cast<double>(x);
      inside = inside && g.inside(d, xd);
      wrap = wrap || (g.periodic[d] && !(xd >= g.lo[d] && xd < g.hi[d]));
      int c = inside ? g.cell(d, static_cast<double>(wrap_stored(g, d, x))) : 0;
      r = r * g.dims[d] + c;
    }
    dest[i] = inside ? r : -1;
    wrap_flag[i] = inside && wrap ? 1 : 0;
    if (!inside) return kOutside | kMover;
    return (r != me ? kMover : 0u) | (wrap ? kWrap : 0u);
  }
};

// Sort keys of the movers: their destination, or P for particles being removed.
struct MoverKeys {
  const int32_t* dest;
  const int64_t* movers;
  int32_t* keys;
  int64_t* order;
  int32_t P;
  PVEC_HD void operator()(int64_t j) const {
    int32_t d = dest[movers[j]];
    keys[j] = d < 0 ? P : d;
    order[j] = movers[j];
  }
};

}  // namespace pvec::impl
