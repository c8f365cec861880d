// bucket_sort (bucket_sort.hpp). Device, from 2^15 items: a stable radix sort of (key, item)
// (CUB, over the bits the keys use), then the bucket offsets from where the sorted keys change
// (a max-scan fills the empty buckets): no atomics, so rows in random order cost what rows in
// cell order do. Device, fewer items (or PVEC_BUCKET_SORT=atomic): one atomic per item counts
// the buckets and gives each item a slot, a scan makes the offsets, a scatter places the items,
// and one thread per bucket sorts its (short) bucket by item, which makes the order
// deterministic; a bucket of more than 64 items sends that sort to the radix sort. Host: the
// same passes as loops, in item order, which is stable by construction. Every path gives the
// same arrays.
#include "neighbors/bucket_sort.hpp"

#include "backend/device.hpp"
#include "backend/for_each.cuh"
#include "common/error.hpp"
#include "neighbors/neighbor_dispatch.hpp"
#include "primitives/primitives.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#if defined(__CUDACC__)
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#endif

namespace pvec::impl {

#if defined(__CUDACC__)
void check_cuda(cudaError_t err, const char* what);
#endif

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

struct MaxOp {
  PVEC_HD int32_t operator()(int32_t a, int32_t b) const { return a > b ? a : b; }
};

// What the device path uses for n items: the radix sort from kRadixFrom items, unless the
// environment says otherwise (PVEC_BUCKET_SORT=atomic or radix; a diagnostic for benchmarks).
constexpr int64_t kRadixFrom = int64_t{1} << 15;

bool use_radix(int64_t n) {
  const char* e = std::getenv("PVEC_BUCKET_SORT");
  if (e != nullptr && std::strcmp(e, "atomic") == 0) return false;
  if (e != nullptr && std::strcmp(e, "radix") == 0) return true;
  return n >= kRadixFrom;
}

void scan_in_place(const Exec& exec, int32_t* data, int64_t n_plus_1, ScratchBuffer& tmp) {
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

[[maybe_unused]] int bits_for(int64_t nb) {  // used by the device paths only
  int b = 1;
  while (b < 31 && (int64_t{1} << b) < nb) ++b;
  return b;
}

// offsets[nb + 1] of sorted keys (n of them, in [0, nb)): offsets[k] = first position of a
// key >= k. Queued on exec; tmp is device scan storage.
void bucket_offsets_of_sorted(const Exec& exec, const int32_t* sorted_keys, int64_t n, int64_t nb,
                              int32_t* offsets, ScratchBuffer& tmp) {
  const size_t nb1 = static_cast<size_t>(nb + 1);
  zero_2d(offsets, nb1 * sizeof(int32_t), nb1 * sizeof(int32_t), 1, exec.on_device, exec.stream);
  for_each(exec, n, RunEnds{sorted_keys, n, offsets});
  if (!exec.on_device) {
    for (size_t k = 1; k < nb1; ++k) offsets[k] = std::max(offsets[k], offsets[k - 1]);
    return;
  }
#if defined(__CUDACC__)
  cudaStream_t s = static_cast<cudaStream_t>(exec.stream);
  const int items = as_cub_count(static_cast<int64_t>(nb1));
  size_t bytes = 0;
  check_cuda(cub::DeviceScan::InclusiveScan(nullptr, bytes, offsets, offsets, MaxOp{}, items, s),
             "cub::DeviceScan::InclusiveScan");
  check_cuda(cub::DeviceScan::InclusiveScan(tmp.ensure(std::max<size_t>(bytes, 1)), bytes, offsets,
                                            offsets, MaxOp{}, items, s),
             "cub::DeviceScan::InclusiveScan");
#else
  fail(PVEC_ERROR_INTERNAL, "device scan in a build without CUDA");
#endif
}

// The stable radix sort of (key, item) for items [0, n): order gets the items by key, the
// sorted keys stay in s.keys_alt (device only).
const int32_t* radix_order(const Exec& exec, const int32_t* keys, int64_t n, int64_t nb,
                           int32_t* order, BucketScratch& s) {
#if defined(__CUDACC__)
  cudaStream_t st = static_cast<cudaStream_t>(exec.stream);
  int32_t* keys_out = s.keys_alt.ensure_as<int32_t>(std::max<int64_t>(n, 1));
  int32_t* items = s.vals_in.ensure_as<int32_t>(std::max<int64_t>(n, 1));
  for_each(exec, n, Iota{items});
  const int items_n = as_cub_count(n);
  const int end_bit = bits_for(nb);
  size_t bytes = 0;
  check_cuda(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys, keys_out, items, order, items_n,
                                             0, end_bit, st),
             "cub::DeviceRadixSort::SortPairs");
  check_cuda(cub::DeviceRadixSort::SortPairs(s.tmp.ensure(std::max<size_t>(bytes, 1)), bytes, keys,
                                             keys_out, items, order, items_n, 0, end_bit, st),
             "cub::DeviceRadixSort::SortPairs");
  return keys_out;
#else
  (void)exec, (void)keys, (void)n, (void)nb, (void)order, (void)s;
  fail(PVEC_ERROR_INTERNAL, "device radix sort in a build without CUDA");
#endif
}

// The radix path of bucket_sort (device only).
void radix_bucket_sort(const Exec& exec, const int32_t* keys, int64_t n, int64_t nb,
                       int64_t n_split, int32_t* offsets, int32_t* order, int32_t* split_offsets,
                       BucketScratch& s) {
  const int32_t* sorted = radix_order(exec, keys, n, nb, order, s);
  bucket_offsets_of_sorted(exec, sorted, n, nb, offsets, s.tmp);
  if (split_offsets != nullptr) {
    const int32_t split = static_cast<int32_t>(std::min<int64_t>(n_split, n));
    for_each(exec, nb, SortBucket{offsets, order, split_offsets, split, nullptr, false});
    scan_in_place(exec, split_offsets, nb + 1, s.tmp);
  }
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
  scan_in_place(exec, offsets, nb + 1, s.tmp);
  for_each(exec, n, Place{keys, offsets, slot, order});
  const int32_t split = static_cast<int32_t>(std::min<int64_t>(n_split, n));
  if (!dev) {  // placed in item order: already stable
    if (split_offsets != nullptr) {
      for_each(exec, nb, SortBucket{offsets, order, split_offsets, split, nullptr, false});
      scan_in_place(exec, split_offsets, nb + 1, s.tmp);
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
    radix_order(exec, keys, n, nb, order, s);
    if (split_offsets != nullptr)
      for_each(exec, nb, SortBucket{offsets, order, split_offsets, split, too_long, false});
  }
  if (split_offsets != nullptr) scan_in_place(exec, split_offsets, nb + 1, s.tmp);
#endif
}

}  // namespace

void bucket_sort_presorted(const Exec& exec, const int32_t* keys, int64_t n, int64_t nb,
                           int64_t n_split, int32_t* offsets, int32_t* order,
                           int32_t* split_offsets, BucketScratch& s) {
  check_sizes(n, nb);
  for_each(exec, n, Iota{order});
  bucket_offsets_of_sorted(exec, keys, n, nb, offsets, s.tmp);
  if (split_offsets != nullptr) {
    const int32_t split = static_cast<int32_t>(std::min<int64_t>(n_split, n));
    for_each(exec, nb + 1, SplitOfIdentity{offsets, split, split_offsets});
  }
}

void bucket_sort(const Exec& exec, const int32_t* keys, int64_t n, int64_t nb, int64_t n_split,
                 int32_t* offsets, int32_t* order, int32_t* split_offsets, BucketScratch& s) {
  check_sizes(n, nb);
  const bool dev = exec.on_device;
  if (dev && use_radix(n)) {
    radix_bucket_sort(exec, keys, n, nb, n_split, offsets, order, split_offsets, s);
    return;
  }
  const size_t nb1 = static_cast<size_t>(nb + 1);
  zero_2d(offsets, nb1 * sizeof(int32_t), nb1 * sizeof(int32_t), 1, dev, exec.stream);
  int32_t* slot = s.slot.ensure_as<int32_t>(std::max<int64_t>(n, 1));
  for_each(exec, n, CountSlots{keys, offsets, slot});
  bucket_sort_counted(exec, keys, slot, n, nb, n_split, offsets, order, split_offsets, s);
}

void bucket_order(const Exec& exec, const int32_t* keys, int64_t n, int64_t nb, int32_t* order,
                  ScratchBuffer& offsets_scratch, BucketScratch& s) {
  check_sizes(n, nb);
  if (exec.on_device && use_radix(n)) {
    radix_order(exec, keys, n, nb, order, s);
    return;
  }
  int32_t* offsets = offsets_scratch.ensure_as<int32_t>(static_cast<size_t>(nb + 1));
  bucket_sort(exec, keys, n, nb, n, offsets, order, nullptr, s);
}

}  // namespace pvec::impl
