// pvec.hpp ownership and errors: handles are released exactly once, moves transfer them,
// and failures surface as pvec::error with the C status and message.
#include "catch_compat.hpp"
#include "hpp_test_util.hpp"

#include <pvec.hpp>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <type_traits>
#include <utility>

#include <unistd.h>

using hpp_test::require_error;

namespace {

static_assert(!std::is_copy_constructible<pvec::vector>::value, "vector is move-only");
static_assert(!std::is_copy_assignable<pvec::vector>::value, "vector is move-only");
static_assert(std::is_nothrow_move_constructible<pvec::vector>::value, "");
static_assert(std::is_nothrow_move_assignable<pvec::vector>::value, "");
static_assert(!std::is_copy_constructible<pvec::schema>::value, "schema is move-only");
static_assert(std::is_nothrow_move_constructible<pvec::schema>::value, "");
static_assert(std::is_nothrow_move_assignable<pvec::schema>::value, "");
static_assert(!std::is_copy_constructible<pvec::runtime>::value, "");
static_assert(!std::is_move_constructible<pvec::runtime>::value, "");
static_assert(std::is_base_of<std::runtime_error, pvec::error>::value, "");

// Live bytes pvec holds in all three kinds of memory.
std::int64_t live_bytes() {
  const pvec_memory_stats s = pvec::memory_stats();
  return s.host_bytes + s.pinned_bytes + s.device_bytes;
}

pvec::schema make_schema() {
  pvec::schema s;
  s.add_scalar<double>("mass");
  s.add_vector<float>("vel", 3);
  s.add_tensor<std::int64_t>("stress", 2, 2);
  return s;
}

pvec::vector make_vector(std::int64_t n) {
  pvec::schema s = make_schema();
  return pvec::vector(pvec::vector_desc().domain({0, 0}, {1, 1}).particles(n, PVEC_PLACE_LOCAL), s);
}

// What every use of a vector does: grow, shrink, remove, transfer.
void exercise(std::int64_t n) {
  pvec::vector v = make_vector(n);
  v.append(300);
  v.remove({0, 5, 7});
  v.host_to_device();
  v.device_to_host({0, 2});
  v.reserve(2000);
  v.shrink_to_fit();
}

}  // namespace

TEST_CASE("runtime finalises only a pvec it started", "[cpp][raii]") {
  REQUIRE(pvec::initialized());  // started by the test main
  {
    pvec::runtime rt;
    CHECK_FALSE(rt.owns());
  }
  CHECK(pvec::initialized());
  pvec::vector v = make_vector(10);  // pvec still usable
  CHECK(v.size() == 10);
}

TEST_CASE("schema and vector give back all their memory", "[cpp][raii]") {
  exercise(100);  // warm-up: any memory pvec caches for reuse is allocated now
  const std::int64_t baseline = live_bytes();
  const std::int64_t allocs_before = pvec::memory_stats().host_allocs +
                                     pvec::memory_stats().pinned_allocs +
                                     pvec::memory_stats().device_allocs;
  {
    pvec::vector v = make_vector(1000);
    // 1000 particles x (8 + 3*4 + 4*8 bytes + 2*8 position bytes) = 68 kB per mirror.
    CHECK(live_bytes() >= baseline + 68000);
  }
  CHECK(live_bytes() == baseline);
  for (int round = 0; round < 3; ++round) exercise(100 + 1000 * round);
  CHECK(live_bytes() == baseline);
  const pvec_memory_stats after = pvec::memory_stats();
  CHECK(after.host_allocs + after.pinned_allocs + after.device_allocs > allocs_before);
}

TEST_CASE("destruction invalidates the C handles exactly once", "[cpp][raii]") {
  pvec_vector_t raw_vec = nullptr;
  pvec_schema_t raw_schema = nullptr;
  {
    pvec::schema s = make_schema();
    raw_schema = s.get();
    pvec::vector v(pvec::vector_desc().particles(5), s);
    raw_vec = v.get();
    std::int64_t n = -1;
    REQUIRE(pvec_vector_get_size(raw_vec, &n) == PVEC_SUCCESS);
    CHECK(n == 5);
    int count = 0;
    REQUIRE(pvec_schema_get_count(raw_schema, &count) == PVEC_SUCCESS);
    CHECK(count == 3);
  }
  std::int64_t n = -1;
  CHECK(pvec_vector_get_size(raw_vec, &n) == PVEC_ERROR_INVALID_HANDLE);
  int count = 0;
  CHECK(pvec_schema_get_count(raw_schema, &count) == PVEC_ERROR_INVALID_HANDLE);
}

TEST_CASE("release and adopt hand ownership across the C boundary", "[cpp][raii]") {
  const std::int64_t baseline = live_bytes();
  pvec_vector_t raw = nullptr;
  {
    pvec::vector v = make_vector(64);
    raw = v.release();
    CHECK_FALSE(v);
  }
  std::int64_t n = 0;
  REQUIRE(pvec_vector_get_size(raw, &n) == PVEC_SUCCESS);  // release() did not destroy it
  CHECK(n == 64);
  {
    pvec::vector back = pvec::vector::adopt(raw);
    CHECK(back.size() == 64);
  }
  CHECK(pvec_vector_get_size(raw, &n) == PVEC_ERROR_INVALID_HANDLE);
  CHECK(live_bytes() == baseline);

  pvec::schema s = make_schema();
  pvec_schema_t raw_schema = s.release();
  CHECK_FALSE(s);
  CHECK(s.get() == nullptr);
  int count = 0;
  REQUIRE(pvec_schema_get_count(raw_schema, &count) == PVEC_SUCCESS);
  CHECK(count == 3);
  CHECK(pvec_schema_destroy(raw_schema) == PVEC_SUCCESS);
}

TEST_CASE("moves transfer the vector and leave an empty object", "[cpp][move]") {
  const std::int64_t baseline = live_bytes();
  pvec::vector a = make_vector(100);
  const pvec_vector_t raw_a = a.get();
  pvec::view<double> mass = a.host_view<double>(0);
  mass(3) = 42.0;

  SECTION("move construction") {
    pvec::vector b(std::move(a));
    CHECK(b.get() == raw_a);
    CHECK_FALSE(a);
    CHECK(a.get() == nullptr);
    CHECK(b.size() == 100);
    // Same buffers: the view taken before the move is still the current one.
    CHECK(b.is_current(mass));
    CHECK(b.host_view<double>(0).data == mass.data);
    CHECK(b.host_view<double>(0)(3) == 42.0);
    // Using the moved-from object is a clean error, not a crash.
    const std::string msg = require_error([&] { (void)a.size(); }, PVEC_ERROR_INVALID_HANDLE);
    CHECK(msg.find(pvec_status_string(PVEC_ERROR_INVALID_HANDLE)) != std::string::npos);
  }
  SECTION("move assignment destroys the previous vector") {
    pvec::vector b = make_vector(500);
    const pvec_vector_t raw_b = b.get();
    b = std::move(a);
    CHECK(b.get() == raw_a);
    CHECK_FALSE(a);
    std::int64_t n = 0;
    CHECK(pvec_vector_get_size(raw_b, &n) == PVEC_ERROR_INVALID_HANDLE);
    CHECK(b.size() == 100);
  }
  SECTION("self move assignment keeps the vector") {
    pvec::vector& alias = a;
    a = std::move(alias);
    CHECK(a.get() == raw_a);
    CHECK(a.size() == 100);
  }
  SECTION("assigning into an empty vector") {
    pvec::vector b;
    CHECK_FALSE(b);
    b = std::move(a);
    CHECK(b.get() == raw_a);
  }
  SECTION("reset destroys now") {
    a.reset();
    CHECK_FALSE(a);
    std::int64_t n = 0;
    CHECK(pvec_vector_get_size(raw_a, &n) == PVEC_ERROR_INVALID_HANDLE);
    a.reset();  // twice is harmless
  }
  a.reset();
  CHECK(live_bytes() == baseline);
}

TEST_CASE("schema moves keep the declared properties", "[cpp][move]") {
  pvec::schema a = make_schema();
  const pvec_schema_t raw = a.get();
  pvec::schema b(std::move(a));
  CHECK(b.get() == raw);
  CHECK_FALSE(a);
  CHECK(b.count() == 3);
  pvec::schema c;
  c.add_scalar<int>("only");
  const pvec_schema_t raw_c = c.get();
  c = std::move(b);
  CHECK(c.get() == raw);
  CHECK(c.count() == 3);
  int count = 0;
  CHECK(pvec_schema_get_count(raw_c, &count) == PVEC_ERROR_INVALID_HANDLE);
  require_error([&] { (void)a.count(); }, PVEC_ERROR_INVALID_HANDLE);
  require_error([&] { a.add_scalar<float>("x"); }, PVEC_ERROR_INVALID_HANDLE);
}

TEST_CASE("schema properties read back; adopt owns a C handle", "[cpp]") {
  pvec_schema_t raw = nullptr;
  REQUIRE(pvec_schema_create(&raw) == PVEC_SUCCESS);
  REQUIRE(pvec_schema_add_tensor(raw, "stress", PVEC_FLOAT64, 2, 3, nullptr) == PVEC_SUCCESS);
  pvec::schema s = pvec::schema::adopt(raw);  // destroyed with s
  CHECK(s.get() == raw);
  s.add_vector<float>("v", 3);
  const pvec::schema::property_info t = s.property(0), v = s.property(1);
  CHECK(t.name == "stress");
  CHECK(t.dtype == PVEC_FLOAT64);
  CHECK(t.rank == 2);
  CHECK((t.extents[0] == 2 && t.extents[1] == 3));
  CHECK(v.name == "v");
  CHECK(v.dtype == PVEC_FLOAT32);
  CHECK((v.rank == 1 && v.extents[0] == 3 && v.extents[1] == 1));
  require_error([&] { (void)s.property(2); }, PVEC_ERROR_OUT_OF_RANGE);
}

TEST_CASE("imbalance and rebalance through pvec.hpp", "[cpp]") {
  pvec::vector v = make_vector(40);  // one rank: balanced whatever the weights
  auto mass = v.host_view<double>(0);
  for (std::int64_t i = 0; i < v.size(); ++i) mass(i) = static_cast<double>(i % 3);
  const auto b = v.imbalance(0);
  CHECK((b.first == 1.0 && b.second == 1.0));
  CHECK(v.imbalance().first == 1.0);
  mass(3) = -1.0;
  require_error([&] { (void)v.imbalance(0); }, PVEC_ERROR_INVALID_ARGUMENT);
  require_error([&] { (void)v.imbalance(1); }, PVEC_ERROR_INVALID_ARGUMENT);  // float vel[3]
  require_error([&] { (void)v.imbalance(2); }, PVEC_ERROR_DTYPE_MISMATCH);    // int64 stress
  mass(3) = 1.0;
  const auto r = v.rebalance(0, 1.0);  // one rank: nothing to even out
  CHECK((r.first == 1.0 && r.second == 1.0));
  require_error([&] { (void)v.rebalance(PVEC_NO_WEIGHT, 0.5); }, PVEC_ERROR_INVALID_ARGUMENT);
  // A vector that follows v: its own rebalance is refused until it unfollows.
  pvec::vector w = make_vector(10);
  w.follow(v);
  require_error([&] { (void)w.rebalance(); }, PVEC_ERROR_STATE);
  require_error([&] { v.follow(w); }, PVEC_ERROR_STATE);  // v is followed
  w.unfollow();
  CHECK(w.rebalance().first == 1.0);
}

TEST_CASE("checkpoint, describe and restart through pvec.hpp", "[cpp][io]") {
  int hdf5 = 0;
  REQUIRE(pvec_has_hdf5(&hdf5) == PVEC_SUCCESS);
  pvec::vector v = make_vector(50);
  const std::string path = "cpp_hpp_ckpt_" + std::to_string(getpid()) + ".h5";
  if (!hdf5) {
    require_error([&] { v.checkpoint(path); }, PVEC_ERROR_NOT_SUPPORTED);
    return;
  }
  pvec::metadata meta;
  meta.strings = {{"case", "cpp"}};
  meta.numbers = {{"dt", 0.01}};
  meta.arrays = {{"g", {0.0, -9.81}}, {"one", {2.5}}};
  v.checkpoint(path, 12, 0.75, meta);
  const pvec::checkpoint_info info = pvec::checkpoint_describe(path);
  CHECK(info.step == 12);
  CHECK(info.time == 0.75);
  CHECK(info.desc.dim == 2);
  REQUIRE(info.properties.count() == 3);
  CHECK(info.properties.property(1).name == "vel");
  CHECK(info.properties.property(2).rank == 2);
  REQUIRE(info.metadata.strings.size() == 1);
  CHECK((info.metadata.strings[0].first == "case" && info.metadata.strings[0].second == "cpp"));
  REQUIRE(info.metadata.numbers.size() == 1);
  CHECK((info.metadata.numbers[0].first == "dt" && info.metadata.numbers[0].second == 0.01));
  REQUIRE(info.metadata.arrays.size() == 2);
  CHECK(info.metadata.arrays[0].first == "g");
  CHECK(info.metadata.arrays[0].second == std::vector<double>{0.0, -9.81});
  CHECK(info.metadata.arrays[1].second == std::vector<double>{2.5});  // an array of one stays one
  pvec::vector r = pvec::checkpoint_restart(path, info.desc, info.properties);
  CHECK(r.size() == 50);
  require_error([&] { (void)pvec::checkpoint_describe(path + ".none"); }, PVEC_ERROR_IO);
  // Only "vel" saved: the full schema restarts with PVEC_RESTART_ZERO_MISSING, not without.
  v.checkpoint(path, 13, 1.0, {1});
  const pvec::checkpoint_info part = pvec::checkpoint_describe(path);
  REQUIRE(part.properties.count() == 1);
  CHECK(part.properties.property(0).name == "vel");
  require_error([&] { (void)pvec::checkpoint_restart(path, info.desc, info.properties); },
                PVEC_ERROR_INVALID_ARGUMENT);
  pvec::vector z =
      pvec::checkpoint_restart(path, info.desc, info.properties, PVEC_RESTART_ZERO_MISSING);
  CHECK(z.size() == 50);
  std::remove(path.c_str());
  std::remove((path.substr(0, path.size() - 3) + ".xmf").c_str());
  const std::string dir = "cpp_hpp_vtk_" + std::to_string(getpid());
  v.write_vtk(dir + "/deeper/p", 3, 0.5, PVEC_VTK_RANK_ARRAY);  // folders made as needed
  CHECK(std::filesystem::exists(dir + "/deeper/p.pvd"));
  v.write_vtk(dir + "/few/p", 3, 0.5, {2});  // the tensor only: a list, not flags 2
  std::ifstream pvtp(dir + "/few/p_000003.pvtp");
  const std::string text((std::istreambuf_iterator<char>(pvtp)), std::istreambuf_iterator<char>());
  CHECK(text.find("Name=\"vel\"") == std::string::npos);
  CHECK(text.find("Name=\"stress\" NumberOfComponents=\"4\"") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("schema indices follow declaration order", "[cpp]") {
  pvec::schema s;
  CHECK(s.add_scalar<float>("a") == 0);
  CHECK(s.add_vector<double>("b", 4) == 1);
  CHECK(s.add_tensor<std::uint32_t>("c", 3, 2) == 2);
  CHECK(s.add_scalar("d", PVEC_INT64) == 3);
  const std::int64_t ext[2] = {2, 5};
  CHECK(s.add("e", PVEC_FLOAT32, 2, ext) == 4);
  CHECK(s.count() == 5);
  pvec::vector v(pvec::vector_desc(), s);
  CHECK(v.prop_count() == 5);
  CHECK(v.prop_index("c") == 2);
  CHECK(v.prop_index("pos") == PVEC_POS);
  const pvec_layout l = v.layout(v.prop_index("c"));
  CHECK(l.dtype == PVEC_UINT32);
  CHECK(l.rank == 2);
  CHECK(l.extents[0] == 3);
  CHECK(l.extents[1] == 2);
  CHECK(v.layout(4).ncomp == 10);
}

TEST_CASE("vector_desc reaches pvec_vector_create", "[cpp]") {
  pvec::schema s = make_schema();
  pvec::vector v(pvec::vector_desc()
                     .domain({-1, 0}, {1, 2})
                     .boundaries({PVEC_PERIODIC, PVEC_NON_PERIODIC})
                     .pos_type<float>()
                     .ghost_width(0.05)
                     .particles(100)
                     .backend(PVEC_BACKEND_HOST),
                 s);
  CHECK(v.dim() == 2);
  CHECK(v.pos_dtype() == PVEC_FLOAT32);
  const pvec::box d = v.domain();
  REQUIRE(d.lo.size() == 2);
  CHECK(d.lo[0] == -1.0);
  CHECK(d.lo[1] == 0.0);
  CHECK(d.hi[0] == 1.0);
  CHECK(d.hi[1] == 2.0);
  const std::vector<int> bc = v.boundaries();
  REQUIRE(bc.size() == 2);
  CHECK(bc[0] == PVEC_PERIODIC);
  CHECK(bc[1] == PVEC_NON_PERIODIC);
  CHECK(v.ghost_width() == 0.05);
  CHECK(v.size() == 100);  // one rank: EVEN keeps all
  CHECK(v.ghost_size() == 0);
  CHECK(v.capacity() == 128);
  CHECK(v.backend() == PVEC_BACKEND_HOST);
  CHECK(v.device() == -1);
  CHECK(v.comm_size() == 1);
  CHECK(v.comm_rank() == 0);
  const double x[2] = {0.5, 1.0};
  CHECK(v.owner_rank(x) == 0);
  CHECK(v.stream() == nullptr);
}

TEST_CASE("failures throw pvec::error with status and message", "[cpp][errors]") {
  pvec::vector v = make_vector(10);
  const std::string invalid = pvec_status_string(PVEC_ERROR_INVALID_ARGUMENT);

  SECTION("check") {
    CHECK_NOTHROW(pvec::check(PVEC_SUCCESS));
    require_error([] { pvec::check(PVEC_ERROR_INTERNAL); }, PVEC_ERROR_INTERNAL);
    // The pvec_last_error detail of the failing call is in the message.
    pvec_status st = pvec_vector_reserve(v.get(), -5);
    REQUIRE(st == PVEC_ERROR_INVALID_ARGUMENT);
    const std::string detail = pvec_last_error();
    REQUIRE_FALSE(detail.empty());
    const std::string msg = require_error([&] { pvec::check(pvec_vector_reserve(v.get(), -5)); },
                                          PVEC_ERROR_INVALID_ARGUMENT);
    CHECK(msg == "pvec: " + detail + " [" + invalid + "]");
  }
  SECTION("catchable as std::runtime_error") {
    bool caught = false;
    try {
      v.reserve(-1);
    } catch (const std::runtime_error& e) {
      caught = true;
      CHECK(std::string(e.what()).find(invalid) != std::string::npos);
    }
    CHECK(caught);
  }
  SECTION("bad arguments leave the vector unchanged") {
    const std::int64_t cap = v.capacity();
    const std::uint64_t gen = v.generation();
    const std::string msg = require_error([&] { v.resize(-3); }, PVEC_ERROR_INVALID_ARGUMENT);
    // More than the bare status: the C detail made it into the message.
    CHECK(msg.size() > std::string("pvec:  []").size() + invalid.size());
    CHECK(v.size() == 10);
    CHECK(v.capacity() == cap);
    CHECK(v.generation() == gen);
    require_error([&] { v.append(-1); }, PVEC_ERROR_INVALID_ARGUMENT);
    require_error([&] { v.remove({1, 1}); }, PVEC_ERROR_INVALID_ARGUMENT);
    require_error([&] { v.remove({10}); }, PVEC_ERROR_OUT_OF_RANGE);
    require_error([&] { v.remove({-1}); }, PVEC_ERROR_OUT_OF_RANGE);
    CHECK(v.size() == 10);
  }
  SECTION("unknown properties") {
    require_error([&] { (void)v.prop_index("nope"); }, PVEC_ERROR_INVALID_ARGUMENT);
    require_error([&] { (void)v.layout(3); }, PVEC_ERROR_OUT_OF_RANGE);
    // The message names the function called, then the C detail.
    const std::string hv =
        require_error([&] { (void)v.host_view<double>(7); }, PVEC_ERROR_OUT_OF_RANGE);
    CHECK(hv.rfind("pvec: pvec::vector::host_view: pvec_vector_get_layout: property 7", 0) == 0);
    const std::string dv =
        require_error([&] { (void)v.device_view<double>(-7); }, PVEC_ERROR_OUT_OF_RANGE);
    CHECK(dv.rfind("pvec: pvec::vector::device_view: ", 0) == 0);
    const std::string hp =
        require_error([&] { (void)v.host_ptr<double>(9); }, PVEC_ERROR_OUT_OF_RANGE);
    CHECK(hp.find("pvec::vector::host_ptr") != std::string::npos);
    require_error([&] { v.host_to_device({0, 9}); }, PVEC_ERROR_OUT_OF_RANGE);
    require_error([&] { v.device_to_host({1, 1}); }, PVEC_ERROR_INVALID_ARGUMENT);
  }
  SECTION("schema errors") {
    pvec::schema s;
    s.add_scalar<float>("x");
    require_error([&] { s.add_scalar<float>("x"); }, PVEC_ERROR_INVALID_ARGUMENT);
    require_error([&] { s.add_vector<float>("pos", 2); }, PVEC_ERROR_INVALID_ARGUMENT);
    require_error([&] { s.add_vector<float>("", 2); }, PVEC_ERROR_INVALID_ARGUMENT);
    require_error([&] { s.add_vector<float>("y", 0); }, PVEC_ERROR_INVALID_ARGUMENT);
    require_error([&] { s.add_tensor<double>("z", 2, -1); }, PVEC_ERROR_INVALID_ARGUMENT);
    require_error([&] { s.add_scalar("w", static_cast<pvec_dtype>(99)); },
                  PVEC_ERROR_INVALID_ARGUMENT);
    CHECK(s.count() == 1);  // unchanged by the failures
  }
  SECTION("bad descriptions") {
    pvec::schema s = make_schema();
    require_error([&] { pvec::vector w(pvec::vector_desc().dim(0), s); },
                  PVEC_ERROR_INVALID_ARGUMENT);
    require_error([&] { pvec::vector w(pvec::vector_desc().domain({1}, {0}), s); },
                  PVEC_ERROR_INVALID_ARGUMENT);
    require_error([&] { pvec::vector w(pvec::vector_desc().ghost_width(-1), s); },
                  PVEC_ERROR_INVALID_ARGUMENT);
    require_error([&] { pvec::vector w(pvec::vector_desc().particles(-1), s); },
                  PVEC_ERROR_INVALID_ARGUMENT);
    // Checked on the C++ side before reaching pvec.
    require_error([] { pvec::vector_desc().domain({0, 0}, {1}); }, PVEC_ERROR_INVALID_ARGUMENT);
    require_error(
        [] {
          pvec::vector_desc().domain({0, 0, 0, 0, 0}, {1, 1, 1, 1, 1});
        },
        PVEC_ERROR_INVALID_ARGUMENT);
    pvec::schema moved = std::move(s);
    require_error([&] { pvec::vector w(pvec::vector_desc(), s); }, PVEC_ERROR_INVALID_HANDLE);
  }
  SECTION("backend CUDA needs a device") {
    pvec::schema s = make_schema();
    if (pvec::cuda_device_count() == 0) {
      require_error(
          [&] { pvec::vector w(pvec::vector_desc().backend(PVEC_BACKEND_CUDA).particles(1), s); },
          PVEC_ERROR_NO_DEVICE);
    } else {
      pvec::vector w(pvec::vector_desc().backend(PVEC_BACKEND_CUDA).particles(1), s);
      CHECK(w.backend() == PVEC_BACKEND_CUDA);
    }
  }
}
