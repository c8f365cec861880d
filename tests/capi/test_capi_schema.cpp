// Schemas: every dtype and shape is accepted, every invalid declaration is rejected with its
// documented status and a message, and a rejected declaration leaves the schema unchanged.
#include "capi_util.hpp"

#include <cstdint>
#include <limits>
#include <string>

using capi::Schema;

namespace {

int count_of(pvec_schema_t s) {
  int n = -1;
  PVEC_REQUIRE_OK(pvec_schema_get_count(s, &n));
  return n;
}

// Declares one property that must be refused with `want`, and checks the schema kept its
// count and still accepts a valid property afterwards (the rejected name is not taken).
void expect_rejected(pvec_schema_t s, const char* name, int dtype, int rank, const int64_t* extents,
                     pvec_status want) {
  const int before = count_of(s);
  int index = -7;
  PVEC_REQUIRE_STATUS(
      pvec_schema_add(s, name, static_cast<pvec_dtype>(dtype), rank, extents, &index), want);
  CHECK(count_of(s) == before);
}

}  // namespace

TEST_CASE("every dtype and shape is accepted, through every add function", "[schema]") {
  for (pvec_dtype dt : capi::all_dtypes()) {
    INFO("dtype " << pvec_dtype_name(dt));
    Schema s;
    const std::string d = pvec_dtype_name(dt);
    int idx = -1;
    const int64_t e1[1] = {1}, e3[1] = {3}, e22[2] = {2, 2}, e32[2] = {3, 2};
    PVEC_REQUIRE_OK(pvec_schema_add(s.get(), ("s" + d).c_str(), dt, 0, nullptr, &idx));
    CHECK(idx == 0);
    PVEC_REQUIRE_OK(pvec_schema_add(s.get(), ("v1" + d).c_str(), dt, 1, e1, &idx));
    CHECK(idx == 1);
    PVEC_REQUIRE_OK(pvec_schema_add(s.get(), ("v3" + d).c_str(), dt, 1, e3, &idx));
    CHECK(idx == 2);
    PVEC_REQUIRE_OK(pvec_schema_add(s.get(), ("t22" + d).c_str(), dt, 2, e22, &idx));
    CHECK(idx == 3);
    PVEC_REQUIRE_OK(pvec_schema_add(s.get(), ("t32" + d).c_str(), dt, 2, e32, &idx));
    CHECK(idx == 4);
    PVEC_REQUIRE_OK(pvec_schema_add_scalar(s.get(), ("S" + d).c_str(), dt, &idx));
    CHECK(idx == 5);
    PVEC_REQUIRE_OK(pvec_schema_add_vector(s.get(), ("V1" + d).c_str(), dt, 1, &idx));
    CHECK(idx == 6);
    PVEC_REQUIRE_OK(pvec_schema_add_vector(s.get(), ("V3" + d).c_str(), dt, 3, &idx));
    CHECK(idx == 7);
    PVEC_REQUIRE_OK(pvec_schema_add_tensor(s.get(), ("T22" + d).c_str(), dt, 2, 2, &idx));
    CHECK(idx == 8);
    PVEC_REQUIRE_OK(pvec_schema_add_tensor(s.get(), ("T32" + d).c_str(), dt, 3, 2, nullptr));
    CHECK(count_of(s.get()) == 10);
    CHECK(std::string(pvec_last_error()).empty());

    // The declarations reach the vector: same order, dtype, shape.
    pvec_vector_desc desc = capi::make_desc(5);
    pvec_vector_t v = nullptr;
    PVEC_REQUIRE_OK(pvec_vector_create(&desc, s.get(), &v));
    capi::Vector owner(v);
    int nprops = -1;
    PVEC_REQUIRE_OK(pvec_vector_get_prop_count(v, &nprops));
    REQUIRE(nprops == 10);
    const int ranks[10] = {0, 1, 1, 2, 2, 0, 1, 1, 2, 2};
    const int64_t ncomp[10] = {1, 1, 3, 4, 6, 1, 1, 3, 4, 6};
    for (int p = 0; p < 10; ++p) {
      const pvec_layout l = capi::layout_of(v, p);
      CHECK(l.dtype == dt);
      CHECK(l.rank == ranks[p]);
      CHECK(l.ncomp == ncomp[p]);
    }
  }
}

TEST_CASE("scalar ignores its extents; the index out-pointer may be NULL", "[schema]") {
  Schema s;
  const int64_t bad[2] = {0, -5};
  PVEC_REQUIRE_OK(pvec_schema_add(s.get(), "a", PVEC_FLOAT32, 0, bad, nullptr));
  PVEC_REQUIRE_OK(pvec_schema_add_scalar(s.get(), "b", PVEC_INT64, nullptr));
  CHECK(count_of(s.get()) == 2);
}

TEST_CASE("names: 1..63 bytes, unique, not \"pos\"", "[schema]") {
  Schema s;
  const std::string n63(PVEC_MAX_NAME, 'x');
  const std::string n64(PVEC_MAX_NAME + 1, 'y');
  PVEC_REQUIRE_OK(pvec_schema_add_scalar(s.get(), n63.c_str(), PVEC_FLOAT64, nullptr));
  PVEC_REQUIRE_OK(pvec_schema_add_scalar(s.get(), "q", PVEC_FLOAT64, nullptr));
  REQUIRE(count_of(s.get()) == 2);

  expect_rejected(s.get(), nullptr, PVEC_FLOAT64, 0, nullptr, PVEC_ERROR_INVALID_ARGUMENT);
  expect_rejected(s.get(), "", PVEC_FLOAT64, 0, nullptr, PVEC_ERROR_INVALID_ARGUMENT);
  expect_rejected(s.get(), n64.c_str(), PVEC_FLOAT64, 0, nullptr, PVEC_ERROR_INVALID_ARGUMENT);
  expect_rejected(s.get(), "q", PVEC_FLOAT64, 0, nullptr, PVEC_ERROR_INVALID_ARGUMENT);
  expect_rejected(s.get(), "q", PVEC_INT32, 0, nullptr, PVEC_ERROR_INVALID_ARGUMENT);
  expect_rejected(s.get(), n63.c_str(), PVEC_FLOAT32, 0, nullptr, PVEC_ERROR_INVALID_ARGUMENT);
  expect_rejected(s.get(), "pos", PVEC_FLOAT64, 0, nullptr, PVEC_ERROR_INVALID_ARGUMENT);
  const int64_t e3[1] = {3};
  expect_rejected(s.get(), "pos", PVEC_FLOAT64, 1, e3, PVEC_ERROR_INVALID_ARGUMENT);

  // The convenience functions check the same.
  PVEC_REQUIRE_STATUS(pvec_schema_add_scalar(s.get(), "pos", PVEC_FLOAT64, nullptr),
                      PVEC_ERROR_INVALID_ARGUMENT);
  PVEC_REQUIRE_STATUS(pvec_schema_add_vector(s.get(), "", PVEC_FLOAT64, 2, nullptr),
                      PVEC_ERROR_INVALID_ARGUMENT);
  PVEC_REQUIRE_STATUS(pvec_schema_add_tensor(s.get(), nullptr, PVEC_FLOAT64, 2, 2, nullptr),
                      PVEC_ERROR_INVALID_ARGUMENT);
  CHECK(count_of(s.get()) == 2);

  // Names that only look alike are distinct; a refused name is not reserved afterwards.
  PVEC_REQUIRE_OK(pvec_schema_add_scalar(s.get(), "Q", PVEC_FLOAT64, nullptr));
  PVEC_REQUIRE_OK(pvec_schema_add_scalar(s.get(), "pos2", PVEC_FLOAT64, nullptr));
  PVEC_REQUIRE_OK(pvec_schema_add_scalar(s.get(), "POS", PVEC_FLOAT64, nullptr));
  CHECK(count_of(s.get()) == 5);
}

TEST_CASE("unknown dtype, bad rank and extents < 1 are rejected", "[schema]") {
  Schema s;
  PVEC_REQUIRE_OK(pvec_schema_add_scalar(s.get(), "keep", PVEC_UINT32, nullptr));
  const int64_t e3[2] = {3, 3};
  for (int dt : {0, 7, -1, 99}) {
    INFO("dtype " << dt);
    expect_rejected(s.get(), "a", dt, 0, nullptr, PVEC_ERROR_INVALID_ARGUMENT);
    expect_rejected(s.get(), "a", dt, 1, e3, PVEC_ERROR_INVALID_ARGUMENT);
  }
  for (int rank : {-1, 3, 4, 100}) {
    INFO("rank " << rank);
    const int64_t e[4] = {2, 2, 2, 2};
    expect_rejected(s.get(), "a", PVEC_FLOAT32, rank, e, PVEC_ERROR_INVALID_ARGUMENT);
  }
  for (int64_t bad : {int64_t{0}, int64_t{-1}, std::numeric_limits<int64_t>::min()}) {
    INFO("extent " << bad);
    const int64_t v[1] = {bad};
    const int64_t t0[2] = {bad, 2};
    const int64_t t1[2] = {2, bad};
    expect_rejected(s.get(), "a", PVEC_FLOAT32, 1, v, PVEC_ERROR_INVALID_ARGUMENT);
    expect_rejected(s.get(), "a", PVEC_FLOAT32, 2, t0, PVEC_ERROR_INVALID_ARGUMENT);
    expect_rejected(s.get(), "a", PVEC_FLOAT32, 2, t1, PVEC_ERROR_INVALID_ARGUMENT);
    PVEC_REQUIRE_STATUS(pvec_schema_add_vector(s.get(), "a", PVEC_FLOAT32, bad, nullptr),
                        PVEC_ERROR_INVALID_ARGUMENT);
    PVEC_REQUIRE_STATUS(pvec_schema_add_tensor(s.get(), "a", PVEC_FLOAT32, bad, 2, nullptr),
                        PVEC_ERROR_INVALID_ARGUMENT);
    PVEC_REQUIRE_STATUS(pvec_schema_add_tensor(s.get(), "a", PVEC_FLOAT32, 2, bad, nullptr),
                        PVEC_ERROR_INVALID_ARGUMENT);
  }
  PVEC_REQUIRE_STATUS(pvec_schema_add_scalar(s.get(), "a", static_cast<pvec_dtype>(42), nullptr),
                      PVEC_ERROR_INVALID_ARGUMENT);
  // A vector or tensor needs its extents.
  expect_rejected(s.get(), "a", PVEC_FLOAT32, 1, nullptr, PVEC_ERROR_INVALID_ARGUMENT);
  expect_rejected(s.get(), "a", PVEC_FLOAT32, 2, nullptr, PVEC_ERROR_INVALID_ARGUMENT);
  CHECK(count_of(s.get()) == 1);
  // "a" was never taken.
  PVEC_REQUIRE_OK(pvec_schema_add_scalar(s.get(), "a", PVEC_FLOAT32, nullptr));
  CHECK(count_of(s.get()) == 2);
}

TEST_CASE("component count times element size must fit in int64", "[schema]") {
  const int64_t max = std::numeric_limits<int64_t>::max();
  Schema s;
  PVEC_REQUIRE_OK(pvec_schema_add_scalar(s.get(), "keep", PVEC_FLOAT64, nullptr));
  {
    const int64_t v[1] = {max};
    expect_rejected(s.get(), "a", PVEC_FLOAT32, 1, v, PVEC_ERROR_OVERFLOW);
  }
  {
    const int64_t v[1] = {max / 8 + 1};
    expect_rejected(s.get(), "a", PVEC_FLOAT64, 1, v, PVEC_ERROR_OVERFLOW);
    expect_rejected(s.get(), "a", PVEC_UINT64, 1, v, PVEC_ERROR_OVERFLOW);
  }
  {
    const int64_t v[1] = {max / 4 + 1};
    expect_rejected(s.get(), "a", PVEC_INT32, 1, v, PVEC_ERROR_OVERFLOW);
  }
  {
    // The product of the extents itself overflows.
    const int64_t t[2] = {max, max};
    expect_rejected(s.get(), "a", PVEC_FLOAT32, 2, t, PVEC_ERROR_OVERFLOW);
    const int64_t u[2] = {int64_t{1} << 32, int64_t{1} << 32};
    expect_rejected(s.get(), "a", PVEC_INT32, 2, u, PVEC_ERROR_OVERFLOW);
  }
  {
    // 2^31 * 2^31 = 2^62 components fit, but not times 4 or 8 bytes.
    const int64_t t[2] = {int64_t{1} << 31, int64_t{1} << 31};
    expect_rejected(s.get(), "a", PVEC_FLOAT32, 2, t, PVEC_ERROR_OVERFLOW);
    expect_rejected(s.get(), "a", PVEC_INT64, 2, t, PVEC_ERROR_OVERFLOW);
  }
  PVEC_REQUIRE_STATUS(pvec_schema_add_vector(s.get(), "a", PVEC_FLOAT64, max, nullptr),
                      PVEC_ERROR_OVERFLOW);
  PVEC_REQUIRE_STATUS(pvec_schema_add_tensor(s.get(), "a", PVEC_FLOAT64, max, 2, nullptr),
                      PVEC_ERROR_OVERFLOW);
  CHECK(count_of(s.get()) == 1);
}

TEST_CASE("huge declarations that fit are accepted; the vector reports them", "[schema]") {
  // Components such that even 64 particles' bytes fit in int64: valid declarations whose
  // vector could never be allocated, which is the vector's error to report. (Between this
  // and the documented bound, count x size, the schema may refuse with OVERFLOW.)
  const int64_t max = std::numeric_limits<int64_t>::max();
  Schema s;
  const int64_t v8[1] = {max / 8 / 64};
  const int64_t v4[1] = {max / 4 / 64};
  const int64_t t[2] = {int64_t{1} << 27, int64_t{1} << 27};
  PVEC_REQUIRE_OK(pvec_schema_add(s.get(), "a", PVEC_FLOAT64, 1, v8, nullptr));
  PVEC_REQUIRE_OK(pvec_schema_add(s.get(), "b", PVEC_FLOAT32, 1, v4, nullptr));
  PVEC_REQUIRE_OK(pvec_schema_add(s.get(), "c", PVEC_FLOAT32, 2, t, nullptr));
  CHECK(count_of(s.get()) == 3);

  pvec_vector_desc desc = capi::make_desc(1);
  pvec_vector_t v = nullptr;
  const pvec_status st = pvec_vector_create(&desc, s.get(), &v);
  const std::string err = pvec_last_error();
  INFO("create -> " << static_cast<int>(st) << ": " << err);
  CHECK((st == PVEC_ERROR_OVERFLOW || st == PVEC_ERROR_OUT_OF_MEMORY));
  CHECK(!err.empty());
  if (st == PVEC_SUCCESS) pvec_vector_destroy(v);
}

TEST_CASE("a vector copies its schema", "[schema]") {
  pvec_vector_t v = nullptr;
  {
    Schema s;
    PVEC_REQUIRE_OK(pvec_schema_add_vector(s.get(), "vel", PVEC_FLOAT32, 3, nullptr));
    pvec_vector_desc desc = capi::make_desc(10);
    PVEC_REQUIRE_OK(pvec_vector_create(&desc, s.get(), &v));
    // Later declarations do not reach the vector.
    PVEC_REQUIRE_OK(pvec_schema_add_scalar(s.get(), "late", PVEC_FLOAT32, nullptr));
  }  // schema destroyed here
  capi::Vector owner(v);
  int n = -1;
  PVEC_REQUIRE_OK(pvec_vector_get_prop_count(v, &n));
  CHECK(n == 1);
  int idx = -7;
  PVEC_REQUIRE_OK(pvec_vector_get_prop_index(v, "vel", &idx));
  CHECK(idx == 0);
  PVEC_REQUIRE_OK(pvec_vector_get_prop_index(v, "pos", &idx));
  CHECK(idx == PVEC_POS);
  PVEC_REQUIRE_STATUS(pvec_vector_get_prop_index(v, "late", &idx), PVEC_ERROR_INVALID_ARGUMENT);
  const pvec_layout l = capi::layout_of(v, 0);
  CHECK(std::string(l.name) == "vel");
  CHECK(l.ncomp == 3);
}

TEST_CASE("an empty schema makes a vector with positions only", "[schema]") {
  Schema s;
  CHECK(count_of(s.get()) == 0);
  pvec_vector_desc desc = capi::make_desc(3, 2);
  pvec_vector_t v = nullptr;
  PVEC_REQUIRE_OK(pvec_vector_create(&desc, s.get(), &v));
  capi::Vector owner(v);
  int n = -1;
  PVEC_REQUIRE_OK(pvec_vector_get_prop_count(v, &n));
  CHECK(n == 0);
  const pvec_layout l = capi::layout_of(v, PVEC_POS);
  CHECK(l.ncomp == 2);
  CHECK(capi::size_of(v) == 3);
}

TEST_CASE("dtype sizes and names", "[schema]") {
  CHECK(pvec_dtype_size(PVEC_FLOAT32) == 4);
  CHECK(pvec_dtype_size(PVEC_FLOAT64) == 8);
  CHECK(pvec_dtype_size(PVEC_INT32) == 4);
  CHECK(pvec_dtype_size(PVEC_INT64) == 8);
  CHECK(pvec_dtype_size(PVEC_UINT32) == 4);
  CHECK(pvec_dtype_size(PVEC_UINT64) == 8);
  CHECK(pvec_dtype_size(static_cast<pvec_dtype>(0)) == 0);
  CHECK(pvec_dtype_size(static_cast<pvec_dtype>(7)) == 0);
  CHECK(std::string(pvec_dtype_name(PVEC_FLOAT32)) == "float32");
  CHECK(std::string(pvec_dtype_name(PVEC_FLOAT64)) == "float64");
  CHECK(std::string(pvec_dtype_name(PVEC_INT32)) == "int32");
  CHECK(std::string(pvec_dtype_name(PVEC_INT64)) == "int64");
  CHECK(std::string(pvec_dtype_name(PVEC_UINT32)) == "uint32");
  CHECK(std::string(pvec_dtype_name(PVEC_UINT64)) == "uint64");
  REQUIRE(pvec_dtype_name(static_cast<pvec_dtype>(-3)) != nullptr);
  CHECK(std::string(pvec_dtype_name(static_cast<pvec_dtype>(-3))) == "unknown");
  CHECK(std::string(pvec_dtype_name(static_cast<pvec_dtype>(7))) == "unknown");
}

TEST_CASE("each declared property reads back: name, dtype, rank, extents", "[schema]") {
  capi::Schema s;
  const int64_t v3[1] = {3}, t23[2] = {2, 3};
  PVEC_REQUIRE_OK(pvec_schema_add(s.get(), "rho", PVEC_FLOAT32, 0, nullptr, nullptr));
  PVEC_REQUIRE_OK(pvec_schema_add(s.get(), "vel", PVEC_FLOAT64, 1, v3, nullptr));
  PVEC_REQUIRE_OK(pvec_schema_add(s.get(), "stress", PVEC_UINT64, 2, t23, nullptr));
  const std::string longest(PVEC_MAX_NAME, 'n');
  PVEC_REQUIRE_OK(pvec_schema_add_scalar(s.get(), longest.c_str(), PVEC_INT32, nullptr));
  struct Want {
    std::string name;
    pvec_dtype dtype;
    int rank;
    int64_t e0, e1;
  };
  const Want want[] = {{"rho", PVEC_FLOAT32, 0, 1, 1},
                       {"vel", PVEC_FLOAT64, 1, 3, 1},
                       {"stress", PVEC_UINT64, 2, 2, 3},
                       {longest, PVEC_INT32, 0, 1, 1}};
  for (int k = 0; k < 4; ++k) {
    char name[PVEC_MAX_NAME + 1];
    pvec_dtype dt = static_cast<pvec_dtype>(0);
    int rank = -1;
    int64_t ext[PVEC_MAX_RANK] = {0, 0};
    PVEC_REQUIRE_OK(pvec_schema_get_property(s.get(), k, name, sizeof name, &dt, &rank, ext));
    CHECK(std::string(name) == want[k].name);
    CHECK(dt == want[k].dtype);
    CHECK(rank == want[k].rank);
    CHECK(ext[0] == want[k].e0);
    CHECK(ext[1] == want[k].e1);
    // Every output may be left out.
    PVEC_REQUIRE_OK(pvec_schema_get_property(s.get(), k, nullptr, 0, nullptr, nullptr, nullptr));
  }
  // Out of range, and a name buffer too small: an error, and nothing written.
  char small[4] = {'x', 'x', 'x', 'x'};
  int rank = -7;
  CHECK(pvec_schema_get_property(s.get(), 4, small, sizeof small, nullptr, &rank, nullptr) ==
        PVEC_ERROR_OUT_OF_RANGE);
  CHECK(pvec_schema_get_property(s.get(), -1, small, sizeof small, nullptr, &rank, nullptr) ==
        PVEC_ERROR_OUT_OF_RANGE);
  CHECK(pvec_schema_get_property(s.get(), 2, small, sizeof small, nullptr, &rank, nullptr) ==
        PVEC_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(pvec_last_error()).find("stress") != std::string::npos);
  CHECK(small[0] == 'x');
  CHECK(rank == -7);
  // Exactly the name and its NUL fits.
  CHECK(pvec_schema_get_property(s.get(), 0, small, sizeof small, nullptr, &rank, nullptr) ==
        PVEC_SUCCESS);
  CHECK(std::string(small) == "rho");
}
