// tile_sort: the device radix path of bucket_sort with one digit pass fewer. CUB's onesweep
// sorts (key, item) stably over the key's upper bits only (one 8-bit pass fewer than the whole
// key needs), which leaves the items ordered by tile: 2^tile_bits consecutive buckets. One block
// per tile then sorts the tile's items by their low bits with a stable counting sort in shared
// memory and writes the final order and, for cell lists, the tile's bucket offsets, so that the
// last digit pass and the offsets pass become one pass over the items. The result is the same
// arrays as the three-pass sort (bucket_sort.hpp): a stable sort by key, ties in item order.
#pragma once

#include "backend/exec.hpp"
#include "neighbors/bucket_sort.hpp"

#include <cstdint>

namespace pvec::impl {

// Items a tile may hold before the path gives up (a tile is one block's work: a crowded tile
// would serialise the sort; the caller then sorts the three-pass way).
constexpr int64_t kTileCap = 32768;

// How the tiled path would sort n items into nb buckets. use is false where it does not suit:
// keys of 16 bits or fewer (CUB needs at most two passes anyway), fewer than 2^15 items, or
// tiles expected to hold more than kTileCap / 4 items (many items per bucket).
struct TilePlan {
  bool use = false;
  int end_bit = 0;    // bits the keys use
  int low_bits = 0;   // bits below CUB's passes, 1-8
  int tile_bits = 0;  // buckets per tile = 2^tile_bits, low_bits <= tile_bits <= 8
  int64_t tiles = 0;  // ceil(nb / 2^tile_bits)
};
TilePlan tile_plan(int64_t n, int64_t nb);

// The device radix path takes the tiled sort wherever tile_plan says it suits, for cell lists
// and the locality sort alike (measured on the H100, docs/performance.md: the 10^8 cell list
// from random order 0.90x the time of CUB's passes over every bit, the locality re-sort
// 0.95-0.96x).
//
// How the tile pass finds which of a warp's 32 rows share a bucket. shared_or: each lane ORs
// its bit into a shared-memory word per bucket and reads it back; match_any: __match_any_sync,
// whose time grows with the distinct buckets among the 32. shared_or for cell lists
// (with_offsets; rows mostly in random order: its tile pass took 0.58 ms at 10^8 where
// __match_any_sync took 0.99 ms), match_any for the locality sort's order alone (rows nearly in
// order: 1% faster than shared_or).
enum class TileMatch { match_any, shared_or };
constexpr TileMatch tile_match(bool with_offsets) {
  return with_offsets ? TileMatch::shared_or : TileMatch::match_any;
}

// The tiled sort of keys[0..n) (in [0, nb)) with items[i] = i (identity, on the device; null: it
// is written here): order[n] gets the items by key, and offsets[nb + 1] (may be null) the first
// position of each bucket. Device only; waits once for the stream (to see the tiles' sizes).
// Returns false, with order and offsets unspecified, when a tile holds more than kTileCap items.
bool tile_sort(const Exec& exec, const TilePlan& plan, const int32_t* keys, int64_t n, int64_t nb,
               const int32_t* identity, int32_t* order, int32_t* offsets, BucketScratch& s);

// bucket_sort's and bucket_order's entry: tile_sort where tile_plan(n, nb).use, else false
// (nothing written) and the caller sorts the three-pass way.
bool tile_sort_if_suited(const Exec& exec, const int32_t* keys, int64_t n, int64_t nb,
                         const int32_t* identity, int32_t* order, int32_t* offsets,
                         BucketScratch& s);

}  // namespace pvec::impl
