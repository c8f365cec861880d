// bench_pinned_alloc: what a block of pinned (page-locked) host memory costs to make and to
// give back, the way a growing vector with pinned host mirrors makes one per reallocation.
//
// Per size (1 MiB .. 1 GiB), all measured in this run:
//   cuda_host_alloc   cudaHostAlloc(portable) + cudaFreeHost: the baseline of every ratio
//   own_pages_reg     host pages of its own (aligned_alloc, 2 MiB pages advised from 8 MiB)
//                     + cudaHostRegister(portable) + cudaHostUnregister + free: what pvec's
//                     allocator does from 1 MiB (src/memory/allocator.cpp)
// Reported: median wall time of make + give back over the repetitions, ns per byte, the ratio
// baseline time / time, and the host-to-device copy speed from each kind of block (one copy of
// up to 256 MiB), which must be the same: both are page-locked.
#include <pvec.h>

#include <cuda_runtime.h>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_cuda.cuh"

namespace {

const char* kUsage =
    "bench_pinned_alloc: cost of making and releasing pinned host memory\n"
    "  --quick          sizes 1 MiB and 2 MiB, for CI\n"
    "  --sizes LIST     block sizes in bytes (default 2^20 .. 2^30, powers of 4)\n"
    "  --reps N         repetitions per size and variant, median reported (default 5)\n";

constexpr size_t kHuge = size_t{2} << 20;

void* own_pages(size_t bytes, size_t* rounded) {
  const size_t align = bytes >= 4 * kHuge ? kHuge : 4096;
  *rounded = (bytes + align - 1) / align * align;
  void* p = std::aligned_alloc(align, *rounded);
  if (p == nullptr) {
    std::fprintf(stderr, "FAIL: aligned_alloc of %zu bytes\n", *rounded);
    std::exit(1);
  }
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (align == kHuge) madvise(p, *rounded, MADV_HUGEPAGE);
#endif
  return p;
}

// Median seconds of make + give back; the block of the last repetition is kept for the copy
// test (made, timed copies, then given back outside the timing).
template <class Make, class Free>
double time_block(int reps, Make make, Free give_back) {
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const double t0 = bench::now_seconds();
    void* p = make();
    give_back(p);
    t.push_back(bench::now_seconds() - t0);
  }
  return bench::median(t);
}

// Host-to-device GB/s of one copy of min(bytes, 256 MiB) from block p (after a warm-up copy).
double h2d_gbps(const void* p, size_t bytes, void* dev) {
  const size_t b = std::min(bytes, size_t{256} << 20);
  BENCH_CUDA(cudaMemcpy(dev, p, b, cudaMemcpyHostToDevice));
  const double t0 = bench::now_seconds();
  BENCH_CUDA(cudaMemcpy(dev, p, b, cudaMemcpyHostToDevice));
  return bench::gbps(static_cast<double>(b), bench::now_seconds() - t0);
}

}  // namespace

int main(int argc, char** argv) {
  BENCH_PVEC(pvec_init(&argc, &argv));
  bench::Args args(argc, argv, kUsage);
  const bool quick = args.flag("--quick");
  std::vector<int64_t> defaults;
  for (int64_t b = int64_t{1} << 20; b <= int64_t{1} << 30; b *= 4) defaults.push_back(b);
  if (quick) defaults = {int64_t{1} << 20, int64_t{2} << 20};
  const std::vector<int64_t> sizes = bench::pick_sizes(args, defaults);
  const int reps = static_cast<int>(std::max<int64_t>(1, args.count("--reps", 5)));
  args.finish();

  if (!bench::start_on_device()) return 0;
  std::printf(
      "# bench_pinned_alloc on %s; make + give back one pinned block, median of %d; ratio = "
      "cuda_host_alloc time / time\n",
      bench::device_name().c_str(), reps);
  bench::Json("pinned_alloc")
      .str("name", "config")
      .str("device", bench::device_name())
      .integer("reps", reps)
      .print();
  bench::Table table({{"bytes", 6},
                      {"variant", 15},
                      {"time_ms", 9},
                      {"ns/byte", 7},
                      {"ratio", 6},
                      {"h2d_GB/s", 8}});
  table.header();
  void* dev = nullptr;
  BENCH_CUDA(cudaMalloc(&dev, size_t{256} << 20));
  for (int64_t n : sizes) {
    const size_t bytes = static_cast<size_t>(n);
    const double base = time_block(
        reps,
        [&] {
          void* p = nullptr;
          BENCH_CUDA(cudaHostAlloc(&p, bytes, cudaHostAllocPortable));
          return p;
        },
        [](void* p) { BENCH_CUDA(cudaFreeHost(p)); });
    size_t rounded = 0;
    const double reg = time_block(
        reps,
        [&] {
          void* p = own_pages(bytes, &rounded);
          BENCH_CUDA(cudaHostRegister(p, rounded, cudaHostRegisterPortable));
          return p;
        },
        [](void* p) {
          BENCH_CUDA(cudaHostUnregister(p));
          std::free(p);
        });
    // Copy speed from each kind of block.
    void* a = nullptr;
    BENCH_CUDA(cudaHostAlloc(&a, bytes, cudaHostAllocPortable));
    const double bw_base = h2d_gbps(a, bytes, dev);
    BENCH_CUDA(cudaFreeHost(a));
    void* b = own_pages(bytes, &rounded);
    BENCH_CUDA(cudaHostRegister(b, rounded, cudaHostRegisterPortable));
    const double bw_reg = h2d_gbps(b, bytes, dev);
    BENCH_CUDA(cudaHostUnregister(b));
    std::free(b);
    const struct {
      const char* name;
      double t, bw;
    } rows[] = {{"cuda_host_alloc", base, bw_base}, {"own_pages_reg", reg, bw_reg}};
    for (const auto& r : rows) {
      table.row({bench::count_str(n), r.name, bench::fmt("%.3f", r.t * 1e3),
                 bench::fmt("%.3f", r.t * 1e9 / static_cast<double>(bytes)),
                 bench::fmt("%.2f", base / r.t), bench::fmt("%.1f", r.bw)});
      bench::Json("pinned_alloc")
          .str("name", r.name)
          .integer("bytes", n)
          .integer("reps", reps)
          .num("time_s", r.t)
          .num("ns_per_byte", r.t * 1e9 / static_cast<double>(bytes))
          .str("baseline", "cuda_host_alloc")
          .num("ratio", base / r.t)
          .num("h2d_gbps", r.bw)
          .print();
    }
  }
  BENCH_CUDA(cudaFree(dev));
  BENCH_PVEC(pvec_finalize());
  return 0;
}
