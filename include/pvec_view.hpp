// pvec_view.hpp -- the by-value kernel view of one pvec property.
//
// A pvec::view<T> is a plain struct (pointer, capacity, extents, generation) that indexes one
// property of a vector with the layout law of pvec.h:
//
//     scalar          v(i)        data[i]
//     vector[n]       v(i, c)     data[c*capacity + i]
//     tensor[n][m]    v(i, a, b)  data[(a*m + b)*capacity + i]
//
// It owns nothing and is trivially copyable, so it is passed by value into a __global__
// kernel and the kernel needs no capacity arithmetic. It carries no pointer tables that could
// go stale: a view is only as valid as the raw pointer it holds, i.e. until the vector's
// generation changes (pvec.h, "Pointer lifetime"). Obtain one with pvec::vector::host_view or
// pvec::vector::device_view (pvec.hpp); this header alone needs neither CUDA nor pvec.h, so
// it can be included by device-only translation units.
#ifndef PVEC_VIEW_HPP
#define PVEC_VIEW_HPP

#include <cstdint>
#include <type_traits>

/// Marks functions callable from host and device code when compiled by nvcc (or clang CUDA),
/// and plain host functions otherwise.
#if defined(__CUDACC__)
#define PVEC_HOST_DEVICE __host__ __device__
#else
#define PVEC_HOST_DEVICE
#endif

namespace pvec {

/// Typed view of one property (or the positions) of a pvec vector, in either mirror.
///
/// T is the element type (float, double, std::int32_t, std::int64_t, std::uint32_t,
/// std::uint64_t), optionally const for read-only access. The members are public so that the
/// struct stays an aggregate; treat them as read-only. No bounds are checked: particle
/// indices are valid in [0, n_local + n_ghost) and component indices in [0, ncomp()).
template <class T>
struct view {
  /// Component 0 of particle 0 (pvec_host_ptr or pvec_device_ptr of the property).
  T* data;
  /// Component stride in elements, the vector's capacity C when the view was taken.
  std::int64_t capacity;
  /// Shape: {1, 1} for a scalar, {n, 1} for vector[n], {n, m} for tensor[n][m].
  std::int64_t extents[2];
  /// Generation of the vector the pointer belongs to (see pvec::vector::is_current).
  std::uint64_t generation;

  /// Scalar element of particle i (component 0 of any property).
  PVEC_HOST_DEVICE T& operator()(std::int64_t i) const { return data[i]; }
  /// Component c of particle i: data[c*capacity + i].
  PVEC_HOST_DEVICE T& operator()(std::int64_t i, std::int64_t c) const {
    return data[c * capacity + i];
  }
  /// Tensor entry (a, b) of particle i: data[(a*m + b)*capacity + i] with m = extents[1].
  PVEC_HOST_DEVICE T& operator()(std::int64_t i, std::int64_t a, std::int64_t b) const {
    return data[(a * extents[1] + b) * capacity + i];
  }
  /// Number of components per particle (product of the extents).
  PVEC_HOST_DEVICE std::int64_t ncomp() const { return extents[0] * extents[1]; }
};

// The view travels to kernels by value (a byte copy into the parameter buffer); these are the
// properties that make that legal and cheap.
static_assert(std::is_trivially_copyable<view<float>>::value, "view must be trivially copyable");
static_assert(std::is_trivially_copyable<view<const double>>::value,
              "view must be trivially copyable");
static_assert(std::is_standard_layout<view<float>>::value, "view must be standard layout");

}  // namespace pvec

#endif  // PVEC_VIEW_HPP
