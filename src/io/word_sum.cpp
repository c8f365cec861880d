// word_sum and the strided sums of io/row_checksum.hpp, alone in their file: bench/bench_io.cpp
// builds it in to time it beside the writes it serves. On x86-64 with GCC the loop is also compiled
// for AVX2 and the build is picked at the first call (the loop vectorizes, about twice as fast
// where memory allows). The choice is a plain function pointer, not an ifunc (target_clones): ifunc
// resolvers run before the sanitizer runtimes start and crash ThreadSanitizer builds.
#include "io/row_checksum.hpp"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define PVEC_SUM_AVX2 1  // the loops are also compiled for AVX2, picked at the first call
#endif

namespace pvec::impl::io {
namespace {

inline __attribute__((always_inline)) uint64_t sum_body(const unsigned char* p, size_t nbytes,
                                                        uint64_t k0) {
  constexpr uint32_t kStep = 0x9E3779B9u;
  constexpr uint64_t kMul = 0xCC9E2D51u;
  const size_t n = nbytes / 4;
  const uint32_t a0 = static_cast<uint32_t>(k0) * kStep;
  uint64_t s = 0;
  for (size_t i = 0; i < n; ++i) {
    uint32_t w;
    __builtin_memcpy(&w, p + 4 * i, 4);
    const uint64_t x = static_cast<uint64_t>(w ^ (a0 + static_cast<uint32_t>(i) * kStep)) * kMul;
    s += x ^ (x >> 32);
  }
  return s;
}

// One component of a column: element i's index term is a0 + i * da; 8-byte elements add the
// term of their high word at the next index (+ 0x9E3779B9).
template <class E>
inline __attribute__((always_inline)) uint64_t strided_body(const E* v, size_t n, uint32_t a0,
                                                            uint32_t da) {
  constexpr uint32_t kStep = 0x9E3779B9u;
  constexpr uint64_t kMul = 0xCC9E2D51u;
  uint64_t s = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint32_t a = a0 + static_cast<uint32_t>(i) * da;
    const uint64_t x = static_cast<uint64_t>(static_cast<uint32_t>(v[i]) ^ a) * kMul;
    s += x ^ (x >> 32);
    if constexpr (sizeof(E) == 8) {
      const uint64_t y =
          static_cast<uint64_t>(static_cast<uint32_t>(v[i] >> 32) ^ (a + kStep)) * kMul;
      s += y ^ (y >> 32);
    }
  }
  return s;
}

uint64_t sum_default(const unsigned char* p, size_t nbytes, uint64_t k0) {
  return sum_body(p, nbytes, k0);
}
uint64_t strided32_default(const uint32_t* v, size_t n, uint32_t a0, uint32_t da) {
  return strided_body(v, n, a0, da);
}
uint64_t strided64_default(const uint64_t* v, size_t n, uint32_t a0, uint32_t da) {
  return strided_body(v, n, a0, da);
}

#if defined(PVEC_SUM_AVX2)
__attribute__((target("avx2"))) uint64_t sum_avx2(const unsigned char* p, size_t nbytes,
                                                  uint64_t k0) {
  return sum_body(p, nbytes, k0);
}
__attribute__((target("avx2"))) uint64_t strided32_avx2(const uint32_t* v, size_t n, uint32_t a0,
                                                        uint32_t da) {
  return strided_body(v, n, a0, da);
}
__attribute__((target("avx2"))) uint64_t strided64_avx2(const uint64_t* v, size_t n, uint32_t a0,
                                                        uint32_t da) {
  return strided_body(v, n, a0, da);
}
#endif

// The AVX2 build of a sum where the CPU has AVX2, else the default build.
template <class Fn>
Fn pick(Fn fallback, [[maybe_unused]] Fn avx2) {
#if defined(PVEC_SUM_AVX2)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2")) return avx2;
#endif
  return fallback;
}

#if defined(PVEC_SUM_AVX2)
#define PVEC_SUM_BUILDS(name) name##_default, name##_avx2
#else
#define PVEC_SUM_BUILDS(name) name##_default, name##_default
#endif

}  // namespace

uint64_t word_sum(const unsigned char* p, size_t nbytes, uint64_t k0) {
  static const auto fn = pick(PVEC_SUM_BUILDS(sum));
  return fn(p, nbytes, k0);
}

uint64_t strided_sum32(const uint32_t* v, size_t n, uint32_t a0, uint32_t da) {
  static const auto fn = pick(PVEC_SUM_BUILDS(strided32));
  return fn(v, n, a0, da);
}

uint64_t strided_sum64(const uint64_t* v, size_t n, uint32_t a0, uint32_t da) {
  static const auto fn = pick(PVEC_SUM_BUILDS(strided64));
  return fn(v, n, a0, da);
}

}  // namespace pvec::impl::io
