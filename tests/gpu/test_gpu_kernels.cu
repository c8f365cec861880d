// User kernels on pvec data: the layout the host sees is the layout the device sees, whether
// the kernel does the capacity arithmetic on raw pvec_device_ptr pointers or takes a
// pvec::view by value; device-resident values survive growth and removal.
#include <pvec.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

#include "gpu_check.cuh"

using pvec_gpu_test::blocks_for;
using pvec_gpu_test::kThreads;
using pvec_gpu_test::thread_index;

namespace {

// ---- Kernels -----------------------------------------------------------------------------

// y += a*x for vector[3] properties, indexing by hand as the layout law says.
__global__ void axpy_raw(float a, const float* x, float* y, std::int64_t capacity, std::int64_t n) {
  const std::int64_t i = thread_index();
  if (i >= n) return;
  for (int c = 0; c < 3; ++c) y[c * capacity + i] += a * x[c * capacity + i];
}

// The same through views passed by value: no capacity arithmetic in the kernel.
__global__ void axpy_view(float a, pvec::view<const float> x, pvec::view<float> y, std::int64_t n) {
  const std::int64_t i = thread_index();
  if (i >= n) return;
  for (int c = 0; c < 3; ++c) y(i, c) += a * x(i, c);
}

// out(i, a) = sum_b t(i, a, b) * v(i, b) for tensor[2][3], vector[3] -> vector[2].
__global__ void matvec_view(pvec::view<const double> t, pvec::view<const double> v,
                            pvec::view<double> out, std::int64_t n) {
  const std::int64_t i = thread_index();
  if (i >= n) return;
  for (int a = 0; a < 2; ++a) {
    double s = 0;
    for (int b = 0; b < 3; ++b) s += t(i, a, b) * v(i, b);
    out(i, a) = s;
  }
}

// Writes tensor[n][m] entry (a, b) of particle i as 1000*i + 10*a + b, by hand.
__global__ void fill_tensor_raw(double* t, std::int64_t capacity, int nrow, int ncol,
                                std::int64_t n) {
  const std::int64_t i = thread_index();
  if (i >= n) return;
  for (int a = 0; a < nrow; ++a)
    for (int b = 0; b < ncol; ++b)
      t[(a * ncol + b) * capacity + i] = 1000.0 * static_cast<double>(i) + 10 * a + b;
}

// id(i) = 7*i + 1 and v(i, c) = i + 0.5*c, written on the device only.
__global__ void fill_ids(pvec::view<std::int64_t> id, pvec::view<float> v, std::int64_t n) {
  const std::int64_t i = thread_index();
  if (i >= n) return;
  id(i) = 7 * i + 1;
  v(i, 0) = static_cast<float>(i);
  v(i, 1) = static_cast<float>(i) + 0.5f;
}

// ---- Helpers -----------------------------------------------------------------------------

pvec::vector make(const pvec::schema& s, std::int64_t n) {
  return pvec::vector(pvec::vector_desc().particles(n, PVEC_PLACE_LOCAL), s);
}

}  // namespace

TEST_CASE("axpy on a vector[3] float property, raw pointers and views", "[gpu]") {
  pvec::schema s;
  const int px = s.add_vector<float>("x", 3);
  const int py = s.add_vector<float>("y", 3);
  const std::int64_t n = 1000;  // not a multiple of 64: capacity 1024 != n
  pvec::vector vec = make(s, n);
  REQUIRE(vec.backend() == PVEC_BACKEND_CUDA);
  REQUIRE(vec.capacity() == 1024);

  auto hx = vec.host_view<float>(px);
  auto hy = vec.host_view<float>(py);
  std::vector<float> ref(3 * n);
  for (std::int64_t i = 0; i < n; ++i)
    for (int c = 0; c < 3; ++c) {
      hx(i, c) = static_cast<float>(i) + 0.25f * c;
      hy(i, c) = 2.0f * static_cast<float>(i) - c;
      ref[3 * i + c] = hy(i, c);
    }
  vec.host_to_device({px, py});

  // Raw pointers, as a plain CUDA user would get them from the C API.
  const float* dx = static_cast<const float*>(pvec_device_ptr(vec.get(), px));
  float* dy = static_cast<float*>(pvec_device_ptr(vec.get(), py));
  std::int64_t capacity = 0;
  REQUIRE(pvec_vector_get_capacity(vec.get(), &capacity) == PVEC_SUCCESS);
  axpy_raw<<<blocks_for(n), kThreads>>>(2.0f, dx, dy, capacity, n);
  PVEC_KERNEL_REQUIRE();
  for (std::int64_t i = 0; i < n; ++i)
    for (int c = 0; c < 3; ++c) ref[3 * i + c] += 2.0f * hx(i, c);

  // Views by value.
  axpy_view<<<blocks_for(n), kThreads>>>(-0.5f, vec.device_view<const float>(px),
                                         vec.device_view<float>(py), n);
  PVEC_KERNEL_REQUIRE();
  for (std::int64_t i = 0; i < n; ++i)
    for (int c = 0; c < 3; ++c) ref[3 * i + c] += -0.5f * hx(i, c);

  for (std::int64_t i = 0; i < n; ++i)
    for (int c = 0; c < 3; ++c) hy(i, c) = -1.0f;  // prove the values come back
  vec.device_to_host({py});
  std::int64_t wrong = 0;
  for (std::int64_t i = 0; i < n; ++i)
    for (int c = 0; c < 3; ++c) wrong += (hy(i, c) != ref[3 * i + c]);
  CHECK(wrong == 0);
  CHECK(hy(999, 2) == ref[3 * 999 + 2]);
}

TEST_CASE("tensor kernels see the host layout", "[gpu]") {
  pvec::schema s;
  const int pt = s.add_tensor<double>("t", 2, 3);
  const int pv = s.add_vector<double>("v", 3);
  const int po = s.add_vector<double>("out", 2);
  const std::int64_t n = 333;
  pvec::vector vec = make(s, n);
  const std::int64_t C = vec.capacity();

  // Device writes by the formula, host reads through the view (and the formula).
  fill_tensor_raw<<<blocks_for(n), kThreads>>>(static_cast<double*>(pvec_device_ptr(vec.get(), pt)),
                                               C, 2, 3, n);
  PVEC_KERNEL_REQUIRE();
  vec.device_to_host({pt});
  auto ht = vec.host_view<double>(pt);
  const double* raw = static_cast<const double*>(pvec_host_ptr(vec.get(), pt));
  std::int64_t wrong = 0;
  for (std::int64_t i = 0; i < n; ++i)
    for (int a = 0; a < 2; ++a)
      for (int b = 0; b < 3; ++b) {
        const double want = 1000.0 * static_cast<double>(i) + 10 * a + b;
        wrong += (ht(i, a, b) != want) + (raw[(a * 3 + b) * C + i] != want);
      }
  CHECK(wrong == 0);

  // Host writes, device computes through views, host checks against a host reference.
  auto hv = vec.host_view<double>(pv);
  for (std::int64_t i = 0; i < n; ++i)
    for (int b = 0; b < 3; ++b) hv(i, b) = 1.0 + b + 0.001 * static_cast<double>(i);
  vec.host_to_device({pv});
  matvec_view<<<blocks_for(n), kThreads>>>(vec.device_view<const double>(pt),
                                           vec.device_view<const double>(pv),
                                           vec.device_view<double>(po), n);
  PVEC_KERNEL_REQUIRE();
  vec.device_to_host({po});
  auto ho = vec.host_view<double>(po);
  wrong = 0;
  for (std::int64_t i = 0; i < n; ++i)
    for (int a = 0; a < 2; ++a) {
      double want = 0;
      for (int b = 0; b < 3; ++b) want += ht(i, a, b) * hv(i, b);
      wrong += std::fabs(ho(i, a) - want) > 1e-12 * std::fabs(want);  // FMA on the device
    }
  CHECK(wrong == 0);
}

TEST_CASE("growth and removal keep device values", "[gpu]") {
  pvec::schema s;
  const int pid = s.add_scalar<std::int64_t>("id");
  const int pv = s.add_vector<float>("v", 2);
  const std::int64_t n0 = 100;
  pvec::vector vec = make(s, n0);
  fill_ids<<<blocks_for(n0), kThreads>>>(vec.device_view<std::int64_t>(pid),
                                         vec.device_view<float>(pv), n0);
  PVEC_KERNEL_REQUIRE();
  CHECK(vec.host_view<std::int64_t>(pid)(50) == 0);  // the host mirror was not touched

  auto expect_device_values = [&](std::int64_t n_written, std::int64_t n_total) {
    vec.device_to_host();
    auto id = vec.host_view<std::int64_t>(pid);
    auto v = vec.host_view<float>(pv);
    std::int64_t wrong = 0;
    for (std::int64_t i = 0; i < n_total; ++i) {
      const bool written = i < n_written;
      wrong += id(i) != (written ? 7 * i + 1 : 0);
      wrong += v(i, 0) != (written ? static_cast<float>(i) : 0.0f);
      wrong += v(i, 1) != (written ? static_cast<float>(i) + 0.5f : 0.0f);
    }
    CHECK(wrong == 0);
  };

  SECTION("many appends") {
    const std::uint64_t gen0 = vec.generation();
    std::int64_t reallocations = 0;
    std::int64_t cap = vec.capacity();
    for (int k = 0; k < 2000; ++k) {
      CHECK(vec.append(1) == n0 + k);
      if (vec.capacity() != cap) ++reallocations;
      cap = vec.capacity();
    }
    CHECK(reallocations >= 5);  // 128 -> 256 -> ... -> 4096
    CHECK(vec.generation() > gen0);
    CHECK(vec.size() == n0 + 2000);
    expect_device_values(n0, n0 + 2000);
  }
  SECTION("reserve, resize, shrink_to_fit") {
    vec.reserve(10000);
    vec.resize(5000);
    vec.resize(n0);
    vec.shrink_to_fit();
    CHECK(vec.capacity() == 128);
    expect_device_values(n0, n0);
  }
  SECTION("remove compacts on the device") {
    vec.remove({0, 2, 99});
    REQUIRE(vec.size() == n0 - 3);
    vec.device_to_host();
    auto id = vec.host_view<std::int64_t>(pid);
    auto v = vec.host_view<float>(pv);
    CHECK(id(0) == 7 * 1 + 1);
    CHECK(id(1) == 7 * 3 + 1);
    CHECK(v(1, 1) == 3.5f);
    CHECK(id(96) == 7 * 98 + 1);
  }
}
