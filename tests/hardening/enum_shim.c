/* Calls with out-of-range enum values, made from C: in C any int converts to an enum type,
 * as a C or Fortran caller of pvec may do; the C++ matrix cannot make such values without
 * undefined behaviour of its own. Whatever a sanitizer then reports is in pvec. */
#include <pvec.h>

size_t shim_dtype_size(int d) { return pvec_dtype_size((pvec_dtype)d); }
const char* shim_dtype_name(int d) { return pvec_dtype_name((pvec_dtype)d); }
const char* shim_status_string(int s) { return pvec_status_string((pvec_status)s); }

pvec_status shim_schema_add(pvec_schema_t s, const char* name, int dtype, int rank,
                            const int64_t* extents, int* index) {
  return pvec_schema_add(s, name, (pvec_dtype)dtype, rank, extents, index);
}
pvec_status shim_schema_add_scalar(pvec_schema_t s, const char* name, int dtype, int* index) {
  return pvec_schema_add_scalar(s, name, (pvec_dtype)dtype, index);
}
pvec_status shim_schema_add_vector(pvec_schema_t s, const char* name, int dtype, int64_t n,
                                   int* index) {
  return pvec_schema_add_vector(s, name, (pvec_dtype)dtype, n, index);
}
pvec_status shim_schema_add_tensor(pvec_schema_t s, const char* name, int dtype, int64_t n,
                                   int64_t m, int* index) {
  return pvec_schema_add_tensor(s, name, (pvec_dtype)dtype, n, m, index);
}
pvec_status shim_ghost_put(pvec_vector_t v, const int* props, int nprops, int op, unsigned flags) {
  return pvec_ghost_put(v, props, nprops, (pvec_reduce_op)op, flags);
}
pvec_status shim_ghost_put_begin(pvec_vector_t v, const int* props, int nprops, int op,
                                 unsigned flags) {
  return pvec_ghost_put_begin(v, props, nprops, (pvec_reduce_op)op, flags);
}
void shim_set_pos_dtype(pvec_vector_desc* d, int dtype) { d->pos_dtype = (pvec_dtype)dtype; }
