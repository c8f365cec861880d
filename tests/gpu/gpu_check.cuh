// Helpers shared by the GPU tests.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "catch_compat.hpp"

// Requires a CUDA runtime call to succeed, naming the error otherwise.
#define PVEC_CUDA_REQUIRE(call)                                \
  do {                                                         \
    const cudaError_t pvec_cuda_err_ = (call);                 \
    INFO(#call << ": " << cudaGetErrorString(pvec_cuda_err_)); \
    REQUIRE(pvec_cuda_err_ == cudaSuccess);                    \
  } while (0)

// Requires the last kernel launch to have started and finished without error.
#define PVEC_KERNEL_REQUIRE()                   \
  do {                                          \
    PVEC_CUDA_REQUIRE(cudaGetLastError());      \
    PVEC_CUDA_REQUIRE(cudaDeviceSynchronize()); \
  } while (0)

namespace pvec_gpu_test {

constexpr int kThreads = 128;

// Blocks needed for one thread per particle.
inline unsigned blocks_for(std::int64_t n) {
  return static_cast<unsigned>((n + kThreads - 1) / kThreads);
}

// Particle index of the calling thread.
__device__ inline std::int64_t thread_index() {
  return static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

}  // namespace pvec_gpu_test
