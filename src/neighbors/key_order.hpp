// Key order of a neighbour list: each particle's neighbours (one CSR segment) reordered by an
// integer key of the neighbour (a global id), stably, so that a loop over the list visits
// the same neighbours in the same order whatever rows they occupy: on any decomposition, rank
// count or restart. On the device one warp per segment sorts its (key, row) pairs in registers
// (bitonic, segments up to 256 entries; longer ones: one CUB segmented sort of all); on the host
// each segment is sorted on its own, segments spread over the host threads. The order is
// ascending (key, row) on both (ties of keys, which unique ids never have, in row order; in the
// CUB fallback in the list's order).
#pragma once

#include "backend/exec.hpp"
#include "memory/scratch_buffer.hpp"

#include <pvec.h>

#include <cstdint>

namespace pvec::impl {

// The work memory of the device sort, kept between builds (device memory for a device list).
struct KeyOrderScratch {
  ScratchBuffer keys_in, keys_out, rows_out, tmp;
  void set_kind(MemKind kind) {
    for (ScratchBuffer* b : {&keys_in, &keys_out, &rows_out, &tmp}) b->set_kind(kind);
  }
};

// Reorders rows[offsets[i] .. offsets[i+1]) for i in [0, n) by key[row] ascending; key is a
// scalar column of dtype INT32, UINT32, INT64 or UINT64 (signed keys in signed order), in the
// memory of ex's side, as rows and offsets are. most: the longest segment (-1: unknown).
void order_by_key(const Exec& ex, const int64_t* offsets, int32_t* rows, int64_t n, int64_t total,
                  int64_t most, const void* key, pvec_dtype key_dtype, KeyOrderScratch& s);

}  // namespace pvec::impl
