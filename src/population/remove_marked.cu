// Removal by mark on the host or device mirror (population/remove_marked.hpp). One selection
// pass over the marks lists the rows to move; every column then moves with one element
// function per column, whose bounds are read from memory the selection wrote, so that the
// device path needs no host synchronisation until the caller wants the count. On the device
// the order-keeping removal votes on the marks and compacts every component array in place
// (primitives/compact_in_place.hpp) instead of listing rows.
#include "population/remove_marked.hpp"

#include "backend/device.hpp"
#include "backend/for_each.cuh"
#include "common/dispatch.hpp"
#include "common/error.hpp"
#include "common/hd.hpp"
#include "primitives/compact_in_place.hpp"
#include "primitives/select_if.cuh"

#include <algorithm>
#include <vector>

namespace pvec::impl {
namespace {

template <class T>
struct ColumnMark {
  const T* m;
  PVEC_HD bool operator()(int64_t i) const { return m[i] != T(0); }
};

template <class M>
struct IsMarked {
  M mark;
  PVEC_HD bool operator()(int64_t i) const { return mark(i); }
};
template <class M>
struct IsKept {
  M mark;
  PVEC_HD bool operator()(int64_t i) const { return !mark(i); }
};
// Survivors at or past the new end n - removed (removed read where the first pass wrote it).
template <class M>
struct IsKeptTail {
  M mark;
  int64_t n;
  const int64_t* removed;
  PVEC_HD bool operator()(int64_t i) const { return i >= n - *removed && !mark(i); }
};

// base[c * cap + holes[k]] = base[c * cap + tail[k]] for k < *count (holes before the new
// end, survivors after it: disjoint rows).
template <class W>
struct FillHoles {
  W* base;
  int64_t cap, ncomp;
  IndexList holes, tail;
  const int64_t* count;
  PVEC_HD void operator()(int64_t k) const {
    if (k >= *count) return;
    const int64_t d = holes[k], s = tail[k];
    for (int64_t c = 0; c < ncomp; ++c) base[c * cap + d] = base[c * cap + s];
  }
};

// counts[0] = n - counts[1]: the number removed from the number kept, on the device.
struct Remaining {
  int64_t* counts;
  int64_t n;
  PVEC_HD void operator()(int64_t) const { counts[0] = n - counts[1]; }
};

// Calls f with the mark test of the source.
template <class F>
void with_mark(const ParticleSet& ps, bool device, const MarkSource& mark, F&& f) {
  if (mark.column < 0) {
    f(ColumnMark<int32_t>{mark.flags});
    return;
  }
  const PropertyBuffer& b = ps.column(mark.column);
  with_dtype(b.spec.dtype, [&](auto t) {
    f(ColumnMark<decltype(t)>{static_cast<const decltype(t)*>(b.mirror(device))});
  });
}

// Calls f(W*) for each component block of a column as 4- or 8-byte words.
template <class F>
void each_column(ParticleSet& ps, bool device, F&& f) {
  for (int k = 0; k < ps.column_count(); ++k) {
    PropertyBuffer& b = ps.column(k);
    if (b.spec.elem_size == 4)
      f(static_cast<uint32_t*>(b.mirror(device)), b.spec.ncomp, uint32_t{});
    else
      f(static_cast<uint64_t*>(b.mirror(device)), b.spec.ncomp, uint64_t{});
  }
}

void set_kinds(ParticleSet& ps, RemovalScratch& scratch) {
  if (scratch.kinds_set) return;
  RemovalBuffers& s = scratch.device;
  for (ScratchBuffer* b : {&s.votes, &s.tmp, &s.removed, &s.tail, &s.rows, &s.counts})
    b->set_kind(ps.device_kind());
  scratch.landing.set_kind(ps.cuda() ? MemKind::pinned : MemKind::host);
  scratch.kinds_set = true;
}

#if defined(__CUDACC__)
// Every component array of the mirror, for compact_in_place.
std::vector<CompactTarget> component_arrays(ParticleSet& ps, bool device) {
  std::vector<CompactTarget> out;
  for (int k = 0; k < ps.column_count(); ++k) {
    PropertyBuffer& b = ps.column(k);
    const int es = static_cast<int>(b.spec.elem_size);
    for (int64_t c = 0; c < b.spec.ncomp; ++c)
      out.push_back({static_cast<char*>(b.mirror(device)) + c * ps.capacity() * es, es});
  }
  return out;
}
#endif

// The passes, queued on the mirror's executor; counts[0] receives the number removed. On the
// host the selections return their counts and the moves run in order (in place, rows only
// move down).
void queue_removal(ParticleSet& ps, bool device, const MarkSource& mark, bool keep_order,
                   RemovalScratch& scratch, int64_t* counts) {
  const Exec ex = ps.exec(device);
  // The buffers of the memory the passes run in (the host's on a CUDA vector's host mirror).
  RemovalBuffers& s = ex.on_device ? scratch.device : scratch.host;
  const int64_t n = ps.n_local(), cap = ps.capacity();
  s.votes.ensure(static_cast<size_t>((n + 31) / 32 + 1) * 4);
#if defined(__CUDACC__)
  if (ex.on_device && keep_order) {  // counts[1]: survivors; moved in place, in order
    with_mark(ps, device, mark, [&](auto m) {
      const uint32_t* votes = launch_votes(ex, n, IsKept<decltype(m)>{m}, s.votes);
      compact_in_place_async(ex, n, votes, component_arrays(ps, device), s.rows, s.tmp, counts + 1);
    });
    for_each(ex, 1, Remaining{counts, n});
    return;
  }
#endif
  const bool narrow = IndexList::fits_narrow(n);
  const int64_t ie = IndexList::elem_size(narrow);
  // Everything that may allocate, first: a failure leaves the vector as it was.
  IndexList a{s.removed.ensure(static_cast<size_t>(std::max<int64_t>(n, 1) * ie)), narrow};
  IndexList b{s.tail.ensure(static_cast<size_t>(std::max<int64_t>(n, 1) * ie)), narrow};
  with_mark(ps, device, mark, [&](auto m) {
    using M = decltype(m);
    if (ex.on_device) {
      select_where_async(ex, n, IsMarked<M>{m}, a, s.votes, s.rows, counts);
      select_where_async(ex, n, IsKeptTail<M>{m, n, counts}, b, s.votes, s.rows, counts + 1);
    } else if (keep_order) {
      counts[1] = select_where(ex, n, IsKept<M>{m}, a, s.votes, s.rows);
    } else {
      counts[0] = select_where(ex, n, IsMarked<M>{m}, a, s.votes, s.rows);
      counts[1] = select_where(ex, n, IsKeptTail<M>{m, n, counts}, b, s.votes, s.rows);
    }
  });
  if (keep_order) {  // on the host: in place, rows only move down
    each_column(ps, device, [&](auto* base, int64_t ncomp, auto) {
      for (int64_t c = 0; c < ncomp; ++c)
        for (int64_t j = 0; j < counts[1]; ++j) base[c * cap + j] = base[c * cap + a[j]];
    });
    counts[0] = n - counts[1];
    return;
  }
  each_column(ps, device, [&](auto* base, int64_t ncomp, auto w) {
    using W = decltype(w);
    if (ex.on_device) {
      for_each(ex, n, FillHoles<W>{base, cap, ncomp, a, b, counts + 1});
      return;
    }
    FillHoles<W> f{base, cap, ncomp, a, b, counts + 1};
    for (int64_t k = 0; k < counts[1]; ++k) f(k);
  });
}

}  // namespace

int64_t remove_marked(ParticleSet& ps, bool device, const MarkSource& mark, bool keep_order,
                      RemovalScratch& scratch) {
  set_kinds(ps, scratch);
  const Exec ex = ps.exec(device);
  if (ex.on_device) as_cub_count(ps.n_local());  // NOT_SUPPORTED beyond 2^31-1
  ps.sync_stream();
  ps.flush_device();
  int64_t removed = 0;
  if (ps.n_local() > 0) {
    if (ex.on_device) {
      int64_t* counts = scratch.device.counts.ensure_as<int64_t>(2);
      queue_removal(ps, device, mark, keep_order, scratch, counts);
      copy_bytes(&removed, counts, sizeof removed, true, ps.stream());
      stream_synchronize(ps.stream());
    } else {
      int64_t counts[2] = {0, 0};
      queue_removal(ps, device, mark, keep_order, scratch, counts);
      removed = counts[0];
    }
  }
  ps.set_sizes(ps.n_local() - removed, 0);
  ps.bump_generation();
  return removed;
}

void remove_marked_async(ParticleSet& ps, const MarkSource& mark, bool keep_order,
                         RemovalScratch& scratch, int64_t* count_out) {
  set_kinds(ps, scratch);
  as_cub_count(ps.n_local());
  ps.flush_device();
  int64_t* landing = scratch.landing.ensure_as<int64_t>(1);
  int64_t* counts = scratch.device.counts.ensure_as<int64_t>(2);
  if (ps.n_local() == 0) {
    *landing = 0;
    if (count_out != nullptr) copy_bytes(count_out, landing, sizeof(int64_t), true, ps.stream());
    return;
  }
  queue_removal(ps, true, mark, keep_order, scratch, counts);
  copy_bytes(landing, counts, sizeof(int64_t), true, ps.stream());
  if (count_out != nullptr) copy_bytes(count_out, counts, sizeof(int64_t), true, ps.stream());
  ps.bump_generation();
}

int64_t landed_count(RemovalScratch& scratch) { return *scratch.landing.ensure_as<int64_t>(1); }

}  // namespace pvec::impl
