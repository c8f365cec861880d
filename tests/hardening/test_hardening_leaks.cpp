// Leak check by pvec's own accounting: cycles of create / grow / remove / transfer / map /
// ghost_get / ghost_put / destroy must bring the live host, pinned and device bytes back to
// their values before the cycle, on every rank. Runs at 1-3 ranks; under the sanitizer build
// LeakSanitizer checks the same from the outside.
#include "catch_compat.hpp"
#include "test_support.hpp"

#include <pvec.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace {

pvec_memory_stats stats() {
  pvec_memory_stats m{};
  m.struct_size = sizeof m;
  REQUIRE(pvec_memory_get_stats(&m) == PVEC_SUCCESS);
  return m;
}

std::string show(const pvec_memory_stats& m) {
  std::ostringstream s;
  s << "host " << m.host_bytes << " pinned " << m.pinned_bytes << " device " << m.device_bytes
    << " (allocs " << m.host_allocs << "/" << m.pinned_allocs << "/" << m.device_allocs << ")";
  return s.str();
}

// Deterministic positions in [0,1) that differ per rank and cycle.
double rnd(uint64_t& s) {
  s = s * 6364136223846793005ull + 1442695040888963407ull;
  return static_cast<double>(s >> 11) / 9007199254740992.0;
}

// Collects local failures without stopping: a REQUIRE on one rank would leave the others
// waiting in the next collective call.
struct Log {
  std::vector<std::string> errors;
  void ok(pvec_status s, const char* what) {
    if (s != PVEC_SUCCESS) errors.push_back(std::string(what) + ": " + pvec_last_error());
  }
};

// One full life of a vector. Collective calls are made by every rank in the same order.
void one_cycle(int cycle, Log& log) {
  const int rank = pvec_test::world_rank();
  pvec_schema_t s = nullptr;
  log.ok(pvec_schema_create(&s), "schema_create");
  log.ok(pvec_schema_add_scalar(s, "mass", cycle % 2 ? PVEC_FLOAT32 : PVEC_FLOAT64, nullptr),
         "add mass");
  log.ok(pvec_schema_add_vector(s, "vel", PVEC_FLOAT64, 3, nullptr), "add vel");
  log.ok(pvec_schema_add_tensor(s, "t", PVEC_INT32, 2, 3, nullptr), "add t");
  pvec_vector_desc d = PVEC_VECTOR_DESC_INIT;
  d.dim = 2 + cycle % 2;
  d.pos_dtype = cycle % 3 == 0 ? PVEC_FLOAT32 : PVEC_FLOAT64;
  d.boundary[0] = PVEC_PERIODIC;
  d.boundary[1] = cycle % 2 ? PVEC_PERIODIC : PVEC_NON_PERIODIC;
  d.ghost_width = 0.1;
  d.n_particles = 100 + 37 * cycle;
  d.host_memory = cycle % 2 ? PVEC_HOST_PAGEABLE : PVEC_HOST_PINNED;
  pvec_vector_t v = nullptr;
  log.ok(pvec_vector_create(&d, s, &v), "vector_create");
  log.ok(pvec_schema_destroy(s), "schema_destroy");  // the vector keeps its own copy

  // Grow one by one (geometric), then in bulk, then exactly.
  for (int k = 0; k < 200; ++k) log.ok(pvec_vector_append(v, 1, nullptr), "append 1");
  log.ok(pvec_vector_append(v, 1000 + 13 * cycle, nullptr), "append bulk");
  log.ok(pvec_vector_reserve(v, 5000), "reserve");
  log.ok(pvec_vector_resize(v, 1500), "resize");
  std::vector<int64_t> gone;
  for (int64_t i = 0; i < 1500; i += 3) gone.push_back(i);
  log.ok(pvec_vector_remove(v, gone.data(), static_cast<int64_t>(gone.size())), "remove");
  log.ok(pvec_vector_shrink_to_fit(v), "shrink_to_fit");

  // Positions anywhere in the box: map moves most of them to other ranks.
  int64_t n = 0, cap = 0;
  log.ok(pvec_vector_get_size(v, &n), "size");
  log.ok(pvec_vector_get_capacity(v, &cap), "capacity");
  uint64_t seed = 12345 + 1000003ull * static_cast<uint64_t>(rank) + 7919ull * cycle;
  pvec_layout pos = PVEC_LAYOUT_INIT;
  log.ok(pvec_vector_get_layout(v, PVEC_POS, &pos), "layout pos");
  for (int64_t i = 0; i < n && pos.host_ptr; ++i)
    for (int k = 0; k < d.dim; ++k) {
      const double x = rnd(seed);
      if (pos.dtype == PVEC_FLOAT32)
        static_cast<float*>(pos.host_ptr)[k * cap + i] = static_cast<float>(x);
      else
        static_cast<double*>(pos.host_ptr)[k * cap + i] = x;
    }
  log.ok(pvec_host_to_device(v, nullptr, 0), "host_to_device");
  for (unsigned side : {0u, unsigned{PVEC_ON_DEVICE}}) {
    // The side that runs must hold the current particles (after the host side's map the
    // device mirror is stale, and REDUCE_ADD of stale integers could overflow).
    if (side) log.ok(pvec_host_to_device(v, nullptr, 0), "host_to_device");
    log.ok(pvec_map(v, side, nullptr), "map");
    log.ok(pvec_ghost_get(v, nullptr, 0, side), "ghost_get");
    log.ok(pvec_ghost_put(v, nullptr, 0, PVEC_REDUCE_ADD, side), "ghost_put");
    log.ok(pvec_ghost_get(v, nullptr, 0, side | PVEC_GHOST_REUSE_PLAN), "ghost_get reuse");
    const int one[1] = {0};
    log.ok(pvec_ghost_get(v, one, 1, side | PVEC_GHOST_REUSE_PLAN | PVEC_GHOST_SKIP_POSITIONS),
           "ghost_get skip positions");
  }
  log.ok(pvec_device_to_host(v, nullptr, 0), "device_to_host");
  // Failed calls must not leak either.
  const int64_t bad_idx[2] = {0, 0};
  if (pvec_vector_remove(v, bad_idx, 2) == PVEC_SUCCESS)
    log.errors.push_back("duplicate remove passed");
  if (pvec_vector_reserve(v, int64_t{1} << 52) == PVEC_SUCCESS)
    log.errors.push_back("reserve of 2^52 passed");
  log.ok(pvec_vector_destroy(v), "vector_destroy");
}

}  // namespace

extern "C" const char* __asan_default_options() { return "allocator_may_return_null=1"; }

TEST_CASE("create/grow/map/ghost/destroy cycles return every byte", "[hardening][leaks]") {
  const pvec_memory_stats start = stats();
  std::vector<std::string> problems;
  int64_t prev_allocs = start.host_allocs + start.pinned_allocs + start.device_allocs;
  for (int cycle = 0; cycle < 6; ++cycle) {
    Log log;
    one_cycle(cycle, log);
    for (const auto& e : log.errors)
      problems.push_back("cycle " + std::to_string(cycle) + ": " + e);
    const pvec_memory_stats now = stats();
    if (now.host_bytes != start.host_bytes || now.pinned_bytes != start.pinned_bytes ||
        now.device_bytes != start.device_bytes)
      problems.push_back("after cycle " + std::to_string(cycle) + ": " + show(now) +
                         ", at start: " + show(start));
    const int64_t allocs = now.host_allocs + now.pinned_allocs + now.device_allocs;
    if (allocs <= prev_allocs)
      problems.push_back("cycle " + std::to_string(cycle) + " allocated nothing: " + show(now));
    prev_allocs = allocs;
  }
  std::string report;
  for (const auto& p : problems) report += "\n  " + p;
  // Agree over the ranks, so that every rank reports the same outcome.
  const int bad = pvec_test::all_ranks_max(problems.empty() ? 0 : 1);
  INFO("rank " << pvec_test::world_rank() << ":" << report);
  CHECK(problems.empty());
  CHECK(bad == 0);
}

TEST_CASE("a failed create leaks nothing", "[hardening][leaks]") {
  const pvec_memory_stats start = stats();
  pvec_schema_t s = nullptr;
  REQUIRE(pvec_schema_create(&s) == PVEC_SUCCESS);
  // 2^25 float64 components: 2^48 bytes for 2^20 particles, beyond any address space.
  REQUIRE(pvec_schema_add_vector(s, "big", PVEC_FLOAT64, int64_t{1} << 25, nullptr) ==
          PVEC_SUCCESS);
  pvec_vector_desc d = PVEC_VECTOR_DESC_INIT;
  // The positions (24 MiB per mirror) are allocated, then the property fails: what was
  // allocated must be given back.
  d.n_particles = int64_t{1} << 20;
  d.placement = PVEC_PLACE_LOCAL;
  d.backend = PVEC_BACKEND_HOST;
  pvec_vector_t v = nullptr;
  const pvec_status st = pvec_vector_create(&d, s, &v);
  pvec_schema_destroy(s);
  const int any_ok = pvec_test::all_ranks_max(st == PVEC_SUCCESS ? 1 : 0);
  if (st == PVEC_SUCCESS) pvec_vector_destroy(v);
  CHECK(any_ok == 0);
  CHECK(st == PVEC_ERROR_OUT_OF_MEMORY);
  const pvec_memory_stats now = stats();
  INFO("now " << show(now) << ", at start " << show(start));
  CHECK(now.host_bytes == start.host_bytes);
  CHECK(now.pinned_bytes == start.pinned_bytes);
  CHECK(now.device_bytes == start.device_bytes);
}
