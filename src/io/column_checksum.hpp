// The checkpoint checksum (io/row_checksum.hpp) of a host column's rows in its own layout
// (component-major, stride the capacity): the same value word_sum gives for the same rows
// interleaved as the file holds them, without interleaving them, on every host thread, so
// that the writer's file and staging threads do no summing. (A device mirror's blocks are
// summed by the staging thread as it copies them from the GPU.)
#pragma once

#include "particles/particle_set.hpp"

#include <cstdint>

namespace pvec::impl::io {

// Rows [0, n) of column col of the chosen mirror, which is host memory (the host mirror, or
// the host backend's second mirror); k0: the index, in the dataset, of the first row's first
// 4-byte word.
uint64_t column_checksum(const ParticleSet& ps, int col, bool device, int64_t n, uint64_t k0);

}  // namespace pvec::impl::io
