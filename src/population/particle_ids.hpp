// Globally unique particle ids without communication: after ids_init numbered N particles
// (or found the largest id M, N = M + 1), rank r of P hands out N + k * P + r for its k-th
// new id (pvec_vector_ids_init / _take, and the spawner's id_first / id_stride).
#pragma once

#include "particles/particle_set.hpp"

#include <cstdint>

namespace pvec::impl {

struct IdCounter {
  bool set = false;
  int column = -1;   // the id property's column
  int64_t base = 0;  // N: the first id past those numbered or found
  int64_t next = 0;  // k: the ids this rank has handed out since
  // The id of this rank's k-th new id from now on (next + ahead); throws OVERFLOW when it
  // would not fit an int64.
  int64_t id_at(int64_t ahead, int rank, int nranks) const;
};

// Writes offset + i into local row i of the scalar 8-byte integer column, on the mirror.
void number_ids(ParticleSet& ps, bool device, int column, int64_t offset);

}  // namespace pvec::impl
