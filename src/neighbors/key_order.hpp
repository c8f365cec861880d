// Key order of a neighbour list: each particle's neighbours (one CSR segment) reordered by an
// integer key of the neighbour (a global id), so that a loop over the list visits the same
// neighbours in the same order whatever rows they occupy: on any decomposition, rank count or
// restart. The order is ascending (key, row) on both sides: ties of keys, which unique ids
// never have, in row order.
//
// On the device the rows are first ranked: one radix sort of the (key, row) pairs of all rows
// gives each row its 32-bit place in that order, and the inverse (place -> row). One warp per
// segment then sorts the places of its entries in registers (bitonic, segments up to 256
// entries) and writes the rows back through the inverse: one 32-bit value per exchange instead
// of a 64-bit key and a row, a third of the shuffles. Longer segments: one CUB segmented sort
// of the places. A rebuild that filled padded rows (verlet_list.cu) is ordered straight from
// them into the CSR array, in place of its compaction. On the host each segment is sorted on
// its own, segments spread over the host threads.
#pragma once

#include "backend/exec.hpp"
#include "memory/scratch_buffer.hpp"

#include <pvec.h>

#include <cstdint>

namespace pvec::impl {

// The work memory of the device sort, kept between builds (device memory for a device list).
struct KeyOrderScratch {
  ScratchBuffer keys_in, keys_out, rows_in, rank, inv, places_in, places_out, tmp;
  void set_kind(MemKind kind) {
    for (ScratchBuffer* b :
         {&keys_in, &keys_out, &rows_in, &rank, &inv, &places_in, &places_out, &tmp})
      b->set_kind(kind);
  }
};

// Where the entries to order are: the CSR array itself (pad null), or padded rows, particle i's
// offsets[i + 1] - offsets[i] entries at pad + i * stride, ordered into the CSR array.
struct KeyOrderSource {
  const int32_t* pad = nullptr;
  int64_t stride = 0;
};

// Whether order_by_key can read padded rows: on the device, with every segment at most 256
// entries (most: the longest segment).
bool key_order_reads_padded(const Exec& ex, int64_t most);

// Reorders rows[offsets[i] .. offsets[i+1]) for i in [0, n) by key[row] ascending, then row;
// key is a scalar column of dtype INT32, UINT32, INT64 or UINT64 (signed keys in signed order)
// over n_rows rows (every row an entry may name), in the memory of ex's side, as rows and
// offsets are. most: the longest segment (-1: unknown). src: padded rows to order into rows
// (only where key_order_reads_padded), or the CSR array itself.
void order_by_key(const Exec& ex, const int64_t* offsets, int32_t* rows, int64_t n, int64_t total,
                  int64_t most, const void* key, pvec_dtype key_dtype, int64_t n_rows,
                  KeyOrderScratch& s, KeyOrderSource src = {});

}  // namespace pvec::impl
