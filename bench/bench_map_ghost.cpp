// bench_map_ghost: pvec_map and pvec_ghost_get on the device mirrors (PVEC_ON_DEVICE), the
// realistic particle, 2^20..2^27 particles per rank, 1%..50% movers; at 1 rank and under
// mpiexec. Without a CUDA device the device path runs on the host backend (and says so), so
// the --quick CTest run exercises the same code on machines without a GPU.
// See map_ghost_driver.cpp and docs/performance.md.
#include "map_ghost_driver.hpp"

int main(int argc, char** argv) { return bench::run_map_ghost(argc, argv, true); }
