// order_by_key (key_order.hpp). A build without CUDA compiles this file as C++ (the host path).
#include "neighbors/key_order.hpp"

#include "backend/device.hpp"
#include "backend/for_each.cuh"
#include "backend/host_parallel.hpp"
#include "common/error.hpp"
#include "common/hd.hpp"
#include "primitives/primitives.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#if defined(__CUDACC__)
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>
#endif

namespace pvec::impl {
namespace {

// The key of row j as an unsigned value in the same order (the sign bit flipped for signed
// keys): 32-bit keys in the low 32 bits, so that a radix sort needs only those.
struct SortKey {
  const void* key;
  pvec_dtype dtype;
  PVEC_HD uint64_t operator()(int64_t j) const {
    switch (dtype) {
      case PVEC_INT32:
        return static_cast<uint32_t>(static_cast<const int32_t*>(key)[j]) ^ 0x80000000u;
      case PVEC_UINT32:
        return static_cast<const uint32_t*>(key)[j];
      case PVEC_INT64:
        return static_cast<uint64_t>(static_cast<const int64_t*>(key)[j]) ^ (uint64_t{1} << 63);
      default:
        return static_cast<const uint64_t*>(key)[j];
    }
  }
  int bits() const { return dtype == PVEC_INT32 || dtype == PVEC_UINT32 ? 32 : 64; }
};

constexpr int64_t kWarpSortMost = 256;  // the longest segment the warp sort takes

#if defined(__CUDACC__)
// Segments of at most 32 x R entries: one warp per segment sorts the places (key_order.hpp) of
// its entries, held R per lane (element lane * R + j), with a bitonic network: places R or
// more apart are exchanged between lanes by shuffles, closer ones inside a lane. Places are
// distinct, so the result is the one order the host gives, whatever the network. The entries
// come from src (padded rows of src_stride, or the CSR array itself when src_stride is 0: every
// lane loads before any writes) and go to dst + offsets[seg] as inv[place].
template <int R>
__global__ void warp_place_sort(const int64_t* __restrict__ offsets, const int32_t* src,
                                int64_t src_stride, int32_t* dst, int64_t n,
                                const uint32_t* __restrict__ place,
                                const int32_t* __restrict__ inv) {
  const int64_t seg = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const int lane = static_cast<int>(threadIdx.x & 31u);
  if (seg >= n) return;  // the whole warp leaves together
  const int64_t e0 = offsets[seg];
  const int len = static_cast<int>(offsets[seg + 1] - e0);
  const int32_t* in = src_stride > 0 ? src + seg * src_stride : dst + e0;
  if (len <= 1) {
    if (len == 1 && lane == 0 && src_stride > 0) dst[e0] = in[0];
    return;
  }
  uint32_t k[R];
#pragma unroll
  for (int j = 0; j < R; ++j) {
    const int idx = lane * R + j;
    k[j] = idx < len ? place[in[idx]] : 0xffffffffu;
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
          if ((k[j] > k[p]) == up) {
            const uint32_t t = k[j];
            k[j] = k[p];
            k[p] = t;
          }
        }
      } else {
        const int ls = stride / R;
        const bool lower = (lane & ls) == 0;
#pragma unroll
        for (int j = 0; j < R; ++j) {
          const uint32_t o = __shfl_xor_sync(0xffffffffu, k[j], ls);
          const bool up = ((lane * R + j) & size) == 0;
          // The lower lane of the pair keeps the smaller place when sorting up.
          k[j] = (lower == up) ? min(k[j], o) : max(k[j], o);
        }
      }
    }
  }
#pragma unroll
  for (int j = 0; j < R; ++j) {
    const int idx = lane * R + j;
    if (idx < len) dst[e0 + idx] = inv[k[j]];
  }
}

template <int R>
void launch_place_sort(const int64_t* offsets, const int32_t* src, int64_t src_stride, int32_t* dst,
                       int64_t n, const uint32_t* place, const int32_t* inv, cudaStream_t st) {
  constexpr int kThreads = 256;
  const int64_t threads = n * 32;
  const unsigned blocks = static_cast<unsigned>((threads + kThreads - 1) / kThreads);
  warp_place_sort<R><<<blocks, kThreads, 0, st>>>(offsets, src, src_stride, dst, n, place, inv);
}

struct RowKeys {
  SortKey k;
  uint64_t* keys;
  int32_t* rows;
  PVEC_HD void operator()(int64_t j) const {
    keys[j] = k(j);
    rows[j] = static_cast<int32_t>(j);
  }
};

struct PlaceOfRow {
  const int32_t* inv;
  uint32_t* place;
  PVEC_HD void operator()(int64_t p) const { place[inv[p]] = static_cast<uint32_t>(p); }
};

struct EntryPlaces {
  const int32_t* rows;
  const uint32_t* place;
  uint32_t* out;
  PVEC_HD void operator()(int64_t e) const { out[e] = place[rows[e]]; }
};

struct RowOfPlace {
  const uint32_t* places;
  const int32_t* inv;
  int32_t* rows;
  PVEC_HD void operator()(int64_t e) const { rows[e] = inv[places[e]]; }
};

// The place of each of the n_rows rows in ascending (key, row) order, and its inverse: a radix
// sort of the keys (their significant bits) with the rows as values, stable, so that ties
// keep row order.
void rank_rows(const Exec& ex, const SortKey& k, int64_t n_rows, KeyOrderScratch& s,
               const uint32_t** place_out, const int32_t** inv_out) {
  cudaStream_t st = static_cast<cudaStream_t>(ex.stream);
  const int64_t m = std::max<int64_t>(n_rows, 1);
  uint64_t* kin = s.keys_in.ensure_as<uint64_t>(m);
  uint64_t* kout = s.keys_out.ensure_as<uint64_t>(m);
  int32_t* rin = s.rows_in.ensure_as<int32_t>(m);
  int32_t* inv = s.inv.ensure_as<int32_t>(m);
  uint32_t* place = s.rank.ensure_as<uint32_t>(m);
  for_each(ex, n_rows, RowKeys{k, kin, rin});
  const int count = as_cub_count(n_rows);
  size_t bytes = 0;
  check_cuda(
      cub::DeviceRadixSort::SortPairs(nullptr, bytes, kin, kout, rin, inv, count, 0, k.bits(), st),
      "key order of the neighbour list: cub::DeviceRadixSort::SortPairs");
  check_cuda(cub::DeviceRadixSort::SortPairs(s.tmp.ensure(std::max<size_t>(bytes, 1)), bytes, kin,
                                             kout, rin, inv, count, 0, k.bits(), st),
             "key order of the neighbour list: cub::DeviceRadixSort::SortPairs");
  for_each(ex, n_rows, PlaceOfRow{inv, place});
  *place_out = place;
  *inv_out = inv;
}

void device_order(const Exec& ex, const int64_t* offsets, int32_t* rows, int64_t n, int64_t total,
                  int64_t most, const SortKey& k, int64_t n_rows, KeyOrderScratch& s,
                  KeyOrderSource src) {
  cudaStream_t st = static_cast<cudaStream_t>(ex.stream);
  const uint32_t* place = nullptr;
  const int32_t* inv = nullptr;
  rank_rows(ex, k, n_rows, s, &place, &inv);
  if (most >= 0 && most <= kWarpSortMost) {
    const int32_t* in = src.pad != nullptr ? src.pad : rows;
    const int64_t stride = src.pad != nullptr ? src.stride : 0;
    if (most <= 32)
      launch_place_sort<1>(offsets, in, stride, rows, n, place, inv, st);
    else if (most <= 64)
      launch_place_sort<2>(offsets, in, stride, rows, n, place, inv, st);
    else if (most <= 128)
      launch_place_sort<4>(offsets, in, stride, rows, n, place, inv, st);
    else
      launch_place_sort<8>(offsets, in, stride, rows, n, place, inv, st);
    check_launch("key order of the neighbour list (warp sort)");
    return;
  }
  if (src.pad != nullptr)
    fail(PVEC_ERROR_INTERNAL, "key order of padded rows with a segment longer than ",
         kWarpSortMost);
  // Any segment lengths: one CUB segmented sort of the entries' places (distinct within a
  // segment, so stability does not matter), then the rows back through the inverse.
  uint32_t* pin = s.places_in.ensure_as<uint32_t>(total);
  uint32_t* pout = s.places_out.ensure_as<uint32_t>(total);
  for_each(ex, total, EntryPlaces{rows, place, pin});
  size_t bytes = 0;
  check_cuda(cub::DeviceSegmentedSort::SortKeys(nullptr, bytes, pin, pout, total, n, offsets,
                                                offsets + 1, st),
             "key order of the neighbour list: temporary storage");
  check_cuda(cub::DeviceSegmentedSort::SortKeys(s.tmp.ensure(std::max<size_t>(bytes, 1)), bytes,
                                                pin, pout, total, n, offsets, offsets + 1, st),
             "key order of the neighbour list: segmented sort");
  for_each(ex, total, RowOfPlace{pout, inv, rows});
  check_launch("key order of the neighbour list");
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

bool key_order_reads_padded(const Exec& ex, int64_t most) {
#if defined(__CUDACC__)
  return ex.on_device && most >= 0 && most <= kWarpSortMost;
#else
  (void)ex, (void)most;
  return false;
#endif
}

void order_by_key(const Exec& ex, const int64_t* offsets, int32_t* rows, int64_t n, int64_t total,
                  int64_t most, const void* key, pvec_dtype key_dtype, int64_t n_rows,
                  KeyOrderScratch& s, KeyOrderSource src) {
  if (n <= 0 || total <= 0) return;
  if (src.pad != nullptr && !key_order_reads_padded(ex, most))
    fail(PVEC_ERROR_INTERNAL, "key order from padded rows on the host or of long segments");
  const SortKey k{key, key_dtype};
  if (ex.on_device) {
#if defined(__CUDACC__)
    device_order(ex, offsets, rows, n, total, most, k, n_rows, s, src);
    return;
#else
    fail(PVEC_ERROR_INTERNAL, "key order of a device list without CUDA");
#endif
  }
  (void)s, (void)most, (void)n_rows;
  host_order(offsets, rows, n, k);
}

}  // namespace pvec::impl
