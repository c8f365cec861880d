// ghost_put on the host in parallel ranges, bitwise equal to one thread at any thread count.
//
// The serial order (ReduceColumn over the entries j = 0 .. n_send-1, halo/reduce_column.cuh):
// every element of a source row receives its contributions in increasing entry order, i.e. by
// destination rank, and within a rank's block in block order. For floating-point ADD (and for
// REPLACE: the last one wins) that order is the result, so a parallel reduction must keep it.
//
// The scheme uses an invariant of the plan (GhostPlan, built by either plan path): within each
// destination rank's block the sources are nondecreasing (the entries are made in particle
// order and stably grouped by rank). So the entries whose source lies in a range of rows
// [d0, d1) form one contiguous sub-range of every block, found by binary search, and ranges of
// source rows are independent: no two threads write one row, and a range applies its rows'
// entries block after block, each block in order, which is the serial order of every element.
// The row ranges are cut so that each holds about as many entries: range t starts at the first
// row below which t n_send / T entries lie (a binary search over rows of a count summed over
// the blocks), so one thread's cut never depends on the thread count of another's. Nothing is
// stored with the plan and nothing is allocated; one thread is the same code with one range of
// all rows. A row with many entries (a corner particle's seven images) stays in one range.
//
// The pack (ghost rows to the peers' blocks) is halo/ghost_blocks_host.hpp.
#pragma once

#include "backend/host_parallel.hpp"
#include "common/dispatch.hpp"
#include "common/index_list.hpp"
#include "exchange/block_index.cuh"
#include "exchange/message_layout.hpp"
#include "exchange/row_kernels_host.hpp"
#include "halo/ghost_plan.hpp"
#include "halo/plan_runs.hpp"
#include "halo/reduce_column.cuh"
#include "particles/particle_set.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace pvec::impl {

namespace detail {

// The plan's entries of each destination's block, by source row (see the top).
template <class I>
struct PutBlocks {
  const I* src;
  const int64_t* first;  // per rank
  const int64_t* count;
  int P;
  int64_t n_send, n_local;

  // The first entry of block r with a source at or above row d.
  int64_t lower(int r, int64_t d) const {
    const I* b = src + first[r];
    return first[r] +
           (std::lower_bound(b, b + count[r], d, [](I s, int64_t x) { return s < x; }) - b);
  }
  // Entries with a source below row d.
  int64_t below(int64_t d) const {
    int64_t m = 0;
    for (int r = 0; r < P; ++r)
      if (count[r] > 0) m += lower(r, d) - first[r];
    return m;
  }
  // The first row of the range that starts at entry k: the least row with k entries below it
  // (0 for k = 0, every row for k = n_send).
  int64_t cut(int64_t k) const {
    if (k <= 0) return 0;
    if (k >= n_send) return n_local;
    int64_t lo = 0, hi = n_local;  // below(hi) >= k
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (below(mid) >= k)
        hi = mid;
      else
        lo = mid + 1;
    }
    return lo;
  }
};

// Entries [lo, hi) of one block into one component row: dst[src[j]] op= val[j - lo].
template <int OP, class T, class I>
void reduce_run(T* dst, const T* val, const I* src, int64_t lo, int64_t hi) {
  for (int64_t j = lo; j < hi; ++j) {
    T& d = dst[src[j]];
    d = combined(d, val[j - lo], OP);
  }
}

// The same by runs of consecutive sources (EntryRuns, halo/plan_runs.hpp): each run combines
// a contiguous stretch of values into a contiguous stretch of the row. A row appears once per
// run, so every element still receives its contributions in entry order.
template <int OP, class T, class I>
void reduce_runs(T* dst, const T* val, const I* src, const EntryRuns& runs, int64_t lo,
                 int64_t hi) {
  for (int64_t q = runs.run_of(lo), j0 = lo; j0 < hi; ++q) {
    const int64_t j1 = runs.at[q + 1] < hi ? runs.at[q + 1] : hi;
    if (q + kRunPrefetch < runs.n) __builtin_prefetch(dst + src[runs.at[q + kRunPrefetch]]);
    T* d = dst + src[j0];  // the run's rows, one after another
    const T* v = val + (j0 - lo);
    const int64_t len = j1 - j0;
    for (int64_t i = 0; i < len; ++i) d[i] = combined(d[i], v[i], OP);
    j0 = j1;
  }
}

template <int OP, class T, class I>
void reduce_entries(T* dst, const T* val, const I* src, const EntryRuns& runs, int64_t lo,
                    int64_t hi) {
  if (runs.n > 0)  // (the caller passes runs only for blocks worth it)
    reduce_runs<OP>(dst, val, src, runs, lo, hi);
  else
    reduce_run<OP>(dst, val, src, lo, hi);
}

template <class T, class I>
void reduce_run_op(int op, T* dst, const T* val, const I* src, const EntryRuns& runs, int64_t lo,
                   int64_t hi) {
  switch (op) {
    case PVEC_REDUCE_ADD:
      return reduce_entries<PVEC_REDUCE_ADD>(dst, val, src, runs, lo, hi);
    case PVEC_REDUCE_MIN:
      return reduce_entries<PVEC_REDUCE_MIN>(dst, val, src, runs, lo, hi);
    case PVEC_REDUCE_MAX:
      return reduce_entries<PVEC_REDUCE_MAX>(dst, val, src, runs, lo, hi);
    default:
      return reduce_entries<PVEC_REDUCE_REPLACE>(dst, val, src, runs, lo, hi);
  }
}

template <class I>
void reduce_columns_host(ParticleSet& ps, const MessageLayout& layout, const GhostPlan& plan,
                         const BlockIndex& at, char* got, bool device, int op) {
  const int P = static_cast<int>(plan.send_counts.size());
  const PutBlocks<I> blocks{static_cast<const I*>(plan.src.data()),
                            plan.send_first.data(),
                            plan.send_counts.data(),
                            P,
                            plan.n_send,
                            plan.n_local};
  const int64_t cap = ps.capacity();
  const EntryRuns runs = runs_of(plan);
  host_for_ranges(
      plan.n_send,
      [&](int64_t b, int64_t e) {
        const int64_t d0 = blocks.cut(b), d1 = blocks.cut(e);
        if (d0 >= d1) return;
        for (int r = 0; r < P; ++r) {
          if (plan.send_counts[r] == 0) continue;
          const int64_t lo = blocks.lower(r, d0), hi = blocks.lower(r, d1);
          if (lo >= hi) continue;
          const Slot s = at.slot(lo, got);  // entries lo.. sit one after another from here
          const EntryRuns by =
              runs.worth(plan.send_first[r], plan.send_counts[r]) ? runs : EntryRuns{};
          for (size_t q = 0; q < layout.cols.size(); ++q) {
            PropertyBuffer& c = ps.column(layout.cols[q]);
            with_dtype(c.spec.dtype, [&](auto t) {
              using T = decltype(t);
              T* col = static_cast<T*>(c.mirror(device));
              int64_t stride = 0;
              const T* val = reinterpret_cast<const T*>(
                  s.at(reinterpret_cast<char*>(col), cap, layout.col_prefix[q], sizeof(T), stride));
              for (int64_t comp = 0; comp < c.spec.ncomp; ++comp)
                reduce_run_op(op, col + comp * cap, val + comp * stride, blocks.src, by, lo, hi);
            });
          }
        }
      },
      kHostRowGrain);
}

}  // namespace detail

// Every entry's received values (or, for this rank's own images, its ghost row's) combined
// with op into its source row, for the columns of layout; see the top of this file.
inline void reduce_columns_host(ParticleSet& ps, const MessageLayout& layout, const GhostPlan& plan,
                                const BlockIndex& at, char* got, bool device, int op) {
  if (plan.n_send == 0) return;
  if (plan.narrow_src)
    detail::reduce_columns_host<int32_t>(ps, layout, plan, at, got, device, op);
  else
    detail::reduce_columns_host<int64_t>(ps, layout, plan, at, got, device, op);
}

}  // namespace pvec::impl
