// RowTable: the components a row kernel copies, passed by value, and the copy of one
// particle's components (copy_row) that PackRows, MoveRows and UnpackRows share.
#pragma once

#include "common/hd.hpp"
#include "decomp/cartesian_grid.hpp"
#include "exchange/message_layout.hpp"
#include "particles/particle_set.hpp"

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace pvec::impl {

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

// The components of a message for the row kernels (PackRows, MoveRows, UnpackRows), in
// slices of at most kRowComps of one element size, one launch each. The addresses are final only
// once the growth is installed. shift_positions: the position components take the entries' periodic
// shifts.
inline std::vector<RowTable> row_tables(const ParticleSet& ps, const MessageLayout& layout,
                                        bool device, bool shift_positions, const CartGrid& grid) {
  std::vector<RowTable> tables;
  const int64_t cap = ps.capacity();
  for (size_t q = 0; q < layout.cols.size(); ++q) {
    const PropertyBuffer& c = ps.column(layout.cols[q]);
    const int64_t e = static_cast<int64_t>(c.spec.elem_size);
    const bool pos = shift_positions && layout.cols[q] == 0;
    for (int64_t i = 0; i < c.spec.ncomp; ++i) {
      if (tables.empty() || tables.back().n == kRowComps || tables.back().wide != (e == 8)) {
        tables.emplace_back();
        tables.back().wide = e == 8;
      }
      RowTable& t = tables.back();
      const int f = t.n++;
      t.row[f] = static_cast<char*>(const_cast<void*>(c.mirror(device))) + i * cap * e;
      t.msg[f] = layout.col_prefix[q] + i * e;
      t.shift[f] = static_cast<int8_t>(pos ? i : -1);
      t.step[f] = pos ? grid.length(static_cast<int>(i)) : 0.0;
    }
  }
  return tables;
}

}  // namespace pvec::impl
