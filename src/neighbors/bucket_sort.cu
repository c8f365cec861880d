// bucket_sort (bucket_sort.hpp). Device, from 2^15 items: keys of more than 16 bits take the
// tiled sort (tile_sort.hpp: CUB's passes but the last, then one pass per tile of buckets that
// writes the order and the offsets) in bucket_sort (cell lists) and bucket_order (the locality
// sort) alike. Otherwise, or where a tile is crowded: a stable radix sort of (key, item) (CUB, over
// the bits the keys use; the caller's key pass may have written the identity it sorts), then the
// bucket offsets in one pass over the sorted keys that writes every entry once (empty buckets
// included; nothing zeroed or scanned): no atomics but one per run of more than 32 empty buckets,
// so rows in random order cost what rows in cell order do. Device, fewer items: one atomic per item
// counts the buckets and gives each item a slot, a scan makes the offsets, a scatter places the
// items, and one thread per bucket sorts its (short) bucket by item, which makes the order
// deterministic; a bucket of more than 64 items sends that sort to the radix sort. Host: the same
// passes as loops, in item order, which is stable by construction. Every path gives the same
// arrays.
#include "neighbors/bucket_sort.hpp"

#include "backend/device.hpp"
#include "backend/for_each.cuh"
#include "common/error.hpp"
#include "neighbors/neighbor_dispatch.hpp"
#include "neighbors/tile_sort.hpp"
#include "primitives/primitives.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#if defined(__CUDACC__)
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#endif

namespace pvec::impl {

namespace {

constexpr int32_t kShortBucket = 64;

struct CountSlots {
  const int32_t* keys;
  int32_t* counts;
  int32_t* slot;
  PVEC_HD void operator()(int64_t i) const { slot[i] = claim_slot(counts, keys[i]); }
};

struct Place {
  const int32_t* keys;
  const int32_t* offsets;
  const int32_t* slot;
  int32_t* order;
  PVEC_HD void operator()(int64_t i) const {
    order[offsets[keys[i]] + slot[i]] = static_cast<int32_t>(i);
  }
};

// One bucket: sort it by item (device only; short buckets), and count its items < n_split.
struct SortBucket {
  const int32_t* offsets;
  int32_t* order;
  int32_t* split;  // may be null
  int32_t n_split;
  int32_t* too_long;
  bool sort;
  PVEC_HD void operator()(int64_t b) const {
    const int32_t beg = offsets[b], m = offsets[b + 1] - beg;
    int32_t* a = order + beg;
    if (sort) {
      if (m > kShortBucket) {
        *too_long = 1;
        return;
      }
      for (int32_t k = 1; k < m; ++k) {  // insertion sort: buckets hold a few items
        const int32_t v = a[k];
        int32_t j = k - 1;
        while (j >= 0 && a[j] > v) {
          a[j + 1] = a[j];
          --j;
        }
        a[j + 1] = v;
      }
    }
    if (split != nullptr) {  // ascending: binary search for the first item >= n_split
      int32_t lo = 0, hi = m;
      while (lo < hi) {
        const int32_t mid = (lo + hi) / 2;
        if (a[mid] < n_split)
          lo = mid + 1;
        else
          hi = mid;
      }
      split[b] = lo;
    }
  }
};

struct Iota {
  int32_t* v;
  PVEC_HD void operator()(int64_t i) const { v[i] = static_cast<int32_t>(i); }
};

// offsets[k + 1] = one past the last item of bucket k, for the buckets that hold items.
struct RunEnds {
  const int32_t* sorted;
  int64_t n;
  int32_t* offsets;
  PVEC_HD void operator()(int64_t e) const {
    const int32_t k = sorted[e];
    if (e + 1 == n || sorted[e + 1] != k) offsets[k + 1] = static_cast<int32_t>(e + 1);
  }
};

struct SplitOfIdentity {
  const int32_t* offsets;
  int32_t n_split;
  int32_t* split;
  PVEC_HD void operator()(int64_t b) const {
    split[b] = offsets[b] < n_split ? offsets[b] : n_split;
  }
};

// What the device path uses for n items: the radix sort from kRadixFrom items (below that the
// counting sort's atomics cost less than CUB's passes).
constexpr int64_t kRadixFrom = int64_t{1} << 15;

bool use_radix(int64_t n) { return n >= kRadixFrom; }

#if defined(__CUDACC__)
constexpr int kKeysPerThread = 4;   // sorted keys one thread reads (one 16-byte load)
constexpr int32_t kGapInline = 32;  // empty buckets a thread fills itself; longer runs are listed

// offsets[c] = value for c in [from, to]: the first kGapInline by this thread, the rest listed
// in gaps (gaps[0] counts them, then triples first/last/value) for offsets_gaps_kernel.
__device__ inline void fill_offsets(int32_t* offsets, int32_t from, int32_t to, int32_t value,
                                    int32_t* gaps) {
  const int32_t inline_end = to - from < kGapInline ? to : from + kGapInline - 1;
  for (int32_t c = from; c <= inline_end; ++c) offsets[c] = value;
  if (inline_end < to) {
    const int32_t g = atomicAdd(gaps, 1);
    gaps[1 + 3 * g] = inline_end + 1;
    gaps[2 + 3 * g] = to;
    gaps[3 + 3 * g] = value;
  }
}

// Each thread takes kKeysPerThread sorted keys and writes, for each key e whose successor is
// larger, offsets[c] = e + 1 for every bucket c after it up to the successor's (the end for the
// last key, nb standing for "no successor"); the first thread also buckets [0, key 0]. Every
// entry of offsets is written exactly once, so nothing is zeroed or scanned first.
__global__ void offsets_of_sorted_kernel(const int32_t* sorted, int64_t n, int32_t nb, bool aligned,
                                         int32_t* offsets, int32_t* gaps) {
  const int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t e0 = t * kKeysPerThread;
  if (e0 >= n) return;
  int32_t k[kKeysPerThread + 1];
  if (aligned && e0 + kKeysPerThread <= n) {
    const int4 v = reinterpret_cast<const int4*>(sorted)[t];
    k[0] = v.x, k[1] = v.y, k[2] = v.z, k[3] = v.w;
  } else {
#pragma unroll
    for (int j = 0; j < kKeysPerThread; ++j) k[j] = e0 + j < n ? sorted[e0 + j] : nb;
  }
  k[kKeysPerThread] = e0 + kKeysPerThread < n ? sorted[e0 + kKeysPerThread] : nb;
  if (e0 == 0) fill_offsets(offsets, 0, k[0], 0, gaps);
#pragma unroll
  for (int j = 0; j < kKeysPerThread; ++j)
    if (e0 + j < n && k[j + 1] > k[j])
      fill_offsets(offsets, k[j] + 1, k[j + 1], static_cast<int32_t>(e0 + j + 1), gaps);
}

__global__ void offsets_gaps_kernel(const int32_t* gaps, int32_t* offsets) {
  const int32_t m = gaps[0];
  for (int32_t g = static_cast<int32_t>(blockIdx.x); g < m; g += static_cast<int32_t>(gridDim.x)) {
    const int32_t first = gaps[1 + 3 * g], last = gaps[2 + 3 * g], value = gaps[3 + 3 * g];
    for (int32_t c = first + static_cast<int32_t>(threadIdx.x); c <= last;
         c += static_cast<int32_t>(blockDim.x))
      offsets[c] = value;
  }
}
#endif

// offsets[nb + 1] of sorted keys (n of them, in [0, nb)): offsets[k] = first position of a
// key >= k. Queued on exec. Host: the run ends, then a running max fills the empty buckets.
// Device: one pass over the keys writes every entry once (offsets_of_sorted_kernel).
void bucket_offsets_of_sorted(const Exec& exec, const int32_t* sorted_keys, int64_t n, int64_t nb,
                              int32_t* offsets, BucketScratch& s) {
  const size_t nb1 = static_cast<size_t>(nb + 1);
  if (!exec.on_device || n == 0) {
    zero_2d(offsets, nb1 * sizeof(int32_t), nb1 * sizeof(int32_t), 1, exec.on_device, exec.stream);
    if (exec.on_device) return;
    for_each(exec, n, RunEnds{sorted_keys, n, offsets});
    for (size_t k = 1; k < nb1; ++k) offsets[k] = std::max(offsets[k], offsets[k - 1]);
    return;
  }
#if defined(__CUDACC__)
  cudaStream_t st = static_cast<cudaStream_t>(exec.stream);
  // Gaps longer than kGapInline are disjoint runs of buckets: at most nb1 / (kGapInline + 1).
  const size_t max_gaps = nb1 / (kGapInline + 1) + 1;
  int32_t* gaps = s.gaps.ensure_as<int32_t>(1 + 3 * max_gaps);
  zero_2d(gaps, sizeof(int32_t), sizeof(int32_t), 1, true, exec.stream);
  constexpr int kBlock = 256;
  const int64_t threads = (n + kKeysPerThread - 1) / kKeysPerThread;
  offsets_of_sorted_kernel<<<static_cast<unsigned>((threads + kBlock - 1) / kBlock), kBlock, 0,
                             st>>>(sorted_keys, n, static_cast<int32_t>(nb),
                                   reinterpret_cast<uintptr_t>(sorted_keys) % 16 == 0, offsets,
                                   gaps);
  check_launch("bucket offsets of sorted keys");
  offsets_gaps_kernel<<<128, kBlock, 0, st>>>(gaps, offsets);
  check_launch("bucket offsets of sorted keys (long gaps)");
#else
  (void)s;
  fail(PVEC_ERROR_INTERNAL, "device bucket offsets in a build without CUDA");
#endif
}

// The stable radix sort of (key, item) for items [0, n): order gets the items by key, the
// sorted keys stay in s.keys_alt (device only).
const int32_t* radix_order(const Exec& exec, const int32_t* keys, int64_t n, int64_t nb,
                           int32_t* order, BucketScratch& s, const int32_t* identity) {
  return radix_sort_pairs(exec, keys, n, 0, bucket_key_bits(nb), order, s, identity);
}

// The radix path of bucket_sort (device only).
void radix_bucket_sort(const Exec& exec, const int32_t* keys, int64_t n, int64_t nb,
                       int64_t n_split, int32_t* offsets, int32_t* order, int32_t* split_offsets,
                       BucketScratch& s, const int32_t* identity) {
  if (!tile_sort_if_suited(exec, keys, n, nb, identity, order, offsets, s)) {
    const int32_t* sorted = radix_order(exec, keys, n, nb, order, s, identity);
    bucket_offsets_of_sorted(exec, sorted, n, nb, offsets, s);
  }
  if (split_offsets == nullptr) return;
  if (n_split >= n) {  // every item is below the split: the split offsets are the offsets
    copy_bytes(split_offsets, offsets, static_cast<size_t>(nb + 1) * sizeof(int32_t), true,
               exec.stream);
    return;
  }
  const int32_t split = static_cast<int32_t>(n_split);
  for_each(exec, nb, SortBucket{offsets, order, split_offsets, split, nullptr, false});
  bucket_scan_in_place(exec, split_offsets, nb + 1, s.tmp);
}

void check_sizes(int64_t n, int64_t nb) {
  if (n < 0 || n > INT32_MAX || nb <= 0 || nb >= INT32_MAX)
    fail(PVEC_ERROR_NOT_SUPPORTED, "bucket sort of ", n, " items into ", nb,
         " buckets: both must be below 2^31");
}

// The atomic path after the counting: offsets[k] holds bucket k's count, slot[i] item i's
// place in its bucket (claim_slot).
void bucket_sort_counted(const Exec& exec, const int32_t* keys, const int32_t* slot, int64_t n,
                         int64_t nb, int64_t n_split, int32_t* offsets, int32_t* order,
                         int32_t* split_offsets, BucketScratch& s) {
  const bool dev = exec.on_device;
  bucket_scan_in_place(exec, offsets, nb + 1, s.tmp);
  for_each(exec, n, Place{keys, offsets, slot, order});
  const int32_t split = static_cast<int32_t>(std::min<int64_t>(n_split, n));
  if (!dev) {  // placed in item order: already stable
    if (split_offsets != nullptr) {
      for_each(exec, nb, SortBucket{offsets, order, split_offsets, split, nullptr, false});
      bucket_scan_in_place(exec, split_offsets, nb + 1, s.tmp);
    }
    return;
  }
#if defined(__CUDACC__)
  int32_t* too_long = s.flag.ensure_as<int32_t>(1);
  zero_2d(too_long, sizeof(int32_t), sizeof(int32_t), 1, true, exec.stream);
  for_each(exec, nb, SortBucket{offsets, order, split_offsets, split, too_long, true});
  int32_t flag_host = 0;
  copy_bytes(&flag_host, too_long, sizeof flag_host, true, exec.stream);
  stream_synchronize(exec.stream);
  if (flag_host != 0) {
    // Long buckets: a stable radix sort of (key, item), then only the split counts.
    radix_order(exec, keys, n, nb, order, s, nullptr);
    if (split_offsets != nullptr)
      for_each(exec, nb, SortBucket{offsets, order, split_offsets, split, too_long, false});
  }
  if (split_offsets != nullptr) bucket_scan_in_place(exec, split_offsets, nb + 1, s.tmp);
#endif
}

}  // namespace

const int32_t* radix_sort_pairs(const Exec& exec, const int32_t* keys, int64_t n, int begin_bit,
                                int end_bit, int32_t* items_out, BucketScratch& s,
                                const int32_t* identity) {
#if defined(__CUDACC__)
  cudaStream_t st = static_cast<cudaStream_t>(exec.stream);
  int32_t* keys_out = s.keys_alt.ensure_as<int32_t>(std::max<int64_t>(n, 1));
  const int32_t* items = identity;  // else 0..n-1, written here
  if (items == nullptr) {
    int32_t* v = s.vals_in.ensure_as<int32_t>(std::max<int64_t>(n, 1));
    for_each(exec, n, Iota{v});
    items = v;
  }
  const int items_n = as_cub_count(n);
  size_t bytes = 0;
  check_cuda(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys, keys_out, items, items_out,
                                             items_n, begin_bit, end_bit, st),
             "cub::DeviceRadixSort::SortPairs");
  check_cuda(
      cub::DeviceRadixSort::SortPairs(s.tmp.ensure(std::max<size_t>(bytes, 1)), bytes, keys,
                                      keys_out, items, items_out, items_n, begin_bit, end_bit, st),
      "cub::DeviceRadixSort::SortPairs");
  return keys_out;
#else
  (void)exec, (void)keys, (void)n, (void)begin_bit, (void)end_bit, (void)items_out, (void)s,
      (void)identity;
  fail(PVEC_ERROR_INTERNAL, "device radix sort in a build without CUDA");
#endif
}

int bucket_key_bits(int64_t nb) {
  int b = 1;
  while (b < 31 && (int64_t{1} << b) < nb) ++b;
  return b;
}

void bucket_scan_in_place(const Exec& exec, int32_t* data, int64_t n_plus_1, ScratchBuffer& tmp) {
  if (!exec.on_device) {
    int32_t run = 0;
    for (int64_t i = 0; i < n_plus_1; ++i) {
      const int32_t v = data[i];
      data[i] = run;
      run += v;
    }
    return;
  }
#if defined(__CUDACC__)
  cudaStream_t s = static_cast<cudaStream_t>(exec.stream);
  const int items = as_cub_count(n_plus_1);
  size_t bytes = 0;
  check_cuda(cub::DeviceScan::ExclusiveSum(nullptr, bytes, data, data, items, s),
             "cub::DeviceScan::ExclusiveSum");
  check_cuda(cub::DeviceScan::ExclusiveSum(tmp.ensure(std::max<size_t>(bytes, 1)), bytes, data,
                                           data, items, s),
             "cub::DeviceScan::ExclusiveSum");
#else
  fail(PVEC_ERROR_INTERNAL, "device scan in a build without CUDA");
#endif
}

void bucket_sort_presorted(const Exec& exec, const int32_t* keys, int64_t n, int64_t nb,
                           int64_t n_split, int32_t* offsets, int32_t* order,
                           int32_t* split_offsets, BucketScratch& s, bool order_written) {
  check_sizes(n, nb);
  if (!order_written) for_each(exec, n, Iota{order});
  bucket_offsets_of_sorted(exec, keys, n, nb, offsets, s);
  if (split_offsets != nullptr) {
    const int32_t split = static_cast<int32_t>(std::min<int64_t>(n_split, n));
    for_each(exec, nb + 1, SplitOfIdentity{offsets, split, split_offsets});
  }
}

void bucket_sort(const Exec& exec, const int32_t* keys, int64_t n, int64_t nb, int64_t n_split,
                 int32_t* offsets, int32_t* order, int32_t* split_offsets, BucketScratch& s,
                 const int32_t* identity) {
  check_sizes(n, nb);
  const bool dev = exec.on_device;
  if (dev && use_radix(n)) {
    radix_bucket_sort(exec, keys, n, nb, n_split, offsets, order, split_offsets, s, identity);
    return;
  }
  const size_t nb1 = static_cast<size_t>(nb + 1);
  zero_2d(offsets, nb1 * sizeof(int32_t), nb1 * sizeof(int32_t), 1, dev, exec.stream);
  int32_t* slot = s.slot.ensure_as<int32_t>(std::max<int64_t>(n, 1));
  for_each(exec, n, CountSlots{keys, offsets, slot});
  bucket_sort_counted(exec, keys, slot, n, nb, n_split, offsets, order, split_offsets, s);
}

void bucket_order(const Exec& exec, const int32_t* keys, int64_t n, int64_t nb, int32_t* order,
                  ScratchBuffer& offsets_scratch, BucketScratch& s, const int32_t* identity) {
  check_sizes(n, nb);
  if (exec.on_device && use_radix(n)) {
    if (!tile_sort_if_suited(exec, keys, n, nb, identity, order, nullptr, s))
      radix_order(exec, keys, n, nb, order, s, identity);
    return;
  }
  int32_t* offsets = offsets_scratch.ensure_as<int32_t>(static_cast<size_t>(nb + 1));
  bucket_sort(exec, keys, n, nb, n, offsets, order, nullptr, s);
}

}  // namespace pvec::impl
