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
#elif defined(__POPCNT__)
  return __builtin_popcount(m);
#else
  // Without the popcnt instruction (x86-64 baseline builds) the builtin is a libgcc call; the
  // host's ghost candidate count takes three per particle.
  m = m - ((m >> 1) & 0x55555555u);
  m = (m & 0x33333333u) + ((m >> 2) & 0x33333333u);
  return static_cast<int>((((m + (m >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24);
#endif
}

}  // namespace pvec::impl
