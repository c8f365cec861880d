// host_for and host_select: the host path's parallel loops, for the kernels that may run out of
// order (each item writes only its own outputs). for_each's host loop stays serial: some
// element functions rely on running in index order (neighbors/bucket_sort.hpp's claim_slot).
// Results are bitwise equal at any thread count: items are independent, and host_select keeps
// the serial order (per-thread counts, then a prefix over the threads).
//
// Threads: OpenMP when the build found it (PVEC_HAVE_OPENMP), at most omp_get_max_threads()
// (OMP_NUM_THREADS) and at most the cores this process may run on (a rank that mpirun bound
// to one core runs one thread); serial otherwise and below a few thousand items. The loops are
// defined in host_parallel.cpp, a C++ file, so that .cu callers need no OpenMP from nvcc.
#pragma once

#include "common/index_list.hpp"

#include <cstdint>
#include <type_traits>
#include <utility>

namespace pvec::impl {

// Threads the host loops use now (1 without OpenMP).
int host_threads();
// Tests: use exactly t threads (beyond the cores too) while t > 0, with ranges from `grain`
// items (> 0; small, so that small tests run parallel ranges); t = 0 restores the defaults.
void force_host_threads(int t, int64_t grain = 16);

// Calls body(ctx, begin, end, thread) over [0, n) cut into one contiguous range per thread
// (threads ranges in order; thread t gets the t-th), ranges not shorter than `grain` items.
// Returns the number of ranges (1: the calling thread ran [0, n)).
int host_ranges(int64_t n, int64_t grain, void (*body)(void*, int64_t, int64_t, int), void* ctx);

// Items per range at least: kHostGrain for light items (a few ns: the selection, the
// labelling), kHostRowGrain for rows of a row kernel or an element function of tens of ns (a
// fork and join of the threads costs a few microseconds).
constexpr int64_t kHostGrain = 8192;
constexpr int64_t kHostRowGrain = 512;
constexpr int kHostMaxThreads = 256;

// f(i) for i in [0, n), in parallel ranges.
template <class F>
void host_for(int64_t n, const F& f, int64_t grain = kHostGrain) {
  if (n <= 0) return;
  auto body = [](void* c, int64_t b, int64_t e, int) {
    const F& g = *static_cast<const F*>(c);
    for (int64_t i = b; i < e; ++i) g(i);
  };
  host_ranges(n, grain, body, const_cast<void*>(static_cast<const void*>(&f)));
}

// f(begin, end) over parallel ranges of [0, n).
template <class F>
void host_for_ranges(int64_t n, const F& f, int64_t grain = kHostGrain) {
  if (n <= 0) return;
  auto body = [](void* c, int64_t b, int64_t e, int) { (*static_cast<const F*>(c))(b, e); };
  host_ranges(n, grain, body, const_cast<void*>(static_cast<const void*>(&f)));
}

// The spread order of [0, n) in blocks of `block` items: for loops whose costly items gather
// in one stretch of indices (map's movers and wraps: the particles that crossed one face, the
// first ones in cell order; the benchmark's first f n). Virtual block q of the nb full blocks
// is real block q * step mod nb (step coprime to nb, about 0.618 nb: consecutive virtual blocks
// land all over [0, n)); the partial last block stays in place. A bijection, so a loop over
// items that write only their own outputs (and sum integers) gives one thread's results. One
// range of all the items keeps index order (nothing to share, and the prefetchers stream).
struct SpreadOrder {
  int64_t block = 1, nb = 0, step = 1;
  SpreadOrder() = default;  // index order
  SpreadOrder(int64_t n, int64_t block_items) : block(block_items < 1 ? 1 : block_items) {
    nb = n / block;
    step = nb > 2 ? static_cast<int64_t>(0.6180339887 * static_cast<double>(nb)) : 1;
    while (nb > 1 && gcd(step, nb) != 1) ++step;
  }
  // The first real item of virtual item v, and how many follow it in the same block.
  int64_t at(int64_t v, int64_t& run) const {
    if (v >= nb * block) {
      run = INT64_MAX;
      return v;
    }
    const int64_t q = v / block, off = v % block;
    run = block - off;
    return (q * step) % nb * block + off;
  }
  static int64_t gcd(int64_t a, int64_t b) {
    while (b != 0) {
      const int64_t t = a % b;
      a = b;
      b = t;
    }
    return a;
  }
};

// f(begin, end) over the real runs of the virtual items [b, e) of [0, n) in spread order: a
// parallel range's share. The range [0, n) (one thread) runs in index order.
template <class F>
void spread_runs(const SpreadOrder& order, int64_t b, int64_t e, int64_t n, const F& f) {
  const SpreadOrder& o = b == 0 && e == n ? SpreadOrder() : order;
  while (b < e) {
    int64_t run = 0;
    const int64_t i = o.at(b, run);
    const int64_t len = run < e - b ? run : e - b;
    f(i, i + len);
    b += len;
  }
}

// f(begin, end) over the runs of [0, n) in spread order (SpreadOrder), in parallel ranges.
template <class F>
void host_for_spread(int64_t n, int64_t block, const F& f, int64_t grain = kHostGrain) {
  if (n <= 0) return;
  const SpreadOrder order(n, block);
  host_for_ranges(
      n, [&](int64_t b, int64_t e) { spread_runs(order, b, e, n, f); }, grain);
}

// Whether Keep has vote(i0, len, out): keep(i0 + q) for q < len into out[q] (0 or 1).
template <class Keep, class = void>
struct has_vote : std::false_type {};
template <class Keep>
struct has_vote<Keep, std::void_t<decltype(std::declval<const Keep&>().vote(
                          int64_t{}, int64_t{}, static_cast<unsigned char*>(nullptr)))>>
    : std::true_type {};

// The indices i in [0, n) with keep(i), in increasing order, into out (room for n); returns
// how many. Each range writes its indices from its own first index (c <= i, branch-free),
// then the ranges move down to their offsets in range order.
template <class Keep>
int64_t host_select(int64_t n, const Keep& keep, IndexList out) {
  if (n <= 0) return 0;
  struct Ctx {
    const Keep* keep;
    IndexList out;
    int64_t begin[kHostMaxThreads];
    int64_t count[kHostMaxThreads];
  } ctx{&keep, out, {}, {}};
  auto body = [](void* c, int64_t b, int64_t e, int t) {
    Ctx& x = *static_cast<Ctx*>(c);
    const Keep& k = *x.keep;
    int64_t m = b;
    // A tile of votes first (a loop the compiler can vectorise), then its indices.
    constexpr int64_t kTile = 512;
    unsigned char vote[kTile];
    for (int64_t t0 = b; t0 < e; t0 += kTile) {
      const int64_t len = e - t0 < kTile ? e - t0 : kTile;
      if constexpr (has_vote<Keep>::value)
        k.vote(t0, len, vote);  // keep's own loop over a tile (GhostNear's)
      else
        for (int64_t q = 0; q < len; ++q) vote[q] = k(t0 + q) ? 1 : 0;
      if (x.out.narrow) {
        int32_t* o = static_cast<int32_t*>(x.out.data);
        for (int64_t q = 0; q < len; ++q) {
          o[m] = static_cast<int32_t>(t0 + q);
          m += vote[q];
        }
      } else {
        int64_t* o = static_cast<int64_t*>(x.out.data);
        for (int64_t q = 0; q < len; ++q) {
          o[m] = t0 + q;
          m += vote[q];
        }
      }
    }
    x.begin[t] = b;
    x.count[t] = m - b;
  };
  const int ranges = host_ranges(n, kHostGrain, body, &ctx);
  char* base = static_cast<char*>(out.data);
  const int64_t e = out.elem_size();
  int64_t total = ctx.count[0];
  for (int t = 1; t < ranges; ++t) {
    if (total != ctx.begin[t])
      __builtin_memmove(base + total * e, base + ctx.begin[t] * e, ctx.count[t] * e);
    total += ctx.count[t];
  }
  return total;
}

}  // namespace pvec::impl
