// Main for every test program: starts pvec (and MPI when built in), runs Catch2, and makes
// the exit status agree on all ranks so that one failing rank fails the whole MPI test.
#if !__has_include(<catch2/catch_test_macros.hpp>)
#define CATCH_CONFIG_RUNNER
#endif
#include "catch_compat.hpp"
#include "test_support.hpp"

#include <cstdio>

int main(int argc, char** argv) {
  if (pvec_init(&argc, &argv) != PVEC_SUCCESS) {
    std::fprintf(stderr, "pvec_init failed: %s\n", pvec_last_error());
    return 1;
  }
  int skip = pvec_test::skip_code();
  if (skip != 0) {
    pvec_finalize();
    return skip;
  }
  int result = Catch::Session().run(argc, argv);
  result = pvec_test::all_ranks_max(result);
  pvec_finalize();
  return result;
}
