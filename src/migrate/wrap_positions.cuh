// WrapPositions: map's wrap of periodic coordinates into the box, for the particles
// LabelOwner flagged.
#pragma once

#include "common/hd.hpp"
#include "decomp/band.hpp"
#include "decomp/cartesian_grid.hpp"

#include <cstdint>
#include <cstring>

namespace pvec::impl {

template <class T>
PVEC_HD T wrap_stored(const CartGrid& g, int d, T x) {
  if (!g.periodic[d]) return x;
  const double xd = static_cast<double>(x);
  if (xd >= g.lo[d] && xd < g.hi[d]) return x;  // in the box: bit for bit unchanged
  T t = static_cast<T>(g.wrap(d, xd));
  // Rounding to T may leave the box: at or above hi the point is lo, below lo it is lo.
  if (static_cast<double>(t) >= g.hi[d] || static_cast<double>(t) < g.lo[d])
    t = ceil_to<T>(g.lo[d]);
  return t;
}

// Wraps the periodic coordinates of the particles LabelOwner flagged: one pass over the flags
// (a byte per particle) touching the positions only where flagged, with no selection of a list
// first and no count to wait for. Element c covers the kWrapChunk particles from kWrapChunk*c
// with one 16-byte load of their flags (a thread per flag would spend the pass launching
// blocks); the flag array is padded to a multiple of kWrapChunk bytes.
constexpr int64_t kWrapChunk = 16;
template <class T, int DIM>
struct WrapPositions {
  CartGrid g;
  T* pos;
  int64_t cap;
  const uint8_t* flag;
  int64_t n;
  PVEC_HD void operator()(int64_t c) const {
    uint64_t f[2];
#if defined(__CUDA_ARCH__)
    const uint4 v = reinterpret_cast<const uint4*>(flag)[c];
    f[0] = (static_cast<uint64_t>(v.y) << 32) | v.x;
    f[1] = (static_cast<uint64_t>(v.w) << 32) | v.z;
#else
    std::memcpy(f, flag + kWrapChunk * c, sizeof f);
#endif
    if ((f[0] | f[1]) == 0) return;
    for (int k = 0; k < kWrapChunk; ++k) {
      if (((f[k / 8] >> (8 * (k % 8))) & 0xffu) == 0) continue;
      const int64_t i = kWrapChunk * c + k;
      if (i >= n) break;  // the padding
      PVEC_UNROLL
      for (int d = 0; d < DIM; ++d)
        if (g.periodic[d]) {
          const T x = pos[d * cap + i];
          const T w = wrap_stored(g, d, x);
          if (!(w == x)) pos[d * cap + i] = w;
        }
    }
  }
};

}  // namespace pvec::impl
