// compact_in_place: the device's stable compaction of columns in place. The rows whose bit is
// set in a vote word array (bit b of words[w]: row 32 w + b) move to the front of every
// component array, in order, with one read and one write of each kept value; no copy of the
// columns is made (a gather into a buffer and a copy back move every kept byte twice).
#pragma once

#include "backend/exec.hpp"
#include "memory/scratch_buffer.hpp"

#include <cstdint>
#include <vector>

namespace pvec::impl {

// One component array of n rows: 4- or 8-byte elements (pvec's dtypes), row i at base[i].
struct CompactTarget {
  void* base;
  int elem_size;  // 4 or 8
};

// Queues, on exec's stream (device only, no host synchronisation), the stable in-place
// compaction of every target's rows [0, n) to the rows whose vote bit is set; *kept_dev
// (device memory) receives how many were kept. Rows at and past that count keep what they
// held or a kept row's old value. Scratch allocations happen before anything is queued, so a
// failure (thrown) leaves the targets untouched. n <= 2^31-1 (as_cub_count).
void compact_in_place_async(const Exec& exec, int64_t n, const uint32_t* votes,
                            const std::vector<CompactTarget>& targets, ScratchBuffer& scan_tmp,
                            ScratchBuffer& flags, int64_t* kept_dev);

}  // namespace pvec::impl
