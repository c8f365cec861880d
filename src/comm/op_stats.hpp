// OpStats: the figures of the last map, ghost_get or ghost_put (pvec_op_stats), so that the
// work on the processor and the communication can be measured apart.
#pragma once

#include <pvec.h>

#include <cstdint>

namespace pvec::impl {

struct OpStats {
  double compute_seconds = 0;   // labelling, packing, unpacking, compaction
  double exchange_seconds = 0;  // MPI, host staging, CUDA IPC copies and their bookkeeping
  int64_t bytes_sent = 0;
  int64_t bytes_received = 0;
  int64_t particles_sent = 0;
  int64_t particles_received = 0;
  int64_t particles_self = 0;               // of particles_sent: this rank's own periodic images
  int64_t transport = PVEC_TRANSPORT_NONE;  // how the messages went (pvec_transport)
  // Not in pvec_op_stats: the last map changed this rank's rows (particles left or arrived, or
  // periodic coordinates were wrapped). False: every row holds what it held before the map.
  bool rows_changed = false;
};

}  // namespace pvec::impl
