// Element functions of map and the ghost exchange, written once for host and device.
#pragma once

#include "backend/hd.hpp"
#include "backend/indices.hpp"
#include "dist/cartesian_grid.hpp"

#include <pvec.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace pvec::detail {

// A periodic coordinate wrapped into [lo, hi) as stored in T (rounding to T can land on hi,
// which belongs to the low end).
PVEC_HD inline float next_up(float x) { return ::nextafterf(x, INFINITY); }
PVEC_HD inline double next_up(double x) { return ::nextafter(x, static_cast<double>(INFINITY)); }

// Smallest T not below v.
template <class T>
PVEC_HD T ceil_to(double v) {
  T t = static_cast<T>(v);
  return static_cast<double>(t) < v ? next_up(t) : t;
}

template <class T>
PVEC_HD T wrap_stored(const CartGrid& g, int d, T x) {
  if (!g.periodic[d]) return x;
  const double xd = static_cast<double>(x);
  if (xd >= g.lo[d] && xd < g.hi[d]) return x;  // in the box: bit for bit unchanged
  T t = static_cast<T>(g.wrap(d, xd));
  // Rounding to T may leave the box: at or above hi the point is lo, below lo it is lo.
  if (static_cast<double>(t) >= g.hi[d] || static_cast<double>(t) < g.lo[d])
    t = ceil_to<T>(g.lo[d]);
  return t;
}

// dest[i] = rank owning particle i, or -1 when it is outside a non-periodic boundary or not
// finite.
// The position kernels take the dimension as a template parameter: their per-dimension
// loops unroll and small arrays stay in registers (indexed at run time they would live in
// local memory, which cost 5x the kernel's own traffic).
#if defined(__CUDACC__)
#define PVEC_UNROLL _Pragma("unroll")
#else
#define PVEC_UNROLL
#endif

// An axis-aligned band [lo_d, hi_d) per dimension with bounds stored in the position type:
// for x of type T and a double bound b, x >= b exactly when x >= ceil_to<T>(b) (and likewise
// for <), so the test is a few comparisons in T, no conversion and no double arithmetic.
// Built on the host (band_of) for the fast paths of the position kernels.
template <class T, int DIM>
struct Band {
  T lo[DIM];
  T hi[DIM];
  // All coordinates inside (false for NaN).
  PVEC_HD bool contains(const T* x) const {
    bool in = true;
    PVEC_UNROLL
    for (int d = 0; d < DIM; ++d) in = in && x[d] >= lo[d] && x[d] < hi[d];
    return in;
  }
};

template <class T, int DIM>
Band<T, DIM> band_of(const double* lo, const double* hi) {
  Band<T, DIM> b;
  for (int d = 0; d < DIM; ++d) {
    b.lo[d] = ceil_to<T>(lo[d]);
    b.hi[d] = ceil_to<T>(hi[d]);
  }
  return b;
}

// This rank's subdomain as a Band: the particles LabelOwner can label without arithmetic.
template <class T, int DIM>
Band<T, DIM> own_band(const CartGrid& g, int me) {
  int c[PVEC_MAX_DIM] = {0, 0, 0, 0};
  g.cells_of_rank(me, c);
  double lo[DIM], hi[DIM];
  for (int d = 0; d < DIM; ++d) {
    lo[d] = g.edge(d, c[d]);
    hi[d] = g.edge(d, c[d] + 1);
  }
  return band_of<T, DIM>(lo, hi);
}

// dest[i] = rank owning particle i, or -1 when it is outside a non-periodic boundary or not
// finite. Returns the bits kOutside (dest -1), kMover (dest is not this rank, kOutside
// included) and kWrap (a periodic coordinate lies outside the box: WrapPositions has work),
// which for_each_count sums in the same pass.
template <class T, int DIM>
struct LabelOwner {
  static constexpr uint32_t kOutside = 1, kMover = 2, kWrap = 4;
  CartGrid g;
  const T* pos;
  int64_t cap;
  int32_t* dest;
  uint8_t* wrap_flag;  // 1 where WrapPositions has work
  int me;
  Band<T, DIM> own;  // this rank's subdomain: a particle inside stays, with no arithmetic
  PVEC_HD uint32_t operator()(int64_t i) const {
    T xs[DIM];
    PVEC_UNROLL
    for (int d = 0; d < DIM; ++d) xs[d] = load_ro(pos + d * cap + i);
    if (own.contains(xs)) {
      dest[i] = me;
      wrap_flag[i] = 0;
      return 0;
    }
    int r = 0;
    bool inside = true, wrap = false;
    PVEC_UNROLL
    for (int d = 0; d < DIM; ++d) {
      const T x = xs[d];
      const double xd = static_cast<double>(x);
      inside = inside && g.inside(d, xd);
      wrap = wrap || (g.periodic[d] && !(xd >= g.lo[d] && xd < g.hi[d]));
      int c = inside ? g.cell(d, static_cast<double>(wrap_stored(g, d, x))) : 0;
      r = r * g.dims[d] + c;
    }
    dest[i] = inside ? r : -1;
    wrap_flag[i] = inside && wrap ? 1 : 0;
    if (!inside) return kOutside | kMover;
    return (r != me ? kMover : 0u) | (wrap ? kWrap : 0u);
  }
};

// Wraps the periodic coordinates of the particles LabelOwner flagged: one pass over the flags
// (a byte per particle) touching the positions only where flagged, with no selection of a list
// first and no count to wait for. Element c covers the kWrapChunk particles from kWrapChunk*c
// with one 16-byte load of their flags (a thread per flag would spend the pass launching
// blocks); the flag array is padded to a multiple of kWrapChunk bytes.
constexpr int64_t kWrapChunk = 16;
template <class T, int DIM>
struct WrapPositions {
  CartGrid g;
  T* pos;
  int64_t cap;
  const uint8_t* flag;
  int64_t n;
  PVEC_HD void operator()(int64_t c) const {
    uint64_t f[2];
#if defined(__CUDA_ARCH__)
    const uint4 v = reinterpret_cast<const uint4*>(flag)[c];
    f[0] = (static_cast<uint64_t>(v.y) << 32) | v.x;
    f[1] = (static_cast<uint64_t>(v.w) << 32) | v.z;
#else
    std::memcpy(f, flag + kWrapChunk * c, sizeof f);
#endif
    if ((f[0] | f[1]) == 0) return;
    for (int k = 0; k < kWrapChunk; ++k) {
      if (((f[k / 8] >> (8 * (k % 8))) & 0xffu) == 0) continue;
      const int64_t i = kWrapChunk * c + k;
      if (i >= n) break;  // the padding
      PVEC_UNROLL
      for (int d = 0; d < DIM; ++d)
        if (g.periodic[d]) {
          const T x = pos[d * cap + i];
          const T w = wrap_stored(g, d, x);
          if (!(w == x)) pos[d * cap + i] = w;
        }
    }
  }
};

// The components a row kernel copies (PackRows, MoveRows, UnpackRows), all of one element
// size, passed by value so that a kernel reads them from the constant bank: component f of
// particle s sits at row[f] + s * elem (its column's base plus its offset), and in a message
// block for k particles at block + k * msg[f] + local * elem. At most kRowComps per launch:
// a message with more components, or with both element sizes, is copied in several launches.
constexpr int kRowComps = 32;
constexpr int kRowBatch = 8;  // loads issued before their stores

// A message block holds k particles component by component: the component with `prefix` bytes
// per message particle before it starts at block + k * prefix, and particle `local` of the k
// sits `local` elements after that.
template <class C>
PVEC_HD C* message_at(C* block, int64_t k, int64_t prefix, int64_t local, int64_t elem) {
  return block + k * prefix + local * elem;
}

struct RowTable {
  int n = 0;
  bool wide = false;  // 8-byte elements (else 4)
  char* row[kRowComps];
  int64_t msg[kRowComps];   // bytes per message particle before the component
  double step[kRowComps];   // positions: the period of its dimension
  int8_t shift[kRowComps];  // positions: its dimension, whose periodic shift it takes; else -1
  PVEC_HD int64_t elem() const { return wide ? 8 : 4; }
  PVEC_HD char* at(int f, int64_t s) const { return row[f] + s * elem(); }
  // Component f of particle `local` of the k in a message block.
  template <class C>
  PVEC_HD C* in_block(int f, C* block, int64_t k, int64_t local) const {
    return message_at(block, k, msg[f], local, elem());
  }
};

// Copies every component of one particle: the W at from(f) to to(f), in batches of kRowBatch
// loads before their stores (the stores may alias the loads as far as the compiler knows, so
// a plain loop waits for each load in turn; the row kernels are bound by the loads in
// flight). Components with shift[f] = d >= 0 are positions of type P and get sc * step[f]
// added, sc the signed byte d of `code`. (Every table index is a constant once the loops
// unroll: indexed at run time, the table would be copied to local memory.)
template <class W, class P, class From, class To>
PVEC_HD void copy_row_of(const RowTable& t, From from, To to, uint32_t code) {
  PVEC_UNROLL
  for (int f0 = 0; f0 < kRowComps; f0 += kRowBatch) {
    if (f0 >= t.n) break;
    W v[kRowBatch];
    PVEC_UNROLL
    for (int k = 0; k < kRowBatch; ++k) {
      if (f0 + k >= t.n) break;
      v[k] = *reinterpret_cast<const W*>(from(f0 + k));
    }
    PVEC_UNROLL
    for (int k = 0; k < kRowBatch; ++k) {
      const int f = f0 + k;
      if (f >= t.n) break;
      if constexpr (sizeof(W) == sizeof(P)) {
        const int d = t.shift[f];
        const int sc = d >= 0 ? static_cast<int8_t>((code >> (8 * d)) & 0xffu) : 0;
        if (sc != 0) {
          P x;
          std::memcpy(&x, &v[k], sizeof x);
          x = x + static_cast<P>(sc * t.step[f]);
          std::memcpy(&v[k], &x, sizeof x);
        }
      }
      *reinterpret_cast<W*>(to(f)) = v[k];
    }
  }
}

template <class P, class From, class To>
PVEC_HD void copy_row(const RowTable& t, From from, To to, uint32_t code) {
  static_assert(sizeof(P) == 4 || sizeof(P) == 8, "positions are 4- or 8-byte values");
  if (t.wide)
    copy_row_of<uint64_t, P>(t, from, to, code);
  else
    copy_row_of<uint32_t, P>(t, from, to, code);
}

// Copy particle src[j] onto particle dst[j] in every component (filling holes left by movers).
struct MoveRows {
  RowTable t;
  const int64_t* dst;
  const int64_t* src;
  PVEC_HD void operator()(int64_t j) const {
    const int64_t s = src[j], d = dst[j];
    copy_row<float>(
        t, [&](int f) { return t.at(f, s); }, [&](int f) { return t.at(f, d); }, 0u);
  }
};

// map's unpack: arrival a (the received particles in rank order) into row holes[a] while
// there are holes (the movers' rows), then into rows n, n + 1, ... (the rows after the old
// end). Its values are particle a - first[r] of the k = count[r] in rank r's block.
struct UnpackRows {
  RowTable t;
  const char* buf;
  const int64_t* block_off;  // bytes, per rank
  const int64_t* first;      // first arrival of each rank (non-decreasing)
  const int64_t* count;
  int P;
  const int64_t* holes;
  int64_t n_holes;
  int64_t n;
  PVEC_HD void operator()(int64_t a) const {
    int lo = 0, hi = P - 1;  // the last rank whose first arrival is at or before a
    while (lo < hi) {
      const int mid = (lo + hi + 1) / 2;
      if (first[mid] <= a)
        lo = mid;
      else
        hi = mid - 1;
    }
    const int64_t k = count[lo], local = a - first[lo];
    const int64_t r = a < n_holes ? holes[a] : n + (a - n_holes);
    const char* block = buf + block_off[lo];
    copy_row<float>(
        t, [&](int f) { return t.in_block(f, block, k, local); }, [&](int f) { return t.at(f, r); },
        0u);
  }
};

// Sort keys of the movers: their destination, or P for particles being removed.
struct MoverKeys {
  const int32_t* dest;
  const int64_t* movers;
  int32_t* keys;
  int64_t* order;
  int32_t P;
  PVEC_HD void operator()(int64_t j) const {
    int32_t d = dest[movers[j]];
    keys[j] = d < 0 ? P : d;
    order[j] = movers[j];
  }
};

struct Iota {
  int64_t* v;
  PVEC_HD void operator()(int64_t j) const { v[j] = j; }
};

// The entries GhostCandidates packed (pack_entry), sorted, split into the plan's source list
// (narrow) and shift array.
struct UnpackEntries {
  const int64_t* packed;
  IndexList src;
  int32_t* shift;
  PVEC_HD void operator()(int64_t j) const {
    const uint64_t w = static_cast<uint64_t>(packed[j]);
    src.set(j, static_cast<int64_t>(w & 0xffffffffu));
    shift[j] = static_cast<int32_t>(static_cast<uint32_t>(w >> 32));
  }
};

// Where one entry's values sit: in its peer's message block as particle `local` of k, or, for
// this rank's own periodic images (`direct`), in the entry's ghost row of the column itself.
struct Slot {
  char* block;  // the peer's message block
  int64_t k;
  int64_t local;
  int64_t row;  // direct: the ghost row
  bool direct;
  // Component 0 of the entry in a column (col: the column's base; prefix: bytes per message
  // particle before the column; elem: element size), and the distance between components in
  // elements.
  PVEC_HD char* at(char* col, int64_t cap, int64_t prefix, int64_t elem, int64_t& stride) const {
    stride = direct ? cap : k;
    return direct ? col + row * elem : message_at(block, k, prefix, local, elem);
  }
};

// Entry j (sorted by peer) goes into peer[j]'s block as particle j - first[peer[j]]; the
// entries of peer `self` (this rank's own periodic images in ghost_get and ghost_put; -1 for
// none) into the ghost rows self_row.. instead, in no message. With one rank every entry is
// self's and there is no peer array (null).
struct BlockIndex {
  const int32_t* peer;
  const int64_t* block_off;  // bytes
  const int64_t* first;
  const int64_t* count;
  int self;
  int64_t self_row;
  PVEC_HD Slot slot(int64_t j, char* buf) const {
    const int32_t r = peer != nullptr ? peer[j] : self;
    const int64_t local = j - first[r];
    return Slot{buf + block_off[r], count[r], local, self_row + local, r == self};
  }
};

// Entry j into its peer's message block (or its ghost row), every component in one pass (the
// entry's indices are read once for all). P is the position type, for the shifted components.
template <class P>
struct PackRows {
  RowTable t;
  BlockIndex at;
  char* buf;
  IndexList src;
  const int32_t* shift;  // packed periodic shifts, or null
  PVEC_HD void operator()(int64_t j) const {
    const Slot slot = at.slot(j, buf);
    const int64_t s = src[j];
    const uint32_t code = shift != nullptr ? static_cast<uint32_t>(shift[j]) : 0u;
    auto from = [&](int f) { return t.at(f, s); };
    if (slot.direct)
      copy_row<P>(
          t, from, [&](int f) { return t.at(f, slot.row); }, code);
    else
      copy_row<P>(
          t, from, [&](int f) { return t.in_block(f, slot.block, slot.k, slot.local); }, code);
  }
};

template <class T>
PVEC_HD T combined(T old, T v, int op) {
  switch (op) {
    case PVEC_REDUCE_ADD:
      // Integers wrap around (two's complement) instead of overflowing into undefined
      // behaviour.
      if constexpr (std::is_integral<T>::value) {
        using U = typename std::make_unsigned<T>::type;
        return static_cast<T>(static_cast<U>(old) + static_cast<U>(v));
      } else {
        return old + v;
      }
    case PVEC_REDUCE_MIN:
      return v < old ? v : old;
    case PVEC_REDUCE_MAX:
      return v > old ? v : old;
    default:
      return v;
  }
}

// Several ghosts may copy one particle, so on the device the combination is atomic: a
// compare-and-swap loop on the element's bits works for every dtype and operation.
template <class T>
PVEC_HD void combine(T* target, T v, int op) {
#if defined(__CUDA_ARCH__)
  using Bits = typename std::conditional<sizeof(T) == 4, unsigned int, unsigned long long>::type;
  Bits* addr = reinterpret_cast<Bits*>(target);
  Bits old = *addr, assumed;
  do {
    assumed = old;
    T cur;
    memcpy(&cur, &assumed, sizeof(T));
    T next = combined(cur, v, op);
    Bits next_bits;
    memcpy(&next_bits, &next, sizeof(T));
    old = atomicCAS(addr, assumed, next_bits);
  } while (old != assumed);
#else
  *target = combined(*target, v, op);
#endif
}

// Ghost entry j's received values combined into its source particle. Entries of this rank's
// own periodic images are in no message: their values are read from their ghost rows.
template <class T>
struct ReduceColumn {
  BlockIndex at;
  char* buf;
  IndexList dst_idx;
  T* col;
  int64_t cap;
  int64_t ncomp;
  int64_t prefix;
  int op;
  PVEC_HD void operator()(int64_t j) const {
    int64_t stride = 0;
    const T* src = reinterpret_cast<const T*>(
        at.slot(j, buf).at(reinterpret_cast<char*>(col), cap, prefix, sizeof(T), stride));
    const int64_t d = dst_idx[j];
    for (int64_t c = 0; c < ncomp; ++c) combine(&col[c * cap + d], src[c * stride], op);
  }
};

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

// Whether particle i may be a ghost anywhere: false only when it lies in this rank's
// subdomain shrunk by the ghost width on every side that has a neighbour (`inner`, see
// inner_band in distribution.cu), so that every dimension leaves it one candidate, its own
// cell. Across a periodic boundary the candidate test runs on the shifted coordinate rounded
// to T, so there the band is shrunk by a few more units in the last place and
// GhostCandidates' exact test has the last word.
template <class T, int DIM>
struct GhostNear {
  Band<T, DIM> inner;
  const T* pos;
  int64_t cap;
  PVEC_HD bool operator()(int64_t i) const {
    T xs[DIM];
    PVEC_UNROLL
    for (int d = 0; d < DIM; ++d) xs[d] = load_ro(pos + d * cap + i);
    return !inner.contains(xs);
  }
};

PVEC_HD inline int lowest_bit(uint32_t m) {
#if defined(__CUDA_ARCH__)
  return __ffs(m) - 1;
#else
  return __builtin_ctz(m);
#endif
}
PVEC_HD inline int highest_bit(uint32_t m) {
#if defined(__CUDA_ARCH__)
  return 31 - __clz(m);
#else
  return 31 - __builtin_clz(m);
#endif
}
PVEC_HD inline int bit_count(uint32_t m) {
#if defined(__CUDA_ARCH__)
  return __popc(m);
#else
  return __builtin_popcount(m);
#endif
}

// The fast path of GhostCandidates' count, for a ghost width below half of every subdomain
// width and a particle inside this rank's subdomain: along each dimension only the unwrapped
// cells own-2 .. own+2 can be candidates (the general path examines a subset of them), so
// their tests are precomputed here in the position type. Cell k (unwrapped own-2+k) exists
// when bit k of exists[d] is set; the coordinate it tests is x + add[d][k], added in T
// exactly as PackRows shifts it (add is 0 without a shift), and it is a candidate when
// lo[d][k] <= that < hi[d][k]: the widened subdomain's bounds rounded up to T, which gives
// the same answer as the double comparison of the general path (see Band).
template <class T, int DIM>
struct NearCells {
  static constexpr int kCells = 5;
  T lo[DIM][kCells];
  T hi[DIM][kCells];
  T add[DIM][kCells];
  uint32_t exists[DIM];
  int32_t cell[DIM][kCells];   // where cell k exists: its wrapped cell along d
  uint32_t code[DIM][kCells];  // and its periodic shift, in byte d as PackRows reads it
  Band<T, DIM> own;            // this rank's subdomain
};

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

  // Walks the combinations like an odometer (no division); with masks (fast) each cell's
  // validity is a bit, otherwise it is tested. With write, writes the entries from base.
  // Returns how many there are.
  PVEC_HD int64_t walk(int64_t i, const int64_t* lo, const int64_t* size, const uint32_t* mask,
                       bool fast, const double* x, int64_t base, bool write) const {
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
        if (write) put(base + n, r, i, code);
        ++n;
      }
      next_combination(step, size);
    }
    return n;
  }

  // The fast path, for a particle inside this rank's subdomain (cells.own).
  PVEC_HD int64_t count_in_cells(const T* xs, int64_t i, Item& rec) const {
    rec.i = i;
    rec.in_cells = true;
    int64_t n = 1;
    bool own_combo = true;
    PVEC_UNROLL
    for (int d = 0; d < DIM; ++d) {
      uint32_t m = 0;
      PVEC_UNROLL
      for (int k = 0; k < NearCells<T, DIM>::kCells; ++k) {
        const T v = static_cast<T>(xs[d] + cells.add[d][k]);
        if (((cells.exists[d] >> k) & 1u) != 0 && v >= cells.lo[d][k] && v < cells.hi[d][k])
          m |= 1u << k;
      }
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
      return walk(i, lo, size, mask, false, x, 0, false);
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
    Item rec;
    if (examine(i, in, rec) != 0) emit(rec, first);
  }

  // The entries of a record examine gave candidates, from first on.
  PVEC_HD void emit(const Item& rec, int64_t first) const {
    if (rec.in_cells) {
      emit_in_cells(rec, first);
      return;
    }
    if (rec.lo[0] == kSlowRecord) {
      emit_general(rec.i, first);
      return;
    }
    emit_masks(rec, first);
  }

  // emit's fast path: the combinations of the record's masks like walk's odometer, each
  // cell's wrapped index and shift read from the tables (no arithmetic on cells).
  PVEC_HD void emit_in_cells(const Item& rec, int64_t first) const {
    int k0[DIM], size[DIM], step[DIM];
    int combos = 1;
    PVEC_UNROLL
    for (int d = 0; d < DIM; ++d) {
      k0[d] = rec.lo[d] - own[d] + 2;
      size[d] = rec.mask[d] != 0 ? highest_bit(rec.mask[d]) + 1 : 0;
      step[d] = 0;
      combos *= size[d];
    }
    int64_t at = first;
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
      if (ok && !(r == me && code == 0)) put(at++, r, rec.i, code);
      next_combination(step, size);
    }
  }

  // emit for a record of the general path with masks: integer work only.
  PVEC_HD void emit_masks(const Item& rec, int64_t first) const {
    int64_t lo[DIM], size[DIM];
    uint32_t mask[DIM];
    PVEC_UNROLL
    for (int d = 0; d < DIM; ++d) {
      lo[d] = rec.lo[d];
      mask[d] = rec.mask[d];
      size[d] = mask[d] != 0 ? highest_bit(mask[d]) + 1 : 0;
    }
    walk(rec.i, lo, size, mask, true, nullptr, first, true);
  }

  // emit for a slow record: the general path again from the position.
  PVEC_HD void emit_general(int64_t i, int64_t first) const {
    double x[DIM];
    position(i, x);  // finite: count gave it candidates
    int64_t lo[DIM], size[DIM];
    uint32_t mask[DIM];
    int own_combo = 0;
    ranges(x, lo, size, mask, own_combo);
    walk(i, lo, size, mask, false, x, first, true);
  }
};

// ghost_get's count pass, j in [0, room]: count[j] = the candidates of particle near[j] and
// word[j] its record as a cell word, for the near particles within room; count[j] = 0 for the
// other j (the scan's last item, and rows beyond the near particles). How many near particles
// there are is read from *n_near (device memory: the count pass may run before the host
// knows it), or is room when n_near is null.
template <class T, int DIM>
struct CountNear {
  GhostCandidates<T, DIM> f;
  IndexList near;
  int64_t* count;
  uint32_t* word;
  int64_t room;
  const int64_t* n_near;
  PVEC_HD void operator()(int64_t j) const {
    const int64_t nb = n_near != nullptr ? *n_near : room;
    if (j >= (nb < room ? nb : room)) {
      count[j] = 0;
      return;
    }
    const int64_t i = near[j];
    typename GhostCandidates<T, DIM>::Input in;
    f.load(i, in);
    typename GhostCandidates<T, DIM>::Item rec;
    rec.in_cells = false;
    count[j] = f.examine(i, in, rec);
    word[j] = f.cell_word(rec);
  }
};

// ghost_get's fill pass: the entries of particle near[j] from offset[j] (the scanned counts),
// from its cell word where it has one, else from its coordinates.
template <class T, int DIM>
struct FillNear {
  GhostCandidates<T, DIM> f;
  IndexList near;
  const int64_t* offset;
  const uint32_t* word;
  PVEC_HD void operator()(int64_t j) const {
    const int64_t i = near[j];
    const uint32_t w = word[j];
    if (w != GhostCandidates<T, DIM>::kNoCellWord) {
      f.emit_in_cells(f.from_cell_word(i, w), offset[j]);
      return;
    }
    typename GhostCandidates<T, DIM>::Input in;
    f.load(i, in);
    f.emit(i, in, offset[j]);
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

}  // namespace pvec::detail
