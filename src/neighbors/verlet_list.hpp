// VerletList: for each local particle, the rows (local or ghost) closer than cutoff + skin, in
// CSR form (pvec_verlet_*). Built from a cell list of the local and ghost rows, in two passes
// (count, scan, fill), so that no maximum neighbour count is asked for; the arrays only grow.
// On the device a rebuild fills padded rows of the room the last build needed (its largest
// count and an eighth more) in one pass and compacts them into the CSR arrays; a count that
// outgrew the room falls back to the fill pass, so the arrays are the same either way.
//
// A half list holds each pair once: two local particles i < j in the list of the one whose
// cell comes first in the half stencil (same cell: in i's list); a local particle and a ghost
// in the local particle's list when the ghost's owner rank is above this rank, and, for this
// rank's own periodic images, when the image's periodic shift is positive (its first nonzero
// component). The rank above never lists the pair, so the pair is computed once in the whole
// run and ghost_put(ADD) brings the ghost's share home.
//
// Options: a pair filter (skip_col: pairs whose two rows both hold a nonzero value in that
// integer column are left out, inside the passes, so the arrays never hold them), and a key
// order (key_col: each particle's neighbours reordered by that integer column after the fill,
// neighbors/key_order.hpp). The owner checks that both columns are current on the ghost rows.
#pragma once

#include "neighbors/cell_list.hpp"
#include "neighbors/key_order.hpp"

#include <pvec_neighbors_view.hpp>

#include <cstdint>

namespace pvec::impl {

struct VerletParams {
  double cutoff = 0;
  double skin = 0;
  int span = 1;
  bool half = false;
  bool device = false;
  int key_col = -1;   // order each particle's neighbours by this integer column (-1: cell order)
  int skip_col = -1;  // leave out pairs flagged nonzero on both sides in this column (-1: none)
};

class VerletList {
 public:
  // (Re)builds from the local and ghost rows as they are now; keeps the local positions as
  // the reference of needs_rebuild. Throws as CellList::build, and INVALID_ARGUMENT (skin
  // negative or not finite), STATE (a half list over ghosts without the valid ghost plan that
  // made them). On failure the list is left unbuilt.
  void build(const NeighborInput& in, const VerletParams& p);

  bool built() const { return built_; }
  const VerletParams& params() const { return p_; }
  uint64_t epoch() const { return epoch_; }
  bool on_device_memory() const { return cells_.on_device_memory(); }
  pvec::verlet_view view() const;
  int64_t n_pairs() const { return n_pairs_; }
  const CellList& cells() const { return cells_; }

  // The neighbours in another vector (neighbors/cross_verlet.cu): for each local particle of
  // `in`, the rows (local and ghost) of `src` closer than cutoff + skin, in src's cell order
  // (or key order: p.key_col is a column of src). Full lists, one thread (loop iteration) per
  // particle. The caller checked that both have the same boxes and position dtype. Keeps the
  // local positions of both as the reference of moved_too_far.
  void build_cross(const NeighborInput& in, const NeighborInput& src, const VerletParams& p);
  bool cross() const { return cross_; }
  uint64_t source_epoch() const { return src_epoch_; }

  // Whether any local particle (and of a cross list, any local particle of the source) moved
  // more than skin / 2 since the build (positions of the mirror the list was built on).
  // Local; reads one flag back, never the positions.
  bool moved_too_far(const NeighborInput& in, const NeighborInput* src = nullptr);

 private:
  VerletParams p_;
  CellList cells_;
  bool built_ = false;
  uint64_t epoch_ = 0;
  int64_t n_ = 0;
  int64_t n_pairs_ = 0;
  bool kind_set_ = false;
  bool on_device_ = false;
  int64_t stride_ = 0;  // room per particle of a one-pass rebuild (0: two passes)
  ScratchBuffer offsets_, neighbors_, x0_, self_shift_, flag_, scan_tmp_, order_, xs_, pad_;
  KeyOrderScratch key_order_;
  bool cross_ = false;
  uint64_t src_epoch_ = 0;
  int64_t n_src_ = 0;
  ScratchBuffer x0_src_;
  void set_memory_kind(bool dev_mem);
};

}  // namespace pvec::impl
