// plan_runs: a host ghost plan's entries as runs of consecutive source rows, so that the host
// row kernels (the pack of ghost_get, the reduction of ghost_put) copy a run as one contiguous
// stretch instead of gathering entry by entry.
//
// Run q is the entries [runs[q], runs[q + 1]) of one destination's block whose sources are
// src[runs[q]], src[runs[q]] + 1, ...; runs[n_runs] = n_send. A run ends where the source does
// not follow the previous one (a gap, or a particle's second periodic image) and where a
// destination's block ends. In halo-first order the particles near a face lie in stretches of
// rows, and a block of 5 x 10^4 entries has 1,700-2,900 runs; in cell order 1,500-9,300; in
// random order nearly every entry is a run of its own, and the kernels gather as before
// (EntryRuns::worth decides per block). Positions keep their per-entry periodic shifts: a run
// may span entries of different shifts.
#pragma once

#include "backend/host_parallel.hpp"
#include "common/index_list.hpp"
#include "exchange/row_kernels_host.hpp"
#include "halo/ghost_plan.hpp"

#include <cstdint>

namespace pvec::impl {

// A destination's block whose runs are shorter than this on average is gathered entry by entry:
// a run costs a loop set-up and a jump the prefetchers miss, which the gather's prefetch 256
// entries ahead hides (on the CPU machine, blocks of mean run 5.5 in cell order packed no
// faster by runs; blocks of 17-32 in halo-first order 1.4-2x faster).
constexpr int64_t kMinMeanRun = 8;

// The plan's runs, for plans on host memory (plan.runs, plan.n_runs). O(n_send), in parallel
// ranges (host_select keeps the order). Makes room in plan.runs (grows only).
inline void make_plan_runs(GhostPlan& plan) {
  const int64_t n = plan.n_send;
  int64_t* runs = plan.runs.ensure_as<int64_t>(n + 1);
  const int32_t* peer =
      plan.send_counts.size() > 1 ? static_cast<const int32_t*>(plan.peer.data()) : nullptr;
  const IndexList src = plan.sources();
  auto starts = [&](auto s) {
    return host_select(
        n,
        [&](int64_t j) {
          return j == 0 || s[j] != s[j - 1] + 1 || (peer != nullptr && peer[j] != peer[j - 1]);
        },
        IndexList{runs, false});
  };
  plan.n_runs = src.narrow ? starts(static_cast<const int32_t*>(src.data))
                           : starts(static_cast<const int64_t*>(src.data));
  runs[plan.n_runs] = n;
}

// White-box tests: 1 copies by runs whatever their length, 0 never, -1 (the default) where the
// mean run is at least kMinMeanRun (halo/ghost_get.cu).
void force_plan_runs(int mode);
int forced_plan_runs();

// The plan's runs for the host row kernels, which copy by runs the blocks where they are long
// enough (EntryRuns::worth).
inline EntryRuns runs_of(const GhostPlan& plan) {
  const int forced = forced_plan_runs();
  if (plan.n_runs <= 0 || forced == 0 || (forced < 0 && plan.n_send < kMinMeanRun * plan.n_runs))
    return EntryRuns{};
  return EntryRuns{static_cast<const int64_t*>(plan.runs.data()), plan.n_runs,
                   forced > 0 ? 1 : kMinMeanRun};
}

}  // namespace pvec::impl
