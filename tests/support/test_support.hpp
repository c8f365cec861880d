// Helpers shared by test programs.
#pragma once
#include <pvec.h>

namespace pvec_test {

// Programs that need a GPU define PVEC_TEST_NEEDS_GPU; without a device they print why and
// exit with 77, which CTest reports as skipped. Returns 0 when the program should run.
int skip_code();

// Largest value of v over all ranks of MPI_COMM_WORLD (v itself without MPI).
int all_ranks_max(int v);

// Rank and size of MPI_COMM_WORLD (0 and 1 without MPI).
int world_rank();
int world_size();

// PVEC_TEST_LIGHT is set (scripts/hardening.sh sets it for the sanitizer runs): the few tests
// whose own arithmetic dominates under the sanitizers run smaller instances of the same code
// paths; the plain suite (scripts/test.sh) runs the full sizes.
bool light();

}  // namespace pvec_test
