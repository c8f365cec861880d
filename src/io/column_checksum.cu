// column_checksum (column_checksum.hpp). Element (i, c) of a column of ncomp components is
// file word i * ncomp + c of its row block (4-byte elements), or words 2 (i * ncomp + c) and
// the next (8-byte elements, low half first: the little-endian bytes). A build without CUDA
// compiles this file as C++ (only the host path).
#include "io/column_checksum.hpp"

#include "backend/device.hpp"
#include "backend/host_parallel.hpp"
#include "common/error.hpp"
#include "common/hd.hpp"
#include "io/row_checksum.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#if defined(__CUDACC__)
#include <cub/device/device_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#endif

namespace pvec::impl::io {
namespace {

// One word's term of the checksum (row_checksum.hpp).
PVEC_HD inline uint64_t term(uint32_t w, uint64_t k) {
  const uint64_t x =
      static_cast<uint64_t>(w ^ static_cast<uint32_t>(static_cast<uint32_t>(k) * 0x9E3779B9u)) *
      0xCC9E2D51u;
  return x ^ (x >> 32);
}

// The terms of element e (e = i * ncomp + c) of a column: base[c * cap + i].
template <class E>
struct ElementTerm {
  const E* base;
  int64_t cap;
  int64_t ncomp;
  uint64_t k0;
  PVEC_HD uint64_t operator()(int64_t e) const {
    const int64_t i = e / ncomp, c = e - i * ncomp;
    const E v = base[c * cap + i];
    if constexpr (sizeof(E) == 4) {
      return term(static_cast<uint32_t>(v), k0 + static_cast<uint64_t>(e));
    } else {
      const uint64_t k = k0 + 2 * static_cast<uint64_t>(e);
      return term(static_cast<uint32_t>(v), k) + term(static_cast<uint32_t>(v >> 32), k + 1);
    }
  }
};

// Rows [a, b) of every component, one component after the other: streams each component's
// rows (element (i, c) is word i * ncomp + c, or two words from twice it), through the
// vectorized strided sums of io/word_sum.cpp (only the low 32 bits of an index matter).
template <class E>
uint64_t host_rows(const E* base, int64_t cap, int64_t a, int64_t b, int64_t ncomp, uint64_t k0) {
  constexpr uint32_t kStep = 0x9E3779B9u;
  constexpr uint64_t kWords = sizeof(E) / 4;
  const uint32_t da = static_cast<uint32_t>(kWords * static_cast<uint64_t>(ncomp)) * kStep;
  uint64_t s = 0;
  for (int64_t c = 0; c < ncomp; ++c) {
    const uint64_t k = k0 + kWords * static_cast<uint64_t>(a * ncomp + c);
    const uint32_t a0 = static_cast<uint32_t>(k) * kStep;
    const size_t n = static_cast<size_t>(b - a);
    if constexpr (sizeof(E) == 4)
      s += strided_sum32(base + c * cap + a, n, a0, da);
    else
      s += strided_sum64(base + c * cap + a, n, a0, da);
  }
  return s;
}

template <class E>
uint64_t host_sum(const E* base, int64_t cap, int64_t n, int64_t ncomp, uint64_t k0) {
  std::vector<uint64_t> part(static_cast<size_t>(std::max(1, host_threads())), 0);
  struct Ctx {
    const E* base;
    int64_t cap, ncomp;
    uint64_t k0;
    uint64_t* part;
  } ctx{base, cap, ncomp, k0, part.data()};
  host_ranges(
      n, int64_t{1} << 13,
      [](void* p, int64_t a, int64_t b, int thread) {
        const Ctx& x = *static_cast<Ctx*>(p);
        x.part[thread] = host_rows(x.base, x.cap, a, b, x.ncomp, x.k0);
      },
      &ctx);
  uint64_t s = 0;
  for (const uint64_t v : part) s += v;
  return s;
}

#if defined(__CUDACC__)
template <class E>
uint64_t device_sum(const E* base, int64_t cap, int64_t n, int64_t ncomp, uint64_t k0,
                    ScratchBuffer& scratch, void* stream) {
  cudaStream_t st = static_cast<cudaStream_t>(stream);
  const int64_t items = n * ncomp;
  constexpr int64_t kChunk = int64_t{1} << 30;  // CUB counts in int
  uint64_t total = 0;
  for (int64_t at = 0; at < items; at += kChunk) {
    const int count = static_cast<int>(std::min(kChunk, items - at));
    thrust::transform_iterator<ElementTerm<E>, thrust::counting_iterator<int64_t>, uint64_t> in(
        thrust::counting_iterator<int64_t>(at), ElementTerm<E>{base, cap, ncomp, k0});
    size_t bytes = 0;
    if (cub::DeviceReduce::Sum(nullptr, bytes, in, static_cast<uint64_t*>(nullptr), count, st) !=
        cudaSuccess)
      fail(PVEC_ERROR_CUDA, "checkpoint checksum: temporary storage");
    unsigned char* tmp = static_cast<unsigned char*>(scratch.ensure(bytes + 64));
    uint64_t* out = reinterpret_cast<uint64_t*>(tmp + ((bytes + 7) / 8) * 8);
    if (cub::DeviceReduce::Sum(tmp, bytes, in, out, count, st) != cudaSuccess)
      fail(PVEC_ERROR_CUDA, "checkpoint checksum: reduction");
    uint64_t part = 0;
    copy_bytes(&part, out, sizeof part, true, stream);
    stream_synchronize(stream);
    total += part;
  }
  return total;
}
#endif

}  // namespace

uint64_t column_checksum(const ParticleSet& ps, int col, bool device, int64_t n, uint64_t k0,
                         ScratchBuffer& scratch) {
  if (n <= 0) return 0;
  const PropertyBuffer& c = ps.column(col);
  const int64_t cap = ps.capacity(), nc = c.spec.ncomp;
  const void* base = c.mirror(device);
  const bool four = c.spec.elem_size == 4;
  if (device && ps.cuda()) {
#if defined(__CUDACC__)
    return four ? device_sum(static_cast<const uint32_t*>(base), cap, n, nc, k0, scratch,
                             ps.stream())
                : device_sum(static_cast<const uint64_t*>(base), cap, n, nc, k0, scratch,
                             ps.stream());
#else
    (void)scratch;
    fail(PVEC_ERROR_INTERNAL, "checkpoint checksum of a device mirror without CUDA");
#endif
  }
  return four ? host_sum(static_cast<const uint32_t*>(base), cap, n, nc, k0)
              : host_sum(static_cast<const uint64_t*>(base), cap, n, nc, k0);
}

}  // namespace pvec::impl::io
