// map: send every local particle, with all properties, to the rank owning its position
// (pvec_map). Collective over ctx.comm.
#pragma once

#include "exchange/dist_context.hpp"

#include <cstdint>

namespace pvec::impl {

// Wraps periodic coordinates, labels owners, agrees across ranks on particles outside a
// non-periodic boundary (PVEC_ERROR_PARTICLES_OUTSIDE on every rank, nothing changed, unless
// PVEC_MAP_REMOVE_OUTSIDE), then moves the movers; arrivals fill the movers' rows. Drops the
// ghosts and bumps the generation. Returns the global count removed. The caller forgets its
// ghost plan.
int64_t map(DistContext& ctx, unsigned flags);

}  // namespace pvec::impl
