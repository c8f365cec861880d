// pvec::view indexes exactly the addresses of the C layout law, for every dtype and shape,
// refuses the wrong element type, and reports staleness through the generation.
#include "catch_compat.hpp"

#include <pvec.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace pvec_cpp_test {
std::int64_t strict_sum(const pvec::vector& vec, int prop);  // strict_header.cpp
}

namespace {

const pvec_dtype kAllDtypes[] = {PVEC_FLOAT32, PVEC_FLOAT64, PVEC_INT32,
                                 PVEC_INT64,   PVEC_UINT32,  PVEC_UINT64};

// One scalar, one vector[3] and one tensor[2][3] property of every dtype, in kAllDtypes
// order: property 3*k + s is dtype kAllDtypes[k] with shape s.
pvec::schema all_shapes_schema() {
  pvec::schema s;
  for (pvec_dtype d : kAllDtypes) {
    const std::string n = pvec::dtype_name(d);
    s.add_scalar("s_" + n, d);
    s.add_vector("v_" + n, d, 3);
    s.add_tensor("t_" + n, d, 2, 3);
  }
  return s;
}

// Every (i, a, b) of view v must be the address the C formula gives from the raw pointer.
template <class T>
void check_addresses(const pvec::view<T>& v, T* raw, const pvec_layout& l, std::int64_t n) {
  const std::int64_t C = l.capacity;
  REQUIRE(v.data == raw);
  REQUIRE(v.capacity == C);
  REQUIRE(v.extents[0] == l.extents[0]);
  REQUIRE(v.extents[1] == l.extents[1]);
  REQUIRE(v.ncomp() == l.ncomp);
  REQUIRE(v.generation == l.generation);
  const std::int64_t m = l.extents[1];
  std::int64_t mismatches = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    mismatches += (&v(i) != raw + i);
    for (std::int64_t c = 0; c < l.ncomp; ++c) mismatches += (&v(i, c) != raw + c * C + i);
    for (std::int64_t a = 0; a < l.extents[0]; ++a)
      for (std::int64_t b = 0; b < m; ++b) mismatches += (&v(i, a, b) != raw + (a * m + b) * C + i);
  }
  CHECK(mismatches == 0);
}

template <class T>
void check_dtype(pvec::vector& vec) {
  constexpr pvec_dtype d = pvec::dtype_of<T>();
  int k = 0;
  while (kAllDtypes[k] != d) ++k;
  const std::int64_t n = vec.size();
  for (int shape = 0; shape < 3; ++shape) {
    const int prop = 3 * k + shape;
    const pvec_layout l = vec.layout(prop);
    REQUIRE(l.dtype == d);
    REQUIRE(l.rank == shape);
    CHECK(l.stride_elems == l.capacity);
    CHECK(l.stride_bytes == l.capacity * static_cast<std::int64_t>(sizeof(T)));
    T* host = static_cast<T*>(pvec_host_ptr(vec.get(), prop));
    T* device = static_cast<T*>(pvec_device_ptr(vec.get(), prop));
    REQUIRE(host != nullptr);
    REQUIRE(device != nullptr);
    check_addresses(vec.host_view<T>(prop), host, l, n);
    check_addresses(vec.device_view<T>(prop), device, l, n);
    CHECK(vec.host_ptr<T>(prop) == host);
    CHECK(vec.device_ptr<T>(prop) == device);
    // Read-only views see the same addresses.
    const pvec::view<const T> cv = vec.host_view<const T>(prop);
    CHECK(cv.data == host);
    CHECK(&cv(n - 1, l.ncomp - 1) == host + (l.ncomp - 1) * l.capacity + n - 1);
  }
}

void check_all_dtypes(pvec::vector& vec) {
  check_dtype<float>(vec);
  check_dtype<double>(vec);
  check_dtype<std::int32_t>(vec);
  check_dtype<std::int64_t>(vec);
  check_dtype<std::uint32_t>(vec);
  check_dtype<std::uint64_t>(vec);
}

// Whether view<T> of prop throws DTYPE_MISMATCH, through each way of asking.
template <class T>
int mismatch_count(const pvec::vector& vec, int prop) {
  int thrown = 0;
  const std::string want = pvec::dtype_name(pvec::dtype_of<T>());
  const std::string have = pvec::dtype_name(vec.layout(prop).dtype);
  auto expect = [&](auto f) {
    try {
      f();
    } catch (const pvec::error& e) {
      CHECK(e.status() == PVEC_ERROR_DTYPE_MISMATCH);
      const std::string msg = e.what();
      CHECK(msg.find(want) != std::string::npos);
      CHECK(msg.find(have) != std::string::npos);
      ++thrown;
    }
  };
  expect([&] { (void)vec.host_view<T>(prop); });
  expect([&] { (void)vec.device_view<T>(prop); });
  expect([&] { (void)vec.host_view<const T>(prop); });
  expect([&] { (void)vec.host_ptr<T>(prop); });
  expect([&] { (void)vec.device_ptr<T>(prop); });
  return thrown;
}

template <class T>
void check_mismatches(const pvec::vector& vec) {
  constexpr pvec_dtype mine = pvec::dtype_of<T>();
  for (int prop = 0; prop < vec.prop_count(); ++prop) {
    const int thrown = mismatch_count<T>(vec, prop);
    if (vec.layout(prop).dtype == mine)
      CHECK(thrown == 0);
    else
      CHECK(thrown == 5);
  }
}

}  // namespace

TEST_CASE("dtype_of maps C++ types to pvec dtypes", "[cpp][views]") {
  STATIC_REQUIRE(pvec::dtype_of<float>() == PVEC_FLOAT32);
  STATIC_REQUIRE(pvec::dtype_of<double>() == PVEC_FLOAT64);
  STATIC_REQUIRE(pvec::dtype_of<std::int32_t>() == PVEC_INT32);
  STATIC_REQUIRE(pvec::dtype_of<std::int64_t>() == PVEC_INT64);
  STATIC_REQUIRE(pvec::dtype_of<std::uint32_t>() == PVEC_UINT32);
  STATIC_REQUIRE(pvec::dtype_of<std::uint64_t>() == PVEC_UINT64);
  STATIC_REQUIRE(pvec::dtype_of<const float>() == PVEC_FLOAT32);
  CHECK(pvec::dtype_size(pvec::dtype_of<std::uint32_t>()) == 4);
  CHECK(pvec::dtype_size(pvec::dtype_of<long long>()) == 8);
  CHECK(pvec::dtype_name(pvec::dtype_of<double>()) == "float64");
}

TEST_CASE("views index the C layout for every dtype and shape", "[cpp][views]") {
  pvec::schema s = all_shapes_schema();
  REQUIRE(s.count() == 18);
  pvec::vector vec(pvec::vector_desc().particles(100, PVEC_PLACE_LOCAL), s);
  REQUIRE(vec.capacity() == 128);
  check_all_dtypes(vec);

  SECTION("after growth the views follow the new capacity") {
    vec.resize(1000);
    REQUIRE(vec.capacity() == 1024);
    check_all_dtypes(vec);
  }
  SECTION("positions") {
    const pvec_layout l = vec.layout(PVEC_POS);
    REQUIRE(l.dtype == PVEC_FLOAT64);
    REQUIRE(l.ncomp == vec.dim());
    const pvec::view<double> pos = vec.host_view<double>(PVEC_POS);
    check_addresses(pos, static_cast<double*>(pvec_host_ptr(vec.get(), PVEC_POS)), l, 100);
    CHECK(mismatch_count<float>(vec, PVEC_POS) == 5);
  }
}

TEST_CASE("dtype mismatch throws for every wrong element type", "[cpp][views]") {
  pvec::schema s = all_shapes_schema();
  pvec::vector vec(pvec::vector_desc().particles(10, PVEC_PLACE_LOCAL), s);
  check_mismatches<float>(vec);
  check_mismatches<double>(vec);
  check_mismatches<std::int32_t>(vec);
  check_mismatches<std::int64_t>(vec);
  check_mismatches<std::uint32_t>(vec);
  check_mismatches<std::uint64_t>(vec);
}

TEST_CASE("writes through views land where the raw pointer reads", "[cpp][views]") {
  pvec::schema s;
  const int t = s.add_tensor<float>("t", 2, 2);
  const int id = s.add_vector<std::int64_t>("id", 2);
  pvec::vector vec(pvec::vector_desc().dim(2).particles(100, PVEC_PLACE_LOCAL), s);
  const std::int64_t C = vec.capacity();
  pvec::view<float> tv = vec.host_view<float>(t);
  pvec::view<std::int64_t> iv = vec.host_view<std::int64_t>(id);
  for (std::int64_t i = 0; i < vec.size(); ++i) {
    for (int a = 0; a < 2; ++a)
      for (int b = 0; b < 2; ++b) tv(i, a, b) = static_cast<float>(1000 * i + 10 * a + b);
    iv(i, 0) = i;
    iv(i, 1) = -i;
  }
  const float* raw = static_cast<const float*>(pvec_host_ptr(vec.get(), t));
  CHECK(raw[(1 * 2 + 0) * C + 57] == 57010.0f);
  CHECK(raw[(0 * 2 + 1) * C + 3] == 3001.0f);
  CHECK(raw[3 * C + 99] == 99011.0f);
  CHECK(pvec_cpp_test::strict_sum(vec, id) == 0);
  iv(99, 1) = 5;
  CHECK(pvec_cpp_test::strict_sum(vec, id) == 99 + 5);
}

TEST_CASE("transfers move the listed properties only", "[cpp][views]") {
  pvec::schema s;
  const int a = s.add_scalar<double>("a");
  const int b = s.add_vector<std::int32_t>("b", 2);
  pvec::vector vec(pvec::vector_desc().particles(70, PVEC_PLACE_LOCAL), s);
  auto ha = vec.host_view<double>(a);
  auto hb = vec.host_view<std::int32_t>(b);
  for (std::int64_t i = 0; i < vec.size(); ++i) {
    ha(i) = 0.5 * static_cast<double>(i);
    hb(i, 1) = static_cast<std::int32_t>(i);
  }
  vec.host_to_device({a, b});
  for (std::int64_t i = 0; i < vec.size(); ++i) {
    ha(i) = -1;
    hb(i, 1) = -1;
  }
  vec.host_to_device({});  // an empty list copies nothing (it does not mean "all")
  vec.device_to_host({a});
  CHECK(ha(69) == 34.5);
  CHECK(ha(1) == 0.5);
  CHECK(hb(69, 1) == -1);  // not listed, not copied back
  vec.device_to_host();
  CHECK(hb(69, 1) == 69);
  CHECK(hb(0, 0) == 0);
}

TEST_CASE("views report staleness through the generation", "[cpp][views]") {
  pvec::schema s;
  const int p = s.add_vector<float>("p", 2);
  pvec::vector vec(pvec::vector_desc().particles(64, PVEC_PLACE_LOCAL), s);
  const pvec::view<float> old = vec.host_view<float>(p);
  CHECK(vec.is_current(old));
  CHECK_NOTHROW(vec.check_view(old));
  CHECK(old.generation == vec.generation());

  vec.host_to_device();  // transfers invalidate nothing
  CHECK(vec.is_current(old));

  vec.append(1);  // 65 > 64: reallocates
  CHECK(vec.capacity() == 128);
  CHECK_FALSE(vec.is_current(old));
  try {
    vec.check_view(old);
    FAIL("check_view accepted a stale view");
  } catch (const pvec::error& e) {
    CHECK(e.status() == PVEC_ERROR_INVALID_ARGUMENT);
  }
  const pvec::view<float> fresh = vec.host_view<float>(p);
  CHECK(vec.is_current(fresh));
  CHECK(fresh.capacity == 128);

  vec.remove({0});  // reorders: also a new generation
  CHECK_FALSE(vec.is_current(fresh));
}
