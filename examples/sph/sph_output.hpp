// sph_output.hpp -- what the SPH dam break writes beside its VTK output: each rank's box.
#ifndef SPH_OUTPUT_HPP
#define SPH_OUTPUT_HPP

#include <pvec.h>

#include <mpi.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace sph {

/// PREFIX_<step>_boxes.csv (rank 0 writes it): every rank's subdomain
/// (pvec_vector_get_subdomain), one line per rank, for scripts/draw_decomposition.py.
/// Collective over MPI_COMM_WORLD. Returns false when a call fails (the file is then missing).
inline bool write_boxes(pvec_vector_t vec, const std::string& prefix, std::int64_t step) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double box[2 * PVEC_MAX_DIM] = {};
  const bool ok = pvec_vector_get_subdomain(vec, box, box + PVEC_MAX_DIM) == PVEC_SUCCESS;
  std::vector<double> all(static_cast<size_t>(size) * 2 * PVEC_MAX_DIM);
  MPI_Gather(box, 2 * PVEC_MAX_DIM, MPI_DOUBLE, all.data(), 2 * PVEC_MAX_DIM, MPI_DOUBLE, 0,
             MPI_COMM_WORLD);
  if (rank != 0) return ok;
  char name[64];
  std::snprintf(name, sizeof name, "_%06" PRId64 "_boxes.csv", step);
  std::FILE* f = std::fopen((prefix + name).c_str(), "w");
  if (f == nullptr) return false;
  std::fprintf(f, "rank,lo0,lo1,lo2,hi0,hi1,hi2\n");
  for (int r = 0; r < size; ++r) {
    const double* b = all.data() + static_cast<size_t>(r) * 2 * PVEC_MAX_DIM;
    std::fprintf(f, "%d,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", r, b[0], b[1], b[2],
                 b[PVEC_MAX_DIM], b[PVEC_MAX_DIM + 1], b[PVEC_MAX_DIM + 2]);
  }
  return std::fclose(f) == 0 && ok;
}

}  // namespace sph

#endif
