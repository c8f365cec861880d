// Run-time values to template parameters: the dimension, the position type, the dtype of a
// column, each calling f with a tag of the value.
#pragma once

#include <pvec.h>

#include <cstdint>
#include <type_traits>

namespace pvec::impl {

// Calls f(std::integral_constant<int, D>) for the vector's dimension D.
template <class F>
void with_dim(int dim, F&& f) {
  switch (dim) {
    case 1:
      f(std::integral_constant<int, 1>{});
      break;
    case 2:
      f(std::integral_constant<int, 2>{});
      break;
    case 3:
      f(std::integral_constant<int, 3>{});
      break;
    default:
      f(std::integral_constant<int, 4>{});
      break;
  }
}

template <class F>
void with_pos_type(pvec_dtype t, F&& f) {
  if (t == PVEC_FLOAT32)
    f(float{});
  else
    f(double{});
}

template <class F>
void with_dtype(pvec_dtype t, F&& f) {
  switch (t) {
    case PVEC_FLOAT32:
      f(float{});
      break;
    case PVEC_FLOAT64:
      f(double{});
      break;
    case PVEC_INT32:
      f(int32_t{});
      break;
    case PVEC_INT64:
      f(int64_t{});
      break;
    case PVEC_UINT32:
      f(uint32_t{});
      break;
    default:
      f(uint64_t{});
      break;
  }
}

}  // namespace pvec::impl
