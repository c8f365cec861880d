// Linked into dist_ghost_wide only: before any test runs, every index list of ghost_get is
// made int64 (pvec's internal hook), so that the ghost tests run the path of ranks with more
// than 2^31 particles at small sizes.
#include "common/index_list.hpp"
#include "catch_compat.hpp"

namespace {
const bool g_forced = (pvec::impl::force_wide_indices(true), true);
}  // namespace

TEST_CASE("the ghost tests of this program run with wide index lists") {
  REQUIRE(g_forced);
  CHECK_FALSE(pvec::impl::narrow_indices(100));
  CHECK(pvec::impl::IndexList::fits_narrow(100));
}
