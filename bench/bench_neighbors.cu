// bench_neighbors: pvec's cell list, Verlet lists, locality sort and a user's LJ force kernel
// over pvec's list, on the work of Cabana's neighbour benchmarks (shared/peers: double[3]
// positions uniform in [0, 1.3 n^(1/3))^3, not periodic, density 0.455, cutoff 3, ~51
// neighbours), and the same in a periodic box with ghosts (pvec's real case). Baselines
// measured in the same run: the device copy bandwidth (the byte-model roofline of the cell
// list and the "copy the bytes once" of the sort) and the same force kernel over a list built
// by hand (pvec's list with each particle's neighbours re-sorted by row: the natural list a
// user would write). Cabana's numbers come from its own programs in the same device call
// (scripts in docs/performance.md). On the host backend (no GPU) the same steps run as loops;
// --quick makes it a CTest test. One program: its rows share the vectors, the lists and the
// baselines of one run (the ratios are only meaningful side by side).
//
//   bench_neighbors [--quick] [--sizes 1e6,1e7] [--sort-sizes 1e8] [--reps 5] [--no-periodic]
//                   [--cells-only]   (cell lists and the sort only: for profilers)
#include "bench_common.hpp"
#include "lj_force_kernels.cuh"

#include <pvec.h>
#include <pvec_neighbors_view.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#if defined(__CUDACC__)
#include <cub/device/device_segmented_sort.cuh>
#include <cuda_runtime.h>
#define BENCH_CUDA_OK(x)                                                              \
  do {                                                                                \
    cudaError_t e_ = (x);                                                             \
    if (e_ != cudaSuccess) bench::die(std::string(#x ": ") + cudaGetErrorString(e_)); \
  } while (0)
#endif

using namespace bench;

namespace {

template <class... A>
std::string note(const char* f, A... a) {
  char buf[512];
  std::snprintf(buf, sizeof buf, f, a...);
  return buf;
}

bool g_device = false;      // the vectors run the CUDA backend on a device
bool g_cells_only = false;  // --cells-only: no Verlet list or force rows (for profiling)

PVEC_HOST_DEVICE inline uint64_t hash64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
PVEC_HOST_DEVICE inline double unit(uint64_t seed, int64_t i, int d) {
  return (hash64(seed * 0x100000001b3ull + static_cast<uint64_t>(i) * 4 + d) >> 11) * 0x1.0p-53;
}

template <class T>
struct FillUniform {
  T* pos;
  int64_t cap, n;
  double edge;
  uint64_t seed;
  PVEC_HOST_DEVICE void operator()(int64_t i) const {
    for (int d = 0; d < 3; ++d) {
      T x = static_cast<T>(unit(seed, i, d) * edge);
      if (!(x < static_cast<T>(edge))) x = 0;  // rounding to the upper bound
      pos[d * cap + i] = x;
    }
  }
};

// Moves every particle by up to +-amp per coordinate (a time step's worth), kept in the box.
template <class T>
struct Jiggle {
  T* pos;
  int64_t cap;
  double amp, edge;
  uint64_t seed;
  PVEC_HOST_DEVICE void operator()(int64_t i) const {
    for (int d = 0; d < 3; ++d) {
      double x = static_cast<double>(pos[d * cap + i]) + amp * (2 * unit(seed, i, d) - 1);
      if (x < 0) x = -x;
      if (x >= edge) x = 2 * edge - x - 1e-9;
      pos[d * cap + i] = static_cast<T>(x);
    }
  }
};

#if defined(__CUDACC__)
template <int G>
void launch_group(int64_t n, const double* pos, int64_t cap, pvec::verlet_view list, double rc2,
                  double* force) {
  const int64_t threads = n * G;
  lj_force_group<G>
      <<<static_cast<unsigned>((threads + 255) / 256), 256>>>(n, pos, cap, list, rc2, force);
  BENCH_CUDA_OK(cudaGetLastError());
}

template <int G>
void launch_group_u2(int64_t n, const double* pos, int64_t cap, pvec::verlet_view list, double rc2,
                     double* force) {
  const int64_t threads = n * G;
  lj_force_group_u2<G>
      <<<static_cast<unsigned>((threads + 255) / 256), 256>>>(n, pos, cap, list, rc2, force);
  BENCH_CUDA_OK(cudaGetLastError());
}
#endif

#if defined(__CUDACC__)
template <class F>
__global__ void run_kernel(int64_t n, F f) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) f(i);
}
#endif

template <class F>
void launch(int64_t n, F f) {
  if (n <= 0) return;
#if defined(__CUDACC__)
  if (g_device) {
    run_kernel<<<static_cast<unsigned>((n + 255) / 256), 256>>>(n, f);
    BENCH_CUDA_OK(cudaGetLastError());
    BENCH_CUDA_OK(cudaDeviceSynchronize());
    return;
  }
#endif
  for (int64_t i = 0; i < n; ++i) f(i);
}

#if defined(__CUDACC__)
// launch without waiting (device only).
template <class F>
void launch_async(int64_t n, F f) {
  if (n <= 0) return;
  run_kernel<<<static_cast<unsigned>((n + 255) / 256), 256>>>(n, f);
  BENCH_CUDA_OK(cudaGetLastError());
}
#endif

void* dev_alloc(size_t bytes) {
#if defined(__CUDACC__)
  if (g_device) {
    void* p = nullptr;
    BENCH_CUDA_OK(cudaMalloc(&p, std::max<size_t>(bytes, 8)));
    return p;
  }
#endif
  return std::malloc(std::max<size_t>(bytes, 8));
}
void dev_free(void* p) {
#if defined(__CUDACC__)
  if (g_device) {
    cudaFree(p);
    return;
  }
#endif
  std::free(p);
}

// Read+write bandwidth of a large device copy (GB/s counting both), the roofline.
double copy_bandwidth(size_t bytes, int reps) {
  void* a = dev_alloc(bytes);
  void* b = dev_alloc(bytes);
  std::vector<double> t;
  for (int r = 0; r < reps + 1; ++r) {
    const double t0 = now_seconds();
#if defined(__CUDACC__)
    if (g_device) {
      BENCH_CUDA_OK(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));
      BENCH_CUDA_OK(cudaDeviceSynchronize());
    } else
#endif
      std::memcpy(b, a, bytes);
    if (r > 0) t.push_back(now_seconds() - t0);
  }
  dev_free(a);
  dev_free(b);
  return 2.0 * bytes / median(t) / 1e9;
}

template <class F>
double timed(int reps, F&& f) {
  std::vector<double> t;
  for (int r = 0; r < reps + 1; ++r) {
    const double t0 = now_seconds();
    f();
#if defined(__CUDACC__)
    if (g_device) BENCH_CUDA_OK(cudaDeviceSynchronize());
#endif
    if (r > 0) t.push_back(now_seconds() - t0);  // the first run warms up
  }
  return median(t);
}

void report(const char* op, const char* order, int64_t n, double ms, const std::string& extra_cols,
            Json j) {
  std::printf("%-22s %-8s %6.0e %10.3f  %s\n", op, order, static_cast<double>(n), ms,
              extra_cols.c_str());
  j.str("op", op).str("order", order).num("n", static_cast<double>(n)).num("ms", ms).print();
}

pvec_vector_t make_cube(int64_t n, bool periodic, double* edge_out, double cutoff) {
  pvec_schema_t s = nullptr;
  BENCH_PVEC(pvec_schema_create(&s));
  pvec_vector_desc d = PVEC_VECTOR_DESC_INIT;
  const double edge = 1.3 * std::cbrt(static_cast<double>(n));
  for (int k = 0; k < 3; ++k) {
    d.domain_hi[k] = edge;
    d.boundary[k] = periodic ? PVEC_PERIODIC : PVEC_NON_PERIODIC;
  }
  d.ghost_width = cutoff;
  d.n_particles = n;
  d.placement = PVEC_PLACE_LOCAL;
  d.host_memory = PVEC_HOST_PAGEABLE;  // the host mirror is not used here
  pvec_vector_t v = nullptr;
  BENCH_PVEC(pvec_vector_create(&d, s, &v));
  pvec_schema_destroy(s);
  *edge_out = edge;
  pvec_layout L = PVEC_LAYOUT_INIT;
  BENCH_PVEC(pvec_vector_get_layout(v, PVEC_POS, &L));
  launch(n, FillUniform<double>{static_cast<double*>(L.device_ptr), L.capacity, n, edge, 12345});
  return v;
}

// The neighbour structures on Cabana's work, in random order and sorted by cell.
void neighbour_suite(int64_t n, bool periodic, int reps, double bw) {
  const double cutoff = 3.0;
  double edge = 0;
  pvec_vector_t v = make_cube(n, periodic, &edge, cutoff);
  const char* box = periodic ? "periodic" : "open";
  const unsigned dev = PVEC_ON_DEVICE;
  double* force = static_cast<double*>(dev_alloc(sizeof(double) * 3 * n));
  for (int sorted = 0; sorted < 2; ++sorted) {
    if (sorted) BENCH_PVEC(pvec_vector_sort(v, cutoff, dev, nullptr));
    if (periodic) BENCH_PVEC(pvec_ghost_get(v, PVEC_NO_PROPS, 0, dev));
    const char* order = sorted ? "sorted" : "random";
    int64_t n_ghost = 0;
    BENCH_PVEC(pvec_vector_get_ghost_size(v, &n_ghost));

    // Cell list of the local rows (Cabana's LinkedCellList), span 1.
    pvec_cell_list_t cl = nullptr;
    BENCH_PVEC(pvec_cell_list_create(v, cutoff, 1, dev, &cl));
    const double t_cl = timed(reps, [&] { BENCH_PVEC(pvec_cell_list_build(cl)); });
    pvec_cell_list_info ci = PVEC_CELL_LIST_INFO_INIT;
    BENCH_PVEC(pvec_cell_list_get_info(cl, &ci));
    // Byte model: positions read once, one index written per row, two offsets per cell.
    const double model = 24.0 * n + 4.0 * n + 8.0 * (ci.ncells + 1);
    const double roof = model / (bw * 1e9) / t_cl;
    report("cell_list", order, n, t_cl * 1e3,
           note("box %s, %lld cells, byte model %.2f GB, %.2f of roofline", box,
                static_cast<long long>(ci.ncells), model / 1e9, roof),
           Json("neighbors").str("box", box).num("roof", roof).num("model_bytes", model));
    BENCH_PVEC(pvec_cell_list_destroy(cl));
    if (g_cells_only) continue;

    // Verlet lists: full and half, one cell per cutoff.
    pvec_verlet_t full = nullptr;
    BENCH_PVEC(pvec_verlet_create(v, cutoff, 0.0, 1, dev, &full));
    const double t_full = timed(reps, [&] { BENCH_PVEC(pvec_verlet_build(full)); });
    {
      pvec_verlet_info fi = PVEC_VERLET_INFO_INIT;
      BENCH_PVEC(pvec_verlet_get_info(full, &fi));
      report("verlet_full", order, n, t_full * 1e3,
             note("box %s, %.1f neighbours/particle, %lld ghosts", box,
                  static_cast<double>(fi.n_pairs) / n, static_cast<long long>(n_ghost)),
             Json("neighbors").str("box", box).num("pairs", static_cast<double>(fi.n_pairs)));
    }
    pvec_verlet_t half = nullptr;
    BENCH_PVEC(pvec_verlet_create(v, cutoff, 0.0, 1, dev | PVEC_VERLET_HALF, &half));
    const double t_half = timed(reps, [&] { BENCH_PVEC(pvec_verlet_build(half)); });
    pvec_verlet_info hi = PVEC_VERLET_INFO_INIT;
    BENCH_PVEC(pvec_verlet_get_info(half, &hi));
    report("verlet_half", order, n, t_half * 1e3,
           note("box %s, %.1f pairs/particle", box, static_cast<double>(hi.n_pairs) / n),
           Json("neighbors").str("box", box).num("pairs", static_cast<double>(hi.n_pairs)));
    BENCH_PVEC(pvec_verlet_destroy(half));

    // The user's force kernel over pvec's full list, and over the hand-built list.
    pvec_verlet_info vi = PVEC_VERLET_INFO_INIT;
    BENCH_PVEC(pvec_verlet_get_info(full, &vi));
    pvec_layout L = PVEC_LAYOUT_INIT;
    BENCH_PVEC(pvec_vector_get_layout(v, PVEC_POS, &L));
    const double* pos = static_cast<const double*>(L.device_ptr);
    pvec::verlet_view lv{vi.n, vi.offsets, vi.neighbors, 0};
    const double t_f = timed(reps, [&] { launch(n, LjForce{pos, L.capacity, lv, 9.0, force}); });
    // Hand-built: the same pairs, each particle's neighbours in increasing row order.
    int32_t* hand = static_cast<int32_t*>(dev_alloc(sizeof(int32_t) * vi.n_pairs));
#if defined(__CUDACC__)
    if (g_device) {
      size_t tmp_bytes = 0;
      BENCH_CUDA_OK(cub::DeviceSegmentedSort::SortKeys(nullptr, tmp_bytes, vi.neighbors, hand,
                                                       vi.n_pairs, n, vi.offsets, vi.offsets + 1));
      void* tmp = dev_alloc(tmp_bytes);
      BENCH_CUDA_OK(cub::DeviceSegmentedSort::SortKeys(tmp, tmp_bytes, vi.neighbors, hand,
                                                       vi.n_pairs, n, vi.offsets, vi.offsets + 1));
      BENCH_CUDA_OK(cudaDeviceSynchronize());
      dev_free(tmp);
    } else
#endif
    {
      std::copy(vi.neighbors, vi.neighbors + vi.n_pairs, hand);
      for (int64_t i = 0; i < n; ++i) std::sort(hand + vi.offsets[i], hand + vi.offsets[i + 1]);
    }
    pvec::verlet_view hv{vi.n, vi.offsets, hand, 0};
    const double t_h = timed(reps, [&] { launch(n, LjForce{pos, L.capacity, hv, 9.0, force}); });
    report("lj_force_pvec_list", order, n, t_f * 1e3,
           note("box %s, hand-built list %.3f ms, pvec/hand speed %.3f", box, t_h * 1e3, t_h / t_f),
           Json("neighbors")
               .str("box", box)
               .num("hand_ms", t_h * 1e3)
               .num("speed_vs_hand", t_h / t_f));
#if defined(__CUDACC__)
    if (g_device) {  // G threads per particle
      auto group_row = [&](auto gc) {
        constexpr int G = decltype(gc)::value;
        const double tg = timed(reps, [&] { launch_group<G>(n, pos, L.capacity, lv, 9.0, force); });
        const double tgh =
            timed(reps, [&] { launch_group<G>(n, pos, L.capacity, hv, 9.0, force); });
        char name[32];
        std::snprintf(name, sizeof name, "lj_force_pvec_list_g%d", G);
        report(name, order, n, tg * 1e3,
               note("box %s, %d threads/particle; hand-built list %.3f ms, pvec/hand speed %.3f",
                    box, G, tgh * 1e3, tgh / tg),
               Json("neighbors")
                   .str("box", box)
                   .num("threads_per_particle", G)
                   .num("hand_ms", tgh * 1e3)
                   .num("speed_vs_hand", tgh / tg));
      };
      group_row(std::integral_constant<int, 4>{});
      group_row(std::integral_constant<int, 8>{});
      {  // two neighbours in flight per thread: the same forces, bit for bit
        const size_t fbytes = sizeof(double) * 3 * static_cast<size_t>(n);
        std::vector<double> f_ref(3 * static_cast<size_t>(n)), f_u2(f_ref.size());
        launch_group<4>(n, pos, L.capacity, lv, 9.0, force);
        BENCH_CUDA_OK(cudaMemcpy(f_ref.data(), force, fbytes, cudaMemcpyDeviceToHost));
        const double tu =
            timed(reps, [&] { launch_group_u2<4>(n, pos, L.capacity, lv, 9.0, force); });
        BENCH_CUDA_OK(cudaMemcpy(f_u2.data(), force, fbytes, cudaMemcpyDeviceToHost));
        const double tuh =
            timed(reps, [&] { launch_group_u2<4>(n, pos, L.capacity, hv, 9.0, force); });
        const bool same = std::memcmp(f_ref.data(), f_u2.data(), fbytes) == 0;
        if (!same)
          std::fprintf(stderr, "bench_neighbors: lj_force_g4_u2 forces differ from g4's\n");
        report("lj_force_pvec_list_g4_u2", order, n, tu * 1e3,
               note("box %s, 4 threads/particle, 2 neighbours in flight, __drcp_rn; forces %s "
                    "g4's; hand-built list %.3f ms, pvec/hand speed %.3f",
                    box, same ? "bitwise equal to" : "DIFFER from", tuh * 1e3, tuh / tu),
               Json("neighbors")
                   .str("box", box)
                   .num("threads_per_particle", 4)
                   .num("bitwise_equal", same ? 1 : 0)
                   .num("hand_ms", tuh * 1e3)
                   .num("speed_vs_hand", tuh / tu));
      }
      // Packed positions: the time includes packing every row (locals and ghosts).
      const int64_t rows = n + n_ghost;
      double4_32a* pk = static_cast<double4_32a*>(dev_alloc(sizeof(double4_32a) * rows));
      auto packed = [&](pvec::verlet_view lst) {
        return timed(reps, [&] {
          launch_async(rows, Pack4{pos, L.capacity, pk});
          lj_force_group_packed<4>
              <<<static_cast<unsigned>((n * 4 + 255) / 256), 256>>>(n, pk, lst, 9.0, force);
          BENCH_CUDA_OK(cudaGetLastError());
        });
      };
      const double tp = packed(lv), tph = packed(hv);
      report("lj_force_g4_packed", order, n, tp * 1e3,
             note("box %s, 4 threads/particle, positions packed xyz0 each call (included); "
                  "hand-built list %.3f ms, pvec/hand speed %.3f",
                  box, tph * 1e3, tph / tp),
             Json("neighbors")
                 .str("box", box)
                 .num("threads_per_particle", 4)
                 .num("hand_ms", tph * 1e3)
                 .num("speed_vs_hand", tph / tp));
      dev_free(pk);
    }
#endif
    dev_free(hand);
    BENCH_PVEC(pvec_verlet_destroy(full));
  }
  dev_free(force);
  BENCH_PVEC(pvec_vector_destroy(v));
}

// Locality sort of the realistic 64-byte particle against copying its bytes once.
void sort_suite(int64_t n, int reps, double bw) {
  RealisticSchema rs;
  pvec_vector_desc d = realistic_desc(n, PVEC_BACKEND_AUTO, PVEC_HOST_PAGEABLE);
  const double edge = 1.0;
  pvec_vector_t v = nullptr;
  BENCH_PVEC(pvec_vector_create(&d, rs.schema, &v));
  const double width = 1.0 / std::cbrt(static_cast<double>(n) / 12.0);  // ~12 per cell
  const double copy_s = static_cast<double>(RealisticSchema::kBytes) * n * 2 / (bw * 1e9);
  for (int morton = 0; morton < 2; ++morton) {
    const unsigned fl = PVEC_ON_DEVICE | (morton ? static_cast<unsigned>(PVEC_SORT_MORTON) : 0u);
    auto pos_of = [&] {
      pvec_layout L = PVEC_LAYOUT_INIT;
      BENCH_PVEC(pvec_vector_get_layout(v, PVEC_POS, &L));
      return L;
    };
    std::vector<double> t_rand, t_step;
    for (int r = 0; r < reps + 1; ++r) {
      pvec_layout L = pos_of();
      launch(n, FillUniform<float>{static_cast<float*>(L.device_ptr), L.capacity, n, edge,
                                   static_cast<uint64_t>(100 + r)});
      double t0 = now_seconds();
      int moved = 0;
      BENCH_PVEC(pvec_vector_sort(v, width, fl, &moved));
      if (r > 0) t_rand.push_back(now_seconds() - t0);
      L = pos_of();
      launch(n, Jiggle<float>{static_cast<float*>(L.device_ptr), L.capacity, 0.05 * width, edge,
                              static_cast<uint64_t>(200 + r)});
      t0 = now_seconds();
      BENCH_PVEC(pvec_vector_sort(v, width, fl, &moved));
      if (r > 0) t_step.push_back(now_seconds() - t0);
    }
    const char* name = morton ? "sort_morton" : "sort_rowmajor";
    const double tr = median(t_rand), ts = median(t_step);
    report(name, "random", n, tr * 1e3,
           note("64 B/particle; %.2fx the time to copy its bytes once (%.3f ms)", tr / copy_s,
                copy_s * 1e3),
           Json("neighbors").num("x_copy", tr / copy_s).num("copy_ms", copy_s * 1e3));
    report(name, "step", n, ts * 1e3,
           note("after moving every particle up to 5%% of a cell: %.2fx the copy", ts / copy_s),
           Json("neighbors").num("x_copy", ts / copy_s).num("copy_ms", copy_s * 1e3));
  }
  BENCH_PVEC(pvec_vector_destroy(v));
}

}  // namespace

int main(int argc, char** argv) {
  Args a(argc, argv,
         "bench_neighbors [--quick] [--sizes LIST] [--sort-sizes LIST] [--reps R] [--no-periodic]\n"
         "                [--cells-only]\n");
  const bool quick = a.flag("--quick");
  std::vector<int64_t> sizes = parse_counts(a.value("--sizes", quick ? "2e4" : "1e6,1e7"));
  std::vector<int64_t> sort_sizes =
      parse_counts(a.value("--sort-sizes", quick ? "2e4" : "1e7,1e8"));
  const int reps = static_cast<int>(parse_count(a.value("--reps", quick ? "1" : "5")));
  const bool periodic = !a.flag("--no-periodic");
  g_cells_only = a.flag("--cells-only");
  a.finish();
  BENCH_PVEC(pvec_init(&argc, &argv));
  {
    pvec_schema_t s = nullptr;
    BENCH_PVEC(pvec_schema_create(&s));
    pvec_vector_desc d = PVEC_VECTOR_DESC_INIT;
    pvec_vector_t v = nullptr;
    BENCH_PVEC(pvec_vector_create(&d, s, &v));
    pvec_backend b = PVEC_BACKEND_HOST;
    BENCH_PVEC(pvec_vector_get_backend(v, &b));
    g_device = b == PVEC_BACKEND_CUDA;
    pvec_vector_destroy(v);
    pvec_schema_destroy(s);
  }
  const double bw = copy_bandwidth(quick ? (size_t{1} << 24) : (size_t{1} << 31), quick ? 1 : 5);
  std::printf(
      "# bench_neighbors: %s backend; copy roofline %.1f GB/s (read+write); median of "
      "%d reps after a warm-up; times in ms\n",
      g_device ? "CUDA" : "host", bw, reps);
  std::printf(
      "# work: Cabana's (double[3] uniform in [0, 1.3 n^(1/3))^3, density 0.455, "
      "cutoff 3, skin 0); 'periodic' is the same box periodic, with ghosts\n");
  std::printf("%-22s %-8s %6s %10s  %s\n", "op", "order", "n", "ms", "notes");
  Json("neighbors")
      .str("name", "config")
      .num("copy_gbps", bw)
      .num("reps", reps)
      .num("device", g_device ? 1 : 0)
      .print();
  for (int64_t n : sizes) {
    neighbour_suite(n, false, reps, bw);
    if (periodic) neighbour_suite(n, true, reps, bw);
  }
  for (int64_t n : sort_sizes)
    if (n > 1) sort_suite(n, reps, bw);  // --sort-sizes 0: no sort rows
  BENCH_PVEC(pvec_finalize());
  return 0;
}
