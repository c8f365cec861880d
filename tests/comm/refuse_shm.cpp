// Linked into dist_shm_refused only: before any test runs, rank 1 is made to refuse shared
// memory (pvec's internal hook), so that a vector's first host call, which makes the window,
// turns shared memory off on every rank and its host calls go through MPI; the tests'
// transport checks expect that.
#include "comm/shm_exchange.hpp"
#include "dist_util.hpp"

namespace {
const bool g_set = (pvec::impl::shm_refuse_on_rank(1), dist::g_shm_refused = true, true);
}  // namespace

TEST_CASE("the tests of this program run with rank 1 refusing shared memory") {
  REQUIRE(g_set);
  CHECK(dist::g_shm_refused);
}
