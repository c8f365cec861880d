// Longer than 500 lines because it walks pvec.h section by section, one case per function.
// Bad input to every function of pvec.h that takes a handle or an out-pointer: NULL,
// destroyed, wrong-kind and made-up handles; NULL out-pointers; out-of-range properties;
// negative sizes; bad descriptor fields. Every refusal must give the documented status, a
// message, and leave the vector exactly as it was.
#include "capi_util.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace {

using VecCall = std::function<pvec_status(pvec_vector_t)>;

struct NamedCall {
  const char* name;
  VecCall call;
};

// Every function taking a vector handle, called with otherwise valid arguments.
std::vector<NamedCall> vector_functions() {
  static int64_t i64;
  static int i;
  static double d[PVEC_MAX_DIM], d2[PVEC_MAX_DIM];
  static int iv[PVEC_MAX_DIM];
  static pvec_dtype dt;
  static pvec_backend be;
  static uint64_t u64;
  static pvec_stream_t st;
  static pvec_layout lay;
  static pvec_op_stats ops;
  static const int props[1] = {0};
  static const int64_t idx[1] = {0};
  static const double x[PVEC_MAX_DIM] = {0.5, 0.5, 0.5, 0.5};
  lay = PVEC_LAYOUT_INIT;
  ops.struct_size = sizeof ops;
  return {
      {"pvec_vector_get_size", [](pvec_vector_t v) { return pvec_vector_get_size(v, &i64); }},
      {"pvec_vector_get_ghost_size",
       [](pvec_vector_t v) { return pvec_vector_get_ghost_size(v, &i64); }},
      {"pvec_vector_get_capacity",
       [](pvec_vector_t v) { return pvec_vector_get_capacity(v, &i64); }},
      {"pvec_vector_get_dim", [](pvec_vector_t v) { return pvec_vector_get_dim(v, &i); }},
      {"pvec_vector_get_pos_dtype",
       [](pvec_vector_t v) { return pvec_vector_get_pos_dtype(v, &dt); }},
      {"pvec_vector_get_domain", [](pvec_vector_t v) { return pvec_vector_get_domain(v, d, d2); }},
      {"pvec_vector_get_boundaries",
       [](pvec_vector_t v) { return pvec_vector_get_boundaries(v, iv); }},
      {"pvec_vector_get_ghost_width",
       [](pvec_vector_t v) { return pvec_vector_get_ghost_width(v, d); }},
      {"pvec_vector_get_prop_count",
       [](pvec_vector_t v) { return pvec_vector_get_prop_count(v, &i); }},
      {"pvec_vector_get_prop_index",
       [](pvec_vector_t v) { return pvec_vector_get_prop_index(v, "pos", &i); }},
      {"pvec_vector_get_backend", [](pvec_vector_t v) { return pvec_vector_get_backend(v, &be); }},
      {"pvec_vector_get_device", [](pvec_vector_t v) { return pvec_vector_get_device(v, &i); }},
      {"pvec_vector_get_generation",
       [](pvec_vector_t v) { return pvec_vector_get_generation(v, &u64); }},
      {"pvec_vector_reserve", [](pvec_vector_t v) { return pvec_vector_reserve(v, 1000); }},
      {"pvec_vector_resize", [](pvec_vector_t v) { return pvec_vector_resize(v, 3); }},
      {"pvec_vector_append", [](pvec_vector_t v) { return pvec_vector_append(v, 1, &i64); }},
      {"pvec_vector_remove", [](pvec_vector_t v) { return pvec_vector_remove(v, idx, 1); }},
      {"pvec_vector_shrink_to_fit", [](pvec_vector_t v) { return pvec_vector_shrink_to_fit(v); }},
      {"pvec_vector_get_layout",
       [](pvec_vector_t v) { return pvec_vector_get_layout(v, 0, &lay); }},
      {"pvec_vector_set_stream",
       [](pvec_vector_t v) { return pvec_vector_set_stream(v, nullptr); }},
      {"pvec_vector_get_stream", [](pvec_vector_t v) { return pvec_vector_get_stream(v, &st); }},
      {"pvec_host_to_device", [](pvec_vector_t v) { return pvec_host_to_device(v, props, 1); }},
      {"pvec_device_to_host", [](pvec_vector_t v) { return pvec_device_to_host(v, nullptr, 0); }},
      {"pvec_host_to_device_async",
       [](pvec_vector_t v) { return pvec_host_to_device_async(v, nullptr, 0, nullptr); }},
      {"pvec_device_to_host_async",
       [](pvec_vector_t v) { return pvec_device_to_host_async(v, props, 1, nullptr); }},
      {"pvec_vector_synchronize", [](pvec_vector_t v) { return pvec_vector_synchronize(v); }},
      {"pvec_vector_get_rank", [](pvec_vector_t v) { return pvec_vector_get_rank(v, &i); }},
      {"pvec_vector_get_nranks", [](pvec_vector_t v) { return pvec_vector_get_nranks(v, &i); }},
      {"pvec_vector_get_subdomain",
       [](pvec_vector_t v) { return pvec_vector_get_subdomain(v, d, d2); }},
      {"pvec_vector_get_owner_rank",
       [](pvec_vector_t v) { return pvec_vector_get_owner_rank(v, x, &i); }},
      {"pvec_map", [](pvec_vector_t v) { return pvec_map(v, 0, &i64); }},
      {"pvec_ghost_get", [](pvec_vector_t v) { return pvec_ghost_get(v, nullptr, 0, 0); }},
      {"pvec_ghost_put",
       [](pvec_vector_t v) { return pvec_ghost_put(v, nullptr, 0, PVEC_REDUCE_ADD, 0); }},
      {"pvec_vector_get_op_stats",
       [](pvec_vector_t v) { return pvec_vector_get_op_stats(v, &ops); }},
      // Last: with a valid handle it would end the vector.
      {"pvec_vector_destroy", [](pvec_vector_t v) { return pvec_vector_destroy(v); }},
  };
}

using SchemaCall = std::function<pvec_status(pvec_schema_t)>;

std::vector<std::pair<const char*, SchemaCall>> schema_functions() {
  static int n;
  static const int64_t ext[2] = {2, 2};
  return {
      {"pvec_schema_get_count", [](pvec_schema_t s) { return pvec_schema_get_count(s, &n); }},
      {"pvec_schema_get_property",
       [](pvec_schema_t s) {
         return pvec_schema_get_property(s, 0, nullptr, 0, nullptr, nullptr, nullptr);
       }},
      {"pvec_schema_add",
       [](pvec_schema_t s) { return pvec_schema_add(s, "zz", PVEC_FLOAT32, 2, ext, &n); }},
      {"pvec_schema_add_scalar",
       [](pvec_schema_t s) { return pvec_schema_add_scalar(s, "zz", PVEC_FLOAT32, &n); }},
      {"pvec_schema_add_vector",
       [](pvec_schema_t s) { return pvec_schema_add_vector(s, "zz", PVEC_FLOAT32, 2, &n); }},
      {"pvec_schema_add_tensor",
       [](pvec_schema_t s) { return pvec_schema_add_tensor(s, "zz", PVEC_FLOAT32, 2, 2, &n); }},
      {"pvec_schema_destroy", [](pvec_schema_t s) { return pvec_schema_destroy(s); }},
  };
}

// A live vector with recognisable data on both mirrors, whose snapshot the bad calls must
// not change.
capi::Vector make_witness() {
  capi::Vector v = capi::make_vector(capi::mixed_props(), capi::make_desc(37));
  capi::fill_host_all(v.get(), 1, 0, 37);
  PVEC_REQUIRE_OK(pvec_host_to_device(v.get(), nullptr, 0));
  capi::fill_host_all(v.get(), 2, 0, 37);
  return v;
}

// Runs call, expects status `want` with a message, and the witness unchanged.
void expect_refused(const char* name, const std::function<pvec_status()>& call, pvec_status want,
                    pvec_vector_t witness) {
  INFO(name);
  const capi::Snapshot before = capi::snapshot(witness);
  PVEC_REQUIRE_STATUS(call(), want);
  const capi::Snapshot after = capi::snapshot(witness);
  INFO(capi::to_string(before) << " / " << capi::to_string(after));
  CHECK(after == before);
}

// The pointer getters return NULL and leave a message.
void expect_null_ptr(pvec_vector_t v, int prop, pvec_vector_t witness) {
  const capi::Snapshot before = capi::snapshot(witness);
  for (int device = 0; device < 2; ++device) {
    INFO((device ? "pvec_device_ptr" : "pvec_host_ptr") << " prop " << prop);
    void* p = device ? pvec_device_ptr(v, prop) : pvec_host_ptr(v, prop);
    const std::string err = pvec_last_error();
    CHECK(p == nullptr);
    CHECK(!err.empty());
  }
  CHECK(capi::snapshot(witness) == before);
}

pvec_vector_t made_up_vector(uintptr_t value) { return reinterpret_cast<pvec_vector_t>(value); }
pvec_schema_t made_up_schema(uintptr_t value) { return reinterpret_cast<pvec_schema_t>(value); }

}  // namespace

TEST_CASE("bad vector handles are refused by every function", "[bad_input]") {
  capi::Vector witness = make_witness();
  // A destroyed handle, with a newer vector alive that could reuse its slot.
  pvec_vector_t destroyed = nullptr;
  {
    capi::Vector gone = capi::make_vector(capi::mixed_props(), capi::make_desc(5));
    destroyed = gone.get();
  }
  capi::Vector newer = capi::make_vector(capi::mixed_props(), capi::make_desc(6));
  capi::Schema schema;
  PVEC_REQUIRE_OK(pvec_schema_add_scalar(schema.get(), "m", PVEC_FLOAT64, nullptr));

  const std::vector<std::pair<const char*, pvec_vector_t>> bad = {
      {"NULL", nullptr},
      {"destroyed", destroyed},
      {"schema as vector", reinterpret_cast<pvec_vector_t>(schema.get())},
      {"made-up 0xdeadbeef", made_up_vector(0xdeadbeef)},
      {"made-up 1", made_up_vector(1)},
      {"made-up -1", made_up_vector(~uintptr_t{0})},
  };
  for (const auto& h : bad) {
    INFO("handle: " << h.first);
    if (h.second != nullptr && h.second == newer.get()) continue;  // slot reused: see below
    for (const NamedCall& f : vector_functions()) {
      const pvec_vector_t hv = h.second;
      expect_refused(
          f.name, [&] { return f.call(hv); }, PVEC_ERROR_INVALID_HANDLE, witness.get());
    }
    expect_null_ptr(h.second, 0, witness.get());
    expect_null_ptr(h.second, PVEC_POS, witness.get());
  }
  // A handle is an identifier: the destroyed one must not alias the newer vector.
  CHECK(destroyed != newer.get());
  CHECK(capi::size_of(newer.get()) == 6);
  // The schema passed as a vector is still a working schema.
  int n = -1;
  PVEC_REQUIRE_OK(pvec_schema_get_count(schema.get(), &n));
  CHECK(n == 1);
}

TEST_CASE("bad schema handles are refused by every schema function", "[bad_input]") {
  capi::Vector witness = make_witness();
  pvec_schema_t destroyed = nullptr;
  PVEC_REQUIRE_OK(pvec_schema_create(&destroyed));
  PVEC_REQUIRE_OK(pvec_schema_destroy(destroyed));
  capi::Schema newer;
  const std::vector<std::pair<const char*, pvec_schema_t>> bad = {
      {"NULL", nullptr},
      {"destroyed", destroyed},
      {"vector as schema", reinterpret_cast<pvec_schema_t>(witness.get())},
      {"made-up 0xdeadbeef", made_up_schema(0xdeadbeef)},
      {"made-up 1", made_up_schema(1)},
  };
  for (const auto& h : bad) {
    INFO("handle: " << h.first);
    for (const auto& f : schema_functions()) {
      const pvec_schema_t hs = h.second;
      expect_refused(
          f.first, [&] { return f.second(hs); }, PVEC_ERROR_INVALID_HANDLE, witness.get());
    }
    pvec_vector_desc desc = capi::make_desc(4);
    pvec_vector_t out = nullptr;
    const pvec_schema_t hs = h.second;
    expect_refused(
        "pvec_vector_create", [&] { return pvec_vector_create(&desc, hs, &out); },
        PVEC_ERROR_INVALID_HANDLE, witness.get());
  }
  int n = -1;
  PVEC_REQUIRE_OK(pvec_schema_get_count(newer.get(), &n));
  CHECK(n == 0);
  // The vector passed as a schema is still alive and whole.
  CHECK(capi::size_of(witness.get()) == 37);
}

TEST_CASE("double destroy is an invalid handle", "[bad_input]") {
  pvec_schema_t s = nullptr;
  PVEC_REQUIRE_OK(pvec_schema_create(&s));
  pvec_vector_desc desc = capi::make_desc(3);
  pvec_vector_t v = nullptr;
  PVEC_REQUIRE_OK(pvec_vector_create(&desc, s, &v));
  PVEC_REQUIRE_OK(pvec_schema_destroy(s));
  PVEC_REQUIRE_STATUS(pvec_schema_destroy(s), PVEC_ERROR_INVALID_HANDLE);
  PVEC_REQUIRE_OK(pvec_vector_destroy(v));
  PVEC_REQUIRE_STATUS(pvec_vector_destroy(v), PVEC_ERROR_INVALID_HANDLE);
}

TEST_CASE("NULL out-pointers are invalid arguments", "[bad_input]") {
  capi::Vector witness = make_witness();
  const pvec_vector_t v = witness.get();
  capi::Schema schema;
  const pvec_schema_t s = schema.get();
  pvec_vector_desc desc = capi::make_desc(4);
  const double x[PVEC_MAX_DIM] = {0.5, 0.5, 0.5, 0.5};
  int i = 0;
  const std::vector<std::pair<const char*, std::function<pvec_status()>>> calls = {
      {"pvec_initialized", [] { return pvec_initialized(nullptr); }},
      {"pvec_cuda_device_count", [] { return pvec_cuda_device_count(nullptr); }},
      {"pvec_schema_create", [] { return pvec_schema_create(nullptr); }},
      {"pvec_schema_get_count", [&] { return pvec_schema_get_count(s, nullptr); }},
      {"pvec_vector_desc_init", [] { return pvec_vector_desc_init(nullptr); }},
      {"pvec_vector_create(desc NULL)",
       [&] {
         pvec_vector_t out = nullptr;
         return pvec_vector_create(nullptr, s, &out);
       }},
      {"pvec_vector_create(out NULL)", [&] { return pvec_vector_create(&desc, s, nullptr); }},
      {"pvec_vector_get_size", [&] { return pvec_vector_get_size(v, nullptr); }},
      {"pvec_vector_get_ghost_size", [&] { return pvec_vector_get_ghost_size(v, nullptr); }},
      {"pvec_vector_get_capacity", [&] { return pvec_vector_get_capacity(v, nullptr); }},
      {"pvec_vector_get_dim", [&] { return pvec_vector_get_dim(v, nullptr); }},
      {"pvec_vector_get_pos_dtype", [&] { return pvec_vector_get_pos_dtype(v, nullptr); }},
      {"pvec_vector_get_boundaries", [&] { return pvec_vector_get_boundaries(v, nullptr); }},
      {"pvec_vector_get_ghost_width", [&] { return pvec_vector_get_ghost_width(v, nullptr); }},
      {"pvec_vector_get_prop_count", [&] { return pvec_vector_get_prop_count(v, nullptr); }},
      {"pvec_vector_get_prop_index(out NULL)",
       [&] { return pvec_vector_get_prop_index(v, "mass", nullptr); }},
      {"pvec_vector_get_prop_index(name NULL)",
       [&] { return pvec_vector_get_prop_index(v, nullptr, &i); }},
      {"pvec_vector_get_backend", [&] { return pvec_vector_get_backend(v, nullptr); }},
      {"pvec_vector_get_device", [&] { return pvec_vector_get_device(v, nullptr); }},
      {"pvec_vector_get_generation", [&] { return pvec_vector_get_generation(v, nullptr); }},
      {"pvec_vector_get_op_stats", [&] { return pvec_vector_get_op_stats(v, nullptr); }},
      {"pvec_vector_get_layout", [&] { return pvec_vector_get_layout(v, 0, nullptr); }},
      {"pvec_vector_get_stream", [&] { return pvec_vector_get_stream(v, nullptr); }},
      {"pvec_vector_get_rank", [&] { return pvec_vector_get_rank(v, nullptr); }},
      {"pvec_vector_get_nranks", [&] { return pvec_vector_get_nranks(v, nullptr); }},
      {"pvec_vector_get_owner_rank(rank NULL)",
       [&] { return pvec_vector_get_owner_rank(v, x, nullptr); }},
      {"pvec_vector_get_owner_rank(x NULL)",
       [&] { return pvec_vector_get_owner_rank(v, nullptr, &i); }},
      {"pvec_memory_get_stats", [] { return pvec_memory_get_stats(nullptr); }},
  };
  for (const auto& c : calls)
    expect_refused(c.first, c.second, PVEC_ERROR_INVALID_ARGUMENT, witness.get());
}

TEST_CASE("other bad arguments", "[bad_input]") {
  capi::Vector witness = make_witness();
  const pvec_vector_t v = witness.get();
  int i = 0;
  expect_refused(
      "pvec_vector_get_prop_index(unknown name)",
      [&] { return pvec_vector_get_prop_index(v, "nope", &i); }, PVEC_ERROR_INVALID_ARGUMENT, v);
  expect_refused(
      "pvec_vector_get_prop_index(empty name)",
      [&] { return pvec_vector_get_prop_index(v, "", &i); }, PVEC_ERROR_INVALID_ARGUMENT, v);
  // Non-periodic box [0,1)^3: a point outside, or not finite, has no owner.
  const double outside[PVEC_MAX_DIM] = {0.5, 1.5, 0.5, 0};
  const double nan_x[PVEC_MAX_DIM] = {0.5, std::nan(""), 0.5, 0};
  expect_refused(
      "pvec_vector_get_owner_rank(outside)",
      [&] { return pvec_vector_get_owner_rank(v, outside, &i); }, PVEC_ERROR_INVALID_ARGUMENT, v);
  expect_refused(
      "pvec_vector_get_owner_rank(NaN)", [&] { return pvec_vector_get_owner_rank(v, nan_x, &i); },
      PVEC_ERROR_INVALID_ARGUMENT, v);
}

TEST_CASE("out-of-range properties", "[bad_input]") {
  capi::Vector witness = make_witness();
  const pvec_vector_t v = witness.get();
  int count = 0;
  PVEC_REQUIRE_OK(pvec_vector_get_prop_count(v, &count));
  REQUIRE(count == 4);
  for (int prop :
       {-2, count, 1000, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()}) {
    INFO("prop " << prop);
    pvec_layout l = PVEC_LAYOUT_INIT;
    const int list[2] = {0, prop};
    expect_refused(
        "pvec_vector_get_layout", [&] { return pvec_vector_get_layout(v, prop, &l); },
        PVEC_ERROR_OUT_OF_RANGE, v);
    expect_refused(
        "pvec_host_to_device", [&] { return pvec_host_to_device(v, list, 2); },
        PVEC_ERROR_OUT_OF_RANGE, v);
    expect_refused(
        "pvec_device_to_host", [&] { return pvec_device_to_host(v, list, 2); },
        PVEC_ERROR_OUT_OF_RANGE, v);
    expect_refused(
        "pvec_host_to_device_async", [&] { return pvec_host_to_device_async(v, list, 2, nullptr); },
        PVEC_ERROR_OUT_OF_RANGE, v);
    expect_refused(
        "pvec_device_to_host_async", [&] { return pvec_device_to_host_async(v, list, 2, nullptr); },
        PVEC_ERROR_OUT_OF_RANGE, v);
    expect_null_ptr(v, prop, v);
  }
}

TEST_CASE("layout_get needs the caller's struct_size", "[bad_input]") {
  capi::Vector witness = make_witness();
  const pvec_vector_t v = witness.get();
  for (size_t sz : {size_t{0}, size_t{1}, size_t{8}, offsetof(pvec_layout, device_ptr),
                    sizeof(pvec_layout) - 1}) {
    INFO("struct_size " << sz);
    pvec_layout l = PVEC_LAYOUT_INIT;
    l.struct_size = sz;
    expect_refused(
        "pvec_vector_get_layout", [&] { return pvec_vector_get_layout(v, 0, &l); },
        PVEC_ERROR_INVALID_ARGUMENT, v);
  }
}

TEST_CASE("op stats need the caller's struct_size and start at zero", "[bad_input]") {
  capi::Vector witness = make_witness();
  const pvec_vector_t v = witness.get();
  for (size_t sz : {size_t{0}, size_t{8}, size_t{PVEC_OP_STATS_SIZE_V1} - 1}) {
    INFO("struct_size " << sz);
    pvec_op_stats s;
    s.struct_size = sz;
    expect_refused(
        "pvec_vector_get_op_stats", [&] { return pvec_vector_get_op_stats(v, &s); },
        PVEC_ERROR_INVALID_ARGUMENT, v);
  }
  pvec_op_stats s;
  std::memset(&s, 0x5a, sizeof s);
  s.struct_size = sizeof s;
  PVEC_REQUIRE_OK(pvec_vector_get_op_stats(v, &s));
  CHECK(s.compute_seconds == 0);
  CHECK(s.exchange_seconds == 0);
  CHECK(s.bytes_sent == 0);
  CHECK(s.bytes_received == 0);
  CHECK(s.particles_sent == 0);
  CHECK(s.particles_received == 0);
  CHECK(s.particles_self == 0);
  CHECK(s.transport == PVEC_TRANSPORT_NONE);
  // PVEC_OP_STATS_INIT sets the caller's struct_size.
  pvec_op_stats init = PVEC_OP_STATS_INIT;
  CHECK(init.struct_size == sizeof(pvec_op_stats));
  PVEC_REQUIRE_OK(pvec_vector_get_op_stats(v, &init));
  pvec_memory_stats m = PVEC_MEMORY_STATS_INIT;
  CHECK(m.struct_size == sizeof(pvec_memory_stats));
  PVEC_REQUIRE_OK(pvec_memory_get_stats(&m));
}

TEST_CASE("negative and overflowing sizes", "[bad_input]") {
  capi::Vector witness = make_witness();
  const pvec_vector_t v = witness.get();
  const int64_t min = std::numeric_limits<int64_t>::min();
  const int64_t max = std::numeric_limits<int64_t>::max();
  int64_t first = -5;
  for (int64_t n : {int64_t{-1}, int64_t{-64}, min}) {
    INFO("n " << n);
    expect_refused(
        "pvec_vector_reserve", [&] { return pvec_vector_reserve(v, n); },
        PVEC_ERROR_INVALID_ARGUMENT, v);
    expect_refused(
        "pvec_vector_resize", [&] { return pvec_vector_resize(v, n); }, PVEC_ERROR_INVALID_ARGUMENT,
        v);
    expect_refused(
        "pvec_vector_append", [&] { return pvec_vector_append(v, n, &first); },
        PVEC_ERROR_INVALID_ARGUMENT, v);
    const int64_t idx[1] = {0};
    expect_refused(
        "pvec_vector_remove", [&] { return pvec_vector_remove(v, idx, n); },
        PVEC_ERROR_INVALID_ARGUMENT, v);
  }
  // Rounding max up to 64, or the bytes of 2^62 float64 elements, does not fit in int64.
  for (int64_t n : {max, max - 10, int64_t{1} << 62}) {
    INFO("n " << n);
    expect_refused(
        "pvec_vector_reserve", [&] { return pvec_vector_reserve(v, n); }, PVEC_ERROR_OVERFLOW, v);
    expect_refused(
        "pvec_vector_resize", [&] { return pvec_vector_resize(v, n); }, PVEC_ERROR_OVERFLOW, v);
  }
  // 37 particles + max overflows before anything is allocated.
  expect_refused(
      "pvec_vector_append", [&] { return pvec_vector_append(v, max, &first); }, PVEC_ERROR_OVERFLOW,
      v);
  expect_refused(
      "pvec_vector_append", [&] { return pvec_vector_append(v, max - 30, &first); },
      PVEC_ERROR_OVERFLOW, v);
}

TEST_CASE("bad descriptor fields", "[bad_input]") {
  capi::Vector witness = make_witness();
  capi::Schema schema;
  PVEC_REQUIRE_OK(pvec_schema_add_scalar(schema.get(), "m", PVEC_FLOAT32, nullptr));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  struct Bad {
    const char* what;
    std::function<void(pvec_vector_desc&)> edit;
  };
  const std::vector<Bad> bad = {
      {"dim 0", [](pvec_vector_desc& d) { d.dim = 0; }},
      {"dim 5", [](pvec_vector_desc& d) { d.dim = PVEC_MAX_DIM + 1; }},
      {"dim -1", [](pvec_vector_desc& d) { d.dim = -1; }},
      {"pos_dtype int32", [](pvec_vector_desc& d) { d.pos_dtype = PVEC_INT32; }},
      {"pos_dtype uint64", [](pvec_vector_desc& d) { d.pos_dtype = PVEC_UINT64; }},
      {"pos_dtype 0", [](pvec_vector_desc& d) { d.pos_dtype = static_cast<pvec_dtype>(0); }},
      {"pos_dtype 99", [](pvec_vector_desc& d) { d.pos_dtype = static_cast<pvec_dtype>(99); }},
      {"lo == hi", [](pvec_vector_desc& d) { d.domain_lo[0] = d.domain_hi[0] = 1; }},
      {"lo > hi", [](pvec_vector_desc& d) { d.domain_lo[2] = 2; }},
      {"lo > hi, dim 2",
       [](pvec_vector_desc& d) {
         d.dim = 2;
         d.domain_lo[1] = 3;
         d.domain_hi[1] = -3;
       }},
      {"lo NaN", [nan](pvec_vector_desc& d) { d.domain_lo[1] = nan; }},
      {"hi NaN", [nan](pvec_vector_desc& d) { d.domain_hi[0] = nan; }},
      {"boundary 7", [](pvec_vector_desc& d) { d.boundary[1] = 7; }},
      {"boundary -1", [](pvec_vector_desc& d) { d.boundary[0] = -1; }},
      {"boundary 2", [](pvec_vector_desc& d) { d.boundary[2] = 2; }},
      {"ghost width -1", [](pvec_vector_desc& d) { d.ghost_width = -1; }},
      {"ghost width -1e-300", [](pvec_vector_desc& d) { d.ghost_width = -1e-300; }},
      {"ghost width NaN", [nan](pvec_vector_desc& d) { d.ghost_width = nan; }},
      {"n_particles -1", [](pvec_vector_desc& d) { d.n_particles = -1; }},
      {"n_particles min",
       [](pvec_vector_desc& d) { d.n_particles = std::numeric_limits<int64_t>::min(); }},
      {"placement 2", [](pvec_vector_desc& d) { d.placement = 2; }},
      {"placement -1", [](pvec_vector_desc& d) { d.placement = -1; }},
      {"backend 3", [](pvec_vector_desc& d) { d.backend = 3; }},
      {"backend -1", [](pvec_vector_desc& d) { d.backend = -1; }},
      {"host_memory 2", [](pvec_vector_desc& d) { d.host_memory = 2; }},
      {"host_memory -1", [](pvec_vector_desc& d) { d.host_memory = -1; }},
      {"struct_size 0", [](pvec_vector_desc& d) { d.struct_size = 0; }},
      {"struct_size 4", [](pvec_vector_desc& d) { d.struct_size = 4; }},
      {"struct_size half",
       [](pvec_vector_desc& d) { d.struct_size = sizeof(pvec_vector_desc) / 2; }},
  };
  for (const Bad& b : bad) {
    pvec_vector_desc d = capi::make_desc(10);
    b.edit(d);
    pvec_vector_t out = nullptr;
    expect_refused(
        b.what, [&] { return pvec_vector_create(&d, schema.get(), &out); },
        PVEC_ERROR_INVALID_ARGUMENT, witness.get());
  }
  // The same descriptor without the edit is fine.
  pvec_vector_desc d = capi::make_desc(10);
  pvec_vector_t out = nullptr;
  PVEC_REQUIRE_OK(pvec_vector_create(&d, schema.get(), &out));
  PVEC_REQUIRE_OK(pvec_vector_destroy(out));
}

TEST_CASE("backend CUDA without a device is NO_DEVICE", "[bad_input]") {
  int count = 0;
  PVEC_REQUIRE_OK(pvec_cuda_device_count(&count));
  capi::Schema schema;
  pvec_vector_desc d = capi::make_desc(10, 3, PVEC_FLOAT64, PVEC_BACKEND_CUDA);
  pvec_vector_t out = nullptr;
  if (count == 0) {
    PVEC_REQUIRE_STATUS(pvec_vector_create(&d, schema.get(), &out), PVEC_ERROR_NO_DEVICE);
  } else {
    PVEC_REQUIRE_OK(pvec_vector_create(&d, schema.get(), &out));
    capi::Vector owner(out);
    CHECK(capi::backend_of(out) == PVEC_BACKEND_CUDA);
  }
}

TEST_CASE("distribution functions check their arguments", "[bad_input][dist]") {
  capi::Vector witness = make_witness();
  const pvec_vector_t v = witness.get();
  for (int prop : {-2, 4, 1000}) {
    INFO("prop " << prop);
    const int list[2] = {0, prop};
    expect_refused(
        "pvec_ghost_get", [&] { return pvec_ghost_get(v, list, 2, 0); }, PVEC_ERROR_OUT_OF_RANGE,
        v);
  }
  const int negative[1] = {0};
  expect_refused(
      "pvec_ghost_get(nprops < 0)", [&] { return pvec_ghost_get(v, negative, -1, 0); },
      PVEC_ERROR_INVALID_ARGUMENT, v);
  expect_refused(
      "pvec_ghost_get(reuse without a plan)",
      [&] { return pvec_ghost_get(v, nullptr, 0, PVEC_GHOST_REUSE_PLAN); },
      PVEC_ERROR_INVALID_ARGUMENT, v);
  expect_refused(
      "pvec_ghost_put(without a plan)",
      [&] { return pvec_ghost_put(v, nullptr, 0, PVEC_REDUCE_ADD, 0); },
      PVEC_ERROR_INVALID_ARGUMENT, v);
}

TEST_CASE("last error: empty after success, per thread", "[bad_input]") {
  capi::Vector witness = make_witness();
  int64_t n = 0;
  PVEC_REQUIRE_STATUS(pvec_vector_get_size(nullptr, &n), PVEC_ERROR_INVALID_HANDLE);
  PVEC_REQUIRE_OK(pvec_vector_get_size(witness.get(), &n));
  REQUIRE(pvec_last_error() != nullptr);
  CHECK(std::string(pvec_last_error()).empty());

  // An error in another thread does not show here, and a success there does not clear ours.
  PVEC_REQUIRE_STATUS(pvec_vector_get_capacity(nullptr, &n), PVEC_ERROR_INVALID_HANDLE);
  const std::string mine = pvec_last_error();
  std::string theirs_after_error, theirs_after_success;
  std::thread t([&] {
    int64_t m = 0;
    pvec_vector_get_size(nullptr, &m);
    theirs_after_error = pvec_last_error();
    pvec_vector_get_size(witness.get(), &m);
    theirs_after_success = pvec_last_error();
  });
  t.join();
  CHECK(!theirs_after_error.empty());
  CHECK(theirs_after_success.empty());
  CHECK(std::string(pvec_last_error()) == mine);
}

TEST_CASE("status strings", "[bad_input]") {
  std::set<std::string> seen;
  for (int s = PVEC_SUCCESS; s <= PVEC_ERROR_INTERNAL; ++s) {
    INFO("status " << s);
    const char* str = pvec_status_string(static_cast<pvec_status>(s));
    REQUIRE(str != nullptr);
    CHECK(std::string(str).size() > 0);
    CHECK(seen.insert(str).second);  // distinct
  }
  for (int s : {-1, 14, 1000, std::numeric_limits<int>::max()}) {
    INFO("bogus status " << s);
    REQUIRE(pvec_status_string(static_cast<pvec_status>(s)) != nullptr);
  }
}

TEST_CASE("memory accounting follows a vector's life", "[bad_input]") {
  pvec_memory_stats a;
  a.struct_size = sizeof a;
  PVEC_REQUIRE_OK(pvec_memory_get_stats(&a));
  CHECK(a.host_bytes >= 0);
  CHECK(a.pinned_bytes >= 0);
  CHECK(a.device_bytes >= 0);
  const int64_t live0 = a.host_bytes + a.pinned_bytes + a.device_bytes;
  pvec_memory_stats b;
  b.struct_size = sizeof b;
  {
    capi::Vector v = capi::make_vector(capi::mixed_props(), capi::make_desc(1000));
    PVEC_REQUIRE_OK(pvec_memory_get_stats(&b));
    // 1024 particles x (8 + 12 + 16 + 8 + 24) bytes per mirror, two mirrors.
    CHECK(b.host_bytes + b.pinned_bytes + b.device_bytes - live0 >= 2 * 1024 * 68);
    CHECK(b.host_allocs + b.pinned_allocs + b.device_allocs >
          a.host_allocs + a.pinned_allocs + a.device_allocs);
  }
  pvec_memory_stats c;
  c.struct_size = sizeof c;
  PVEC_REQUIRE_OK(pvec_memory_get_stats(&c));
  // Destroying the vector freed both mirrors (pvec may keep staging memory of its own).
  CHECK(c.host_bytes + c.pinned_bytes + c.device_bytes <=
        b.host_bytes + b.pinned_bytes + b.device_bytes - 2 * 1024 * 68);
}
