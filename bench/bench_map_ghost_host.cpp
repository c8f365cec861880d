// bench_map_ghost_host: pvec_map and pvec_ghost_get on the host mirrors (flags 0), the
// realistic particle, 1e4..1e7 particles per rank, 1%..50% movers, at 1..4 ranks under
// mpiexec. See map_ghost_driver.cpp and docs/performance.md.
#include "map_ghost_driver.hpp"

int main(int argc, char** argv) { return bench::run_map_ghost(argc, argv, false); }
