// Dimension dispatch for neighbour search, which exists for 1, 2 and 3 dimensions only
// (make_cell_grid refuses 4 before any kernel is chosen).
#pragma once

#include "common/hd.hpp"

#include <cstdint>
#include <type_traits>

namespace pvec::impl {

template <class F>
void with_dim123(int dim, F&& f) {
  if (dim == 1)
    f(std::integral_constant<int, 1>{});
  else if (dim == 2)
    f(std::integral_constant<int, 2>{});
  else
    f(std::integral_constant<int, 3>{});
}

// Bitwise or on the device (atomic), a plain or on the host (loops run in order). On the
// device the flag is read first (from L2) and the atomic skipped once the bits are set: the
// callers raise flags for conditions that may hold for most rows (rows out of cell order),
// where one atomic per row would queue on the one address.
PVEC_HD inline void flag_or(int32_t* p, int32_t bits) {
#if defined(__CUDA_ARCH__)
  if ((__ldcg(p) & bits) != bits) atomicOr(p, bits);
#else
  *p |= bits;
#endif
}

}  // namespace pvec::impl
