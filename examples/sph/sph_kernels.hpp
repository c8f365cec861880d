// sph_kernels.hpp -- the per-particle work of the SPH dam break, written once.
//
// Each functor does the work of one particle i on raw pointers into pvec's structure-of-arrays
// layout (component c of particle i at base[c*cap + i], pvec.h section 5). for_each() runs it
// as a CUDA kernel over the device mirror when the vector's backend is CUDA and as a plain loop
// over the host mirror otherwise; compiled as C++ (no nvcc) only the loop exists.
//
// The scheme is weakly compressible SPH (Monaghan 1994; the dam break of OpenFPM's example
// 7_SPH_dlb and of DualSPHysics): Wendland C2 kernel, Tait equation of state, Monaghan's
// artificial viscosity, the continuity equation for the density, and dynamic boundary particles
// (walls whose density follows the continuity equation, which never move).
#ifndef SPH_KERNELS_HPP
#define SPH_KERNELS_HPP

#include <pvec_neighbors_view.hpp>
#include <pvec_view.hpp>

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#endif

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace sph {

/// Values of the "type" property.
enum : std::int32_t { kFluid = 0, kWall = 1 };

/// The particle columns of one mirror, as kernels see them. Vectors have dim components; the
/// last one is vertical (z in 3D, y in 2D).
template <class T>
struct Columns {
  T* x;       ///< positions
  T* v;       ///< velocity
  T* v_prev;  ///< velocity of the previous step (the leapfrog partner of the Verlet scheme)
  T* acc;     ///< dv/dt
  T* rho;
  T* rho_prev;
  T* drho;                   ///< d rho / dt
  T* p;                      ///< pressure, from rho by the equation of state
  T* scratch;                ///< per-particle time step limit, or surge-front candidate
  float* cost;               ///< load-balance weight: 1 + neighbour-list entries
  const std::int32_t* type;  ///< kFluid or kWall
  std::int64_t cap;          ///< the vector's capacity: the component stride of every column
};

/// Constants of the model, passed by value into the kernels (SI units).
struct Physics {
  int dim;       ///< 2 or 3
  double h;      ///< smoothing length; the kernel's support is 2h
  double mass;   ///< of every particle: rho0 dp^dim
  double rho0;   ///< reference density
  double B;      ///< Tait's constant: c0^2 rho0 / gamma
  double c0;     ///< speed of sound
  double alpha;  ///< artificial viscosity
  double eta2;   ///< 0.01 h^2: keeps mu finite when two particles meet
  double g;      ///< gravity, along -(last dimension)
  double grad;   ///< -5 alpha_D / h^2: grad W = grad (1 - q/2)^3 (x_i - x_j)
};

/// Tait: p = B ((rho/rho0)^7 - 1), gamma = 7 by multiplications.
template <class T>
struct Pressure {
  const T* rho;
  T* p;
  T inv_rho0, B;
  PVEC_HOST_DEVICE void operator()(std::int64_t i) const {
    const T r = rho[i] * inv_rho0, r2 = r * r, r4 = r2 * r2;
    p[i] = B * (r4 * r2 * r - T(1));
  }
};

/// Rates of local particle i from its full Verlet list (local and ghost rows, in key order:
/// ascending particle id, so every sum below adds the same terms in the same order on any
/// number of ranks). Continuity:  drho_i = sum_j m (v_i - v_j) . grad_i W_ij  (walls too).
/// Momentum of fluid particles:  a_i = -sum_j m (p_i/rho_i^2 + p_j/rho_j^2 + Pi_ij) grad_i W_ij +
/// g, Pi_ij = -alpha c0 mu_ij / rho_ij when (v_i - v_j).(x_i - x_j) < 0, mu_ij = h v_ij.x_ij / (r^2
/// + eta^2), rho_ij the mean density. Also the particle's time step limit (before the CFL factor):
/// min(h / (c0 + |v_i|), h / (c0 + max_j |mu_ij|), sqrt(h / |a_i|)), the last for fluid particles
/// only.
template <class T>
struct Rates {
  Columns<T> s;
  pvec::verlet_view list;
  Physics ph;
  PVEC_HOST_DEVICE void operator()(std::int64_t i) const {
    const std::int64_t C = s.cap;
    const int D = ph.dim;
    const T h = static_cast<T>(ph.h), cut2 = static_cast<T>(4 * ph.h * ph.h);
    const T grad = static_cast<T>(ph.grad), eta2 = static_cast<T>(ph.eta2);
    const T visc = static_cast<T>(ph.alpha * ph.c0);
    T xi[3] = {0, 0, 0}, vi[3] = {0, 0, 0}, a[3] = {0, 0, 0};
    for (int d = 0; d < D; ++d) {
      xi[d] = s.x[d * C + i];
      vi[d] = s.v[d * C + i];
    }
    const bool fluid = s.type[i] == kFluid;
    const T rho_i = s.rho[i], pr_i = s.p[i] / (rho_i * rho_i);
    T drho = 0, mu_max = 0;
    for (std::int64_t e = list.begin(i); e < list.end(i); ++e) {
      const std::int32_t j = list[e];
      T dx[3] = {0, 0, 0}, r2 = 0;
      for (int d = 0; d < D; ++d) {
        dx[d] = xi[d] - s.x[d * C + j];
        r2 += dx[d] * dx[d];
      }
      if (r2 >= cut2) continue;  // the list holds cutoff + skin
      const T t = T(1) - std::sqrt(r2) / (T(2) * h);
      const T f = grad * t * t * t;
      T vr = 0;
      for (int d = 0; d < D; ++d) vr += (vi[d] - s.v[d * C + j]) * dx[d];
      drho += vr * f;
      if (!fluid) continue;
      const T rho_j = s.rho[j];
      T pi_ij = 0;
      if (vr < 0) {
        const T mu = h * vr / (r2 + eta2);
        mu_max = -mu > mu_max ? -mu : mu_max;
        pi_ij = -visc * mu / (T(0.5) * (rho_i + rho_j));
      }
      const T coef = -(pr_i + s.p[j] / (rho_j * rho_j) + pi_ij) * f;
      for (int d = 0; d < D; ++d) a[d] += coef * dx[d];
    }
    const T m = static_cast<T>(ph.mass);
    s.drho[i] = m * drho;
    T a2 = 0, v2 = 0;
    for (int d = 0; d < D; ++d) {
      a[d] = fluid ? m * a[d] : T(0);
      if (fluid && d == D - 1) a[d] -= static_cast<T>(ph.g);
      s.acc[d * C + i] = a[d];
      a2 += a[d] * a[d];
      v2 += vi[d] * vi[d];
    }
    const T c0 = static_cast<T>(ph.c0);
    T lim = h / (c0 + std::sqrt(v2));
    const T lim_visc = h / (c0 + mu_max);
    if (lim_visc < lim) lim = lim_visc;
    if (fluid && a2 > 0) {
      const T lim_force = std::sqrt(h / std::sqrt(a2));
      if (lim_force < lim) lim = lim_force;
    }
    s.scratch[i] = lim;
  }
};

/// One step of the OpenFPM-style integrator for local particle i. Verlet (leapfrog over two
/// steps): x += dt v + dt^2/2 a, v_new = v_prev + 2 dt a, rho_new = rho_prev + 2 dt drho; every
/// 40th step an Euler step (v_new = v + dt a, rho_new = rho + dt drho) resets the two interleaved
/// sequences, which otherwise drift apart. Walls keep position and zero velocity; their density
/// follows the same rule, never below rho0 (they must push back, not pull).
template <class T>
struct Integrate {
  Columns<T> s;
  int dim;
  T dt, rho0;
  bool euler;
  PVEC_HOST_DEVICE void operator()(std::int64_t i) const {
    const std::int64_t C = s.cap;
    const T k = euler ? dt : T(2) * dt;
    T rho_new = (euler ? s.rho[i] : s.rho_prev[i]) + k * s.drho[i];
    const bool wall = s.type[i] != kFluid;
    if (wall && rho_new < rho0) rho_new = rho0;
    s.rho_prev[i] = s.rho[i];
    s.rho[i] = rho_new;
    if (wall) return;
    for (int d = 0; d < dim; ++d) {
      const std::int64_t c = d * C + i;
      const T v = s.v[c], a = s.acc[c];
      s.x[c] += dt * v + T(0.5) * dt * dt * a;
      s.v[c] = (euler ? v : s.v_prev[c]) + k * a;
      s.v_prev[c] = v;
    }
  }
};

/// scratch = x of a fluid particle within `band` of the floor (the surge front's candidates),
/// else the lowest value, for a MAX reduction.
template <class T>
struct FrontCandidate {
  Columns<T> s;
  int dim;
  T band, lowest;
  PVEC_HOST_DEVICE void operator()(std::int64_t i) const {
    const bool near = s.type[i] == kFluid && s.x[(dim - 1) * s.cap + i] < band;
    s.scratch[i] = near ? s.x[i] : lowest;
  }
};

/// The load-balance weight: a particle costs its list entries (walls list only fluid
/// neighbours, inner wall layers none) plus one for the per-particle work.
struct Cost {
  float* cost;
  pvec::verlet_view list;
  PVEC_HOST_DEVICE void operator()(std::int64_t i) const {
    cost[i] = 1.0f + static_cast<float>(list.count(i));
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

}  // namespace sph

#endif  // SPH_KERNELS_HPP
