// PVEC_HD marks functions callable from host and device code: the one macro of the public
// pvec_view.hpp (PVEC_HOST_DEVICE), so that library and user kernels agree on it.
#pragma once

#include <pvec_view.hpp>

#define PVEC_HD PVEC_HOST_DEVICE

// The position kernels take the dimension as a template parameter: their per-dimension loops
// unroll and small arrays stay in registers (indexed at run time they would live in local
// memory, at several times the kernel's own traffic).
#if defined(__CUDACC__)
#define PVEC_UNROLL _Pragma("unroll")
#else
#define PVEC_UNROLL
#endif

// Before a PVEC_HD template that hands elements to a functor argument: the host passes
// instantiate it with host-only functors (a rank's counters), which nvcc would otherwise
// report as device code calling host code for every such instantiation, burying real reports
// (nvcc's check is off for the templates marked, and only for them).
#if defined(__CUDACC__)
#define PVEC_HD_CALLS_FUNCTOR _Pragma("nv_exec_check_disable")
#else
#define PVEC_HD_CALLS_FUNCTOR
#endif

namespace pvec::impl {

// A load through the read-only data path on the device (ld.global.nc), a plain load on the
// host. Only for data no thread writes during the kernel; it lets the compiler issue the
// loads of several elements ahead of the stores in between.
template <class T>
PVEC_HD inline T load_ro(const T* p) {
#if defined(__CUDA_ARCH__)
  return __ldg(p);
#else
  return *p;
#endif
}

// The squared length of a difference, added term by term with each product and each sum
// rounded on its own, on the host and the device alike: nvcc would fuse them into FMAs where the
// host does not (the library's host code is built with -ffp-contract=off), and a pair at the
// cutoff would be a neighbour on one side only. sq_first starts the sum, add_square adds a term.
template <class T>
PVEC_HD inline T sq_first(T dx) {
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(T) == 8)
    return __dmul_rn(dx, dx);
  else
    return __fmul_rn(dx, dx);
#else
  return dx * dx;
#endif
}

template <class T>
PVEC_HD inline T add_square(T r2, T dx) {
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(T) == 8)
    return __dadd_rn(r2, __dmul_rn(dx, dx));
  else
    return __fadd_rn(r2, __fmul_rn(dx, dx));
#else
  return r2 + dx * dx;
#endif
}

}  // namespace pvec::impl
