/* An outside CUDA program using an installed pvec, built by nvcc alone through pkg-config:
 *   nvcc app_cuda.cu $(pkg-config --cflags --libs pvec) $(pkg-config --variable=nvcc_rpath pvec)
 * The host part (a vector of 100 particles, capacity 128 by the layout contract) always runs.
 * The kernel part runs only with a CUDA device and a pvec built with its CUDA backend: it
 * scales a property through pvec_device_ptr and checks the result on the host. */
#include <pvec.h>

#include <cuda_runtime.h>
#include <stdio.h>

__global__ static void scale(float* v, int64_t n, float s) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) v[i] *= s;
}

/* 0: kernel ran and the values are right; 1: failure; 2: skipped (no device or host backend). */
static int kernel_part(pvec_vector_t vec, int prop) {
  int devices = 0, backend = PVEC_BACKEND_HOST;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    printf("kernel: skipped (no CUDA device)\n");
    return 2;
  }
  if (pvec_vector_get_backend(vec, (pvec_backend*)&backend) != PVEC_SUCCESS ||
      backend != PVEC_BACKEND_CUDA) {
    printf("kernel: skipped (pvec uses its host backend)\n");
    return 2;
  }
  int64_t n = 0;
  pvec_vector_get_size(vec, &n);
  float* host = (float*)pvec_host_ptr(vec, prop);
  for (int64_t i = 0; i < n; ++i) host[i] = (float)i;
  if (pvec_host_to_device(vec, &prop, 1) != PVEC_SUCCESS) return 1;
  scale<<<(unsigned)((n + 127) / 128), 128>>>((float*)pvec_device_ptr(vec, prop), n, 2.0f);
  if (cudaDeviceSynchronize() != cudaSuccess) return 1;
  if (pvec_device_to_host(vec, &prop, 1) != PVEC_SUCCESS) return 1;
  host = (float*)pvec_host_ptr(vec, prop);
  for (int64_t i = 0; i < n; ++i)
    if (host[i] != 2.0f * (float)i) return 1;
  printf("kernel: ok\n");
  return 0;
}

int main(int argc, char** argv) {
  pvec_schema_t schema = NULL;
  pvec_vector_t vec = NULL;
  pvec_vector_desc desc = PVEC_VECTOR_DESC_INIT;
  int64_t capacity = 0;
  int prop = -1, rc = 1;

  if (pvec_init(&argc, &argv) != PVEC_SUCCESS) {
    fprintf(stderr, "pvec_init: %s\n", pvec_last_error());
    return 1;
  }
  desc.n_particles = 100;
  desc.placement = PVEC_PLACE_LOCAL;
  if (pvec_schema_create(&schema) == PVEC_SUCCESS &&
      pvec_schema_add_scalar(schema, "mass", PVEC_FLOAT32, &prop) == PVEC_SUCCESS &&
      pvec_vector_create(&desc, schema, &vec) == PVEC_SUCCESS &&
      pvec_vector_get_capacity(vec, &capacity) == PVEC_SUCCESS) {
    printf("pvec %s (nvcc): capacity %lld\n", pvec_version_string(), (long long)capacity);
    rc = kernel_part(vec, prop) == 1 ? 1 : 0;
  } else {
    fprintf(stderr, "pvec: %s\n", pvec_last_error());
  }
  pvec_vector_destroy(vec);
  pvec_schema_destroy(schema);
  pvec_finalize();
  return rc;
}
