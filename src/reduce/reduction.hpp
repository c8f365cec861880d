// Reductions over a vector's communicator (pvec_vector_reduce, pvec_vector_allreduce): the sum,
// minimum or maximum of each component of a property over every rank's local particles, read
// where they are (the device mirror on the GPU, one CUB reduction per component, only the
// results come back), or of values the caller gives. docs/reductions.md.
#pragma once

#include <pvec.h>

#include "comm/communicator.hpp"
#include "memory/scratch_buffer.hpp"
#include "particles/particle_set.hpp"

#include <cstdint>

namespace pvec::impl {

// PVEC_REDUCE_ADD, _MIN, _MAX as an AllreduceOp; anything else is INVALID_ARGUMENT.
AllreduceOp allreduce_op_of(int op);

// The type a property's reduction comes back in: FLOAT64 for float32/float64, INT64 for
// int32/int64, UINT64 for uint32/uint64 (sums of 32-bit values do not overflow so soon, and
// one result type per kind is simpler to bind).
pvec_dtype widened(pvec_dtype t);

// values[0, count) of dtype combined over comm's ranks in place. A NaN on any rank makes that
// entry NaN on every rank (MPI's MIN and MAX would drop it). Every rank must pass the same
// count, dtype and op: a rank that does not makes every rank fail (INVALID_ARGUMENT), with the
// values unchanged. Collective.
void allreduce_values(const Communicator& comm, void* values, int64_t count, pvec_dtype dtype,
                      AllreduceOp op);

// Work memory of reduce_column: CUB's temporary storage and the results on the device, kept
// so that steady state allocates nothing.
struct ReduceScratch {
  ScratchBuffer tmp, out;
};

// result[c], for each component c of column col, the sum, minimum or maximum over the local
// rows [0, n_local) of the chosen mirror and over comm's ranks, in widened(dtype) (ncomp
// values). No local rows on any rank: 0 for a sum; the largest value of the type (+inf) for a
// minimum and the smallest (-inf) for a maximum. Column and op must be the same on every rank
// (checked, as allreduce_values). Collective.
void reduce_column(ParticleSet& ps, int col, bool device, AllreduceOp op, const Communicator& comm,
                   ReduceScratch& s, void* result);

// Sum and minimum of one float32 or float64 component column over the local rows [0, n_local)
// of the chosen mirror, on this rank only (no communication; on the device one CUB reduction
// each, only the results come back); nan: some value is NaN (sum and min then ignore it).
struct LocalStats {
  double sum = 0;
  double min = 0;  // +inf without rows
  bool nan = false;
};
LocalStats local_stats(ParticleSet& ps, int col, bool device, ReduceScratch& s);

}  // namespace pvec::impl
