// lj_force_kernels.cuh -- the user's Lennard-Jones force kernels that bench_neighbors times over
// pvec's full Verlet list and over a hand-built one: one thread per particle (host or device),
// G threads per particle, and G threads per particle over positions packed per row.
#pragma once

#include <pvec_neighbors_view.hpp>

#include <cstdint>

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#endif

// The pair term of every kernel below: LJ (sigma = 1, epsilon = 1) within the cutoff, added to
// the particle's force. FastRcp takes 1 / r2 as the correctly rounded __drcp_rn on the device
// (the same value, without the division's general path).
struct LjSum {
  double x = 0, y = 0, z = 0;
  template <bool FastRcp = false>
  PVEC_HOST_DEVICE void pair(double dx, double dy, double dz, double rc2) {
    const double r2 = dx * dx + dy * dy + dz * dz;
    if (r2 < rc2) {
#if defined(__CUDA_ARCH__)
      const double s2 = FastRcp ? __drcp_rn(r2) : 1 / r2;
#else
      const double s2 = 1 / r2;
#endif
      const double s6 = s2 * s2 * s2, fr = 48 * s2 * s6 * (s6 - 0.5);
      x += fr * dx;
      y += fr * dy;
      z += fr * dz;
    }
  }
  PVEC_HOST_DEVICE void store(double* force, int64_t n, int64_t i) const {
    force[i] = x;
    force[n + i] = y;
    force[2 * n + i] = z;
  }
};

// The user's kernel: LJ forces (sigma = 1, epsilon = 1) over a full list, both positions read.
struct LjForce {
  const double* pos;
  int64_t cap;
  pvec::verlet_view list;
  double rc2;
  double* force;  // 3 x n, stride n
  PVEC_HOST_DEVICE void operator()(int64_t i) const {
    const double xi = pos[i], yi = pos[cap + i], zi = pos[2 * cap + i];
    LjSum f;
    for (int64_t e = list.begin(i); e < list.end(i); ++e) {
      const int32_t j = list[e];
      const double dx = xi - pos[j], dy = yi - pos[cap + j], dz = zi - pos[2 * cap + j];
      f.pair(dx, dy, dz, rc2);
    }
    f.store(force, list.n, i);
  }
};

#if defined(__CUDACC__)
// The G lanes of a particle add their partial forces with shuffles (every lane of the warp
// takes part) and the first stores them.
template <int G>
__device__ void group_store(LjSum f, int64_t n, int64_t i, int r, int64_t stride, double* force) {
  for (int o = G / 2; o > 0; o >>= 1) {
    f.x += __shfl_xor_sync(0xffffffffu, f.x, o);
    f.y += __shfl_xor_sync(0xffffffffu, f.y, o);
    f.z += __shfl_xor_sync(0xffffffffu, f.z, o);
  }
  if (i < n && r == 0) f.store(force, stride, i);
}

// The same kernel with G threads per particle (G divides 32): thread r of a group takes
// entries begin + r, begin + r + G, ..., so that a group reads its list in whole sectors, and
// the group adds its partial forces with shuffles. The pattern docs/neighbors.md recommends.
template <int G>
__global__ void lj_force_group(int64_t n, const double* pos, int64_t cap, pvec::verlet_view list,
                               double rc2, double* force) {
  const int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t i = t / G;
  const int r = static_cast<int>(t % G);
  LjSum f;
  if (i < n) {
    const double xi = pos[i], yi = pos[cap + i], zi = pos[2 * cap + i];
    const int64_t end = list.end(i);
    for (int64_t e = list.begin(i) + r; e < end; e += G) {
      const int32_t j = list[e];
      const double dx = xi - pos[j], dy = yi - pos[cap + j], dz = zi - pos[2 * cap + j];
      f.pair(dx, dy, dz, rc2);
    }
  }
  group_store<G>(f, n, i, r, list.n, force);
}

// lj_force_group with two neighbours in flight per thread (both indices, then both positions
// loaded before either pair is computed: the gathers' latency overlaps) and the reciprocal
// as the correctly rounded __drcp_rn (the value 1 / r2 has, without the division's general
// path). The pairs are added in the same order, so the forces are bitwise those of
// lj_force_group.
template <int G>
__global__ void lj_force_group_u2(int64_t n, const double* pos, int64_t cap, pvec::verlet_view list,
                                  double rc2, double* force) {
  const int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t i = t / G;
  const int r = static_cast<int>(t % G);
  LjSum f;
  if (i < n) {
    const double xi = pos[i], yi = pos[cap + i], zi = pos[2 * cap + i];
    auto pair = [&](double xj, double yj, double zj) {
      f.pair<true>(xi - xj, yi - yj, zi - zj, rc2);
    };
    const int64_t end = list.end(i);
    int64_t e = list.begin(i) + r;
    for (; e + G < end; e += 2 * G) {
      const int32_t j0 = list[e], j1 = list[e + G];
      const double x0 = pos[j0], y0 = pos[cap + j0], z0 = pos[2 * cap + j0];
      const double x1 = pos[j1], y1 = pos[cap + j1], z1 = pos[2 * cap + j1];
      pair(x0, y0, z0);
      pair(x1, y1, z1);
    }
    if (e < end) {
      const int32_t j = list[e];
      pair(pos[j], pos[cap + j], pos[2 * cap + j]);
    }
  }
  group_store<G>(f, n, i, r, list.n, force);
}

// The same, reading positions packed as (x, y, z, 0) per row: one 32-byte sector per
// neighbour instead of three (the user packs them once per step from pvec's columns).
struct Pack4 {
  const double* pos;
  int64_t cap;
  double4_32a* pk;
  PVEC_HOST_DEVICE void operator()(int64_t i) const {
    pk[i] = make_double4_32a(pos[i], pos[cap + i], pos[2 * cap + i], 0.0);
  }
};

template <int G>
__global__ void lj_force_group_packed(int64_t n, const double4_32a* pk, pvec::verlet_view list,
                                      double rc2, double* force) {
  const int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t i = t / G;
  const int r = static_cast<int>(t % G);
  LjSum f;
  if (i < n) {
    const double4_32a xi = pk[i];
    const int64_t end = list.end(i);
    for (int64_t e = list.begin(i) + r; e < end; e += G) {
      const double4_32a xj = pk[list[e]];
      const double dx = xi.x - xj.x, dy = xi.y - xj.y, dz = xi.z - xj.z;
      f.pair(dx, dy, dz, rc2);
    }
  }
  group_store<G>(f, n, i, r, list.n, force);
}
#endif
