// Distributed demo: particles drifting through a periodic 3D box. Each step runs a plain
// CUDA kernel on the raw device pointers pvec hands out, then pvec_map sends every particle
// to the rank owning its new position and pvec_ghost_get refreshes the halo, all on the
// GPU. Per-rank counts change; the global checksums (count, sum of ids, total mass) must
// not. Without a GPU the same step runs on the host mirrors, so the demo runs anywhere.
//
//   mpirun -np 2 ./distributed_cuda [particles] [steps]
#include <pvec.h>

#include <mpi.h>
#include <cuda_runtime.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                      \
  do {                                                                   \
    pvec_status s_ = (call);                                             \
    if (s_ != PVEC_SUCCESS) {                                            \
      std::fprintf(stderr, "%s failed: %s\n", #call, pvec_last_error()); \
      MPI_Abort(MPI_COMM_WORLD, 1);                                      \
    }                                                                    \
  } while (0)

// One drift step for particle p: x += v*dt. Positions and velocity are vector[3]: component
// c of particle p sits at base[c*capacity + p].
__host__ __device__ inline void drift_one(int64_t p, double* pos, const double* vel,
                                          int64_t capacity, double dt) {
  for (int c = 0; c < 3; ++c) pos[c * capacity + p] += vel[c * capacity + p] * dt;
}

__global__ void drift(double* pos, const double* vel, int64_t capacity, int64_t n, double dt) {
  int64_t p = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (p < n) drift_one(p, pos, vel, capacity, dt);
}

int main(int argc, char** argv) {
  CHECK(pvec_init(&argc, &argv));
  const int64_t n_global = argc > 1 ? std::atoll(argv[1]) : 100000;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 10;
  int ndev = 0;
  CHECK(pvec_cuda_device_count(&ndev));

  pvec_schema_t schema;
  int p_id, p_vel, p_mass;
  CHECK(pvec_schema_create(&schema));
  CHECK(pvec_schema_add_scalar(schema, "id", PVEC_INT64, &p_id));
  CHECK(pvec_schema_add_vector(schema, "velocity", PVEC_FLOAT64, 3, &p_vel));
  CHECK(pvec_schema_add_scalar(schema, "mass", PVEC_FLOAT64, &p_mass));

  pvec_vector_desc desc = PVEC_VECTOR_DESC_INIT;
  desc.dim = 3;
  desc.pos_dtype = PVEC_FLOAT64;
  for (int d = 0; d < 3; ++d) desc.boundary[d] = PVEC_PERIODIC;  // box [0,1)^3
  desc.ghost_width = 0.05;
  desc.n_particles = n_global;  // split evenly over the ranks
  pvec_vector_t vec;
  CHECK(pvec_vector_create(&desc, schema, &vec));
  CHECK(pvec_schema_destroy(schema));

  int rank, size;
  CHECK(pvec_vector_get_rank(vec, &rank));
  CHECK(pvec_vector_get_nranks(vec, &size));
  pvec_backend backend;
  CHECK(pvec_vector_get_backend(vec, &backend));
  const bool gpu = backend == PVEC_BACKEND_CUDA;
  if (rank == 0)
    std::printf("%d rank(s), %" PRId64 " particles, %s\n", size, n_global,
                gpu ? "steps run on the GPU" : "no CUDA device: steps run on the host mirrors");

  // Initial state on the host: ids continue across ranks, positions and velocities random.
  int64_t n, cap, first_id = 0, local = 0;
  CHECK(pvec_vector_get_size(vec, &n));
  CHECK(pvec_vector_get_capacity(vec, &cap));
  local = n;
  MPI_Exscan(&local, &first_id, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) first_id = 0;
  double* pos = static_cast<double*>(pvec_host_ptr(vec, PVEC_POS));
  double* vel = static_cast<double*>(pvec_host_ptr(vec, p_vel));
  int64_t* id = static_cast<int64_t*>(pvec_host_ptr(vec, p_id));
  double* mass = static_cast<double*>(pvec_host_ptr(vec, p_mass));
  std::srand(1234u + rank);
  for (int64_t i = 0; i < n; ++i) {
    id[i] = first_id + i;
    mass[i] = 0.25 * (1 + id[i] % 7);  // exact in binary: sums do not depend on order
    for (int c = 0; c < 3; ++c) {
      pos[c * cap + i] = std::rand() / (RAND_MAX + 1.0);
      vel[c * cap + i] = 2.0 * std::rand() / (RAND_MAX + 1.0) - 1.0;
    }
  }
  CHECK(pvec_map(vec, 0, nullptr));  // each particle to its owner before the steps start
  if (gpu) CHECK(pvec_host_to_device(vec, nullptr, 0));
  const unsigned on = gpu ? PVEC_ON_DEVICE : 0u;

  int64_t first_sums[2] = {0, 0};
  double first_mass = 0;
  bool constant = true;
  for (int step = 0; step <= steps; ++step) {
    if (step > 0) {
      CHECK(pvec_vector_get_size(vec, &n));
      CHECK(pvec_vector_get_capacity(vec, &cap));
      if (gpu) {
        double* dpos = static_cast<double*>(pvec_device_ptr(vec, PVEC_POS));
        const double* dvel = static_cast<const double*>(pvec_device_ptr(vec, p_vel));
        int threads = 256;
        unsigned blocks = static_cast<unsigned>((n + threads - 1) / threads);
        if (n > 0) drift<<<blocks, threads>>>(dpos, dvel, cap, n, 0.02);
        if (cudaDeviceSynchronize() != cudaSuccess) MPI_Abort(MPI_COMM_WORLD, 2);
      } else {
        double* hpos = static_cast<double*>(pvec_host_ptr(vec, PVEC_POS));
        const double* hvel = static_cast<const double*>(pvec_host_ptr(vec, p_vel));
        for (int64_t p = 0; p < n; ++p) drift_one(p, hpos, hvel, cap, 0.02);
      }
      CHECK(pvec_map(vec, on, nullptr));
      CHECK(pvec_ghost_get(vec, nullptr, 0, on));
    }
    // Checksums from the live data (copied back from the GPU when it holds them).
    if (gpu) CHECK(pvec_device_to_host(vec, nullptr, 0));
    int64_t ghosts;
    CHECK(pvec_vector_get_size(vec, &n));
    CHECK(pvec_vector_get_ghost_size(vec, &ghosts));
    id = static_cast<int64_t*>(pvec_host_ptr(vec, p_id));
    mass = static_cast<double*>(pvec_host_ptr(vec, p_mass));
    int64_t sums[2] = {n, 0};
    double m = 0;
    for (int64_t i = 0; i < n; ++i) {
      sums[1] += id[i];
      m += mass[i];
    }
    int64_t g_sums[2];
    double g_mass;
    MPI_Reduce(sums, g_sums, 2, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&m, &g_mass, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    std::vector<int64_t> counts(size);
    MPI_Gather(&n, 1, MPI_INT64_T, counts.data(), 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
    int64_t g_ghosts = 0;
    MPI_Reduce(&ghosts, &g_ghosts, 1, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      if (step == 0) {
        first_sums[0] = g_sums[0];
        first_sums[1] = g_sums[1];
        first_mass = g_mass;
      }
      constant = constant && g_sums[0] == first_sums[0] && g_sums[1] == first_sums[1] &&
                 g_mass == first_mass;
      std::printf("step %2d  per-rank particles:", step);
      for (int r = 0; r < size; ++r) std::printf(" %" PRId64, counts[r]);
      std::printf("  ghosts %" PRId64 "  | checksum: count %" PRId64 " id-sum %" PRId64
                  " mass %.2f\n",
                  g_ghosts, g_sums[0], g_sums[1], g_mass);
    }
  }
  int ok = constant ? 1 : 0;
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0)
    std::printf(ok ? "checksum constant over %d steps\n" : "CHECKSUM CHANGED over %d steps\n",
                steps);
  CHECK(pvec_vector_destroy(vec));
  CHECK(pvec_finalize());
  return ok ? 0 : 1;
}
