/*
 * seed_c.c -- OpenFPM's "GPU CUDA inter-operability with plain arrays" example, in pvec's C
 * interface.
 *
 * The same particles as the OpenFPM program: 2D, float positions in the periodic box [0,1]^2,
 * ghost 0.05, 100 particles carrying a float, a float[2] and a float[2][2]. It prints the
 * addresses that show the layout (component c of particle i at base[c*capacity + i]), then
 * moves the properties to the device mirror and back. C cannot launch a CUDA kernel, so the
 * body of the seed's print_data_particle_50 kernel runs here as a host function over every
 * particle, on the host mirror after device_to_host. examples/seed_cuda.cu launches it.
 */
#include <pvec.h>

#include <stdio.h>
#include <stdlib.h>

/* Stops the program with pvec's explanation when a call fails. */
#define CHECK(call)                                                     \
  do {                                                                  \
    pvec_status check_status_ = (call);                                 \
    if (check_status_ != PVEC_SUCCESS) {                                \
      fprintf(stderr, "%s failed: %s (%s)\n", #call, pvec_last_error(), \
              pvec_status_string(check_status_));                       \
      exit(EXIT_FAILURE);                                               \
    }                                                                   \
  } while (0)

/* Property indices, in declaration order. */
enum { SCALAR = 0, VECTOR = 1, TENSOR = 2 };

/* The seed kernel's body for "thread" p: what particle 50 holds, by the layout law. */
static void print_data_particle_50(int p, const float* scalar, const float* vector,
                                   const float* tensor, int capacity) {
  if (p == 50) {
    printf("Scalar particle %d = %f\n", p, scalar[p]);

    printf("Vector particle %d = %f\n", p, vector[p]);
    printf("Vector particle %d = %f\n", p, vector[p + capacity]);

    printf("Tensor particle %d = %f\n", p, tensor[p + (0 * 2 + 0) * capacity]);
    printf("Tensor particle %d = %f\n", p, tensor[p + (0 * 2 + 1) * capacity]);
    printf("Tensor particle %d = %f\n", p, tensor[p + (1 * 2 + 0) * capacity]);
    printf("Tensor particle %d = %f\n", p, tensor[p + (1 * 2 + 1) * capacity]);
  }
}

static float* host_prop(pvec_vector_t vd, int prop) {
  float* p = (float*)pvec_host_ptr(vd, prop);
  if (p == NULL) {
    fprintf(stderr, "pvec_host_ptr(%d) failed: %s\n", prop, pvec_last_error());
    exit(EXIT_FAILURE);
  }
  return p;
}

int main(int argc, char* argv[]) {
  pvec_schema_t schema;
  pvec_vector_desc desc = PVEC_VECTOR_DESC_INIT;
  pvec_vector_t vd;
  pvec_layout layout = PVEC_LAYOUT_INIT;
  int64_t n_local, capacity, p, stride;
  float *pos, *scalar, *vector, *tensor;
  const int props[3] = {SCALAR, VECTOR, TENSOR};

  CHECK(pvec_init(&argc, &argv));

  CHECK(pvec_schema_create(&schema));
  CHECK(pvec_schema_add_scalar(schema, "scalar", PVEC_FLOAT32, NULL));
  CHECK(pvec_schema_add_vector(schema, "vector", PVEC_FLOAT32, 2, NULL));
  CHECK(pvec_schema_add_tensor(schema, "tensor", PVEC_FLOAT32, 2, 2, NULL));

  /* A 2D box [0,1]^2, periodic in x and y, ghost 0.05, 100 particles over the ranks. */
  desc.dim = 2;
  desc.pos_dtype = PVEC_FLOAT32;
  desc.domain_lo[0] = desc.domain_lo[1] = 0.0;
  desc.domain_hi[0] = desc.domain_hi[1] = 1.0;
  desc.boundary[0] = desc.boundary[1] = PVEC_PERIODIC;
  desc.ghost_width = 0.05;
  desc.n_particles = 100;
  desc.placement = PVEC_PLACE_EVEN;
  CHECK(pvec_vector_create(&desc, schema, &vd));
  CHECK(pvec_schema_destroy(schema)); /* the vector keeps its own copy */

  CHECK(pvec_vector_get_size(vd, &n_local));
  CHECK(pvec_vector_get_capacity(vd, &capacity));
  pos = host_prop(vd, PVEC_POS);
  scalar = host_prop(vd, SCALAR);
  vector = host_prop(vd, VECTOR);
  tensor = host_prop(vd, TENSOR);
  for (p = 0; p < n_local; ++p) {
    const float x = (float)rand() / RAND_MAX;
    const float y = (float)rand() / RAND_MAX;
    pos[0 * capacity + p] = x;
    pos[1 * capacity + p] = y;

    scalar[p] = x + y;

    vector[0 * capacity + p] = x;
    vector[1 * capacity + p] = y;

    tensor[(0 * 2 + 0) * capacity + p] = x;
    tensor[(0 * 2 + 1) * capacity + p] = y;
    tensor[(1 * 2 + 0) * capacity + p] = x + y;
    tensor[(1 * 2 + 1) * capacity + p] = y - x;
  }

  CHECK(pvec_map(vd, 0, NULL));

  /* map may reorder and reallocate: every pointer is fetched again. */
  CHECK(pvec_vector_get_size(vd, &n_local));
  CHECK(pvec_vector_get_capacity(vd, &capacity));
  scalar = host_prop(vd, SCALAR);
  vector = host_prop(vd, VECTOR);
  tensor = host_prop(vd, TENSOR);
  if (n_local < 2) {
    printf("This rank holds %lld particles after map; run on one rank to see the layout.\n",
           (long long)n_local);
    CHECK(pvec_vector_destroy(vd));
    CHECK(pvec_finalize());
    return 0;
  }

  printf("First particle property 0, address: %p\n", (void*)&scalar[0]);
  printf("First particle property 1, address: %p\n", (void*)&vector[0]);
  printf("First particle property 2, address: %p\n", (void*)&tensor[0]);

  printf("Capacity internal vector: %lld\n", (long long)capacity);

  printf("First particle property 1 component 0, address: %p\n", (void*)&vector[0 * capacity + 0]);
  printf("First particle property 1 component 1, address: %p\n", (void*)&vector[1 * capacity + 0]);

  printf("First particle property 2 component 00, address: %p\n",
         (void*)&tensor[(0 * 2 + 0) * capacity + 0]);
  printf("First particle property 2 component 01, address: %p\n",
         (void*)&tensor[(0 * 2 + 1) * capacity + 0]);
  printf("First particle property 2 component 10, address: %p\n",
         (void*)&tensor[(1 * 2 + 0) * capacity + 0]);
  printf("First particle property 2 component 11, address: %p\n",
         (void*)&tensor[(1 * 2 + 1) * capacity + 0]);

  printf("Second particle property 1 component 0, address: %p\n", (void*)&vector[0 * capacity + 1]);
  printf("Second particle property 1 component 1, address: %p\n", (void*)&vector[1 * capacity + 1]);

  printf("Second particle property 2 component 00, address: %p\n",
         (void*)&tensor[(0 * 2 + 0) * capacity + 1]);
  printf("Second particle property 2 component 01, address: %p\n",
         (void*)&tensor[(0 * 2 + 1) * capacity + 1]);
  printf("Second particle property 2 component 10, address: %p\n",
         (void*)&tensor[(1 * 2 + 0) * capacity + 1]);
  printf("Second particle property 2 component 11, address: %p\n",
         (void*)&tensor[(1 * 2 + 1) * capacity + 1]);

  /* The distance between two components, measured on the addresses printed above, must be
   * what pvec's layout reports: capacity elements. */
  stride = (int64_t)((char*)&vector[1 * capacity] - (char*)&vector[0]);
  layout.struct_size = sizeof layout;
  CHECK(pvec_vector_get_layout(vd, VECTOR, &layout));
  printf("component stride: 0x%llx bytes (capacity %lld x %zu bytes)\n", (unsigned long long)stride,
         (long long)capacity, layout.elem_size);
  if (stride != layout.stride_bytes || stride != capacity * (int64_t)sizeof(float)) {
    fprintf(stderr, "layout mismatch: measured %lld bytes, pvec_layout says %lld\n",
            (long long)stride, (long long)layout.stride_bytes);
    return EXIT_FAILURE;
  }

  printf("\n");

  /* The seed's hostToDeviceProp<0,1,2>(), then back, so that what the host reads is what the
   * device mirror held. */
  CHECK(pvec_host_to_device(vd, props, 3));
  CHECK(pvec_device_to_host(vd, props, 3));
  printf("print_data_particle_50 on the host mirror after device_to_host:\n");
  for (p = 0; p < n_local; ++p) /* one "thread" per particle */
    print_data_particle_50((int)p, scalar, vector, tensor, (int)capacity);

  CHECK(pvec_vector_destroy(vd));
  CHECK(pvec_finalize());
  printf("seed_c: done\n");
  return 0;
}
