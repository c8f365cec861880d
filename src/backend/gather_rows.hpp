// Row-wise data movement shared by the core (removal, growth) and the distribution layer
// (pack, unpack). "Rows" are the components of a property: component c of particle i of a
// buffer with stride s is element c*s + i.
#pragma once

#include <cstddef>
#include <cstdint>

namespace pvec::impl {

struct Exec;

// dst[c*dst_stride + j] = src[c*src_stride + idx[j]], j < n, c < ncomp.
void gather_rows(const Exec& exec, void* dst, int64_t dst_stride, const void* src,
                 int64_t src_stride, const int64_t* idx, int64_t n, int64_t ncomp,
                 size_t elem_size);

// dst[c*dst_stride + idx[j]] = src[c*src_stride + j], j < n, c < ncomp.
void scatter_rows(const Exec& exec, void* dst, int64_t dst_stride, const int64_t* idx,
                  const void* src, int64_t src_stride, int64_t n, int64_t ncomp, size_t elem_size);

}  // namespace pvec::impl
