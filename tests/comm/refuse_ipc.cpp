// Linked into dist_ipc_refused only: before any test runs, rank 1 is made to refuse CUDA IPC
// (pvec's internal hook), so that a vector's first device exchange that needs a landing buffer
// turns IPC off on every rank and its device calls go through MPI, staged through host
// memory; the tests' transport checks expect that.
#include "dist_util.hpp"
#include "comm/ipc_exchange.hpp"

namespace {
const bool g_set = (pvec::impl::ipc_refuse_on_rank(1), dist::g_ipc_refused = true, true);
}  // namespace

TEST_CASE("the tests of this program run with rank 1 refusing CUDA IPC") {
  REQUIRE(g_set);
  CHECK(dist::g_ipc_refused);
}
