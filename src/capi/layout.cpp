// Section 5 of pvec.h: layout and raw pointers.
#include "capi/guard.hpp"
#include "capi/versioned.hpp"

using namespace pvec::impl;
using namespace pvec::impl::capi;

/* ---- 5. Layout and pointers ---------------------------------------------------------- */

extern "C" pvec_status pvec_layout_get(pvec_vector_t vec, int prop, pvec_layout* out) {
  return guard("pvec_layout_get", [&] {
    auto& v = vec_of(vec);
    versioned_size(out, PVEC_LAYOUT_SIZE_V1, "out", "pvec_layout");
    int col = v.column_of(prop);
    ParticleSet& ps = v.mirrors();
    ps.flush_device();
    const PropertyBuffer& b = ps.column(col);
    pvec_layout l = PVEC_LAYOUT_INIT;
    l.prop = prop;
    l.name = b.spec.name.c_str();
    l.dtype = b.spec.dtype;
    l.elem_size = b.spec.elem_size;
    l.rank = b.spec.rank;
    for (int k = 0; k < PVEC_MAX_RANK; ++k) l.extents[k] = b.spec.extents[k];
    l.ncomp = b.spec.ncomp;
    l.capacity = ps.capacity();
    l.stride_elems = ps.capacity();
    l.stride_bytes = ps.capacity() * static_cast<int64_t>(b.spec.elem_size);
    l.n_local = ps.n_local();
    l.n_ghost = ps.n_ghost();
    l.generation = ps.generation();
    l.host_ptr = b.host;
    l.device_ptr = b.dev;
    write_versioned(out, l, PVEC_LAYOUT_SIZE_V1, "out", "pvec_layout");
  });
}

extern "C" void* pvec_host_ptr(pvec_vector_t vec, int prop) {
  return pointer_guard("pvec_host_ptr", [&]() -> void* {
    auto& v = vec_of(vec);
    return v.particles().column(v.column_of(prop)).host;
  });
}

extern "C" void* pvec_device_ptr(pvec_vector_t vec, int prop) {
  return pointer_guard("pvec_device_ptr", [&]() -> void* {
    auto& v = vec_of(vec);
    int col = v.column_of(prop);
    v.mirrors().flush_device();
    return v.particles().column(col).dev;
  });
}
