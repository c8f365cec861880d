// ghost_put: the reverse of ghost_get's exchange (pvec_ghost_put). Collective over ctx.comm.
#pragma once

#include "exchange/dist_context.hpp"
#include "halo/ghost_flight.hpp"
#include "halo/ghost_plan.hpp"

#include <pvec.h>

#include <vector>

namespace pvec::impl {

// Sends the ghost rows of the columns cols back to the particles they copy, per the plan of
// the last ghost_get, and combines them there with op. INVALID_ARGUMENT on every rank when
// any rank has no valid plan for this side (plan null, invalidated, or made on the other
// mirror) or its ghosts changed since.
void ghost_put(DistContext& ctx, const GhostPlan* plan, const std::vector<int>& cols,
               pvec_reduce_op op, unsigned flags);
// ghost_put in two halves: begin checks, packs the ghost rows and posts the messages, leaving
// the flight in f; end (local) completes them and combines the values into the local rows.
// Between them the listed properties' local and ghost rows (this rank's own periodic images
// are read from the ghost rows at the end), the vector's work buffers and its transport
// belong to the flight.
void ghost_put_begin(DistContext& ctx, const GhostPlan* plan, const std::vector<int>& cols,
                     pvec_reduce_op op, unsigned flags, GhostFlight& f);
void ghost_put_end(DistContext& ctx, const GhostPlan* plan, GhostFlight& f);

}  // namespace pvec::impl
