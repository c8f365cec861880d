// bench_growth: cost of building a vector of the realistic particle (64 bytes) by appends.
//
// For each size n, a fresh vector (created empty) receives n particles either one at a time
// (pvec_vector_append(v, 1, &first)) or in batches (pvec_vector_append(v, batch, &first)); the
// loop's wall time divided by n is the time per particle. Capacity doubles on growth, so the time
// per particle should not depend on n: the benchmark reports max/min of the time per particle over
// the sizes from 1e4 to the largest (target <= 1.5; smaller sizes are listed but excluded,
// they fit in cache). Backend: --backend auto (default: CUDA when a device exists) | host |
// cuda; growth reallocates and copies both mirrors, so the device matters.
//
// The baseline, measured in the same run: the same batches appended to a vector that
// pvec_vector_reserve(v, n) sized before the timer (`reserved`: no reallocation in the loop). The
// difference to `batch` is what growth costs; the report gives batch / reserved per size.
#include <pvec.h>

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_common.hpp"

namespace {

using bench::RealisticSchema;

struct Outcome {
  double seconds = 0;     // median wall time of the append loop
  uint64_t reallocs = 0;  // generation increments during the loop
  int64_t capacity = 0;
};

// Appends n particles in steps of `batch` to a fresh vector (with `reserve`, one reserved for n
// before the timer starts); median over reps.
Outcome grow(RealisticSchema& rs, int backend, int host_memory, int64_t n, int64_t batch,
             bool reserve, int reps) {
  std::vector<double> t;
  Outcome out;
  for (int r = 0; r < reps; ++r) {
    pvec_vector_desc d = bench::realistic_desc(0, backend, host_memory);
    pvec_vector_t v = nullptr;
    BENCH_PVEC(pvec_vector_create(&d, rs.schema, &v));
    if (reserve) BENCH_PVEC(pvec_vector_reserve(v, n));
    uint64_t g0 = 0, g1 = 0;
    BENCH_PVEC(pvec_vector_get_generation(v, &g0));
    int64_t first = 0, expect_first = 0;
    const double t0 = bench::now_seconds();
    if (batch == 1) {
      for (int64_t i = 0; i < n; ++i) BENCH_PVEC(pvec_vector_append(v, 1, &first));
      expect_first = n - 1;
    } else {
      for (int64_t done = 0; done < n; done += batch) {
        const int64_t k = std::min(batch, n - done);
        BENCH_PVEC(pvec_vector_append(v, k, &first));
        expect_first = done;
      }
    }
    t.push_back(bench::now_seconds() - t0);
    int64_t size = 0;
    BENCH_PVEC(pvec_vector_get_size(v, &size));
    BENCH_PVEC(pvec_vector_get_capacity(v, &out.capacity));
    BENCH_PVEC(pvec_vector_get_generation(v, &g1));
    out.reallocs = g1 - g0;
    if (size != n || first != expect_first)
      bench::die("after appending " + std::to_string(n) + " particles: size " +
                 std::to_string(size) + ", last first index " + std::to_string(first));
    // Geometric growth: capacity < 2 * max(n, 64) rounded to 64, and O(log n) reallocations.
    if (out.capacity < n || out.capacity > 2 * std::max<int64_t>(n, 64) + 64)
      bench::die("capacity " + std::to_string(out.capacity) + " for " + std::to_string(n) +
                 " particles is not geometric growth");
    int log2n = 0;
    while ((int64_t{64} << log2n) < n) ++log2n;
    if (out.reallocs > static_cast<uint64_t>(reserve ? 0 : log2n + 2))
      bench::die(std::to_string(out.reallocs) + " reallocations for " + std::to_string(n) +
                 " particles: growth is not geometric");
    BENCH_PVEC(pvec_vector_destroy(v));
  }
  out.seconds = bench::median(t);
  return out;
}

// Largest power of ten <= 1e8 whose growth fits in half of the physical memory: during a
// doubling the old and new buffers coexist (<= 4 n x 64 bytes per mirror) and the host backend
// keeps both mirrors in host memory.
int64_t default_top() {
  const double phys =
      static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE));
  int64_t top = 100000000;
  while (top > 1000 && 8.0 * static_cast<double>(top) * RealisticSchema::kBytes > 0.5 * phys)
    top /= 10;
  return top;
}

const char* kUsage =
    "bench_growth: time per particle of appending the 64-byte particle, one at a time and in\n"
    "batches.\n"
    "  --quick           sizes 1e3..1e5, for CI\n"
    "  --sizes LIST      particle counts (default 1e3..1e8 in powers of ten, capped to what\n"
    "                    fits in half of the host memory)\n"
    "  --min N --max N   keep only sizes in [N, M] (--max is the top size)\n"
    "  --batch K         batch size of the batched mode (default 1024)\n"
    "  --modes LIST      single,batch,reserved (default all; reserved = batches into a\n"
    "                    vector reserved for n before the timer, the baseline)\n"
    "  --backend auto|host|cuda   (default auto)\n"
    "  --pageable        pageable host mirrors with the CUDA backend (default pinned)\n"
    "  --reps N          repetitions per size, median reported (default: enough for 1e6\n"
    "                    appended particles per size, 1..10)\n";

}  // namespace

int main(int argc, char** argv) {
  BENCH_PVEC(pvec_init(&argc, &argv));
  bench::Args args(argc, argv, kUsage);
  const bool quick = args.flag("--quick");
  std::vector<int64_t> defaults;
  const int64_t top = quick ? 100000 : default_top();
  for (int64_t n = 1000; n <= top; n *= 10) defaults.push_back(n);
  const std::vector<int64_t> sizes = bench::pick_sizes(args, defaults);
  const int64_t batch = args.count("--batch", 1024);
  const std::string modes = args.value("--modes", "single,batch,reserved");
  const std::string backend_s = args.value("--backend", "auto");
  const bool pageable = args.flag("--pageable");
  const int64_t reps_opt = args.count("--reps", 0);
  args.finish();
  int backend = PVEC_BACKEND_AUTO;
  if (backend_s == "host")
    backend = PVEC_BACKEND_HOST;
  else if (backend_s == "cuda")
    backend = PVEC_BACKEND_CUDA;
  else if (backend_s != "auto")
    bench::die("--backend auto|host|cuda");
  if (batch < 1) bench::die("--batch must be >= 1");

  RealisticSchema rs;
  const int host_memory = pageable ? PVEC_HOST_PAGEABLE : PVEC_HOST_PINNED;
  pvec_backend used = PVEC_BACKEND_HOST;
  {
    pvec_vector_desc d = bench::realistic_desc(0, backend, host_memory);
    pvec_vector_t v = nullptr;
    BENCH_PVEC(pvec_vector_create(&d, rs.schema, &v));
    BENCH_PVEC(pvec_vector_get_backend(v, &used));
    BENCH_PVEC(pvec_vector_destroy(v));
  }
  const char* backend_name = used == PVEC_BACKEND_CUDA ? "cuda" : "host";
  std::printf(
      "# bench_growth: backend %s%s; 64-byte particle; time per particle = wall time of "
      "the append loop / n (median over reps)\n",
      backend_name, used == PVEC_BACKEND_CUDA ? (pageable ? ", pageable" : ", pinned") : "");
  bench::Json("growth")
      .str("name", "config")
      .str("backend", backend_name)
      .boolean("pageable", pageable)
      .integer("batch", batch)
      .print();
  bench::Table table({{"mode", 8},
                      {"n", 5},
                      {"reps", 4},
                      {"total_ms", 10},
                      {"ns/particle", 11},
                      {"reallocs", 8},
                      {"capacity", 10}});
  table.header();

  bool flat_ok = true;
  std::vector<double> batch_per, reserved_per;  // per size, for batch / reserved
  for (const char* mode : {"single", "batch", "reserved"}) {
    if (modes.find(mode) == std::string::npos) continue;
    const bool reserve = std::string(mode) == "reserved";
    const int64_t k = std::string(mode) == "single" ? 1 : batch;
    double lo = 0, hi = 0;
    int counted = 0;
    for (int64_t n : sizes) {
      const int reps = static_cast<int>(
          reps_opt > 0 ? reps_opt : std::max<int64_t>(1, std::min<int64_t>(10, 1000000 / n)));
      const Outcome o = grow(rs, backend, host_memory, n, k, reserve, reps);
      const double per = o.seconds / static_cast<double>(n);
      if (std::string(mode) == "batch") batch_per.push_back(per);
      if (reserve) reserved_per.push_back(per);
      table.row({mode, bench::count_str(n), std::to_string(reps),
                 bench::fmt("%.3f", o.seconds * 1e3), bench::fmt("%.2f", per * 1e9),
                 std::to_string(o.reallocs), std::to_string(o.capacity)});
      bench::Json("growth")
          .str("name", std::string(mode))
          .str("mode", mode)
          .str("backend", backend_name)
          .integer("batch", k)
          .integer("n", n)
          .integer("reps", reps)
          .num("time_s", o.seconds)
          .num("ns_per_particle", per * 1e9)
          .num("gbps", bench::gbps(static_cast<double>(n) * RealisticSchema::kBytes, o.seconds))
          .integer("reallocs", static_cast<int64_t>(o.reallocs))
          .integer("capacity", o.capacity)
          .print();
      if (n >= 10000) {
        lo = counted == 0 ? per : std::min(lo, per);
        hi = counted == 0 ? per : std::max(hi, per);
        ++counted;
      }
    }
    if (counted >= 2) {
      const double ratio = hi / lo;
      if (reserve)
        std::printf(
            "# %s (baseline, no target): max/min time per particle over sizes >= 1e4: "
            "%.3f\n",
            mode, ratio);
      else
        std::printf("# %s: max/min time per particle over sizes >= 1e4: %.3f (target <= 1.5: %s)\n",
                    mode, ratio, ratio <= 1.5 ? "met" : "NOT met");
      bench::Json("growth")
          .str("name", std::string(mode) + "/flatness")
          .str("mode", mode)
          .str("backend", backend_name)
          .num("ratio", ratio)
          .str("ratio_is", "max/min ns per particle, n >= 1e4")
          .boolean("target_met", reserve || ratio <= 1.5)
          .print();
      if (!reserve) flat_ok = flat_ok && ratio <= 1.5;
    }
  }
  if (batch_per.size() == sizes.size() && reserved_per.size() == sizes.size()) {
    std::string line = "# batch / reserved (what growth adds):";
    for (size_t q = 0; q < sizes.size(); ++q) {
      const double r = batch_per[q] / reserved_per[q];
      line += " " + bench::count_str(sizes[q]) + " " + bench::fmt("%.2f", r);
      bench::Json("growth")
          .str("name", "batch/reserved")
          .str("backend", backend_name)
          .integer("n", sizes[q])
          .num("ratio", r)
          .str("ratio_is", "batch ns per particle / reserved ns per particle")
          .print();
    }
    std::printf("%s\n", line.c_str());
  }
  std::printf("# target flat within 1.5x: %s\n", flat_ok ? "met" : "NOT met");
  BENCH_PVEC(pvec_finalize());
  return 0;
}
