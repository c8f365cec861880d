// Lists of particle indices in half the bytes where they fit.
#pragma once

#include "common/hd.hpp"

#include <cstdint>

namespace pvec::impl {

// A list of particle indices (or any non-negative positions), stored as int32 when every
// index is below 2^31 (narrow: half the bytes to write and read) and as int64 otherwise. The
// choice is made at run time per list; reading or writing an element takes one branch that is
// the same for every thread.
struct IndexList {
  void* data = nullptr;
  bool narrow = false;

  // Whether indices below `bound` fit a narrow list.
  static constexpr bool fits_narrow(int64_t bound) { return bound <= int64_t{2147483648}; }
  static constexpr int64_t elem_size(bool narrow) { return narrow ? 4 : 8; }
  int64_t elem_size() const { return elem_size(narrow); }

  PVEC_HD int64_t operator[](int64_t j) const {
    return narrow ? static_cast<const int32_t*>(data)[j] : static_cast<const int64_t*>(data)[j];
  }
  PVEC_HD void set(int64_t j, int64_t v) const {
    if (narrow)
      static_cast<int32_t*>(data)[j] = static_cast<int32_t>(v);
    else
      static_cast<int64_t*>(data)[j] = v;
  }
};

// Whether ghost_get stores its lists of indices below `bound` narrow: IndexList::fits_narrow,
// unless a white-box test called force_wide_indices(true) to run, at small sizes, the path of
// ranks with more than 2^31 particles. Not thread-safe against running calls; tests only.
bool narrow_indices(int64_t bound);
void force_wide_indices(bool wide);

}  // namespace pvec::impl
