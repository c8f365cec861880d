/* C side of fortran_c_interop: helpers that receive a Fortran vector as a plain pvec_vector_t
 * (from pvec_c_handle) and use nothing but pvec.h on it, as a user's C, C++ or CUDA host code
 * would. */
#include <pvec.h>

#include <stdint.h>

/** Writes offset + i into particle i (0-based) of the float64 scalar property prop and
 *  100*c + i into component c of the float64 vector property vprop, locating elements with
 *  the layout law base[c*capacity + i]. Returns the number of local particles, or -status. */
int64_t interop_fill(pvec_vector_t vec, int prop, int vprop, double offset) {
  int64_t n = 0, capacity = 0;
  pvec_layout lay = PVEC_LAYOUT_INIT;
  pvec_status st = pvec_vector_get_size(vec, &n);
  if (st != PVEC_SUCCESS) return -(int64_t)st;
  st = pvec_vector_get_capacity(vec, &capacity);
  if (st != PVEC_SUCCESS) return -(int64_t)st;
  double* s = (double*)pvec_host_ptr(vec, prop);
  double* v = (double*)pvec_host_ptr(vec, vprop);
  if (s == NULL || v == NULL) return -(int64_t)PVEC_ERROR_INVALID_ARGUMENT;
  st = pvec_vector_get_layout(vec, vprop, &lay);
  if (st != PVEC_SUCCESS) return -(int64_t)st;
  for (int64_t i = 0; i < n; ++i) {
    s[i] = offset + (double)i;
    for (int64_t c = 0; c < lay.ncomp; ++c) v[c * capacity + i] = 100.0 * (double)c + (double)i;
  }
  return n;
}

/** The status pvec_vector_get_size gives for this handle (a NULL or stale one is refused by C too).
 */
int interop_size_status(pvec_vector_t vec) {
  int64_t n = 0;
  return (int)pvec_vector_get_size(vec, &n);
}

/** Creates, in C, a vector of n particles with one float64 scalar "c_made" and hands it back
 *  through *out (Fortran wraps it with pvec_vector_from_c). Returns a pvec_status. */
int interop_create(int64_t n, pvec_vector_t* out) {
  pvec_schema_t schema = NULL;
  pvec_vector_desc desc = PVEC_VECTOR_DESC_INIT;
  pvec_status st = pvec_schema_create(&schema);
  if (st == PVEC_SUCCESS) st = pvec_schema_add_scalar(schema, "c_made", PVEC_FLOAT64, NULL);
  desc.n_particles = n;
  desc.placement = PVEC_PLACE_LOCAL;
  if (st == PVEC_SUCCESS) st = pvec_vector_create(&desc, schema, out);
  pvec_schema_destroy(schema);
  return (int)st;
}

/** Number of properties of a schema received from Fortran, or -status. */
int interop_schema_count(pvec_schema_t schema) {
  int count = 0;
  pvec_status st = pvec_schema_get_count(schema, &count);
  return st == PVEC_SUCCESS ? count : -(int)st;
}
