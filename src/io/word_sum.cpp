// word_sum of io/row_checksum.hpp, alone in its file: bench/bench_io.cpp builds it in to time
// it beside the writes it serves. On x86-64 with GCC the loop is also compiled for AVX2 and
// the build is picked at the first call (the loop vectorizes, about twice as fast where memory
// allows). The choice is a plain function pointer, not an ifunc (target_clones): ifunc
// resolvers run before the sanitizer runtimes start and crash ThreadSanitizer builds.
#include "io/row_checksum.hpp"

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

uint64_t sum_default(const unsigned char* p, size_t nbytes, uint64_t k0) {
  return sum_body(p, nbytes, k0);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target("avx2"))) uint64_t sum_avx2(const unsigned char* p, size_t nbytes,
                                                  uint64_t k0) {
  return sum_body(p, nbytes, k0);
}
#endif

using SumFn = uint64_t (*)(const unsigned char*, size_t, uint64_t);

SumFn pick_sum() {
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2")) return sum_avx2;
#endif
  return sum_default;
}

}  // namespace

uint64_t word_sum(const unsigned char* p, size_t nbytes, uint64_t k0) {
  static const SumFn fn = pick_sum();
  return fn(p, nbytes, k0);
}

}  // namespace pvec::impl::io
