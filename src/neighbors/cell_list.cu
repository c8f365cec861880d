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

// The key of a cell: row-major, or with a rank table (the Morton order) the cell's entry there.
struct GridOrder {
  const int32_t* rank;
  template <int DIM>
  PVEC_HD int32_t key(const pvec::cell_list_view& g, const int64_t* c) const {
    int64_t k = c[0];
    PVEC_UNROLL
    for (int d = 1; d < DIM; ++d) k = k * g.dims[d] + c[d];
    return rank != nullptr ? rank[k] : static_cast<int32_t>(k);
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
  // The key of row i, and whether its coordinates are finite.
  PVEC_HD int32_t key_of(int64_t i, bool& finite) const {
    int64_t c[DIM];
    PVEC_UNROLL
    for (int d = 0; d < DIM; ++d) {
      const double x = static_cast<double>(pos[d * cap + i]);
      finite = finite && (x - x == 0);
      c[d] = g.coord(d, x);
    }
    return order.template key<DIM>(g, c);
  }
};

#if defined(__CUDACC__)
// The key pass on the device, R = 16 / sizeof(T) consecutive rows per thread: one 16-byte load
// per dimension (4 floats or 2 doubles) and one vector store of the keys and of the identity,
// so that each thread keeps R times the bytes of the one-row functor in flight (that one ran at
// 1.9 TB/s on f32 positions at 10^8 rows on the H200). The previous row's key comes from the
// lane before (the first lane of a warp recomputes it); the flags are or-ed over the warp and
// raised by one lane. The same keys and flags as CellKeys::operator(), which the host runs.
template <class T>
struct Vec16;
template <>
struct Vec16<float> {
  using type = float4;
  using keys = int4;
};
template <>
struct Vec16<double> {
  using type = double2;
  using keys = int2;
};

template <class T, int DIM, class Order>
__global__ void cell_keys_kernel(CellKeys<T, DIM, Order> k, int64_t n) {
  constexpr int R = 16 / sizeof(T);
  using V = typename Vec16<T>::type;
  using K = typename Vec16<T>::keys;
  const int64_t i0 = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) * R;
  const int lane = static_cast<int>(threadIdx.x & 31u);
  int32_t key[R];
  bool finite = true;
  const bool whole = i0 + R <= n;
  if (whole) {
    T x[DIM][R];
    PVEC_UNROLL
    for (int d = 0; d < DIM; ++d) {
      const V v = __ldg(reinterpret_cast<const V*>(k.pos + d * k.cap + i0));
      const T* e = reinterpret_cast<const T*>(&v);
      PVEC_UNROLL
      for (int r = 0; r < R; ++r) x[d][r] = e[r];
    }
    PVEC_UNROLL
    for (int r = 0; r < R; ++r) {
      int64_t c[DIM];
      PVEC_UNROLL
      for (int d = 0; d < DIM; ++d) {
        const double xd = static_cast<double>(x[d][r]);
        finite = finite && (xd - xd == 0);
        c[d] = k.g.coord(d, xd);
      }
      key[r] = k.order.template key<DIM>(k.g, c);
    }
  } else {
    PVEC_UNROLL
    for (int r = 0; r < R; ++r) key[r] = i0 + r < n ? k.key_of(i0 + r, finite) : 0;
  }
  int32_t prev = __shfl_up_sync(0xffffffffu, key[R - 1], 1);
  if (lane == 0 && i0 > 0 && i0 < n) {
    bool unused = true;
    prev = k.key_of(i0 - 1, unused);
  }
  int32_t bits = finite ? 0 : 1;
  PVEC_UNROLL
  for (int r = 0; r < R; ++r) {
    const int64_t i = i0 + r;
    const int32_t before = r == 0 ? prev : key[r - 1];
    if (i > 0 && i < n && i < k.n_sorted && before > key[r]) bits |= i < k.n_split ? 2 : 4;
  }
  if (whole) {
    K kv, iv;
    int32_t* kp = reinterpret_cast<int32_t*>(&kv);
    int32_t* ip = reinterpret_cast<int32_t*>(&iv);
    PVEC_UNROLL
    for (int r = 0; r < R; ++r) {
      kp[r] = key[r];
      ip[r] = static_cast<int32_t>(i0 + r);
    }
    *reinterpret_cast<K*>(k.keys + i0) = kv;
    if (k.iota != nullptr) *reinterpret_cast<K*>(k.iota + i0) = iv;
  } else {
    for (int r = 0; r < R && i0 + r < n; ++r) {
      k.keys[i0 + r] = key[r];
      if (k.iota != nullptr) k.iota[i0 + r] = static_cast<int32_t>(i0 + r);
    }
  }
  for (int s = 16; s > 0; s >>= 1) bits |= __shfl_xor_sync(0xffffffffu, bits, s);
  if (lane == 0 && bits != 0) flag_or(k.flags, bits);
}

inline bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

// The key pass: the vector kernel where its loads and stores are aligned (columns start on 16
// bytes and the capacity is a multiple of 64), else the one-row functor.
template <class T, int DIM, class Order>
void run_cell_keys(const Exec& exec, int64_t n, const CellKeys<T, DIM, Order>& k) {
  constexpr int R = 16 / sizeof(T);
  if (exec.on_device && n > 0 && aligned16(k.pos) && k.cap % R == 0 && aligned16(k.keys) &&
      (k.iota == nullptr || aligned16(k.iota))) {
    constexpr int kBlock = 256;
    const int64_t threads = (n + R - 1) / R;
    const unsigned blocks = static_cast<unsigned>((threads + kBlock - 1) / kBlock);
    cell_keys_kernel<T, DIM, Order>
        <<<blocks, kBlock, 0, static_cast<cudaStream_t>(exec.stream)>>>(k, n);
    check_launch("cell key pass");
    return;
  }
  for_each(exec, n, k);
}
#else
template <class T, int DIM, class Order>
void run_cell_keys(const Exec& exec, int64_t n, const CellKeys<T, DIM, Order>& k) {
  for_each(exec, n, k);
}
#endif

}  // namespace

void cell_keys(const Exec& exec, pvec_dtype pos_dtype, const void* pos, int64_t capacity,
               const pvec::cell_list_view& g, int64_t n, int64_t n_sorted, const int32_t* rank,
               int32_t* keys, int32_t* flags, int64_t n_split, int32_t* iota,
               const HaloOrder* halo) {
  const int64_t split = n_split < 0 ? n_sorted : n_split;
  with_pos_type(pos_dtype, [&](auto t) {
    using T = decltype(t);
    with_dim123(g.dim, [&](auto D) {
      const T* p = static_cast<const T*>(pos);
      if (halo != nullptr && halo->enabled)
        run_cell_keys(
            exec, n,
            CellKeys<T, D.value, HaloFirstOrder>{g, p, capacity, n_sorted, split,
                                                 HaloFirstOrder{*halo}, keys, flags, iota});
      else
        run_cell_keys(exec, n,
                      CellKeys<T, D.value, GridOrder>{g, p, capacity, n_sorted, split,
                                                      GridOrder{rank}, keys, flags, iota});
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
  cell_keys(ex, in.pos_dtype, pos, ps.capacity(), g, n, n, nullptr, keys, flags, n_local, identity);
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
