// locality_sort: reorders a vector's local rows by cell (pvec_vector_sort), so that the particles
// of a cell are consecutive rows and a kernel over a cell list reads nearby memory.
#pragma once

#include "memory/allocator.hpp"
#include "neighbors/bucket_sort.hpp"
#include "neighbors/neighbor_input.hpp"

#include <cstddef>
#include <vector>

namespace pvec::impl {

// Blocks the sort gathers into and then swaps with the columns, so that a sort moves each
// byte once and steady state allocates nothing: one block per distinct column size and mirror
// kind. They are the size of columns (pvec_memory_stats counts them); blocks of a size no
// column has any more (after a reallocation) are freed by the next sort.
class SortSpares {
 public:
  SortSpares() = default;
  SortSpares(const SortSpares&) = delete;
  SortSpares& operator=(const SortSpares&) = delete;
  ~SortSpares() { clear(); }
  // A block of exactly bytes of kind (allocated if none is free).
  void* take(MemKind kind, size_t bytes);
  // Gives back a block the caller no longer uses (a retained block is deallocated instead:
  // its retention owns it now).
  void give(MemKind kind, void* p, size_t bytes);
  // Frees the blocks whose size is not in sizes.
  void keep_only(MemKind kind, const std::vector<size_t>& sizes);
  void clear();
  size_t bytes() const;

 private:
  struct Block {
    MemKind kind;
    void* p;
    size_t bytes;
  };
  std::vector<Block> blocks_;
};

struct SortScratch {
  ScratchBuffer keys, offsets, order, order_other, flags;
  // The Morton rank of every cell of the last Morton sort's grid (morton_rank.hpp), kept while
  // the grid's dimensions stay the same.
  ScratchBuffer morton_rank;
  int64_t morton_dims[3] = {0, 0, 0};
  BucketScratch bucket;
  SortSpares spares;
  bool on_device = false;
  bool kind_set = false;
};

struct SortParams {
  double cell_width = 0;
  bool morton = false;        // cells in Morton (Z-curve) order, else row-major
  bool halo_first = false;    // cells in the halo-first order (halo_order.hpp); not with morton
  bool device = false;        // sort the device mirror (else the host mirror)
  bool both_mirrors = false;  // apply the same permutation to the other mirror
};

// Sorts the local rows [0, n_local) of every column of the named mirror (and the other one
// with both_mirrors) by cell, stably (rows of one cell keep their order). Ghost rows are not
// moved. Bumps the particle set's generation (the columns are new buffers). Returns whether
// anything moved (false when the rows were in order already). Throws INVALID_ARGUMENT
// (cell_width not positive and finite; a NaN or infinite position; morton with halo_first),
// NOT_SUPPORTED (dimension 4; 2^31 rows or cells), OUT_OF_MEMORY, CUDA; the vector is unchanged
// when it throws. Work memory: O(rows + cells) for every order (the keys, the order, the
// buckets' offsets, a Morton rank per cell), kept for the next sort.
bool locality_sort(const NeighborInput& in, const SortParams& p, SortScratch& s);

}  // namespace pvec::impl
