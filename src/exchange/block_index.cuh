// BlockIndex and Slot: where an entry of a message sits, in its peer's block or, for this
// rank's own periodic images, in its ghost row.
#pragma once

#include "common/hd.hpp"
#include "exchange/row_table.cuh"

#include <cstdint>

namespace pvec::impl {

// Where one entry's values sit: in its peer's message block as particle `local` of k, or, for
// this rank's own periodic images (`direct`), in the entry's ghost row of the column itself.
struct Slot {
  char* block;  // the peer's message block
  int64_t k;
  int64_t local;
  int64_t row;  // direct: the ghost row
  bool direct;
  // Component 0 of the entry in a column (col: the column's base; prefix: bytes per message
  // particle before the column; elem: element size), and the distance between components in
  // elements.
  PVEC_HD char* at(char* col, int64_t cap, int64_t prefix, int64_t elem, int64_t& stride) const {
    stride = direct ? cap : k;
    return direct ? col + row * elem : message_at(block, k, prefix, local, elem);
  }
};

// Entry j (sorted by peer) goes into peer[j]'s block as particle j - first[peer[j]]; the
// entries of peer `self` (this rank's own periodic images in ghost_get and ghost_put; -1 for
// none) into the ghost rows self_row.. instead, in no message. With one rank every entry is
// self's and there is no peer array (null).
struct BlockIndex {
  const int32_t* peer;
  const int64_t* block_off;  // bytes
  const int64_t* first;
  const int64_t* count;
  int self;
  int64_t self_row;
  PVEC_HD Slot slot(int64_t j, char* buf) const {
    const int32_t r = peer != nullptr ? peer[j] : self;
    const int64_t local = j - first[r];
    return Slot{buf + block_off[r], count[r], local, self_row + local, r == self};
  }
};

}  // namespace pvec::impl
