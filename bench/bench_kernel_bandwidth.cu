// bench_kernel_bandwidth: does a user kernel on pvec data run as fast as on plain arrays?
//
// Two memory-bound kernels on a vector[3] property, f32 and f64:
//   axpy    y(i,c) += a * x(i,c) for c = 0..2     bytes = 3 components x (read x, read y,
//                                                          write y) = 9 n sizeof(T)
//   reduce  sum_i x(i,0)                           bytes = n sizeof(T) (the useful bytes)
// each through five data layouts, all measured in this run:
//   pvec_ptr   pvec_device_ptr + capacity arithmetic, p[c*capacity + i]
//   pvec_view  pvec::view<T> (include/pvec.hpp) passed by value, v(i, c)
//   raw_soa    one cudaMalloc per component (the baseline of every ratio)
//   aos        one cudaMalloc of struct {T v[3];}
//   memcpy     cudaMemcpy device-to-device of the bytes of one vector[3] property
//              (read + write counted), the practical roofline
// Timing: CUDA events around each launch, warm-up, median of --reps (>= 10).
// Every kernel's result is checked (axpy: every y element; reduce: the exact sum).
#include <pvec.hpp>

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_cuda.cuh"

namespace {

constexpr int kThreads = 256;

// ---- Accessors: one per layout, all with the same (i, c) interface -------------------------

template <class T>
struct PvecPtr {  // raw pointers from pvec_device_ptr, the layout law written out
  T* x;
  T* y;
  int64_t capacity;
  __device__ T& X(int64_t i, int c) const { return x[c * capacity + i]; }
  __device__ T& Y(int64_t i, int c) const { return y[c * capacity + i]; }
};

template <class T>
struct PvecView {  // the C++ kernel view
  pvec::view<T> x;
  pvec::view<T> y;
  __device__ T& X(int64_t i, int c) const { return x(i, c); }
  __device__ T& Y(int64_t i, int c) const { return y(i, c); }
};

template <class T>
struct RawSoA {  // three separate arrays per property
  T* x[3];
  T* y[3];
  __device__ T& X(int64_t i, int c) const { return x[c][i]; }
  __device__ T& Y(int64_t i, int c) const { return y[c][i]; }
};

template <class T>
struct Vec3 {
  T v[3];
};

template <class T>
struct AoS {
  Vec3<T>* x;
  Vec3<T>* y;
  __device__ T& X(int64_t i, int c) const { return x[i].v[c]; }
  __device__ T& Y(int64_t i, int c) const { return y[i].v[c]; }
};

// ---- Kernels ------------------------------------------------------------------------------

__device__ inline int64_t tid() {
  return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

// The value every x(i, c) starts with: small integers, so sums and axpy stay exact.
__host__ __device__ inline int pattern(int64_t i, int c) {
  return 1 + static_cast<int>((i + c) & 7);
}

template <class T, class A>
__global__ void fill(A a, int64_t n) {
  const int64_t i = tid();
  if (i >= n) return;
  for (int c = 0; c < 3; ++c) {
    a.X(i, c) = static_cast<T>(pattern(i, c));
    a.Y(i, c) = T(0);
  }
}

template <class T, class A>
__global__ void axpy(A a, T alpha, int64_t n) {
  const int64_t i = tid();
  if (i >= n) return;
#pragma unroll
  for (int c = 0; c < 3; ++c) a.Y(i, c) += alpha * a.X(i, c);
}

// Grid-stride sum of component 0 into *out (one atomic per block).
template <class T, class A>
__global__ void reduce0(A a, int64_t n, double* out) {
  __shared__ double part[kThreads];
  double s = 0;
  for (int64_t i = tid(); i < n; i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    s += static_cast<double>(a.X(i, 0));
  part[threadIdx.x] = s;
  __syncthreads();
  for (int w = kThreads / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, part[0]);
}

// Counts the y elements that differ from times * x.
template <class T, class A>
__global__ void count_bad(A a, int64_t n, T times, unsigned long long* bad) {
  const int64_t i = tid();
  if (i >= n) return;
  for (int c = 0; c < 3; ++c)
    if (a.Y(i, c) != times * static_cast<T>(pattern(i, c))) atomicAdd(bad, 1ull);
}

unsigned blocks_for(int64_t n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

// ---- One layout, both kernels ---------------------------------------------------------------

struct Result {
  double axpy_s = 0, reduce_s = 0;
};

struct Config {
  int warmup = 3;
  int reps = 20;
  unsigned reduce_blocks = 0;  // grid of the reduction (a few blocks per SM)
};

template <class T, class A>
Result run_layout(const A& acc, int64_t n, const Config& cfg, const std::string& label) {
  Result r;
  fill<T><<<blocks_for(n), kThreads>>>(acc, n);
  BENCH_CUDA(cudaGetLastError());
  // alpha = 1 keeps y an exact integer multiple of x, so the check is exact.
  const T alpha = T(1);
  const std::vector<double> ta = bench::time_events(
      cfg.warmup, cfg.reps, [&] { axpy<T><<<blocks_for(n), kThreads>>>(acc, alpha, n); });
  r.axpy_s = bench::median(ta);

  unsigned long long* bad = nullptr;
  double* sums = nullptr;
  const int slots = cfg.warmup + cfg.reps;
  BENCH_CUDA(cudaMalloc(&bad, sizeof *bad));
  BENCH_CUDA(cudaMalloc(&sums, sizeof(double) * slots));
  BENCH_CUDA(cudaMemset(bad, 0, sizeof *bad));
  BENCH_CUDA(cudaMemset(sums, 0, sizeof(double) * slots));
  count_bad<T><<<blocks_for(n), kThreads>>>(acc, n, static_cast<T>(slots), bad);
  BENCH_CUDA(cudaGetLastError());
  unsigned long long nbad = 0;
  BENCH_CUDA(cudaMemcpy(&nbad, bad, sizeof nbad, cudaMemcpyDeviceToHost));
  if (nbad != 0)
    bench::die(label + ": axpy gave " + std::to_string(nbad) + " wrong elements of " +
               std::to_string(3 * n));

  // Each launch sums into its own slot, so no reset sits inside the timed interval.
  int slot = 0;
  const std::vector<double> tr = bench::time_events(cfg.warmup, cfg.reps, [&] {
    reduce0<T><<<cfg.reduce_blocks, kThreads>>>(acc, n, sums + slot++);
  });
  r.reduce_s = bench::median(tr);
  std::vector<double> got(slots);
  BENCH_CUDA(cudaMemcpy(got.data(), sums, sizeof(double) * slots, cudaMemcpyDeviceToHost));
  double expect = 0;  // sum of 1 + (i & 7) over [0, n)
  expect = static_cast<double>(n / 8) * 36.0;
  for (int64_t i = (n / 8) * 8; i < n; ++i) expect += pattern(i, 0);
  for (int s = 0; s < slots; ++s)
    if (got[s] != expect)
      bench::die(label + ": reduce gave " + std::to_string(got[s]) + ", expected " +
                 std::to_string(expect));
  BENCH_CUDA(cudaFree(bad));
  BENCH_CUDA(cudaFree(sums));
  return r;
}

template <class T>
const char* dtype_tag() {
  return sizeof(T) == 4 ? "f32" : "f64";
}

// Results of one (dtype, n) point, printed as table rows and JSON lines.
struct Point {
  std::string layout;
  Result r;
};

template <class T>
void run_size(int64_t n, double slack, const Config& cfg, const bench::Table& table,
              bool* below_target) {
  const size_t row = static_cast<size_t>(n) * sizeof(T);
  std::vector<Point> pts;

  // memcpy of one vector[3] property's bytes.
  double memcpy_bw = bench::d2d_bandwidth(3 * row, cfg.reps);

  {  // raw SoA
    RawSoA<T> a{};
    for (int c = 0; c < 3; ++c) {
      BENCH_CUDA(cudaMalloc(&a.x[c], row));
      BENCH_CUDA(cudaMalloc(&a.y[c], row));
    }
    pts.push_back({"raw_soa", run_layout<T>(a, n, cfg, "raw_soa")});
    for (int c = 0; c < 3; ++c) {
      BENCH_CUDA(cudaFree(a.x[c]));
      BENCH_CUDA(cudaFree(a.y[c]));
    }
  }
  {  // pvec: one vector with properties x, y (vector[3] of T); capacity above n by `slack`
    pvec::schema s;
    const int px = s.add_vector<T>("x", 3);
    const int py = s.add_vector<T>("y", 3);
    pvec_vector_desc d = PVEC_VECTOR_DESC_INIT;
    d.dim = 1;  // positions are not used here; keep them small
    d.pos_dtype = PVEC_FLOAT32;
    d.n_particles = 0;  // then reserve and resize: one allocation at the final capacity
    d.placement = PVEC_PLACE_LOCAL;
    d.backend = PVEC_BACKEND_CUDA;
    d.host_memory = PVEC_HOST_PAGEABLE;  // the host mirror is not used; skip pinning it
    pvec::vector v(d, s);
    v.reserve(n + static_cast<int64_t>(slack * static_cast<double>(n)));
    v.resize(n);
    bench::use_device_of(v.device_ptr<T>(px));
    PvecPtr<T> ap{v.device_ptr<T>(px), v.device_ptr<T>(py), v.capacity()};
    pts.push_back({"pvec_ptr", run_layout<T>(ap, n, cfg, "pvec_ptr")});
    PvecView<T> av{v.device_view<T>(px), v.device_view<T>(py)};
    pts.push_back({"pvec_view", run_layout<T>(av, n, cfg, "pvec_view")});
  }
  {  // AoS
    AoS<T> a{};
    BENCH_CUDA(cudaMalloc(&a.x, 3 * row));
    BENCH_CUDA(cudaMalloc(&a.y, 3 * row));
    pts.push_back({"aos", run_layout<T>(a, n, cfg, "aos")});
    BENCH_CUDA(cudaFree(a.x));
    BENCH_CUDA(cudaFree(a.y));
  }

  const double axpy_bytes = 9.0 * static_cast<double>(row);
  const double reduce_bytes = static_cast<double>(row);
  const Result& base = pts[0].r;
  const double base_axpy = bench::gbps(axpy_bytes, base.axpy_s);
  const double base_red = bench::gbps(reduce_bytes, base.reduce_s);
  for (const char* op : {"axpy", "reduce"}) {
    const bool is_axpy = op[0] == 'a';
    const double bytes = is_axpy ? axpy_bytes : reduce_bytes;
    const double base_bw = is_axpy ? base_axpy : base_red;
    for (const Point& p : pts) {
      const double t = is_axpy ? p.r.axpy_s : p.r.reduce_s;
      const double bw = bench::gbps(bytes, t);
      const double ratio = base_bw > 0 ? bw / base_bw : 0;
      const double frac = bw / (memcpy_bw * 1e-9);
      table.row({op, dtype_tag<T>(), bench::count_str(n), p.layout, bench::fmt("%.1f", t * 1e6),
                 bench::fmt("%.1f", bw), bench::fmt("%.3f", ratio), bench::fmt("%.3f", frac)});
      bench::Json("kernel_bandwidth")
          .str("name", std::string(op) + "/" + p.layout + "/" + dtype_tag<T>())
          .str("op", op)
          .str("layout", p.layout)
          .str("dtype", dtype_tag<T>())
          .integer("n", n)
          .integer("reps", cfg.reps)
          .num("time_s", t)
          .num("gbps", bw)
          .str("baseline", "raw_soa")
          .num("ratio", ratio)
          .num("frac_memcpy", frac)
          .print();
      if (p.layout.compare(0, 4, "pvec") == 0 && ratio < 0.97) *below_target = true;
    }
  }
  table.row({"memcpy", dtype_tag<T>(), bench::count_str(n), "d2d", "",
             bench::fmt("%.1f", memcpy_bw * 1e-9), "", "1.000"});
  bench::Json("kernel_bandwidth")
      .str("name", std::string("memcpy/d2d/") + dtype_tag<T>())
      .str("op", "memcpy")
      .str("layout", "d2d")
      .str("dtype", dtype_tag<T>())
      .integer("n", n)
      .integer("bytes", static_cast<int64_t>(6 * row))
      .num("gbps", memcpy_bw * 1e-9)
      .print();
}

const char* kUsage =
    "bench_kernel_bandwidth: axpy and reduce on vector[3] properties, pvec vs raw arrays.\n"
    "  --quick            tiny sizes (2^16, 2^18), for CI\n"
    "  --sizes LIST       particle counts, e.g. 2^20,2^24 (default 2^20,2^22,2^24,2^26,2^28)\n"
    "  --min N --max N    keep only sizes in [N, M]\n"
    "  --dtype f32|f64|both   (default both)\n"
    "  --reps N           timed repetitions, median reported (default 20, at least 10)\n"
    "  --warmup N         untimed repetitions first (default 3)\n"
    "  --slack F          pvec capacity = n*(1+F) rounded to 64 (default 0.125), so the\n"
    "                     component stride differs from n\n";

}  // namespace

int main(int argc, char** argv) {
  BENCH_PVEC(pvec_init(&argc, &argv));
  bench::Args args(argc, argv, kUsage);
  const bool quick = args.flag("--quick");
  std::vector<int64_t> defaults = {int64_t{1} << 20, int64_t{1} << 22, int64_t{1} << 24,
                                   int64_t{1} << 26, int64_t{1} << 28};
  if (quick) defaults = {int64_t{1} << 16, int64_t{1} << 18};
  const std::vector<int64_t> sizes = bench::pick_sizes(args, defaults);
  const std::string dtype = args.value("--dtype", "both");
  Config cfg;
  cfg.reps = static_cast<int>(std::max<int64_t>(10, args.count("--reps", 20)));
  cfg.warmup = static_cast<int>(args.count("--warmup", 3));
  const double slack = args.real("--slack", 0.125);
  args.finish();
  if (dtype != "f32" && dtype != "f64" && dtype != "both") bench::die("--dtype f32|f64|both");

  if (!bench::start_on_device()) return 0;
  int dev = 0, sms = 0;
  BENCH_CUDA(cudaGetDevice(&dev));
  BENCH_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  cfg.reduce_blocks = static_cast<unsigned>(sms * 8);

  std::printf(
      "# bench_kernel_bandwidth on %s; median of %d reps after %d warm-up; GB/s = "
      "(bytes read + written) / time; ratio = GB/s / raw_soa GB/s; frac_memcpy = GB/s / "
      "d2d memcpy GB/s\n",
      bench::device_name().c_str(), cfg.reps, cfg.warmup);
  bench::Json("kernel_bandwidth")
      .str("name", "config")
      .str("device", bench::device_name())
      .integer("reps", cfg.reps)
      .integer("warmup", cfg.warmup)
      .num("slack", slack)
      .print();
  bench::Table table({{"op", 6},
                      {"dtype", 5},
                      {"n", 6},
                      {"layout", 9},
                      {"time_us", 10},
                      {"GB/s", 8},
                      {"vs_raw", 6},
                      {"vs_memcpy", 9}});
  table.header();
  bool below = false;
  for (int64_t n : sizes) {
    if (dtype != "f64") run_size<float>(n, slack, cfg, table, &below);
    if (dtype != "f32") run_size<double>(n, slack, cfg, table, &below);
  }
  std::printf("# target pvec/raw >= 0.97: %s\n", below ? "NOT met at some size" : "met");
  BENCH_PVEC(pvec_finalize());
  return 0;
}
