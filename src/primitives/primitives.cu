#include "primitives/primitives.hpp"

#include "backend/device.hpp"
#include "backend/for_each.cuh"
#include "primitives/select_if.cuh"
#include "common/error.hpp"

#include <algorithm>
#include <limits>
#include <vector>

#if defined(__CUDACC__)
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#endif

namespace pvec::impl {
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

#if defined(__CUDACC__)
// The bit count of word w (0 past the last word, so that a scan of n_words + 1 of them ends
// with the total).
struct WordBits {
  const uint32_t* words;
  int64_t n_words;
  __host__ __device__ int64_t operator()(int64_t w) const {
#if defined(__CUDA_ARCH__)
    return w < n_words ? __popc(words[w]) : 0;
#else
    return 0;
#endif
  }
};

// The indices of the set bits of every word from the word's offset on. A warp takes 32 words
// at a time (coalesced loads of words and offsets) and writes the indices of each non-zero
// one together, a lane per bit: the stores of a word are contiguous, and a word of 32 kept
// indices (the common case when the kept particles are sorted together) costs one step, not
// 32 steps of one thread.
__global__ void write_voted(int64_t n_words, const uint32_t* words, const int64_t* offsets,
                            IndexList out) {
  const unsigned lane = threadIdx.x & 31u;
  const int64_t warps = static_cast<int64_t>(gridDim.x) * (blockDim.x / 32);
  for (int64_t w0 = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32 * 32;
       w0 < n_words; w0 += 32 * warps) {
    const int64_t w = w0 + lane;
    const uint32_t mine = w < n_words ? words[w] : 0u;
    const int64_t first = mine != 0 ? offsets[w] : 0;
    unsigned busy = __ballot_sync(0xffffffffu, mine != 0);
    while (busy != 0) {
      const int src = __ffs(busy) - 1;
      busy &= busy - 1;
      const uint32_t bits = __shfl_sync(0xffffffffu, mine, src);
      const int64_t at = __shfl_sync(0xffffffffu, first, src);
      if ((bits >> lane) & 1u)
        out.set(at + __popc(bits & ((1u << lane) - 1u)), 32 * (w0 + src) + lane);
    }
  }
}
#endif

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

namespace {

void check_fits(IndexList out, int64_t n_words) {
  if (out.narrow && !IndexList::fits_narrow(32 * n_words))
    fail(PVEC_ERROR_INTERNAL, "voted_indices: ", 32 * n_words, " indices for a narrow list");
}

#if defined(__CUDACC__)
// voted_indices' device passes; returns where on the device the count is (in tmp, until tmp
// is used again).
const int64_t* launch_voted(const Exec& exec, const uint32_t* words, int64_t n_words, IndexList out,
                            ScratchBuffer& tmp) {
  check_fits(out, n_words);
  cudaStream_t s = static_cast<cudaStream_t>(exec.stream);
  auto bits = thrust::make_transform_iterator(thrust::counting_iterator<int64_t>(0),
                                              WordBits{words, n_words});
  size_t scan_bytes = 0;
  check_cuda(
      cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, bits, static_cast<int64_t*>(nullptr),
                                    as_cub_count(n_words + 1), s),
      "cub::DeviceScan::ExclusiveSum");
  // [offsets of the n_words + 1 words | scan temp], the temp 256-byte aligned.
  const size_t at_temp = ((n_words + 1) * sizeof(int64_t) + 255) / 256 * 256;
  char* base = static_cast<char*>(tmp.ensure(at_temp + scan_bytes));
  auto* offsets = reinterpret_cast<int64_t*>(base);
  check_cuda(cub::DeviceScan::ExclusiveSum(base + at_temp, scan_bytes, bits, offsets,
                                           as_cub_count(n_words + 1), s),
             "cub::DeviceScan::ExclusiveSum");
  constexpr int kBlock = 256;
  int64_t blocks = (n_words + kBlock - 1) / kBlock;  // a warp per 32 words
  if (blocks > 4096) blocks = 4096;
  if (blocks > 0) {
    write_voted<<<static_cast<unsigned>(blocks), kBlock, 0, s>>>(n_words, words, offsets, out);
    check_launch("voted_indices kernel launch");
  }
  return offsets + n_words;
}
#endif

}  // namespace

void voted_indices_async(const Exec& exec, const uint32_t* words, int64_t n_words, IndexList out,
                         ScratchBuffer& tmp, int64_t* count_dev) {
#if defined(__CUDACC__)
  if (exec.on_device) {
    copy_bytes(count_dev, launch_voted(exec, words, n_words, out, tmp), sizeof(int64_t), true,
               exec.stream);
    return;
  }
#endif
  (void)words, (void)n_words, (void)out, (void)tmp, (void)count_dev;
  fail(PVEC_ERROR_INTERNAL, "voted_indices_async on the host");
}

int64_t voted_indices(const Exec& exec, const uint32_t* words, int64_t n_words, IndexList out,
                      ScratchBuffer& tmp) {
  check_fits(out, n_words);
#if defined(__CUDACC__)
  if (exec.on_device && n_words > 0) {
    const int64_t* count = launch_voted(exec, words, n_words, out, tmp);
    int64_t total = 0;
    copy_bytes(&total, count, sizeof total, true, exec.stream);
    stream_synchronize(exec.stream);
    return total;
  }
#endif
  (void)exec, (void)tmp;
  int64_t c = 0;  // the host (map's movers): the same from the words
  for (int64_t w = 0; w < n_words; ++w)
    for (uint32_t b = words[w]; b != 0; b &= b - 1) out.set(c++, 32 * w + __builtin_ctz(b));
  return c;
}

int64_t exclusive_scan(const Exec& exec, int64_t* data, int64_t n, ScratchBuffer& tmp,
                       int64_t* extra) {
  if (n < 0) fail(PVEC_ERROR_INTERNAL, "exclusive_scan of ", n, " items");
#if defined(__CUDACC__)
  if (exec.on_device) {
    // In place over n + 1 items: the last receives the total, which one copy to the host
    // brings back, with the extra word beside it.
    cudaStream_t s = static_cast<cudaStream_t>(exec.stream);
    size_t bytes = 0;
    check_cuda(cub::DeviceScan::ExclusiveSum(nullptr, bytes, data, data, as_cub_count(n + 1), s),
               "cub::DeviceScan::ExclusiveSum");
    check_cuda(cub::DeviceScan::ExclusiveSum(tmp.ensure(std::max<size_t>(bytes, 1)), bytes, data,
                                             data, as_cub_count(n + 1), s),
               "cub::DeviceScan::ExclusiveSum");
    int64_t h[2] = {0, 0};
    copy_bytes(h, data + n, (extra != nullptr ? 2 : 1) * sizeof(int64_t), true, exec.stream);
    stream_synchronize(exec.stream);
    if (extra != nullptr) *extra = h[1];
    return h[0];
  }
#endif
  (void)tmp;
  int64_t sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = data[i];
    data[i] = sum;
    sum += v;
  }
  data[n] = sum;
  if (extra != nullptr) *extra = data[n + 1];
  return sum;
}

void sort_pairs_to(const Exec& exec, const int32_t* keys_in, int32_t* keys_out,
                   const int64_t* vals_in, int64_t* vals_out, int64_t n, int32_t max_key,
                   ScratchBuffer& tmp) {
  if (n <= 0) return;
#if defined(__CUDACC__)
  if (exec.on_device) {
    cudaStream_t s = static_cast<cudaStream_t>(exec.stream);
    int bits = 1;
    while (bits < 31 && (int64_t{1} << bits) <= max_key) ++bits;
    size_t bytes = 0;
    check_cuda(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys_in, keys_out, vals_in, vals_out,
                                               as_cub_count(n), 0, bits, s),
               "cub::DeviceRadixSort::SortPairs");
    void* t = tmp.ensure(bytes);
    check_cuda(cub::DeviceRadixSort::SortPairs(t, bytes, keys_in, keys_out, vals_in, vals_out,
                                               as_cub_count(n), 0, bits, s),
               "cub::DeviceRadixSort::SortPairs");
    return;
  }
#endif
  (void)tmp;
  // Counting sort: keys are small (ranks), and it is stable.
  std::vector<int64_t> start(static_cast<size_t>(max_key) + 2, 0);
  for (int64_t i = 0; i < n; ++i) ++start[keys_in[i] + 1];
  for (size_t b = 1; b < start.size(); ++b) start[b] += start[b - 1];
  for (int64_t i = 0; i < n; ++i) {
    const int64_t p = start[keys_in[i]]++;
    keys_out[p] = keys_in[i];
    vals_out[p] = vals_in[i];
  }
}

void sort_pairs(const Exec& exec, int32_t* keys, int64_t* vals, int64_t n, int32_t max_key,
                ScratchBuffer& tmp, ScratchBuffer& keys_alt, ScratchBuffer& vals_alt) {
  if (n <= 1) return;
  int32_t* k2 = keys_alt.ensure_as<int32_t>(n);
  int64_t* v2 = vals_alt.ensure_as<int64_t>(n);
  sort_pairs_to(exec, keys, k2, vals, v2, n, max_key, tmp);
  copy_bytes(keys, k2, sizeof(int32_t) * n, exec.on_device, exec.stream);
  copy_bytes(vals, v2, sizeof(int64_t) * n, exec.on_device, exec.stream);
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

}  // namespace pvec::impl
