// Failure atomicity under allocation failure (white box: links pvec_static for the
// fault-injection hook). For each operation, the allocation number k = 0, 1, 2, ... made
// during the call is failed in turn until the call needs fewer than k+1 allocations; every
// failed call must return PVEC_ERROR_OUT_OF_MEMORY with a message and leave the vector exactly
// as it was (sizes, capacity, generation, the live values of both mirrors, a usable ghost
// plan), must leak nothing, and the vector must still work afterwards.
#include "capi_util.hpp"
#include "memory/allocator.hpp"

#include <cstdint>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace {

// Positions of particle i of a setup: a fixed pseudo-random point of the unit cube.
double coord(int64_t i, int d) {
  uint64_t x = static_cast<uint64_t>(i + 1) * 0x9e3779b97f4a7c15ull + static_cast<uint64_t>(d);
  x ^= x >> 31;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 29;
  return static_cast<double>(x >> 11) / 9007199254740992.0;
}

struct Setup {
  int64_t n = 100;                     // particles
  int64_t reserve = 0;                 // reserve this many first (0: none)
  bool ghosts = false;                 // run a ghost_get, so that ghosts and a plan exist
  double spread = 1.0;                 // positions in [0.5 - spread/2, 0.5 + spread/2) along x, y
  int64_t n_outside_z = 0;             // particles put beyond the non-periodic z boundary
  std::vector<int> first_ghost_props;  // props of the setup's ghost_get (empty: all)
};

// x, y periodic, z not; ghost width 0.2; mixed properties; host data (salt 2) differs from
// device data (salt 1) where the vector is not ghosted afterwards.
capi::Vector make(const Setup& s, pvec_backend backend) {
  pvec_vector_desc d = capi::make_desc(s.n, 3, PVEC_FLOAT64, backend);
  d.boundary[0] = PVEC_PERIODIC;
  d.boundary[1] = PVEC_PERIODIC;
  d.ghost_width = 0.2;
  capi::Vector v = capi::make_vector(capi::mixed_props(), d);
  if (s.reserve > 0) PVEC_REQUIRE_OK(pvec_vector_reserve(v.get(), s.reserve));
  const pvec_layout pos = capi::layout_of(v.get(), PVEC_POS);
  for (int64_t i = 0; i < s.n; ++i)
    for (int k = 0; k < 3; ++k) {
      double x = coord(i, k);
      if (k < 2) x = 0.5 + (x - 0.5) * s.spread;
      if (k == 2 && i < s.n_outside_z) x = 1.25;
      capi::set_elem(pos.host_ptr, pos.dtype, k * pos.stride_elems + i, x);
    }
  const int nprops = static_cast<int>(capi::mixed_props().size());
  for (int p = 0; p < nprops; ++p) capi::fill_host(v.get(), p, 1, 0, s.n);
  PVEC_REQUIRE_OK(pvec_host_to_device(v.get(), nullptr, 0));
  for (int p = 0; p < nprops; ++p) capi::fill_host(v.get(), p, 2, 0, s.n);
  if (s.ghosts) {
    const int* props = s.first_ghost_props.empty() ? nullptr : s.first_ghost_props.data();
    PVEC_REQUIRE_OK(
        pvec_ghost_get(v.get(), props, static_cast<int>(s.first_ghost_props.size()), 0));
    int64_t ng = 0;
    PVEC_REQUIRE_OK(pvec_vector_get_ghost_size(v.get(), &ng));
    REQUIRE(ng > 0);
  }
  return v;
}

struct Scenario {
  std::string name;
  Setup setup;
  std::function<pvec_status(pvec_vector_t)> call;
  // The setup's own calls may leave every buffer the call needs in place (a warm
  // workspace), so that it allocates nothing; then there is nothing to inject.
  bool may_be_warm = false;
};

int64_t live_bytes() {
  pvec_memory_stats m{};
  m.struct_size = sizeof m;
  REQUIRE(pvec_memory_get_stats(&m) == PVEC_SUCCESS);
  return m.host_bytes + m.pinned_bytes + m.device_bytes;
}

// Whether replaying the ghost plan works (only meaningful where a plan existed).
bool plan_usable(pvec_vector_t v) {
  return pvec_ghost_get(v, nullptr, 0, PVEC_GHOST_REUSE_PLAN) == PVEC_SUCCESS;
}

std::vector<Scenario> scenarios() {
  const int64_t idx_few[3] = {5, 0, 77};
  std::vector<int64_t> every_third;
  for (int64_t i = 0; i < 100; i += 3) every_third.push_back(i);
  Setup plain;
  Setup ghosted;
  ghosted.ghosts = true;
  Setup full;  // n == capacity: any append grows
  full.n = 128;
  Setup reserved;  // capacity well above the size: shrink_to_fit reallocates
  reserved.reserve = 1000;
  Setup reserved_ghosted = reserved;
  reserved_ghosted.ghosts = true;
  Setup wrapping;  // positions outside the periodic box: map wraps them
  wrapping.spread = 2.0;
  Setup wrapping_ghosted = wrapping;
  wrapping_ghosted.ghosts = true;
  Setup outside = wrapping;  // and some beyond the non-periodic boundary
  outside.n_outside_z = 9;
  Setup tight;  // n == capacity == 64: the ghosts of the first ghost_get need growth
  tight.n = 64;
  return {
      {"reserve", plain, [](pvec_vector_t v) { return pvec_vector_reserve(v, 1000); }},
      {"reserve (ghosts)", ghosted, [](pvec_vector_t v) { return pvec_vector_reserve(v, 1000); }},
      {"append (growth)", plain,
       [](pvec_vector_t v) { return pvec_vector_append(v, 200, nullptr); }},
      {"append 1 at capacity", full,
       [](pvec_vector_t v) { return pvec_vector_append(v, 1, nullptr); }},
      {"append (growth, ghosts)", ghosted,
       [](pvec_vector_t v) { return pvec_vector_append(v, 200, nullptr); }},
      {"resize (growth)", plain, [](pvec_vector_t v) { return pvec_vector_resize(v, 1000); }},
      {"resize (growth, ghosts)", ghosted,
       [](pvec_vector_t v) { return pvec_vector_resize(v, 1000); }},
      {"remove", plain, [idx_few](pvec_vector_t v) { return pvec_vector_remove(v, idx_few, 3); }},
      {"remove (every third, ghosts)", ghosted,
       [every_third](pvec_vector_t v) {
         return pvec_vector_remove(v, every_third.data(), static_cast<int64_t>(every_third.size()));
       }},
      {"shrink_to_fit", reserved, [](pvec_vector_t v) { return pvec_vector_shrink_to_fit(v); }},
      {"shrink_to_fit (ghosts)", reserved_ghosted,
       [](pvec_vector_t v) { return pvec_vector_shrink_to_fit(v); }},
      {"map (wrapping)", wrapping, [](pvec_vector_t v) { return pvec_map(v, 0, nullptr); }},
      {"map (wrapping, device side)", wrapping,
       [](pvec_vector_t v) { return pvec_map(v, PVEC_ON_DEVICE, nullptr); }},
      {"map (wrapping, ghosts)", wrapping_ghosted,
       [](pvec_vector_t v) { return pvec_map(v, 0, nullptr); }, true},
      {"map (remove outside)", outside,
       [](pvec_vector_t v) { return pvec_map(v, PVEC_MAP_REMOVE_OUTSIDE, nullptr); }},
      {"ghost_get (first, growth)", tight,
       [](pvec_vector_t v) { return pvec_ghost_get(v, nullptr, 0, 0); }},
      {"ghost_get (first, device side)", plain,
       [](pvec_vector_t v) { return pvec_ghost_get(v, nullptr, 0, PVEC_ON_DEVICE); }},
  };
}

std::string backend_name(pvec_backend b) {
  return b == PVEC_BACKEND_CUDA ? "cuda" : b == PVEC_BACKEND_HOST ? "host" : "auto";
}

}  // namespace

TEST_CASE("every allocation of every growing operation may fail atomically",
          "[hardening][atomicity]") {
  using pvec::impl::inject_allocation_failure;
  int failures = 0;
  std::string report;
  for (pvec_backend backend : capi::test_backends()) {
    for (const Scenario& sc : scenarios()) {
      const std::string label = sc.name + " [" + backend_name(backend) + "]";
      int64_t k = 0;
      bool succeeded = false;
      std::vector<std::string> problems;
      for (; k < 200 && !succeeded; ++k) {
        const int64_t bytes0 = live_bytes();
        {
          capi::Vector v = make(sc.setup, backend);
          const capi::Snapshot before = capi::snapshot(v.get());
          inject_allocation_failure(k);
          const pvec_status s = sc.call(v.get());
          inject_allocation_failure(-1);
          const std::string msg = pvec_last_error();
          if (s == PVEC_SUCCESS) {
            succeeded = true;
            break;
          }
          std::ostringstream where;
          where << "allocation #" << k << " failed: ";
          if (s != PVEC_ERROR_OUT_OF_MEMORY)
            problems.push_back(where.str() + "status " + pvec_status_string(s) + " (" + msg + ")");
          if (msg.empty()) problems.push_back(where.str() + "no message");
          const capi::Snapshot after = capi::snapshot(v.get());
          if (!(after == before))
            problems.push_back(where.str() + "vector changed: before " + capi::to_string(before) +
                               ", after " + capi::to_string(after));
          if (sc.setup.ghosts && !plan_usable(v.get()))
            problems.push_back(where.str() + "the ghost plan no longer replays");
          // The vector still works: the same call now succeeds.
          if (sc.call(v.get()) != PVEC_SUCCESS)
            problems.push_back(where.str() +
                               "the call fails afterwards without injection: " + pvec_last_error());
        }
        const int64_t bytes1 = live_bytes();
        if (bytes1 != bytes0)
          problems.push_back("allocation #" + std::to_string(k) +
                             " failed: " + std::to_string(bytes1 - bytes0) + " bytes leaked");
      }
      std::printf("atomicity: %-55s %3lld allocations, %zu problems\n", label.c_str(),
                  static_cast<long long>(k), problems.size());
      if (!succeeded) problems.push_back("never succeeded within 200 allocations");
      // Each scenario must allocate, or it tests nothing.
      if (succeeded && k == 0 && !sc.may_be_warm)
        problems.push_back("made no allocation: the scenario is vacuous");
      for (const auto& p : problems) report += "\n  " + label + ": " + p;
      failures += static_cast<int>(problems.size());
    }
  }
  INFO("operations that are not atomic under allocation failure:" << report);
  CHECK(failures == 0);
}

// At one rank every ghost is an own periodic image: ghost_get writes them straight into the
// ghost rows and ghost_put reduces them from there, with no message buffer, whatever the
// properties. (With other ranks the message buffers grow for more properties: the dist and
// collective tests run that.)
TEST_CASE("ghost_get and ghost_put of own periodic images allocate nothing",
          "[hardening][atomicity]") {
  for (pvec_backend backend : capi::test_backends()) {
    INFO("backend " << backend_name(backend));
    Setup warm_plan;
    warm_plan.ghosts = true;
    warm_plan.first_ghost_props = {0};  // plan from a ghost_get of one property
    capi::Vector v = make(warm_plan, backend);
    int64_t ghosts = 0;
    REQUIRE(pvec_vector_get_ghost_size(v.get(), &ghosts) == PVEC_SUCCESS);
    REQUIRE(ghosts > 0);
    pvec_memory_stats before;
    before.struct_size = sizeof before;
    REQUIRE(pvec_memory_get_stats(&before) == PVEC_SUCCESS);
    // All properties, where the plan's ghost_get fetched one: own images are reduced in place,
    // so no message buffer grows.
    CHECK(pvec_ghost_put(v.get(), nullptr, 0, PVEC_REDUCE_REPLACE, 0) == PVEC_SUCCESS);
    // A new plan for all properties: the kernels take their column table by value, so nothing
    // per call grows with the number of properties.
    CHECK(pvec_ghost_get(v.get(), nullptr, 0, 0) == PVEC_SUCCESS);
    pvec_memory_stats after;
    after.struct_size = sizeof after;
    REQUIRE(pvec_memory_get_stats(&after) == PVEC_SUCCESS);
    CHECK(after.host_allocs == before.host_allocs);
    CHECK(after.pinned_allocs == before.pinned_allocs);
    CHECK(after.device_allocs == before.device_allocs);
  }
}

TEST_CASE("a failed vector_create leaves nothing behind", "[hardening][atomicity]") {
  using pvec::impl::inject_allocation_failure;
  for (pvec_backend backend : capi::test_backends()) {
    capi::Schema schema;
    capi::add_props(schema.get(), capi::mixed_props());
    pvec_vector_desc d = capi::make_desc(300, 3, PVEC_FLOAT64, backend);
    int64_t k = 0;
    bool succeeded = false;
    for (; k < 100 && !succeeded; ++k) {
      INFO("backend " << backend_name(backend) << ", allocation #" << k << " fails");
      const int64_t bytes0 = live_bytes();
      pvec_vector_t out = reinterpret_cast<pvec_vector_t>(uintptr_t{0x5a5a});
      inject_allocation_failure(k);
      const pvec_status s = pvec_vector_create(&d, schema.get(), &out);
      inject_allocation_failure(-1);
      if (s == PVEC_SUCCESS) {
        succeeded = true;
        PVEC_REQUIRE_OK(pvec_vector_destroy(out));
        break;
      }
      CHECK(s == PVEC_ERROR_OUT_OF_MEMORY);
      CHECK(std::string(pvec_last_error()).size() > 0);
      CHECK(out == reinterpret_cast<pvec_vector_t>(uintptr_t{0x5a5a}));  // not written
      CHECK(live_bytes() == bytes0);
    }
    CHECK(succeeded);
    CHECK(k > 0);
  }
}
