// ghost_get: copies of the particles within the ghost width of this rank's subdomain, or of
// its periodic images, appended after the local particles (pvec_ghost_get). Collective.
#pragma once

#include "exchange/dist_context.hpp"
#include "halo/ghost_flight.hpp"
#include "halo/ghost_plan.hpp"

#include <cstdint>
#include <vector>

namespace pvec::impl {

// Replaces the ghosts by the particles the plan names, sending the columns cols (column 0,
// the positions, is added unless PVEC_GHOST_SKIP_POSITIONS). Builds a new plan into halo from
// the positions unless PVEC_GHOST_REUSE_PLAN, which every rank must be able to honour
// (INVALID_ARGUMENT on every rank otherwise). Invalidates pointers when the vector grows.
void ghost_get(DistContext& ctx, GhostState& halo, std::vector<int> cols, unsigned flags);
// ghost_get in two halves. begin does all of it up to the messages, which it posts (the plan,
// the room, the pack, own periodic images written in place), and leaves the flight in f;
// end (local: waits only for messages posted by every rank's begin) completes them, unpacks
// them into the ghost rows and sets the ghost count. Between them the ghost rows, the
// vector's work buffers and its transport belong to the flight. A begin that throws leaves
// f inactive and nothing posted.
void ghost_get_begin(DistContext& ctx, GhostState& halo, std::vector<int> cols, unsigned flags,
                     GhostFlight& f);
void ghost_get_end(DistContext& ctx, GhostState& halo, GhostFlight& f);

// Tests: while on, the host path builds its plans with the device path's passes (select,
// count, scan, fill, sort by rank) instead of its own two, so that a test can compare the two
// plans' ghosts byte for byte. Not thread-safe against running calls.
void force_generic_ghost_plan(bool on);
// Tests: on host memory, blocks of at least `rows` particles are received column by column
// straight into the ghost rows, smaller ones whole and unpacked (rows <= 0: the default).
void force_ghost_piece_rows(int64_t rows);

}  // namespace pvec::impl
