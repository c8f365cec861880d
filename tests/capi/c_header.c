/* pvec.h used from strict C99 (built with -std=c99 -Wall -Wextra -pedantic -Werror): the
 * initializer macros, the constants and a few calls, run as a test. With
 * PVEC_TEST_WITH_MPI, <mpi.h> comes first so the communicator helper is compiled too.
 * Exit status 0 on success, 1 with a message on the first failure. */
#ifdef PVEC_TEST_WITH_MPI
#include <mpi.h>
#endif
#include <pvec.h>

#include <stdio.h>
#include <string.h>

#define EXPECT(cond)                                                                     \
  do {                                                                                   \
    if (!(cond)) {                                                                       \
      fprintf(stderr, "%s:%d: failed: %s (last error: %s)\n", __FILE__, __LINE__, #cond, \
              pvec_last_error());                                                        \
      return 1;                                                                          \
    }                                                                                    \
  } while (0)

static int run(void) {
  pvec_vector_desc desc = PVEC_VECTOR_DESC_INIT;
  pvec_layout layout = PVEC_LAYOUT_INIT;
  pvec_memory_stats mem = PVEC_MEMORY_STATS_INIT;
  pvec_op_stats ops = PVEC_OP_STATS_INIT;
  pvec_option_info option = PVEC_OPTION_INFO_INIT;
  pvec_cell_list_info cells = PVEC_CELL_LIST_INFO_INIT;
  pvec_verlet_info verlet = PVEC_VERLET_INFO_INIT;
  pvec_schema_t schema = NULL;
  pvec_vector_t vec = NULL;
  const int64_t extents[PVEC_MAX_RANK] = {2, 2};
  int prop = -1;
  int64_t capacity = 0;
  float* host;
  int props[2];
  unsigned flags = PVEC_ON_DEVICE | PVEC_MAP_REMOVE_OUTSIDE;

  EXPECT(pvec_version_number() == PVEC_VERSION_NUMBER);
  EXPECT(PVEC_VERSION_NUMBER >= 100);
  EXPECT(strcmp(pvec_status_string(PVEC_SUCCESS), pvec_status_string(PVEC_ERROR_OVERFLOW)));
  EXPECT(flags == 3u);
  EXPECT(PVEC_MAX_DIM == 4 && PVEC_MAX_NAME == 63 && PVEC_POS == -1);
  /* Every versioned struct's initializer sets struct_size. */
  EXPECT(mem.struct_size == sizeof mem && ops.struct_size == sizeof ops);
  EXPECT(option.struct_size == sizeof option && cells.struct_size == sizeof cells);
  EXPECT(verlet.struct_size == sizeof verlet);
  EXPECT(pvec_memory_get_stats(&mem) == PVEC_SUCCESS);
  EXPECT(pvec_options_get_info(0, &option) == PVEC_SUCCESS && option.name != NULL);

  EXPECT(pvec_schema_create(&schema) == PVEC_SUCCESS);
  EXPECT(pvec_schema_add_scalar(schema, "scalar", PVEC_FLOAT32, NULL) == PVEC_SUCCESS);
  EXPECT(pvec_schema_add_vector(schema, "vector", PVEC_FLOAT32, 2, NULL) == PVEC_SUCCESS);
  EXPECT(pvec_schema_add(schema, "tensor", PVEC_FLOAT32, 2, extents, &prop) == PVEC_SUCCESS);
  EXPECT(prop == 2);
  EXPECT(pvec_schema_add(schema, "pos", PVEC_FLOAT32, 0, NULL, NULL) ==
         PVEC_ERROR_INVALID_ARGUMENT);
  EXPECT(pvec_last_error()[0] != '\0');

  desc.dim = 2;
  desc.pos_dtype = PVEC_FLOAT32;
  desc.n_particles = 100;
  desc.placement = PVEC_PLACE_LOCAL;
  desc.boundary[0] = PVEC_PERIODIC;
#ifdef PVEC_TEST_WITH_MPI
  pvec_vector_desc_set_comm(&desc, MPI_COMM_WORLD);
#endif
  EXPECT(pvec_vector_create(&desc, schema, &vec) == PVEC_SUCCESS);
  EXPECT(pvec_schema_destroy(schema) == PVEC_SUCCESS);
  EXPECT(pvec_vector_get_capacity(vec, &capacity) == PVEC_SUCCESS);
  EXPECT(capacity == 128);
  EXPECT(pvec_vector_get_op_stats(vec, &ops) == PVEC_SUCCESS && ops.transport == 0);

  EXPECT(layout.struct_size == sizeof(pvec_layout));
  EXPECT(pvec_vector_get_layout(vec, 1, &layout) == PVEC_SUCCESS);
  EXPECT(layout.stride_bytes == 0x200);
  EXPECT(strcmp(layout.name, "vector") == 0);
  EXPECT(pvec_vector_get_layout(vec, PVEC_POS, &layout) == PVEC_SUCCESS);
  EXPECT(strcmp(layout.name, "pos") == 0 && layout.ncomp == 2);

  /* Particle 7, component 1 of "vector", through the layout formula and back. */
  host = (float*)pvec_host_ptr(vec, 1);
  EXPECT(host != NULL);
  host[1 * capacity + 7] = 42.0f;
  props[0] = 1;
  props[1] = PVEC_POS;
  EXPECT(pvec_host_to_device(vec, props, 2) == PVEC_SUCCESS);
  host[1 * capacity + 7] = 0.0f;
  EXPECT(pvec_device_to_host(vec, props, 2) == PVEC_SUCCESS);
  EXPECT(host[1 * capacity + 7] == 42.0f);
  EXPECT(pvec_last_error()[0] == '\0');

  EXPECT(pvec_vector_destroy(vec) == PVEC_SUCCESS);
  printf("c_header: capacity %lld, ok\n", (long long)capacity);
  return 0;
}

int main(int argc, char** argv) {
  int rc;
  if (pvec_init(&argc, &argv) != PVEC_SUCCESS) {
    fprintf(stderr, "pvec_init: %s\n", pvec_last_error());
    return 1;
  }
  rc = run();
  if (pvec_finalize() != PVEC_SUCCESS) rc = 1;
  return rc;
}
