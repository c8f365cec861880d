/* C side of the Fortran binding tests: an independent reader/writer of the layout law, so that
 * the tests compare the Fortran views with addresses computed by C from pvec.h alone. (What
 * only C knows -- sizeof, offsetof, the values of the enums and macros -- comes from the C
 * dumper generated from the ABI description, abi/gen_abi_dump.py.) */
#include <pvec.h>

#include <stddef.h>
#include <stdint.h>

/* Element (i, c) (0-based particle, 0-based component) of the host mirror of prop, located
 * with the C layout law ptr[c*stride_elems + i] and nothing else. */
static void* element(pvec_vector_t vec, int prop, int64_t i, int64_t c, pvec_dtype* dtype) {
  pvec_layout lay = PVEC_LAYOUT_INIT;
  if (pvec_vector_get_layout(vec, prop, &lay) != PVEC_SUCCESS) return NULL;
  if (i < 0 || i >= lay.capacity || c < 0 || c >= lay.ncomp) return NULL;
  *dtype = lay.dtype;
  return (char*)lay.host_ptr + (size_t)(c * lay.stride_elems + i) * lay.elem_size;
}

/** Value of element (i, c) converted to double (unsigned types read as unsigned); *ok = 0
 *  when the arguments are out of range. */
double pvec_ftest_read(pvec_vector_t vec, int prop, int64_t i, int64_t c, int* ok) {
  pvec_dtype t = PVEC_FLOAT32;
  void* p = element(vec, prop, i, c, &t);
  *ok = p != NULL;
  if (p == NULL) return 0.0;
  switch (t) {
    case PVEC_FLOAT32:
      return *(float*)p;
    case PVEC_FLOAT64:
      return *(double*)p;
    case PVEC_INT32:
      return *(int32_t*)p;
    case PVEC_INT64:
      return (double)*(int64_t*)p;
    case PVEC_UINT32:
      return *(uint32_t*)p;
    case PVEC_UINT64:
      return (double)*(uint64_t*)p;
  }
  *ok = 0;
  return 0.0;
}

/** Store value (converted to the property's dtype) at element (i, c); returns 1 on success. */
int pvec_ftest_write(pvec_vector_t vec, int prop, int64_t i, int64_t c, double value) {
  pvec_dtype t = PVEC_FLOAT32;
  void* p = element(vec, prop, i, c, &t);
  if (p == NULL) return 0;
  switch (t) {
    case PVEC_FLOAT32:
      *(float*)p = (float)value;
      return 1;
    case PVEC_FLOAT64:
      *(double*)p = value;
      return 1;
    case PVEC_INT32:
      *(int32_t*)p = (int32_t)value;
      return 1;
    case PVEC_INT64:
      *(int64_t*)p = (int64_t)value;
      return 1;
    case PVEC_UINT32:
      *(uint32_t*)p = (uint32_t)value;
      return 1;
    case PVEC_UINT64:
      *(uint64_t*)p = (uint64_t)value;
      return 1;
  }
  return 0;
}
