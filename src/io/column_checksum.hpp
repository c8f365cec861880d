// The checkpoint checksum (io/row_checksum.hpp) of a column's rows computed where the column
// is, in its own layout (component-major, stride the capacity): the same value word_sum gives
// for the same rows interleaved as the file holds them, without interleaving them. On the GPU
// for a device mirror (one CUB reduction, 8 bytes come back), on every host thread otherwise,
// so that the writer's file and staging threads do no summing.
#pragma once

#include "memory/scratch_buffer.hpp"
#include "particles/particle_set.hpp"

#include <cstdint>

namespace pvec::impl::io {

// Rows [0, n) of column col of the chosen mirror; k0: the index, in the dataset, of the first
// row's first 4-byte word. scratch: the device reduction's work memory.
uint64_t column_checksum(const ParticleSet& ps, int col, bool device, int64_t n, uint64_t k0,
                         ScratchBuffer& scratch);

}  // namespace pvec::impl::io
