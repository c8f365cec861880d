// Growth: appends grow the capacity geometrically and keep every value on both mirrors;
// reserve/resize grow exactly to the request rounded up to 64; the capacity never shrinks
// except in shrink_to_fit; the generation counts reallocations exactly; new particles are
// zero on both mirrors.
#include "capi_util.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace {

int64_t round64(int64_t n) { return std::max<int64_t>(64, (n + 63) / 64 * 64); }

// Capacity an append of k to a vector of n particles with capacity c must produce.
int64_t append_capacity(int64_t n, int64_t k, int64_t c) {
  return n + k <= c ? c : round64(std::max(2 * c, n + k));
}

// Tracks a vector being grown: the particles [0, filled) hold pattern(salt) on both
// mirrors, [filled, n) must be zero on both.
struct Grower {
  pvec_vector_t v;
  int64_t n = 0;
  int64_t capacity = 0;
  uint64_t generation = 0;
  int64_t filled = 0;
  int salt = 0;
  int64_t reallocations = 0;
  std::vector<pvec_layout> layouts;  // valid for `generation`

  explicit Grower(pvec_vector_t vec) : v(vec) {
    n = capi::size_of(v);
    capacity = capi::capacity_of(v);
    generation = capi::generation_of(v);
    refresh_layouts();
  }

  void refresh_layouts() {
    layouts.clear();
    for (int f : capi::all_fields(v)) layouts.push_back(capi::layout_of(v, f));
  }

  // Appends k particles and checks index, size, capacity rule, generation and that the new
  // particles read zero on the host mirror. Returns false (after reporting) on a failure.
  bool append(int64_t k) {
    int64_t first = -1;
    const pvec_status st = pvec_vector_append(v, k, &first);
    if (st != PVEC_SUCCESS) {
      FAIL_CHECK("pvec_vector_append(" << k << ") at n=" << n << ": " << pvec_last_error());
      return false;
    }
    const int64_t want_cap = append_capacity(n, k, capacity);
    const bool grows = want_cap != capacity;
    int64_t got_n = -1, got_cap = -1;
    uint64_t got_gen = 0;
    pvec_vector_get_size(v, &got_n);
    pvec_vector_get_capacity(v, &got_cap);
    pvec_vector_get_generation(v, &got_gen);
    if (first != n || got_n != n + k || got_cap != want_cap ||
        got_gen != generation + (grows ? 1 : 0)) {
      FAIL_CHECK("append(" << k << ") at n=" << n << " capacity=" << capacity
                           << " generation=" << generation << ": first=" << first
                           << " size=" << got_n << " capacity=" << got_cap << " (want " << want_cap
                           << ") generation=" << got_gen);
      return false;
    }
    n += k;
    capacity = got_cap;
    generation = got_gen;
    if (grows) {
      ++reallocations;
      refresh_layouts();
    }
    for (const pvec_layout& l : layouts) {
      for (int64_t c = 0; c < l.ncomp; ++c) {
        for (int64_t i = n - k; i < n; ++i) {
          if (capi::get_elem(l.host_ptr, l.dtype, c * capacity + i) != 0.0) {
            FAIL_CHECK("appended particle " << i << " of field " << l.prop << " component " << c
                                            << " is not zero on the host");
            return false;
          }
        }
      }
    }
    return true;
  }

  // Checks the values on both mirrors, then writes a new pattern to both.
  void checkpoint() {
    INFO("checkpoint at n=" << n << " capacity=" << capacity);
    PVEC_CHECK_MATCH(capi::host_mismatch_all(v, salt, 0, filled));
    PVEC_CHECK_MATCH(capi::host_mismatch_all(v, -1, filled, n));
    // Poison the host, copy the device mirror back, compare.
    PVEC_CHECK_MATCH(capi::device_mismatch_all_via_copy(v, salt, 0, filled));
    PVEC_CHECK_MATCH(capi::host_mismatch_all(v, -1, filled, n));
    ++salt;
    capi::fill_host_all(v, salt, 0, n);
    PVEC_REQUIRE_OK(pvec_host_to_device(v, nullptr, 0));
    filled = n;
  }
};

}  // namespace

TEST_CASE("append one at a time up to 10^6 keeps values on both mirrors", "[growth]") {
  capi::Vector vec = capi::make_vector(capi::mixed_props(), capi::make_desc(0));
  REQUIRE(capi::capacity_of(vec.get()) == 64);
  Grower g(vec.get());
  const int64_t target = 1000000;
  bool ok = true;
  while (ok && g.n < target) {
    const uint64_t gen_before = g.generation;
    ok = g.append(1);
    // Check right after each reallocation, and early on while the vector is small.
    if (ok && (g.generation != gen_before || g.n == 1 || g.n == 2 || g.n == 3 || g.n == 100))
      g.checkpoint();
  }
  REQUIRE(ok);
  g.checkpoint();
  CHECK(g.n == target);
  CHECK(g.capacity == 1048576);
  // 64 -> 128 -> ... -> 2^20: geometric growth reallocates O(log n) times.
  CHECK(g.reallocations == 14);
  CHECK(g.reallocations <= 20);
}

TEST_CASE("append in batches keeps values on both mirrors", "[growth]") {
  const int64_t batches[] = {1, 7, 63, 64, 65, 1000, 12345, 0, 100000, 3, 2, 300001};
  for (pvec_backend b : capi::test_backends()) {
    INFO("backend " << b);
    capi::Vector vec =
        capi::make_vector(capi::mixed_props(), capi::make_desc(0, 2, PVEC_FLOAT32, b));
    Grower g(vec.get());
    bool ok = true;
    for (int round = 0; ok && g.n < 1000000; ++round) {
      const uint64_t gen_before = g.generation;
      ok = g.append(batches[round % (sizeof batches / sizeof batches[0])]);
      if (ok && g.generation != gen_before) g.checkpoint();
    }
    REQUIRE(ok);
    g.checkpoint();
    CHECK(g.reallocations <= 20);
  }
}

TEST_CASE("a batch larger than twice the capacity grows exactly to its size", "[growth]") {
  capi::Vector vec = capi::make_vector(capi::mixed_props(), capi::make_desc(10));
  Grower g(vec.get());
  g.checkpoint();
  REQUIRE(g.append(1000));  // max(2*64, 1010) -> 1024
  CHECK(g.capacity == 1024);
  REQUIRE(g.append(14));  // 1024 fits
  CHECK(g.capacity == 1024);
  REQUIRE(g.append(1));  // 2048
  CHECK(g.capacity == 2048);
  REQUIRE(g.append(5000));  // 6039 -> 6080
  CHECK(g.capacity == 6080);
  g.checkpoint();
}

TEST_CASE("reserve grows exactly to round_up(n, 64) and keeps both mirrors", "[growth]") {
  for (pvec_backend b : capi::test_backends()) {
    INFO("backend " << b);
    capi::Vector vec =
        capi::make_vector(capi::mixed_props(), capi::make_desc(40, 3, PVEC_FLOAT64, b));
    pvec_vector_t v = vec.get();
    // Different values on the two mirrors, so a copy of the wrong mirror is caught.
    capi::fill_host_all(v, 1, 0, 40);
    PVEC_REQUIRE_OK(pvec_host_to_device(v, nullptr, 0));
    capi::fill_host_all(v, 2, 0, 40);
    uint64_t gen = capi::generation_of(v);
    struct Step {
      int64_t request, capacity;
    };
    const Step steps[] = {{0, 64},     {10, 64},     {64, 64},   {65, 128},
                          {100, 128},  {128, 128},   {129, 192}, {1000, 1024},
                          {500, 1024}, {1025, 1088}, {0, 1088},  {4097, 4160}};
    for (const Step& s : steps) {
      INFO("reserve " << s.request);
      const int64_t before = capi::capacity_of(v);
      PVEC_REQUIRE_OK(pvec_vector_reserve(v, s.request));
      CHECK(capi::capacity_of(v) == s.capacity);
      CHECK(capi::size_of(v) == 40);
      if (s.capacity != before) ++gen;
      CHECK(capi::generation_of(v) == gen);
      const pvec_layout l = capi::layout_of(v, 1);
      CHECK(l.stride_elems == s.capacity);
    }
    PVEC_CHECK_MATCH(capi::host_mismatch_all(v, 2, 0, 40));
    PVEC_CHECK_MATCH(capi::device_mismatch_all_via_copy(v, 1, 0, 40));
  }
}

TEST_CASE("resize grows exactly, zero-fills, never shrinks the capacity", "[growth]") {
  for (pvec_backend b : capi::test_backends()) {
    INFO("backend " << b);
    capi::Vector vec =
        capi::make_vector(capi::mixed_props(), capi::make_desc(30, 3, PVEC_FLOAT64, b));
    pvec_vector_t v = vec.get();
    capi::fill_host_all(v, 1, 0, 30);
    PVEC_REQUIRE_OK(pvec_host_to_device(v, nullptr, 0));
    capi::fill_host_all(v, 2, 0, 30);
    uint64_t gen = capi::generation_of(v);

    PVEC_REQUIRE_OK(pvec_vector_resize(v, 50));  // within capacity 64: no reallocation
    CHECK(capi::size_of(v) == 50);
    CHECK(capi::capacity_of(v) == 64);
    CHECK(capi::generation_of(v) == gen);

    PVEC_REQUIRE_OK(pvec_vector_resize(v, 200));  // exactly 256, not 128
    CHECK(capi::size_of(v) == 200);
    CHECK(capi::capacity_of(v) == 256);
    CHECK(capi::generation_of(v) == ++gen);

    PVEC_REQUIRE_OK(pvec_vector_resize(v, 257));  // 320, not 512
    CHECK(capi::capacity_of(v) == 320);
    CHECK(capi::generation_of(v) == ++gen);

    PVEC_CHECK_MATCH(capi::host_mismatch_all(v, 2, 0, 30));
    PVEC_CHECK_MATCH(capi::host_mismatch_all(v, -1, 30, 257));
    PVEC_CHECK_MATCH(capi::device_mismatch_all_via_copy(v, 1, 0, 30));
    PVEC_CHECK_MATCH(capi::host_mismatch_all(v, -1, 30, 257));

    PVEC_REQUIRE_OK(pvec_vector_resize(v, 3));
    CHECK(capi::size_of(v) == 3);
    CHECK(capi::capacity_of(v) == 320);
    CHECK(capi::generation_of(v) == gen);
    PVEC_REQUIRE_OK(pvec_vector_resize(v, 0));
    CHECK(capi::size_of(v) == 0);
    CHECK(capi::capacity_of(v) == 320);
    CHECK(capi::generation_of(v) == gen);
    // Same size again: nothing happens.
    PVEC_REQUIRE_OK(pvec_vector_resize(v, 0));
    CHECK(capi::generation_of(v) == gen);
  }
}

TEST_CASE("shrink_to_fit is the only way down, and keeps both mirrors", "[growth]") {
  for (pvec_backend b : capi::test_backends()) {
    INFO("backend " << b);
    capi::Vector vec =
        capi::make_vector(capi::mixed_props(), capi::make_desc(1000, 3, PVEC_FLOAT64, b));
    pvec_vector_t v = vec.get();
    REQUIRE(capi::capacity_of(v) == 1024);
    capi::fill_host_all(v, 4, 0, 1000);
    PVEC_REQUIRE_OK(pvec_host_to_device(v, nullptr, 0));
    capi::fill_host_all(v, 5, 0, 1000);
    uint64_t gen = capi::generation_of(v);

    PVEC_REQUIRE_OK(pvec_vector_resize(v, 100));
    PVEC_REQUIRE_OK(pvec_vector_reserve(v, 10));
    const int64_t gone[] = {0, 99};
    PVEC_REQUIRE_OK(pvec_vector_remove(v, gone, 2));  // reorders: generation + 1
    ++gen;
    CHECK(capi::capacity_of(v) == 1024);
    CHECK(capi::generation_of(v) == gen);
    REQUIRE(capi::size_of(v) == 98);

    PVEC_REQUIRE_OK(pvec_vector_shrink_to_fit(v));
    CHECK(capi::capacity_of(v) == 128);
    CHECK(capi::generation_of(v) == ++gen);
    CHECK(capi::size_of(v) == 98);
    // Survivors were particles 1..98, now at 0..97.
    int64_t bad_host = 0, bad_dev = 0;
    for (int f : capi::all_fields(v)) {
      const pvec_layout l = capi::layout_of(v, f);
      for (int64_t c = 0; c < l.ncomp; ++c)
        for (int64_t i = 0; i < 98; ++i)
          bad_host += capi::get_elem(l.host_ptr, l.dtype, c * l.capacity + i) !=
                      capi::pattern(f, c, i + 1, 5);
    }
    CHECK(bad_host == 0);
    capi::set_host_all(v, 0.0, 0, 98);
    PVEC_REQUIRE_OK(pvec_device_to_host(v, nullptr, 0));
    for (int f : capi::all_fields(v)) {
      const pvec_layout l = capi::layout_of(v, f);
      for (int64_t c = 0; c < l.ncomp; ++c)
        for (int64_t i = 0; i < 98; ++i)
          bad_dev += capi::get_elem(l.host_ptr, l.dtype, c * l.capacity + i) !=
                     capi::pattern(f, c, i + 1, 4);
    }
    CHECK(bad_dev == 0);

    // Already tight: nothing to do.
    PVEC_REQUIRE_OK(pvec_vector_shrink_to_fit(v));
    CHECK(capi::capacity_of(v) == 128);
    CHECK(capi::generation_of(v) == gen);

    PVEC_REQUIRE_OK(pvec_vector_resize(v, 0));
    PVEC_REQUIRE_OK(pvec_vector_shrink_to_fit(v));
    CHECK(capi::capacity_of(v) == 64);  // never below 64
    CHECK(capi::generation_of(v) == ++gen);
    CHECK(capi::size_of(v) == 0);
    // Still usable afterwards.
    int64_t first = -1;
    PVEC_REQUIRE_OK(pvec_vector_append(v, 65, &first));
    CHECK(first == 0);
    CHECK(capi::capacity_of(v) == 128);
  }
}
