// NeighborInput: what neighbour search reads of a vector (the owner above, vector/, fills it):
// its particles, its decomposition, its ghost width, its last ghost plan and the epoch of its
// rows (DistVector::rows_epoch), so that lists can tell when they went stale.
#pragma once

#include "comm/communicator.hpp"
#include "decomp/cartesian_grid.hpp"
#include "halo/ghost_plan.hpp"
#include "particles/particle_set.hpp"

#include <pvec.h>

#include <cstdint>

namespace pvec::impl {

struct NeighborInput {
  ParticleSet& ps;
  const CartGrid& grid;
  pvec_dtype pos_dtype;
  double ghost_width;
  const Communicator& comm;
  const GhostPlan* plan;  // the last ghost plan, or null; valid or not
  uint64_t rows_epoch;
};

}  // namespace pvec::impl
