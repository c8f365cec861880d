#include "test_support.hpp"

#include <cstdio>
#include <cstdlib>

#ifdef PVEC_TEST_HAVE_MPI
#include <mpi.h>
#endif

namespace pvec_test {

int skip_code() {
#ifdef PVEC_TEST_NEEDS_GPU
  int count = 0;
  if (pvec_cuda_device_count(&count) != PVEC_SUCCESS || count == 0) {
    if (world_rank() == 0)
      std::printf("SKIPPED: this test needs a CUDA device and none is usable here\n");
    return 77;
  }
#endif
  return 0;
}

int all_ranks_max(int v) {
#ifdef PVEC_TEST_HAVE_MPI
  int out = v;
  MPI_Allreduce(&v, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return out;
#else
  return v;
#endif
}

int world_rank() {
#ifdef PVEC_TEST_HAVE_MPI
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
#else
  return 0;
#endif
}

int world_size() {
#ifdef PVEC_TEST_HAVE_MPI
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
#else
  return 1;
#endif
}

bool light() { return std::getenv("PVEC_TEST_LIGHT") != nullptr; }

}  // namespace pvec_test
