// Element functions of map and the ghost exchange, written once for host and device.
#pragma once

#include "backend/hd.hpp"
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

// dest[i] = rank owning particle i, or -1 when it is outside a non-periodic boundary or not
// finite.
template <class T, int DIM>
struct LabelOwner {
  CartGrid g;
  const T* pos;
  int64_t cap;
  int32_t* dest;
  PVEC_HD void operator()(int64_t i) const {
    int r = 0;
    bool inside = true;
    PVEC_UNROLL
    for (int d = 0; d < DIM; ++d) {
      T x = pos[d * cap + i];
      inside = inside && g.inside(d, static_cast<double>(x));
      int c = inside ? g.cell(d, static_cast<double>(wrap_stored(g, d, x))) : 0;
      r = r * g.dims[d] + c;
    }
    dest[i] = inside ? r : -1;
  }
};

template <class T, int DIM>
struct WrapPositions {
  CartGrid g;
  T* pos;
  int64_t cap;
  PVEC_HD void operator()(int64_t i) const {
    // Most particles are in the box: read, and write only what changes.
    PVEC_UNROLL
    for (int d = 0; d < DIM; ++d)
      if (g.periodic[d]) {
        const T x = pos[d * cap + i];
        const T w = wrap_stored(g, d, x);
        if (!(w == x)) pos[d * cap + i] = w;
      }
  }
};

// Copy particle src[j] onto particle dst[j] within one column (filling holes left by movers).
template <class T>
struct MoveRows {
  T* col;
  int64_t cap;
  int64_t ncomp;
  const int64_t* dst;
  const int64_t* src;
  PVEC_HD void operator()(int64_t j) const {
    for (int64_t c = 0; c < ncomp; ++c) col[c * cap + dst[j]] = col[c * cap + src[j]];
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

// Entry j (sorted by peer) goes into peer[j]'s block as particle j - first[peer[j]].
struct BlockIndex {
  const int32_t* peer;
  const int64_t* block_off;  // bytes
  const int64_t* first;
  const int64_t* count;
  PVEC_HD void locate(int64_t j, int64_t prefix, int64_t& byte_off, int64_t& k,
                      int64_t& local) const {
    int32_t r = peer[j];
    k = count[r];
    local = j - first[r];
    byte_off = block_off[r] + k * prefix;
  }
};

template <class T>
struct PackColumn {
  BlockIndex at;
  char* buf;
  const int64_t* src;
  const T* col;
  int64_t cap;
  int64_t ncomp;
  int64_t prefix;
  const int32_t* shift;  // packed periodic shifts (positions only), or null
  double len[PVEC_MAX_DIM];
  PVEC_HD void operator()(int64_t j) const {
    int64_t off, k, local;
    at.locate(j, prefix, off, k, local);
    T* dst = reinterpret_cast<T*>(buf + off);
    const int64_t s = src[j];
    for (int64_t c = 0; c < ncomp; ++c) {
      T v = col[c * cap + s];
      if (shift != nullptr) {
        int sc = static_cast<int8_t>((static_cast<uint32_t>(shift[j]) >> (8 * c)) & 0xffu);
        if (sc != 0) v = v + static_cast<T>(sc * len[c]);
      }
      dst[c * k + local] = v;
    }
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

template <class T>
struct ReduceColumn {
  BlockIndex at;
  const char* buf;
  const int64_t* dst_idx;
  T* col;
  int64_t cap;
  int64_t ncomp;
  int64_t prefix;
  int op;
  PVEC_HD void operator()(int64_t j) const {
    int64_t off, k, local;
    at.locate(j, prefix, off, k, local);
    const T* src = reinterpret_cast<const T*>(buf + off);
    const int64_t d = dst_idx[j];
    for (int64_t c = 0; c < ncomp; ++c) combine(&col[c * cap + d], src[c * k + local], op);
  }
};

// key[i] = 0 for a particle that can be no ghost anywhere: in every dimension its own cell
// is its only candidate (tested with the same expressions as GhostCandidates::candidate,
// away from wrapping cells) and that cell is this rank's; 1 otherwise. Only the particles
// with key 1 go through GhostCandidates, so its lanes are not idled by interior ones.
template <class T, int DIM>
struct GhostBoundary {
  CartGrid g;
  double width;
  const T* pos;
  int64_t cap;
  int me;
  int32_t* key;
  PVEC_HD void operator()(int64_t i) const {
    bool interior = true;
    int r = 0;
    PVEC_UNROLL
    for (int d = 0; d < DIM; ++d) {
      const double x = static_cast<double>(pos[d * cap + i]);
      const int c = g.cell(d, x);
      const bool in_cell = x >= g.edge(d, c) && x < g.edge(d, c + 1);
      const bool low = c > 0 ? !(x < g.edge(d, c) + width) : !g.periodic[d];
      const bool high = c < g.dims[d] - 1 ? !(x >= g.edge(d, c + 1) - width) : !g.periodic[d];
      interior = interior && in_cell && low && high;
      r = r * g.dims[d] + c;
    }
    key[i] = interior && r == me ? 0 : 1;
  }
};

// Ghost candidates of particle i: every (rank, periodic shift) whose subdomain, widened by
// the ghost width, contains the shifted position, except (this rank, no shift). Count pass
// (out == nullptr semantics via fill == false) and fill pass share the enumeration.
template <class T, int DIM>
struct GhostCandidates {
  CartGrid g;
  double width;
  const T* pos;
  int64_t cap;
  int me;
  bool fill;
  const int64_t* subset;  // the particles to examine (GhostBoundary's selection)
  int64_t* count;         // count pass: candidates of particle subset[j]
  const int64_t* offset;  // fill pass: first slot of particle subset[j]
  int32_t* peer;
  int64_t* src;
  int32_t* shift;

  PVEC_HD static int64_t floor_div(int64_t a, int64_t b) {
    if (a >= 0 && a < b) return 0;  // the common case, without a 64-bit division
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
  }

  // Unwrapped cell u along d: periodic shift, wrapped cell, and whether the shifted
  // coordinate lies in that cell's subdomain widened by the ghost width.
  PVEC_HD bool candidate(int d, double x, int64_t u, int& cell, int& sh) const {
    int64_t s = g.periodic[d] ? -floor_div(u, g.dims[d]) : 0;
    int64_t cw = u + s * g.dims[d];
    if (cw < 0 || cw >= g.dims[d] || s < -127 || s > 127) return false;
    // Decide on the coordinate the ghost will carry: shifted in the position type, as
    // PackColumn stores it.
    const T shifted = static_cast<T>(static_cast<T>(x) + static_cast<T>(s * g.length(d)));
    double xs = s == 0 ? x : static_cast<double>(shifted);
    cell = static_cast<int>(cw);
    sh = static_cast<int>(s);
    return xs >= g.edge(d, cell) - width && xs < g.edge(d, cell + 1) + width;
  }

  PVEC_HD void operator()(int64_t j) const {
    const int64_t i = subset[j];
    // Per dimension, the candidate cells form a contiguous range of unwrapped indices: take
    // the range the floors give, widened by one against rounding, then trim both ends with
    // the exact test. An interior particle is left with one cell per dimension.
    int64_t lo[DIM], size[DIM];
    double x[DIM];
    bool finite = true;
    PVEC_UNROLL
    for (int d = 0; d < DIM; ++d) {
      x[d] = static_cast<double>(pos[d * cap + i]);
      finite = finite && x[d] - x[d] == 0;
    }
    if (!finite) {  // a NaN or Inf coordinate is near no subdomain
      if (!fill) count[j] = 0;
      return;
    }
    int64_t combos = 1;
    int cell, sh;
    PVEC_UNROLL
    for (int d = 0; d < DIM; ++d) {
      int64_t a = g.cell_unclamped(d, x[d] - width) - 1;
      int64_t b = g.cell_unclamped(d, x[d] + width) + 1;
      if (!g.periodic[d]) {
        if (a < 0) a = 0;
        if (b > g.dims[d] - 1) b = g.dims[d] - 1;
      }
      while (a <= b && !candidate(d, x[d], a, cell, sh)) ++a;
      while (b >= a && !candidate(d, x[d], b, cell, sh)) --b;
      lo[d] = a;
      size[d] = b >= a ? b - a + 1 : 0;
      combos *= size[d];
    }
    int64_t n = 0;
    const int64_t base = fill ? offset[j] : 0;
    for (int64_t k = 0; k < combos; ++k) {
      int64_t rest = k;
      int r = 0, mult = 1;  // row-major rank, last dimension fastest
      uint32_t code = 0;
      bool ok = true, zero = true;
      PVEC_UNROLL
      for (int d = DIM - 1; d >= 0; --d) {
        const int64_t u = lo[d] + rest % size[d];
        rest /= size[d];
        int c = 0, s = 0;
        ok = ok && candidate(d, x[d], u, c, s);
        zero = zero && s == 0;
        code |= (static_cast<uint32_t>(s) & 0xffu) << (8 * d);
        r += c * mult;
        mult *= g.dims[d];
      }
      if (ok && !(r == me && zero)) {
        if (fill) {
          peer[base + n] = r;
          src[base + n] = i;
          shift[base + n] = static_cast<int32_t>(code);
        }
        ++n;
      }
    }
    if (!fill) count[j] = n;
  }
};

}  // namespace pvec::detail
