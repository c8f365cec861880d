// Section 3 of pvec.h: schemas.
#include "capi/guard.hpp"
#include "common/dtype.hpp"

#include <cstring>

using namespace pvec::impl;
using namespace pvec::impl::capi;

/* ---- 3. Schemas ---------------------------------------------------------------------- */

extern "C" size_t pvec_dtype_size(pvec_dtype d) { return dtype_size(enum_value(d)); }
extern "C" const char* pvec_dtype_name(pvec_dtype d) { return dtype_name(enum_value(d)); }

extern "C" pvec_status pvec_schema_create(pvec_schema_t* out) {
  return guard("pvec_schema_create", [&] {
    auto& o = out_arg(out, "out");
    o = to_handle<pvec_schema_t>(schemas().insert(std::make_unique<Schema>()));
  });
}

extern "C" pvec_status pvec_schema_destroy(pvec_schema_t schema) {
  return guard("pvec_schema_destroy", [&] { schemas().take(schema); });
}

extern "C" pvec_status pvec_schema_add(pvec_schema_t schema, const char* name, pvec_dtype dtype,
                                       int rank, const int64_t* extents, int* index) {
  return guard("pvec_schema_add", [&] {
    int k = schemas().get(schema).add(name, enum_value(dtype), rank, extents);
    if (index) *index = k;
  });
}

extern "C" pvec_status pvec_schema_add_scalar(pvec_schema_t schema, const char* name,
                                              pvec_dtype dtype, int* index) {
  return guard("pvec_schema_add_scalar", [&] {
    int k = schemas().get(schema).add(name, enum_value(dtype), 0, nullptr);
    if (index) *index = k;
  });
}

extern "C" pvec_status pvec_schema_add_vector(pvec_schema_t schema, const char* name,
                                              pvec_dtype dtype, int64_t n, int* index) {
  return guard("pvec_schema_add_vector", [&] {
    int64_t ext[1] = {n};
    int k = schemas().get(schema).add(name, enum_value(dtype), 1, ext);
    if (index) *index = k;
  });
}

extern "C" pvec_status pvec_schema_add_tensor(pvec_schema_t schema, const char* name,
                                              pvec_dtype dtype, int64_t n, int64_t m, int* index) {
  return guard("pvec_schema_add_tensor", [&] {
    int64_t ext[2] = {n, m};
    int k = schemas().get(schema).add(name, enum_value(dtype), 2, ext);
    if (index) *index = k;
  });
}

extern "C" pvec_status pvec_schema_get_count(pvec_schema_t schema, int* count) {
  return guard("pvec_schema_get_count", [&] {
    const Schema& s = schemas().get(schema);
    out_arg(count, "count") = s.count();
  });
}

extern "C" pvec_status pvec_schema_get_property(pvec_schema_t schema, int index, char* name,
                                                size_t name_size, pvec_dtype* dtype, int* rank,
                                                int64_t* extents) {
  return guard("pvec_schema_get_property", [&] {
    const Schema& s = schemas().get(schema);
    if (index < 0 || index >= s.count())
      fail(PVEC_ERROR_OUT_OF_RANGE, "property index ", index, " is outside [0, ", s.count(), ")");
    const PropertySpec& p = s.props()[static_cast<size_t>(index)];
    if (name && name_size < p.name.size() + 1)
      fail(PVEC_ERROR_INVALID_ARGUMENT, "name_size ", name_size, " cannot hold the name '", p.name,
           "' and its NUL (", p.name.size() + 1, " bytes)");
    if (name) std::memcpy(name, p.name.c_str(), p.name.size() + 1);
    if (dtype) *dtype = p.dtype;
    if (rank) *rank = p.rank;
    if (extents)
      for (int k = 0; k < PVEC_MAX_RANK; ++k) extents[k] = k < p.rank ? p.extents[k] : 1;
  });
}
