// The passes of ghost_get's plan on the device (element functions over the near particles):
// CountNear, then FillNear from the scanned counts, and UnpackEntries after the sort by
// destination. The host builds the same plan in two passes of its own
// (halo/ghost_plan_host.hpp).
#pragma once

#include "common/hd.hpp"
#include "common/index_list.hpp"
#include "halo/ghost_candidates.cuh"

#include <cstdint>

namespace pvec::impl {

// ghost_get's count pass, j in [0, room]: count[j] = the candidates of particle near[j] and
// word[j] its record as a cell word, for the near particles within room; count[j] = 0 for the
// other j (the scan's last item, and rows beyond the near particles). How many near particles
// there are is read from *n_near (device memory: the count pass may run before the host
// knows it), or is room when n_near is null.
template <class T, int DIM>
struct CountNear {
  GhostCandidates<T, DIM> f;
  IndexList near;
  int64_t* count;
  uint32_t* word;
  int64_t room;
  const int64_t* n_near;
  PVEC_HD void operator()(int64_t j) const {
    const int64_t nb = n_near != nullptr ? *n_near : room;
    if (j >= (nb < room ? nb : room)) {
      count[j] = 0;
      return;
    }
    const int64_t i = near[j];
    typename GhostCandidates<T, DIM>::Input in;
    f.load(i, in);
    typename GhostCandidates<T, DIM>::Item rec;
    rec.in_cells = false;
    count[j] = f.examine(i, in, rec);
    word[j] = f.cell_word(rec);
  }
};

// ghost_get's fill pass: the entries of particle near[j] from offset[j] (the scanned counts),
// from its cell word where it has one, else from its coordinates.
template <class T, int DIM>
struct FillNear {
  GhostCandidates<T, DIM> f;
  IndexList near;
  const int64_t* offset;
  const uint32_t* word;
  PVEC_HD void operator()(int64_t j) const {
    const int64_t i = near[j];
    const uint32_t w = word[j];
    if (w != GhostCandidates<T, DIM>::kNoCellWord) {
      f.emit_in_cells(f.from_cell_word(i, w), offset[j]);
      return;
    }
    typename GhostCandidates<T, DIM>::Input in;
    f.load(i, in);
    f.emit(i, in, offset[j]);
  }
};

struct Iota {
  int64_t* v;
  PVEC_HD void operator()(int64_t j) const { v[j] = j; }
};

// The entries GhostCandidates packed (pack_entry), sorted, split into the plan's source list
// (narrow) and shift array.
struct UnpackEntries {
  const int64_t* packed;
  IndexList src;
  int32_t* shift;
  PVEC_HD void operator()(int64_t j) const {
    const uint64_t w = static_cast<uint64_t>(packed[j]);
    src.set(j, static_cast<int64_t>(w & 0xffffffffu));
    shift[j] = static_cast<int32_t>(static_cast<uint32_t>(w >> 32));
  }
};

}  // namespace pvec::impl
