// compact_in_place (primitives/compact_in_place.hpp): stable compaction of component arrays in
// place on the device, one read and one write of each kept value.
//
// The rows are cut into tiles of kTile. A scan of the tiles' kept counts gives each tile where
// its kept rows go; within a tile, a row's place is its word's prefix plus the kept bits
// below it in the word. A kept row only moves down (to at most its own index), so the rows a
// tile writes can only be rows that tiles before it still have to read. Each block therefore
// reads its tile into registers, says so in a flag, and writes only once every tile before
// it has read. Blocks take tiles in the order they start (a ticket counter), so the tiles a
// block waits for belong to blocks already running, which wait for nobody before they read:
// no block can wait forever. The wait is a decoupled look-back over the flags (0: not read;
// 1: this tile read; 2: this tile and all before it read), so a block looks at a few flags
// (the tiles still in flight), not at every tile before it.
#include "primitives/compact_in_place.hpp"

#include "backend/device.hpp"
#include "common/error.hpp"
#include "primitives/primitives.hpp"

#include <algorithm>

#if defined(__CUDACC__)
#include <cub/device/device_scan.cuh>
#include <cuda/atomic>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#endif

namespace pvec::impl {

#if defined(__CUDACC__)
namespace {

constexpr int kThreads = 256;
constexpr int kItems = 8;                 // rows per thread
constexpr int kTile = kThreads * kItems;  // rows per tile
constexpr int kTileWords = kTile / 32;    // vote words per tile (two per lane of a warp)
constexpr int kTargetsPerLaunch = 32;     // component arrays of one launch (kernel argument)
static_assert(kTileWords == 64, "the prefix of a tile's words is two warp scans");

// The kept rows of tile t; 0 for t = tiles, so that the exclusive scan of tiles + 1 of them
// ends with the total.
struct TileKept {
  const uint32_t* words;
  int64_t n_words, tiles;
  __host__ __device__ int64_t operator()(int64_t t) const {
#if defined(__CUDA_ARCH__)
    int64_t c = 0;
    if (t < tiles) {
      const int64_t w1 = (t + 1) * kTileWords < n_words ? (t + 1) * kTileWords : n_words;
      for (int64_t w = t * kTileWords; w < w1; ++w) c += __popc(words[w]);
    }
    return c;
#else
    (void)t;
    return 0;
#endif
  }
};

template <class W>
struct TargetList {
  W* base[kTargetsPerLaunch];
  int count;
};

using Flag = cuda::atomic_ref<unsigned, cuda::thread_scope_device>;

// The exclusive prefix of the kept bits of the tile's 64 words, by warp 0: pre[w] for word w.
__device__ void tile_prefix(const uint32_t* words, int64_t n_words, int64_t w0, uint32_t* word,
                            int* pre) {
  const int lane = static_cast<int>(threadIdx.x & 31u);
  const uint32_t a = w0 + lane < n_words ? words[w0 + lane] : 0u;
  const uint32_t b = w0 + 32 + lane < n_words ? words[w0 + 32 + lane] : 0u;
  int ca = __popc(a), cb = __popc(b);
  for (int d = 1; d < 32; d <<= 1) {
    const int x = __shfl_up_sync(0xffffffffu, ca, d);
    const int y = __shfl_up_sync(0xffffffffu, cb, d);
    if (lane >= d) {
      ca += x;
      cb += y;
    }
  }
  const int total_a = __shfl_sync(0xffffffffu, ca, 31);
  word[lane] = a;
  word[32 + lane] = b;
  pre[lane] = ca - __popc(a);
  pre[32 + lane] = total_a + cb - __popc(b);
}

// By warp 0, after the block read its tile: flag t says so, then the warp waits until every
// tile before t has read (a 2 behind a run of nonzero flags), and flag t says that too.
__device__ void publish_and_wait(unsigned* flags, int64_t t) {
  const int lane = static_cast<int>(threadIdx.x & 31u);
  if (t == 0) {
    if (lane == 0) Flag(flags[0]).store(2u, cuda::memory_order_release);
    return;
  }
  if (lane == 0) Flag(flags[t]).store(1u, cuda::memory_order_release);
  for (int64_t pos = t - 1;; pos -= 32) {
    const int64_t idx = pos - lane;
    unsigned f = idx >= 0 ? Flag(flags[idx]).load(cuda::memory_order_acquire) : 2u;
    while (__any_sync(0xffffffffu, f == 0u))
      if (f == 0u) f = Flag(flags[idx]).load(cuda::memory_order_acquire);
    if (__ballot_sync(0xffffffffu, f == 2u) != 0u) break;
  }
  if (lane == 0) Flag(flags[t]).store(2u, cuda::memory_order_release);
}

// One block per (target, tile), in ticket order: target k = ticket / tiles, tile ticket % tiles.
template <class W>
__global__ void __launch_bounds__(kThreads)
    compact_tiles(TargetList<W> targets, int64_t tiles, const uint32_t* words, int64_t n_words,
                  const int64_t* kept_before, unsigned* ticket, unsigned* flags) {
  __shared__ unsigned s_ticket;
  __shared__ uint32_t s_word[kTileWords];
  __shared__ int s_pre[kTileWords];
  const int lane = static_cast<int>(threadIdx.x & 31u);
  const int warp = static_cast<int>(threadIdx.x >> 5);
  if (threadIdx.x == 0) s_ticket = atomicAdd(ticket, 1u);
  __syncthreads();
  const int64_t k = s_ticket / tiles, t = s_ticket % tiles;
  W* base = targets.base[k];
  unsigned* my_flags = flags + k * tiles;
  const int64_t r0 = t * kTile;
  if (warp == 0) tile_prefix(words, n_words, r0 / 32, s_word, s_pre);
  __syncthreads();
  // Row r0 + 32 w + lane, word w = kThreads / 32 * j + warp: a warp reads 32 consecutive rows.
  W v[kItems];
  uint32_t kept = 0;  // bit j: item j is kept
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const int w = kThreads / 32 * j + warp;
    if ((s_word[w] >> lane) & 1u) {
      v[j] = base[r0 + 32 * w + lane];
      kept |= 1u << j;
    }
  }
  __syncthreads();  // every read of the tile is done
  if (warp == 0) publish_and_wait(my_flags, t);
  __syncthreads();  // every tile before this one has read what this one overwrites
  const int64_t d0 = kept_before[t];
  const uint32_t below = (1u << lane) - 1u;
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const int w = kThreads / 32 * j + warp;
    if ((kept >> j) & 1u) base[d0 + s_pre[w] + __popc(s_word[w] & below)] = v[j];
  }
}

template <class W>
void launch_group(cudaStream_t s, const std::vector<W*>& group, int64_t tiles,
                  const uint32_t* votes, int64_t n_words, const int64_t* kept_before,
                  unsigned* flags) {
  for (size_t first = 0; first < group.size(); first += kTargetsPerLaunch) {
    TargetList<W> list{};
    list.count = static_cast<int>(std::min<size_t>(kTargetsPerLaunch, group.size() - first));
    for (int i = 0; i < list.count; ++i) list.base[i] = group[first + i];
    // The ticket counter, then one flag per (target, tile), all zero.
    check_cuda(cudaMemsetAsync(flags, 0, sizeof(unsigned) * (1 + list.count * tiles), s),
               "cudaMemsetAsync");
    compact_tiles<W><<<static_cast<unsigned>(list.count * tiles), kThreads, 0, s>>>(
        list, tiles, votes, n_words, kept_before, flags, flags + 1);
    check_launch("compact_in_place kernel launch");
  }
}

}  // namespace
#endif

void compact_in_place_async(const Exec& exec, int64_t n, const uint32_t* votes,
                            const std::vector<CompactTarget>& targets, ScratchBuffer& scan_tmp,
                            ScratchBuffer& flags, int64_t* kept_dev) {
#if defined(__CUDACC__)
  if (exec.on_device) {
    cudaStream_t s = static_cast<cudaStream_t>(exec.stream);
    const int64_t n_words = (n + 31) / 32;
    const int64_t tiles = std::max<int64_t>((n + kTile - 1) / kTile, 1);
    std::vector<uint32_t*> narrow;
    std::vector<uint64_t*> wide;
    for (const CompactTarget& t : targets) {
      if (t.elem_size == 4)
        narrow.push_back(static_cast<uint32_t*>(t.base));
      else if (t.elem_size == 8)
        wide.push_back(static_cast<uint64_t*>(t.base));
      else
        fail(PVEC_ERROR_INTERNAL, "compact_in_place: elements of ", t.elem_size, " bytes");
    }
    // Allocations first: [kept_before: tiles + 1 | scan temp], and the flags.
    auto kept_in = thrust::make_transform_iterator(thrust::counting_iterator<int64_t>(0),
                                                   TileKept{votes, n_words, tiles});
    size_t scan_bytes = 0;
    check_cuda(
        cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, kept_in, static_cast<int64_t*>(nullptr),
                                      as_cub_count(tiles + 1), s),
        "cub::DeviceScan::ExclusiveSum");
    const size_t at_temp = ((tiles + 1) * sizeof(int64_t) + 255) / 256 * 256;
    char* scan = static_cast<char*>(scan_tmp.ensure(at_temp + scan_bytes));
    const int64_t per_launch =
        std::min<int64_t>(kTargetsPerLaunch, std::max(narrow.size(), wide.size()));
    auto* fl = flags.ensure_as<unsigned>(static_cast<size_t>(1 + per_launch * tiles));
    auto* kept_before = reinterpret_cast<int64_t*>(scan);
    check_cuda(cub::DeviceScan::ExclusiveSum(scan + at_temp, scan_bytes, kept_in, kept_before,
                                             as_cub_count(tiles + 1), s),
               "cub::DeviceScan::ExclusiveSum");
    copy_bytes(kept_dev, kept_before + tiles, sizeof(int64_t), true, exec.stream);
    if (n > 0) {
      launch_group(s, narrow, tiles, votes, n_words, kept_before, fl);
      launch_group(s, wide, tiles, votes, n_words, kept_before, fl);
    }
    return;
  }
#endif
  (void)n, (void)votes, (void)targets, (void)scan_tmp, (void)flags, (void)kept_dev;
  fail(PVEC_ERROR_INTERNAL, "compact_in_place_async on the host");
}

}  // namespace pvec::impl
