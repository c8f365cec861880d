// bucket_sort: the stable counting sort that cell lists and the locality sort are made of.
// Items [0, n) with keys in [0, nb) go to buckets; within a bucket they stay in increasing
// item order, so the result depends only on the keys (no atomic decides an order).
#pragma once

#include "backend/exec.hpp"
#include "common/hd.hpp"
#include "memory/scratch_buffer.hpp"

#include <cstdint>

namespace pvec::impl {

// The work buffers of bucket_sort, kept by its caller so that steady state allocates nothing.
// slot: the atomic path's slots, or the tiled path's items after CUB's passes; tiles: the tiled
// path's tile starts (tile_sort.hpp).
struct BucketScratch {
  ScratchBuffer slot, tmp, keys_alt, vals_in, flag, gaps, tiles;
  void set_kind(MemKind k) {
    slot.set_kind(k);
    gaps.set_kind(k);
    tiles.set_kind(k);
    tmp.set_kind(k);
    keys_alt.set_kind(k);
    vals_in.set_kind(k);
    flag.set_kind(k);
  }
};

// Takes the next slot of bucket k (counts[k] counts them; bucket_sort's atomic path). On the device
// the lanes of a warp with the same key take consecutive slots, in lane order, with one atomic
// (rows in cell order put whole warps in a few buckets, where one atomic per item would queue on
// one counter); on the host, loops run in order and the slots follow the items.
PVEC_HD inline int32_t claim_slot(int32_t* counts, int32_t k) {
#if defined(__CUDA_ARCH__)
  const unsigned active = __activemask();
  const unsigned peers = __match_any_sync(active, k);
  const int lane = static_cast<int>(threadIdx.x & 31u);
  const int leader = __ffs(static_cast<int>(peers)) - 1;
  int32_t base = 0;
  if (lane == leader) base = atomicAdd(&counts[k], __popc(peers));
  base = __shfl_sync(peers, base, leader);
  return base + __popc(peers & ((1u << lane) - 1u));
#else
  return counts[k]++;
#endif
}

// The bits keys in [0, nb) use (at least 1).
int bucket_key_bits(int64_t nb);

// The stable radix sort (CUB) of (key, item) over key bits [begin_bit, end_bit), items
// identity (when the caller's key pass wrote it) or 0..n-1 written into s.vals_in: items_out gets
// them in key order, and the sorted keys go to s.keys_alt, which is returned. Device only; queued
// on exec's stream (one allocation the first time, in s.tmp).
const int32_t* radix_sort_pairs(const Exec& exec, const int32_t* keys, int64_t n, int begin_bit,
                                int end_bit, int32_t* items_out, BucketScratch& s,
                                const int32_t* identity);

// data[0..n_plus_1) becomes its exclusive prefix sum, on exec's side (queued on the device).
void bucket_scan_in_place(const Exec& exec, int32_t* data, int64_t n_plus_1, ScratchBuffer& tmp);

// offsets[nb + 1]: first position of each bucket in order (offsets[nb] == n); order[n]: the
// items by bucket, ascending within one. With split_offsets (may be null): the exclusive scan
// over buckets of the number of items below n_split in each (nb + 1 entries), i.e. the items
// < n_split of bucket b are order[offsets[b] .. offsets[b] + split_offsets[b+1] -
// split_offsets[b]). n and nb below 2^31. Runs on exec's side; all pointers on that side.
// Queues the device work without waiting for it, except on the atomic path (below 2^15
// items) when a bucket holds more than 64 items (then a radix sort replaces the per-bucket
// sort, after one small copy to the host). identity (may be null): identity[i] = i already
// written (by the key pass), which the radix path then sorts instead of writing its own; it
// may be s.vals_in, and must not be order.
void bucket_sort(const Exec& exec, const int32_t* keys, int64_t n, int64_t nb, int64_t n_split,
                 int32_t* offsets, int32_t* order, int32_t* split_offsets, BucketScratch& s,
                 const int32_t* identity = nullptr);

// The order of bucket_sort alone (the same order array), for callers that need no offsets:
// the device radix path then computes none; the other paths keep them (nb + 1 entries) in
// offsets_scratch, on exec's side, which only they grow.
void bucket_order(const Exec& exec, const int32_t* keys, int64_t n, int64_t nb, int32_t* order,
                  ScratchBuffer& offsets_scratch, BucketScratch& s,
                  const int32_t* identity = nullptr);

// bucket_sort of keys that are non-decreasing already (the caller checked): order is the
// identity and offsets come from where the keys change; the same arrays as bucket_sort.
// order_written: order holds the identity already (the key pass wrote it).
void bucket_sort_presorted(const Exec& exec, const int32_t* keys, int64_t n, int64_t nb,
                           int64_t n_split, int32_t* offsets, int32_t* order,
                           int32_t* split_offsets, BucketScratch& s, bool order_written = false);

}  // namespace pvec::impl
