// CellList (cell_list.hpp): cell keys, then the stable bucket sort of the rows by key.
#include "neighbors/cell_list.hpp"

#include "backend/device.hpp"
#include "backend/for_each.cuh"
#include "common/dispatch.hpp"
#include "common/error.hpp"
#include "neighbors/cell_grid.hpp"
#include "neighbors/neighbor_dispatch.hpp"

#include <cmath>

namespace pvec::impl {
namespace {

// Interleaves the low `bits` bits of the DIM coordinates, dimension 0 most significant.
template <int DIM>
PVEC_HD inline int32_t morton(const int64_t* c, int bits) {
  uint32_t key = 0;
  for (int b = bits - 1; b >= 0; --b)
    for (int d = 0; d < DIM; ++d) key = (key << 1) | static_cast<uint32_t>((c[d] >> b) & 1);
  return static_cast<int32_t>(key);
}

// The key of a cell: row-major, or its Morton code with morton_bits > 0.
struct GridOrder {
  int morton_bits;
  template <int DIM>
  PVEC_HD int32_t key(const pvec::cell_list_view& g, const int64_t* c) const {
    if (morton_bits > 0) return morton<DIM>(c, morton_bits);
    int64_t k = c[0];
    PVEC_UNROLL
    for (int d = 1; d < DIM; ++d) k = k * g.dims[d] + c[d];
    return static_cast<int32_t>(k);
  }
};

// The key of a cell: its rank in the halo-first order (halo_order.hpp).
struct HaloFirstOrder {
  HaloOrder h;
  template <int DIM>
  PVEC_HD int32_t key(const pvec::cell_list_view& g, const int64_t* c) const {
    return static_cast<int32_t>(halo_key<DIM>(h, g.dims, c));
  }
};

template <class T, int DIM, class Order>
struct CellKeys {
  pvec::cell_list_view g;
  const T* pos;
  int64_t cap;
  int64_t n_sorted;
  int64_t n_split;  // a descent at a row below it sets bit 1, at or above it bit 2
  Order order;
  int32_t* keys;
  int32_t* flags;
  int32_t* iota;  // may be null
  PVEC_HD void operator()(int64_t i) const {
    if (iota != nullptr) iota[i] = static_cast<int32_t>(i);
    int64_t c[DIM];
    bool finite = true;
    PVEC_UNROLL
    for (int d = 0; d < DIM; ++d) {
      const double x = static_cast<double>(pos[d * cap + i]);
      finite = finite && (x - x == 0);  // false for NaN and infinities
      c[d] = g.coord(d, x);
    }
    const int32_t key = order.template key<DIM>(g, c);
    keys[i] = key;
    if (!finite) flag_or(flags, 1);
    if (i > 0 && i < n_sorted) {
      // The key of row i - 1, recomputed (rows are keyed in any order on the device).
      int64_t p[DIM];
      PVEC_UNROLL
      for (int d = 0; d < DIM; ++d) p[d] = g.coord(d, static_cast<double>(pos[d * cap + i - 1]));
      if (order.template key<DIM>(g, p) > key) flag_or(flags, i < n_split ? 2 : 4);
    }
  }
};

}  // namespace

void cell_keys(const Exec& exec, pvec_dtype pos_dtype, const void* pos, int64_t capacity,
               const pvec::cell_list_view& g, int64_t n, int64_t n_sorted, int morton_bits,
               int32_t* keys, int32_t* flags, int64_t n_split, int32_t* iota,
               const HaloOrder* halo) {
  const int64_t split = n_split < 0 ? n_sorted : n_split;
  with_pos_type(pos_dtype, [&](auto t) {
    using T = decltype(t);
    with_dim123(g.dim, [&](auto D) {
      const T* p = static_cast<const T*>(pos);
      if (halo != nullptr && halo->enabled)
        for_each(exec, n,
                 CellKeys<T, D.value, HaloFirstOrder>{g, p, capacity, n_sorted, split,
                                                      HaloFirstOrder{*halo}, keys, flags, iota});
      else
        for_each(exec, n,
                 CellKeys<T, D.value, GridOrder>{g, p, capacity, n_sorted, split,
                                                 GridOrder{morton_bits}, keys, flags, iota});
    });
  });
}

void CellList::build(const NeighborInput& in, const CellListParams& p) {
  built_ = false;
  ParticleSet& ps = in.ps;
  pvec::cell_list_view g = make_cell_grid(in, p.cutoff, p.span, "cutoff");
  const int64_t n_local = ps.n_local();
  const int64_t n = p.ghosts ? ps.n_total() : n_local;
  if (n >= INT32_MAX)
    fail(PVEC_ERROR_NOT_SUPPORTED, "a cell list of ", n,
         " rows: row indices are 32-bit (at most 2^31 - 2 rows per rank)");
  const Exec ex = ps.exec(p.device);
  const MemKind kind = p.device ? ps.device_kind() : MemKind::host;
  if (!kind_set_ || (kind == MemKind::device) != on_device_) {
    for (ScratchBuffer* b : {&keys_, &offsets_, &particles_, &local_offsets_, &flags_})
      b->set_kind(kind);
    scratch_.set_kind(kind);
    kind_set_ = true;
  }
  on_device_ = kind == MemKind::device;
  if (p.device) ps.flush_device();
  const void* pos = ps.column(0).mirror(p.device);
  int32_t* keys = keys_.ensure_as<int32_t>(std::max<int64_t>(n, 1));
  int32_t* offsets = offsets_.ensure_as<int32_t>(g.ncells + 1);
  int32_t* particles = particles_.ensure_as<int32_t>(std::max<int64_t>(n, 1));
  int32_t* local_offsets = local_offsets_.ensure_as<int32_t>(g.ncells + 1);
  int32_t* flags = flags_.ensure_as<int32_t>(1);
  // The identity of the rows, written by the key pass: the order of rows already in cell
  // order, and the values the radix sort starts from.
  int32_t* identity = scratch_.vals_in.ensure_as<int32_t>(std::max<int64_t>(n, 1));
  zero_2d(flags, sizeof(int32_t), sizeof(int32_t), 1, ex.on_device, ex.stream);
  // Keys in one pass over the positions, which also sees whether the local rows (flag bit 1)
  // and the rows after them (bit 2) are in cell order; rows all in order need no sort.
  cell_keys(ex, in.pos_dtype, pos, ps.capacity(), g, n, n, 0, keys, flags, n_local, identity);
  int32_t flags_host = 0;
  copy_bytes(&flags_host, flags, sizeof flags_host, ex.on_device, ex.stream);
  if (ex.on_device) stream_synchronize(ex.stream);
  if ((flags_host & 1) == 0) {
    if ((flags_host & 6) == 0) {
      bucket_sort_presorted(ex, keys, n, g.ncells, n_local, offsets, identity, local_offsets,
                            scratch_);
      particles = identity;
    } else {
      bucket_sort(ex, keys, n, g.ncells, n_local, offsets, particles, local_offsets, scratch_,
                  identity);
    }
    if (ex.on_device) stream_synchronize(ex.stream);
  }
  if (flags_host & 1)
    fail(PVEC_ERROR_INVALID_ARGUMENT,
         "a particle position is NaN or infinite: no cell holds it (the list is left unbuilt)");
  g.n_local = n_local;
  g.n_entries = n;
  g.sorted = (flags_host & 2) == 0 ? 1 : 0;
  g.cell_offsets = offsets;
  g.cell_particles = particles;
  g.local_offsets = local_offsets;
  view_ = g;
  p_ = p;
  epoch_ = in.rows_epoch;
  built_ = true;
}

}  // namespace pvec::impl
