/* Prints, as JSON, the sizes and field offsets of pvec.h's structs and the values of its
 * constants, so that test_abi.py can compare them with the ctypes declarations in
 * pvec/capi.py. Built by bindings/python/CMakeLists.txt; needs only the header. */
#include <stddef.h>
#include <stdio.h>

#include "pvec.h"

#define FIELD(type, field)                                                         \
  printf("%s\"%s\": [%zu, %zu]", first ? "" : ", ", #field, offsetof(type, field), \
         sizeof(((type*)0)->field));                                               \
  first = 0
#define CONST(name)                                                      \
  printf("%s\"%s\": %lld", first ? "" : ", ", #name, (long long)(name)); \
  first = 0

int main(void) {
  int first = 1;
  printf("{\"pvec_vector_desc\": {\"size\": %zu, \"fields\": {", sizeof(pvec_vector_desc));
  FIELD(pvec_vector_desc, struct_size);
  FIELD(pvec_vector_desc, dim);
  FIELD(pvec_vector_desc, pos_dtype);
  FIELD(pvec_vector_desc, domain_lo);
  FIELD(pvec_vector_desc, domain_hi);
  FIELD(pvec_vector_desc, boundary);
  FIELD(pvec_vector_desc, ghost_width);
  FIELD(pvec_vector_desc, n_particles);
  FIELD(pvec_vector_desc, placement);
  FIELD(pvec_vector_desc, backend);
  FIELD(pvec_vector_desc, host_memory);
  FIELD(pvec_vector_desc, has_comm);
  FIELD(pvec_vector_desc, comm_f);
  first = 1;
  printf("}},\n \"pvec_layout\": {\"size\": %zu, \"fields\": {", sizeof(pvec_layout));
  FIELD(pvec_layout, struct_size);
  FIELD(pvec_layout, prop);
  FIELD(pvec_layout, name);
  FIELD(pvec_layout, dtype);
  FIELD(pvec_layout, elem_size);
  FIELD(pvec_layout, rank);
  FIELD(pvec_layout, extents);
  FIELD(pvec_layout, ncomp);
  FIELD(pvec_layout, capacity);
  FIELD(pvec_layout, stride_elems);
  FIELD(pvec_layout, stride_bytes);
  FIELD(pvec_layout, n_local);
  FIELD(pvec_layout, n_ghost);
  FIELD(pvec_layout, generation);
  FIELD(pvec_layout, host_ptr);
  FIELD(pvec_layout, device_ptr);
  first = 1;
  printf("}},\n \"pvec_memory_stats\": {\"size\": %zu, \"fields\": {", sizeof(pvec_memory_stats));
  FIELD(pvec_memory_stats, struct_size);
  FIELD(pvec_memory_stats, host_bytes);
  FIELD(pvec_memory_stats, pinned_bytes);
  FIELD(pvec_memory_stats, device_bytes);
  FIELD(pvec_memory_stats, host_allocs);
  FIELD(pvec_memory_stats, pinned_allocs);
  FIELD(pvec_memory_stats, device_allocs);
  first = 1;
  printf("}},\n \"pvec_op_stats\": {\"size\": %zu, \"fields\": {", sizeof(pvec_op_stats));
  FIELD(pvec_op_stats, struct_size);
  FIELD(pvec_op_stats, compute_seconds);
  FIELD(pvec_op_stats, exchange_seconds);
  FIELD(pvec_op_stats, bytes_sent);
  FIELD(pvec_op_stats, bytes_received);
  FIELD(pvec_op_stats, particles_sent);
  FIELD(pvec_op_stats, particles_received);
  FIELD(pvec_op_stats, particles_self);
  FIELD(pvec_op_stats, transport);
  first = 1;
  printf("}},\n \"constants\": {");
  CONST(PVEC_VERSION_MAJOR);
  CONST(PVEC_VERSION_MINOR);
  CONST(PVEC_VERSION_PATCH);
  CONST(PVEC_VERSION_NUMBER);
  CONST(PVEC_MAX_RANK);
  CONST(PVEC_MAX_NAME);
  CONST(PVEC_MAX_DIM);
  CONST(PVEC_POS);
  printf("},\n \"enum_sizes\": {\"pvec_status\": %zu, \"pvec_dtype\": %zu}}\n", sizeof(pvec_status),
         sizeof(pvec_dtype));
  return 0;
}
