// The geometry of a cell list: a grid over a rank's subdomain widened by the ghost width,
// cells at least cutoff / span wide. Checked here, once, for every structure built on it.
#pragma once

#include "neighbors/neighbor_input.hpp"

#include <pvec_neighbors_view.hpp>

namespace pvec::impl {

// The geometry of a cell list with null arrays. Throws INVALID_ARGUMENT (cutoff not positive
// and finite, cutoff above the ghost width, span outside [1, 8]) or NOT_SUPPORTED (dimension
// 4, more than 2^31 - 1 cells). `what` names the caller's argument in messages.
// check_ghost_width false (the locality sort): any positive width is fine.
pvec::cell_list_view make_cell_grid(const NeighborInput& in, double cutoff, int span,
                                    const char* what, bool check_ghost_width = true);

}  // namespace pvec::impl
