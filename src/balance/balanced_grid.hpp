// A decomposition that follows the particles: a rectilinear grid (decomp/cartesian_grid.hpp)
// whose cut planes split the particles' weight evenly. pvec_vector_rebalance computes one and
// maps the particles to it. See docs/balance.md.
//
// The cuts of a dimension split into k cells are its weighted k-quantiles: a histogram of the
// coordinates (4096 bins, over every rank), then a finer one (256 sub-bins) inside each bin a
// quantile falls in, so a cut lies within 1/2^20 of the box length of its quantile. Weights are
// summed as integers (each quantised to 24 bits of the largest weight), so the histograms, the
// cuts and the grid are the same whatever the order of the sums: on the GPU (atomic adds), on
// the host, on any rank count that holds the same particles.
//
// Which dimensions are cut: the candidates are the equal grid's factorisation of the rank count
// (the least subdomain surface) and slabs along each dimension (one cut dimension, which can
// always split the weight evenly); each candidate's box weights are counted (for slabs, read off
// the histograms; for grids cut along several dimensions, one pass over the particles), and
// the one with the lightest heaviest box is taken, the least surface among those within 2%.
#pragma once

#include "comm/communicator.hpp"
#include "decomp/cartesian_grid.hpp"
#include "memory/scratch_buffer.hpp"
#include "particles/particle_set.hpp"

#include <cstdint>

namespace pvec::impl {

// Device (or host) work memory of balanced_grid, kept between calls.
struct BalanceScratch {
  ScratchBuffer hist, refine, boxes, request;
};

// The balanced grid of the local particles [0, n_local) of every rank, read on the chosen
// mirror; weight_col: a scalar float32/float64 column of finite weights >= 0 (checked by the
// caller), or -1 to count particles; wmax: the largest weight over every rank (0: count
// particles). current gives the domain. Collective.
CartGrid balanced_grid(ParticleSet& ps, const Communicator& comm, const CartGrid& current,
                       int weight_col, double wmax, bool device, BalanceScratch& scratch);

}  // namespace pvec::impl
