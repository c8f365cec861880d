// PropertyBuffer: one property (or the positions) of a particle set, as two mirrors with the
// same layout: component c of particle i at element c*capacity + i. The capacity is owned by
// the ParticleSet, which reallocates all buffers together.
#pragma once

#include "particles/schema.hpp"

namespace pvec::impl {

struct PropertyBuffer {
  PropertySpec spec;
  void* host = nullptr;
  void* dev = nullptr;

  void* mirror(bool device) const { return device ? dev : host; }
  // Bytes of one component row for a given capacity.
  size_t row_bytes(int64_t capacity) const {
    return static_cast<size_t>(capacity) * spec.elem_size;
  }
  size_t bytes(int64_t capacity) const {
    return row_bytes(capacity) * static_cast<size_t>(spec.ncomp);
  }
};

}  // namespace pvec::impl
