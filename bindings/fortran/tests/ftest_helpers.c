/* C side of the Fortran binding tests: what only C knows (sizeof, offsetof, the values of the
 * enums and macros) and an independent reader/writer of the layout law, so that the tests
 * compare the Fortran views with addresses computed by C from pvec.h alone. */
#include <pvec.h>

#include <stddef.h>
#include <stdint.h>

/** sizeof of struct `which`: 0 pvec_vector_desc, 1 pvec_layout, 2 pvec_memory_stats,
 *  3 pvec_op_stats. */
size_t pvec_ftest_sizeof(int which) {
  switch (which) {
    case 0:
      return sizeof(pvec_vector_desc);
    case 1:
      return sizeof(pvec_layout);
    case 2:
      return sizeof(pvec_memory_stats);
    case 3:
      return sizeof(pvec_op_stats);
    default:
      return 0;
  }
}

#define PVEC_FTEST_OFFSETS(...)                                                 \
  {                                                                             \
    static const size_t offs[] = {__VA_ARGS__};                                 \
    if (field < 0 || field >= (int)(sizeof(offs) / sizeof(offs[0]))) return -1; \
    return (int64_t)offs[field];                                                \
  }

/** offsetof of field number `field` (0-based, declaration order) of struct `which`, or -1
 *  past the last field. */
int64_t pvec_ftest_offsetof(int which, int field) {
  switch (which) {
    case 0:
      PVEC_FTEST_OFFSETS(
          offsetof(pvec_vector_desc, struct_size), offsetof(pvec_vector_desc, dim),
          offsetof(pvec_vector_desc, pos_dtype), offsetof(pvec_vector_desc, domain_lo),
          offsetof(pvec_vector_desc, domain_hi), offsetof(pvec_vector_desc, boundary),
          offsetof(pvec_vector_desc, ghost_width), offsetof(pvec_vector_desc, n_particles),
          offsetof(pvec_vector_desc, placement), offsetof(pvec_vector_desc, backend),
          offsetof(pvec_vector_desc, host_memory), offsetof(pvec_vector_desc, has_comm),
          offsetof(pvec_vector_desc, comm_f))
    case 1:
      PVEC_FTEST_OFFSETS(offsetof(pvec_layout, struct_size), offsetof(pvec_layout, prop),
                         offsetof(pvec_layout, name), offsetof(pvec_layout, dtype),
                         offsetof(pvec_layout, elem_size), offsetof(pvec_layout, rank),
                         offsetof(pvec_layout, extents), offsetof(pvec_layout, ncomp),
                         offsetof(pvec_layout, capacity), offsetof(pvec_layout, stride_elems),
                         offsetof(pvec_layout, stride_bytes), offsetof(pvec_layout, n_local),
                         offsetof(pvec_layout, n_ghost), offsetof(pvec_layout, generation),
                         offsetof(pvec_layout, host_ptr), offsetof(pvec_layout, device_ptr))
    case 2:
      PVEC_FTEST_OFFSETS(
          offsetof(pvec_memory_stats, struct_size), offsetof(pvec_memory_stats, host_bytes),
          offsetof(pvec_memory_stats, pinned_bytes), offsetof(pvec_memory_stats, device_bytes),
          offsetof(pvec_memory_stats, host_allocs), offsetof(pvec_memory_stats, pinned_allocs),
          offsetof(pvec_memory_stats, device_allocs))
    case 3:
      PVEC_FTEST_OFFSETS(
          offsetof(pvec_op_stats, struct_size), offsetof(pvec_op_stats, compute_seconds),
          offsetof(pvec_op_stats, exchange_seconds), offsetof(pvec_op_stats, bytes_sent),
          offsetof(pvec_op_stats, bytes_received), offsetof(pvec_op_stats, particles_sent),
          offsetof(pvec_op_stats, particles_received), offsetof(pvec_op_stats, particles_self),
          offsetof(pvec_op_stats, transport))
    default:
      return -1;
  }
}

/** The i-th constant of pvec.h in the order of the Fortran test's list; *ok = 0 past the end.
 *  Keep in step with test_abi.f90. */
int64_t pvec_ftest_constant(int i, int* ok) {
  static const int64_t values[] = {PVEC_VERSION_MAJOR,
                                   PVEC_VERSION_MINOR,
                                   PVEC_VERSION_PATCH,
                                   PVEC_VERSION_NUMBER,
                                   PVEC_SUCCESS,
                                   PVEC_ERROR_INVALID_ARGUMENT,
                                   PVEC_ERROR_INVALID_HANDLE,
                                   PVEC_ERROR_OUT_OF_RANGE,
                                   PVEC_ERROR_OVERFLOW,
                                   PVEC_ERROR_OUT_OF_MEMORY,
                                   PVEC_ERROR_NO_DEVICE,
                                   PVEC_ERROR_CUDA,
                                   PVEC_ERROR_MPI,
                                   PVEC_ERROR_STATE,
                                   PVEC_ERROR_PARTICLES_OUTSIDE,
                                   PVEC_ERROR_DTYPE_MISMATCH,
                                   PVEC_ERROR_NOT_SUPPORTED,
                                   PVEC_ERROR_INTERNAL,
                                   PVEC_FLOAT32,
                                   PVEC_FLOAT64,
                                   PVEC_INT32,
                                   PVEC_INT64,
                                   PVEC_UINT32,
                                   PVEC_UINT64,
                                   PVEC_MAX_RANK,
                                   PVEC_MAX_NAME,
                                   PVEC_MAX_DIM,
                                   PVEC_POS,
                                   PVEC_NON_PERIODIC,
                                   PVEC_PERIODIC,
                                   PVEC_BACKEND_AUTO,
                                   PVEC_BACKEND_HOST,
                                   PVEC_BACKEND_CUDA,
                                   PVEC_HOST_PINNED,
                                   PVEC_HOST_PAGEABLE,
                                   PVEC_PLACE_EVEN,
                                   PVEC_PLACE_LOCAL,
                                   PVEC_ON_DEVICE,
                                   PVEC_MAP_REMOVE_OUTSIDE,
                                   PVEC_GHOST_SKIP_POSITIONS,
                                   PVEC_GHOST_REUSE_PLAN,
                                   PVEC_REDUCE_ADD,
                                   PVEC_REDUCE_MIN,
                                   PVEC_REDUCE_MAX,
                                   PVEC_REDUCE_REPLACE,
                                   PVEC_TRANSPORT_NONE,
                                   PVEC_TRANSPORT_MPI,
                                   PVEC_TRANSPORT_MPI_STAGED,
                                   PVEC_TRANSPORT_CUDA_IPC};
  int n = (int)(sizeof(values) / sizeof(values[0]));
  *ok = (i >= 0 && i < n);
  return *ok ? values[i] : 0;
}

/* Element (i, c) (0-based particle, 0-based component) of the host mirror of prop, located
 * with the C layout law ptr[c*stride_elems + i] and nothing else. */
static void* element(pvec_vector_t vec, int prop, int64_t i, int64_t c, pvec_dtype* dtype) {
  pvec_layout lay = PVEC_LAYOUT_INIT;
  if (pvec_layout_get(vec, prop, &lay) != PVEC_SUCCESS) return NULL;
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
