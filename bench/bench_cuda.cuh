// CUDA helpers of the benchmark programs: error checks, the no-device skip, event timing.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "bench_common.hpp"

namespace bench {

inline void cuda_check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "FAIL: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}
#define BENCH_CUDA(call) ::bench::cuda_check((call), #call)

// True when a CUDA device is usable. The CUDA programs print the agreed line and exit 0
// otherwise, so their --quick CTest runs pass on machines without a GPU.
inline bool cuda_device_present() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no device" error
    return false;
  }
  int pvec_n = 0;
  if (pvec_cuda_device_count(&pvec_n) != PVEC_SUCCESS) return false;
  return n > 0 && pvec_n > 0;
}

// Makes this runtime use the device that holds ptr (pvec chose it in pvec_init from the
// node-local rank; the benchmark's CUDA runtime must agree before launching on pvec data).
inline void use_device_of(const void* ptr) {
  cudaPointerAttributes attr{};
  BENCH_CUDA(cudaPointerGetAttributes(&attr, ptr));
  if (attr.type == cudaMemoryTypeDevice) BENCH_CUDA(cudaSetDevice(attr.device));
}

// Makes this runtime use the device pvec_init chose for this process (it may differ from
// device 0: PVEC_DEVICE, or the node-local rank), so raw baselines share pvec's device.
inline void adopt_pvec_device() {
  pvec_schema_t s = nullptr;
  BENCH_PVEC(pvec_schema_create(&s));
  pvec_vector_desc d = PVEC_VECTOR_DESC_INIT;
  d.dim = 1;
  d.n_particles = 64;
  d.backend = PVEC_BACKEND_CUDA;
  d.host_memory = PVEC_HOST_PAGEABLE;
  pvec_vector_t v = nullptr;
  BENCH_PVEC(pvec_vector_create(&d, s, &v));
  use_device_of(pvec_device_ptr(v, PVEC_POS));
  BENCH_PVEC(pvec_vector_destroy(v));
  BENCH_PVEC(pvec_schema_destroy(s));
}

// The start of every CUDA benchmark's main after its arguments: false (having printed the
// agreed skip line and finalised pvec) when no CUDA device is usable, so that the program
// returns 0; otherwise true, with this runtime on pvec's device.
inline bool start_on_device() {
  if (!cuda_device_present()) {
    std::printf("no CUDA device: skipped\n");
    pvec_finalize();
    return false;
  }
  adopt_pvec_device();
  return true;
}

// Name of the current device, for the header line of each benchmark.
inline std::string device_name() {
  int dev = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess)
    return "unknown";
  return prop.name;
}

// Times a callable that enqueues GPU work on stream 0: `warmup` untimed calls, then `reps`
// timed ones, each bracketed by CUDA events. Returns the per-rep seconds.
template <class F>
std::vector<double> time_events(int warmup, int reps, F&& enqueue) {
  cudaEvent_t a, b;
  BENCH_CUDA(cudaEventCreate(&a));
  BENCH_CUDA(cudaEventCreate(&b));
  for (int r = 0; r < warmup; ++r) enqueue();
  BENCH_CUDA(cudaGetLastError());
  BENCH_CUDA(cudaDeviceSynchronize());
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    BENCH_CUDA(cudaEventRecord(a, 0));
    enqueue();
    BENCH_CUDA(cudaEventRecord(b, 0));
    BENCH_CUDA(cudaEventSynchronize(b));
    float ms = 0;
    BENCH_CUDA(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms * 1e-3);
  }
  BENCH_CUDA(cudaGetLastError());
  BENCH_CUDA(cudaEventDestroy(a));
  BENCH_CUDA(cudaEventDestroy(b));
  return t;
}

// Device-to-device cudaMemcpy bandwidth (read + write bytes / s) for a copy of `bytes`, median
// of `reps`: the roofline the other GPU numbers are compared with.
inline double d2d_bandwidth(size_t bytes, int reps) {
  void *src = nullptr, *dst = nullptr;
  BENCH_CUDA(cudaMalloc(&src, bytes));
  BENCH_CUDA(cudaMalloc(&dst, bytes));
  BENCH_CUDA(cudaMemset(src, 1, bytes));
  const std::vector<double> t = time_events(
      2, reps, [&] { BENCH_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, 0)); });
  BENCH_CUDA(cudaFree(src));
  BENCH_CUDA(cudaFree(dst));
  return 2.0 * static_cast<double>(bytes) / median(t);
}

}  // namespace bench
