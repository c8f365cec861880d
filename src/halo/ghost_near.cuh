// GhostNear: whether a particle may be a ghost anywhere (the selection before the candidates).
#pragma once

#include "common/hd.hpp"
#include "decomp/band.hpp"

#include <cstdint>

namespace pvec::impl {

// Whether particle i may be a ghost anywhere: false only when it lies in this rank's
// subdomain shrunk by the ghost width on every side that has a neighbour (`inner`, see
// inner_band in distribution.cu), so that every dimension leaves it one candidate, its own
// cell. Across a periodic boundary the candidate test runs on the shifted coordinate rounded
// to T, so there the band is shrunk by a few more units in the last place and
// GhostCandidates' exact test has the last word.
template <class T, int DIM>
struct GhostNear {
  Band<T, DIM> inner;
  const T* pos;
  int64_t cap;
  PVEC_HD bool operator()(int64_t i) const {
    T xs[DIM];
    PVEC_UNROLL
    for (int d = 0; d < DIM; ++d) xs[d] = load_ro(pos + d * cap + i);
    return !inner.contains(xs);
  }
  // The host's select (host_select): operator() for items [i0, i0 + len) into vote, with
  // the same comparisons, written branch-free so that the compiler vectorises the loop.
  void vote(int64_t i0, int64_t len, unsigned char* out) const {
    for (int64_t q = 0; q < len; ++q) {
      bool in = true;
      PVEC_UNROLL
      for (int d = 0; d < DIM; ++d) {
        const T x = pos[d * cap + i0 + q];
        in = in & (x >= inner.lo[d]) & (x < inner.hi[d]);
      }
      out[q] = in ? 0 : 1;
    }
  }
};

}  // namespace pvec::impl
