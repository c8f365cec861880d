// locality_sort (locality_sort.hpp): cell keys of the local rows, the stable bucket sort of
// the rows by key, then every column gathered into a spare block that takes the column's
// place (one read and one write of each byte).
#include "neighbors/locality_sort.hpp"

#include "backend/device.hpp"
#include "backend/for_each.cuh"
#include "common/error.hpp"
#include "neighbors/cell_grid.hpp"
#include "neighbors/cell_list.hpp"

#include <algorithm>

namespace pvec::impl {
namespace {

template <class E>
struct GatherRows {
  E* dst;
  const E* src;
  int64_t cap;
  int64_t ncomp;
  const int32_t* order;
  PVEC_HD void operator()(int64_t j) const {
    const int64_t from = order[j];
    for (int64_t c = 0; c < ncomp; ++c) dst[c * cap + j] = src[c * cap + from];
  }
};

void gather_column(const Exec& ex, const PropertyBuffer& col, bool device, void* dst, int64_t cap,
                   int64_t n, int64_t n_total, const int32_t* order) {
  const void* src = col.mirror(device);
  const int64_t ncomp = col.spec.ncomp;
  if (col.spec.elem_size == 4)
    for_each(ex, n,
             GatherRows<uint32_t>{static_cast<uint32_t*>(dst), static_cast<const uint32_t*>(src),
                                  cap, ncomp, order});
  else
    for_each(ex, n,
             GatherRows<uint64_t>{static_cast<uint64_t*>(dst), static_cast<const uint64_t*>(src),
                                  cap, ncomp, order});
  // Ghost rows stay where they are.
  const size_t e = col.spec.elem_size;
  if (n_total > n)
    copy_2d(static_cast<char*>(dst) + n * e, cap * e, static_cast<const char*>(src) + n * e,
            cap * e, (n_total - n) * e, ncomp, ex.on_device, ex.stream);
}

int bits_for_cells(int64_t cells) {
  int b = 0;
  while ((int64_t{1} << b) < cells) ++b;
  return b;
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
  int morton_bits = 0;
  int64_t buckets = g.ncells;
  if (p.morton && g.dim > 1) {
    int64_t widest = std::max(g.dims[0], std::max(g.dims[1], g.dims[2]));
    morton_bits = std::max(1, bits_for_cells(widest));
    if (morton_bits * g.dim > 30)
      fail(PVEC_ERROR_NOT_SUPPORTED, "Morton order of ", widest,
           " cells per dimension needs more than 30 bits; use a larger cell width or row-major "
           "order (no PVEC_SORT_MORTON)");
    buckets = int64_t{1} << (morton_bits * g.dim);
  }
  if (n < 2) return false;

  const bool device = p.device;
  const Exec ex = ps.exec(device);
  const MemKind kind = device ? ps.device_kind() : MemKind::host;
  if (!s.kind_set || s.on_device != (kind == MemKind::device)) {
    for (ScratchBuffer* b : {&s.keys, &s.offsets, &s.order, &s.flags}) b->set_kind(kind);
    s.bucket.set_kind(kind);
    s.order_other.set_kind(device ? MemKind::host : ps.device_kind());
    s.kind_set = true;
    s.on_device = kind == MemKind::device;
  }
  if (device || p.both_mirrors) ps.flush_device();
  int32_t* keys = s.keys.ensure_as<int32_t>(n);
  int32_t* flags = s.flags.ensure_as<int32_t>(1);
  zero_2d(flags, sizeof(int32_t), sizeof(int32_t), 1, ex.on_device, ex.stream);
  cell_keys(ex, in.pos_dtype, ps.column(0).mirror(device), cap, g, n, n, morton_bits, keys, flags);
  int32_t flags_host = 0;
  copy_bytes(&flags_host, flags, sizeof flags_host, ex.on_device, ex.stream);
  if (ex.on_device) stream_synchronize(ex.stream);
  if (flags_host & 1)
    fail(PVEC_ERROR_INVALID_ARGUMENT,
         "a local particle position is NaN or infinite (nothing was reordered)");
  if ((flags_host & 2) == 0) return false;  // in cell order already

  int32_t* offsets = s.offsets.ensure_as<int32_t>(buckets + 1);
  int32_t* order = s.order.ensure_as<int32_t>(n);
  bucket_sort(ex, keys, n, buckets, n, offsets, order, nullptr, s.bucket);

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
  for (const Move& m : moves) {
    const bool same = m.device == device;
    const Exec e = same ? ex : ps.exec(m.device);
    gather_column(e, ps.column(m.col), m.device, m.block, cap, n, n_total,
                  same ? order : order_other);
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
