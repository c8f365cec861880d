// The host path's parallel ranges (host_parallel.hpp).
#include "backend/host_parallel.hpp"

#include <algorithm>

#if defined(PVEC_HAVE_OPENMP)
#include <omp.h>
#include <sched.h>
#endif

namespace pvec::impl {

namespace {

#if defined(PVEC_HAVE_OPENMP)
// The cores this process may run on, read once (mpirun binds a rank before it starts).
int allowed_cores() {
  static const int cores = [] {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
    return std::max(1, CPU_COUNT(&set));
  }();
  return cores;
}
#endif

int forced_threads = 0;
int64_t forced_grain = 0;

}  // namespace

void force_host_threads(int t, int64_t grain) {
  forced_threads = std::clamp(t, 0, kHostMaxThreads);
  forced_grain = forced_threads > 0 ? std::max<int64_t>(grain, 1) : 0;
}

int host_threads() {
#if defined(PVEC_HAVE_OPENMP)
  if (forced_threads > 0) return forced_threads;
  return std::clamp(std::min(omp_get_max_threads(), allowed_cores()), 1, kHostMaxThreads);
#else
  return 1;
#endif
}

int host_ranges(int64_t n, int64_t grain, void (*body)(void*, int64_t, int64_t, int), void* ctx) {
  if (n <= 0) return 0;
  if (forced_grain > 0) grain = forced_grain;
  const int64_t t =
      std::min<int64_t>(host_threads(), std::max<int64_t>(1, n / std::max<int64_t>(grain, 1)));
  if (t <= 1) {
    body(ctx, 0, n, 0);
    return 1;
  }
#if defined(PVEC_HAVE_OPENMP)
  const int T = static_cast<int>(t);
#pragma omp parallel num_threads(T)
  {
    // Fewer threads than asked may come: the ones that do share the ranges (still in order).
    const int got = omp_get_num_threads(), me = omp_get_thread_num();
    for (int r = me; r < T; r += got) body(ctx, n * r / T, n * (r + 1) / T, r);
  }
  return T;
#else
  body(ctx, 0, n, 0);
  return 1;
#endif
}

}  // namespace pvec::impl
