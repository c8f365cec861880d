// Spawns: room after the local particles of one mirror where kernels create particles,
// claiming slots with an atomic counter (pvec_vector_spawn_begin / _commit / _cancel).
#pragma once

#include "memory/scratch_buffer.hpp"
#include "particles/particle_set.hpp"

#include <pvec.h>

#include <cstdint>

namespace pvec::impl {

struct SpawnState {
  bool open = false;
  bool device = false;  // the mirror the spawn writes
  int64_t first = 0;    // the row of slot 0
  int64_t limit = 0;    // the slots reserved
  // The claim counter, one unsigned long long in the memory of the spawn's mirror: host
  // memory for the host mirror (of any vector), the device's for a CUDA vector's device mirror.
  ScratchBuffer host_counter, device_counter;
  // Where the device counter is copied for the host to read at commit: page-locked memory
  // (a copy into pageable memory goes through a staging buffer and costs several times more).
  ScratchBuffer landing;
  bool kind_set = false;
  ScratchBuffer& counter(bool gpu) { return gpu ? device_counter : host_counter; }
};

// Grows the capacity to hold max_new more local particles (dropping the ghosts), zeroes rows
// [n_local, n_local + max_new) of the mirror and its claim counter, and opens the spawn.
// id_first / id_stride go into the spawner as they are. Throws on failure with nothing
// changed but the capacity.
pvec_spawner open_spawn(ParticleSet& ps, bool device, int64_t max_new, SpawnState& st,
                        int64_t id_first, int64_t id_stride);
// The slots claimed so far (waits for the vector's stream).
int64_t claimed_slots(ParticleSet& ps, SpawnState& st);

}  // namespace pvec::impl
