// pvec_neighbors_view.hpp -- by-value kernel views of pvec's cell lists and Verlet lists.
//
// pvec_cell_list_get_info and pvec_verlet_get_info (pvec.h, section 10) fill plain C structs with
// the arrays of a neighbour structure; these views are the same data as trivially copyable C++
// structs with host/device methods, passed by value into a __global__ kernel (or used in a
// host loop). pvec itself builds its lists with these very methods, so a user kernel that
// asks cell_of(x) gets the cell pvec put the particle in.
//
//   cell list   cell c = (c0, c1, c2) row-major, last dimension fastest:
//               c = (c0 * dims[1] + c1) * dims[2] + c2
//               particles of cell c: cell_particles[cell_offsets[c] .. cell_offsets[c+1])
//               (row indices into local + ghost rows; locals first, each part ascending)
//               locals of cell c: the first local_offsets[c+1] - local_offsets[c] of them;
//               sorted != 0: they are exactly rows local_offsets[c] .. local_offsets[c+1]-1
//   Verlet list neighbours of local particle i: neighbors[offsets[i] .. offsets[i+1])
//
// This header needs neither CUDA nor pvec.h (like pvec_view.hpp); the owning lists that fill
// the views are in pvec_neighbors.hpp. Views are only as valid as the list they came
// from: until the list is rebuilt or destroyed, and while the vector's rows are those the list
// was built on (pvec.h, section 10, "What invalidates a list").
#ifndef PVEC_NEIGHBORS_VIEW_HPP
#define PVEC_NEIGHBORS_VIEW_HPP

#include <pvec_view.hpp>

#include <cstdint>
#include <type_traits>

namespace pvec {

/// A cell list: a regular grid of cells over a rank's subdomain plus its ghost layer, and the
/// particles of each cell in CSR form. Members are public (an aggregate); treat them as
/// read-only.
struct cell_list_view {
  int dim;           ///< 1, 2 or 3
  int span;          ///< neighbour cells lie within +-span cells per dimension (cells of width >=
                     ///< cutoff/span)
  double origin[3];  ///< lower corner of cell (0, 0, 0)
  double width[3];   ///< cell widths (1 for unused dimensions)
  double inv_width[3];                 ///< 1 / width
  std::int64_t dims[3];                ///< cells per dimension (1 for unused dimensions)
  std::int64_t ncells;                 ///< dims[0] * dims[1] * dims[2]
  std::int64_t n_local;                ///< local particles of the vector when the list was built
  std::int64_t n_entries;              ///< particles in the list: n_local, or n_local + ghosts
  int sorted;                          ///< nonzero: local rows are in cell order (see above)
  const std::int32_t* cell_offsets;    ///< ncells + 1
  const std::int32_t* cell_particles;  ///< n_entries
  const std::int32_t* local_offsets;   ///< ncells + 1: exclusive scan of the local counts

  /// Cell coordinate along d of coordinate x, clamped to [0, dims[d]): particles a few ulp
  /// outside the grid (ghosts at the edge of the band) belong to the edge cell.
  PVEC_HOST_DEVICE std::int64_t coord(int d, double x) const {
    const double f = (x - origin[d]) * inv_width[d];
    if (!(f >= 0)) return 0;                                      // also NaN
    if (!(f < static_cast<double>(dims[d]))) return dims[d] - 1;  // also +Inf
    return static_cast<std::int64_t>(f);
  }
  /// Cell of a position (dim coordinates).
  template <class T>
  PVEC_HOST_DEVICE std::int64_t cell_of(const T* x) const {
    std::int64_t c = coord(0, static_cast<double>(x[0]));
    for (int d = 1; d < dim; ++d) c = c * dims[d] + coord(d, static_cast<double>(x[d]));
    return c;
  }
  /// Cell from coordinates.
  PVEC_HOST_DEVICE std::int64_t cell_at(const std::int64_t* cc) const {
    std::int64_t c = cc[0];
    for (int d = 1; d < dim; ++d) c = c * dims[d] + cc[d];
    return c;
  }
  /// First entry and one past the last entry of cell c in cell_particles.
  PVEC_HOST_DEVICE std::int32_t begin(std::int64_t c) const { return cell_offsets[c]; }
  PVEC_HOST_DEVICE std::int32_t end(std::int64_t c) const { return cell_offsets[c + 1]; }
  /// Local particles in cell c.
  PVEC_HOST_DEVICE std::int32_t local_count(std::int64_t c) const {
    return local_offsets[c + 1] - local_offsets[c];
  }

  /// Calls f(j) for every particle j (a row index) of the cells within +-span of the cell of
  /// position x: every particle closer to x than the cutoff the list was built for is among
  /// them. Includes the particle at x itself if it is in the list.
  template <class T, class F>
  PVEC_HOST_DEVICE void for_each_near(const T* x, F&& f) const {
    std::int64_t lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    for (int d = 0; d < dim; ++d) {
      const std::int64_t c = coord(d, static_cast<double>(x[d]));
      lo[d] = c - span < 0 ? 0 : c - span;
      hi[d] = c + span >= dims[d] ? dims[d] - 1 : c + span;
    }
    // The cells of one row along the last dimension are consecutive, and so are their
    // entries: one range per row.
    const int last = dim - 1;
    const std::int64_t a0 = dim == 3 ? lo[0] : 0, a1 = dim == 3 ? hi[0] : 0;
    const std::int64_t b0 = dim >= 2 ? lo[dim - 2] : 0, b1 = dim >= 2 ? hi[dim - 2] : 0;
    for (std::int64_t a = a0; a <= a1; ++a)
      for (std::int64_t b = b0; b <= b1; ++b) {
        const std::int64_t row = dim == 3 ? a * dims[1] + b : b;
        const std::int32_t e1 = cell_offsets[row * dims[last] + hi[last] + 1];
        for (std::int32_t e = cell_offsets[row * dims[last] + lo[last]]; e < e1; ++e)
          f(cell_particles[e]);
      }
  }
};

/// A Verlet list in CSR form: the neighbours of local particle i are
/// neighbors[offsets[i] .. offsets[i+1]), row indices into local + ghost rows.
struct verlet_view {
  std::int64_t n;                 ///< local particles with a list
  const std::int64_t* offsets;    ///< n + 1 (64-bit: pair counts may exceed 2^31)
  const std::int32_t* neighbors;  ///< offsets[n] entries
  int half;                       ///< nonzero: each pair once (see pvec.h, section 10)

  PVEC_HOST_DEVICE std::int64_t begin(std::int64_t i) const { return offsets[i]; }
  PVEC_HOST_DEVICE std::int64_t end(std::int64_t i) const { return offsets[i + 1]; }
  PVEC_HOST_DEVICE std::int64_t count(std::int64_t i) const { return offsets[i + 1] - offsets[i]; }
  PVEC_HOST_DEVICE std::int32_t operator[](std::int64_t e) const { return neighbors[e]; }
};

static_assert(std::is_trivially_copyable<cell_list_view>::value, "views travel by value");
static_assert(std::is_trivially_copyable<verlet_view>::value, "views travel by value");

}  // namespace pvec

#endif  // PVEC_NEIGHBORS_VIEW_HPP
