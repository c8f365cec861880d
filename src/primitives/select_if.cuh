// Selections of indices on the host or the device (templates: the tests are made inside the
// selection passes). Include only from .cu files.
//
// select_values(exec, n, load, keep, out, tmp): for i in [0, n) in increasing order, writes
// v = load(i) to out when keep(v), and returns how many (synchronising the stream on the
// device). A template, so that the values are made and tested inside the selection pass
// (CUB's DeviceSelect::If over a transformed counting iterator) instead of going through
// arrays first (map's select_indices selects offset indices by a key through it).
#pragma once

#include "backend/device.hpp"
#include "backend/exec.hpp"
#include "backend/host_parallel.hpp"
#include "primitives/primitives.hpp"
#include "common/error.hpp"
#include "memory/scratch_buffer.hpp"

#include <algorithm>
#include <cstdint>

#if defined(__CUDACC__)
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#endif

namespace pvec::impl {

template <class Load, class Keep, class V>
int64_t select_values(const Exec& exec, int64_t n, Load load, Keep keep, V* out,
                      ScratchBuffer& tmp) {
  if (n <= 0) return 0;
  if (exec.on_device) {
#if defined(__CUDACC__)
    cudaStream_t s = static_cast<cudaStream_t>(exec.stream);
    auto in = thrust::make_transform_iterator(thrust::counting_iterator<int64_t>(0), load);
    size_t bytes = 0;
    check_cuda(cub::DeviceSelect::If(nullptr, bytes, in, out, static_cast<int64_t*>(nullptr),
                                     as_cub_count(n), keep, s),
               "cub::DeviceSelect::If");
    char* base = static_cast<char*>(tmp.ensure(bytes + 256));
    int64_t* d_count = reinterpret_cast<int64_t*>(base);
    check_cuda(cub::DeviceSelect::If(base + 256, bytes, in, out, d_count, as_cub_count(n), keep, s),
               "cub::DeviceSelect::If");
    int64_t h = 0;
    copy_bytes(&h, d_count, sizeof h, true, exec.stream);
    stream_synchronize(exec.stream);
    return h;
#else
    (void)tmp;
    fail(PVEC_ERROR_INTERNAL, "device execution requested in a file compiled without CUDA");
#endif
  }
  int64_t c = 0;
  for (int64_t i = 0; i < n; ++i) {
    const V v = load(i);
    if (keep(v)) out[c++] = v;
  }
  return c;
}

#if defined(__CUDACC__)
// select_where's first pass: bit b of words[w] = keep(32 w + b), a warp per word (32
// consecutive indices: coalesced loads), the bits gathered by a vote.
template <class Keep>
__global__ void vote_kernel(int64_t n, int64_t n_words, Keep keep, uint32_t* words) {
  const unsigned lane = threadIdx.x & 31u;
  const int64_t warps = static_cast<int64_t>(gridDim.x) * (blockDim.x / 32);
  for (int64_t w = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32; w < n_words;
       w += warps) {
    const int64_t i = 32 * w + lane;
    const unsigned bits = __ballot_sync(0xffffffffu, i < n && keep(i));
    if (lane == 0) words[w] = bits;
  }
}

// Queues vote_kernel over [0, n) into votes; returns the words ((n + 31) / 32 of them).
template <class Keep>
uint32_t* launch_votes(const Exec& exec, int64_t n, Keep keep, ScratchBuffer& votes) {
  const int64_t n_words = (n + 31) / 32;
  auto* words = votes.ensure_as<uint32_t>(std::max<int64_t>(n_words, 1));
  if (n_words > 0) {
    constexpr int kBlock = 256;
    int64_t blocks = (n_words * 32 + kBlock - 1) / kBlock;
    if (blocks > 4096) blocks = 4096;  // a grid-stride loop beyond: enough to fill a GPU
    vote_kernel<<<static_cast<unsigned>(blocks), kBlock, 0,
                  static_cast<cudaStream_t>(exec.stream)>>>(n, n_words, keep, words);
    check_launch("select_where vote kernel launch");
  }
  return words;
}

#endif

// select_where(exec, n, keep, out, votes, tmp): writes the i in [0, n) with keep(i) to out in
// increasing order and returns how many (synchronising the stream on the device). For a keep
// that reads data (several columns of a particle): on the device keep runs once per index in
// a pass with coalesced loads whose answers a warp vote packs 32 to a word (in votes); then
// voted_indices scans the words' bit counts and writes each word's indices at its offset,
// passes over n / 32 words. (select_values over a counting iterator hands each thread
// consecutive indices, so that a keep reading columns loads with a stride.)
template <class Keep>
int64_t select_where(const Exec& exec, int64_t n, Keep keep, IndexList out, ScratchBuffer& votes,
                     ScratchBuffer& tmp) {
  if (n <= 0) return 0;
  if (exec.on_device) {
#if defined(__CUDACC__)
    return voted_indices(exec, launch_votes(exec, n, keep, votes), (n + 31) / 32, out, tmp);
#else
    (void)votes;
    (void)tmp;
    fail(PVEC_ERROR_INTERNAL, "device execution requested in a file compiled without CUDA");
#endif
  }
  return host_select(n, keep, out);  // in order, on the host path's threads
}

// select_where without waiting for the answer (device only): how many indices there are is
// written to *count_dev, device memory, by the queued work. Work queued after it may read it
// there, and the host after the next synchronisation.
template <class Keep>
void select_where_async(const Exec& exec, int64_t n, Keep keep, IndexList out, ScratchBuffer& votes,
                        ScratchBuffer& tmp, int64_t* count_dev) {
#if defined(__CUDACC__)
  if (exec.on_device) {
    voted_indices_async(exec, launch_votes(exec, n, keep, votes), (n + 31) / 32, out, tmp,
                        count_dev);
    return;
  }
#endif
  (void)n, (void)keep, (void)out, (void)votes, (void)tmp, (void)count_dev;
  fail(PVEC_ERROR_INTERNAL, "select_where_async on the host");
}

}  // namespace pvec::impl
