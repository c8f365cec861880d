// The layout law, for every dtype and shape and for the positions: element (i, c) of a
// property with capacity C is at base[c*C + i] on both mirrors, C is a multiple of 64 and at
// least 64, and every component row is 256-byte aligned. The values are written through the
// host pointer with the formula and must come back through the formula after a round trip
// that moves only the live rows, which a different layout would not survive.
#include "capi_util.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

namespace {

int64_t expected_capacity(int64_t n) {
  const int64_t c = (n + 63) / 64 * 64;
  return c < 64 ? 64 : c;
}

bool aligned256(const void* p) { return reinterpret_cast<uintptr_t>(p) % 256 == 0; }

// Value written beyond the live particles; no pattern produces it.
const double kSentinel = static_cast<double>((int64_t{1} << 23) + 9);

// Checks the fields of one layout against the declaration and the vector's queries.
void check_layout_fields(pvec_vector_t v, int field, const pvec_layout& l, const char* name,
                         pvec_dtype dtype, int rank, int64_t e0, int64_t e1, int64_t n) {
  INFO("field " << field << " '" << name << "'");
  CHECK(l.struct_size == sizeof(pvec_layout));
  CHECK(l.prop == field);
  REQUIRE(l.name != nullptr);
  CHECK(std::string(l.name) == name);
  CHECK(l.dtype == dtype);
  CHECK(l.elem_size == pvec_dtype_size(dtype));
  CHECK(l.rank == rank);
  CHECK(l.extents[0] == (rank >= 1 ? e0 : 1));
  CHECK(l.extents[1] == (rank == 2 ? e1 : 1));
  CHECK(l.ncomp == l.extents[0] * l.extents[1]);
  CHECK(l.capacity == capi::capacity_of(v));
  CHECK(l.capacity == expected_capacity(n));
  CHECK(l.capacity % 64 == 0);
  CHECK(l.capacity >= 64);
  CHECK(l.stride_elems == l.capacity);
  CHECK(l.stride_bytes == l.capacity * static_cast<int64_t>(l.elem_size));
  CHECK(l.n_local == n);
  CHECK(l.n_ghost == 0);
  CHECK(l.generation == capi::generation_of(v));
  CHECK(l.host_ptr == pvec_host_ptr(v, field));
  CHECK(l.device_ptr == pvec_device_ptr(v, field));
  REQUIRE(l.host_ptr != nullptr);
  REQUIRE(l.device_ptr != nullptr);
  CHECK(l.host_ptr != l.device_ptr);
  for (int64_t c = 0; c < l.ncomp; ++c) {
    INFO("component " << c);
    CHECK(aligned256(static_cast<char*>(l.host_ptr) + c * l.stride_bytes));
    CHECK(aligned256(static_cast<char*>(l.device_ptr) + c * l.stride_bytes));
  }
}

// Writes the pattern into the live rows and a sentinel into [n, C) of every component on the
// host, copies to the device, clears the host, copies back, and checks the formula: the
// pattern in the live rows, and zero (not the sentinel) beyond them.
void check_round_trip_by_formula(pvec_vector_t v, int salt) {
  const int64_t n = capi::size_of(v);
  const bool host_backend = capi::backend_of(v) == pvec_backend(PVEC_BACKEND_HOST);
  for (int f : capi::all_fields(v)) {
    const pvec_layout l = capi::layout_of(v, f);
    for (int64_t c = 0; c < l.ncomp; ++c) {
      for (int64_t i = 0; i < l.capacity; ++i) {
        const double val = i < n ? capi::pattern(f, c, i, salt) : kSentinel;
        capi::set_elem(l.host_ptr, l.dtype, c * l.capacity + i, val);
      }
    }
  }
  PVEC_REQUIRE_OK(pvec_host_to_device(v, nullptr, 0));
  for (int f : capi::all_fields(v)) {
    const pvec_layout l = capi::layout_of(v, f);
    INFO("field " << f << " '" << l.name << "'");
    if (host_backend) {
      // The device mirror is host memory here: read it by the formula directly.
      PVEC_CHECK_MATCH(capi::count_mismatch(l, true, salt, 0, n));
      int64_t copied_beyond = 0;
      for (int64_t c = 0; c < l.ncomp; ++c)
        for (int64_t i = n; i < l.capacity; ++i)
          copied_beyond += capi::get_elem(l.device_ptr, l.dtype, c * l.capacity + i) == kSentinel;
      CHECK(copied_beyond == 0);
    }
    std::memset(l.host_ptr, 0, static_cast<size_t>(l.ncomp * l.stride_bytes));
  }
  PVEC_REQUIRE_OK(pvec_device_to_host(v, nullptr, 0));
  for (int f : capi::all_fields(v)) {
    const pvec_layout l = capi::layout_of(v, f);
    INFO("field " << f << " '" << l.name << "'");
    PVEC_CHECK_MATCH(capi::count_mismatch(l, false, salt, 0, n));
    int64_t nonzero_beyond = 0;
    for (int64_t c = 0; c < l.ncomp; ++c)
      for (int64_t i = n; i < l.capacity; ++i)
        nonzero_beyond += capi::get_elem(l.host_ptr, l.dtype, c * l.capacity + i) != 0.0;
    CHECK(nonzero_beyond == 0);
  }
}

}  // namespace

TEST_CASE("layout law for every dtype and shape", "[layout]") {
  const std::vector<capi::PropSpec> props = capi::all_shapes_all_dtypes();
  for (pvec_backend b : capi::test_backends()) {
    for (int64_t n :
         {int64_t{100}, int64_t{0}, int64_t{1}, int64_t{64}, int64_t{65}, int64_t{1000}}) {
      INFO("backend " << b << ", n " << n);
      capi::Vector v = capi::make_vector(props, capi::make_desc(n, 3, PVEC_FLOAT64, b));
      REQUIRE(capi::size_of(v.get()) == n);
      REQUIRE(capi::capacity_of(v.get()) == expected_capacity(n));
      for (size_t k = 0; k < props.size(); ++k) {
        const int p = static_cast<int>(k);
        check_layout_fields(v.get(), p, capi::layout_of(v.get(), p), props[k].name.c_str(),
                            props[k].dtype, props[k].rank, props[k].n, props[k].m, n);
      }
      check_layout_fields(v.get(), PVEC_POS, capi::layout_of(v.get(), PVEC_POS), "pos",
                          PVEC_FLOAT64, 1, 3, 1, n);
      // A fresh vector is zero on both mirrors.
      PVEC_CHECK_MATCH(capi::host_mismatch_all(v.get(), -1, 0, n));
      PVEC_CHECK_MATCH(capi::device_mismatch_all_via_copy(v.get(), -1, 0, n));
      check_round_trip_by_formula(v.get(), 3);
      // Layout queries and transfers do not reallocate.
      CHECK(capi::layout_of(v.get(), 0).generation == capi::generation_of(v.get()));
    }
  }
}

TEST_CASE("positions are vector[dim] of the position dtype, named pos", "[layout]") {
  const std::vector<capi::PropSpec> props = {{"w", PVEC_INT32, 0, 1, 1}};
  for (pvec_backend b : capi::test_backends()) {
    for (pvec_dtype pdt : {PVEC_FLOAT32, PVEC_FLOAT64}) {
      for (int dim = 1; dim <= PVEC_MAX_DIM; ++dim) {
        INFO("backend " << b << ", pos dtype " << pvec_dtype_name(pdt) << ", dim " << dim);
        capi::Vector v = capi::make_vector(props, capi::make_desc(77, dim, pdt, b));
        const pvec_layout l = capi::layout_of(v.get(), PVEC_POS);
        check_layout_fields(v.get(), PVEC_POS, l, "pos", pdt, 1, dim, 1, 77);
        int idx = 0;
        PVEC_REQUIRE_OK(pvec_vector_get_prop_index(v.get(), "pos", &idx));
        CHECK(idx == PVEC_POS);
        check_round_trip_by_formula(v.get(), 11);
      }
    }
  }
}

TEST_CASE("the seed's numbers: 100 particles, capacity 128, rows 0x200 bytes apart", "[layout]") {
  // OpenFPM's example: 2D float positions; props float, float[2], float[2][2].
  const std::vector<capi::PropSpec> props = {{"scalar", PVEC_FLOAT32, 0, 1, 1},
                                             {"vector", PVEC_FLOAT32, 1, 2, 1},
                                             {"tensor", PVEC_FLOAT32, 2, 2, 2}};
  for (pvec_backend b : capi::test_backends()) {
    INFO("backend " << b);
    capi::Vector v = capi::make_vector(props, capi::make_desc(100, 2, PVEC_FLOAT32, b));
    CHECK(capi::capacity_of(v.get()) == 128);
    for (bool device : {false, true}) {
      INFO((device ? "device" : "host") << " mirror");
      char* s =
          static_cast<char*>(device ? pvec_device_ptr(v.get(), 0) : pvec_host_ptr(v.get(), 0));
      char* p1 =
          static_cast<char*>(device ? pvec_device_ptr(v.get(), 1) : pvec_host_ptr(v.get(), 1));
      char* p2 =
          static_cast<char*>(device ? pvec_device_ptr(v.get(), 2) : pvec_host_ptr(v.get(), 2));
      REQUIRE(s != nullptr);
      REQUIRE(p1 != nullptr);
      REQUIRE(p2 != nullptr);
      // Separate buffers per property.
      CHECK(s != p1);
      CHECK(p1 != p2);
      const pvec_layout l1 = capi::layout_of(v.get(), 1);
      const pvec_layout l2 = capi::layout_of(v.get(), 2);
      CHECK(l1.stride_bytes == 0x200);
      CHECK(l2.stride_bytes == 0x200);
      // Component 1 of particle 0 is 0x200 bytes after component 0; particle 1 is 4 after.
      CHECK(static_cast<char*>(device ? l1.device_ptr : l1.host_ptr) == p1);
      CHECK(static_cast<char*>(device ? l2.device_ptr : l2.host_ptr) == p2);
      const pvec_layout lp = capi::layout_of(v.get(), PVEC_POS);
      CHECK(lp.stride_bytes == 0x200);
      CHECK(lp.elem_size == 4);
    }
    // Particle 50, as the seed's kernel prints it: scalar[p], vector[p + C], tensor[p +
    // (a*2+b)*C], written by the formula and read back after a round trip.
    float* s = static_cast<float*>(pvec_host_ptr(v.get(), 0));
    float* vec = static_cast<float*>(pvec_host_ptr(v.get(), 1));
    float* ten = static_cast<float*>(pvec_host_ptr(v.get(), 2));
    const int C = 128, p = 50;
    s[p] = 1.5f;
    vec[p] = 2.5f;
    vec[p + C] = 3.5f;
    for (int a = 0; a < 2; ++a)
      for (int bb = 0; bb < 2; ++bb)
        ten[p + (a * 2 + bb) * C] = 10.0f + static_cast<float>(a * 2 + bb);
    const int props_to_move[3] = {0, 1, 2};
    PVEC_REQUIRE_OK(pvec_host_to_device(v.get(), props_to_move, 3));
    s[p] = vec[p] = vec[p + C] = 0;
    for (int k = 0; k < 4; ++k) ten[p + k * C] = 0;
    PVEC_REQUIRE_OK(pvec_device_to_host(v.get(), props_to_move, 3));
    CHECK(s[p] == 1.5f);
    CHECK(vec[p] == 2.5f);
    CHECK(vec[p + C] == 3.5f);
    for (int k = 0; k < 4; ++k) CHECK(ten[p + k * C] == 10.0f + static_cast<float>(k));
    if (capi::backend_of(v.get()) == pvec_backend(PVEC_BACKEND_HOST)) {
      const float* dt = static_cast<const float*>(pvec_device_ptr(v.get(), 2));
      CHECK(dt[p + 3 * C] == 13.0f);
    }
  }
}

TEST_CASE("vector queries report the descriptor", "[layout]") {
  int devices = 0;
  PVEC_REQUIRE_OK(pvec_cuda_device_count(&devices));
  CHECK(devices >= 0);
  for (pvec_backend b : capi::test_backends()) {
    INFO("backend " << b);
    pvec_vector_desc d = capi::make_desc(9, 3, PVEC_FLOAT32, b);
    d.domain_lo[0] = -1.0;
    d.domain_hi[0] = 2.5;
    d.domain_lo[1] = 0.25;
    d.domain_hi[1] = 0.5;
    d.domain_lo[2] = -10;
    d.domain_hi[2] = -5;
    d.boundary[0] = PVEC_PERIODIC;
    d.boundary[2] = PVEC_PERIODIC;
    d.ghost_width = 0.125;
    capi::Vector v = capi::make_vector(capi::mixed_props(), d);
    int dim = 0;
    PVEC_REQUIRE_OK(pvec_vector_get_dim(v.get(), &dim));
    CHECK(dim == 3);
    pvec_dtype pdt = PVEC_INT32;
    PVEC_REQUIRE_OK(pvec_vector_get_pos_dtype(v.get(), &pdt));
    CHECK(pdt == PVEC_FLOAT32);
    double lo[PVEC_MAX_DIM] = {9, 9, 9, 9}, hi[PVEC_MAX_DIM] = {9, 9, 9, 9};
    PVEC_REQUIRE_OK(pvec_vector_get_domain(v.get(), lo, hi));
    for (int k = 0; k < 3; ++k) {
      CHECK(lo[k] == d.domain_lo[k]);
      CHECK(hi[k] == d.domain_hi[k]);
    }
    CHECK(lo[3] == 9);  // only dim values are written
    CHECK(hi[3] == 9);
    PVEC_REQUIRE_OK(pvec_vector_get_domain(v.get(), nullptr, hi));
    PVEC_REQUIRE_OK(pvec_vector_get_domain(v.get(), lo, nullptr));
    int bc[PVEC_MAX_DIM] = {5, 5, 5, 5};
    PVEC_REQUIRE_OK(pvec_vector_get_boundaries(v.get(), bc));
    CHECK(bc[0] == PVEC_PERIODIC);
    CHECK(bc[1] == PVEC_NON_PERIODIC);
    CHECK(bc[2] == PVEC_PERIODIC);
    CHECK(bc[3] == 5);
    double gw = -1;
    PVEC_REQUIRE_OK(pvec_vector_get_ghost_width(v.get(), &gw));
    CHECK(gw == 0.125);
    int64_t ng = -1;
    PVEC_REQUIRE_OK(pvec_vector_get_ghost_size(v.get(), &ng));
    CHECK(ng == 0);
    int np = -1;
    PVEC_REQUIRE_OK(pvec_vector_get_prop_count(v.get(), &np));
    CHECK(np == 4);
    int idx = -9;
    PVEC_REQUIRE_OK(pvec_vector_get_prop_index(v.get(), "stress", &idx));
    CHECK(idx == 2);
    PVEC_REQUIRE_OK(pvec_vector_get_prop_index(v.get(), "mass", &idx));
    CHECK(idx == 0);
    const pvec_backend got = capi::backend_of(v.get());
    if (b == PVEC_BACKEND_HOST) CHECK(got == PVEC_BACKEND_HOST);
    if (b == PVEC_BACKEND_AUTO) CHECK(got == (devices > 0 ? PVEC_BACKEND_CUDA : PVEC_BACKEND_HOST));
    int ordinal = -7;
    PVEC_REQUIRE_OK(pvec_vector_get_device(v.get(), &ordinal));
    if (got == PVEC_BACKEND_HOST) {
      CHECK(ordinal == -1);
    } else {
      CHECK(ordinal >= 0);
      CHECK(ordinal < devices);
    }
    pvec_stream_t st = reinterpret_cast<pvec_stream_t>(uintptr_t{1});
    PVEC_REQUIRE_OK(pvec_vector_get_stream(v.get(), &st));
    CHECK(st == nullptr);
    CHECK(std::string(pvec_last_error()).empty());
  }
}

TEST_CASE("pvec_vector_desc_init gives the defaults of PVEC_VECTOR_DESC_INIT", "[layout]") {
  const pvec_vector_desc m = PVEC_VECTOR_DESC_INIT;
  pvec_vector_desc f;
  std::memset(&f, 0x5a, sizeof f);
  PVEC_REQUIRE_OK(pvec_vector_desc_init(&f));
  CHECK(f.struct_size == sizeof(pvec_vector_desc));
  CHECK(f.struct_size == m.struct_size);
  CHECK(f.dim == m.dim);
  CHECK(f.dim == 3);
  CHECK(f.pos_dtype == m.pos_dtype);
  for (int k = 0; k < PVEC_MAX_DIM; ++k) {
    CHECK(f.domain_lo[k] == m.domain_lo[k]);
    CHECK(f.domain_hi[k] == m.domain_hi[k]);
    CHECK(f.boundary[k] == m.boundary[k]);
  }
  CHECK(f.ghost_width == m.ghost_width);
  CHECK(f.n_particles == m.n_particles);
  CHECK(f.placement == m.placement);
  CHECK(f.backend == m.backend);
  CHECK(f.host_memory == m.host_memory);
  CHECK(f.has_comm == m.has_comm);
  CHECK(f.comm_f == m.comm_f);
}

TEST_CASE("version", "[layout]") {
  CHECK(pvec_version_number() == PVEC_VERSION_NUMBER);
  const std::string want = std::to_string(PVEC_VERSION_MAJOR) + "." +
                           std::to_string(PVEC_VERSION_MINOR) + "." +
                           std::to_string(PVEC_VERSION_PATCH);
  REQUIRE(pvec_version_string() != nullptr);
  CHECK(std::string(pvec_version_string()) == want);
  int flag = -1;
  PVEC_REQUIRE_OK(pvec_initialized(&flag));
  CHECK(flag == 1);
}

TEST_CASE("layouts_get returns the layouts of a list, or of everything, in one call", "[layout]") {
  capi::Vector v = capi::make_vector(capi::mixed_props(), capi::make_desc(100));
  int np = 0;
  PVEC_REQUIRE_OK(pvec_vector_get_prop_count(v.get(), &np));
  SECTION("everything: the positions, then every property") {
    std::vector<pvec_layout> all(static_cast<size_t>(np) + 1);
    all[0].struct_size = sizeof(pvec_layout);
    PVEC_REQUIRE_OK(pvec_vector_get_layouts(v.get(), nullptr, 0, all.data(), np + 1));
    for (int k = 0; k <= np; ++k) {
      const pvec_layout one = capi::layout_of(v.get(), k == 0 ? PVEC_POS : k - 1);
      CHECK(all[k].struct_size == sizeof(pvec_layout));
      CHECK(all[k].prop == one.prop);
      CHECK(all[k].host_ptr == one.host_ptr);
      CHECK(all[k].device_ptr == one.device_ptr);
      CHECK(all[k].capacity == one.capacity);
      CHECK(all[k].generation == one.generation);
      CHECK(std::memcmp(&all[k], &one, sizeof one) == 0);
    }
  }
  SECTION("a list, in its order") {
    const int list[3] = {2, PVEC_POS, 0};
    pvec_layout out[3];
    out[0].struct_size = sizeof(pvec_layout);
    PVEC_REQUIRE_OK(pvec_vector_get_layouts(v.get(), list, 3, out, 3));
    for (int k = 0; k < 3; ++k) CHECK(out[k].prop == list[k]);
  }
  SECTION("a newer caller's larger elements: the stride is out[0].struct_size") {
    struct Bigger {
      pvec_layout l;
      unsigned char extra[24];
    };
    Bigger b[2];
    std::memset(static_cast<void*>(b), 0x5a, sizeof b);
    b[0].l.struct_size = sizeof(Bigger);
    const int list[2] = {0, 1};
    PVEC_REQUIRE_OK(pvec_vector_get_layouts(v.get(), list, 2, &b[0].l, 2));
    CHECK(b[1].l.struct_size == sizeof(Bigger));
    CHECK(b[1].l.prop == 1);
    CHECK(b[1].l.host_ptr == capi::layout_of(v.get(), 1).host_ptr);
    for (const Bigger& e : b)
      for (unsigned char c : e.extra) CHECK(c == 0x5a);
  }
  SECTION("PVEC_NO_PROPS: nothing asked, nothing written") {
    pvec_layout l = PVEC_LAYOUT_INIT;
    l.prop = 12345;
    PVEC_REQUIRE_OK(pvec_vector_get_layouts(v.get(), PVEC_NO_PROPS, 0, &l, 1));
    CHECK(l.prop == 12345);
    PVEC_REQUIRE_OK(pvec_host_to_device(v.get(), PVEC_NO_PROPS, 0));
    CHECK(pvec_host_to_device(v.get(), PVEC_NO_PROPS, 1) == PVEC_ERROR_INVALID_ARGUMENT);
  }
  SECTION("an error writes nothing") {
    const int list[2] = {0, 99};
    pvec_layout out[2];
    std::memset(static_cast<void*>(out), 0x33, sizeof out);
    out[0].struct_size = sizeof(pvec_layout);
    CHECK(pvec_vector_get_layouts(v.get(), list, 2, out, 2) == PVEC_ERROR_OUT_OF_RANGE);
    CHECK(std::string(pvec_last_error()).find("pvec_vector_get_layouts") == 0);
    CHECK(out[0].struct_size == sizeof(pvec_layout));
    CHECK(out[0].prop == 0x33333333);
  }
}

TEST_CASE("ghost_get with PVEC_NO_PROPS sends the positions only", "[layout]") {
  pvec_vector_desc d = capi::make_desc(200, 2);
  d.boundary[0] = d.boundary[1] = PVEC_PERIODIC;
  d.ghost_width = 0.1;
  capi::Vector v = capi::make_vector(capi::mixed_props(), d);
  int64_t cap = 0;
  PVEC_REQUIRE_OK(pvec_vector_get_capacity(v.get(), &cap));
  double* x = static_cast<double*>(pvec_host_ptr(v.get(), PVEC_POS));
  for (int64_t i = 0; i < 200; ++i) {
    x[i] = (i * 37 % 200) / 200.0;
    x[cap + i] = (i * 91 % 200) / 200.0;
  }
  PVEC_REQUIRE_OK(pvec_ghost_get(v.get(), nullptr, 0, 0));
  int64_t g_all = 0;
  PVEC_REQUIRE_OK(pvec_vector_get_ghost_size(v.get(), &g_all));
  REQUIRE(g_all > 0);
  pvec_op_stats all = {};
  all.struct_size = sizeof all;
  PVEC_REQUIRE_OK(pvec_vector_get_op_stats(v.get(), &all));
  PVEC_REQUIRE_OK(pvec_ghost_get(v.get(), PVEC_NO_PROPS, 0, 0));
  int64_t g = 0;
  PVEC_REQUIRE_OK(pvec_vector_get_ghost_size(v.get(), &g));
  CHECK(g == g_all);
  CHECK(pvec_ghost_get(v.get(), PVEC_NO_PROPS, 2, 0) == PVEC_ERROR_INVALID_ARGUMENT);
}
