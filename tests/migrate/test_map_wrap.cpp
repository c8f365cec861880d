// pvec_map wraps periodic coordinates to the exactly rounded x - k L (pvec.h, pvec_map), for
// float64 and float32 positions, in a box that does not start at 0; compared with the
// binary128 reference of tests/decomp/wrap_reference.hpp, particle by particle (by id).
#include "catch_compat.hpp"
#include "wrap_reference.hpp"

#include <pvec.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace {

template <class T>
void check_wrap(pvec_dtype dtype) {
  const double lo = -0.5, hi = 1.5;
  pvec_schema_t s = nullptr;
  REQUIRE(pvec_schema_create(&s) == PVEC_SUCCESS);
  int id_prop = -1;
  REQUIRE(pvec_schema_add_scalar(s, "id", PVEC_INT64, &id_prop) == PVEC_SUCCESS);
  pvec_vector_desc d = PVEC_VECTOR_DESC_INIT;
  d.dim = 3;
  d.pos_dtype = dtype;
  for (int k = 0; k < 3; ++k) {
    d.domain_lo[k] = lo;
    d.domain_hi[k] = hi;
    d.boundary[k] = PVEC_PERIODIC;
  }
  const int64_t n = 20000;
  d.n_particles = n;
  d.placement = PVEC_PLACE_LOCAL;
  d.backend = PVEC_BACKEND_HOST;
  pvec_vector_t v = nullptr;
  REQUIRE(pvec_vector_create(&d, s, &v) == PVEC_SUCCESS);
  int64_t cap = 0;
  REQUIRE(pvec_vector_get_capacity(v, &cap) == PVEC_SUCCESS);
  T* pos = static_cast<T*>(pvec_host_ptr(v, PVEC_POS));
  int64_t* id = static_cast<int64_t*>(pvec_host_ptr(v, id_prop));
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-6.0, 8.0);
  std::vector<T> original(static_cast<size_t>(3 * n));
  for (int64_t i = 0; i < n; ++i) {
    id[i] = i;
    for (int k = 0; k < 3; ++k) original[3 * i + k] = pos[k * cap + i] = static_cast<T>(u(rng));
  }
  REQUIRE(pvec_map(v, 0, nullptr) == PVEC_SUCCESS);
  int64_t n_after = 0;
  REQUIRE(pvec_vector_get_size(v, &n_after) == PVEC_SUCCESS);
  REQUIRE(n_after == n);
  REQUIRE(pvec_vector_get_capacity(v, &cap) == PVEC_SUCCESS);
  pos = static_cast<T*>(pvec_host_ptr(v, PVEC_POS));
  id = static_cast<int64_t*>(pvec_host_ptr(v, id_prop));
  int64_t wrong = 0;
  for (int64_t i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k) {
      const double x = static_cast<double>(original[3 * id[i] + k]);
      T want = static_cast<T>(pvec_test::wrap_reference(x, lo, hi));
      if (static_cast<double>(want) >= hi) want = static_cast<T>(lo);  // rounded onto hi
      const T got = pos[k * cap + i];
      if (std::memcmp(&want, &got, sizeof got) != 0 && ++wrong <= 5) {
        INFO("particle " << id[i] << " coordinate " << k << ": x = " << x);
        CHECK(got == want);
      }
    }
  CHECK(wrong == 0);
  REQUIRE(pvec_vector_destroy(v) == PVEC_SUCCESS);
  REQUIRE(pvec_schema_destroy(s) == PVEC_SUCCESS);
}

}  // namespace

TEST_CASE("map wraps to the exactly rounded x - k L", "[map][wrap]") {
  SECTION("float64 positions") { check_wrap<double>(PVEC_FLOAT64); }
  SECTION("float32 positions") { check_wrap<float>(PVEC_FLOAT32); }
}
