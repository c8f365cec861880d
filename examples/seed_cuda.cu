// seed_cuda.cu -- OpenFPM's "GPU CUDA inter-operability with plain arrays" example in pvec:
// the C++ layer (pvec.hpp) builds the particles, and the seed's kernel reads the device
// mirrors through plain float pointers from pvec_device_ptr, using the capacity as the
// component stride exactly as in OpenFPM.
//
// Without a usable GPU the vector falls back to the host backend, whose "device" mirror is a
// second host allocation; the program says so and runs the kernel's body as a host function
// over the same pvec_device_ptr pointers, so the printed values can be compared.
#include <pvec.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

// Body of the seed's print_data_particle_50 kernel for thread p; callable on both sides.
__host__ __device__ void print_data_particle(int p, float* scalar, float* vector, float* tensor,
                                             int capacity) {
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

__global__ void print_data_particle_50(float* scalar, float* vector, float* tensor, int capacity) {
  int p = threadIdx.x + blockIdx.x * blockDim.x;
  print_data_particle(p, scalar, vector, tensor, capacity);
}

namespace {

enum { kScalar = 0, kVector = 1, kTensor = 2 };

void cuda_check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(err));
    std::exit(EXIT_FAILURE);
  }
}

float* device_prop(const pvec::vector& vd, int prop) {
  void* p = pvec_device_ptr(vd.get(), prop);
  if (p == nullptr) {
    std::fprintf(stderr, "pvec_device_ptr(%d) failed: %s\n", prop, pvec_last_error());
    std::exit(EXIT_FAILURE);
  }
  return static_cast<float*>(p);
}

int run(int argc, char* argv[]) {
  pvec::runtime rt(argc, argv);

  pvec::schema s;
  s.add_scalar<float>("scalar");
  s.add_vector<float>("vector", 2);
  s.add_tensor<float>("tensor", 2, 2);

  // A 2D box [0,1]^2, periodic in x and y, ghost 0.05, 100 particles over the ranks.
  pvec::vector vd(pvec::vector_desc()
                      .domain({0.0, 0.0}, {1.0, 1.0})
                      .boundaries({PVEC_PERIODIC, PVEC_PERIODIC})
                      .pos_type<float>()
                      .ghost_width(0.05)
                      .particles(100, PVEC_PLACE_EVEN),
                  s);

  {
    auto pos = vd.host_view<float>(PVEC_POS);
    auto scalar = vd.host_view<float>(kScalar);
    auto vector = vd.host_view<float>(kVector);
    auto tensor = vd.host_view<float>(kTensor);
    for (std::int64_t p = 0; p < vd.size(); ++p) {
      pos(p, 0) = (float)rand() / RAND_MAX;
      pos(p, 1) = (float)rand() / RAND_MAX;

      scalar(p) = pos(p, 0) + pos(p, 1);

      vector(p, 0) = pos(p, 0);
      vector(p, 1) = pos(p, 1);

      tensor(p, 0, 0) = pos(p, 0);
      tensor(p, 0, 1) = pos(p, 1);
      tensor(p, 1, 0) = pos(p, 0) + pos(p, 1);
      tensor(p, 1, 1) = pos(p, 1) - pos(p, 0);
    }
  }

  vd.map();  // invalidates the views above: new ones are taken below

  if (vd.size() < 2) {
    std::printf("This rank holds %lld particles after map; run on one rank to see the layout.\n",
                static_cast<long long>(vd.size()));
    return 0;
  }
  auto scalar = vd.host_view<float>(kScalar);
  auto vector = vd.host_view<float>(kVector);
  auto tensor = vd.host_view<float>(kTensor);

  std::printf("First particle property 0, address: %p\n", (void*)&scalar(0));
  std::printf("First particle property 1, address: %p\n", (void*)&vector(0, 0));
  std::printf("First particle property 2, address: %p\n", (void*)&tensor(0, 0, 0));

  std::printf("Capacity internal vector: %lld\n", static_cast<long long>(vd.capacity()));

  std::printf("First particle property 1 component 0, address: %p\n", (void*)&vector(0, 0));
  std::printf("First particle property 1 component 1, address: %p\n", (void*)&vector(0, 1));

  std::printf("First particle property 2 component 00, address: %p\n", (void*)&tensor(0, 0, 0));
  std::printf("First particle property 2 component 01, address: %p\n", (void*)&tensor(0, 0, 1));
  std::printf("First particle property 2 component 10, address: %p\n", (void*)&tensor(0, 1, 0));
  std::printf("First particle property 2 component 11, address: %p\n", (void*)&tensor(0, 1, 1));

  std::printf("Second particle property 1 component 0, address: %p\n", (void*)&vector(1, 0));
  std::printf("Second particle property 1 component 1, address: %p\n", (void*)&vector(1, 1));

  std::printf("Second particle property 2 component 00, address: %p\n", (void*)&tensor(1, 0, 0));
  std::printf("Second particle property 2 component 01, address: %p\n", (void*)&tensor(1, 0, 1));
  std::printf("Second particle property 2 component 10, address: %p\n", (void*)&tensor(1, 1, 0));
  std::printf("Second particle property 2 component 11, address: %p\n", (void*)&tensor(1, 1, 1));

  // Measured on the addresses printed above; must be what the layout reports.
  const auto stride = static_cast<long long>((char*)&vector(0, 1) - (char*)&vector(0, 0));
  const pvec_layout layout = vd.layout(kVector);
  std::printf("component stride: 0x%llx bytes (capacity %lld x %zu bytes)\n",
              static_cast<unsigned long long>(stride), static_cast<long long>(vd.capacity()),
              layout.elem_size);
  if (stride != layout.stride_bytes || stride != vd.capacity() * (long long)sizeof(float)) {
    std::fprintf(stderr, "layout mismatch: measured %lld bytes, pvec_layout says %lld\n", stride,
                 static_cast<long long>(layout.stride_bytes));
    return EXIT_FAILURE;
  }

  std::printf("\n");

  vd.host_to_device({kScalar, kVector, kTensor});

  // Plain pointers, as OpenFPM's getDeviceBuffer<0>() gives them.
  float* d_scalar = device_prop(vd, kScalar);
  float* d_vector = device_prop(vd, kVector);
  float* d_tensor = device_prop(vd, kTensor);
  const int capacity = static_cast<int>(vd.capacity());
  std::fflush(stdout);  // keep host and device printf output in program order

  if (vd.backend() == PVEC_BACKEND_CUDA) {
    print_data_particle_50<<<100, 1>>>(d_scalar, d_vector, d_tensor, capacity);
    cuda_check(cudaGetLastError(), "print_data_particle_50 launch");
    cuda_check(cudaDeviceSynchronize(), "print_data_particle_50");
  } else {
    std::printf(
        "No CUDA device usable here: pvec uses its host backend, whose device mirror is a host "
        "allocation.\nRunning the body of print_data_particle_50 as a host function over the "
        "same pvec_device_ptr pointers:\n");
    for (int p = 0; p < vd.size(); ++p)  // one "thread" per particle
      print_data_particle(p, d_scalar, d_vector, d_tensor, capacity);
  }
  std::fflush(stdout);
  return 0;
}

}  // namespace

int main(int argc, char* argv[]) {
  int rc = EXIT_FAILURE;
  try {
    rc = run(argc, argv);
  } catch (const pvec::error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return EXIT_FAILURE;
  }
  if (rc == 0) std::printf("seed_cuda: done\n");
  return rc;
}
