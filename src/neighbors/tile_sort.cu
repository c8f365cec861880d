// tile_sort (tile_sort.hpp). After CUB's passes over the upper key bits, the items of tile t
// (keys in [t 2^T, (t + 1) 2^T)) are contiguous and in item order within equal upper bits. A
// search per tile finds where each tile starts; then one block of 256 threads per tile:
//   1. each warp takes a contiguous stretch of the tile (a multiple of 32 items) and walks it in
//      order, 32 items at a time: lanes with the same bucket (found through shared-memory
//      words or by __match_any_sync: TileMatch) take consecutive ranks in lane order, and the
//      lowest of them advances the warp's count for that bucket (a row of shared memory per
//      warp);
//   2. one exclusive scan over (bucket, warp) gives each warp's first position per bucket (and
//      the tile's bucket offsets);
//   3. each item goes to its warp's first position in its bucket plus its rank: into shared
//      memory, then the tile's order is written out in one coalesced sweep.
// Items therefore keep their order within a bucket: the result is the stable sort by key. A tile
// of up to 4,096 items is held in registers (16 per lane, with its packed bucket and rank)
// between steps 1 and 3; a larger one is counted with shared atomics, read twice and placed
// straight into the output. Tiles above kTileCap items are refused before the tile pass (one
// wait for the stream), and the caller sorts the three-pass way.
#include "neighbors/tile_sort.hpp"

#include "backend/device.hpp"
#include "common/error.hpp"
#include "primitives/primitives.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>

#if defined(__CUDACC__)
#include <cub/block/block_scan.cuh>
#endif

namespace pvec::impl {

namespace {
constexpr int kTileThreads = 256;  // one block per tile; at most 256 buckets per tile
constexpr int kTileWarps = kTileThreads / 32;
constexpr int kTileRegs = 16;                                // items per lane kept in registers
constexpr int64_t kTileRegItems = kTileThreads * kTileRegs;  // 4096
}  // namespace

TilePlan tile_plan(int64_t n, int64_t nb) {
  TilePlan p;
  if (n < (int64_t{1} << 15) || nb < 2) return p;
  p.end_bit = bucket_key_bits(nb);
  if (p.end_bit <= 16) return p;
  const int passes = (p.end_bit + 7) / 8;  // CUB's 8-bit digit passes over the whole key
  p.low_bits = p.end_bit - 8 * (passes - 1);
  // Items a tile of 2^b buckets is expected to hold (the keys' mean density).
  auto expected = [&](int b) { return static_cast<double>(n) * std::ldexp(1.0, b) / nb; };
  if (expected(p.low_bits) > static_cast<double>(kTileCap) / 4) return p;
  int t = p.low_bits;
  while (t < 8 && expected(t + 1) <= static_cast<double>(kTileRegItems)) ++t;
  p.tile_bits = t;
  p.tiles = (nb + (int64_t{1} << t) - 1) >> t;
  p.use = true;
  return p;
}

bool tile_sort_if_suited(const Exec& exec, const int32_t* keys, int64_t n, int64_t nb,
                         const int32_t* identity, int32_t* order, int32_t* offsets,
                         BucketScratch& s) {
  const TilePlan plan = tile_plan(n, nb);
  return plan.use && tile_sort(exec, plan, keys, n, nb, identity, order, offsets, s);
}

#if defined(__CUDACC__)
namespace {

// The first position whose key's tile is >= t (keys sorted by tile).
__device__ inline int32_t tile_lower_bound(const int32_t* sorted, int32_t n, int tile_bits,
                                           int64_t t) {
  int32_t lo = 0, hi = n;
  while (lo < hi) {
    const int32_t mid = lo + (hi - lo) / 2;
    if ((sorted[mid] >> tile_bits) < t)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// tstart[t] for t in [0, tiles] (tstart[tiles] = n); *crowded = 1 when a tile holds more than
// kTileCap items.
__global__ void tile_starts_kernel(const int32_t* sorted, int32_t n, int tile_bits, int64_t tiles,
                                   int32_t* tstart, int32_t* crowded) {
  const int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t > tiles) return;
  const int32_t first = tile_lower_bound(sorted, n, tile_bits, t);
  tstart[t] = first;
  if (t == tiles) return;
  const int32_t last = tile_lower_bound(sorted, n, tile_bits, t + 1);
  if (last - first > kTileCap) atomicOr(crowded, 1);
}

// The lanes of the warp whose row falls in the same bucket as this lane's (item: this lane has
// a row; a lane without one is alone), by __match_any_sync.
__device__ inline unsigned same_bucket(bool item, int32_t bucket, int lane) {
  return __match_any_sync(0xffffffffu, item ? bucket : kTileThreads + lane);
}

// One tile per block (file comment). keys: sorted by tile; items: theirs. Writes order for the
// tile's positions and, with kOffsets, offsets of the tile's buckets (offsets[nb] = n by the
// last tile). A tile held in registers is ranked once (bucket and rank within the warp's items
// of that bucket, packed in one register), placed in shared memory and written out coalesced; a
// larger tile is counted with shared atomics and placed straight into order.
//
// kMatch: how a warp finds the lanes of its 32 rows that share a bucket (TileMatch). With
// shared_or each lane ORs its bit into a word per (warp, bucket) and reads the word back (two
// such arrays, alternating between row batches, so that clearing one needs no extra warp
// barrier); the lowest lane of the bucket then advances the warp's count and hands the old count
// to the others with a shuffle.
template <bool kOffsets, TileMatch kMatch>
__global__ void __launch_bounds__(kTileThreads)
    tile_sort_kernel(const int32_t* __restrict__ keys, const int32_t* __restrict__ items,
                     const int32_t* __restrict__ tstart, int tile_bits, int64_t nb, int32_t n,
                     int32_t* __restrict__ order, int32_t* __restrict__ offsets) {
  constexpr bool kShared = kMatch == TileMatch::shared_or;
  using Scan = cub::BlockScan<int32_t, kTileThreads>;
  __shared__ typename Scan::TempStorage scan_tmp;
  __shared__ int32_t pos[kTileWarps * kTileThreads];  // [warp][bucket]: counts, then positions
  __shared__ int32_t staged[kTileRegItems];           // the tile's order, when in registers
  __shared__ unsigned lanes_of[kShared ? 2 * kTileWarps * kTileThreads : 1];  // [parity][warp][b]
  const int64_t t = blockIdx.x;
  const int32_t start = tstart[t], end = tstart[t + 1], m = end - start;
  const int32_t mask = (1 << tile_bits) - 1;
  const int warp = static_cast<int>(threadIdx.x >> 5), lane = static_cast<int>(threadIdx.x & 31u);
  const unsigned below = (1u << lane) - 1u, bit = 1u << lane;
  for (int i = static_cast<int>(threadIdx.x); i < kTileWarps * kTileThreads; i += kTileThreads)
    pos[i] = 0;
  if (kShared)
    for (int i = static_cast<int>(threadIdx.x); i < 2 * kTileWarps * kTileThreads;
         i += kTileThreads)
      lanes_of[i] = 0;
  // Warp w's stretch: [w0, w1), a multiple of 32 items long (the last stretches may be short).
  const int32_t stretch = (m + kTileThreads - 1) / kTileThreads * 32;
  const int32_t w0 = min(end, start + warp * stretch), w1 = min(end, w0 + stretch);
  int32_t* row = pos + warp * kTileThreads;
  const bool in_regs = m <= kTileRegItems;  // then stretch <= 32 * kTileRegs
  // In registers: packed[r] = bucket | rank << 8 (rank among the warp's earlier items of the
  // bucket; < 0: no item), vr[r] the item.
  int32_t packed[kTileRegs], vr[kTileRegs];
  __syncthreads();
  if (in_regs) {
#pragma unroll
    for (int r = 0; r < kTileRegs; ++r) {
      const int32_t i = w0 + 32 * r + lane;
      packed[r] = i < w1 ? keys[i] : -1;
      vr[r] = i < w1 ? items[i] : 0;
    }
#pragma unroll
    for (int r = 0; r < kTileRegs; ++r) {
      if (w0 + 32 * r >= w1) break;  // the same for the whole warp
      const int32_t k = packed[r];
      const int32_t bucket = k & mask;  // k < 0: no item (alone, never stored)
      if (kShared) {
        unsigned* word = lanes_of + ((r & 1) * kTileWarps + warp) * kTileThreads + bucket;
        if (k >= 0) atomicOr(word, bit);
        __syncwarp();
        const unsigned peers = k >= 0 ? *word : bit;
        const bool lowest = k >= 0 && (peers & below) == 0;
        int32_t base = 0;
        if (lowest) {
          base = row[bucket];
          row[bucket] = base + __popc(peers);
        }
        base = __shfl_sync(0xffffffffu, base, __ffs(peers) - 1);
        // Every lane has read its word and the counts are advanced before the next batch.
        __syncwarp();
        if (lowest) *word = 0;  // read again two batches on, after a barrier
        packed[r] = k >= 0 ? (bucket | (base + __popc(peers & below)) << 8) : -1;
      } else {
        const unsigned peers = same_bucket(k >= 0, bucket, lane);
        const int32_t base = k >= 0 ? row[bucket] : 0;
        __syncwarp();
        if (k >= 0 && (peers & below) == 0) row[bucket] = base + __popc(peers);
        __syncwarp();
        packed[r] = k >= 0 ? (bucket | (base + __popc(peers & below)) << 8) : -1;
      }
    }
  } else {
    for (int32_t i = w0 + lane; i < w1; i += 32) atomicAdd(&row[keys[i] & mask], 1);
  }
  __syncthreads();
  // Thread b owns bucket b: its count over the warps, the exclusive scan over buckets, then
  // each warp's first position in the bucket (relative to the tile's start).
  const int b = static_cast<int>(threadIdx.x);
  int32_t total = 0;
#pragma unroll
  for (int w = 0; w < kTileWarps; ++w) total += pos[w * kTileThreads + b];
  int32_t run = 0;
  Scan(scan_tmp).ExclusiveSum(total, run);
  if (kOffsets) {
    const int64_t c = (t << tile_bits) + b;
    if (b <= mask && c < nb) offsets[c] = start + run;
    if (t == (nb - 1) >> tile_bits && b == 0) offsets[nb] = n;
  }
#pragma unroll
  for (int w = 0; w < kTileWarps; ++w) {
    const int32_t c = pos[w * kTileThreads + b];
    pos[w * kTileThreads + b] = run;
    run += c;
  }
  __syncthreads();
  if (in_regs) {
#pragma unroll
    for (int r = 0; r < kTileRegs; ++r)
      if (packed[r] >= 0) staged[row[packed[r] & 0xff] + (packed[r] >> 8)] = vr[r];
    __syncthreads();
    for (int32_t i = static_cast<int32_t>(threadIdx.x); i < m; i += kTileThreads)
      order[start + i] = staged[i];
    return;
  }
  // Read twice: each warp walks its stretch in order, 32 items at a time; lanes with the same
  // bucket take consecutive positions in lane order, and the lowest of them advances the
  // warp's position for that bucket.
  for (int32_t i0 = w0; i0 < w1; i0 += 32) {
    const int32_t i = i0 + lane;
    const int32_t k = i < w1 ? keys[i] : -1;
    const int32_t bucket = k & mask;
    const unsigned peers = same_bucket(k >= 0, bucket, lane);
    int32_t p = 0;
    if (k >= 0) p = row[bucket] + __popc(peers & below);
    __syncwarp();
    if (k >= 0) {
      order[start + p] = items[i];
      if ((peers & below) == 0) row[bucket] += __popc(peers);
    }
    __syncwarp();
  }
}

// The tile pass, ranking rows as tile_match says for the call (shared words for cell lists,
// __match_any_sync for the order alone).
template <bool kOffsets>
void launch_tiles(unsigned blocks, cudaStream_t st, const int32_t* keys, const int32_t* items,
                  const int32_t* tstart, int tile_bits, int64_t nb, int32_t n, int32_t* order,
                  int32_t* offsets) {
  tile_sort_kernel<kOffsets, tile_match(kOffsets)>
      <<<blocks, kTileThreads, 0, st>>>(keys, items, tstart, tile_bits, nb, n, order, offsets);
}

}  // namespace

bool tile_sort(const Exec& exec, const TilePlan& plan, const int32_t* keys, int64_t n, int64_t nb,
               const int32_t* identity, int32_t* order, int32_t* offsets, BucketScratch& s) {
  if (!exec.on_device || !plan.use)
    fail(PVEC_ERROR_INTERNAL,
         "tiled bucket sort: called off the device or for keys it does not suit");
  cudaStream_t st = static_cast<cudaStream_t>(exec.stream);
  const int items_n = as_cub_count(n);
  int32_t* items_mid = s.slot.ensure_as<int32_t>(n);
  const int32_t* keys_mid =
      radix_sort_pairs(exec, keys, n, plan.low_bits, plan.end_bit, items_mid, s, identity);
  int32_t* tstart = s.tiles.ensure_as<int32_t>(plan.tiles + 1);
  int32_t* crowded = s.flag.ensure_as<int32_t>(1);
  zero_2d(crowded, sizeof(int32_t), sizeof(int32_t), 1, true, exec.stream);
  constexpr int kBlock = 256;
  const int64_t searchers = plan.tiles + 1;
  tile_starts_kernel<<<static_cast<unsigned>((searchers + kBlock - 1) / kBlock), kBlock, 0, st>>>(
      keys_mid, items_n, plan.tile_bits, plan.tiles, tstart, crowded);
  check_launch("tiled bucket sort: tile starts");
  int32_t crowded_host = 0;
  copy_bytes(&crowded_host, crowded, sizeof crowded_host, true, exec.stream);
  stream_synchronize(exec.stream);
  if (crowded_host != 0) return false;
  const unsigned blocks = static_cast<unsigned>(plan.tiles);
  if (offsets != nullptr)
    launch_tiles<true>(blocks, st, keys_mid, items_mid, tstart, plan.tile_bits, nb, items_n, order,
                       offsets);
  else
    launch_tiles<false>(blocks, st, keys_mid, items_mid, tstart, plan.tile_bits, nb, items_n, order,
                        nullptr);
  check_launch("tiled bucket sort: tiles");
  return true;
}
#else
bool tile_sort(const Exec&, const TilePlan&, const int32_t*, int64_t, int64_t, const int32_t*,
               int32_t*, int32_t*, BucketScratch&) {
  fail(PVEC_ERROR_INTERNAL, "tiled bucket sort in a build without CUDA");
}
#endif

}  // namespace pvec::impl
