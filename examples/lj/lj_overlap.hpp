// lj_overlap.hpp -- the LJ example's forces in two passes, so that the first overlaps the
// ghost exchange.
//
// A plan-replay ghost_get moves only the ghosts' positions, and a pair of two local particles
// needs none of them: the interior pass computes those pairs between pvec_ghost_get_begin and
// pvec_ghost_get_end, the boundary pass the pairs with a ghost after end, over the rows that
// have one. After each rebuild SplitList copies the list with every row's local neighbours
// first, so that each pass reads only its own entries. Each pair is computed once, as in the
// single pass; only the order in which a particle's pair forces are summed differs.
#ifndef LJ_OVERLAP_HPP
#define LJ_OVERLAP_HPP

#include "lj_kernels.hpp"

#if defined(__CUDACC__)
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>
#endif

#include <cstdint>
#include <vector>

namespace lj {

/// A Verlet list's rows with their local neighbours first: row i's entries
/// [offsets[i], split[i]) are local particles (j < n_local), [split[i], offsets[i+1]) ghosts.
struct SplitView {
  const std::int64_t* offsets;    ///< the list's row offsets
  const std::int32_t* neighbors;  ///< the list's entries, partitioned
  const std::int64_t* split;      ///< per row: the first ghost entry
};

/// Writes row i of list partitioned (locals first, each part in the list's order); the host
/// loop's form (partition_rows on the GPU).
struct Partition {
  pvec::verlet_view list;
  std::int64_t n_local;
  std::int32_t* out;
  std::int64_t* split;
  PVEC_HOST_DEVICE void operator()(std::int64_t i) const {
    std::int64_t k = list.begin(i);
    for (std::int64_t e = list.begin(i); e < list.end(i); ++e)
      if (list[e] < n_local) out[k++] = list[e];
    split[i] = k;
    for (std::int64_t e = list.begin(i); e < list.end(i); ++e)
      if (list[e] >= n_local) out[k++] = list[e];
  }
};

#if defined(__CUDACC__)
/// Partition on the GPU: a warp per row, reading the row 32 entries at a time (coalesced; a
/// thread per row reads 32 rows' entries far apart), each part placed by a ballot.
__global__ void partition_rows(pvec::verlet_view list, std::int64_t n_local, std::int32_t* out,
                               std::int64_t* split) {
  const int lane = static_cast<int>(threadIdx.x & 31u);
  const std::int64_t row = (blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x) / 32;
  if (row >= list.n) return;  // the whole warp: all its lanes have the same row
  const unsigned below = (1u << lane) - 1u;
  const std::int64_t b = list.begin(row), e = list.end(row);
  std::int64_t k = b;
  for (int ghosts = 0; ghosts < 2; ++ghosts) {
    if (ghosts && lane == 0) split[row] = k;
    for (std::int64_t base = b; base < e; base += 32) {
      const std::int64_t at = base + lane;
      const std::int32_t j = at < e ? list[at] : 0;
      const bool mine = at < e && (j >= n_local) == (ghosts != 0);
      const unsigned m = __ballot_sync(0xffffffffu, mine);
      if (mine) out[k + __popc(m & below)] = j;
      k += __popc(m);
    }
  }
}
#endif

/// Does row i have a ghost neighbour?
struct HasGhost {
  SplitView v;
  PVEC_HOST_DEVICE bool operator()(std::int32_t i) const { return v.split[i] < v.offsets[i + 1]; }
};

/// One pass of the LJ forces on local rows. Interior (Boundary = false): every local row
/// k = i, its local neighbours. Boundary: the rows rows[k] (those with a ghost neighbour),
/// their ghost neighbours. Half list: f added to i and -f to j, as Force does, so the forces
/// of the local rows are zeroed before the interior pass and the ghosts' before the boundary
/// pass. Full list: the interior pass sets f and the energy, the boundary pass adds to them.
template <class T, bool Half, bool Boundary>
struct ForcePart {
  Columns<T> s;
  SplitView list;
  Potential pot;
  const std::int32_t* rows;  ///< Boundary: the rows to visit; unused otherwise
  PVEC_HOST_DEVICE void operator()(std::int64_t k) const {
    const std::int64_t i = Boundary ? rows[k] : k;
    const std::int64_t C = s.cap;
    const std::int64_t e0 = Boundary ? list.split[i] : list.offsets[i];
    const std::int64_t e1 = Boundary ? list.offsets[i + 1] : list.split[i];
    const PairSum<T, Half> p(s, pot, i, list.neighbors, e0, e1);
    const T fx = p.fx, fy = p.fy, fz = p.fz;
    const double u = p.u;
    if (Half) {
      add_to(&s.f[i], fx);
      add_to(&s.f[C + i], fy);
      add_to(&s.f[2 * C + i], fz);
      s.epot[i] = Boundary ? s.epot[i] + u : u;
    } else if (Boundary) {  // one thread per row: nobody else writes row i
      s.f[i] += fx;
      s.f[C + i] += fy;
      s.f[2 * C + i] += fz;
      s.epot[i] += 0.5 * u;
    } else {
      s.f[i] = fx;
      s.f[C + i] = fy;
      s.f[2 * C + i] = fz;
      s.epot[i] = 0.5 * u;
    }
  }
};

/// The example's partitioned copy of a Verlet list and the rows that have a ghost neighbour
/// (in increasing order), in the memory the kernels run on (device memory with the CUDA
/// backend). Made again after every list build (update), valid until the next.
class SplitList {
 public:
  SplitList() = default;
  SplitList(const SplitList&) = delete;
  SplitList& operator=(const SplitList&) = delete;
  ~SplitList() {
#if defined(__CUDACC__)
    for (void* p : {static_cast<void*>(nbr_d_), static_cast<void*>(split_d_),
                    static_cast<void*>(rows_d_), temp_})
      if (p) cudaFree(p);
#endif
  }

  /// list: the new list; pairs: its entry count (pvec_verlet_info.n_pairs, so that no copy
  /// from the device is needed to size the partitioned copy).
  void update(bool gpu, const pvec::verlet_view& list, std::int64_t pairs, std::int64_t n_local) {
#if defined(__CUDACC__)
    if (gpu) {
      grow(&nbr_d_, &nbr_cap_, pairs);
      grow(&split_d_, &split_cap_, list.n);
      grow(&rows_d_, &rows_cap_, list.n + 2);  // the count lives in the last 8 bytes
      view_ = {list.offsets, nbr_d_, split_d_};
      if (list.n > 0) {
        const int threads = 256;
        const std::int64_t blocks = (32 * list.n + threads - 1) / threads;
        partition_rows<<<static_cast<unsigned>(blocks), threads>>>(list, n_local, nbr_d_, split_d_);
        cuda_check(cudaGetLastError(), "partition_rows launch");
      }
      auto* count = reinterpret_cast<std::int64_t*>(rows_d_ + rows_cap_ - 2);
      thrust::counting_iterator<std::int32_t> first(0);
      std::size_t bytes = 0;
      const HasGhost pred{view_};
      cuda_check(cub::DeviceSelect::If(nullptr, bytes, first, rows_d_, count, list.n, pred),
                 "DeviceSelect::If (size)");
      if (bytes > temp_bytes_) {
        if (temp_) cuda_check(cudaFree(temp_), "cudaFree");
        cuda_check(cudaMalloc(&temp_, bytes), "cudaMalloc");
        temp_bytes_ = bytes;
      }
      cuda_check(cub::DeviceSelect::If(temp_, bytes, first, rows_d_, count, list.n, pred),
                 "DeviceSelect::If");
      cuda_check(cudaMemcpy(&n_rows_, count, sizeof n_rows_, cudaMemcpyDeviceToHost), "cudaMemcpy");
      rows_ = rows_d_;
      return;
    }
#endif
    (void)gpu;
    nbr_h_.resize(static_cast<std::size_t>(pairs));
    split_h_.resize(static_cast<std::size_t>(list.n));
    view_ = {list.offsets, nbr_h_.data(), split_h_.data()};
    for_each(false, list.n, Partition{list, n_local, nbr_h_.data(), split_h_.data()});
    rows_h_.clear();
    const HasGhost pred{view_};
    for (std::int64_t i = 0; i < list.n; ++i)
      if (pred(static_cast<std::int32_t>(i))) rows_h_.push_back(static_cast<std::int32_t>(i));
    n_rows_ = static_cast<std::int64_t>(rows_h_.size());
    rows_ = rows_h_.data();
  }

  const SplitView& view() const { return view_; }
  const std::int32_t* rows() const { return rows_; }
  std::int64_t n_rows() const { return n_rows_; }

 private:
#if defined(__CUDACC__)
  template <class U>
  static void grow(U** p, std::int64_t* cap, std::int64_t n) {
    if (n <= *cap && *p) return;
    if (*p) cuda_check(cudaFree(*p), "cudaFree");
    *cap = (n + n / 4 + 65) / 2 * 2;  // even: 8-byte alignment of what follows int32 rows
    cuda_check(cudaMalloc(p, sizeof(U) * static_cast<std::size_t>(*cap)), "cudaMalloc");
  }
  std::int32_t* nbr_d_ = nullptr;
  std::int64_t* split_d_ = nullptr;
  std::int32_t* rows_d_ = nullptr;
  std::int64_t nbr_cap_ = 0, split_cap_ = 0, rows_cap_ = 0;
  void* temp_ = nullptr;
  std::size_t temp_bytes_ = 0;
#endif
  std::vector<std::int32_t> nbr_h_, rows_h_;
  std::vector<std::int64_t> split_h_;
  SplitView view_{nullptr, nullptr, nullptr};
  const std::int32_t* rows_ = nullptr;
  std::int64_t n_rows_ = 0;
};

}  // namespace lj

#endif  // LJ_OVERLAP_HPP
