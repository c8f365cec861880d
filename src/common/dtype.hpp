// Element types: sizes and names.
#pragma once

#include <pvec.h>

#include <cstddef>

namespace pvec::impl {

inline bool dtype_valid(int d) { return d >= PVEC_FLOAT32 && d <= PVEC_UINT64; }

inline size_t dtype_size(int d) {
  switch (d) {
    case PVEC_FLOAT32:
    case PVEC_INT32:
    case PVEC_UINT32:
      return 4;
    case PVEC_FLOAT64:
    case PVEC_INT64:
    case PVEC_UINT64:
      return 8;
    default:
      return 0;
  }
}

inline const char* dtype_name(int d) {
  switch (d) {
    case PVEC_FLOAT32:
      return "float32";
    case PVEC_FLOAT64:
      return "float64";
    case PVEC_INT32:
      return "int32";
    case PVEC_INT64:
      return "int64";
    case PVEC_UINT32:
      return "uint32";
    case PVEC_UINT64:
      return "uint64";
    default:
      return "unknown";
  }
}

}  // namespace pvec::impl
