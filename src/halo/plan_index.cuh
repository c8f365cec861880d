// plan_index: a ghost plan's entries as a BlockIndex, for the row kernels.
#pragma once

#include "exchange/block_index.cuh"
#include "halo/ghost_plan.hpp"

#include <cstdint>

namespace pvec::impl {

// Where the entries of a ghost plan go (ghost_get) or come from (ghost_put): peers holds the
// per-peer block offsets, first entries and counts (3 P words); this rank's own images are the
// ghost rows from n + recv_first[me]. With one rank the plan has no peer array: every entry is
// an own image.
inline BlockIndex plan_index(const GhostPlan& plan, const int64_t* peers, int P, int me,
                             int64_t n) {
  return BlockIndex{P == 1 ? nullptr : static_cast<const int32_t*>(plan.peer.data()),
                    peers,
                    peers + P,
                    peers + 2 * P,
                    me,
                    n + plan.recv_first[me]};
}

}  // namespace pvec::impl
