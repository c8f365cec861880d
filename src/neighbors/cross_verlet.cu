// VerletList::build_cross (verlet_list.hpp): the neighbours in another vector. One thread (loop
// iteration) per particle of the list's vector finds its cell in the source's cell list (the
// same boxes, so a local particle lies inside the source's grid of cells) and walks the cells
// within +-span, once to count and once to fill; the rows it lists are the source's, local
// and ghost. A build without CUDA compiles this file as C++.
#include "neighbors/verlet_list.hpp"

#include "backend/device.hpp"
#include "backend/for_each.cuh"
#include "common/dispatch.hpp"
#include "common/error.hpp"
#include "neighbors/neighbor_dispatch.hpp"
#include "primitives/primitives.hpp"

#include <algorithm>
#include <cmath>

namespace pvec::impl {
namespace {

template <class T, int DIM, bool FILL>
struct CrossPass {
  pvec::cell_list_view g;  // the source's cells, over its local and ghost rows
  const T* pos;            // the particles' positions
  int64_t cap;
  const T* spos;  // the source's positions
  int64_t scap;
  T cut2;
  int64_t* offsets;  // count pass: the counts; fill pass: where each list starts
  int32_t* nbr;
  int64_t n_local;  // the particles: offsets[n_local + 1] collects the largest count

  PVEC_HD void operator()(int64_t i) const {
    T xi[DIM];
    int64_t lo[DIM], hi[DIM];
    PVEC_UNROLL
    for (int d = 0; d < DIM; ++d) {
      xi[d] = pos[d * cap + i];
      const int64_t c = g.coord(d, static_cast<double>(xi[d]));
      lo[d] = c - g.span < 0 ? 0 : c - g.span;
      hi[d] = c + g.span >= g.dims[d] ? g.dims[d] - 1 : c + g.span;
    }
    int64_t out = FILL ? offsets[i] : 0;
    constexpr int L = DIM - 1;
    const int64_t a0 = DIM == 3 ? lo[0] : 0, a1 = DIM == 3 ? hi[0] : 0;
    const int64_t b0 = DIM >= 2 ? lo[DIM >= 2 ? DIM - 2 : 0] : 0;
    const int64_t b1 = DIM >= 2 ? hi[DIM >= 2 ? DIM - 2 : 0] : 0;
    for (int64_t a = a0; a <= a1; ++a)
      for (int64_t b = b0; b <= b1; ++b) {
        const int64_t base = (DIM == 3 ? a * g.dims[1] + b : b) * g.dims[L];
        const int32_t e1 = g.cell_offsets[base + hi[L] + 1];
        for (int32_t e = g.cell_offsets[base + lo[L]]; e < e1; ++e) {
          const int32_t j = g.cell_particles[e];
          T r2 = 0;
          PVEC_UNROLL
          for (int d = 0; d < DIM; ++d) {
            const T dx = spos[d * scap + j] - xi[d];
            r2 = d == 0 ? sq_first(dx) : add_square(r2, dx);
          }
          if (r2 < cut2) {
            if (FILL) nbr[out] = j;
            ++out;
          }
        }
      }
    if (!FILL) {
      offsets[i] = out;
      // The largest count, in offsets[n + 1] (zeroed before): the key order's segment bound.
#if defined(__CUDA_ARCH__)
      atomicMax(reinterpret_cast<unsigned long long*>(offsets + n_local + 1),
                static_cast<unsigned long long>(out));
#else
      if (out > offsets[n_local + 1]) offsets[n_local + 1] = out;
#endif
    }
  }
};

}  // namespace

void VerletList::build_cross(const NeighborInput& in, const NeighborInput& src,
                             const VerletParams& p) {
  built_ = false;
  if (!(p.skin >= 0) || !std::isfinite(p.skin))
    fail(PVEC_ERROR_INVALID_ARGUMENT, "skin = ", p.skin, " must be zero or positive and finite");
  if (!(p.cutoff > 0) || !std::isfinite(p.cutoff))
    fail(PVEC_ERROR_INVALID_ARGUMENT, "cutoff = ", p.cutoff, " must be positive and finite");
  if (p.half)
    fail(PVEC_ERROR_INVALID_ARGUMENT,
         "a list of neighbours in another vector is a full list (PVEC_VERLET_HALF not allowed)");
  ParticleSet& ps = in.ps;
  ParticleSet& ss = src.ps;
  const int64_t n = ps.n_local(), ns = ss.n_local();
  CellListParams cp;
  cp.cutoff = p.cutoff + p.skin;
  cp.span = p.span;
  cp.ghosts = true;
  cp.device = p.device;
  cells_.build(src, cp);  // validates cutoff + skin against the source's ghost width
  const Exec ex = ps.exec(p.device);
  // The source's rows were written on its own stream: they are ready before this one reads.
  if (ss.cuda() && p.device) stream_synchronize(ss.exec(true).stream);
  set_memory_kind(cells_.on_device_memory());
  const pvec::cell_list_view g = cells_.view();
  int64_t* offsets = offsets_.ensure_as<int64_t>(n + 2);
  int64_t total = 0, most = 0;
  with_pos_type(in.pos_dtype, [&](auto t) {
    using T = decltype(t);
    const T cut = static_cast<T>(p.cutoff + p.skin);
    const T* x = static_cast<const T*>(ps.column(0).mirror(p.device));
    const T* xs = static_cast<const T*>(ss.column(0).mirror(p.device));
    const int64_t cap = ps.capacity(), scap = ss.capacity();
    with_dim123(g.dim, [&](auto D) {
      constexpr int DIM = D.value;
      zero_2d(offsets + n + 1, sizeof(int64_t), sizeof(int64_t), 1, ex.on_device, ex.stream);
      for_each(ex, n,
               CrossPass<T, DIM, false>{g, x, cap, xs, scap, cut * cut, offsets, nullptr, n});
      total = exclusive_scan(ex, offsets, n, scan_tmp_, &most);
      int32_t* nbr = neighbors_.ensure_as<int32_t>(std::max<int64_t>(total, 1));
      for_each(ex, n, CrossPass<T, DIM, true>{g, x, cap, xs, scap, cut * cut, offsets, nbr, n});
      // The reference positions of moved_too_far, of both vectors' local particles.
      T* x0 = x0_.ensure_as<T>(std::max<int64_t>(n, 1) * DIM);
      T* x0s = x0_src_.ensure_as<T>(std::max<int64_t>(ns, 1) * DIM);
      if (n > 0)
        copy_2d(x0, n * sizeof(T), x, cap * sizeof(T), n * sizeof(T), DIM, ex.on_device, ex.stream);
      if (ns > 0)
        copy_2d(x0s, ns * sizeof(T), xs, scap * sizeof(T), ns * sizeof(T), DIM, ex.on_device,
                ex.stream);
    });
  });
  if (p.key_col >= 0)
    order_by_key(ex, offsets, static_cast<int32_t*>(neighbors_.data()), n, total, most,
                 ss.column(p.key_col).mirror(p.device), ss.column(p.key_col).spec.dtype,
                 ns + ss.n_ghost(), key_order_);
  if (ex.on_device) stream_synchronize(ex.stream);
  stride_ = 0;
  pad_.release();
  n_ = n;
  n_src_ = ns;
  n_pairs_ = total;
  p_ = p;
  epoch_ = in.rows_epoch;
  src_epoch_ = src.rows_epoch;
  cross_ = true;
  built_ = true;
}

}  // namespace pvec::impl
