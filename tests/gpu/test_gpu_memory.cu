// Backend selection, pinned and pageable host mirrors, and transfers ordered on a stream the
// user created.
#include <pvec.hpp>

#include <cstdint>

#include "gpu_check.cuh"

using pvec_gpu_test::blocks_for;
using pvec_gpu_test::kThreads;
using pvec_gpu_test::thread_index;

namespace {

// x(i, c) = x(i, c) * a + c.
__global__ void scale(pvec::view<double> x, double a, std::int64_t n) {
  const std::int64_t i = thread_index();
  if (i >= n) return;
  for (std::int64_t c = 0; c < x.ncomp(); ++c) x(i, c) = x(i, c) * a + static_cast<double>(c);
}

cudaMemoryType memory_type(const void* p) {
  cudaPointerAttributes attr{};
  PVEC_CUDA_REQUIRE(cudaPointerGetAttributes(&attr, p));
  return attr.type;
}

pvec::schema make_schema() {
  pvec::schema s;
  s.add_vector<double>("x", 2);
  return s;
}

// Fill x(i, c) = i + 0.5c on the host, scale on the device, read back and compare.
void round_trip(pvec::vector& vec, pvec_stream_t stream, bool async) {
  const std::int64_t n = vec.size();
  auto hx = vec.host_view<double>(0);
  for (std::int64_t i = 0; i < n; ++i)
    for (int c = 0; c < 2; ++c) hx(i, c) = static_cast<double>(i) + 0.5 * c;
  if (async)
    vec.host_to_device_async({0}, stream);
  else
    vec.host_to_device({0});
  scale<<<blocks_for(n), kThreads, 0, stream>>>(vec.device_view<double>(0), 3.0, n);
  PVEC_CUDA_REQUIRE(cudaGetLastError());
  if (async) {
    vec.device_to_host_async({0}, stream);
    PVEC_CUDA_REQUIRE(cudaStreamSynchronize(stream));
  } else {
    PVEC_CUDA_REQUIRE(cudaStreamSynchronize(stream));
    vec.device_to_host({0});
  }
  std::int64_t wrong = 0;
  for (std::int64_t i = 0; i < n; ++i)
    for (int c = 0; c < 2; ++c) wrong += hx(i, c) != (static_cast<double>(i) + 0.5 * c) * 3.0 + c;
  CHECK(wrong == 0);
}

}  // namespace

TEST_CASE("backend AUTO and CUDA both give device memory", "[gpu]") {
  pvec::schema s = make_schema();
  SECTION("AUTO") {
    pvec::vector vec(pvec::vector_desc().particles(100), s);
    pvec_backend b = PVEC_BACKEND_AUTO;
    REQUIRE(pvec_vector_get_backend(vec.get(), &b) == PVEC_SUCCESS);
    CHECK(b == PVEC_BACKEND_CUDA);
    CHECK(memory_type(pvec_device_ptr(vec.get(), 0)) == cudaMemoryTypeDevice);
    CHECK(memory_type(pvec_device_ptr(vec.get(), PVEC_POS)) == cudaMemoryTypeDevice);
    round_trip(vec, nullptr, false);
  }
  SECTION("explicit CUDA") {
    pvec::vector vec(pvec::vector_desc().particles(100).backend(PVEC_BACKEND_CUDA), s);
    CHECK(vec.backend() == PVEC_BACKEND_CUDA);
    int current = -1;
    PVEC_CUDA_REQUIRE(cudaGetDevice(&current));
    CHECK(vec.device() == current);
    cudaPointerAttributes attr{};
    PVEC_CUDA_REQUIRE(cudaPointerGetAttributes(&attr, vec.device_ptr<double>(0)));
    CHECK(attr.type == cudaMemoryTypeDevice);
    CHECK(attr.device == current);
    round_trip(vec, nullptr, false);
  }
  SECTION("explicit HOST on a machine with a GPU") {
    pvec::vector vec(pvec::vector_desc().particles(100).backend(PVEC_BACKEND_HOST), s);
    CHECK(vec.backend() == PVEC_BACKEND_HOST);
    CHECK(vec.device() == -1);
    CHECK(memory_type(vec.device_ptr<double>(0)) != cudaMemoryTypeDevice);
    CHECK(vec.device_ptr<double>(0) != vec.host_ptr<double>(0));
  }
}

TEST_CASE("pinned and pageable host mirrors both work", "[gpu]") {
  pvec::schema s = make_schema();
  const std::int64_t n = 5000;
  const pvec_memory_stats before = pvec::memory_stats();
  SECTION("pinned (default)") {
    pvec::vector vec(pvec::vector_desc().particles(n), s);
    CHECK(memory_type(vec.host_ptr<double>(0)) == cudaMemoryTypeHost);
    CHECK(pvec::memory_stats().pinned_bytes - before.pinned_bytes >=
          n * 2 * static_cast<std::int64_t>(sizeof(double)));
    round_trip(vec, nullptr, false);
    round_trip(vec, nullptr, true);
  }
  SECTION("pinned, large: huge-page memory page-locked by registration") {
    // 16 MiB per mirror: past the size from which pinned blocks are registered host memory
    // rather than cudaHostAlloc'ed (src/memory/allocator.cpp); CUDA must see it as pinned.
    const std::int64_t big = std::int64_t{1} << 20;
    pvec::vector vec(pvec::vector_desc().particles(big), s);
    CHECK(memory_type(vec.host_ptr<double>(0)) == cudaMemoryTypeHost);
    CHECK(memory_type(vec.host_ptr<double>(0) + 2 * vec.capacity() - 1) == cudaMemoryTypeHost);
    round_trip(vec, nullptr, false);
    round_trip(vec, nullptr, true);
    vec.reserve(3 * big);  // a reallocation: a new block registered, the old one released
    CHECK(memory_type(vec.host_ptr<double>(0)) == cudaMemoryTypeHost);
    round_trip(vec, nullptr, true);
  }
  SECTION("pageable") {
    pvec::vector vec(pvec::vector_desc().particles(n).host_memory(PVEC_HOST_PAGEABLE), s);
    CHECK(memory_type(vec.host_ptr<double>(0)) == cudaMemoryTypeUnregistered);
    CHECK(pvec::memory_stats().host_bytes - before.host_bytes >=
          n * 2 * static_cast<std::int64_t>(sizeof(double)));
    round_trip(vec, nullptr, false);
    round_trip(vec, nullptr, true);
  }
  CHECK(pvec::memory_stats().device_bytes == before.device_bytes);
  CHECK(pvec::memory_stats().pinned_bytes == before.pinned_bytes);
}

TEST_CASE("transfers on a user-created stream", "[gpu]") {
  cudaStream_t stream = nullptr;
  PVEC_CUDA_REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  {
    pvec::schema s = make_schema();
    pvec::vector vec(pvec::vector_desc().particles(3000), s);

    REQUIRE(pvec_vector_set_stream(vec.get(), stream) == PVEC_SUCCESS);
    pvec_stream_t got = nullptr;
    REQUIRE(pvec_vector_get_stream(vec.get(), &got) == PVEC_SUCCESS);
    CHECK(got == stream);
    CHECK(vec.stream() == stream);

    round_trip(vec, stream, true);
    round_trip(vec, stream, false);  // blocking transfers with the vector's stream set

    // Growth ordered on the stream keeps what a kernel on that stream wrote.
    scale<<<blocks_for(vec.size()), kThreads, 0, stream>>>(vec.device_view<double>(0), 0.0,
                                                           vec.size());
    PVEC_CUDA_REQUIRE(cudaGetLastError());
    vec.append(10000);
    vec.synchronize();
    vec.device_to_host_async({0}, stream);
    PVEC_CUDA_REQUIRE(cudaStreamSynchronize(stream));
    auto hx = vec.host_view<double>(0);
    CHECK(hx(2999, 0) == 0.0);
    CHECK(hx(2999, 1) == 1.0);  // scale by 0 leaves c
    CHECK(hx(3000, 1) == 0.0);  // appended: zero
    CHECK(hx(12999, 1) == 0.0);

    vec.set_stream(nullptr);
    CHECK(vec.stream() == nullptr);
  }  // the vector dies before its stream
  PVEC_CUDA_REQUIRE(cudaStreamDestroy(stream));
}
