// The decomposition interface: how the box is split among the ranks. A decomposition is a
// trivially copyable struct passed by value into the labelling and ghost kernels, with
//
//   PVEC_HD int  owner(const double* x) const;            rank owning a point in the domain
//   PVEC_HD void subdomain(int rank, double* lo, double* hi) const;   that rank's box [lo, hi)
//   PVEC_HD bool periodic[d], lo[d], hi[d], length(d), wrap(d, x), inside(d, x)   the domain
//
// and the ranks whose subdomain, widened by the ghost width, holds a point (with the periodic
// shift of each): for the Cartesian grid that query is GhostCandidates (halo/), which walks
// the grid's cells. CartGrid is the one implementation today; a load-balanced decomposition
// (recursive bisection by particle count) gives every rank a box as well, so it provides the
// same members and the layout and ghost rules stay the same.
#pragma once

#include "decomp/cartesian_grid.hpp"

#include <type_traits>

namespace pvec::impl {

template <class D>
constexpr bool is_decomposition_v = std::is_trivially_copyable_v<D>&& std::is_same_v<
    decltype(std::declval<const D&>().owner(static_cast<const double*>(nullptr))), int>&&
    std::is_same_v<decltype(std::declval<const D&>().subdomain(0, static_cast<double*>(nullptr),
                                                               static_cast<double*>(nullptr))),
                   void>;

static_assert(is_decomposition_v<CartGrid>, "CartGrid implements the decomposition interface");

}  // namespace pvec::impl
