// Where the map / ghost_get benchmark puts its particles, shared by the host side and the
// CUDA side (map_ghost_cuda.cu) so that both paths see the same particles.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define BENCH_HD __host__ __device__
#else
#define BENCH_HD
#endif

namespace bench {

BENCH_HD inline uint64_t mix(uint64_t z) {  // splitmix64 finaliser
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

constexpr uint32_t kGridBits = 20;  // coordinates lie on 2^20 points per dimension

// How particle indices relate to space. random: every particle anywhere in the subdomain,
// independent of its index. sorted: the subdomain is cut into cells[0] x cells[1] x cells[2]
// cells and particle i lies in cell floor(i * ncells / n) (row-major, last dimension
// fastest), i.e. the particles are ordered by cell as a code with cell lists keeps them.
struct Placement {
  bool sorted = false;
  int64_t cells[3] = {1, 1, 1};
};

// Grid coordinate k in [0, 2^20) along d of particle i of n (position lo + (hi-lo) k / 2^20).
BENCH_HD inline uint32_t grid_coord(const Placement& p, uint64_t seed, int64_t i, int64_t n,
                                    int d) {
  const uint32_t r = static_cast<uint32_t>(mix(seed ^ (static_cast<uint64_t>(i) * 4 + d)) &
                                           ((1u << kGridBits) - 1));
  if (!p.sorted) return r;
  const int64_t ncells = p.cells[0] * p.cells[1] * p.cells[2];
  // i * ncells fits in 64 bits: both stay below 2^31 (the driver keeps ncells small).
  int64_t q = static_cast<int64_t>(static_cast<uint64_t>(i) * ncells / n);
  int64_t qd = 0;
  for (int k = 2; k >= d; --k) {
    qd = q % p.cells[k];
    q /= p.cells[k];
  }
  return static_cast<uint32_t>(((static_cast<uint64_t>(qd) << kGridBits) + r) / p.cells[d]);
}

}  // namespace bench
