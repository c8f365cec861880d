// Section 4 of pvec.h: vectors, their queries, growth and removal.
#include "capi/guard.hpp"
#include "capi/versioned.hpp"

using namespace pvec::impl;
using namespace pvec::impl::capi;

/* ---- 4. Vectors ---------------------------------------------------------------------- */

extern "C" pvec_status pvec_vector_desc_init(pvec_vector_desc* desc) {
  return guard("pvec_vector_desc_init", [&] {
    pvec_vector_desc d = PVEC_VECTOR_DESC_INIT;
    out_arg(desc, "desc") = d;
  });
}

extern "C" pvec_status pvec_vector_create(const pvec_vector_desc* desc, pvec_schema_t schema,
                                          pvec_vector_t* out) {
  return op_guard("pvec_vector_create", [&] {
    const pvec_vector_desc d = read_versioned(desc, pvec_vector_desc PVEC_VECTOR_DESC_INIT,
                                              PVEC_VECTOR_DESC_SIZE_V1, "desc", "pvec_vector_desc");
    out_arg(out, "out");
    const Schema& s = schemas().get(schema);
    require_init();
    auto v = std::make_unique<DistVector>(d, s);
    *out = to_handle<pvec_vector_t>(vectors().insert(std::move(v)));
  });
}

extern "C" pvec_status pvec_vector_destroy(pvec_vector_t vec) {
  return op_guard("pvec_vector_destroy", [&] { vectors().take(vec); });
}

extern "C" pvec_status pvec_vector_get_size(pvec_vector_t vec, int64_t* n) {
  return guard("pvec_vector_get_size", [&] {
    auto& v = vec_of(vec);
    out_arg(n, "n_local") = v.particles().n_local();
  });
}

extern "C" pvec_status pvec_vector_get_ghost_size(pvec_vector_t vec, int64_t* n) {
  return guard("pvec_vector_get_ghost_size", [&] {
    auto& v = vec_of(vec);
    out_arg(n, "n_ghost") = v.particles().n_ghost();
  });
}

extern "C" pvec_status pvec_vector_get_capacity(pvec_vector_t vec, int64_t* c) {
  return guard("pvec_vector_get_capacity", [&] {
    auto& v = vec_of(vec);
    out_arg(c, "capacity") = v.particles().capacity();
  });
}

extern "C" pvec_status pvec_vector_get_dim(pvec_vector_t vec, int* dim) {
  return guard("pvec_vector_get_dim", [&] {
    auto& v = vec_of(vec);
    out_arg(dim, "dim") = v.dim();
  });
}

extern "C" pvec_status pvec_vector_get_pos_dtype(pvec_vector_t vec, pvec_dtype* dtype) {
  return guard("pvec_vector_get_pos_dtype", [&] {
    auto& v = vec_of(vec);
    out_arg(dtype, "dtype") = v.pos_dtype();
  });
}

extern "C" pvec_status pvec_vector_get_domain(pvec_vector_t vec, double* lo, double* hi) {
  return guard("pvec_vector_get_domain", [&] {
    auto& v = vec_of(vec);
    if (lo == nullptr && hi == nullptr) fail(PVEC_ERROR_INVALID_ARGUMENT, "lo and hi are NULL");
    for (int d = 0; d < v.dim(); ++d) {
      if (lo) lo[d] = v.grid().lo[d];
      if (hi) hi[d] = v.grid().hi[d];
    }
  });
}

extern "C" pvec_status pvec_vector_get_boundaries(pvec_vector_t vec, int* bc) {
  return guard("pvec_vector_get_boundaries", [&] {
    auto& v = vec_of(vec);
    out_arg(bc, "bc");
    for (int d = 0; d < v.dim(); ++d)
      bc[d] = v.grid().periodic[d] ? PVEC_PERIODIC : PVEC_NON_PERIODIC;
  });
}

extern "C" pvec_status pvec_vector_get_ghost_width(pvec_vector_t vec, double* width) {
  return guard("pvec_vector_get_ghost_width", [&] {
    auto& v = vec_of(vec);
    out_arg(width, "width") = v.ghost_width();
  });
}

extern "C" pvec_status pvec_vector_get_prop_count(pvec_vector_t vec, int* count) {
  return guard("pvec_vector_get_prop_count", [&] {
    auto& v = vec_of(vec);
    out_arg(count, "count") = v.schema().count();
  });
}

extern "C" pvec_status pvec_vector_get_prop_index(pvec_vector_t vec, const char* name, int* prop) {
  return guard("pvec_vector_get_prop_index", [&] {
    auto& v = vec_of(vec);
    if (name == nullptr) fail(PVEC_ERROR_INVALID_ARGUMENT, "name is NULL");
    out_arg(prop, "prop");
    if (std::strcmp(name, "pos") == 0) {
      *prop = PVEC_POS;
      return;
    }
    int k = v.schema().find(name);
    if (k < 0) fail(PVEC_ERROR_INVALID_ARGUMENT, "no property is called \"", name, "\"");
    *prop = k;
  });
}

extern "C" pvec_status pvec_vector_get_backend(pvec_vector_t vec, pvec_backend* backend) {
  return guard("pvec_vector_get_backend", [&] {
    auto& v = vec_of(vec);
    out_arg(backend, "backend") = v.particles().cuda() ? PVEC_BACKEND_CUDA : PVEC_BACKEND_HOST;
  });
}

extern "C" pvec_status pvec_vector_get_device(pvec_vector_t vec, int* device) {
  return guard("pvec_vector_get_device", [&] {
    auto& v = vec_of(vec);
    out_arg(device, "device") = v.particles().device();
  });
}

extern "C" pvec_status pvec_vector_get_generation(pvec_vector_t vec, uint64_t* generation) {
  return guard("pvec_vector_get_generation", [&] {
    auto& v = vec_of(vec);
    out_arg(generation, "generation") = v.particles().generation();
  });
}

extern "C" pvec_status pvec_vector_reserve(pvec_vector_t vec, int64_t n) {
  return op_guard("pvec_vector_reserve", [&] {
    auto& v = vec_of(vec);
    v.reserve(n);
  });
}

extern "C" pvec_status pvec_vector_resize(pvec_vector_t vec, int64_t n) {
  return op_guard("pvec_vector_resize", [&] {
    auto& v = vec_of(vec);
    v.resize(n);
  });
}

extern "C" pvec_status pvec_vector_append(pvec_vector_t vec, int64_t k, int64_t* first) {
  return op_guard("pvec_vector_append", [&] {
    auto& v = vec_of(vec);
    int64_t f = v.append(k);
    if (first) *first = f;
  });
}

extern "C" pvec_status pvec_vector_remove(pvec_vector_t vec, const int64_t* indices,
                                          int64_t count) {
  return op_guard("pvec_vector_remove", [&] {
    auto& v = vec_of(vec);
    v.remove(indices, count);
  });
}

extern "C" pvec_status pvec_vector_shrink_to_fit(pvec_vector_t vec) {
  return op_guard("pvec_vector_shrink_to_fit", [&] {
    auto& v = vec_of(vec);
    v.shrink_to_fit();
  });
}
