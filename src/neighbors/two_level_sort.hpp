// two_level_sort: the device bucket sort of many keys (cell lists) in two CUB digit passes
// and one pass in shared memory, instead of three digit passes, an offsets pass and a split
// pass. Tried by bucket_sort's radix path when enabled and the keys suit it (below); it gives
// the same arrays as the other paths.
//
// 1. CUB's stable radix sort of (key, item) over the upper 16 of the keys' bits [L, bits):
//    rows are then grouped by bucket (key >> L, 2^L cells each), in item order within one.
// 2. The rows are cut into spans of whole buckets: span j holds the buckets whose first row
//    lies in [j * 2048, (j + 1) * 2048), so neighbouring spans agree on their bounds without
//    talking (one warp per span finds them, bounds_kernel).
// 3. One block per span loads its rows (at most 4096) into shared memory, sorts them stably by
//    their key's offset from the span's first cell (a block radix sort over the few bits that
//    span needs), and writes its rows of the order, the offsets of its cells (and of the empty
//    cells before its first bucket) and, with a split, each cell's count of items below it.
//
// A span of more than 4096 rows (a crowded bucket) or of more than 2^15 cells cannot be sorted
// in shared memory: the call then reports that it fell back, and the caller runs the three
// passes (the outputs of this call are overwritten).
#pragma once

#include "backend/exec.hpp"
#include "neighbors/bucket_sort.hpp"

#include <cstdint>

namespace pvec::impl {

// What two_level_bucket_sort did.
enum class TwoLevel {
  unsuited,  // not tried: few bits, or rows per bucket outside what a span holds
  sorted,    // order, offsets and split_offsets are written (queued on exec's stream)
  fell_back  // tried and a span did not fit: the outputs are garbage, the caller sorts
};

// Whether bucket_sort tries the two-level path: only with PVEC_BUCKET_SORT=two_level, read at
// each call. Off by default until it has run on a GPU: written on 2026-12-03 without device
// time; its white-box test (tests/neighbors/test_two_level_sort.cpp) and the benchmark row
// cell_list_two_level are what decide whether it becomes the default.
bool two_level_enabled();

// Whether keys of nb buckets over n items suit the two-level path (host-side test, no work).
bool two_level_suits(int64_t n, int64_t nb);

// The arrays of bucket_sort (same meaning, device only, n and nb below 2^31), through the
// decomposition above. identity: as for bucket_sort (may be null; then s.vals_in gets it).
// Synchronizes the stream once (to read whether a span overflowed) when it runs.
TwoLevel two_level_bucket_sort(const Exec& exec, const int32_t* keys, int64_t n, int64_t nb,
                               int64_t n_split, int32_t* offsets, int32_t* order,
                               int32_t* split_offsets, BucketScratch& s, const int32_t* identity);

}  // namespace pvec::impl
