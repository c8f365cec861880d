// remove_marked: removes the local particles whose mark is nonzero, on one mirror, either
// keeping the survivors' order or filling the holes with the last survivors; on the device
// without waiting when asked (the count stays in device memory until the host needs it).
#pragma once

#include "memory/scratch_buffer.hpp"
#include "particles/particle_set.hpp"

#include <cstdint>

namespace pvec::impl {

// Where the marks are: a scalar column of the vector (any dtype; nonzero, NaN included,
// removes), or an int32 array of n_local entries in the memory of the mirror the removal
// runs on.
struct MarkSource {
  int column = -1;                 // >= 1: a property's column
  const int32_t* flags = nullptr;  // used when column < 0
};

// The work buffers of one mirror's removals: vote words, the in-place compaction's flags
// (tmp), the lists of removed and tail rows, selection and scan scratch (rows), the counts.
struct RemovalBuffers {
  ScratchBuffer votes, tmp, removed, tail, rows, counts;
};
// The work buffers of removals, kept between calls (host memory for removals on the host
// mirror, the device's for those on the device mirror), and the count of an asynchronous
// removal that the host has not read yet.
struct RemovalScratch {
  RemovalBuffers host, device;
  ScratchBuffer landing{MemKind::pinned};  // the count, copied for the host to read
  bool kinds_set = false;
};
struct PendingRemoval {
  bool active = false;
  int64_t n_before = 0;  // the local count before the removal
};

// Removes the marked local particles of the mirror (device: the second mirror) and drops the
// ghosts; returns how many were removed. keep_order: the survivors keep their order (moved
// down in place: on the device each kept value is read and written once); else the survivors past
// the new end fill the holes before it, in order (only as many rows move as were removed before the
// new end). Throws NOT_SUPPORTED on the device beyond 2^31-1 local particles.
int64_t remove_marked(ParticleSet& ps, bool device, const MarkSource& mark, bool keep_order,
                      RemovalScratch& scratch);

// remove_marked on the device without waiting: the work is queued on the vector's stream, the
// count removed is written to count_out (device memory, may be null) and to the pinned landing
// buffer by the queued work. The sizes of ps are not changed: the caller calls
// finish_removal after the stream reached the end of the work.
void remove_marked_async(ParticleSet& ps, const MarkSource& mark, bool keep_order,
                         RemovalScratch& scratch, int64_t* count_out);
// The count an asynchronous removal left in the landing buffer (after synchronisation).
int64_t landed_count(RemovalScratch& scratch);

}  // namespace pvec::impl
