// The map / ghost_get benchmark, written once for the device path (bench_map_ghost) and the
// host path (bench_map_ghost_host). See docs/performance.md for the byte model.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "placement.hpp"

namespace bench {

// What the benchmark does to a mirror outside pvec: place particles, move some, and measure
// the copy bandwidth of that memory (the roofline). One implementation for host memory (also
// the "device" mirror of the host backend) and one for CUDA memory (map_ghost_cuda.cu).
class Side {
 public:
  virtual ~Side() = default;
  virtual const char* name() const = 0;
  // Positions (f32, row d at pos + d*capacity) of particles [0, n): a pseudo-random point of
  // the box [lo, hi) on a grid of 2^20 cells per dimension (grid_coord, in the order the
  // placement asks for), so that shifting by a dyadic subdomain width is exact and never
  // lands a particle on a boundary by rounding.
  virtual void init_positions(float* pos, int64_t capacity, int64_t n, const double* lo,
                              const double* hi, uint64_t seed, const Placement& order) = 0;
  // row[i] += dx for particles [0, m) of one position row; finished when it returns.
  virtual void shift(float* row, int64_t m, float dx) = 0;
  // Memory for the roofline copy, and one synchronous copy of `bytes`.
  virtual void* alloc(size_t bytes) = 0;
  virtual void release(void* p) = 0;
  virtual void copy(void* dst, const void* src, size_t bytes) = 0;
};

// CUDA implementation, available when the program is built with CUDA (BENCH_HAVE_CUDA_SIDE);
// device_ptr is a pvec device pointer, whose device the helper adopts.
std::unique_ptr<Side> make_cuda_side(const void* device_ptr);

// The whole program: options, sweep, output. on_device selects PVEC_ON_DEVICE.
int run_map_ghost(int argc, char** argv, bool on_device);

}  // namespace bench
