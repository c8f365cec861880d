// GhostPlan: what the last ghost_get sent and received, so that it can be replayed when
// positions have not changed and reversed by ghost_put.
#pragma once

#include "common/index_list.hpp"
#include "memory/scratch_buffer.hpp"

#include <cstdint>
#include <memory>
#include <vector>

namespace pvec::impl {

struct GhostPlan {
  bool valid = false;  // false once particles changed (buffers are kept)
  bool on_device = false;
  int64_t n_local = 0;  // local count the plan was made for
  int64_t n_send = 0;   // entries, sorted by destination rank
  // Particle index per entry: int32 if narrow_src, else int64. Nondecreasing within each
  // destination's block (entries are made in particle order and grouped by rank stably):
  // the host ghost_put relies on it (halo/ghost_put_host.hpp).
  ScratchBuffer src;
  bool narrow_src = false;
  ScratchBuffer peer;   // int32 destination rank per entry (unused with one rank)
  ScratchBuffer shift;  // int32 packed periodic shift per entry
  // Host plans: the entries as runs of consecutive sources, int64 starts plus the end
  // (halo/plan_runs.hpp); n_runs = 0 on device plans.
  ScratchBuffer runs;
  int64_t n_runs = 0;
  std::vector<int64_t> send_counts;  // entries per destination
  std::vector<int64_t> send_first;   // first entry of each destination
  std::vector<int64_t> recv_counts;  // ghosts from each source
  std::vector<int64_t> recv_first;   // first ghost (relative to n_local) from each source
  int64_t n_recv = 0;

  IndexList sources() const { return IndexList{const_cast<void*>(src.data()), narrow_src}; }
};

// What a vector keeps of its ghost exchanges between calls: the last plan, and how many
// particles were near a boundary in the last plan built on the device (-1: none yet), so that
// the next plan's count pass makes room for about as many before it knows (see ghost_get).
struct GhostState {
  std::unique_ptr<GhostPlan> plan;
  int64_t near_hint = -1;
  // Any change of the local particles invalidates the plan (its buffers are kept).
  void forget() {
    if (plan) plan->valid = false;
  }
};

// Periodic shifts are stored as one signed byte per dimension.
inline int32_t pack_shift(const int* s, int dim) {
  uint32_t code = 0;
  for (int d = 0; d < dim; ++d) code |= (static_cast<uint32_t>(s[d]) & 0xffu) << (8 * d);
  return static_cast<int32_t>(code);
}

}  // namespace pvec::impl
