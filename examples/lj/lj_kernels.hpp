// lj_kernels.hpp -- the per-particle work of the Lennard-Jones example, written once.
//
// Each functor below does the work of one particle i on raw pointers into pvec's
// structure-of-arrays layout (component c of particle i at base[c*cap + i], pvec.h section 5).
// for_each() runs a functor as a CUDA kernel over the device mirror when the vector's
// backend is CUDA, and as a plain loop over the host mirror otherwise; compiled as C++
// (no nvcc) only the loop exists.
#ifndef LJ_KERNELS_HPP
#define LJ_KERNELS_HPP

#include <pvec_neighbors_view.hpp>
#include <pvec_view.hpp>

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#endif

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace lj {

/// The particle columns of one mirror, as kernels see them: positions, velocities and forces
/// are vector[3] of T, the per-particle potential energy a double scalar.
template <class T>
struct Columns {
  T* x;
  T* v;
  T* f;
  double* epot;
  std::int64_t cap;  ///< the vector's capacity: the component stride of every column
};

/// Truncated and shifted LJ in reduced units (epsilon = sigma = mass = 1).
struct Potential {
  double rc2;    ///< cutoff squared
  double shift;  ///< U(rc), subtracted so that U(rc) = 0
};

/// U(r) and F(r)/r of the unshifted LJ potential at r^2 = r2.
template <class T>
PVEC_HOST_DEVICE inline void lj_pair(T r2, T* f_over_r, T* u) {
  const T ir2 = T(1) / r2;
  const T ir6 = ir2 * ir2 * ir2;
  *f_over_r = T(24) * ir2 * ir6 * (T(2) * ir6 - T(1));
  *u = T(4) * ir6 * (ir6 - T(1));
}

/// *p += a; atomic in device code, where other threads add to the same particle.
template <class T>
PVEC_HOST_DEVICE inline void add_to(T* p, T a) {
#if defined(__CUDA_ARCH__)
  atomicAdd(p, a);
#else
  *p += a;
#endif
}

/// f = 0 on rows first + i: a half list adds -f to ghosts, which ghost_put sends home.
template <class T>
struct ZeroForce {
  Columns<T> s;
  std::int64_t first = 0;
  PVEC_HOST_DEVICE void operator()(std::int64_t i) const {
    for (int c = 0; c < 3; ++c) s.f[c * s.cap + first + i] = T(0);
  }
};

/// Half kick v += h f (h = dt/2), and with drift also x += dt v: the two halves of velocity
/// Verlet around the force computation.
template <class T>
struct Kick {
  Columns<T> s;
  T h, dt;
  bool drift;
  PVEC_HOST_DEVICE void operator()(std::int64_t i) const {
    for (int c = 0; c < 3; ++c) {
      T& v = s.v[c * s.cap + i];
      v += h * s.f[c * s.cap + i];
      if (drift) s.x[c * s.cap + i] += dt * v;
    }
  }
};

/// The force on particle i and its pair energy from the neighbours nbr[e0..e1), shifted
/// potential within the cutoff. Ghost rows hold periodic images with shifted positions, so a
/// plain difference is the right separation (no minimum image). Half (each pair once): -f is
/// added to every j (local or ghost) as it goes. Force and ForcePart share it.
template <class T, bool Half>
struct PairSum {
  T fx = 0, fy = 0, fz = 0;
  double u = 0;
  PVEC_HOST_DEVICE PairSum(const Columns<T>& s, const Potential& pot, std::int64_t i,
                           const std::int32_t* nbr, std::int64_t e0, std::int64_t e1) {
    const std::int64_t C = s.cap;
    const T xi = s.x[i], yi = s.x[C + i], zi = s.x[2 * C + i];
    const T rc2 = static_cast<T>(pot.rc2);
    for (std::int64_t e = e0; e < e1; ++e) {
      const std::int32_t j = nbr[e];
      const T dx = xi - s.x[j], dy = yi - s.x[C + j], dz = zi - s.x[2 * C + j];
      const T r2 = dx * dx + dy * dy + dz * dz;
      if (r2 >= rc2) continue;
      T fr, uij;
      lj_pair(r2, &fr, &uij);
      fx += fr * dx;
      fy += fr * dy;
      fz += fr * dz;
      u += static_cast<double>(uij) - pot.shift;
      if (Half) {
        add_to(&s.f[j], -fr * dx);
        add_to(&s.f[C + j], -fr * dy);
        add_to(&s.f[2 * C + j], -fr * dz);
      }
    }
  }
};

/// Forces on local particle i from its Verlet list. Half list: each pair once in the whole
/// run (pvec.h section 10), f added to i and -f to j (local or ghost), the pair's energy to i.
/// Full list: f to i only, half the energy.
template <class T, bool Half>
struct Force {
  Columns<T> s;
  pvec::verlet_view list;
  Potential pot;
  PVEC_HOST_DEVICE void operator()(std::int64_t i) const {
    const std::int64_t C = s.cap;
    const PairSum<T, Half> p(s, pot, i, list.neighbors, list.begin(i), list.end(i));
    const T fx = p.fx, fy = p.fy, fz = p.fz;
    const double u = p.u;
    if (Half) {  // others may have added to i already
      add_to(&s.f[i], fx);
      add_to(&s.f[C + i], fy);
      add_to(&s.f[2 * C + i], fz);
      s.epot[i] = u;
    } else {
      s.f[i] = fx;
      s.f[C + i] = fy;
      s.f[2 * C + i] = fz;
      s.epot[i] = 0.5 * u;
    }
  }
};

#if defined(__CUDACC__)
template <class F>
__global__ void each_particle(std::int64_t n, F f) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) f(i);
}

inline void cuda_check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::abort();
  }
}
#endif

/// Runs f(i) for i in [0, n): a kernel on the GPU (waited for, so that timings and the pvec
/// calls that follow see its results), a loop on the host.
template <class F>
void for_each(bool gpu, std::int64_t n, const F& f) {
  if (n <= 0) return;
#if defined(__CUDACC__)
  if (gpu) {
    const int threads = 128;
    each_particle<<<static_cast<unsigned>((n + threads - 1) / threads), threads>>>(n, f);
    cuda_check(cudaGetLastError(), "kernel launch");
    cuda_check(cudaDeviceSynchronize(), "kernel");
    return;
  }
#endif
  (void)gpu;
  for (std::int64_t i = 0; i < n; ++i) f(i);
}

}  // namespace lj

#endif  // LJ_KERNELS_HPP
