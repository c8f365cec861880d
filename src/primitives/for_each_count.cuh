// for_each_count(exec, n, f, tmp, counts): for_each whose element function answers with bits,
// counted in the same pass (and optionally voted into words). Include only from .cu files.
#pragma once

#include "backend/device.hpp"
#include "backend/exec.hpp"
#include "backend/for_each.cuh"
#include "common/error.hpp"
#include "common/hd.hpp"
#include "memory/scratch_buffer.hpp"

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>

#if defined(__CUDACC__)
#include <cuda_runtime_api.h>
#endif

namespace pvec::impl {

#if defined(__CUDACC__)
// Per thread sums in registers, then a warp shuffle, then one atomic per warp: with the grid
// capped (for_each_count) that is a few thousand atomics per counter, whatever n is.
// At most 40 registers (6 blocks of 256 per multiprocessor): the labelling pass is bound by
// the loads in flight, so occupancy matters more than its rarely taken slow path.
// A warp takes 32 consecutive indices at a time, so that with votes bit vote_bit of the
// answers of indices 32 w .. 32 w + 31 is packed into votes[w] by one ballot.
template <int K, class F>
__global__ void __launch_bounds__(256, 6)
    for_each_count_kernel(int64_t n, F f, unsigned long long* counts, uint32_t* votes,
                          int vote_bit) {
  unsigned mine[K];  // a thread sees at most n / (grid size) elements
#pragma unroll
  for (int k = 0; k < K; ++k) mine[k] = 0;
  const unsigned lane = threadIdx.x & 31u;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t base = static_cast<int64_t>(blockIdx.x) * blockDim.x + (threadIdx.x & ~31u);
       base < n; base += stride) {
    const int64_t i = base + lane;
    const uint32_t bits = i < n ? f(i) : 0u;
#pragma unroll
    for (int k = 0; k < K; ++k) mine[k] += (bits >> k) & 1u;
    if (votes != nullptr) {
      const unsigned word = __ballot_sync(0xffffffffu, (bits >> vote_bit) & 1u);
      if (lane == 0) votes[base / 32] = word;
    }
  }
#pragma unroll
  for (int k = 0; k < K; ++k) {
    unsigned long long v = mine[k];
    for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
    if (lane == 0 && v != 0) atomicAdd(&counts[k], v);
  }
}
#endif

// for_each_count(exec, n, f, tmp, counts): calls f(i) for i in [0, n) like for_each, where
// f returns a set of bits, and sets counts[k] to the number of calls that set bit k. One
// pass over the data instead of a pass per count. Synchronises the stream (the counts are
// read back); tmp holds the device counters. With votes (ceil(n / 32) words), bit b of
// votes[w] is also set to bit vote_bit of f(32 w + b) (0 past n), in the same pass: the
// words voted_indices turns into a list of indices.
// Whether F has label_tile(i0, len, bits): f(i0 + q) for q < len <= 32 into bits[q].
template <class F, class = void>
struct has_label_tile : std::false_type {};
template <class F>
struct has_label_tile<F, std::void_t<decltype(std::declval<const F&>().label_tile(
                             int64_t{}, 0, static_cast<uint32_t*>(nullptr)))>> : std::true_type {};

template <int K, class F>
void for_each_count(const Exec& exec, int64_t n, F f, ScratchBuffer& tmp, int64_t (&counts)[K],
                    uint32_t* votes = nullptr, int vote_bit = 0) {
  for (int k = 0; k < K; ++k) counts[k] = 0;
  if (n <= 0) return;
  if (exec.on_device) {
#if defined(__CUDACC__)
    constexpr int kBlock = 256;
    int64_t blocks = (n + kBlock - 1) / kBlock;
    if (blocks > 2048) blocks = 2048;  // several waves on any current GPU
    auto* d = static_cast<unsigned long long*>(tmp.ensure(K * sizeof(unsigned long long)));
    zero_2d(d, K * sizeof(unsigned long long), K * sizeof(unsigned long long), 1, true,
            exec.stream);
    for_each_count_kernel<K>
        <<<static_cast<unsigned>(blocks), kBlock, 0, static_cast<cudaStream_t>(exec.stream)>>>(
            n, f, d, votes, vote_bit);
    check_launch("for_each_count kernel launch");
    unsigned long long h[K];
    copy_bytes(h, d, sizeof h, true, exec.stream);
    stream_synchronize(exec.stream);
    for (int k = 0; k < K; ++k) counts[k] = static_cast<int64_t>(h[k]);
    return;
#else
    (void)tmp;
    fail(PVEC_ERROR_INTERNAL, "device execution requested in a file compiled without CUDA");
#endif
  }
  // The host: ranges of words in parallel (f writes only item i's outputs), each with its own
  // counts, summed after (integers: the same at any thread count). The words are taken in
  // spread order (host_parallel.hpp), blocks of 8192 items, so that items of f's slow path
  // (map's movers) that gather in one stretch of indices are shared by the ranges.
  constexpr int64_t kSpreadWords = 256;
  struct Ctx {
    const F* f;
    int64_t n, n_words;
    uint32_t* votes;
    int vote_bit;
    SpreadOrder order;
    int64_t counts[kHostMaxThreads][K];
  };
  const int64_t n_words = (n + 31) / 32;
  Ctx ctx{&f, n, n_words, votes, vote_bit, SpreadOrder(n_words, kSpreadWords), {}};
  auto body = [](void* c, int64_t v0, int64_t v1, int t) {
    Ctx& x = *static_cast<Ctx*>(c);
    int64_t local[K] = {};
    spread_runs(x.order, v0, v1, x.n_words, [&](int64_t w0, int64_t w1) {
      for (int64_t w = w0; w < w1; ++w) {  // 32 indices at a time, as a warp takes them
        uint32_t word = 0;
        const int64_t end = std::min(x.n, 32 * w + 32);
        uint32_t got[32];
        const int len = static_cast<int>(end - 32 * w);
        if constexpr (has_label_tile<F>::value)
          x.f->label_tile(32 * w, len, got);  // f's own loop over the word (LabelOwner's)
        else
          for (int q = 0; q < len; ++q) got[q] = (*x.f)(32 * w + q);
        for (int q = 0; q < len; ++q) {
          const uint32_t bits = got[q];
          for (int k = 0; k < K; ++k) local[k] += (bits >> k) & 1u;
          word |= ((bits >> x.vote_bit) & 1u) << q;
        }
        if (x.votes != nullptr) x.votes[w] = word;
      }
    });
    for (int k = 0; k < K; ++k) x.counts[t][k] = local[k];
  };
  const int ranges = host_ranges(n_words, kHostGrain / 32, body, &ctx);
  for (int t = 0; t < ranges; ++t)
    for (int k = 0; k < K; ++k) counts[k] += ctx.counts[t][k];
}

}  // namespace pvec::impl
