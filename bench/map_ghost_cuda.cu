// CUDA side of the map / ghost_get benchmark: placing and moving particles in the device
// mirror with small kernels, and the device-to-device copy that serves as the roofline.
#include <cuda_runtime.h>

#include "bench_cuda.cuh"
#include "map_ghost_driver.hpp"

namespace bench {
namespace {

struct Box3 {
  double lo[3], hi[3];
};

__global__ void place(float* pos, int64_t capacity, int64_t n, Box3 box, uint64_t seed,
                      Placement order) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (int d = 0; d < 3; ++d) {
    const uint32_t k = grid_coord(order, seed, i, n, d);
    pos[d * capacity + i] = static_cast<float>(
        box.lo[d] +
        (box.hi[d] - box.lo[d]) * (static_cast<double>(k) / static_cast<double>(1u << kGridBits)));
  }
}

__global__ void add_to_row(float* x, int64_t m, float dx) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < m) x[i] += dx;
}

unsigned blocks(int64_t n) { return static_cast<unsigned>((n + 255) / 256); }

class CudaSide final : public Side {
 public:
  const char* name() const override { return "cuda"; }
  void init_positions(float* pos, int64_t capacity, int64_t n, const double* lo, const double* hi,
                      uint64_t seed, const Placement& order) override {
    if (n == 0) return;
    Box3 b{};
    for (int d = 0; d < 3; ++d) {
      b.lo[d] = lo[d];
      b.hi[d] = hi[d];
    }
    place<<<blocks(n), 256>>>(pos, capacity, n, b, seed, order);
    BENCH_CUDA(cudaGetLastError());
    BENCH_CUDA(cudaDeviceSynchronize());
  }
  void shift(float* row, int64_t m, float dx) override {
    if (m == 0) return;
    add_to_row<<<blocks(m), 256>>>(row, m, dx);
    BENCH_CUDA(cudaGetLastError());
    BENCH_CUDA(cudaDeviceSynchronize());
  }
  void* alloc(size_t bytes) override {
    void* p = nullptr;
    BENCH_CUDA(cudaMalloc(&p, bytes));
    BENCH_CUDA(cudaMemset(p, 1, bytes));
    return p;
  }
  void release(void* p) override { BENCH_CUDA(cudaFree(p)); }
  void copy(void* dst, const void* src, size_t bytes) override {
    BENCH_CUDA(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice));
    BENCH_CUDA(cudaDeviceSynchronize());
  }
};

}  // namespace

std::unique_ptr<Side> make_cuda_side(const void* device_ptr) {
  use_device_of(device_ptr);
  return std::make_unique<CudaSide>();
}

}  // namespace bench
