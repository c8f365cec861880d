// The device form of a Verlet pass (verlet_list.cu): one warp per cell. The cell's stencil is
// cut into segments of consecutive entries of cell_particles, one per lane: a row of cells
// along the last dimension (full lists), or one cell (half lists, whose lower cells give only
// their ghosts). The segments, flattened into one range, are taken 32 x Q candidates at a
// time, each lane loading Q candidates (positions from the copy in entry order, so the
// loads are coalesced whatever the row order); the cell's local particles wait in shared
// memory, and each is tested against every candidate held: a ballot gives the particle its
// count, and in the fill pass each lane writes its candidate at the particle's next free
// place. The arrays are exactly those of the per-particle pass (same pairs, same order), which
// the host runs: the segments follow its order of cells, and each particle's entries are
// written in increasing flat position.
//
// FILL: 0 counts (each particle's count, and the largest in offsets[n_local + 1]); 1 fills the
// CSR arrays at the scanned offsets; 2 fills padded rows of p.stride entries (particle i's at
// p.pad + i * stride, the entries beyond stride dropped) and counts as 0 does: one pass where
// the room of the last build suffices, the CSR arrays then compacted from the rows
// (compact_rows_kernel).
// Include only from verlet_list.cu, after VerletPass, GhostRule and the cell view.
#pragma once

#include <climits>
#include <cstdint>

namespace pvec::impl {

enum WarpCut { kCutNone = 0, kCutCells = 1, kCutRows = 2 };

// How a warp cuts the stencil of span `span` in DIM dimensions, or kCutNone when it has more
// segments than a warp has lanes (then the per-particle pass runs).
template <int DIM>
inline int warp_cut(int span, bool half) {
  const int64_t side = 2 * static_cast<int64_t>(span) + 1;
  int64_t cells = 1;
  for (int d = 0; d < DIM; ++d) cells *= side;
  if (half) return cells <= 32 ? kCutCells : kCutNone;
  return cells / side <= 32 ? kCutRows : kCutNone;
}

#if defined(__CUDACC__)

// Candidates per lane per round: a round of 32 x Q candidates costs every particle of the cell
// Q tests per lane, present candidates or not, so Q fits the usual count of a stencil: a full
// 3D list at about 12 particles per cell has ~330 candidates (3 rounds of 128), a half list
// ~170 (2 rounds of 96 rather than of 128: 23% fewer tests).
template <bool HALF>
constexpr int kWarpQ = HALF ? 3 : 4;
constexpr int kWarpBlock = 256;  // threads per block: 8 warps, 8 cells

// A coordinate no particle is near: its squared distance to any particle is far beyond any
// cutoff and stays finite.
template <class T>
constexpr T kFar = sizeof(T) == 8 ? static_cast<T>(1e150) : static_cast<T>(1e18);

template <class T>
struct WarpStage {
  int32_t seg_begin[32];  // flat position of the segment's first entry
  int32_t seg_end[32];    // flat position one past its last
  int32_t seg_first[32];  // its first entry in cell_particles
  int32_t seg_mode[32];   // 0: every entry; 1: ghosts only (lower cell); 2: own cell
  T x[3][32];             // the positions of the cell's particles in this chunk
  int32_t row[32];        // and their rows
  int32_t skip[32];       // and whether the pair filter flags them
};

template <class T, int DIM, bool HALF, int FILL>
__global__ void __launch_bounds__(kWarpBlock, 4)
    verlet_warp_kernel(VerletPass<T, DIM, HALF, FILL> p, int cut) {
  constexpr bool PAD = FILL == 2, COUNT = FILL != 1;
  __shared__ WarpStage<T> stage[kWarpBlock / 32];
  const pvec::cell_list_view& g = p.g;
  const int64_t c = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const int lane = static_cast<int>(threadIdx.x & 31u);
  if (c >= g.ncells) return;  // the whole warp leaves together
  const int32_t m = g.local_count(c);
  if (m == 0) return;
  WarpStage<T>& sh = stage[threadIdx.x >> 5];
  constexpr int L = DIM - 1;
  int64_t cc[3] = {0, 0, 0};
  {
    int64_t r = c;
    for (int d = DIM - 1; d >= 0; --d) {
      cc[d] = r % g.dims[d];
      r /= g.dims[d];
    }
  }
  const int span = g.span, side = 2 * g.span + 1;
  // This lane's segment; lanes are numbered in the order the per-particle pass visits cells
  // (dimension 0 slowest).
  int32_t first = 0, len = 0, mode = 0;
  const int nseg_dims = cut == kCutCells ? DIM : DIM - 1;
  int nseg = 1;
  for (int d = 0; d < nseg_dims; ++d) nseg *= side;
  if (lane < nseg) {
    int64_t q[3] = {0, 0, 0};
    int lex = 0;  // sign of the first nonzero offset
    bool inside = true;
    int rem = lane;
    for (int d = nseg_dims - 1; d >= 0; --d) {
      const int o = rem % side - span;
      rem /= side;
      q[d] = cc[d] + o;
      inside = inside && q[d] >= 0 && q[d] < g.dims[d];
    }
    for (int d = 0; d < nseg_dims; ++d)
      if (lex == 0 && q[d] != cc[d]) lex = q[d] > cc[d] ? 1 : -1;
    if (inside) {
      if (cut == kCutCells) {
        const int64_t cell = g.cell_at(q);
        const int32_t e0 = g.cell_offsets[cell], e1 = g.cell_offsets[cell + 1];
        first = e0;
        if (HALF && lex < 0) {
          first = e0 + g.local_count(cell);
          mode = 1;
        } else if (HALF && lex == 0) {
          mode = 2;
        }
        len = e1 - first;
      } else {
        int64_t row = 0;
        for (int d = 0; d < L; ++d) row = row * g.dims[d] + q[d];
        const int64_t lo = cc[L] - span < 0 ? 0 : cc[L] - span;
        const int64_t hi = cc[L] + span >= g.dims[L] ? g.dims[L] - 1 : cc[L] + span;
        first = g.cell_offsets[row * g.dims[L] + lo];
        len = g.cell_offsets[row * g.dims[L] + hi + 1] - first;
      }
    }
  }
  int32_t incl = len;
  for (int s = 1; s < 32; s <<= 1) {
    const int32_t v = __shfl_up_sync(0xffffffffu, incl, s);
    if (lane >= s) incl += v;
  }
  const int32_t total = __shfl_sync(0xffffffffu, incl, 31);
  sh.seg_begin[lane] = incl - len;
  sh.seg_end[lane] = incl;
  sh.seg_first[lane] = first;
  sh.seg_mode[lane] = mode;
  const int32_t own_first = g.cell_offsets[c];
  const unsigned below = (1u << lane) - 1u;
  __syncwarp();

  for (int32_t chunk = 0; chunk < m; chunk += 32) {
    const int mk = m - chunk < 32 ? static_cast<int>(m - chunk) : 32;
    int64_t my_out = 0, my_cnt = 0;  // of particle chunk + lane
    if (lane < mk) {
      const int32_t e = own_first + chunk + lane;
      const int32_t i = g.cell_particles[e];
      sh.row[lane] = i;
      sh.skip[lane] = p.skip.active() && p.skip.on(i) ? 1 : 0;
      for (int d = 0; d < DIM; ++d) sh.x[d][lane] = p.xs[d * p.xs_stride + e];
      if (FILL == 1) my_out = p.offsets[i];
    }
    __syncwarp();
    int seg = 0;
    constexpr int Q = kWarpQ<HALF>;
    for (int32_t q0 = 0; q0 < total; q0 += 32 * Q) {
      // Candidate s of this lane: its row, the bound of the row test, its position (far
      // away when there is no candidate or a half list drops the ghost, so that the
      // distance test alone rejects it).
      int32_t jj[Q], jc[Q];
      bool js[Q];  // flagged by the pair filter
      T xj[Q][DIM];
#pragma unroll
      for (int s = 0; s < Q; ++s) {
        const int32_t q = q0 + 32 * s + lane;
        jj[s] = -1;
        jc[s] = HALF ? INT32_MAX : -1;
        js[s] = false;
        for (int d = 0; d < DIM; ++d) xj[s][d] = kFar<T>;
        if (q < total) {
          while (sh.seg_end[seg] <= q) ++seg;
          const int32_t e = sh.seg_first[seg] + (q - sh.seg_begin[seg]);
          const int32_t j = g.cell_particles[e];
          if (!HALF || j < p.n_local || p.rule.keep(j)) {
            jj[s] = j;
            js[s] = p.skip.active() && p.skip.on(j);
            for (int d = 0; d < DIM; ++d) xj[s][d] = p.xs[d * p.xs_stride + e];
            // Full list: any row but the particle's own. Half list: a local of the own cell
            // only above the particle (no bound elsewhere).
            if (!HALF)
              jc[s] = j;
            else if (sh.seg_mode[seg] == 2 && j < p.n_local)
              jc[s] = j;
          }
        }
      }
      for (int k = 0; k < mk; ++k) {
        const int32_t ik = sh.row[k];
        const bool sk = sh.skip[k] != 0;
        T xk[DIM];
        for (int d = 0; d < DIM; ++d) xk[d] = sh.x[d][k];
        int32_t* out = nullptr;
        int64_t room = INT64_MAX;  // padded rows: entries particle k may still write
        if (FILL == 1) out = p.nbr + __shfl_sync(0xffffffffu, my_out, k);
        if (PAD) {
          const int64_t have = __shfl_sync(0xffffffffu, my_out, k);
          out = p.pad + static_cast<int64_t>(ik) * p.stride + have;
          room = p.stride - have;
        }
        int32_t tot = 0;
#pragma unroll
        for (int s = 0; s < Q; ++s) {
          T r2 = 0;
          for (int d = 0; d < DIM; ++d) {
            const T dx = xj[s][d] - xk[d];
            r2 = d == 0 ? sq_first(dx) : add_square(r2, dx);
          }
          const bool hit = r2 < p.cut2 && (HALF ? jc[s] > ik : jc[s] != ik) && !(sk && js[s]);
          const unsigned votes = __ballot_sync(0xffffffffu, hit);
          const int32_t at = tot + __popc(votes & below);
          if (FILL && hit && (!PAD || at < room)) out[at] = jj[s];
          tot += __popc(votes);
        }
        if (lane == k) {
          my_out += tot;
          my_cnt += tot;
        }
      }
    }
    if (COUNT) {
      if (lane < mk) p.offsets[sh.row[lane]] = my_cnt;
      unsigned most = lane < mk ? static_cast<unsigned>(my_cnt) : 0u;
      for (int s = 16; s > 0; s >>= 1) most = max(most, __shfl_xor_sync(0xffffffffu, most, s));
      if (lane == 0)
        atomicMax(reinterpret_cast<unsigned long long*>(p.offsets + p.n_local + 1),
                  static_cast<unsigned long long>(most));
    }
    __syncwarp();  // before the next chunk overwrites the stage
  }
}

// Runs the pass with one warp per cell (the caller checked warp_cut and gave p.xs).
template <class T, int DIM, bool HALF, int FILL>
void verlet_warp_pass(const VerletPass<T, DIM, HALF, FILL>& p, int cut, void* stream) {
  if (p.g.ncells <= 0) return;
  const int64_t threads = p.g.ncells * 32;
  const unsigned blocks = static_cast<unsigned>((threads + kWarpBlock - 1) / kWarpBlock);
  verlet_warp_kernel<T, DIM, HALF, FILL>
      <<<blocks, kWarpBlock, 0, static_cast<cudaStream_t>(stream)>>>(p, cut);
  check_launch("Verlet pass (warp per cell)");
}

// The CSR arrays from padded rows: row i's offsets[i + 1] - offsets[i] entries from pad + i *
// stride to nbr + offsets[i]. One warp per 32 consecutive rows, whose entries are one
// contiguous range of nbr: each lane holds the start of one row (relative to the range), and
// the warp copies the range 32 x kCompactUnroll entries at a time, each lane finding the row
// of its entry by a binary search over the lanes' starts (shuffles), so that the stores are
// whole lines and the loads runs of a row's length, whatever the rows' lengths (a half list's
// ~25 entries left most lanes of a lane group per row idle). The caller guarantees 32 x stride
// < 2^31 (next_stride), so the starts fit 32 bits.
constexpr int kCompactUnroll = 4;

__global__ void compact_rows_kernel(const int32_t* __restrict__ pad, int64_t stride,
                                    const int64_t* __restrict__ offsets, int32_t* __restrict__ nbr,
                                    int64_t n) {
  const int64_t r0 = ((static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5) * 32;
  const int lane = static_cast<int>(threadIdx.x & 31u);
  if (r0 >= n) return;  // the whole warp leaves together
  const int rows = n - r0 < 32 ? static_cast<int>(n - r0) : 32;
  const int64_t base = offsets[r0];
  // Start of row r0 + lane relative to base (past the last row: the range's end, so that
  // the search never picks a lane beyond it).
  const int64_t end = offsets[r0 + rows];
  const int32_t start = static_cast<int32_t>((lane < rows ? offsets[r0 + lane] : end) - base);
  const int32_t total = static_cast<int32_t>(end - base);
  const int32_t* src0 = pad + r0 * stride;
  int32_t* dst = nbr + base;
  for (int32_t q0 = 0; q0 < total; q0 += 32 * kCompactUnroll) {
    int32_t v[kCompactUnroll];
#pragma unroll
    for (int u = 0; u < kCompactUnroll; ++u) {
      const int32_t q = q0 + u * 32 + lane;
      // The last lane whose start is <= q: the row holding entry q (empty rows share their
      // start with the next row, which is found instead).
      int r = 0;
#pragma unroll
      for (int step = 16; step > 0; step >>= 1) {
        const int32_t s = __shfl_sync(0xffffffffu, start, r + step);
        if (s <= q) r += step;
      }
      const int32_t sr = __shfl_sync(0xffffffffu, start, r);
      v[u] = q < total ? __ldg(src0 + static_cast<int64_t>(r) * stride + (q - sr)) : 0;
    }
#pragma unroll
    for (int u = 0; u < kCompactUnroll; ++u) {
      const int32_t q = q0 + u * 32 + lane;
      if (q < total) dst[q] = v[u];
    }
  }
}

inline void compact_rows(const int32_t* pad, int64_t stride, const int64_t* offsets, int32_t* nbr,
                         int64_t n, void* stream) {
  if (n <= 0) return;
  constexpr int kThreads = 256;
  const int64_t threads = (n + 31) / 32 * 32;
  const unsigned blocks = static_cast<unsigned>((threads + kThreads - 1) / kThreads);
  compact_rows_kernel<<<blocks, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(pad, stride,
                                                                                  offsets, nbr, n);
  check_launch("Verlet list compaction");
}

#endif

}  // namespace pvec::impl
