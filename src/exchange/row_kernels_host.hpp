// pack_rows_host and unpack_rows_host: PackRows and UnpackRows on the host, component by
// component. PackRows copies every
// component of one entry before the next entry (a GPU thread per entry); a CPU core doing the
// same keeps 16+ read and write streams open at once and waits on each scattered load. Here a
// range of entries is copied one component at a time within each peer's run, so each loop
// reads one column in the entries' order (ascending sources within a peer) and writes one
// contiguous stretch of the block or ghost rows. The values, the shifts and the destinations
// are PackRows' (bitwise), ranges run in parallel (host_for_ranges): entries are independent.
#pragma once

#include "backend/host_parallel.hpp"
#include "common/index_list.hpp"
#include "exchange/block_index.cuh"
#include "exchange/row_kernels.cuh"
#include "exchange/row_table.cuh"

#include <cstdint>
#include <cstring>

namespace pvec::impl {

// Entries grouped in runs of consecutive sources (a ghost plan's, halo/plan_runs.hpp): run q is
// the entries [at[q], at[q + 1]), with sources src[at[q]] + 0, 1, ...; at[n] is the number of
// entries. None (n = 0): the kernels gather entry by entry.
struct EntryRuns {
  const int64_t* at = nullptr;
  int64_t n = 0;
  int64_t min_mean = 1;  // a block's runs must be this long on average to be copied as runs
  // Whether the entries [first, first + count) (one destination's block: runs do not cross
  // blocks) are worth copying by runs: short runs cost a loop each where a gather does not.
  bool worth(int64_t first, int64_t count) const {
    if (n == 0 || count == 0) return false;
    const int64_t in_block = run_of(first + count - 1) - run_of(first) + 1;
    return in_block * min_mean <= count;
  }
  // The run that holds entry j.
  int64_t run_of(int64_t j) const {
    int64_t lo = 0, hi = n - 1;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo + 1) / 2;
      if (at[mid] <= j)
        lo = mid;
      else
        hi = mid - 1;
    }
    return lo;
  }
};

namespace detail {

// How many entries ahead the pack asks for its source lines (a prefetch). A run's sources are
// ascending but jump wherever the particles near a boundary are not consecutive (in cell
// order: every cell of a face across the fastest dimension; in random order: nearly every
// entry), so the hardware prefetchers miss the jumps and a plain loop waits for each. 256
// entries keep enough misses in flight; a measured plateau from 256 to 2048 (docs/performance.md).
constexpr int64_t kPackPrefetch = 256;

// from[src[j]] for the entries j of [a, b) into to[j - a], asking for the line of entry
// j + kPackPrefetch first.
template <class W, class I>
void gather_prefetched(const W* from, const I* src, W* to, int64_t a, int64_t b) {
  int64_t j = a;
  for (const int64_t stop = b - kPackPrefetch; j < stop; ++j) {
    __builtin_prefetch(from + src[j + kPackPrefetch]);
    to[j - a] = from[src[j]];
  }
  for (; j < b; ++j) to[j - a] = from[src[j]];
}

// A position component's value v with the periodic shift of dimension d of an entry's shift
// code added (as copy_row_of: sc * step in double, rounded to P); other values unchanged.
// Only called where W and P have one size; other pairs are instantiated but never reached.
template <class W, class P>
W shifted(W v, int32_t code, int d, double step) {
  if constexpr (sizeof(W) == sizeof(P)) {
    const int sc = static_cast<int8_t>((static_cast<uint32_t>(code) >> (8 * d)) & 0xffu);
    if (sc != 0) {
      P x;
      std::memcpy(&x, &v, sizeof x);
      x = x + static_cast<P>(sc * step);
      std::memcpy(&v, &x, sizeof x);
    }
  }
  return v;
}

// Entries [a, b) of one peer (slot0: entry a's slot) in component f of table t.
template <class W, class P, class I>
void pack_component(const RowTable& t, int f, const Slot& slot0, const I* src, const int32_t* shift,
                    int64_t a, int64_t b) {
  const W* from = reinterpret_cast<const W*>(t.row[f]);
  W* to = reinterpret_cast<W*>(slot0.direct ? t.at(f, slot0.row)
                                            : t.in_block(f, slot0.block, slot0.k, slot0.local));
  const int d = t.shift[f];
  if (sizeof(W) != sizeof(P) || d < 0 || shift == nullptr) {
    gather_prefetched(from, src, to, a, b);
    return;
  }
  const double step = t.step[f];
  for (int64_t j = a; j < b; ++j) {
    if (j + kPackPrefetch < b) __builtin_prefetch(from + src[j + kPackPrefetch]);
    to[j - a] = shifted<W, P>(from[src[j]], shift[j], d, step);
  }
}

// How many runs ahead the run loops ask for a run's first source line: the prefetchers follow
// a run, not the jump to the next one (in cell order runs are a few entries long).
constexpr int64_t kRunPrefetch = 32;

// pack_component over runs (EntryRuns): the entries [a, b) of one peer, run by run, each run a
// contiguous stretch of the column copied to a contiguous stretch of the block or ghost rows.
// Shifted position components add each entry's own shift (a run may span several).
template <class W, class P, class I>
void pack_component_runs(const RowTable& t, int f, const Slot& slot0, const I* src,
                         const int32_t* shift, const EntryRuns& runs, int64_t a, int64_t b) {
  const W* from = reinterpret_cast<const W*>(t.row[f]);
  W* to = reinterpret_cast<W*>(slot0.direct ? t.at(f, slot0.row)
                                            : t.in_block(f, slot0.block, slot0.k, slot0.local));
  const int d = t.shift[f];
  const bool shifting = sizeof(W) == sizeof(P) && d >= 0 && shift != nullptr;
  const double step = t.step[f];
  for (int64_t q = runs.run_of(a), j0 = a; j0 < b; ++q) {
    const int64_t j1 = runs.at[q + 1] < b ? runs.at[q + 1] : b;
    if (q + kRunPrefetch < runs.n) __builtin_prefetch(from + src[runs.at[q + kRunPrefetch]]);
    const W* s = from + src[j0];  // the run's sources, one after another
    W* o = to + (j0 - a);
    const int64_t len = j1 - j0;
    if (!shifting)
      for (int64_t i = 0; i < len; ++i) o[i] = s[i];
    else
      for (int64_t i = 0; i < len; ++i) o[i] = shifted<W, P>(s[i], shift[j0 + i], d, step);
    j0 = j1;
  }
}

template <class W, class P, class I>
void pack_rows_host_of(const RowTable& t, const BlockIndex& at, char* buf, const I* src,
                       const int32_t* shift, const EntryRuns& runs, int64_t n) {
  host_for_ranges(
      n,
      [&](int64_t b, int64_t e) {
        for (int64_t a = b; a < e;) {  // runs of one peer (entries are sorted by peer)
          const int32_t r = at.peer != nullptr ? at.peer[a] : at.self;
          const int64_t end = at.peer != nullptr ? at.first[r] + at.count[r] : e;
          const int64_t stop = end < e ? end : e;
          const Slot slot0 = at.slot(a, buf);
          const bool by_runs =
              at.peer != nullptr ? runs.worth(at.first[r], at.count[r]) : runs.worth(0, n);
          for (int f = 0; f < t.n; ++f) {
            if (by_runs)
              pack_component_runs<W, P>(t, f, slot0, src, shift, runs, a, stop);
            else
              pack_component<W, P>(t, f, slot0, src, shift, a, stop);
          }
          a = stop;
        }
      },
      kHostRowGrain);
}

}  // namespace detail

// PackRows{t, at, buf, src, shift} for entries [0, n), on the host; by runs of consecutive
// sources where runs are given (same bytes).
template <class P>
void pack_rows_host(const RowTable& t, const BlockIndex& at, char* buf, IndexList src,
                    const int32_t* shift, int64_t n, const EntryRuns& runs = EntryRuns{}) {
  if (n <= 0 || t.n == 0) return;
  auto run = [&](auto w) {
    using W = decltype(w);
    if (src.narrow)
      detail::pack_rows_host_of<W, P>(t, at, buf, static_cast<const int32_t*>(src.data), shift,
                                      runs, n);
    else
      detail::pack_rows_host_of<W, P>(t, at, buf, static_cast<const int64_t*>(src.data), shift,
                                      runs, n);
  };
  if (t.wide)
    run(uint64_t{});
  else
    run(uint32_t{});
}

// UnpackRows u for arrivals [0, n), on the host: per range of arrivals and per sending peer's
// run, a component at a time (one contiguous stretch of the block read, rows written in
// arrival order: the movers' holes, then the rows after the old end). Same bytes as u.
inline void unpack_rows_host(const UnpackRows& u, int64_t n) {
  if (n <= 0 || u.t.n == 0) return;
  auto run = [&](auto w) {
    using W = decltype(w);
    host_for_ranges(
        n,
        [&](int64_t b, int64_t e) {
          for (int64_t a0 = b; a0 < e;) {
            int lo = 0, hi = u.P - 1;  // the last rank whose first arrival is at or before a0
            while (lo < hi) {
              const int mid = (lo + hi + 1) / 2;
              if (u.first[mid] <= a0)
                lo = mid;
              else
                hi = mid - 1;
            }
            const int64_t k = u.count[lo], end = u.first[lo] + k, stop = end < e ? end : e;
            const char* block = u.buf + u.block_off[lo];
            for (int f = 0; f < u.t.n; ++f) {
              const W* from =
                  reinterpret_cast<const W*>(u.t.in_block(f, block, k, a0 - u.first[lo]));
              W* col = reinterpret_cast<W*>(u.t.row[f]);
              int64_t a = a0;
              for (; a < stop && a < u.n_holes; ++a) col[u.holes[a]] = from[a - a0];
              for (; a < stop; ++a) col[u.n + (a - u.n_holes)] = from[a - a0];
            }
            a0 = stop;
          }
        },
        kHostRowGrain);
  };
  if (u.t.wide)
    run(uint64_t{});
  else
    run(uint32_t{});
}

}  // namespace pvec::impl
