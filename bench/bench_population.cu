// Removal by mark and creation in kernels on the device (docs/population.md), each against a
// baseline measured in the same run:
//   remove  10% of N particles of 64 bytes (positions f64[3], velocity f64[3], rho f64, id i64)
//           marked at random, holes filled and order kept, against cudaMemcpy of the surviving
//           bytes once (the roofline of any compaction); the ratio is the target's figure.
//   spawn   a kernel in which each of K threads creates one particle (pvec::spawn_claim, writes
//           its position and id), then spawn_commit, against the same kernel claiming from a plain
//           counter into a plain array: the overhead beyond the kernel, and the time of the
//           spawn_commit call alone (after the kernel finished).
// Every pass is checked (the count, the ids); the marks are re-written before each repetition.
#include <pvec.hpp>

#include "bench_common.hpp"
#include "bench_cuda.cuh"

#include <cstdint>
#include <cstdio>
#include <vector>

namespace {

__global__ void mark_random(std::int32_t* mark, std::int64_t n, std::uint64_t salt) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  std::uint64_t x = static_cast<std::uint64_t>(i) * 0x9e3779b97f4a7c15ull + salt;
  x ^= x >> 31;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 29;
  mark[i] = (x % 10) == 0 ? 1 : 0;
}

__global__ void create(pvec_spawner s, double* pos, std::int64_t* id, std::int64_t k) {
  const std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= k) return;
  const std::int64_t row = pvec::spawn_claim(s);
  if (row < 0) return;
  for (int d = 0; d < 3; ++d) pos[d * s.capacity + row] = 0.5;
  id[row] = pvec::spawn_id(s, row);
}

// The baseline: the same claims and writes into plain arrays.
__global__ void create_plain(unsigned long long* counter, double* pos, std::int64_t* id,
                             std::int64_t cap, std::int64_t k) {
  const std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= k) return;
  const std::int64_t row = static_cast<std::int64_t>(atomicAdd(counter, 1ull));
  for (int d = 0; d < 3; ++d) pos[d * cap + row] = 0.5;
  id[row] = row;
}

unsigned blocks(std::int64_t n) { return static_cast<unsigned>((n + 255) / 256); }

}  // namespace

int main(int argc, char** argv) {
  bench::Args args(argc, argv,
                   "bench_population [--sizes N,...] [--spawn K] [--reps R] [--quick]\n");
  const bool quick = args.flag("--quick");
  const std::vector<std::int64_t> sizes =
      bench::pick_sizes(args, quick ? std::vector<std::int64_t>{1 << 16}
                                    : std::vector<std::int64_t>{10000000, 100000000});
  const std::int64_t spawn_k = args.count("--spawn", quick ? 1 << 14 : 10000000);
  const int reps = static_cast<int>(args.count("--reps", quick ? 2 : 5));
  args.finish();
  BENCH_PVEC(pvec_init(nullptr, nullptr));
  if (!bench::start_on_device()) return 0;
  std::printf("# bench_population on %s; ms, median of %d\n", bench::device_name().c_str(), reps);

  pvec::schema s;
  const int vel = s.add_vector<double>("vel", 3);
  const int rho = s.add_scalar<double>("rho");
  const int id = s.add_scalar<std::int64_t>("id");
  const int mark = s.add_scalar<std::int32_t>("mark");
  (void)vel, (void)rho;
  for (const std::int64_t n : sizes) {
    pvec::vector v(
        pvec::vector_desc().dim(3).particles(n, PVEC_PLACE_LOCAL).host_memory(PVEC_HOST_PAGEABLE),
        s);
    cudaStream_t st = nullptr;
    auto* m = static_cast<std::int32_t*>(pvec_device_ptr(v.get(), mark));
    // Baseline: cudaMemcpy of the surviving bytes (64 per particle) once.
    const std::int64_t kept = n - n / 10;
    const size_t bytes = static_cast<size_t>(kept) * 64;
    void *a = nullptr, *b = nullptr;
    BENCH_CUDA(cudaMalloc(&a, bytes));
    BENCH_CUDA(cudaMalloc(&b, bytes));
    const double t_copy = bench::median(bench::time_events(
        1, reps, [&] { BENCH_CUDA(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, st)); }));
    BENCH_CUDA(cudaFree(a));
    BENCH_CUDA(cudaFree(b));
    for (const bool fill : {true, false}) {
      std::vector<double> t;
      std::int64_t removed_total = 0, marked_total = 0;
      for (int r = 0; r < reps + 1; ++r) {
        v.resize(n);  // back to n particles (the removed rows are zero again)
        v.mark_modified({}, PVEC_ON_DEVICE);
        m = static_cast<std::int32_t*>(pvec_device_ptr(v.get(), mark));
        mark_random<<<blocks(n), 256>>>(m, n, 977u * static_cast<unsigned>(r));
        BENCH_CUDA(cudaDeviceSynchronize());
        std::int64_t marked = 0;
        BENCH_PVEC(pvec_vector_reduce(v.get(), mark, PVEC_REDUCE_ADD, PVEC_ON_DEVICE, &marked));
        const double t0 = bench::now_seconds();
        const std::int64_t removed =
            v.remove_marked(mark, PVEC_ON_DEVICE | (fill ? PVEC_REMOVE_FILL_HOLES : 0u));
        const double t1 = bench::now_seconds();
        if (removed != marked) bench::die("remove_marked removed a different count");
        if (r > 0) {
          t.push_back(t1 - t0);
          removed_total += removed;
          marked_total += marked;
        }
      }
      const double tm = bench::median(t);
      std::printf("remove %-10s N=%-10lld %8.3f ms  copy of the survivors %8.3f ms  ratio %.2f\n",
                  fill ? "fill-holes" : "keep-order", static_cast<long long>(n), tm * 1e3,
                  t_copy * 1e3, tm / t_copy);
      std::printf(
          "JSON {\"bench\":\"population\",\"name\":\"remove_%s\",\"n\":%lld,\"ms\":%.4f,"
          "\"copy_ms\":%.4f,\"ratio\":%.3f,\"removed\":%lld}\n",
          fill ? "fill_holes" : "keep_order", static_cast<long long>(n), tm * 1e3, t_copy * 1e3,
          tm / t_copy, static_cast<long long>(removed_total / reps));
      (void)marked_total;
    }
  }

  // Spawn: kernel + commit against the plain kernel.
  {
    pvec::vector v(pvec::vector_desc().dim(3).particles(0, PVEC_PLACE_LOCAL), s);
    v.ids_init(id, PVEC_ON_DEVICE);
    const std::int64_t k = spawn_k;
    unsigned long long* counter = nullptr;
    double* pos = nullptr;
    std::int64_t* ids = nullptr;
    const std::int64_t cap = (k + 63) / 64 * 64;
    BENCH_CUDA(cudaMalloc(&counter, sizeof *counter));
    BENCH_CUDA(cudaMalloc(&pos, 3 * sizeof(double) * cap));
    BENCH_CUDA(cudaMalloc(&ids, sizeof(std::int64_t) * cap));
    std::vector<double> plain, with, commit;
    for (int r = 0; r < reps + 1; ++r) {
      BENCH_CUDA(cudaMemset(counter, 0, sizeof *counter));
      BENCH_CUDA(cudaDeviceSynchronize());
      double t0 = bench::now_seconds();
      create_plain<<<blocks(k), 256>>>(counter, pos, ids, cap, k);
      BENCH_CUDA(cudaDeviceSynchronize());
      double t1 = bench::now_seconds();
      if (r > 0) plain.push_back(t1 - t0);
      v.resize(0);
      const pvec_spawner sp = v.spawn_begin(k, PVEC_ON_DEVICE);
      auto* p = static_cast<double*>(pvec_device_ptr(v.get(), PVEC_POS));
      auto* i = static_cast<std::int64_t*>(pvec_device_ptr(v.get(), id));
      t0 = bench::now_seconds();
      create<<<blocks(k), 256>>>(sp, p, i, k);
      BENCH_CUDA(cudaDeviceSynchronize());
      const double tk = bench::now_seconds();
      const std::int64_t added = v.spawn_commit();
      t1 = bench::now_seconds();
      if (added != k) bench::die("spawn_commit added a different count");
      if (r > 0) {
        with.push_back(t1 - t0);
        commit.push_back(t1 - tk);
      }
    }
    const double tp = bench::median(plain), tw = bench::median(with);
    const double tc = bench::median(commit);
    std::printf(
        "spawn  K=%-10lld kernel+commit %8.3f ms  plain kernel %8.3f ms  overhead %.1f us"
        "  (the commit alone %.1f us)\n",
        static_cast<long long>(k), tw * 1e3, tp * 1e3, (tw - tp) * 1e6, tc * 1e6);
    std::printf(
        "JSON {\"bench\":\"population\",\"name\":\"spawn\",\"k\":%lld,\"ms\":%.4f,"
        "\"plain_ms\":%.4f,\"overhead_us\":%.1f,\"commit_us\":%.1f}\n",
        static_cast<long long>(k), tw * 1e3, tp * 1e3, (tw - tp) * 1e6, tc * 1e6);
    BENCH_CUDA(cudaFree(counter));
    BENCH_CUDA(cudaFree(pos));
    BENCH_CUDA(cudaFree(ids));
  }
  pvec_finalize();
  return 0;
}
