// Bit helpers for 32-bit masks, on the host and the device.
#pragma once

#include "common/hd.hpp"

#include <cstdint>

namespace pvec::impl {

PVEC_HD inline int lowest_bit(uint32_t m) {
#if defined(__CUDA_ARCH__)
  return __ffs(m) - 1;
#else
  return __builtin_ctz(m);
#endif
}
PVEC_HD inline int highest_bit(uint32_t m) {
#if defined(__CUDA_ARCH__)
  return 31 - __clz(m);
#else
  return 31 - __builtin_clz(m);
#endif
}
PVEC_HD inline int bit_count(uint32_t m) {
#if defined(__CUDA_ARCH__)
  return __popc(m);
#else
  return __builtin_popcount(m);
#endif
}

}  // namespace pvec::impl
