#include "backend/gather_rows.hpp"

#include "backend/for_each.cuh"

namespace pvec::impl {
namespace {

template <class T>
struct GatherRows {
  T* dst;
  int64_t dst_stride;
  const T* src;
  int64_t src_stride;
  const int64_t* idx;
  int64_t ncomp;
  // One thread per particle, looping over components: idx[j] is read once and each
  // component row is still accessed contiguously across a warp.
  PVEC_HD void operator()(int64_t j) const {
    const int64_t s = idx[j];
    for (int64_t c = 0; c < ncomp; ++c) dst[c * dst_stride + j] = src[c * src_stride + s];
  }
};

template <class T>
struct ScatterRows {
  T* dst;
  int64_t dst_stride;
  const int64_t* idx;
  const T* src;
  int64_t src_stride;
  int64_t ncomp;
  PVEC_HD void operator()(int64_t j) const {
    const int64_t d = idx[j];
    for (int64_t c = 0; c < ncomp; ++c) dst[c * dst_stride + d] = src[c * src_stride + j];
  }
};

}  // namespace

void gather_rows(const Exec& exec, void* dst, int64_t dst_stride, const void* src,
                 int64_t src_stride, const int64_t* idx, int64_t n, int64_t ncomp,
                 size_t elem_size) {
  if (n <= 0) return;
  if (elem_size == 4)
    for_each(exec, n,
             GatherRows<uint32_t>{static_cast<uint32_t*>(dst), dst_stride,
                                  static_cast<const uint32_t*>(src), src_stride, idx, ncomp});
  else
    for_each(exec, n,
             GatherRows<uint64_t>{static_cast<uint64_t*>(dst), dst_stride,
                                  static_cast<const uint64_t*>(src), src_stride, idx, ncomp});
}

void scatter_rows(const Exec& exec, void* dst, int64_t dst_stride, const int64_t* idx,
                  const void* src, int64_t src_stride, int64_t n, int64_t ncomp, size_t elem_size) {
  if (n <= 0) return;
  if (elem_size == 4)
    for_each(exec, n,
             ScatterRows<uint32_t>{static_cast<uint32_t*>(dst), dst_stride, idx,
                                   static_cast<const uint32_t*>(src), src_stride, ncomp});
  else
    for_each(exec, n,
             ScatterRows<uint64_t>{static_cast<uint64_t*>(dst), dst_stride, idx,
                                   static_cast<const uint64_t*>(src), src_stride, ncomp});
}

}  // namespace pvec::impl
