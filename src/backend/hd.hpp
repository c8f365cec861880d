// PVEC_HD marks functions callable from host and device code.
#pragma once
#if defined(__CUDACC__)
#define PVEC_HD __host__ __device__
#else
#define PVEC_HD
#endif

namespace pvec::detail {

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

}  // namespace pvec::detail
