// lj_force_kernels.cuh -- the user's Lennard-Jones force kernels that bench_neighbors times over
// pvec's full Verlet list and over a hand-built one: one thread per particle (host or device),
// G threads per particle, and G threads per particle over positions packed per row.
#pragma once

#include <pvec_neighbors.hpp>

#include <cstdint>

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#endif

// The user's kernel: LJ forces (sigma = 1, epsilon = 1) over a full list, both positions read.
struct LjForce {
  const double* pos;
  int64_t cap;
  pvec::verlet_view list;
  double rc2;
  double* force;  // 3 x n, stride n
  PVEC_HOST_DEVICE void operator()(int64_t i) const {
    const double xi = pos[i], yi = pos[cap + i], zi = pos[2 * cap + i];
    double fx = 0, fy = 0, fz = 0;
    for (int64_t e = list.begin(i); e < list.end(i); ++e) {
      const int32_t j = list[e];
      const double dx = xi - pos[j], dy = yi - pos[cap + j], dz = zi - pos[2 * cap + j];
      const double r2 = dx * dx + dy * dy + dz * dz;
      if (r2 < rc2) {
        const double s2 = 1 / r2, s6 = s2 * s2 * s2, fr = 48 * s2 * s6 * (s6 - 0.5);
        fx += fr * dx;
        fy += fr * dy;
        fz += fr * dz;
      }
    }
    force[i] = fx;
    force[list.n + i] = fy;
    force[2 * list.n + i] = fz;
  }
};

#if defined(__CUDACC__)
// The same kernel with G threads per particle (G divides 32): thread r of a group takes
// entries begin + r, begin + r + G, ..., so that a group reads its list in whole sectors, and
// the group adds its partial forces with shuffles. The pattern docs/neighbors.md recommends.
template <int G>
__global__ void lj_force_group(int64_t n, const double* pos, int64_t cap, pvec::verlet_view list,
                               double rc2, double* force) {
  const int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t i = t / G;
  const int r = static_cast<int>(t % G);
  double fx = 0, fy = 0, fz = 0;
  if (i < n) {
    const double xi = pos[i], yi = pos[cap + i], zi = pos[2 * cap + i];
    const int64_t end = list.end(i);
    for (int64_t e = list.begin(i) + r; e < end; e += G) {
      const int32_t j = list[e];
      const double dx = xi - pos[j], dy = yi - pos[cap + j], dz = zi - pos[2 * cap + j];
      const double r2 = dx * dx + dy * dy + dz * dz;
      if (r2 < rc2) {
        const double s2 = 1 / r2, s6 = s2 * s2 * s2, fr = 48 * s2 * s6 * (s6 - 0.5);
        fx += fr * dx;
        fy += fr * dy;
        fz += fr * dz;
      }
    }
  }
  for (int o = G / 2; o > 0; o >>= 1) {  // every lane of the warp takes part
    fx += __shfl_xor_sync(0xffffffffu, fx, o);
    fy += __shfl_xor_sync(0xffffffffu, fy, o);
    fz += __shfl_xor_sync(0xffffffffu, fz, o);
  }
  if (i < n && r == 0) {
    force[i] = fx;
    force[list.n + i] = fy;
    force[2 * list.n + i] = fz;
  }
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
  double fx = 0, fy = 0, fz = 0;
  if (i < n) {
    const double xi = pos[i], yi = pos[cap + i], zi = pos[2 * cap + i];
    auto pair = [&](double xj, double yj, double zj) {
      const double dx = xi - xj, dy = yi - yj, dz = zi - zj;
      const double r2 = dx * dx + dy * dy + dz * dz;
      if (r2 < rc2) {
        const double s2 = __drcp_rn(r2), s6 = s2 * s2 * s2, fr = 48 * s2 * s6 * (s6 - 0.5);
        fx += fr * dx;
        fy += fr * dy;
        fz += fr * dz;
      }
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
  for (int o = G / 2; o > 0; o >>= 1) {
    fx += __shfl_xor_sync(0xffffffffu, fx, o);
    fy += __shfl_xor_sync(0xffffffffu, fy, o);
    fz += __shfl_xor_sync(0xffffffffu, fz, o);
  }
  if (i < n && r == 0) {
    force[i] = fx;
    force[list.n + i] = fy;
    force[2 * list.n + i] = fz;
  }
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
  double fx = 0, fy = 0, fz = 0;
  if (i < n) {
    const double4_32a xi = pk[i];
    const int64_t end = list.end(i);
    for (int64_t e = list.begin(i) + r; e < end; e += G) {
      const double4_32a xj = pk[list[e]];
      const double dx = xi.x - xj.x, dy = xi.y - xj.y, dz = xi.z - xj.z;
      const double r2 = dx * dx + dy * dy + dz * dz;
      if (r2 < rc2) {
        const double s2 = 1 / r2, s6 = s2 * s2 * s2, fr = 48 * s2 * s6 * (s6 - 0.5);
        fx += fr * dx;
        fy += fr * dy;
        fz += fr * dz;
      }
    }
  }
  for (int o = G / 2; o > 0; o >>= 1) {
    fx += __shfl_xor_sync(0xffffffffu, fx, o);
    fy += __shfl_xor_sync(0xffffffffu, fy, o);
    fz += __shfl_xor_sync(0xffffffffu, fz, o);
  }
  if (i < n && r == 0) {
    force[i] = fx;
    force[list.n + i] = fy;
    force[2 * list.n + i] = fz;
  }
}
#endif
