// lj_check.hpp -- the initial state and the brute-force force reference of the LJ example.
//
// Host code only. Every particle's initial position and velocity is a function of its global
// index, so the same system starts at any number of ranks.
#ifndef LJ_CHECK_HPP
#define LJ_CHECK_HPP

#include "lj_kernels.hpp"

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace lj {

/// A counter-based random number: uniform in [0, 1) from (index, stream), splitmix64.
inline double uniform(std::uint64_t index, std::uint64_t stream) {
  std::uint64_t z = index * 0x9E3779B97F4A7C15ull + stream * 0xD1B54A32D192ED03ull + 1;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-53;
}

/// Standard normal (Box-Muller) for component c of particle g.
inline double normal(std::uint64_t g, int c) {
  const double u1 = 1.0 - uniform(g, 2 * c + 1), u2 = uniform(g, 2 * c + 2);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

/// Particle g of an fcc lattice of `cells` unit cells of edge a per side, shifted by a/4 so
/// that no particle sits on a subdomain boundary, plus a uniform jitter of +-jitter per
/// coordinate (on a perfect lattice every force is zero and the force check would test
/// nothing).
inline void fcc_site(std::int64_t g, std::int64_t cells, double a, double jitter, double* x) {
  static const double basis[4][3] = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
  const std::int64_t cell = g / 4, b = g % 4;
  const std::int64_t ic[3] = {cell / (cells * cells), (cell / cells) % cells, cell % cells};
  for (int c = 0; c < 3; ++c)
    x[c] = (ic[c] + basis[b][c] + 0.25) * a +
           jitter * (2 * uniform(static_cast<std::uint64_t>(g), 10 + c) - 1);
}

/// Result of the step-0 comparison with the brute-force reference.
struct ForceCheck {
  std::int64_t checked = 0;  ///< particles compared, all ranks
  double max_rel = 0;        ///< max |f - f_ref| / max(|f_ref|, 1) over them
  double pe_rel = -1;        ///< |PE - PE_ref| / |PE_ref| when every particle was checked
};

/// Compares the forces of (a sample of) the local particles with a direct sum over every
/// particle of the run, minimum image in the periodic box of edge L. Host arrays, layout of
/// pvec (component stride cap). All positions are gathered to every rank, so this is for
/// checking, not for production sizes beyond ~10^6. pe is the run's total potential energy.
template <class T>
ForceCheck check_forces(const T* x, const T* f, std::int64_t cap, std::int64_t n,
                        std::int64_t n_total, double L, const Potential& pot, double pe,
                        MPI_Comm comm) {
  int size;
  MPI_Comm_size(comm, &size);
  std::vector<double> mine(3 * n);
  for (std::int64_t i = 0; i < n; ++i)
    for (int c = 0; c < 3; ++c) mine[3 * i + c] = static_cast<double>(x[c * cap + i]);
  std::vector<int> counts(size), displs(size);
  int n3 = static_cast<int>(3 * n);
  MPI_Allgather(&n3, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
  for (int r = 1; r < size; ++r) displs[r] = displs[r - 1] + counts[r - 1];
  std::vector<double> all(3 * n_total);
  MPI_Allgatherv(mine.data(), n3, MPI_DOUBLE, all.data(), counts.data(), displs.data(), MPI_DOUBLE,
                 comm);

  // Every particle up to 32768 in all; beyond, an even sample of ~256 per rank.
  const bool every = n_total <= 32768;
  const std::int64_t stride = every ? 1 : std::max<std::int64_t>(1, n / 256);
  ForceCheck out;
  double max_rel = 0, pe_ref = 0;
  std::int64_t checked = 0;
  for (std::int64_t i = 0; i < n; i += stride, ++checked) {
    double fr[3] = {0, 0, 0};
    for (std::int64_t j = 0; j < n_total; ++j) {
      double d[3], r2 = 0;
      for (int c = 0; c < 3; ++c) {
        d[c] = mine[3 * i + c] - all[3 * j + c];
        d[c] -= L * std::nearbyint(d[c] / L);
        r2 += d[c] * d[c];
      }
      if (r2 == 0 || r2 >= pot.rc2) continue;  // r2 == 0: the particle itself
      double f_over_r, u;
      lj_pair(r2, &f_over_r, &u);
      for (int c = 0; c < 3; ++c) fr[c] += f_over_r * d[c];
      pe_ref += 0.5 * (u - pot.shift);
    }
    double diff = 0, mag = 0;
    for (int c = 0; c < 3; ++c) {
      const double e = static_cast<double>(f[c * cap + i]) - fr[c];
      diff += e * e;
      mag += fr[c] * fr[c];
    }
    max_rel = std::max(max_rel, std::sqrt(diff) / std::max(std::sqrt(mag), 1.0));
  }
  MPI_Allreduce(&max_rel, &out.max_rel, 1, MPI_DOUBLE, MPI_MAX, comm);
  MPI_Allreduce(&checked, &out.checked, 1, MPI_INT64_T, MPI_SUM, comm);
  if (every) {
    double total = 0;
    MPI_Allreduce(&pe_ref, &total, 1, MPI_DOUBLE, MPI_SUM, comm);
    out.pe_rel = std::fabs(pe - total) / std::fabs(total);
  }
  return out;
}

}  // namespace lj

#endif  // LJ_CHECK_HPP
