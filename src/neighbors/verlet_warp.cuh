// The device form of a Verlet pass (verlet_list.cu): one warp per cell. The lanes take 32
// candidates of the cell's stencil at a time (the rows of cells flattened into one range, so
// no lane idles at a row's end), load each candidate's position once, and test it against
// every local particle of the cell in turn; a ballot gives each particle its count, and in the
// fill pass each lane writes its candidate at the particle's next free place. The arrays are
// exactly those of the per-particle pass (same pairs, same order), which the host runs.
// Include only from verlet_list.cu, after VerletPass, GhostRule and the cell view.
#pragma once

#if defined(__CUDACC__)

namespace pvec::impl {

constexpr int kWarpMaxRows = 32;  // rows of stencil cells a warp can hold: span <= 2 in 3D

template <class T, int DIM, bool HALF, bool FILL>
__global__ void __launch_bounds__(256) verlet_warp_kernel(VerletPass<T, DIM, HALF, FILL> p) {
  const pvec::cell_list_view& g = p.g;
  const int64_t c = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const int lane = static_cast<int>(threadIdx.x & 31u);
  if (c >= g.ncells) return;  // the whole warp leaves together
  const int32_t m = g.local_count(c);
  if (m == 0) return;
  constexpr int L = DIM - 1;
  int64_t cc[3] = {0, 0, 0}, lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  {
    int64_t r = c;
    for (int d = DIM - 1; d >= 0; --d) {
      cc[d] = r % g.dims[d];
      r /= g.dims[d];
    }
    for (int d = 0; d < DIM; ++d) {
      lo[d] = cc[d] - g.span < 0 ? 0 : cc[d] - g.span;
      hi[d] = cc[d] + g.span >= g.dims[d] ? g.dims[d] - 1 : cc[d] + g.span;
    }
  }
  // Lane r describes row r of stencil cells: its first entry, its length, its lead sign.
  const int64_t na = DIM == 3 ? hi[0] - lo[0] + 1 : 1;
  constexpr int B = DIM >= 2 ? DIM - 2 : 0;
  const int64_t nb = DIM >= 2 ? hi[B] - lo[B] + 1 : 1;
  const int rows = static_cast<int>(na * nb);
  int32_t r_first = 0, r_len = 0;
  int r_lead = 1;
  if (lane < rows) {
    const int64_t a = DIM == 3 ? lo[0] + lane / nb : 0;
    const int64_t b = DIM >= 2 ? lo[B] + lane % nb : 0;
    const int64_t row = DIM == 3 ? a * g.dims[1] + b : b;
    const int64_t base = row * g.dims[L];
    r_first = g.cell_offsets[base + lo[L]];
    r_len = g.cell_offsets[base + hi[L] + 1] - r_first;
    if (DIM == 3)
      r_lead = a != cc[0] ? (a > cc[0] ? 1 : -1) : (b > cc[1] ? 1 : (b < cc[1] ? -1 : 0));
    else if (DIM == 2)
      r_lead = b > cc[0] ? 1 : (b < cc[0] ? -1 : 0);
    else
      r_lead = 0;
  }
  // Inclusive scan of the row lengths: lane r's r_end is where row r ends in the flat range.
  int32_t r_end = r_len;
  for (int s = 1; s < 32; s <<= 1) {
    const int32_t v = __shfl_up_sync(0xffffffffu, r_end, s);
    if (lane >= s) r_end += v;
  }
  const int32_t total = __shfl_sync(0xffffffffu, r_end, 31);
  // The own cell's entries (the one row of lead 0 holds it): below are lower cells.
  const int64_t own = c;
  const int32_t own_first = g.cell_offsets[own], own_end = g.cell_offsets[own + 1];
  const int32_t e_loc = own_first;

  for (int32_t chunk = 0; chunk < m; chunk += 32) {
    const int32_t mk = m - chunk < 32 ? m - chunk : 32;
    // Lane k holds particle chunk + k of the cell.
    int64_t my_i = -1;
    T my_x[DIM];
    int64_t my_out = 0, my_cnt = 0;
    if (lane < mk) {
      my_i = g.cell_particles[e_loc + chunk + lane];
      for (int d = 0; d < DIM; ++d) my_x[d] = p.pos[d * p.cap + my_i];
      if (FILL) my_out = p.offsets[my_i];
    } else {
      for (int d = 0; d < DIM; ++d) my_x[d] = 0;
    }
    for (int32_t q0 = 0; q0 < total; q0 += 32) {
      const int32_t q = q0 + lane;
      // This lane's row: the first r with r_end > q (binary search over the lanes).
      // Five steps for every lane (rows <= 32), so that every shuffle has the whole warp.
      int rlo = 0, rhi = rows - 1;
      for (int step = 0; step < 5; ++step) {
        const int mid = (rlo + rhi) >> 1;
        const int32_t end_mid = __shfl_sync(0xffffffffu, r_end, mid);
        if (rlo < rhi) {
          if (end_mid > q)
            rhi = mid;
          else
            rlo = mid + 1;
        }
      }
      const int32_t end_r = __shfl_sync(0xffffffffu, r_end, rlo);
      const int32_t len_r = __shfl_sync(0xffffffffu, r_len, rlo);
      const int32_t first_r = __shfl_sync(0xffffffffu, r_first, rlo);
      const int lead_r = __shfl_sync(0xffffffffu, r_lead, rlo);
      const bool have = q < total;
      int32_t j = -1;
      int mode = 0;
      bool keep = false;
      T xj[DIM];
      for (int d = 0; d < DIM; ++d) xj[d] = 0;
      if (have) {
        const int32_t e = first_r + (q - (end_r - len_r));
        j = g.cell_particles[e];
        for (int d = 0; d < DIM; ++d) xj[d] = p.pos[d * p.cap + j];
        keep = true;
        if (HALF) {
          if (lead_r > 0)
            mode = 0;
          else if (lead_r < 0)
            mode = 1;
          else
            mode = e < own_first ? 1 : (e < own_end ? 2 : 0);
          if (j < p.n_local) {
            if (mode == 1) keep = false;
          } else if (!p.rule.keep(j)) {
            keep = false;
          }
        }
      }
      for (int k = 0; k < mk; ++k) {
        const int64_t ik = __shfl_sync(0xffffffffu, my_i, k);
        T r2 = 0;
        for (int d = 0; d < DIM; ++d) {
          const T dx = xj[d] - __shfl_sync(0xffffffffu, my_x[d], k);
          r2 += dx * dx;
        }
        bool hit = keep && j != ik && r2 < p.cut2;
        if (HALF && mode == 2 && j < p.n_local && j < ik) hit = false;
        const unsigned votes = __ballot_sync(0xffffffffu, hit);
        if (FILL) {
          const int64_t out_k = __shfl_sync(0xffffffffu, my_out, k);
          if (hit) p.nbr[out_k + __popc(votes & ((1u << lane) - 1u))] = j;
        }
        if (lane == k) {
          my_out += __popc(votes);
          my_cnt += __popc(votes);
        }
      }
    }
    if (!FILL && lane < mk) p.offsets[my_i] = my_cnt;
  }
}

// Runs the pass with one warp per cell; false when the stencil has more rows than a warp
// holds (span > 2 in 3D), for the caller to use the per-particle pass.
template <class T, int DIM, bool HALF, bool FILL>
bool verlet_warp_pass(const VerletPass<T, DIM, HALF, FILL>& p, void* stream) {
  const int64_t side = 2 * p.g.span + 1;
  const int64_t rows = DIM == 3 ? side * side : (DIM == 2 ? side : 1);
  if (rows > kWarpMaxRows || p.g.ncells <= 0) return p.g.ncells <= 0;
  const int64_t threads = p.g.ncells * 32;
  const unsigned blocks = static_cast<unsigned>((threads + 255) / 256);
  verlet_warp_kernel<T, DIM, HALF, FILL><<<blocks, 256, 0, static_cast<cudaStream_t>(stream)>>>(p);
  check_launch("Verlet pass (warp per cell)");
  return true;
}

}  // namespace pvec::impl

#endif
