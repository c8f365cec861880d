// Retention (pvec_vector_retain / pvec_retention_release): a retained buffer keeps its values and
// stays allocated after the vector is destroyed or reallocates, is counted by pvec_memory_stats
// until released, is freed by the last release, and a bad or second release is
// INVALID_HANDLE.
#include "capi_util.hpp"

#include <cstdint>
#include <vector>

namespace {

int64_t live_bytes() {
  pvec_memory_stats m;
  m.struct_size = sizeof m;
  PVEC_REQUIRE_OK(pvec_memory_get_stats(&m));
  return m.host_bytes + m.pinned_bytes + m.device_bytes;
}

int64_t block_bytes(const pvec_layout& l) {
  return l.ncomp * l.capacity * static_cast<int64_t>(l.elem_size);
}

// Device mirrors are readable here only with the host backend.
bool device_readable(pvec_vector_t v) { return capi::backend_of(v) == PVEC_BACKEND_HOST; }

}  // namespace

TEST_CASE("retained buffers keep their values after the vector is destroyed", "[retention]") {
  for (pvec_backend backend : capi::test_backends()) {
    INFO("backend " << backend);
    const int64_t n = 100;
    capi::Vector v =
        capi::make_vector(capi::mixed_props(), capi::make_desc(n, 3, PVEC_FLOAT64, backend));
    capi::fill_host_all(v.get(), 7, 0, n);
    PVEC_REQUIRE_OK(pvec_host_to_device(v.get(), nullptr, 0));
    const bool dev = device_readable(v.get());
    std::vector<pvec_layout> layouts;
    std::vector<pvec_retention_t> held;
    int64_t retained = 0;
    for (int f : capi::all_fields(v.get())) {
      layouts.push_back(capi::layout_of(v.get(), f));
      for (int mirror = 0; mirror < 2; ++mirror) {
        pvec_retention_t r = nullptr;
        PVEC_REQUIRE_OK(pvec_vector_retain(v.get(), f, mirror, &r));
        REQUIRE(r != nullptr);
        held.push_back(r);
        retained += block_bytes(layouts.back());
      }
    }
    const int64_t before = live_bytes();
    pvec_vector_t raw = v.get();
    v = capi::Vector();  // destroys the vector
    int64_t alive = 0;
    REQUIRE(pvec_vector_get_size(raw, &alive) == PVEC_ERROR_INVALID_HANDLE);
    // Nothing was freed: every buffer of the vector is retained.
    CHECK(live_bytes() == before);
    for (const pvec_layout& l : layouts) {
      PVEC_CHECK_MATCH(capi::count_mismatch(l, false, 7, 0, n));
      if (dev) PVEC_CHECK_MATCH(capi::count_mismatch(l, true, 7, 0, n));
    }
    for (pvec_retention_t r : held) PVEC_REQUIRE_OK(pvec_retention_release(r));
    CHECK(live_bytes() == before - retained);
  }
}

TEST_CASE("a retained buffer survives a reallocation and keeps the old values", "[retention]") {
  for (pvec_backend backend : capi::test_backends()) {
    INFO("backend " << backend);
    const int64_t n = 64;
    capi::Vector v =
        capi::make_vector(capi::mixed_props(), capi::make_desc(n, 2, PVEC_FLOAT32, backend));
    capi::fill_host_all(v.get(), 3, 0, n);
    const pvec_layout old = capi::layout_of(v.get(), 1);
    pvec_retention_t r = nullptr;
    PVEC_REQUIRE_OK(pvec_vector_retain(v.get(), 1, 0, &r));
    const int64_t before = live_bytes();
    const uint64_t gen = capi::generation_of(v.get());
    PVEC_REQUIRE_OK(pvec_vector_append(v.get(), 1, nullptr));  // past the capacity: reallocates
    REQUIRE(capi::generation_of(v.get()) != gen);
    const pvec_layout now = capi::layout_of(v.get(), 1);
    REQUIRE(now.host_ptr != old.host_ptr);
    // The vector's new buffer is its own: writing it leaves the retained one alone.
    capi::fill_host_all(v.get(), 5, 0, n + 1);
    PVEC_CHECK_MATCH(capi::count_mismatch(old, false, 3, 0, n));
    PVEC_CHECK_MATCH(capi::count_mismatch(now, false, 5, 0, n + 1));
    const int64_t grown = live_bytes();
    CHECK(grown > before);  // the new buffers, while the old retained one still counts
    PVEC_REQUIRE_OK(pvec_retention_release(r));
    CHECK(live_bytes() == grown - block_bytes(old));
    PVEC_CHECK_MATCH(capi::count_mismatch(now, false, 5, 0, n + 1));
  }
}

TEST_CASE("releasing while the vector still uses the buffer frees nothing", "[retention]") {
  const int64_t n = 10;
  capi::Vector v = capi::make_vector(capi::mixed_props(), capi::make_desc(n));
  capi::fill_host_all(v.get(), 2, 0, n);
  pvec_retention_t a = nullptr, b = nullptr;
  PVEC_REQUIRE_OK(pvec_vector_retain(v.get(), PVEC_POS, 0, &a));
  PVEC_REQUIRE_OK(pvec_vector_retain(v.get(), PVEC_POS, 0, &b));  // the same buffer twice
  REQUIRE(a != b);
  const int64_t before = live_bytes();
  PVEC_REQUIRE_OK(pvec_retention_release(a));
  PVEC_REQUIRE_OK(pvec_retention_release(b));
  CHECK(live_bytes() == before);
  PVEC_CHECK_MATCH(capi::host_mismatch_all(v.get(), 2, 0, n));
  // The vector frees its buffers itself, as without a retention.
  const pvec_layout pos = capi::layout_of(v.get(), PVEC_POS);
  v = capi::Vector();
  CHECK(live_bytes() <= before - 2 * block_bytes(pos));
}

TEST_CASE("a second, NULL or foreign release is INVALID_HANDLE", "[retention]") {
  capi::Vector v = capi::make_vector(capi::mixed_props(), capi::make_desc(5));
  pvec_retention_t r = nullptr;
  PVEC_REQUIRE_OK(pvec_vector_retain(v.get(), 0, 1, &r));
  const pvec_layout l = capi::layout_of(v.get(), 0);
  v = capi::Vector();
  const int64_t before = live_bytes();
  PVEC_REQUIRE_OK(pvec_retention_release(r));
  CHECK(live_bytes() == before - block_bytes(l));
  PVEC_REQUIRE_STATUS(pvec_retention_release(r), PVEC_ERROR_INVALID_HANDLE);
  CHECK(live_bytes() == before - block_bytes(l));
  PVEC_REQUIRE_STATUS(pvec_retention_release(nullptr), PVEC_ERROR_INVALID_HANDLE);
  capi::Vector w = capi::make_vector(capi::mixed_props(), capi::make_desc(5));
  PVEC_REQUIRE_STATUS(pvec_retention_release(reinterpret_cast<pvec_retention_t>(w.get())),
                      PVEC_ERROR_INVALID_HANDLE);
  int64_t size = -1;
  PVEC_REQUIRE_OK(pvec_vector_get_size(w.get(), &size));  // the vector is untouched
  CHECK(size == 5);
}

TEST_CASE("pvec_vector_retain refuses bad arguments", "[retention]") {
  capi::Vector v = capi::make_vector(capi::mixed_props(), capi::make_desc(5));
  pvec_retention_t r = nullptr;
  PVEC_REQUIRE_STATUS(pvec_vector_retain(v.get(), 0, 0, nullptr), PVEC_ERROR_INVALID_ARGUMENT);
  PVEC_REQUIRE_STATUS(pvec_vector_retain(v.get(), 4, 0, &r), PVEC_ERROR_OUT_OF_RANGE);
  PVEC_REQUIRE_STATUS(pvec_vector_retain(v.get(), -2, 1, &r), PVEC_ERROR_OUT_OF_RANGE);
  PVEC_REQUIRE_STATUS(pvec_vector_retain(nullptr, 0, 0, &r), PVEC_ERROR_INVALID_HANDLE);
  CHECK(r == nullptr);
}
