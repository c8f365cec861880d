// select_values(exec, n, load, keep, out, tmp): for i in [0, n) in increasing order, writes
// v = load(i) to out when keep(v), and returns how many (synchronising the stream on the
// device). A template, so that the values are made and tested inside the selection pass
// (CUB's DeviceSelect::If over a transformed counting iterator) instead of going through
// arrays first: a caller can select records (an index with the data a later pass needs) in
// the one pass that reads the data. Include only from .cu files.
#pragma once

#include "backend/device.hpp"
#include "backend/exec.hpp"
#include "backend/primitives.hpp"
#include "core/error.hpp"
#include "memory/scratch_buffer.hpp"

#include <cstdint>

#if defined(__CUDACC__)
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#endif

namespace pvec::detail {

#if defined(__CUDACC__)
void check_cuda(cudaError_t err, const char* what);
#endif

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

}  // namespace pvec::detail
