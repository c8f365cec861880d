// two_level_bucket_sort (two_level_sort.hpp). Device only; a build without CUDA compiles the
// suitability test and a function that reports `unsuited` (bucket_sort's host path has no
// radix sort to replace).
#include "neighbors/two_level_sort.hpp"

#include "backend/device.hpp"
#include "common/error.hpp"
#include "primitives/primitives.hpp"

#include <cstdlib>
#include <cstring>

#if defined(__CUDACC__)
#include <cub/block/block_radix_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#endif

namespace pvec::impl {

namespace {

constexpr int kUpperBits = 16;           // bits CUB sorts: two 8-bit digit passes
constexpr int64_t kSpanRows = 2048;      // nominal rows per span (spans move to bucket bounds)
constexpr int kThreads = 256;            // one block per span
constexpr int kItems = 16;               // rows per thread
constexpr int kCap = kThreads * kItems;  // rows a span may hold (4096: 32 KB of shared memory)
constexpr int kMaxSpanBits = 15;         // a span's cells: its keys' offsets stay below 2^15
constexpr int kRadixBits = 5;            // digit of the block sort (9-bit offsets: two passes)
// Rows per bucket (2^L cells) the path accepts, on average: a span then holds about
// kSpanRows + that, which leaves room below kCap for buckets above the mean. Fewer than one
// row per 8 cells makes spans of too many cells.
constexpr double kMaxRowsPerBucket = 1800;
constexpr double kMinRowsPerCell = 0.125;

#if defined(__CUDACC__)
__global__ void iota_kernel(int32_t* v, int64_t n) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    v[i] = static_cast<int32_t>(i);
}

// The first r in [lo, hi) with (keys[r] >> L) > b0, or hi, for keys non-decreasing in their
// bucket (the predicate is monotone): a 32-way search, three rounds over a 4096-row window.
__device__ int64_t warp_first_above(const int32_t* keys, int L, int32_t b0, int64_t lo, int64_t hi,
                                    int lane) {
  while (hi - lo > 32) {
    const int64_t step = (hi - lo + 31) / 32;
    const int64_t r = lo + lane * step;
    const bool p = r < hi && (__ldg(keys + r) >> L) > b0;
    const unsigned m = __ballot_sync(0xffffffffu, p);
    if (m == 0) {
      lo += ((hi - 1 - lo) / step) * step + 1;  // past the last sample, which was below
    } else {
      const int f = __ffs(static_cast<int>(m)) - 1;
      if (f == 0) return lo;
      hi = lo + f * step;
      lo += (f - 1) * step + 1;
    }
  }
  const int64_t r = lo + lane;
  const unsigned m = __ballot_sync(0xffffffffu, r < hi && (__ldg(keys + r) >> L) > b0);
  return m != 0 ? lo + __ffs(static_cast<int>(m)) - 1 : hi;
}

// bounds[j] for j in [0, spans]: the first bucket start at or after row j * kSpanRows (n for
// the last). One warp per bound. A bucket that runs on for kCap rows past a nominal bound has
// no start in the window: the span around it cannot fit, which sets *overflow.
__global__ void bounds_kernel(const int32_t* sorted, int64_t n, int L, int64_t spans,
                              int64_t* bounds, int32_t* overflow) {
  const int64_t j = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x & 31u);
  if (j > spans) return;
  if (j == 0 || j == spans) {
    if (lane == 0) bounds[j] = j == 0 ? 0 : n;
    return;
  }
  const int64_t lo = j * kSpanRows;
  const int64_t hi = lo + kCap < n ? lo + kCap : n;
  const int64_t b = warp_first_above(sorted, L, __ldg(sorted + lo - 1) >> L, lo, hi, lane);
  if (lane == 0) {
    bounds[j] = b;
    if (b == hi && hi < n) atomicOr(overflow, 1);
  }
}

// Position of row r in the span's shared arrays: one word of padding per 32 rows.
__device__ inline int pad(int r) { return r + (r >> 5); }

// The first of rows [lo, hi) (ascending in a) with a[pad(row)] >= x, or hi.
__device__ inline int lower_bound_rows(const int32_t* a, int lo, int hi, int32_t x) {
  while (lo < hi) {
    const int mid = (lo + hi) >> 1;
    if (a[pad(mid)] < x)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// One block per span [bounds[j], bounds[j + 1]) of rows grouped by bucket (sorted: the keys,
// order: the items in the same positions, rewritten in place). See two_level_sort.hpp, step 3.
// split_counts (may be null): each cell's count of items below n_split, for the caller's scan.
__global__ void __launch_bounds__(kThreads, 2)
    span_sort_kernel(const int32_t* __restrict__ sorted, int32_t* __restrict__ order,
                     const int64_t* __restrict__ bounds, int64_t n, int32_t nb, int L,
                     int32_t n_split, int32_t* __restrict__ offsets,
                     int32_t* __restrict__ split_counts, int32_t* __restrict__ overflow) {
  using Sort = cub::BlockRadixSort<uint32_t, kThreads, kItems, int32_t, kRadixBits>;
  __shared__ union {
    typename Sort::TempStorage sort;
    struct {  // rows of the span, at pad(r): blocked reads and striped writes without conflicts
      int32_t key[kCap + kCap / 32];
      int32_t item[kCap + kCap / 32];
    } rows;
  } sm;
  const int64_t s = bounds[blockIdx.x], e = bounds[blockIdx.x + 1];
  if (e <= s) return;  // no bucket starts here: the next span holds them
  if (e - s > kCap) {
    if (threadIdx.x == 0) atomicOr(overflow, 1);
    return;
  }
  const int m = static_cast<int>(e - s);
  const int32_t first_bucket = __ldg(sorted + s) >> L;
  const int32_t last_bucket = __ldg(sorted + e - 1) >> L;
  const int64_t base = static_cast<int64_t>(first_bucket) << L;
  const int64_t top = ((static_cast<int64_t>(last_bucket) + 1) << L) - base;  // cells spanned
  if (top >= (int64_t{1} << kMaxSpanBits)) {
    if (threadIdx.x == 0) atomicOr(overflow, 1);
    return;
  }
  int end_bit = 1;
  while ((int64_t{1} << end_bit) <= top) ++end_bit;  // the padding key `top` fits too
  const int t = static_cast<int>(threadIdx.x);
  // Striped, coalesced loads of all rows first (keys as offsets from the span's first cell;
  // past the span the padding key `top`, which sorts last), then each thread's blocked rows.
#pragma unroll
  for (int q = 0; q < kItems; ++q) {
    const int r = t + q * kThreads;
    sm.rows.key[pad(r)] =
        r < m ? static_cast<int32_t>(__ldg(sorted + s + r) - base) : static_cast<int32_t>(top);
    sm.rows.item[pad(r)] = r < m ? order[s + r] : 0;
  }
  __syncthreads();
  uint32_t rel[kItems];
  int32_t v[kItems];
#pragma unroll
  for (int i = 0; i < kItems; ++i) {
    rel[i] = static_cast<uint32_t>(sm.rows.key[pad(t * kItems + i)]);
    v[i] = sm.rows.item[pad(t * kItems + i)];
  }
  __syncthreads();
  Sort(sm.sort).Sort(rel, v, 0, end_bit);  // stable: rows of a cell stay in item order
  __syncthreads();
#pragma unroll
  for (int i = 0; i < kItems; ++i) {
    sm.rows.key[pad(t * kItems + i)] = static_cast<int32_t>(rel[i]);
    sm.rows.item[pad(t * kItems + i)] = v[i];
  }
  __syncthreads();
  for (int r = t; r < m; r += kThreads) order[s + r] = sm.rows.item[pad(r)];
  // Cells from the end of the previous span's last bucket (the empty buckets between are
  // this span's) to the end of this span's last bucket, or through nb for the last span.
  const int64_t c_from = s == 0 ? 0 : ((static_cast<int64_t>(__ldg(sorted + s - 1) >> L) + 1) << L);
  const int64_t c_to = e == n ? static_cast<int64_t>(nb) + 1 : base + top;
  for (int64_t c = c_from + t; c < c_to; c += kThreads) {
    const int64_t x = c - base;
    const int lo = x <= 0     ? 0
                   : x >= top ? m
                              : lower_bound_rows(sm.rows.key, 0, m, static_cast<int32_t>(x));
    offsets[c] = static_cast<int32_t>(s + lo);
    if (split_counts != nullptr) {
      int count = 0;
      if (x >= 0 && x < top) {
        const int hi = lower_bound_rows(sm.rows.key, lo, m, static_cast<int32_t>(x + 1));
        count = lower_bound_rows(sm.rows.item, lo, hi, n_split) - lo;  // items ascend in a cell
      }
      split_counts[c] = count;
    }
  }
}
#endif

}  // namespace

bool two_level_enabled() {
  const char* e = std::getenv("PVEC_BUCKET_SORT");
  return e != nullptr && std::strcmp(e, "two_level") == 0;
}

bool two_level_suits(int64_t n, int64_t nb) {
  const int bits = bucket_key_bits(nb);
  if (bits <= kUpperBits || n <= 0) return false;
  const double per_cell = static_cast<double>(n) / static_cast<double>(nb);
  const double per_bucket = per_cell * static_cast<double>(int64_t{1} << (bits - kUpperBits));
  return per_cell >= kMinRowsPerCell && per_bucket <= kMaxRowsPerBucket;
}

TwoLevel two_level_bucket_sort(const Exec& exec, const int32_t* keys, int64_t n, int64_t nb,
                               int64_t n_split, int32_t* offsets, int32_t* order,
                               int32_t* split_offsets, BucketScratch& s, const int32_t* identity) {
  if (!exec.on_device || !two_level_suits(n, nb)) return TwoLevel::unsuited;
#if defined(__CUDACC__)
  cudaStream_t st = static_cast<cudaStream_t>(exec.stream);
  const int bits = bucket_key_bits(nb);
  const int L = bits - kUpperBits;
  const int items_n = as_cub_count(n);
  const int32_t* items = identity;
  if (items == nullptr) {
    int32_t* v = s.vals_in.ensure_as<int32_t>(n);
    iota_kernel<<<1024, 256, 0, st>>>(v, n);
    check_launch("two-level sort: identity");
    items = v;
  }
  // 1. Rows by bucket, stable.
  int32_t* sorted = s.keys_alt.ensure_as<int32_t>(n);
  size_t bytes = 0;
  check_cuda(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys, sorted, items, order, items_n, L,
                                             bits, st),
             "cub::DeviceRadixSort::SortPairs");
  check_cuda(cub::DeviceRadixSort::SortPairs(s.tmp.ensure(std::max<size_t>(bytes, 1)), bytes, keys,
                                             sorted, items, order, items_n, L, bits, st),
             "cub::DeviceRadixSort::SortPairs");
  // 2. Span bounds.
  const int64_t spans = (n + kSpanRows - 1) / kSpanRows;
  int64_t* bounds = s.bounds.ensure_as<int64_t>(spans + 1);
  int32_t* overflow = s.flag.ensure_as<int32_t>(1);
  zero_2d(overflow, sizeof(int32_t), sizeof(int32_t), 1, true, exec.stream);
  const int64_t bound_threads = (spans + 1) * 32;
  bounds_kernel<<<static_cast<unsigned>((bound_threads + 255) / 256), 256, 0, st>>>(
      sorted, n, L, spans, bounds, overflow);
  check_launch("two-level sort: span bounds");
  // 3. Each span in shared memory.
  const bool split_needed = split_offsets != nullptr && n_split < n;
  span_sort_kernel<<<static_cast<unsigned>(spans), kThreads, 0, st>>>(
      sorted, order, bounds, n, static_cast<int32_t>(nb), L,
      static_cast<int32_t>(std::max<int64_t>(n_split, 0)), offsets,
      split_needed ? split_offsets : nullptr, overflow);
  check_launch("two-level sort: spans");
  int32_t overflow_host = 0;
  copy_bytes(&overflow_host, overflow, sizeof overflow_host, true, exec.stream);
  stream_synchronize(exec.stream);
  if (overflow_host != 0) return TwoLevel::fell_back;
  if (split_offsets != nullptr) {
    if (split_needed)  // counts per cell (entry nb is 0) to their exclusive scan
      bucket_scan_in_place(exec, split_offsets, nb + 1, s.tmp);
    else  // every item is below the split: the split offsets are the offsets
      copy_bytes(split_offsets, offsets, static_cast<size_t>(nb + 1) * sizeof(int32_t), true,
                 exec.stream);
  }
  return TwoLevel::sorted;
#else
  (void)keys, (void)n_split, (void)offsets, (void)order, (void)split_offsets, (void)s,
      (void)identity;
  return TwoLevel::unsuited;
#endif
}

}  // namespace pvec::impl
