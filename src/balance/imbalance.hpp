// How unevenly a vector's particles, or their cost, are spread over its ranks: the largest
// rank's share over the mean (1 is perfect balance). The measure a rebalance is judged by and
// decided on. See pvec_vector_get_imbalance in pvec.h and docs/balance.md.
#pragma once

#include "comm/communicator.hpp"
#include "particles/particle_set.hpp"
#include "reduce/reduction.hpp"

namespace pvec::impl {

struct Imbalance {
  double count = 1;   // max over the ranks of the local particle count, over the mean
  double weight = 1;  // the same of the sum of the weights (count without a weight column)
};

// weight_col: a scalar float32/float64 column (its values the cost of each particle, finite
// and >= 0), or -1 for none; read on the chosen mirror. A weight column that is not such a
// column is refused on every rank; a negative, NaN or infinite weight on any rank is
// INVALID_ARGUMENT on every rank, naming the lowest such rank. No particle at all, or no
// weight at all: 1. Collective.
Imbalance measure_imbalance(ParticleSet& ps, const Communicator& comm, int weight_col, bool device,
                            ReduceScratch& scratch);

// The weight column's checks of measure_imbalance, for the calls that take one (local).
void check_weight_column(const ParticleSet& ps, int weight_col);

}  // namespace pvec::impl
