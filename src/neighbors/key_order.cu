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
struct GatherKeys {
  const int32_t* rows;
  SortKey k;
  uint64_t* out;
  PVEC_HD void operator()(int64_t e) const { out[e] = k(rows[e]); }
};

void device_order(const Exec& ex, const int64_t* offsets, int32_t* rows, int64_t n, int64_t total,
                  const SortKey& k, KeyOrderScratch& s) {
  cudaStream_t st = static_cast<cudaStream_t>(ex.stream);
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
          std::stable_sort(seg.begin(), seg.end(),
                           [](const auto& x, const auto& y) { return x.first < y.first; });
          for (int64_t e = e0; e < e1; ++e) c.rows[e] = seg[static_cast<size_t>(e - e0)].second;
        }
      },
      &ctx);
}

}  // namespace

void order_by_key(const Exec& ex, const int64_t* offsets, int32_t* rows, int64_t n, int64_t total,
                  const void* key, pvec_dtype key_dtype, KeyOrderScratch& s) {
  if (n <= 0 || total <= 0) return;
  const SortKey k{key, key_dtype};
  if (ex.on_device) {
#if defined(__CUDACC__)
    device_order(ex, offsets, rows, n, total, k, s);
    return;
#else
    fail(PVEC_ERROR_INTERNAL, "key order of a device list without CUDA");
#endif
  }
  (void)s;
  host_order(offsets, rows, n, k);
}

}  // namespace pvec::impl
