#include "runtime/environment.hpp"

#include "backend/device.hpp"
#include "common/error.hpp"
#include "runtime/options.hpp"

#include <cstdlib>
#include <string>

#ifdef PVEC_HAVE_MPI
#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif
#endif

namespace pvec::impl {
namespace {
bool g_initialized = false;
bool g_finalized = false;
bool g_owns_mpi = false;

// Node-local rank, for choosing one GPU per rank.
int local_rank() {
#ifdef PVEC_HAVE_MPI
  MPI_Comm node;
  if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) ==
      MPI_SUCCESS) {
    int r = 0;
    MPI_Comm_rank(node, &r);
    MPI_Comm_free(&node);
    return r;
  }
#endif
  for (const char* var :
       {"OMPI_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID"})
    if (const char* v = std::getenv(var)) return std::atoi(v);
  return 0;
}
}  // namespace

void environment_init(int* argc, char*** argv) {
  if (g_finalized) fail(PVEC_ERROR_STATE, "pvec_init after pvec_finalize");
  if (g_initialized) return;
  options_read_environment();  // first: a malformed option fails before MPI starts
#ifdef PVEC_HAVE_MPI
  int mpi_init = 0, mpi_fin = 0;
  MPI_Initialized(&mpi_init);
  MPI_Finalized(&mpi_fin);
  if (mpi_fin) fail(PVEC_ERROR_STATE, "MPI has already been finalised");
  if (!mpi_init) {
    int provided = 0;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
      fail(PVEC_ERROR_MPI, "MPI_Init_thread failed");
    g_owns_mpi = true;
  }
#else
  (void)argc;
  (void)argv;
#endif
  int ndev = device_count();
  if (ndev > 0) {
    const int chosen = option_value(Option::device);
    if (chosen >= ndev)
      fail(PVEC_ERROR_INVALID_ARGUMENT, "PVEC_DEVICE=", chosen, " but ", ndev, " devices exist");
    device_select(chosen >= 0 ? chosen : local_rank() % ndev);
  }
  g_initialized = true;
}

void environment_finalize() {
  if (!g_initialized) fail(PVEC_ERROR_STATE, "pvec_finalize without pvec_init");
#ifdef PVEC_HAVE_MPI
  if (g_owns_mpi) {
    int fin = 0;
    MPI_Finalized(&fin);
    if (!fin) MPI_Finalize();
  }
#endif
  g_initialized = false;
  g_finalized = true;
}

bool environment_initialized() { return g_initialized; }

bool mpi_usable() {
#ifdef PVEC_HAVE_MPI
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  return init && !fin;
#else
  return g_initialized;
#endif
}

bool mpi_cuda_aware() {
#if defined(PVEC_HAVE_MPI) && defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  const int v = option_value(Option::mpi_cuda_aware);
  return v >= 0 ? v == 1 : MPIX_Query_cuda_support() == 1;
#else
  return false;  // no run-time query available: stage through host memory
#endif
}

bool ipc_enabled() { return option_on(Option::ipc); }

bool shm_enabled() { return option_on(Option::shm); }

}  // namespace pvec::impl
