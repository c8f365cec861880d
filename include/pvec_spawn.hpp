// pvec_spawn.hpp -- claiming slots of a spawn (pvec_vector_spawn_begin) from kernels.
//
// A pvec_spawner is a plain C struct passed by value to a kernel. Each thread that creates
// particles claims slots with pvec::spawn_claim and writes the new particles' positions and
// properties at the rows it gets, with the layout law of pvec.h (component c of property p at
// base_p[c * s.capacity + row]); pvec::spawn_id gives the globally unique id of a row (after
// pvec_vector_ids_init). A claim past the reservation returns -1: write nothing then; the commit
// (pvec_vector_spawn_commit) reports how many slots were asked for and adds nothing.
//
//     __global__ void inflow(pvec_spawner s, double* pos, std::int64_t* id, int n_new) {
//       int t = blockIdx.x * blockDim.x + threadIdx.x;
//       if (t >= n_new) return;
//       const std::int64_t row = pvec::spawn_claim(s);
//       if (row < 0) return;  // more asked than reserved: the commit says how many
//       pos[0 * s.capacity + row] = 0.0;
//       id[row] = pvec::spawn_id(s, row);
//     }
//
// Needs only pvec.h; usable in device-only translation units, and on the host (host mirror
// spawns, or the host backend) with the compiler's atomics.
#ifndef PVEC_SPAWN_HPP
#define PVEC_SPAWN_HPP

#include <pvec.h>

#include <cstdint>

#if defined(__CUDACC__)
#define PVEC_SPAWN_HD __host__ __device__
#else
#define PVEC_SPAWN_HD
#endif

namespace pvec {

/// Claims count consecutive slots of the spawn (one atomic addition) and returns the row of the
/// first, or -1 when they do not all fit the reservation (the claim still counts toward what
/// the commit reports). Thread-safe on the device and on the host.
PVEC_SPAWN_HD inline std::int64_t spawn_claim(const pvec_spawner& s, std::int64_t count = 1) {
  const unsigned long long n = static_cast<unsigned long long>(count);
#if defined(__CUDA_ARCH__)
  const unsigned long long k = atomicAdd(s.counter, n);
#else
  const unsigned long long k = __atomic_fetch_add(s.counter, n, __ATOMIC_RELAXED);
#endif
  return k + n <= static_cast<unsigned long long>(s.limit) ? s.first + static_cast<std::int64_t>(k)
                                                           : -1;
}

/// The globally unique id of a claimed row: s.id_first + (row - s.first) * s.id_stride
/// (-1 based when the vector has no ids: call pvec_vector_ids_init first).
PVEC_SPAWN_HD inline std::int64_t spawn_id(const pvec_spawner& s, std::int64_t row) {
  return s.id_first + (row - s.first) * s.id_stride;
}

}  // namespace pvec

#undef PVEC_SPAWN_HD
#endif  // PVEC_SPAWN_HPP
