// The row kernels: PackRows (entries into message blocks), MoveRows (particles onto holes)
// and UnpackRows (map's arrivals into holes and after the old end).
#pragma once

#include "common/hd.hpp"
#include "common/index_list.hpp"
#include "exchange/block_index.cuh"
#include "exchange/row_table.cuh"

#include <cstdint>

namespace pvec::impl {

// Copy particle src[j] onto particle dst[j] in every component (filling holes left by movers).
struct MoveRows {
  RowTable t;
  const int64_t* dst;
  const int64_t* src;
  PVEC_HD void operator()(int64_t j) const {
    const int64_t s = src[j], d = dst[j];
    copy_row<float>(
        t, [&](int f) { return t.at(f, s); }, [&](int f) { return t.at(f, d); }, 0u);
  }
};

// map's unpack: arrival a (the received particles in rank order) into row holes[a] while
// there are holes (the movers' rows), then into rows n, n + 1, ... (the rows after the old
// end). Its values are particle a - first[r] of the k = count[r] in rank r's block.
struct UnpackRows {
  RowTable t;
  const char* buf;
  const int64_t* block_off;  // bytes, per rank
  const int64_t* first;      // first arrival of each rank (non-decreasing)
  const int64_t* count;
  int P;
  const int64_t* holes;
  int64_t n_holes;
  int64_t n;
  PVEC_HD void operator()(int64_t a) const {
    int lo = 0, hi = P - 1;  // the last rank whose first arrival is at or before a
    while (lo < hi) {
      const int mid = (lo + hi + 1) / 2;
      if (first[mid] <= a)
        lo = mid;
      else
        hi = mid - 1;
    }
    const int64_t k = count[lo], local = a - first[lo];
    const int64_t r = a < n_holes ? holes[a] : n + (a - n_holes);
    const char* block = buf + block_off[lo];
    copy_row<float>(
        t, [&](int f) { return t.in_block(f, block, k, local); }, [&](int f) { return t.at(f, r); },
        0u);
  }
};

// Entry j into its peer's message block (or its ghost row), every component in one pass (the
// entry's indices are read once for all). P is the position type, for the shifted components.
template <class P>
struct PackRows {
  RowTable t;
  BlockIndex at;
  char* buf;
  IndexList src;
  const int32_t* shift;  // packed periodic shifts, or null
  PVEC_HD void operator()(int64_t j) const {
    const Slot slot = at.slot(j, buf);
    const int64_t s = src[j];
    const uint32_t code = shift != nullptr ? static_cast<uint32_t>(shift[j]) : 0u;
    auto from = [&](int f) { return t.at(f, s); };
    if (slot.direct)
      copy_row<P>(
          t, from, [&](int f) { return t.at(f, slot.row); }, code);
    else
      copy_row<P>(
          t, from, [&](int f) { return t.in_block(f, slot.block, slot.k, slot.local); }, code);
  }
};

}  // namespace pvec::impl
