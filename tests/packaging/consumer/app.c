/* An outside program using an installed pvec: it knows nothing of MPI or CUDA. Creates a
 * vector of 100 particles and prints its capacity (128 by the layout contract). */
#include <pvec.h>

#include <stdio.h>

int main(int argc, char** argv) {
  pvec_schema_t schema = NULL;
  pvec_vector_t vec = NULL;
  pvec_vector_desc desc = PVEC_VECTOR_DESC_INIT;
  int64_t capacity = 0;
  int rc = 1;

  if (pvec_version_number() != PVEC_VERSION_NUMBER) {
    fprintf(stderr, "header %d but library %d\n", PVEC_VERSION_NUMBER, pvec_version_number());
    return 1;
  }
  if (pvec_init(&argc, &argv) != PVEC_SUCCESS) {
    fprintf(stderr, "pvec_init: %s\n", pvec_last_error());
    return 1;
  }
  desc.n_particles = 100;
  desc.placement = PVEC_PLACE_LOCAL;
  if (pvec_schema_create(&schema) == PVEC_SUCCESS &&
      pvec_schema_add_vector(schema, "velocity", PVEC_FLOAT32, 3, NULL) == PVEC_SUCCESS &&
      pvec_vector_create(&desc, schema, &vec) == PVEC_SUCCESS &&
      pvec_vector_get_capacity(vec, &capacity) == PVEC_SUCCESS) {
    printf("pvec %s: capacity %lld\n", pvec_version_string(), (long long)capacity);
    rc = 0;
  } else {
    fprintf(stderr, "pvec: %s\n", pvec_last_error());
  }
  pvec_vector_destroy(vec);
  pvec_schema_destroy(schema);
  pvec_finalize();
  return rc;
}
