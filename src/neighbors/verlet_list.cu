// VerletList (verlet_list.hpp): one thread (or loop iteration) per local particle walks the
// cells within +-span of its own, once to count and once to fill, with the half-list rules
// decided per row of cells so that the inner loop is a plain range of entries; on the device
// one warp per cell does the same passes (verlet_warp.cuh) where the stencil fits a warp.
#include "neighbors/verlet_list.hpp"

#include "backend/device.hpp"
#include "backend/for_each.cuh"
#include "common/dispatch.hpp"
#include "common/error.hpp"
#include "neighbors/neighbor_dispatch.hpp"
#include "primitives/primitives.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace pvec::impl {
namespace {

// Which ghosts a half list keeps (verlet_list.hpp): ghost rows come ordered by owner rank,
// so those of lower ranks are the rows below this rank's own images, those of higher ranks
// the rows above them.
struct GhostRule {
  int64_t self_begin;  // first row of this rank's own periodic images
  int64_t self_end;
  const int32_t* self_shift;  // packed shift of each (halo/ghost_plan.hpp, pack_shift)
  PVEC_HD bool keep(int64_t j) const {
    if (j < self_begin) return false;
    if (j >= self_end) return true;
    const uint32_t code = static_cast<uint32_t>(self_shift[j - self_begin]);
    for (int d = 0; d < 4; ++d) {
      const int8_t s = static_cast<int8_t>((code >> (8 * d)) & 0xffu);
      if (s != 0) return s > 0;
    }
    return false;
  }
};

// The pair filter (verlet_list.hpp): rows whose value in an integer column is nonzero; a pair
// of two such rows is left out. flags null: no filter.
struct PairFilter {
  const void* flags = nullptr;
  bool wide = false;  // 8-byte integers (else 4-byte)
  PVEC_HD bool on(int64_t j) const {
    return wide ? static_cast<const uint64_t*>(flags)[j] != 0
                : static_cast<const uint32_t*>(flags)[j] != 0;
  }
  PVEC_HD bool active() const { return flags != nullptr; }
};

// FILL: 0 count, 1 fill the CSR arrays; 2 fill padded rows (at most stride entries each) and
// count: on the device the warp pass (verlet_warp.cuh), on the host this functor.
template <class T, int DIM, bool HALF, int FILL>
struct VerletPass {
  pvec::cell_list_view g;
  const T* pos;
  int64_t cap;
  T cut2;
  int64_t n_local;
  GhostRule rule;
  int64_t* offsets;  // count pass: the counts; fill pass: where each list starts
  int32_t* nbr;
  const int32_t* order;   // the local rows in cell order, or null when they are in it already
  const T* xs = nullptr;  // warp pass: positions by entry of cell_particles (DIM columns)
  int64_t xs_stride = 0;
  int32_t* pad = nullptr;  // FILL 2: rows of stride entries
  int64_t stride = 0;
  PairFilter skip = {};

  PVEC_HD void operator()(int64_t t) const {
    // Neighbouring threads take neighbouring particles, so that a warp reads the same cells.
    const int64_t i = order != nullptr ? order[t] : t;
    T xi[DIM];
    int64_t ci[DIM], lo[DIM], hi[DIM];
    PVEC_UNROLL
    for (int d = 0; d < DIM; ++d) {
      xi[d] = pos[d * cap + i];
      ci[d] = g.coord(d, static_cast<double>(xi[d]));
      lo[d] = ci[d] - g.span < 0 ? 0 : ci[d] - g.span;
      hi[d] = ci[d] + g.span >= g.dims[d] ? g.dims[d] - 1 : ci[d] + g.span;
    }
    int64_t out = FILL ? offsets[i] : 0;
    int64_t cnt = 0;
    const bool skip_i = skip.active() && skip.on(i);
    // mode 0: every entry; 1: ghosts only (a cell in the lower half of the stencil); 2: own
    // cell (locals above i, and ghosts).
    auto visit = [&](int32_t j, int mode) {
      if (j == i) return;
      if (skip_i && skip.on(j)) return;
      if (HALF) {
        if (j < n_local) {
          if (mode == 2 && j < i) return;
        } else if (!rule.keep(j)) {
          return;
        }
      }
      T r2 = 0;
      PVEC_UNROLL
      for (int d = 0; d < DIM; ++d) {
        const T dx = pos[d * cap + j] - xi[d];
        r2 = d == 0 ? sq_first(dx) : add_square(r2, dx);
      }
      if (r2 < cut2) {
        if (FILL == 1) nbr[out] = j;
        if (FILL == 2 && cnt < stride) pad[i * stride + cnt] = j;
        ++out;
        ++cnt;
      }
    };
    constexpr int L = DIM - 1;
#if !defined(__CUDA_ARCH__)
    // On the host, with cells as wide as the cutoff, the stencil is cut to the cells that can
    // hold a particle within the cutoff of this one: whole rows of cells, and the ends of the
    // rows left, farther than the cutoff (less a margin far above rounding) are skipped. Only
    // cells without a pair are left out, so the list is the same, entry for entry. LJ example,
    // 2,048 particles, 1 rank of the CPU machine: 3.40-3.47 -> 2.90-2.93 ms per rebuild; with
    // cells of half the cutoff the same cut cost more than it saved (2.57-2.76 -> 3.04-3.26).
    const bool cut_stencil = g.span == 1;
    const double reach2 = static_cast<double>(cut2) * (1 + 4e-5);
    auto gap = [&](int d, int64_t c) {
      const double x = static_cast<double>(xi[d]);
      const double left = g.origin[d] + static_cast<double>(c) * g.width[d];
      const double right = left + g.width[d];
      const double gp = x < left ? left - x : (x > right ? x - right : 0.0);
      const double slack = 1e-6 * (std::fabs(x) + std::fabs(left) + g.width[d]);
      return gp > slack ? gp - slack : 0.0;
    };
#endif
    const int64_t a0 = DIM == 3 ? lo[0] : 0, a1 = DIM == 3 ? hi[0] : 0;
    const int64_t b0 = DIM >= 2 ? lo[DIM >= 2 ? DIM - 2 : 0] : 0;
    const int64_t b1 = DIM >= 2 ? hi[DIM >= 2 ? DIM - 2 : 0] : 0;
    for (int64_t a = a0; a <= a1; ++a)
      for (int64_t b = b0; b <= b1; ++b) {
        const int64_t row = DIM == 3 ? a * g.dims[1] + b : b;
        const int64_t base = row * g.dims[L];
        int64_t c0 = lo[L], c1 = hi[L];
#if !defined(__CUDA_ARCH__)
        if (cut_stencil) {
          const double ga = DIM == 3 ? gap(0, a) : 0.0;
          const double gb = DIM >= 2 ? gap(DIM >= 2 ? DIM - 2 : 0, b) : 0.0;
          const double budget = reach2 - ga * ga - gb * gb;
          if (budget < 0) continue;
          const double x = static_cast<double>(xi[L]);
          const double reach = std::sqrt(budget) + 1e-6 * (2 * std::fabs(x) + g.width[L]);
          c0 = std::max(c0, g.coord(L, x - reach));
          c1 = std::min(c1, g.coord(L, x + reach));
        }
#endif
        int lead = 0;  // sign of the leading offsets, lexicographic
        if (HALF) {
          if (DIM == 3)
            lead = a != ci[0] ? (a > ci[0] ? 1 : -1) : (b > ci[1] ? 1 : (b < ci[1] ? -1 : 0));
          if (DIM == 2) lead = b > ci[0] ? 1 : (b < ci[0] ? -1 : 0);
        }
        if constexpr (HALF) {
          if (lead <= 0) {
            for (int64_t c = c0; c <= c1; ++c) {
              const int64_t cell = base + c;
              const int mode = lead < 0 || c < ci[L] ? 1 : (c == ci[L] ? 2 : 0);
              const int32_t e0 = g.cell_offsets[cell], e1 = g.cell_offsets[cell + 1];
              const int32_t from = mode == 1 ? e0 + g.local_count(cell) : e0;
              for (int32_t e = from; e < e1; ++e) visit(g.cell_particles[e], mode);
            }
            continue;
          }
        }
        const int32_t e1 = g.cell_offsets[base + c1 + 1];
        for (int32_t e = g.cell_offsets[base + c0]; e < e1; ++e) visit(g.cell_particles[e], 0);
      }
    if (FILL != 1) offsets[i] = cnt;
  }
};

// The local rows of cell c, in cell order: order[local_offsets[c] + k].
struct LocalOrder {
  pvec::cell_list_view g;
  int32_t* order;
  PVEC_HD void operator()(int64_t c) const {
    const int32_t first = g.cell_offsets[c], to = g.local_offsets[c];
    for (int32_t k = 0; k < g.local_count(c); ++k) order[to + k] = g.cell_particles[first + k];
  }
};

// The positions of the list's entries in entry order, for the warp pass.
template <class T, int DIM>
struct EntryPositions {
  const int32_t* rows;
  const T* pos;
  int64_t cap;
  T* xs;
  int64_t n;
  // Also the reference positions of moved_too_far (x0[d * n_local + j] for local rows j), where
  // the locals are in cell order: their entries then come in increasing row order, so these
  // stores stream too, and the copy of the positions they replace is saved.
  T* x0 = nullptr;
  int64_t n_local = 0;
  PVEC_HD void operator()(int64_t e) const {
    const int32_t j = rows[e];
    T v[DIM];
    PVEC_UNROLL
    for (int d = 0; d < DIM; ++d) v[d] = pos[d * cap + j];
    PVEC_UNROLL
    for (int d = 0; d < DIM; ++d) xs[d * n + e] = v[d];
    if (x0 != nullptr && j < n_local) {
      PVEC_UNROLL
      for (int d = 0; d < DIM; ++d) x0[d * n_local + j] = v[d];
    }
  }
};

template <class T, int DIM>
struct Moved {
  const T* pos;
  int64_t cap;
  const T* x0;
  int64_t n;
  T lim2;
  int32_t* flag;
  PVEC_HD void operator()(int64_t i) const {
    T r2 = 0;
    PVEC_UNROLL
    for (int d = 0; d < DIM; ++d) {
      const T dx = pos[d * cap + i] - x0[d * n + i];
      r2 = d == 0 ? sq_first(dx) : add_square(r2, dx);
    }
    if (!(r2 <= lim2)) flag_or(flag, 1);  // NaN counts as moved
  }
};

}  // namespace
}  // namespace pvec::impl

#include "neighbors/verlet_warp.cuh"

namespace pvec::impl {

namespace {

// One pass on exec's side, one iteration per particle, or on the device one warp per cell
// (the same arrays either way). The warp form needs the stencil to fit a warp's lanes
// (warp_cut) and the entries' positions (p.xs); measured on the H200 (docs/performance.md).
template <class T, int DIM, bool HALF, int FILL>
void verlet_pass(const Exec& ex, int64_t n, const VerletPass<T, DIM, HALF, FILL>& p, int cut) {
#if defined(__CUDACC__)
  if (ex.on_device && p.xs != nullptr) {
    verlet_warp_pass(p, cut, ex.stream);
    return;
  }
#endif
  (void)cut;
  for_each(ex, n, p);
}

// The room per particle of the next one-pass build, from the largest count of this one (an
// eighth more, and 8, so that a few more neighbours still fit), or 0 (no one-pass build) when
// that room would hold more than four times the list's entries (very uneven counts; a half
// list's largest count is about three times its mean) or more than half of the device memory
// free now (the rows are a cache of speed, not worth crowding the user's own allocations), or
// when 32 rows of it reach 2^31 entries (the compaction keeps their starts in 32 bits).
// On the host (device false) only the first two limits apply.
int64_t next_stride(int64_t most, int64_t total, int64_t n, size_t held, bool device) {
  if (n <= 0 || most <= 0) return 0;
  const int64_t room = (most + most / 8 + 8 + 7) / 8 * 8;
  if (room > INT32_MAX / 32 || room * n > 4 * total + 16 * n) return 0;
  if (!device) return room;
  const size_t bytes = static_cast<size_t>(room * n) * sizeof(int32_t);
  return bytes <= held || bytes - held <= device_free_bytes() / 2 ? room : 0;
}

// The padded rows of a one-pass host build moved into the CSR array (offsets scanned).
void compact_rows_host(const int32_t* pad, int64_t stride, const int64_t* offsets, int32_t* nbr,
                       int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    std::copy(pad + i * stride, pad + i * stride + (offsets[i + 1] - offsets[i]), nbr + offsets[i]);
}

}  // namespace

void VerletList::set_memory_kind(bool dev_mem) {
  if (kind_set_ && dev_mem == on_device_) return;
  const MemKind kind = dev_mem ? MemKind::device : MemKind::host;
  for (ScratchBuffer* b : {&offsets_, &neighbors_, &x0_, &self_shift_, &flag_, &scan_tmp_, &order_,
                           &xs_, &pad_, &x0_src_})
    b->set_kind(kind);
  key_order_.set_kind(kind);
  stride_ = 0;
  kind_set_ = true;
  on_device_ = dev_mem;
}

pvec::verlet_view VerletList::view() const {
  return pvec::verlet_view{n_, static_cast<const int64_t*>(offsets_.data()),
                           static_cast<const int32_t*>(neighbors_.data()), p_.half ? 1 : 0};
}

void VerletList::build(const NeighborInput& in, const VerletParams& p) {
  built_ = false;
  if (!(p.skin >= 0) || !std::isfinite(p.skin))
    fail(PVEC_ERROR_INVALID_ARGUMENT, "skin = ", p.skin, " must be zero or positive and finite");
  if (!(p.cutoff > 0) || !std::isfinite(p.cutoff))
    fail(PVEC_ERROR_INVALID_ARGUMENT, "cutoff = ", p.cutoff, " must be positive and finite");
  ParticleSet& ps = in.ps;
  const int64_t n = ps.n_local(), n_ghost = ps.n_ghost();
  const int me = in.comm.rank();
  GhostRule rule{n, n, nullptr};
  const GhostPlan* plan = in.plan;
  if (p.half && n_ghost > 0) {
    if (plan == nullptr || !plan->valid || plan->n_recv != n_ghost || plan->n_local != n)
      fail(PVEC_ERROR_STATE,
           "a half list needs to know who owns each ghost, from the ghost plan that made them; "
           "the vector's ghosts do not come from its last valid ghost_get (call pvec_ghost_get "
           "after the last map, sort or change of the particles)");
    rule.self_begin = n + plan->recv_first[me];
    rule.self_end = rule.self_begin + plan->recv_counts[me];
  }
  CellListParams cp;
  cp.cutoff = p.cutoff + p.skin;
  cp.span = p.span;
  cp.ghosts = true;
  cp.device = p.device;
  cells_.build(in, cp);  // validates cutoff + skin against the ghost width
  const Exec ex = ps.exec(p.device);
  const bool dev_mem = cells_.on_device_memory();
  set_memory_kind(dev_mem);
  cross_ = false;
  // The shifts of this rank's own images, on the side the list is built on.
  if (rule.self_end > rule.self_begin) {
    const int64_t k = rule.self_end - rule.self_begin;
    const int32_t* src = static_cast<const int32_t*>(plan->shift.data()) + plan->send_first[me];
    const bool same_side = (plan->on_device && ps.cuda()) == dev_mem;
    if (same_side) {
      rule.self_shift = src;
    } else {
      int32_t* dst = self_shift_.ensure_as<int32_t>(k);
      copy_bytes(dst, src, static_cast<size_t>(k) * sizeof(int32_t), ps.cuda(), ex.stream);
      if (ps.cuda()) stream_synchronize(ex.stream);
      rule.self_shift = dst;
    }
  }
  const pvec::cell_list_view g = cells_.view();
  PairFilter skip = {};
  if (p.skip_col >= 0) {
    skip.flags = ps.column(p.skip_col).mirror(p.device);
    skip.wide = ps.column(p.skip_col).spec.elem_size == 8;
  }
  int64_t* offsets = offsets_.ensure_as<int64_t>(n + 2);
  const void* pos = ps.column(0).mirror(p.device);
  const int64_t cap = ps.capacity();
  int64_t total = 0;
  with_pos_type(in.pos_dtype, [&](auto t) {
    using T = decltype(t);
    const T cut = static_cast<T>(p.cutoff + p.skin);
    with_dim123(g.dim, [&](auto D) {
      constexpr int DIM = D.value;
      const T* x = static_cast<const T*>(pos);
      int warp = kCutNone;
#if defined(__CUDACC__)
      if (ex.on_device) warp = warp_cut<DIM>(g.span, p.half);
#endif
      const T* xs = nullptr;
      int32_t* order = nullptr;
      // The reference positions of moved_too_far: written by the entry pass where the locals
      // are in cell order, else copied after the build.
      T* x0 = x0_.ensure_as<T>(std::max<int64_t>(n, 1) * DIM);
      bool x0_written = false;
      if (warp != kCutNone) {
        const int64_t ne = std::max<int64_t>(g.n_entries, 1);
        T* buf = xs_.ensure_as<T>(ne * DIM);
        EntryPositions<T, DIM> ep{g.cell_particles, x, cap, buf, ne};
        if (g.sorted) {
          ep.x0 = x0;
          ep.n_local = n;
          x0_written = true;
        }
        for_each(ex, g.n_entries, ep);
        xs = buf;
      } else if (!g.sorted) {
        order = order_.ensure_as<int32_t>(std::max<int64_t>(n, 1));
        for_each(ex, g.ncells, LocalOrder{g, order});
      }
      const int64_t xs_stride = std::max<int64_t>(g.n_entries, 1);
      // offsets[n + 1]: the largest count, which the scan brings back beside the total.
      zero_2d(offsets + n + 1, sizeof(int64_t), sizeof(int64_t), 1, ex.on_device, ex.stream);
      // A rebuild of the warp pass, or on the host, fills padded rows of the last build's
      // room in one pass, then compacts them, unless a count outgrew the room (then the counts
      // it made are scanned and the CSR fill pass runs, as at a first build). On the host this
      // halves the distance checks of a rebuild (the LJ example at 2,048 particles: 2 ranks of
      // the CPU machine, docs/performance.md).
      const bool one_pass = warp != kCutNone || !ex.on_device;
      int32_t* pad = nullptr;
      if (one_pass && stride_ > 0 && n > 0) {
        try {
          pad = pad_.ensure_as<int32_t>(static_cast<size_t>(n) * stride_);
        } catch (const Error&) {  // no room for the rows: two passes (and none retried)
          pad_.release();
          stride_ = 0;
        }
      }
      int64_t most = 0;
      // A key-ordered device list is ordered straight from the padded rows into the CSR array,
      // in place of their compaction (neighbors/key_order.hpp).
      KeyOrderSource key_src;
      auto run = [&](auto half) {
        constexpr bool H = decltype(half)::value;
        if (pad != nullptr) {
          VerletPass<T, DIM, H, 2> one{g,       x,       cap,   cut * cut, n,        rule,
                                       offsets, nullptr, order, xs,        xs_stride};
          one.pad = pad;
          one.stride = stride_;
          one.skip = skip;
          verlet_pass(ex, n, one, warp);
        } else {
          VerletPass<T, DIM, H, 0> count{g,       x,       cap,   cut * cut, n,        rule,
                                         offsets, nullptr, order, xs,        xs_stride};
          count.skip = skip;
          verlet_pass(ex, n, count, warp);
        }
        // The largest count beside the total (the device passes keep it with an atomic max).
        if (!ex.on_device) offsets[n + 1] = n > 0 ? *std::max_element(offsets, offsets + n) : 0;
        total = exclusive_scan(ex, offsets, n, scan_tmp_, &most);
        int32_t* nbr = neighbors_.ensure_as<int32_t>(std::max<int64_t>(total, 1));
        if (pad != nullptr && most <= stride_) {
          if (p.key_col >= 0 && key_order_reads_padded(ex, most)) {
            key_src = KeyOrderSource{pad, stride_};
            return;
          }
#if defined(__CUDACC__)
          if (ex.on_device) {
            compact_rows(pad, stride_, offsets, nbr, n, ex.stream);
            return;
          }
#endif
          compact_rows_host(pad, stride_, offsets, nbr, n);
          return;
        }
        VerletPass<T, DIM, H, 1> fill{g,       x,   cap,   cut * cut, n,        rule,
                                      offsets, nbr, order, xs,        xs_stride};
        fill.skip = skip;
        verlet_pass(ex, n, fill, warp);
      };
      if (p.half)
        run(std::true_type{});
      else
        run(std::false_type{});
      if (p.key_col >= 0)
        order_by_key(ex, offsets, static_cast<int32_t*>(neighbors_.data()), n, total, most,
                     ps.column(p.key_col).mirror(p.device), ps.column(p.key_col).spec.dtype,
                     n + n_ghost, key_order_, key_src);
      stride_ = one_pass ? next_stride(most, total, n, pad_.bytes(), ex.on_device) : 0;
      if (stride_ == 0) pad_.release();
      if (n > 0 && !x0_written)
        copy_2d(x0, n * sizeof(T), x, cap * sizeof(T), n * sizeof(T), DIM, ex.on_device, ex.stream);
    });
  });
  if (ex.on_device) stream_synchronize(ex.stream);
  n_ = n;
  n_pairs_ = total;
  p_ = p;
  epoch_ = in.rows_epoch;
  built_ = true;
}

bool VerletList::moved_too_far(const NeighborInput& in, const NeighborInput* src) {
  ParticleSet& ps = in.ps;
  const Exec ex = ps.exec(p_.device);
  int32_t* flag = flag_.ensure_as<int32_t>(1);
  zero_2d(flag, sizeof(int32_t), sizeof(int32_t), 1, ex.on_device, ex.stream);
  // The particles' own positions, and of a cross list the source's (same stream: one vector's
  // stream orders both checks before the flag comes back).
  auto check = [&](const ParticleSet& s, const ScratchBuffer& x0, int64_t n) {
    const void* pos = s.column(0).mirror(p_.device);
    const int64_t cap = s.capacity();
    with_pos_type(in.pos_dtype, [&](auto t) {
      using T = decltype(t);
      const T lim = static_cast<T>(p_.skin / 2);
      with_dim123(in.grid.dim, [&](auto D) {
        for_each(ex, n,
                 Moved<T, D.value>{static_cast<const T*>(pos), cap,
                                   static_cast<const T*>(x0.data()), n, lim * lim, flag});
      });
    });
  };
  check(ps, x0_, n_);
  if (cross_ && src != nullptr) {
    if (src->ps.cuda() && p_.device) stream_synchronize(src->ps.exec(true).stream);
    check(src->ps, x0_src_, n_src_);
  }
  int32_t host = 0;
  copy_bytes(&host, flag, sizeof host, ex.on_device, ex.stream);
  if (ex.on_device) stream_synchronize(ex.stream);
  return host != 0;
}

}  // namespace pvec::impl
