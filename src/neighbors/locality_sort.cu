// locality_sort (locality_sort.hpp): cell keys of the local rows, the stable bucket sort of
// the rows by key, then every column gathered into a spare block that takes the column's
// place (one read and one write of each byte).
#include "neighbors/locality_sort.hpp"

#include "backend/device.hpp"
#include "backend/for_each.cuh"
#include "common/error.hpp"
#include "common/hd.hpp"
#include "neighbors/cell_grid.hpp"
#include "neighbors/cell_list.hpp"
#include "neighbors/morton_rank.hpp"
#include "neighbors/neighbor_dispatch.hpp"

#include <algorithm>

namespace pvec::impl {
namespace {

// Up to kGatherSlots components (of any columns of one element size) gathered in one pass:
// each row's source index is read once for all of them, and every component of the row is
// loaded before any is stored, so a thread keeps up to 16 loads in flight (stores through
// pointers that might alias would otherwise wait for each load: a loop of load-store pairs
// halves the gather's bandwidth on the H200). The slots are unrolled with a bound test, so a
// pass of fewer components costs only its own loads.
constexpr int kGatherSlots = 16;

template <class E>
struct GatherRows {
  E* dst[kGatherSlots];
  const E* src[kGatherSlots];
  int nslots;
  const int32_t* order;
  PVEC_HD void operator()(int64_t j) const {
    const int64_t from = order[j];
    E v[kGatherSlots];
    PVEC_UNROLL
    for (int t = 0; t < kGatherSlots; ++t)
      if (t < nslots) v[t] = src[t][from];
    PVEC_UNROLL
    for (int t = 0; t < kGatherSlots; ++t)
      if (t < nslots) dst[t][j] = v[t];
  }
};

struct GatherJob {
  const PropertyBuffer* col;
  void* dst;
};

// One pass per kGatherSlots components of the given columns (a column's components may be
// split between two passes).
template <class E>
void gather_batch(const Exec& ex, bool device, const std::vector<GatherJob>& jobs, int64_t cap,
                  int64_t n, const int32_t* order) {
  GatherRows<E> g{};
  g.order = order;
  for (const GatherJob& job : jobs) {
    const E* src = static_cast<const E*>(job.col->mirror(device));
    E* dst = static_cast<E*>(job.dst);
    for (int64_t c = 0; c < job.col->spec.ncomp; ++c) {
      g.src[g.nslots] = src + c * cap;
      g.dst[g.nslots] = dst + c * cap;
      if (++g.nslots == kGatherSlots) {
        for_each_unordered(ex, n, g);
        g.nslots = 0;
      }
    }
  }
  if (g.nslots > 0) for_each_unordered(ex, n, g);
}

// Gathers the local rows of the given columns of one mirror into their blocks; ghost rows
// are copied where they are.
void gather_columns(const Exec& ex, bool device, const std::vector<GatherJob>& jobs, int64_t cap,
                    int64_t n, int64_t n_total, const int32_t* order) {
  std::vector<GatherJob> four, eight;
  for (const GatherJob& j : jobs) (j.col->spec.elem_size == 4 ? four : eight).push_back(j);
  gather_batch<uint32_t>(ex, device, four, cap, n, order);
  gather_batch<uint64_t>(ex, device, eight, cap, n, order);
  if (n_total <= n) return;
  for (const GatherJob& j : jobs) {
    const size_t e = j.col->spec.elem_size;
    copy_2d(static_cast<char*>(j.dst) + n * e, cap * e,
            static_cast<const char*>(j.col->mirror(device)) + n * e, cap * e, (n_total - n) * e,
            j.col->spec.ncomp, ex.on_device, ex.stream);
  }
}

int bits_for_cells(int64_t cells) {
  int b = 0;
  while ((int64_t{1} << b) < cells) ++b;
  return b;
}

// The Morton rank of every cell of g (morton_rank.hpp), computed when g's dimensions differ from
// the last call's; ncells entries, on exec's side.
const int32_t* morton_ranks(const Exec& ex, const pvec::cell_list_view& g, SortScratch& s) {
  int32_t* rank = s.morton_rank.ensure_as<int32_t>(static_cast<size_t>(g.ncells));
  if (std::equal(g.dims, g.dims + 3, s.morton_dims)) return rank;
  const int bits = std::max(1, bits_for_cells(std::max(g.dims[0], std::max(g.dims[1], g.dims[2]))));
  with_dim123(g.dim, [&](auto D) {
    if constexpr (D.value > 1)
      for_each(ex, g.ncells,
               MortonRankTable<D.value>{{g.dims[0], g.dims[1], g.dims[2]}, bits, rank});
  });
  std::copy(g.dims, g.dims + 3, s.morton_dims);
  return rank;
}

}  // namespace

void* SortSpares::take(MemKind kind, size_t bytes) {
  for (size_t k = 0; k < blocks_.size(); ++k)
    if (blocks_[k].kind == kind && blocks_[k].bytes == bytes) {
      void* p = blocks_[k].p;
      blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(k));
      return p;
    }
  return allocate(kind, bytes);
}

void SortSpares::give(MemKind kind, void* p, size_t bytes) {
  if (p == nullptr) return;
  if (is_retained(p)) {
    deallocate(kind, p, bytes);  // pending until its last retention is released
    return;
  }
  blocks_.push_back(Block{kind, p, bytes});
}

void SortSpares::keep_only(MemKind kind, const std::vector<size_t>& sizes) {
  for (size_t k = 0; k < blocks_.size();) {
    if (blocks_[k].kind == kind &&
        std::find(sizes.begin(), sizes.end(), blocks_[k].bytes) == sizes.end()) {
      deallocate(blocks_[k].kind, blocks_[k].p, blocks_[k].bytes);
      blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(k));
    } else {
      ++k;
    }
  }
}

void SortSpares::clear() {
  for (const Block& b : blocks_) deallocate(b.kind, b.p, b.bytes);
  blocks_.clear();
}

size_t SortSpares::bytes() const {
  size_t t = 0;
  for (const Block& b : blocks_) t += b.bytes;
  return t;
}

bool locality_sort(const NeighborInput& in, const SortParams& p, SortScratch& s) {
  ParticleSet& ps = in.ps;
  pvec::cell_list_view g = make_cell_grid(in, p.cell_width, 1, "cell width", false);
  const int64_t n = ps.n_local(), n_total = ps.n_total(), cap = ps.capacity();
  if (n >= INT32_MAX)
    fail(PVEC_ERROR_NOT_SUPPORTED, "sorting ", n, " rows: row indices are 32-bit");
  if (p.morton && p.halo_first)
    fail(PVEC_ERROR_INVALID_ARGUMENT,
         "PVEC_SORT_MORTON and PVEC_SORT_HALO_FIRST exclude each other (the halo-first order is "
         "row-major within its groups of cells)");
  const int64_t buckets = g.ncells;
  HaloOrder halo;
  if (p.halo_first) halo = make_halo_order(g, in.ghost_width);
  if (n < 2) return false;

  const bool device = p.device;
  const Exec ex = ps.exec(device);
  const MemKind kind = device ? ps.device_kind() : MemKind::host;
  if (!s.kind_set || s.on_device != (kind == MemKind::device)) {
    for (ScratchBuffer* b : {&s.keys, &s.offsets, &s.order, &s.flags, &s.morton_rank})
      b->set_kind(kind);
    s.morton_dims[0] = 0;  // the rank table (if any) is gone with the old kind
    s.bucket.set_kind(kind);
    s.order_other.set_kind(device ? MemKind::host : ps.device_kind());
    s.kind_set = true;
    s.on_device = kind == MemKind::device;
  }
  if (device || p.both_mirrors) ps.flush_device();
  int32_t* keys = s.keys.ensure_as<int32_t>(n);
  int32_t* flags = s.flags.ensure_as<int32_t>(1);
  zero_2d(flags, sizeof(int32_t), sizeof(int32_t), 1, ex.on_device, ex.stream);
  // On the device the key pass also writes the identity the radix sort starts from (one more
  // stream of the pass, in place of a launch of its own).
  int32_t* identity =
      ex.on_device ? s.bucket.vals_in.ensure_as<int32_t>(static_cast<size_t>(n)) : nullptr;
  const int32_t* rank = p.morton && g.dim > 1 ? morton_ranks(ex, g, s) : nullptr;
  cell_keys(ex, in.pos_dtype, ps.column(0).mirror(device), cap, g, n, n, rank, keys, flags, -1,
            identity, p.halo_first ? &halo : nullptr);
  int32_t flags_host = 0;
  copy_bytes(&flags_host, flags, sizeof flags_host, ex.on_device, ex.stream);
  if (ex.on_device) stream_synchronize(ex.stream);
  if (flags_host & 1)
    fail(PVEC_ERROR_INVALID_ARGUMENT,
         "a local particle position is NaN or infinite (nothing was reordered)");
  if ((flags_host & 2) == 0) return false;  // in cell order already

  int32_t* order = s.order.ensure_as<int32_t>(n);
  bucket_order(ex, keys, n, buckets, order, s.offsets, s.bucket, identity);

  // Every block is taken before any column changes, so that running out of memory leaves the
  // vector as it was.
  struct Move {
    int col;
    bool device;
    void* block;
  };
  std::vector<Move> moves;
  std::vector<size_t> sizes;
  for (int c = 0; c < ps.column_count(); ++c) sizes.push_back(ps.column(c).bytes(cap));
  const MemKind other_kind = device ? ps.host_kind() : ps.device_kind();
  const MemKind this_kind = device ? ps.device_kind() : ps.host_kind();
  s.spares.keep_only(this_kind, sizes);
  if (p.both_mirrors) s.spares.keep_only(other_kind, sizes);
  try {
    for (int side = 0; side < (p.both_mirrors ? 2 : 1); ++side) {
      const bool dev_side = side == 0 ? device : !device;
      const MemKind k = side == 0 ? this_kind : other_kind;
      for (int c = 0; c < ps.column_count(); ++c)
        moves.push_back(Move{c, dev_side, s.spares.take(k, sizes[c])});
    }
  } catch (...) {
    for (const Move& m : moves)
      s.spares.give(m.device == device ? this_kind : other_kind, m.block, sizes[m.col]);
    throw;
  }
  const int32_t* order_other = nullptr;
  if (p.both_mirrors) {
    int32_t* o = s.order_other.ensure_as<int32_t>(n);
    copy_bytes(o, order, static_cast<size_t>(n) * sizeof(int32_t), ps.cuda(), ex.stream);
    if (ps.cuda()) stream_synchronize(ex.stream);
    order_other = o;
  }
  for (int side = 0; side < (p.both_mirrors ? 2 : 1); ++side) {
    const bool dev_side = side == 0 ? device : !device;
    std::vector<GatherJob> jobs;
    for (const Move& m : moves)
      if (m.device == dev_side) jobs.push_back(GatherJob{&ps.column(m.col), m.block});
    gather_columns(side == 0 ? ex : ps.exec(dev_side), dev_side, jobs, cap, n, n_total,
                   side == 0 ? order : order_other);
  }
  ps.sync_stream();
  for (const Move& m : moves) {
    PropertyBuffer& col = ps.column(m.col);
    void*& slot = m.device ? col.dev : col.host;
    void* old = slot;
    slot = m.block;
    s.spares.give(m.device == device ? this_kind : other_kind, old, sizes[m.col]);
  }
  ps.bump_generation();
  return true;
}

}  // namespace pvec::impl
