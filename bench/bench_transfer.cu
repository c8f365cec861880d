// bench_transfer: host <-> device transfers of the realistic particle (64 bytes: positions
// f32[3], a f32 scalar, a f32 vector[3], a f32 tensor[3][3]), with size < capacity.
//
// Per size n, all measured in this run, each direction (h2d, d2h):
//   raw_pinned     one cudaMemcpy of the n*64 live bytes from cudaMallocHost memory
//                  (the baseline of every ratio)
//   raw_pageable   the same from malloc'ed (touched) memory
//   pvec_pinned    pvec_host_to_device / pvec_device_to_host (all properties) of a vector with
//                  pinned host mirrors and capacity ~1.3 n: one strided 2-D copy per property
//   pvec_pageable  the same with PVEC_HOST_PAGEABLE mirrors (from 16 MiB in all and with two
//                  or more host threads: through page-locked blocks on the host threads)
//   pvec_pageable_direct  the same with PVEC_STAGED_TRANSFER=0 (one cudaMemcpy2D per
//                  property from the pageable mirror, as the CUDA runtime stages it)
// Reported: median wall time of the blocking call, GB/s of the live bytes, ratio to
// raw_pinned (target >= 0.95 from 1e6 particles) and, below 1e6, the extra time per call over
// raw_pinned in microseconds. The pvec data is checked after the round trip.
#include <pvec.h>

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench_cuda.cuh"

namespace {

using bench::RealisticSchema;

struct Times {
  double h2d = 0, d2h = 0;
};

// Median wall time of `reps` calls of f after `warmup` untimed calls; f blocks until done.
template <class F>
double time_wall(int warmup, int reps, F&& f) {
  for (int r = 0; r < warmup; ++r) f();
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const double t0 = bench::now_seconds();
    f();
    t.push_back(bench::now_seconds() - t0);
  }
  return bench::median(t);
}

// raw cudaMemcpy of `bytes` between host buffer h and device buffer d.
Times run_raw(void* h, void* d, size_t bytes, int warmup, int reps) {
  Times t;
  t.h2d =
      time_wall(warmup, reps, [&] { BENCH_CUDA(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice)); });
  t.d2h =
      time_wall(warmup, reps, [&] { BENCH_CUDA(cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost)); });
  return t;
}

// Sampled particles of the round-trip check: first, last and ~4096 in between.
std::vector<int64_t> samples(int64_t n) {
  std::vector<int64_t> s;
  const int64_t step = std::max<int64_t>(1, n / 4096);
  for (int64_t i = 0; i < n; i += step) s.push_back(i);
  if (s.back() != n - 1) s.push_back(n - 1);
  return s;
}

float tag(int64_t i, int prop, int64_t c) {
  return static_cast<float>((i % 100003) + 1) + 0.25f * static_cast<float>(prop + 2) +
         1000.0f * static_cast<float>(c);
}

// Sets (value=true) or clears the sampled host elements of every property and the positions.
// Returns the number of sampled elements that differ from the pattern when checking.
int64_t touch_samples(pvec_vector_t v, const std::vector<int64_t>& idx, int mode) {
  int64_t bad = 0;
  int nprops = 0;
  BENCH_PVEC(pvec_vector_get_prop_count(v, &nprops));
  for (int p = PVEC_POS; p < nprops; ++p) {
    pvec_layout l = PVEC_LAYOUT_INIT;
    BENCH_PVEC(pvec_vector_get_layout(v, p, &l));
    float* h = static_cast<float*>(l.host_ptr);
    for (int64_t c = 0; c < l.ncomp; ++c)
      for (int64_t i : idx) {
        float& x = h[c * l.stride_elems + i];
        if (mode == 0) x = tag(i, p, c);
        if (mode == 1) x = 0.0f;
        if (mode == 2 && x != tag(i, p, c)) ++bad;
      }
  }
  return bad;
}

// pvec transfers of all properties; checks the round trip on sampled particles.
Times run_pvec(RealisticSchema& rs, int64_t n, int host_memory, double slack, int warmup,
               int reps) {
  // Empty, then reserve, then resize: one allocation per mirror, at the final capacity.
  pvec_vector_desc d = bench::realistic_desc(0, PVEC_BACKEND_CUDA, host_memory);
  pvec_vector_t v = nullptr;
  BENCH_PVEC(pvec_vector_create(&d, rs.schema, &v));
  BENCH_PVEC(pvec_vector_reserve(v, n + static_cast<int64_t>(slack * static_cast<double>(n))));
  BENCH_PVEC(pvec_vector_resize(v, n));
  const std::vector<int64_t> idx = samples(n);
  touch_samples(v, idx, 0);
  Times t;
  t.h2d = time_wall(warmup, reps, [&] { BENCH_PVEC(pvec_host_to_device(v, nullptr, 0)); });
  touch_samples(v, idx, 1);
  t.d2h = time_wall(warmup, reps, [&] { BENCH_PVEC(pvec_device_to_host(v, nullptr, 0)); });
  const int64_t bad = touch_samples(v, idx, 2);
  if (bad != 0)
    bench::die("pvec round trip of " + std::to_string(n) + " particles: " + std::to_string(bad) +
               " sampled elements wrong");
  BENCH_PVEC(pvec_vector_destroy(v));
  return t;
}

const char* kUsage =
    "bench_transfer: pvec host<->device transfers of a 64-byte particle vs raw cudaMemcpy.\n"
    "  --quick          tiny sizes (1e4, 1e5), for CI\n"
    "  --sizes LIST     particle counts (default 1e4,1e5,1e6,1e7,1e8)\n"
    "  --min N --max N  keep only sizes in [N, M]\n"
    "  --reps N         timed repetitions per variant from 1e6 particles (default 10);\n"
    "                   smaller sizes take max(N, 50), so the per-call overhead is resolved\n"
    "  --warmup N       untimed repetitions first (default 2)\n"
    "  --slack F        pvec capacity = n*(1+F) (default 0.3)\n";

}  // namespace

int main(int argc, char** argv) {
  BENCH_PVEC(pvec_init(&argc, &argv));
  bench::Args args(argc, argv, kUsage);
  const bool quick = args.flag("--quick");
  std::vector<int64_t> defaults = {10000, 100000, 1000000, 10000000, 100000000};
  if (quick) defaults = {10000, 100000};
  const std::vector<int64_t> sizes = bench::pick_sizes(args, defaults);
  const int64_t reps_big = std::max<int64_t>(1, args.count("--reps", 10));
  const int warmup = static_cast<int>(args.count("--warmup", 2));
  const double slack = args.real("--slack", 0.3);
  args.finish();

  if (!bench::start_on_device()) return 0;
  RealisticSchema rs;
  std::printf(
      "# bench_transfer on %s; 64-byte particle, capacity = %.2f x size; median wall "
      "time of blocking calls; ratio = GB/s / raw_pinned GB/s; overhead = time - "
      "raw_pinned time\n",
      bench::device_name().c_str(), 1.0 + slack);
  bench::Json("transfer")
      .str("name", "config")
      .str("device", bench::device_name())
      .integer("warmup", warmup)
      .num("slack", slack)
      .integer("particle_bytes", RealisticSchema::kBytes)
      .print();
  bench::Table table({{"dir", 4},
                      {"n", 5},
                      {"variant", 20},
                      {"time_us", 10},
                      {"GB/s", 7},
                      {"vs_pinned", 9},
                      {"overhead_us", 11}});
  table.header();
  bool below = false;
  for (int64_t n : sizes) {
    const int reps = static_cast<int>(n < 1000000 ? std::max<int64_t>(reps_big, 50) : reps_big);
    const size_t bytes = static_cast<size_t>(n) * RealisticSchema::kBytes;
    void* dev = nullptr;
    BENCH_CUDA(cudaMalloc(&dev, bytes));
    void* pinned = nullptr;
    BENCH_CUDA(cudaMallocHost(&pinned, bytes));
    std::memset(pinned, 1, bytes);
    const Times raw_pinned = run_raw(pinned, dev, bytes, warmup, reps);
    BENCH_CUDA(cudaFreeHost(pinned));
    void* pageable = std::malloc(bytes);
    if (pageable == nullptr) bench::die("malloc of " + std::to_string(bytes) + " bytes");
    std::memset(pageable, 1, bytes);
    const Times raw_pageable = run_raw(pageable, dev, bytes, warmup, reps);
    std::free(pageable);
    BENCH_CUDA(cudaFree(dev));
    const Times pv_pinned = run_pvec(rs, n, PVEC_HOST_PINNED, slack, warmup, reps);
    const Times pv_pageable = run_pvec(rs, n, PVEC_HOST_PAGEABLE, slack, warmup, reps);
    BENCH_PVEC(pvec_options_set("PVEC_STAGED_TRANSFER", "0"));
    const Times pv_direct = run_pvec(rs, n, PVEC_HOST_PAGEABLE, slack, warmup, reps);
    BENCH_PVEC(pvec_options_set("PVEC_STAGED_TRANSFER", "auto"));

    struct Row {
      const char* name;
      const Times* t;
    };
    const Row rows[] = {{"raw_pinned", &raw_pinned},
                        {"raw_pageable", &raw_pageable},
                        {"pvec_pinned", &pv_pinned},
                        {"pvec_pageable", &pv_pageable},
                        {"pvec_pageable_direct", &pv_direct}};
    for (const char* dir : {"h2d", "d2h"}) {
      const bool h2d = dir[0] == 'h';
      const double base = h2d ? raw_pinned.h2d : raw_pinned.d2h;
      for (const Row& r : rows) {
        const double t = h2d ? r.t->h2d : r.t->d2h;
        const double bw = bench::gbps(static_cast<double>(bytes), t);
        const double ratio = t > 0 ? base / t : 0;
        const double overhead_us = (t - base) * 1e6;
        const bool show_overhead = n < 1000000;
        table.row({dir, bench::count_str(n), r.name, bench::fmt("%.1f", t * 1e6),
                   bench::fmt("%.2f", bw), bench::fmt("%.3f", ratio),
                   show_overhead ? bench::fmt("%.1f", overhead_us) : std::string("")});
        bench::Json j("transfer");
        j.str("name", std::string(dir) + "/" + r.name)
            .str("dir", dir)
            .str("variant", r.name)
            .integer("n", n)
            .integer("bytes", static_cast<int64_t>(bytes))
            .integer("reps", reps)
            .num("time_s", t)
            .num("gbps", bw)
            .str("baseline", "raw_pinned")
            .num("ratio", ratio);
        if (show_overhead) j.num("overhead_us", overhead_us);
        j.print();
        if (std::string(r.name) == "pvec_pinned" && n >= 1000000 && ratio < 0.95) below = true;
      }
    }
  }
  std::printf("# target pvec_pinned/raw_pinned >= 0.95 for n >= 1e6: %s\n",
              below ? "NOT met at some size" : "met");
  BENCH_PVEC(pvec_finalize());
  return 0;
}
