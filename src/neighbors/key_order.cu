// order_by_key (key_order.hpp). A build without CUDA compiles this file as C++ (the host path).
#include "neighbors/key_order.hpp"

#include "backend/device.hpp"
#include "backend/for_each.cuh"
#include "backend/host_parallel.hpp"
#include "common/error.hpp"
#include "common/hd.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#if defined(__CUDACC__)
#include <cub/device/device_segmented_sort.cuh>
#endif

namespace pvec::impl {
namespace {

// The key of row j as an unsigned 64-bit value in the same order (the sign bit flipped for
// signed keys).
struct SortKey {
  const void* key;
  pvec_dtype dtype;
  PVEC_HD uint64_t operator()(int32_t j) const {
    constexpr uint64_t kSign = uint64_t{1} << 63;
    switch (dtype) {
      case PVEC_INT32:
        return static_cast<uint64_t>(static_cast<int64_t>(static_cast<const int32_t*>(key)[j])) ^
               kSign;
      case PVEC_UINT32:
        return static_cast<const uint32_t*>(key)[j];
      case PVEC_INT64:
        return static_cast<uint64_t>(static_cast<const int64_t*>(key)[j]) ^ kSign;
      default:
        return static_cast<const uint64_t*>(key)[j];
    }
  }
};

#if defined(__CUDACC__)
// Segments of at most 32 x R entries: one warp per segment sorts (key, row) pairs held R per
// lane (element lane * R + j) with a bitonic network: pairs R or more apart are exchanged
// between lanes by shuffles, closer ones inside a lane. (key, row) is a total order (rows are
// distinct within a segment; the padding is the largest pair), so the result is the one order
// the host gives, whatever the network.
template <int R>
__global__ void warp_key_sort(const int64_t* __restrict__ offsets, int32_t* __restrict__ rows,
                              int64_t n, SortKey key) {
  const int64_t seg = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const int lane = static_cast<int>(threadIdx.x & 31u);
  if (seg >= n) return;  // the whole warp leaves together
  const int64_t e0 = offsets[seg];
  const int len = static_cast<int>(offsets[seg + 1] - e0);
  if (len <= 1) return;
  uint64_t k[R];
  int32_t r[R];
#pragma unroll
  for (int j = 0; j < R; ++j) {
    const int idx = lane * R + j;
    r[j] = idx < len ? rows[e0 + idx] : INT32_MAX;
    k[j] = idx < len ? key(r[j]) : ~uint64_t{0};
  }
  constexpr int N = 32 * R;
#pragma unroll
  for (int size = 2; size <= N; size <<= 1) {
#pragma unroll
    for (int stride = size / 2; stride > 0; stride >>= 1) {
      if (stride < R) {
#pragma unroll
        for (int j = 0; j < R; ++j) {
          const int p = j ^ stride;
          if (p <= j) continue;
          const bool up = ((lane * R + j) & size) == 0;
          const bool gt = k[j] > k[p] || (k[j] == k[p] && r[j] > r[p]);
          if (gt == up) {
            const uint64_t tk = k[j];
            k[j] = k[p];
            k[p] = tk;
            const int32_t tr = r[j];
            r[j] = r[p];
            r[p] = tr;
          }
        }
      } else {
        const int ls = stride / R;
        const bool lower = (lane & ls) == 0;
#pragma unroll
        for (int j = 0; j < R; ++j) {
          const uint64_t ok = __shfl_xor_sync(0xffffffffu, k[j], ls);
          const int32_t orow = __shfl_xor_sync(0xffffffffu, r[j], ls);
          const bool up = ((lane * R + j) & size) == 0;
          const bool mine_less = k[j] < ok || (k[j] == ok && r[j] < orow);
          const bool keep = lower == up ? mine_less : !mine_less;
          if (!keep) {
            k[j] = ok;
            r[j] = orow;
          }
        }
      }
    }
  }
#pragma unroll
  for (int j = 0; j < R; ++j) {
    const int idx = lane * R + j;
    if (idx < len) rows[e0 + idx] = r[j];
  }
}

template <int R>
void launch_warp_sort(const int64_t* offsets, int32_t* rows, int64_t n, const SortKey& k,
                      cudaStream_t st) {
  constexpr int kThreads = 256;
  const int64_t threads = n * 32;
  const unsigned blocks = static_cast<unsigned>((threads + kThreads - 1) / kThreads);
  warp_key_sort<R><<<blocks, kThreads, 0, st>>>(offsets, rows, n, k);
}

struct GatherKeys {
  const int32_t* rows;
  SortKey k;
  uint64_t* out;
  PVEC_HD void operator()(int64_t e) const { out[e] = k(rows[e]); }
};

// Any segment lengths: one CUB segmented sort of (key, row) pairs, keys made unique by nothing
// (rows are distinct within a segment and the sort is stable over the cell order, which the
// host's (key, row) order matches only for distinct keys: longer segments are rare, and ties
// of keys are documented as cell order there).
void device_order(const Exec& ex, const int64_t* offsets, int32_t* rows, int64_t n, int64_t total,
                  int64_t most, const SortKey& k, KeyOrderScratch& s) {
  cudaStream_t st = static_cast<cudaStream_t>(ex.stream);
  if (most >= 0 && most <= 256) {
    if (most <= 32)
      launch_warp_sort<1>(offsets, rows, n, k, st);
    else if (most <= 64)
      launch_warp_sort<2>(offsets, rows, n, k, st);
    else if (most <= 128)
      launch_warp_sort<4>(offsets, rows, n, k, st);
    else
      launch_warp_sort<8>(offsets, rows, n, k, st);
    check_launch("key order of the neighbour list (warp sort)");
    return;
  }
  uint64_t* kin = s.keys_in.ensure_as<uint64_t>(total);
  uint64_t* kout = s.keys_out.ensure_as<uint64_t>(total);
  int32_t* rout = s.rows_out.ensure_as<int32_t>(total);
  for_each(ex, total, GatherKeys{rows, k, kin});
  size_t bytes = 0;
  if (cub::DeviceSegmentedSort::StableSortPairs(nullptr, bytes, kin, kout, rows, rout, total, n,
                                                offsets, offsets + 1, st) != cudaSuccess)
    fail(PVEC_ERROR_CUDA, "key order of the neighbour list: temporary storage");
  void* tmp = s.tmp.ensure(std::max<size_t>(bytes, 1));
  if (cub::DeviceSegmentedSort::StableSortPairs(tmp, bytes, kin, kout, rows, rout, total, n,
                                                offsets, offsets + 1, st) != cudaSuccess)
    fail(PVEC_ERROR_CUDA, "key order of the neighbour list: segmented sort");
  check_launch("key order of the neighbour list");
  copy_bytes(rows, rout, static_cast<size_t>(total) * sizeof(int32_t), true, ex.stream);
}
#endif

void host_order(const int64_t* offsets, int32_t* rows, int64_t n, const SortKey& k) {
  struct Ctx {
    const int64_t* offsets;
    int32_t* rows;
    SortKey k;
  } ctx{offsets, rows, k};
  host_ranges(
      n, kHostRowGrain,
      [](void* p, int64_t a, int64_t b, int) {
        const Ctx& c = *static_cast<const Ctx*>(p);
        std::vector<std::pair<uint64_t, int32_t>> seg;
        for (int64_t i = a; i < b; ++i) {
          const int64_t e0 = c.offsets[i], e1 = c.offsets[i + 1];
          seg.clear();
          for (int64_t e = e0; e < e1; ++e) seg.emplace_back(c.k(c.rows[e]), c.rows[e]);
          std::sort(seg.begin(), seg.end());  // (key, row): rows are distinct in a segment
          for (int64_t e = e0; e < e1; ++e) c.rows[e] = seg[static_cast<size_t>(e - e0)].second;
        }
      },
      &ctx);
}

}  // namespace

void order_by_key(const Exec& ex, const int64_t* offsets, int32_t* rows, int64_t n, int64_t total,
                  int64_t most, const void* key, pvec_dtype key_dtype, KeyOrderScratch& s) {
  if (n <= 0 || total <= 0) return;
  const SortKey k{key, key_dtype};
  if (ex.on_device) {
#if defined(__CUDACC__)
    device_order(ex, offsets, rows, n, total, most, k, s);
    return;
#else
    fail(PVEC_ERROR_INTERNAL, "key order of a device list without CUDA");
#endif
  }
  (void)s;
  (void)most;
  host_order(offsets, rows, n, k);
}

}  // namespace pvec::impl
