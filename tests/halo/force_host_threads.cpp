// Linked into dist_host_threads only: before any test runs, the host path's parallel loops
// are made to use 3 threads, in ranges from 8 items on (pvec's internal hook; beyond the cores
// a rank is bound to), so that the ghost and map tests, which compare against brute-force
// references, run the threaded passes and the host row kernels at their small sizes.
#include "backend/host_parallel.hpp"
#include "catch_compat.hpp"

namespace {
const bool g_forced = (pvec::impl::force_host_threads(3, 8), true);
}  // namespace

TEST_CASE("the tests of this program run on 3 host threads") {
  REQUIRE(g_forced);
#if defined(PVEC_TEST_HOST_OPENMP)
  CHECK(pvec::impl::host_threads() == 3);
#else
  CHECK(pvec::impl::host_threads() == 1);  // a build without OpenMP is serial
#endif
}
