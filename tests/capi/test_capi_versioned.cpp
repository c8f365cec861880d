// Versioned structs keep their promise: a caller compiled against an older, shorter struct
// (a smaller struct_size) keeps working, and pvec reads or writes only the prefix it was
// given. Every versioned struct of pvec.h is called with every layout size it has had and
// with a newer caller's larger size; the shared helpers (src/capi/versioned.hpp) are also
// tested white-box on a struct with three layouts, the case the first appended field makes.
#include "capi_util.hpp"
#include "capi/versioned.hpp"

#include <cstddef>
#include <cstring>

namespace {

constexpr unsigned char kPad = 0x5a;

// A struct of the caller's, with room after it that pvec must not touch.
template <class S>
struct Padded {
  S s;
  unsigned char tail[32];
  Padded() { std::memset(static_cast<void*>(this), kPad, sizeof *this); }
  bool bytes_untouched_from(size_t from) const {
    const unsigned char* p = reinterpret_cast<const unsigned char*>(this);
    for (size_t k = from; k < sizeof *this; ++k)
      if (p[k] != kPad) return false;
    return true;
  }
};

struct V3 {
  size_t struct_size;
  int a;      // first layout
  double b;   // second
  int64_t c;  // third
};
constexpr size_t kV1 = offsetof(V3, a) + sizeof(int);
constexpr size_t kV2 = offsetof(V3, b) + sizeof(double);

}  // namespace

TEST_CASE("layout_get writes only the caller's prefix", "[versioned]") {
  capi::Vector v = capi::make_vector(capi::mixed_props(), capi::make_desc(10));
  for (size_t sz : {size_t{PVEC_LAYOUT_SIZE_V1}, sizeof(pvec_layout), sizeof(pvec_layout) + 16}) {
    INFO("struct_size " << sz);
    Padded<pvec_layout> p;
    p.s.struct_size = sz;
    PVEC_REQUIRE_OK(pvec_vector_get_layout(v.get(), PVEC_POS, &p.s));
    CHECK(p.s.struct_size == sz);  // kept as the caller set it
    CHECK(p.s.capacity >= 64);
    CHECK(p.bytes_untouched_from(std::min(sz, sizeof(pvec_layout))));
  }
}

TEST_CASE("memory_stats_get writes only the caller's prefix", "[versioned]") {
  for (size_t sz : {size_t{PVEC_MEMORY_STATS_SIZE_V1}, sizeof(pvec_memory_stats),
                    sizeof(pvec_memory_stats) + 16}) {
    INFO("struct_size " << sz);
    Padded<pvec_memory_stats> p;
    p.s.struct_size = sz;
    PVEC_REQUIRE_OK(pvec_memory_get_stats(&p.s));
    CHECK(p.s.struct_size == sz);
    CHECK(p.s.host_allocs >= 0);
    CHECK(p.bytes_untouched_from(std::min(sz, sizeof(pvec_memory_stats))));
  }
  pvec_memory_stats small{};
  small.struct_size = PVEC_MEMORY_STATS_SIZE_V1 - 1;
  CHECK(pvec_memory_get_stats(&small) == PVEC_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(pvec_last_error()).find("PVEC_MEMORY_STATS") == std::string::npos);
  CHECK(std::string(pvec_last_error()).find("sizeof(pvec_memory_stats)") != std::string::npos);
}

TEST_CASE("last_op_stats writes only the caller's prefix, every layout", "[versioned]") {
  capi::Vector v = capi::make_vector(capi::mixed_props(), capi::make_desc(10));
  for (size_t sz : {size_t{PVEC_OP_STATS_SIZE_V1}, sizeof(pvec_op_stats) + 16}) {
    INFO("struct_size " << sz);
    Padded<pvec_op_stats> p;
    p.s.struct_size = sz;
    PVEC_REQUIRE_OK(pvec_vector_get_op_stats(v.get(), &p.s));
    CHECK(p.s.struct_size == sz);
    CHECK(p.s.particles_sent == 0);
    CHECK(p.bytes_untouched_from(std::min(sz, sizeof(pvec_op_stats))));
  }
}

TEST_CASE("vector_create reads only the caller's prefix", "[versioned]") {
  capi::Schema s;
  capi::add_props(s.get(), capi::mixed_props());
  for (size_t sz : {size_t{PVEC_VECTOR_DESC_SIZE_V1}, sizeof(pvec_vector_desc),
                    sizeof(pvec_vector_desc) + 16}) {
    INFO("struct_size " << sz);
    Padded<pvec_vector_desc> p;
    p.s = pvec_vector_desc PVEC_VECTOR_DESC_INIT;
    p.s.struct_size = sz;
    p.s.dim = 2;
    p.s.n_particles = 10;
    p.s.placement = PVEC_PLACE_LOCAL;
    p.s.backend = PVEC_BACKEND_HOST;
    pvec_vector_t v = nullptr;
    PVEC_REQUIRE_OK(pvec_vector_create(&p.s, s.get(), &v));
    int dim = 0;
    int64_t n = 0;
    PVEC_REQUIRE_OK(pvec_vector_get_dim(v, &dim));
    PVEC_REQUIRE_OK(pvec_vector_get_size(v, &n));
    CHECK(dim == 2);
    CHECK(n == 10);
    PVEC_REQUIRE_OK(pvec_vector_destroy(v));
  }
}

TEST_CASE("versioned helpers: a struct with three layouts", "[versioned]") {
  using pvec::impl::capi::read_versioned;
  using pvec::impl::capi::write_versioned;
  const V3 defaults{sizeof(V3), 1, 2.0, 3};
  SECTION("an older caller's input gets the defaults for the fields it does not know") {
    for (size_t sz : {kV1, kV2, sizeof(V3)}) {
      Padded<V3> p;
      p.s.struct_size = sz;
      p.s.a = 10;
      if (sz >= kV2) p.s.b = 20.0;
      if (sz >= sizeof(V3)) p.s.c = 30;
      const V3 got = read_versioned(&p.s, defaults, kV1, "in", "V3");
      CHECK(got.struct_size == sizeof(V3));
      CHECK(got.a == 10);
      CHECK(got.b == (sz >= kV2 ? 20.0 : 2.0));
      CHECK(got.c == (sz >= sizeof(V3) ? 30 : 3));
    }
  }
  SECTION("an older caller's output gets only its prefix") {
    for (size_t sz : {kV1, kV2, sizeof(V3)}) {
      Padded<V3> p;
      p.s.struct_size = sz;
      write_versioned(&p.s, V3{0, 10, 20.0, 30}, kV1, "out", "V3");
      CHECK(p.s.struct_size == sz);
      CHECK(p.s.a == 10);
      CHECK(p.bytes_untouched_from(sz));
    }
  }
  SECTION("below the first layout, or NULL, is refused") {
    V3 small{kV1 - 1, 0, 0, 0};
    CHECK_THROWS(read_versioned(&small, defaults, kV1, "in", "V3"));
    CHECK_THROWS(write_versioned(&small, defaults, kV1, "out", "V3"));
    CHECK_THROWS(read_versioned(static_cast<const V3*>(nullptr), defaults, kV1, "in", "V3"));
  }
}
