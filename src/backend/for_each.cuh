// for_each(exec, n, f): calls f(i) for i in [0, n). A CUDA launch on the vector's stream when
// exec.on_device (in files compiled by nvcc), a plain loop otherwise. Element functions are
// written once, marked PVEC_HD, so the host backend (and CI) runs the logic the GPU runs.
// Include only from .cu files: they are compiled as CUDA when the CUDA backend is built and
// as C++ otherwise.
#pragma once

#include "backend/device.hpp"
#include "backend/exec.hpp"
#include "backend/host_parallel.hpp"
#include "common/error.hpp"

#include <algorithm>
#include <cstdint>

#include "common/hd.hpp"

#if defined(__CUDACC__)
#include <cuda_runtime_api.h>
#endif

namespace pvec::impl {

#if defined(__CUDACC__)
template <class F>
__global__ void for_each_kernel(int64_t n, F f) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    f(i);
}
#endif

template <class F>
void for_each(const Exec& exec, int64_t n, F f) {
  if (n <= 0) return;
  if (exec.on_device) {
#if defined(__CUDACC__)
    constexpr int kBlock = 256;
    int64_t blocks = (n + kBlock - 1) / kBlock;
    if (blocks > (int64_t{1} << 30)) blocks = int64_t{1} << 30;
    for_each_kernel<<<static_cast<unsigned>(blocks), kBlock, 0,
                      static_cast<cudaStream_t>(exec.stream)>>>(n, f);
    check_launch("for_each kernel launch");
    return;
#else
    fail(PVEC_ERROR_INTERNAL, "device execution requested in a file compiled without CUDA");
#endif
  }
  for (int64_t i = 0; i < n; ++i) f(i);
}

// for_each for element functions whose items are independent (each writes only its own
// outputs, in any order): the same launch on the device; on the host, parallel ranges
// (host_for) instead of the serial loop.
template <class F>
void for_each_unordered(const Exec& exec, int64_t n, F f) {
  if (exec.on_device) {
    for_each(exec, n, f);
    return;
  }
  host_for(n, f, kHostRowGrain);
}

}  // namespace pvec::impl
