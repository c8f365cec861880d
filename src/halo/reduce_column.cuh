// ReduceColumn: ghost_put's combination of received ghost values into their sources.
#pragma once

#include "common/hd.hpp"
#include "common/index_list.hpp"
#include "exchange/block_index.cuh"

#include <pvec.h>

#include <cstdint>
#include <cstring>

namespace pvec::impl {

template <class T>
PVEC_HD T combined(T old, T v, int op) {
  switch (op) {
    case PVEC_REDUCE_ADD:
      // Integers wrap around (two's complement) instead of overflowing into undefined
      // behaviour.
      if constexpr (std::is_integral<T>::value) {
        using U = typename std::make_unsigned<T>::type;
        return static_cast<T>(static_cast<U>(old) + static_cast<U>(v));
      } else {
        return old + v;
      }
    case PVEC_REDUCE_MIN:
      return v < old ? v : old;
    case PVEC_REDUCE_MAX:
      return v > old ? v : old;
    default:
      return v;
  }
}

// Several ghosts may copy one particle, so on the device the combination is atomic: a
// compare-and-swap loop on the element's bits works for every dtype and operation.
template <class T>
PVEC_HD void combine(T* target, T v, int op) {
#if defined(__CUDA_ARCH__)
  using Bits = typename std::conditional<sizeof(T) == 4, unsigned int, unsigned long long>::type;
  Bits* addr = reinterpret_cast<Bits*>(target);
  Bits old = *addr, assumed;
  do {
    assumed = old;
    T cur;
    memcpy(&cur, &assumed, sizeof(T));
    T next = combined(cur, v, op);
    Bits next_bits;
    memcpy(&next_bits, &next, sizeof(T));
    old = atomicCAS(addr, assumed, next_bits);
  } while (old != assumed);
#else
  *target = combined(*target, v, op);
#endif
}

// Ghost entry j's received values combined into its source particle. Entries of this rank's
// own periodic images are in no message: their values are read from their ghost rows. The device
// path; the host runs halo/ghost_put_host.hpp's ranges of source rows, in the same order per row.
template <class T>
struct ReduceColumn {
  BlockIndex at;
  char* buf;
  IndexList dst_idx;
  T* col;
  int64_t cap;
  int64_t ncomp;
  int64_t prefix;
  int op;
  PVEC_HD void operator()(int64_t j) const {
    int64_t stride = 0;
    const T* src = reinterpret_cast<const T*>(
        at.slot(j, buf).at(reinterpret_cast<char*>(col), cap, prefix, sizeof(T), stride));
    const int64_t d = dst_idx[j];
    for (int64_t c = 0; c < ncomp; ++c) combine(&col[c * cap + d], src[c * stride], op);
  }
};

}  // namespace pvec::impl
