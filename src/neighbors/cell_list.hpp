// CellList: the particles of a vector by cell (pvec_cell_list_*). Built on the host or the
// device mirror over the local rows, or the local and ghost rows; deterministic (the same rows
// give the same arrays). The arrays live on the mirror it was built on and are reused by the
// next build (they only grow). Rows already in cell order are their own order: cell_particles
// is then the identity the key pass wrote (in the bucket scratch), not a sorted copy.
#pragma once

#include "neighbors/bucket_sort.hpp"
#include "neighbors/halo_order.hpp"
#include "neighbors/neighbor_input.hpp"

#include <pvec_neighbors_view.hpp>

#include <cstdint>

namespace pvec::impl {

struct CellListParams {
  double cutoff = 0;
  int span = 1;         // cells per cutoff
  bool ghosts = false;  // include the ghost rows
  bool device = false;  // build on (and from) the device mirror
};

class CellList {
 public:
  // (Re)builds from the vector's rows as they are now. Throws INVALID_ARGUMENT (parameters
  // as make_cell_grid; a NaN or infinite coordinate among the rows), NOT_SUPPORTED (2^31 rows
  // or cells), OUT_OF_MEMORY, CUDA. On failure the list is left unbuilt.
  void build(const NeighborInput& in, const CellListParams& p);

  bool built() const { return built_; }
  const CellListParams& params() const { return p_; }
  // The rows epoch of the vector when built (DistVector::rows_epoch).
  uint64_t epoch() const { return epoch_; }
  // Whether the arrays are device memory (false with the host backend even for a device
  // build, whose "device mirror" is host memory).
  bool on_device_memory() const { return on_device_; }
  const pvec::cell_list_view& view() const { return view_; }
  // Keys of the entries' rows (cell of row r at keys()[r]), on the same side; for builders.
  const int32_t* keys() const { return static_cast<const int32_t*>(keys_.data()); }

 private:
  CellListParams p_;
  pvec::cell_list_view view_{};
  bool built_ = false;
  bool on_device_ = false;
  bool kind_set_ = false;
  uint64_t epoch_ = 0;
  ScratchBuffer keys_, offsets_, particles_, local_offsets_, flags_;
  BucketScratch scratch_;
};

// Keys of rows [0, n) by cell (row-major; or rank[c] of the row-major cell c when rank is given,
// the locality sort's Morton ranks; or the cell's rank in the halo-first order when halo is given
// and enabled, rank then null), for the cell list and the locality sort. Sets
// flags bit 0 when a coordinate is NaN or infinite, bit 1 when the keys of rows [0, n_sorted)
// decrease somewhere below row n_split (n_split < 0: n_sorted), bit 2 when they do at or
// above it. With iota (may be null): also iota[r] = r for every row (the identity the sorts
// start from, written while the rows are keyed). Queued on exec, not waited for.
void cell_keys(const Exec& exec, pvec_dtype pos_dtype, const void* pos, int64_t capacity,
               const pvec::cell_list_view& g, int64_t n, int64_t n_sorted, const int32_t* rank,
               int32_t* keys, int32_t* flags, int64_t n_split = -1, int32_t* iota = nullptr,
               const HaloOrder* halo = nullptr);

}  // namespace pvec::impl
