// word_sum of io/row_checksum.hpp, alone in its file: bench/bench_io.cpp builds it in to time
// it beside the writes it serves. On x86-64 with GCC it is also compiled for AVX2 and picked
// at load time (the loop vectorizes, about twice as fast where memory allows).
#include "io/row_checksum.hpp"

namespace pvec::impl::io {

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
uint64_t
word_sum(const unsigned char* p, size_t nbytes, uint64_t k0) {
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

}  // namespace pvec::impl::io
