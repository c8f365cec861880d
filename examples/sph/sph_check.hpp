// sph_check.hpp -- the geometry, the initial sites and the self-checks of the SPH dam break.
//
// Host code only. Every particle's initial state is a function of its global id, so the same
// system starts at any number of ranks, and the checks at the end can recompute what a wall
// particle's position must still be.
#ifndef SPH_CHECK_HPP
#define SPH_CHECK_HPP

#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <cstring>

namespace sph {

/// The tank, in lattice units of the particle spacing dp (units of a = 1 m otherwise). The water
/// column is a wide (x), width wide (y, 3D only, periodic) and 2a high (the last dimension),
/// against the wall at x = 0: Martin & Moyce's column of height n^2 a with n^2 = 2. The tank is
/// 5a long with 3 layers of wall particles under the floor and behind both end walls (the
/// kernel's support is 2h = 2.6 dp), end walls 3a high, the top open.
struct Geometry {
  int dim = 3;
  double a = 1.0;       ///< column width [m]
  double dp = 0;        ///< particle spacing: a / na
  std::int64_t na = 0;  ///< particles across the column
  std::int64_t ny = 1;  ///< particles across the periodic width (3D), 1 in 2D
  std::int64_t nx_tank = 0, nz_wall = 0;
  static const std::int64_t kLayers = 3;
  std::int64_t n_fluid = 0, n_floor = 0, n_end = 0;

  Geometry(int d, double spacing, double width, double ghost_width_over_dp) : dim(d) {
    na = static_cast<std::int64_t>(std::llround(a / spacing));
    if (na < 1) na = 1;
    dp = a / static_cast<double>(na);
    if (dim == 3) {
      // At least twice the list's reach across the period, so no particle meets two images of
      // one neighbour (a list in key order would hold the same id twice).
      const auto least = static_cast<std::int64_t>(std::ceil(2 * ghost_width_over_dp)) + 1;
      ny = std::llround(width * a / dp);
      if (ny < least) ny = least;
    }
    nx_tank = 5 * na;
    nz_wall = 3 * na;
    n_fluid = na * 2 * na * ny;
    n_floor = kLayers * (nx_tank + 2 * kLayers) * ny;
    n_end = 2 * kLayers * nz_wall * ny;
  }
  std::int64_t n_total() const { return n_fluid + n_floor + n_end; }
  double width() const { return static_cast<double>(ny) * dp; }
  double tank_length() const { return static_cast<double>(nx_tank) * dp; }

  /// Site of particle g: its type and position (dim values), lattice points (i + 1/2) dp.
  int site(std::int64_t g, double* x) const {
    std::int64_t i, j, k;  // x, y, vertical lattice indices (negative: below/behind a wall)
    int type = 0;
    if (g < n_fluid) {
      k = g % (2 * na);
      j = (g / (2 * na)) % ny;
      i = g / (2 * na * ny);
    } else if (g < n_fluid + n_floor) {
      const std::int64_t r = g - n_fluid;
      j = r % ny;
      i = (r / ny) % (nx_tank + 2 * kLayers) - kLayers;
      k = -1 - r / (ny * (nx_tank + 2 * kLayers));
      type = 1;
    } else {
      const std::int64_t r = g - n_fluid - n_floor;
      j = r % ny;
      k = (r / ny) % nz_wall;
      const std::int64_t layer = (r / (ny * nz_wall)) % kLayers,
                         side = r / (ny * nz_wall * kLayers);
      i = side == 0 ? -1 - layer : nx_tank + layer;
      type = 1;
    }
    x[0] = (static_cast<double>(i) + 0.5) * dp;
    if (dim == 3) x[1] = (static_cast<double>(j) + 0.5) * dp;
    x[dim - 1] = (static_cast<double>(k) + 0.5) * dp;
    return type;
  }
};

/// Martin, J. C. and Moyce, W. J. (1952), "Part IV. An experimental study of the collapse of
/// liquid columns on a rigid horizontal plane", Phil. Trans. R. Soc. Lond. A 244, 312-324,
/// doi:10.1098/rsta.1952.0006, Table 2: the surge front of the column of n^2 = 2, a = 2 1/4 in,
/// Z = z/a (z: the front's distance from the back wall; the front was timed as it passed marks
/// 1/2 in apart, so Z steps by 2/9) against T = n t sqrt(g/a) = t sqrt(2g/a). The values as the
/// SPH/MPS and VOF literature tabulates them (e.g. Koshizuka & Oka 1996, Nucl. Sci. Eng. 123,
/// 421-434, Fig. 6 compares with them).
struct MMPoint {
  double T, Z;
};
static const MMPoint kMartinMoyce[] = {{0.41, 1.11}, {0.84, 1.22}, {1.19, 1.44}, {1.43, 1.67},
                                       {1.63, 1.89}, {1.83, 2.11}, {1.98, 2.33}, {2.20, 2.56},
                                       {2.32, 2.78}, {2.51, 3.00}, {2.65, 3.22}, {2.83, 3.44},
                                       {2.98, 3.67}, {3.11, 3.89}, {3.33, 4.11}};
static const int kMartinMoyceCount = sizeof(kMartinMoyce) / sizeof(kMartinMoyce[0]);

/// The simulation's surge front Z at times T (the first step at or after T_k of the data points
/// k in [first, first + count)) against the data.
struct FrontFit {
  double worst = 0;  ///< largest |Z - Z_MM| / Z_MM
  double lead = 0;   ///< mean of T_k minus the time the simulated front reached Z_k
  int reached = 0;   ///< points whose Z_k the simulated front passed between two samples
};
inline FrontFit compare_front(const double* T, const double* Z, int first, int count) {
  FrontFit f;
  for (int k = first; k < first + count; ++k) {
    const MMPoint& m = kMartinMoyce[k];
    f.worst = std::fmax(f.worst, std::fabs(Z[k] - m.Z) / m.Z);
    for (int j = first; j + 1 < first + count; ++j)  // when it reached m.Z, interpolated
      if (Z[j] <= m.Z && m.Z < Z[j + 1]) {
        f.lead += m.T - (T[j] + (m.Z - Z[j]) / (Z[j + 1] - Z[j]) * (T[j + 1] - T[j]));
        ++f.reached;
        break;
      }
  }
  if (f.reached > 0) f.lead /= f.reached;
  return f;
}

/// splitmix64's finaliser: a bijective mix of 64 bits.
inline std::uint64_t mix64(std::uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

template <class T>
std::uint64_t bits_of(T v) {
  if (sizeof(T) == 4) {
    std::uint32_t b;
    std::memcpy(&b, &v, 4);
    return b;
  }
  std::uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

/// What the final state is, summed over the ranks (host mirror arrays, pvec's layout).
struct Summary {
  std::int64_t n = 0, n_fluid = 0, n_wall = 0;
  std::uint64_t id_sum = 0, id_xor = 0;  ///< wrapping sum and xor of the ids
  std::uint64_t hash = 0;                ///< wrapping sum of each particle's mixed state
  std::int64_t walls_moved = 0;          ///< wall particles not bitwise at their site
  double rho_min = 0, rho_max = 0;       ///< over fluid particles
  std::int64_t not_finite = 0;           ///< fluid particles with a NaN or Inf
};

/// Hash of one particle: its id mixed with the bit patterns of its position, velocity and
/// density, so that the sum over particles is independent of their order and of the ranks
/// that hold them, and any bit that changes anywhere changes it.
template <class T>
Summary summarize(const Geometry& geo, const std::int32_t* type, const std::int64_t* id, const T* x,
                  const T* v, const T* rho, std::int64_t cap, std::int64_t n, MPI_Comm comm) {
  const int D = geo.dim;
  Summary s;
  std::int64_t counts[5] = {n, 0, 0, 0, 0};  // n, fluid, wall, walls moved, not finite
  std::uint64_t id_sum = 0, id_xor = 0, hash = 0;
  double rmin = 1e300, rmax = -1e300;
  for (std::int64_t i = 0; i < n; ++i) {
    const auto g = static_cast<std::uint64_t>(id[i]);
    id_sum += g;
    id_xor ^= g;
    std::uint64_t h = mix64(g);
    bool finite = std::isfinite(static_cast<double>(rho[i]));
    for (int d = 0; d < D; ++d) {
      h = mix64(h ^ bits_of(x[d * cap + i]));
      h = mix64(h ^ bits_of(v[d * cap + i]));
      finite = finite && std::isfinite(static_cast<double>(x[d * cap + i])) &&
               std::isfinite(static_cast<double>(v[d * cap + i]));
    }
    hash += mix64(h ^ bits_of(rho[i]));
    if (type[i] == 0) {
      ++counts[1];
      if (!finite) ++counts[4];
      rmin = std::fmin(rmin, static_cast<double>(rho[i]));
      rmax = std::fmax(rmax, static_cast<double>(rho[i]));
    } else {
      ++counts[2];
      double site[3];
      geo.site(id[i], site);
      bool same = true;
      for (int d = 0; d < D; ++d)
        same = same && x[d * cap + i] == static_cast<T>(site[d]) && v[d * cap + i] == T(0);
      if (!same) ++counts[3];
    }
  }
  std::int64_t total[5];
  MPI_Allreduce(counts, total, 5, MPI_INT64_T, MPI_SUM, comm);
  MPI_Allreduce(&id_sum, &s.id_sum, 1, MPI_UINT64_T, MPI_SUM, comm);
  MPI_Allreduce(&id_xor, &s.id_xor, 1, MPI_UINT64_T, MPI_BXOR, comm);
  MPI_Allreduce(&hash, &s.hash, 1, MPI_UINT64_T, MPI_SUM, comm);
  MPI_Allreduce(&rmin, &s.rho_min, 1, MPI_DOUBLE, MPI_MIN, comm);
  MPI_Allreduce(&rmax, &s.rho_max, 1, MPI_DOUBLE, MPI_MAX, comm);
  s.n = total[0];
  s.n_fluid = total[1];
  s.n_wall = total[2];
  s.walls_moved = total[3];
  s.not_finite = total[4];
  return s;
}

/// The expected sum and xor of the ids 0 .. n-1.
inline std::uint64_t id_sum_expected(std::int64_t n) {
  const auto u = static_cast<std::uint64_t>(n);
  return u % 2 == 0 ? (u / 2) * (u - 1) : u * ((u - 1) / 2);
}
inline std::uint64_t id_xor_expected(std::int64_t n) {
  if (n <= 0) return 0;
  const auto k = static_cast<std::uint64_t>(n - 1);  // xor of 0 .. k
  switch (k % 4) {
    case 0:
      return k;
    case 1:
      return 1;
    case 2:
      return k + 1;
    default:
      return 0;
  }
}

}  // namespace sph

#endif  // SPH_CHECK_HPP
