// remove / append / resize semantics on both mirrors: removal keeps the survivors' relative
// order, bad index lists change nothing, shrinking then regrowing gives zeros, append
// returns the first new index and zero-fills slots that held data before.
#include "capi_util.hpp"

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

// Particle i must now hold what particle ids[i] held: pattern(field, c, ids[i], salt) on
// the host mirror for i < ids.size().
capi::Mismatch order_mismatch(pvec_vector_t v, const std::vector<int64_t>& ids, int salt) {
  capi::Mismatch m;
  for (int f : capi::all_fields(v)) {
    const pvec_layout l = capi::layout_of(v, f);
    for (int64_t c = 0; c < l.ncomp; ++c) {
      for (size_t i = 0; i < ids.size(); ++i) {
        const double got = capi::get_elem(l.host_ptr, l.dtype, c * l.capacity + int64_t(i));
        if (got != capi::pattern(f, c, ids[i], salt)) {
          if (m.count == 0)
            m.first = "field " + std::to_string(f) + " component " + std::to_string(c) + " index " +
                      std::to_string(i) + ": got " + std::to_string(got) +
                      ", want the value of particle " + std::to_string(ids[i]);
          ++m.count;
        }
      }
    }
  }
  return m;
}

// Gives the device mirror pattern(salt_dev) and the host pattern(salt_host) on [0, n).
void fill_both(pvec_vector_t v, int salt_dev, int salt_host, int64_t n) {
  capi::fill_host_all(v, salt_dev, 0, n);
  PVEC_REQUIRE_OK(pvec_host_to_device(v, nullptr, 0));
  capi::fill_host_all(v, salt_host, 0, n);
}

// Checks both mirrors hold, at index i, particle ids[i] of the fill_both pattern.
void check_order_both(pvec_vector_t v, const std::vector<int64_t>& ids, int salt_dev,
                      int salt_host) {
  REQUIRE(capi::size_of(v) == static_cast<int64_t>(ids.size()));
  PVEC_CHECK_MATCH(order_mismatch(v, ids, salt_host));
  capi::set_host_all(v, 0.0, 0, static_cast<int64_t>(ids.size()));
  PVEC_REQUIRE_OK(pvec_device_to_host(v, nullptr, 0));
  PVEC_CHECK_MATCH(order_mismatch(v, ids, salt_dev));
}

std::vector<int64_t> iota(int64_t n) {
  std::vector<int64_t> ids(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) ids[size_t(i)] = i;
  return ids;
}

}  // namespace

TEST_CASE("remove keeps the survivors' relative order on both mirrors", "[modify]") {
  for (pvec_backend b : capi::test_backends()) {
    INFO("backend " << b);
    capi::Vector vec =
        capi::make_vector(capi::mixed_props(), capi::make_desc(10, 3, PVEC_FLOAT64, b));
    pvec_vector_t v = vec.get();
    fill_both(v, 1, 2, 10);
    const uint64_t gen = capi::generation_of(v);
    const int64_t gone[3] = {7, 2, 5};  // any order
    PVEC_REQUIRE_OK(pvec_vector_remove(v, gone, 3));
    CHECK(capi::generation_of(v) == gen + 1);  // reordered
    CHECK(capi::capacity_of(v) == 64);
    check_order_both(v, {0, 1, 3, 4, 6, 8, 9}, 1, 2);

    // Nothing to remove: no reordering, no new generation.
    fill_both(v, 1, 2, 7);
    PVEC_REQUIRE_OK(pvec_vector_remove(v, nullptr, 0));
    const int64_t one = 3;
    PVEC_REQUIRE_OK(pvec_vector_remove(v, &one, 0));
    CHECK(capi::generation_of(v) == gen + 1);
    check_order_both(v, iota(7), 1, 2);

    // First and last.
    fill_both(v, 3, 4, 7);
    const int64_t ends[2] = {6, 0};
    PVEC_REQUIRE_OK(pvec_vector_remove(v, ends, 2));
    check_order_both(v, {1, 2, 3, 4, 5}, 3, 4);

    // Everything.
    const int64_t all[5] = {4, 3, 2, 1, 0};
    PVEC_REQUIRE_OK(pvec_vector_remove(v, all, 5));
    CHECK(capi::size_of(v) == 0);
    CHECK(capi::capacity_of(v) == 64);
  }
}

TEST_CASE("random removals match a reference on both mirrors", "[modify]") {
  std::mt19937_64 rng(12345);
  for (pvec_backend b : capi::test_backends()) {
    INFO("backend " << b);
    const int64_t n0 = 3000;
    capi::Vector vec =
        capi::make_vector(capi::mixed_props(), capi::make_desc(n0, 2, PVEC_FLOAT32, b));
    pvec_vector_t v = vec.get();
    fill_both(v, 5, 6, n0);
    std::vector<int64_t> ids = iota(n0);  // ids[i]: original particle now at index i
    for (int round = 0; round < 6; ++round) {
      INFO("round " << round);
      const int64_t n = static_cast<int64_t>(ids.size());
      std::vector<int64_t> idx = iota(n);
      std::shuffle(idx.begin(), idx.end(), rng);
      idx.resize(size_t(n / 3));
      PVEC_REQUIRE_OK(pvec_vector_remove(v, idx.data(), int64_t(idx.size())));
      std::vector<char> dead(size_t(n), 0);
      for (int64_t k : idx) dead[size_t(k)] = 1;
      std::vector<int64_t> next;
      for (int64_t i = 0; i < n; ++i)
        if (!dead[size_t(i)]) next.push_back(ids[size_t(i)]);
      ids.swap(next);
      // check_order_both overwrites the host with the device values; restore the host.
      check_order_both(v, ids, 5, 6);
      for (int f : capi::all_fields(v)) {
        const pvec_layout l = capi::layout_of(v, f);
        for (int64_t c = 0; c < l.ncomp; ++c)
          for (size_t i = 0; i < ids.size(); ++i)
            capi::set_elem(l.host_ptr, l.dtype, c * l.capacity + int64_t(i),
                           capi::pattern(f, c, ids[i], 6));
      }
    }
    CHECK(capi::capacity_of(v) == 3008);
  }
}

TEST_CASE("bad removal lists change nothing", "[modify]") {
  for (pvec_backend b : capi::test_backends()) {
    INFO("backend " << b);
    capi::Vector vec =
        capi::make_vector(capi::mixed_props(), capi::make_desc(10, 3, PVEC_FLOAT64, b));
    pvec_vector_t v = vec.get();
    fill_both(v, 1, 2, 10);
    struct Bad {
      std::vector<int64_t> idx;
      int64_t count;
      pvec_status want;
    };
    const std::vector<Bad> bad = {
        {{1, 1}, 2, PVEC_ERROR_INVALID_ARGUMENT},
        {{3, 0, 5, 0}, 4, PVEC_ERROR_INVALID_ARGUMENT},
        {{10}, 1, PVEC_ERROR_OUT_OF_RANGE},
        {{2, 4, -1}, 3, PVEC_ERROR_OUT_OF_RANGE},
        {{0, 1, 1000000}, 3, PVEC_ERROR_OUT_OF_RANGE},
        {{0}, -1, PVEC_ERROR_INVALID_ARGUMENT},
    };
    for (const Bad& x : bad) {
      INFO("list of " << x.count << " starting with " << x.idx[0]);
      const capi::Snapshot before = capi::snapshot(v);
      PVEC_REQUIRE_STATUS(pvec_vector_remove(v, x.idx.data(), x.count), x.want);
      const capi::Snapshot after = capi::snapshot(v);
      INFO(capi::to_string(before) << " / " << capi::to_string(after));
      CHECK(after == before);
    }
    PVEC_REQUIRE_STATUS(pvec_vector_remove(v, nullptr, 2), PVEC_ERROR_INVALID_ARGUMENT);
    check_order_both(v, iota(10), 1, 2);
  }
}

TEST_CASE("resize down then up gives zeros for the regrown part", "[modify]") {
  for (pvec_backend b : capi::test_backends()) {
    INFO("backend " << b);
    capi::Vector vec =
        capi::make_vector(capi::mixed_props(), capi::make_desc(100, 3, PVEC_FLOAT64, b));
    pvec_vector_t v = vec.get();
    fill_both(v, 1, 2, 100);
    PVEC_REQUIRE_OK(pvec_vector_resize(v, 40));
    PVEC_REQUIRE_OK(pvec_vector_resize(v, 100));  // same capacity: the old slots are reused
    CHECK(capi::capacity_of(v) == 128);
    PVEC_CHECK_MATCH(capi::host_mismatch_all(v, 2, 0, 40));
    PVEC_CHECK_MATCH(capi::host_mismatch_all(v, -1, 40, 100));
    PVEC_CHECK_MATCH(capi::device_mismatch_all_via_copy(v, 1, 0, 40));
    PVEC_CHECK_MATCH(capi::host_mismatch_all(v, -1, 40, 100));

    // Down, then up past the capacity.
    fill_both(v, 3, 4, 100);
    PVEC_REQUIRE_OK(pvec_vector_resize(v, 10));
    PVEC_REQUIRE_OK(pvec_vector_resize(v, 1000));
    CHECK(capi::capacity_of(v) == 1024);
    PVEC_CHECK_MATCH(capi::host_mismatch_all(v, 4, 0, 10));
    PVEC_CHECK_MATCH(capi::host_mismatch_all(v, -1, 10, 1000));
    PVEC_CHECK_MATCH(capi::device_mismatch_all_via_copy(v, 3, 0, 10));
    PVEC_CHECK_MATCH(capi::host_mismatch_all(v, -1, 10, 1000));
  }
}

TEST_CASE("append returns the first index and zero-fills reused slots", "[modify]") {
  for (pvec_backend b : capi::test_backends()) {
    INFO("backend " << b);
    capi::Vector vec =
        capi::make_vector(capi::mixed_props(), capi::make_desc(5, 3, PVEC_FLOAT64, b));
    pvec_vector_t v = vec.get();
    int64_t first = -1;
    PVEC_REQUIRE_OK(pvec_vector_append(v, 3, &first));
    CHECK(first == 5);
    CHECK(capi::size_of(v) == 8);
    PVEC_REQUIRE_OK(pvec_vector_append(v, 2, nullptr));
    CHECK(capi::size_of(v) == 10);
    first = -1;
    PVEC_REQUIRE_OK(pvec_vector_append(v, 0, &first));
    CHECK(first == 10);
    CHECK(capi::size_of(v) == 10);

    // Slots 6..9 hold data; after removing 4 particles, appending reuses them.
    fill_both(v, 1, 2, 10);
    const int64_t gone[4] = {0, 2, 4, 6};
    PVEC_REQUIRE_OK(pvec_vector_remove(v, gone, 4));
    PVEC_REQUIRE_OK(pvec_vector_append(v, 4, &first));
    CHECK(first == 6);
    PVEC_CHECK_MATCH(order_mismatch(v, {1, 3, 5, 7, 8, 9}, 2));
    PVEC_CHECK_MATCH(capi::host_mismatch_all(v, -1, 6, 10));
    // And after a resize down.
    PVEC_REQUIRE_OK(pvec_vector_resize(v, 2));
    PVEC_REQUIRE_OK(pvec_vector_append(v, 8, &first));
    CHECK(first == 2);
    CHECK(capi::size_of(v) == 10);
    PVEC_CHECK_MATCH(order_mismatch(v, {1, 3}, 2));
    PVEC_CHECK_MATCH(capi::host_mismatch_all(v, -1, 2, 10));
    // The device mirror went through the same steps.
    capi::set_host_all(v, 77.0, 0, 10);
    PVEC_REQUIRE_OK(pvec_device_to_host(v, nullptr, 0));
    PVEC_CHECK_MATCH(order_mismatch(v, {1, 3}, 1));
    PVEC_CHECK_MATCH(capi::host_mismatch_all(v, -1, 2, 10));
  }
}
