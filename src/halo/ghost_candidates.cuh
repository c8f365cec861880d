// GhostCandidates: the (rank, periodic shift) pairs of a particle near a boundary (the count
// and fill passes of ghost_get's plan that run it: halo/near_passes.cuh on the device,
// halo/ghost_plan_host.hpp on the host).
#pragma once

#include "common/bits.hpp"
#include "common/hd.hpp"
#include "common/index_list.hpp"
#include "decomp/band.hpp"
#include "decomp/cartesian_grid.hpp"
#include "decomp/near_cells.hpp"

#include <cstdint>

namespace pvec::impl {

// What GhostCandidates' examination of a particle near a boundary finds, for its emit: per
// dimension the first valid unwrapped cell and the mask of valid cells from there (bit k: cell lo +
// k). lo[0] == kSlowRecord marks a particle whose ranges did not fit a mask; emit starts over from
// its position. in_cells: the fast path (NearCells) made it, so its cells are among own-2 ..
// own+2 and emit takes their wrapped cells and shifts from the tables.
template <int DIM>
struct NearRecord {
  int64_t i;
  int32_t lo[DIM];
  uint32_t mask[DIM];
  bool in_cells;
};
constexpr int32_t kSlowRecord = INT32_MIN;

// Ghost candidates of particle i: every (rank, periodic shift) whose subdomain, widened by
// the ghost width, contains the shifted position, except (this rank, no shift). count gives
// their number, emit writes them; ghost_get runs both over the particles GhostNear selected
// (CountNear, then FillNear from the scanned counts). A record of the fast path packs into
// one 32-bit word (cell_word), which the count pass writes and the fill pass reads instead of
// the particle's coordinates; other particles are examined again by the fill pass (a full
// record is wider than the coordinates it comes from).
//
// A particle inside `inner` (GhostNear's band) has none: examine answers 0 at once.
//
// Per dimension the candidates are unwrapped cells u of one contiguous range: the range the
// floors of x -+ width give, widened by one against rounding, tested cell by cell (the only
// floating-point work) into a bit mask. A particle's candidates are the combinations of one
// valid cell per dimension, so count multiplies bit counts and keeps the masks in its record,
// and emit walks the combinations of the record with integer arithmetic only, writing entries
// from `first` in the order of the combinations (last dimension fastest). A range wider than
// 32 cells (a ghost layer spanning tens of subdomains) is tested combination by combination
// instead, in both halves.
template <class T, int DIM>
struct GhostCandidates {
  struct Input {
    T x[DIM];
  };
  using Item = NearRecord<DIM>;
  CartGrid g;
  double width;
  int me;
  int own[DIM];  // this rank's cell per dimension
  const T* pos;
  int64_t cap;
  Band<T, DIM> inner;  // particles inside are ghosts nowhere
  int32_t* peer;       // emit's entries: destination rank (null: not written, one rank),
  IndexList src;       // source particle,
  int32_t* shift;      // packed periodic shift;
  int64_t* packed;     // or, when not null, source and shift in one word (pack_entry)
  bool use_cells;      // the fast path applies (cells was built)
  NearCells<T, DIM> cells;

  // Periodic shift s (in box lengths) that brings the unwrapped cell u into [0, D):
  // u + s D in [0, D). The shifts by one box length, the only ones a ghost layer narrower
  // than the box needs, take no 64-bit division (which costs ~100 instructions on a GPU).
  PVEC_HD static int64_t wrap_shift(int64_t u, int64_t D) {
    if (u >= 0) return u < D ? 0 : (u < 2 * D ? -1 : -(u / D));
    return u >= -D ? 1 : (D - 1 - u) / D;  // ceil(-u / D)
  }

  // Wrapped cell and shift of unwrapped cell u along d; false when there is none (outside a
  // non-periodic boundary, or a shift beyond the byte it is stored in).
  PVEC_HD bool cell_of(int d, int64_t u, int& cell, int& sh) const {
    const int64_t s = g.periodic[d] ? wrap_shift(u, g.dims[d]) : 0;
    const int64_t cw = u + s * g.dims[d];
    if (cw < 0 || cw >= g.dims[d] || s < -127 || s > 127) return false;
    cell = static_cast<int>(cw);
    sh = static_cast<int>(s);
    return true;
  }

  // Whether unwrapped cell u along d is a candidate: the coordinate the ghost will carry
  // (shifted in the position type, as PackRows stores it) lies in that cell's subdomain
  // widened by the ghost width.
  PVEC_HD bool candidate(int d, double x, int64_t u) const {
    int cell = 0, s = 0;
    if (!cell_of(d, u, cell, s)) return false;
    const T shifted = static_cast<T>(static_cast<T>(x) + static_cast<T>(s * g.length(d)));
    const double xs = s == 0 ? x : static_cast<double>(shifted);
    return xs >= g.edge(d, cell) - width && xs < g.edge(d, cell + 1) + width;
  }

  // The next combination of per-dimension steps, like an odometer (last dimension fastest).
  template <class I>
  PVEC_HD static void next_combination(I* step, const I* size) {
    bool carry = true;
    PVEC_UNROLL
    for (int d = DIM - 1; d >= 0; --d)
      if (carry) {
        carry = ++step[d] == size[d];
        if (carry) step[d] = 0;
      }
  }

  // Source particle i (below 2^32) and packed periodic shift code in one 8-byte word: the
  // value ghost_get sorts by destination rank, so that the sort moves both fields at once.
  PVEC_HD static int64_t pack_entry(int64_t i, uint32_t code) {
    return static_cast<int64_t>((static_cast<uint64_t>(code) << 32) | static_cast<uint32_t>(i));
  }

  // Entry at: destination rank r, source particle i, packed periodic shift code.
  PVEC_HD void put(int64_t at, int r, int64_t i, uint32_t code) const {
    if (peer != nullptr) peer[at] = r;
    if (packed != nullptr) {
      packed[at] = pack_entry(i, code);
      return;
    }
    src.set(at, i);
    shift[at] = static_cast<int32_t>(code);
  }

  // Where emit's entries go: entry (rank r, shift code) of particle i at `at`, then the next
  // one after it (put). The host's plan builder passes its own sinks (halo/ghost_plan_host.hpp).
  struct PutAt {
    const GhostCandidates* f;
    int64_t i;
    int64_t at;
    PVEC_HD void operator()(int r, uint32_t code) { f->put(at++, r, i, code); }
  };
  struct CountOnly {
    PVEC_HD void operator()(int, uint32_t) {}
  };

  // Walks the combinations like an odometer (no division); with masks (fast) each cell's
  // validity is a bit, otherwise it is tested. Hands each entry to sink (rank, shift code),
  // in order; returns how many there are.
  PVEC_HD_CALLS_FUNCTOR
  template <class Sink>
  PVEC_HD int64_t walk(const int64_t* lo, const int64_t* size, const uint32_t* mask, bool fast,
                       const double* x, Sink& sink) const {
    int64_t combos = 1;
    int64_t step[DIM];
    PVEC_UNROLL
    for (int d = 0; d < DIM; ++d) {
      combos *= size[d];
      step[d] = 0;
    }
    int64_t n = 0;
    for (int64_t k = 0; k < combos; ++k) {
      int r = 0;  // row-major rank, last dimension fastest
      uint32_t code = 0;
      bool ok = true, zero = true;
      PVEC_UNROLL
      for (int d = 0; d < DIM; ++d) {
        int c = 0, sh = 0;
        const int64_t u = lo[d] + step[d];
        ok = ok && cell_of(d, u, c, sh) &&
             (fast ? ((mask[d] >> step[d]) & 1u) != 0 : candidate(d, x[d], u));
        zero = zero && sh == 0;
        code |= (static_cast<uint32_t>(sh) & 0xffu) << (8 * d);
        r = r * g.dims[d] + c;
      }
      if (ok && !(r == me && zero)) {
        sink(r, code);
        ++n;
      }
      next_combination(step, size);
    }
    return n;
  }

  // The fast path, for a particle inside this rank's subdomain (cells.own).
  PVEC_HD int64_t count_in_cells(const T* xs, int64_t i, Item& rec) const {
    uint32_t m[DIM];
    PVEC_UNROLL
    for (int d = 0; d < DIM; ++d) {
      m[d] = 0;
      PVEC_UNROLL
      for (int k = 0; k < NearCells<T, DIM>::kCells; ++k) {
        const T v = static_cast<T>(xs[d] + cells.add[d][k]);
        if (((cells.exists[d] >> k) & 1u) != 0 && v >= cells.lo[d][k] && v < cells.hi[d][k])
          m[d] |= 1u << k;
      }
    }
    return count_in_masks(m, i, rec);
  }
  // The fast path from the cell masks (bit k of cell_mask[d]: cell own-2+k along d, as
  // count_in_cells tests it), which the host computes for a tile of particles at once.
  PVEC_HD int64_t count_in_masks(const uint32_t* cell_mask, int64_t i, Item& rec) const {
    rec.i = i;
    rec.in_cells = true;
    int64_t n = 1;
    bool own_combo = true;
    PVEC_UNROLL
    for (int d = 0; d < DIM; ++d) {
      uint32_t m = cell_mask[d];
      const int first = m != 0 ? lowest_bit(m) : 0;
      m >>= first;
      rec.lo[d] = own[d] - 2 + first;
      rec.mask[d] = m;
      n *= bit_count(m);
      const int k = 2 - first;  // the own cell, unshifted
      own_combo = own_combo && k >= 0 && ((m >> k) & 1u) != 0;
    }
    return n - (own_combo ? 1 : 0);
  }

  // The general path's ranges of a finite position x: per dimension the first cell lo and the
  // number of cells; fast (a mask per dimension) unless some range is wider than 32 cells.
  // own_combo: (own cells, no shift) lies among the combinations (meaningful when fast).
  PVEC_HD bool ranges(const double* x, int64_t* lo, int64_t* size, uint32_t* mask,
                      int& own_combo) const {
    bool fast = true;
    own_combo = 1;
    PVEC_UNROLL
    for (int d = 0; d < DIM; ++d) {
      int64_t a = g.cell_unclamped(d, x[d] - width) - 1;
      int64_t b = g.cell_unclamped(d, x[d] + width) + 1;
      if (!g.periodic[d]) {
        if (a < 0) a = 0;
        if (b > g.dims[d] - 1) b = g.dims[d] - 1;
      }
      mask[d] = 0;
      if (b - a < 32 && a > -(int64_t{1} << 30) && a < (int64_t{1} << 30)) {
        for (int64_t u = a; u <= b; ++u)
          if (candidate(d, x[d], u)) mask[d] |= 1u << (u - a);
        const int first = mask[d] != 0 ? lowest_bit(mask[d]) : 0;
        lo[d] = a + first;
        size[d] = mask[d] != 0 ? highest_bit(mask[d]) - first + 1 : 0;
        mask[d] >>= first;
        const int64_t k = own[d] - lo[d];  // own cell unshifted: u == own[d]
        own_combo = own_combo && k >= 0 && k < size[d] && ((mask[d] >> k) & 1u);
      } else {  // wider than a mask: trim the ends, test inside combination by combination
        fast = false;
        while (a <= b && !candidate(d, x[d], a)) ++a;
        while (b >= a && !candidate(d, x[d], b)) --b;
        lo[d] = a;
        size[d] = b >= a ? b - a + 1 : 0;
      }
    }
    return fast;
  }

  // Position of particle i in double; false when a coordinate is NaN or Inf (near no
  // subdomain).
  PVEC_HD bool position(int64_t i, double* x) const {
    bool finite = true;
    PVEC_UNROLL
    for (int d = 0; d < DIM; ++d) {
      x[d] = static_cast<double>(load_ro(pos + d * cap + i));
      finite = finite && x[d] - x[d] == 0;
    }
    return finite;
  }

  // The general path: any position, any width.
  PVEC_HD int64_t count_general(int64_t i, Item& rec) const {
    rec.i = i;
    rec.in_cells = false;
    double x[DIM];
    if (!position(i, x)) {
      PVEC_UNROLL
      for (int d = 0; d < DIM; ++d) rec.lo[d] = 0, rec.mask[d] = 0;  // no candidate
      return 0;
    }
    int64_t lo[DIM], size[DIM];
    uint32_t mask[DIM];
    int own_combo = 0;
    const bool fast = ranges(x, lo, size, mask, own_combo);
    PVEC_UNROLL
    for (int d = 0; d < DIM; ++d) {
      rec.lo[d] = fast ? static_cast<int32_t>(lo[d]) : 0;
      rec.mask[d] = mask[d];
    }
    if (!fast) {
      rec.lo[0] = kSlowRecord;
      CountOnly none;
      return walk(lo, size, mask, false, x, none);
    }
    int64_t n = 1;
    PVEC_UNROLL
    for (int d = 0; d < DIM; ++d) n *= bit_count(mask[d]);
    return n - own_combo;
  }

  // The candidates of particle i (coordinates in), and in rec what emit walks.
  PVEC_HD int64_t examine(int64_t i, const Input& in, Item& rec) const {
    if (inner.contains(in.x)) return 0;
    if (use_cells && cells.own.contains(in.x)) return count_in_cells(in.x, i, rec);
    return count_general(i, rec);
  }

  // A record of the fast path (in_cells) in 32 bits: per dimension a byte holding the first
  // cell (0..4 from own - 2) in bits 0-2 and the mask from there (at most 5 bits) in bits
  // 3-7. kNoCellWord for any other record.
  static constexpr uint32_t kNoCellWord = 0xffffffffu;
  PVEC_HD uint32_t cell_word(const Item& rec) const {
    if (!rec.in_cells) return kNoCellWord;
    uint32_t w = 0;
    PVEC_UNROLL
    for (int d = 0; d < DIM; ++d)
      w |= (static_cast<uint32_t>(rec.lo[d] - own[d] + 2) | rec.mask[d] << 3) << (8 * d);
    return w;
  }
  // The record of particle i that cell_word packed into w (not kNoCellWord).
  PVEC_HD Item from_cell_word(int64_t i, uint32_t w) const {
    Item rec;
    rec.i = i;
    rec.in_cells = true;
    PVEC_UNROLL
    for (int d = 0; d < DIM; ++d) {
      const uint32_t b = (w >> (8 * d)) & 0xffu;
      rec.lo[d] = own[d] - 2 + static_cast<int32_t>(b & 7u);
      rec.mask[d] = b >> 3;
    }
    return rec;
  }

  // The coordinates of particle i; its entries from first on.
  PVEC_HD void load(int64_t i, Input& in) const {
    PVEC_UNROLL
    for (int d = 0; d < DIM; ++d) in.x[d] = load_ro(pos + d * cap + i);
  }
  PVEC_HD void emit(int64_t i, const Input& in, int64_t first) const {
    PutAt sink{this, i, first};
    emit_to(i, in, sink);
  }
  template <class Sink>
  PVEC_HD void emit_to(int64_t i, const Input& in, Sink& sink) const {
    Item rec;
    if (examine(i, in, rec) != 0) emit_to(rec, sink);
  }

  // The entries of a record examine gave candidates, from first on (emit), or to a sink.
  PVEC_HD void emit(const Item& rec, int64_t first) const {
    PutAt sink{this, rec.i, first};
    emit_to(rec, sink);
  }
  template <class Sink>
  PVEC_HD void emit_to(const Item& rec, Sink& sink) const {
    if (rec.in_cells) {
      emit_in_cells_to(rec, sink);
      return;
    }
    if (rec.lo[0] == kSlowRecord) {
      emit_general(rec.i, sink);
      return;
    }
    emit_masks(rec, sink);
  }

  // emit's fast path: the combinations of the record's masks like walk's odometer, each
  // cell's wrapped index and shift read from the tables (no arithmetic on cells).
  PVEC_HD void emit_in_cells(const Item& rec, int64_t first) const {
    PutAt sink{this, rec.i, first};
    emit_in_cells_to(rec, sink);
  }
  PVEC_HD_CALLS_FUNCTOR
  template <class Sink>
  PVEC_HD void emit_in_cells_to(const Item& rec, Sink& sink) const {
    int k0[DIM], size[DIM], step[DIM];
    int combos = 1;
    PVEC_UNROLL
    for (int d = 0; d < DIM; ++d) {
      k0[d] = rec.lo[d] - own[d] + 2;
      size[d] = rec.mask[d] != 0 ? highest_bit(rec.mask[d]) + 1 : 0;
      step[d] = 0;
      combos *= size[d];
    }
    for (int c = 0; c < combos; ++c) {
      int r = 0;
      uint32_t code = 0;
      bool ok = true;
      PVEC_UNROLL
      for (int d = 0; d < DIM; ++d) {
        const int k = k0[d] + step[d];
        ok = ok && ((rec.mask[d] >> step[d]) & 1u) != 0;
        r = r * g.dims[d] + (ok ? cells.cell[d][k] : 0);
        code |= ok ? cells.code[d][k] : 0u;
      }
      if (ok && !(r == me && code == 0)) sink(r, code);
      next_combination(step, size);
    }
  }

  // emit for a record of the general path with masks: integer work only.
  template <class Sink>
  PVEC_HD void emit_masks(const Item& rec, Sink& sink) const {
    int64_t lo[DIM], size[DIM];
    uint32_t mask[DIM];
    PVEC_UNROLL
    for (int d = 0; d < DIM; ++d) {
      lo[d] = rec.lo[d];
      mask[d] = rec.mask[d];
      size[d] = mask[d] != 0 ? highest_bit(mask[d]) + 1 : 0;
    }
    walk(lo, size, mask, true, nullptr, sink);
  }

  // emit for a slow record: the general path again from the position.
  template <class Sink>
  PVEC_HD void emit_general(int64_t i, Sink& sink) const {
    double x[DIM];
    position(i, x);  // finite: count gave it candidates
    int64_t lo[DIM], size[DIM];
    uint32_t mask[DIM];
    int own_combo = 0;
    ranges(x, lo, size, mask, own_combo);
    walk(lo, size, mask, false, x, sink);
  }
};

// GhostCandidates' tables for its fast path (see NearCells); false when the ghost width is not
// below half of the subdomain width along every dimension (then the general path runs).
template <class T, int DIM>
bool near_cells(const CartGrid& g, int me, double width, NearCells<T, DIM>& out) {
  int c[PVEC_MAX_DIM] = {0, 0, 0, 0};
  g.cells_of_rank(me, c);
  GhostCandidates<T, DIM> probe{};
  probe.g = g;
  for (int d = 0; d < DIM; ++d) {
    if (!(width >= 0 && width < 0.5 * g.h[d])) return false;
    out.exists[d] = 0;
    for (int k = 0; k < NearCells<T, DIM>::kCells; ++k) {
      int cell = 0, sh = 0;
      const bool ok = probe.cell_of(d, c[d] - 2 + k, cell, sh);
      out.exists[d] |= ok ? 1u << k : 0u;
      out.lo[d][k] = ok ? ceil_to<T>(g.edge(d, cell) - width) : T{0};
      out.hi[d][k] = ok ? ceil_to<T>(g.edge(d, cell + 1) + width) : T{0};
      out.add[d][k] = sh == 0 ? T{0} : static_cast<T>(sh * g.length(d));
      out.cell[d][k] = ok ? cell : 0;
      out.code[d][k] = ok ? (static_cast<uint32_t>(sh) & 0xffu) << (8 * d) : 0u;
    }
  }
  out.own = own_band<T, DIM>(g, me);
  return true;
}

}  // namespace pvec::impl
