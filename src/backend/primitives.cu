#include "backend/primitives.hpp"

#include "backend/device.hpp"
#include "backend/for_each.cuh"
#include "backend/select_if.cuh"
#include "core/error.hpp"

#include <algorithm>
#include <limits>
#include <vector>

#if defined(__CUDACC__)
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#endif

namespace pvec::detail {
namespace {

struct SelectPred {
  const int32_t* keys;
  int32_t value;
  bool equal;
  PVEC_HD bool operator()(int64_t i) const { return (keys[i] == value) == equal; }
};

struct OffsetIndex {
  int64_t begin;
  PVEC_HD int64_t operator()(int64_t i) const { return begin + i; }
};

struct LowerBound {
  const int32_t* keys;
  int64_t n;
  int64_t* out;
  PVEC_HD void operator()(int64_t b) const {
    int64_t lo = 0, hi = n;
    while (lo < hi) {
      int64_t mid = (lo + hi) / 2;
      if (keys[mid] < b)
        lo = mid + 1;
      else
        hi = mid;
    }
    out[b] = lo;
  }
};

}  // namespace

#if defined(__CUDACC__)
void check_cuda(cudaError_t err, const char* what) {
  if (err != cudaSuccess)
    fail(PVEC_ERROR_CUDA, what, ": ", cudaGetErrorName(err), ": ", cudaGetErrorString(err));
}
#endif

int as_cub_count(int64_t n) {
  if (n > std::numeric_limits<int>::max())
    fail(PVEC_ERROR_NOT_SUPPORTED, "device primitives handle at most 2^31-1 items per rank, got ",
         n);
  return static_cast<int>(n);
}

int64_t select_indices(const Exec& exec, const int32_t* keys, int64_t begin, int64_t end,
                       int32_t value, bool equal, int64_t* out, ScratchBuffer& tmp) {
  if (end <= begin) return 0;
  return select_values(exec, end - begin, OffsetIndex{begin}, SelectPred{keys, value, equal}, out,
                       tmp);
}

int64_t exclusive_scan(const Exec& exec, const int64_t* in, int64_t* out, int64_t n,
                       ScratchBuffer& tmp) {
  if (n <= 0) return 0;
#if defined(__CUDACC__)
  if (exec.on_device) {
    cudaStream_t s = static_cast<cudaStream_t>(exec.stream);
    int64_t last_in = 0;
    copy_bytes(&last_in, in + n - 1, sizeof last_in, true, exec.stream);
    size_t bytes = 0;
    check_cuda(cub::DeviceScan::ExclusiveSum(nullptr, bytes, in, out, as_cub_count(n), s),
               "cub::DeviceScan::ExclusiveSum");
    void* t = tmp.ensure(bytes);
    check_cuda(cub::DeviceScan::ExclusiveSum(t, bytes, in, out, as_cub_count(n), s),
               "cub::DeviceScan::ExclusiveSum");
    int64_t last_out = 0;
    copy_bytes(&last_out, out + n - 1, sizeof last_out, true, exec.stream);
    stream_synchronize(exec.stream);
    return last_out + last_in;
  }
#endif
  (void)tmp;
  int64_t sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    int64_t v = in[i];
    out[i] = sum;
    sum += v;
  }
  return sum;
}

void sort_pairs(const Exec& exec, int32_t* keys, int64_t* vals, int64_t n, int32_t max_key,
                ScratchBuffer& tmp, ScratchBuffer& keys_alt, ScratchBuffer& vals_alt) {
  if (n <= 1) return;
#if defined(__CUDACC__)
  if (exec.on_device) {
    cudaStream_t s = static_cast<cudaStream_t>(exec.stream);
    int bits = 1;
    while (bits < 31 && (int64_t{1} << bits) <= max_key) ++bits;
    int32_t* k2 = keys_alt.ensure_as<int32_t>(n);
    int64_t* v2 = vals_alt.ensure_as<int64_t>(n);
    size_t bytes = 0;
    check_cuda(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys, k2, vals, v2, as_cub_count(n),
                                               0, bits, s),
               "cub::DeviceRadixSort::SortPairs");
    void* t = tmp.ensure(bytes);
    check_cuda(
        cub::DeviceRadixSort::SortPairs(t, bytes, keys, k2, vals, v2, as_cub_count(n), 0, bits, s),
        "cub::DeviceRadixSort::SortPairs");
    copy_bytes(keys, k2, sizeof(int32_t) * n, true, exec.stream);
    copy_bytes(vals, v2, sizeof(int64_t) * n, true, exec.stream);
    return;
  }
#endif
  (void)tmp;
  // Counting sort: keys are small (ranks), and it is stable.
  std::vector<int64_t> start(static_cast<size_t>(max_key) + 2, 0);
  for (int64_t i = 0; i < n; ++i) ++start[keys[i] + 1];
  for (size_t b = 1; b < start.size(); ++b) start[b] += start[b - 1];
  int32_t* k2 = keys_alt.ensure_as<int32_t>(n);
  int64_t* v2 = vals_alt.ensure_as<int64_t>(n);
  for (int64_t i = 0; i < n; ++i) {
    int64_t p = start[keys[i]]++;
    k2[p] = keys[i];
    v2[p] = vals[i];
  }
  std::copy(k2, k2 + n, keys);
  std::copy(v2, v2 + n, vals);
}

void bucket_bounds(const Exec& exec, const int32_t* sorted_keys, int64_t n, int32_t buckets,
                   int64_t* bounds_host, ScratchBuffer& tmp) {
  const int64_t nb = static_cast<int64_t>(buckets) + 1;
  if (exec.on_device) {
    int64_t* d = tmp.ensure_as<int64_t>(nb);
    for_each(exec, nb, LowerBound{sorted_keys, n, d});
    copy_bytes(bounds_host, d, sizeof(int64_t) * nb, true, exec.stream);
    stream_synchronize(exec.stream);
    return;
  }
  for_each(exec, nb, LowerBound{sorted_keys, n, bounds_host});
}

}  // namespace pvec::detail
