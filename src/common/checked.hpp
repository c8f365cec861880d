// Checked arithmetic on sizes: overflow is an error with a message, never a wrap.
#pragma once

#include "common/error.hpp"

#include <cstdint>
#include <limits>

namespace pvec::impl {

// Multiply two non-negative sizes, failing with PVEC_ERROR_OVERFLOW past INT64_MAX.
inline int64_t checked_mul(int64_t a, int64_t b, const char* what) {
  if (a != 0 && b > std::numeric_limits<int64_t>::max() / a)
    fail(PVEC_ERROR_OVERFLOW, what, ": ", a, " x ", b, " overflows int64");
  return a * b;
}

}  // namespace pvec::impl
