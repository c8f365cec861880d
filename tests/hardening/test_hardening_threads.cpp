// Thread safety as documented: distinct handles may be used concurrently from different
// threads. Several threads each drive their own vector (and their own schemas) through
// growth, removal, transfers, layout queries and failing calls, checking their values and
// their per-thread last error. Built with MPI, vectors are created and destroyed on the main
// thread (MPI_THREAD_FUNNELED); without MPI the threads also create, map, ghost_get,
// ghost_put and destroy. The sanitizer script runs it under ThreadSanitizer.
#include "catch_compat.hpp"

#include <pvec.h>

#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr int kThreads = 4;
constexpr int kRounds = 25;

// The thread-private checks: failures are collected as text (Catch assertions are not
// thread-safe) and reported by the main thread.
struct Worker {
  int id;
  pvec_vector_t given = nullptr;  // created by the main thread (MPI builds)
  std::vector<std::string> errors;

  void fail(const std::string& what) { errors.push_back(what); }
  void ok(pvec_status s, const char* what) {
    if (s != PVEC_SUCCESS)
      fail(std::string(what) + " -> " + pvec_status_string(s) + ": " + pvec_last_error());
  }

  pvec_vector_t create() {
    pvec_schema_t s = nullptr;
    ok(pvec_schema_create(&s), "schema_create");
    ok(pvec_schema_add_scalar(s, "id", PVEC_INT64, nullptr), "add id");
    ok(pvec_schema_add_vector(s, "f", PVEC_FLOAT32, 3, nullptr), "add f");
    pvec_vector_desc d = PVEC_VECTOR_DESC_INIT;
    d.boundary[0] = PVEC_PERIODIC;
    d.ghost_width = 0.1;
    d.placement = PVEC_PLACE_LOCAL;
    d.backend = PVEC_BACKEND_HOST;
    pvec_vector_t v = nullptr;
    ok(pvec_vector_create(&d, s, &v), "vector_create");
    ok(pvec_schema_destroy(s), "schema_destroy");
    return v;
  }

  // Checks that the local ids of v are `ids`, in order, on both mirrors.
  void check_ids(pvec_vector_t v, const std::vector<int64_t>& ids, const char* when) {
    int64_t n = -1, cap = -1;
    ok(pvec_vector_get_size(v, &n), "size");
    ok(pvec_vector_get_capacity(v, &cap), "capacity");
    if (n != static_cast<int64_t>(ids.size())) {
      fail(std::string(when) + ": size " + std::to_string(n) + ", want " +
           std::to_string(ids.size()));
      return;
    }
    if (cap < 64 || cap % 64 != 0 || cap < n) fail(std::string(when) + ": bad capacity");
    const auto* h = static_cast<const int64_t*>(pvec_host_ptr(v, 0));
    const auto* dv = static_cast<const int64_t*>(pvec_device_ptr(v, 0));
    if (!h || !dv) {
      fail(std::string(when) + ": NULL pointer");
      return;
    }
    for (int64_t i = 0; i < n; ++i)
      if (h[i] != ids[i] || dv[i] != ids[i]) {
        fail(std::string(when) + ": particle " + std::to_string(i) + " has id " +
             std::to_string(h[i]) + "/" + std::to_string(dv[i]) + ", want " +
             std::to_string(ids[i]));
        return;
      }
  }

  // The last error belongs to this thread: errors of others never show here.
  void check_last_error() {
    int64_t n = 0;
    if (pvec_vector_get_size(nullptr, &n) != PVEC_ERROR_INVALID_HANDLE)
      fail("pvec_vector_get_size(NULL) accepted");
    const std::string mine = pvec_last_error();
    std::this_thread::yield();
    if (mine.rfind("pvec_vector_get_size", 0) != 0 || std::string(pvec_last_error()) != mine)
      fail("last error not this thread's: " + std::string(pvec_last_error()));
    int flag = 0;
    ok(pvec_initialized(&flag), "initialized");
    if (*pvec_last_error() != '\0') fail("last error not cleared by a successful call");
  }

  void round(pvec_vector_t v, int r) {
    std::vector<int64_t> ids;
    ok(pvec_vector_resize(v, 0), "resize 0");
    int64_t next = (static_cast<int64_t>(id) << 32) + (static_cast<int64_t>(r) << 20);
    // One by one (geometric growth), each new id written on the host and copied over.
    for (int k = 0; k < 150 + 17 * id; ++k) {
      int64_t first = -1;
      ok(pvec_vector_append(v, 1, &first), "append");
      auto* h = static_cast<int64_t*>(pvec_host_ptr(v, 0));
      if (!h || first != static_cast<int64_t>(ids.size())) {
        fail("append gave first " + std::to_string(first));
        return;
      }
      h[first] = next;
      ids.push_back(next++);
    }
    const int one[1] = {0};
    ok(pvec_host_to_device(v, one, 1), "host_to_device");
    check_ids(v, ids, "after appends");
    // Remove every fourth particle.
    std::vector<int64_t> gone;
    std::vector<int64_t> kept;
    for (int64_t i = 0; i < static_cast<int64_t>(ids.size()); ++i)
      (i % 4 == 1 ? gone.push_back(i) : kept.push_back(ids[i]));
    ok(pvec_vector_remove(v, gone.data(), static_cast<int64_t>(gone.size())), "remove");
    ids = kept;
    check_ids(v, ids, "after remove");
    ok(pvec_vector_reserve(v, 4000 + 64 * id), "reserve");
    ok(pvec_vector_shrink_to_fit(v), "shrink_to_fit");
    check_ids(v, ids, "after reserve and shrink");
    pvec_layout l = PVEC_LAYOUT_INIT;
    ok(pvec_vector_get_layout(v, 1, &l), "layout_get");
    if (l.ncomp != 3 || l.stride_elems != l.capacity ||
        l.n_local != static_cast<int64_t>(ids.size()))
      fail("layout inconsistent");
    check_last_error();
    if (pvec_vector_reserve(v, -1) != PVEC_ERROR_INVALID_ARGUMENT) fail("reserve(-1) accepted");
    pvec_memory_stats m{};
    m.struct_size = sizeof m;
    ok(pvec_memory_get_stats(&m), "memory_stats_get");
  }

#ifndef PVEC_TEST_HAVE_MPI
  // Distribution calls on one rank: map keeps every particle, ghosts are periodic images.
  void distribute(pvec_vector_t v) {
    int64_t n = 0, cap = 0;
    ok(pvec_vector_get_size(v, &n), "size");
    ok(pvec_vector_get_capacity(v, &cap), "capacity");
    auto* pos = static_cast<double*>(pvec_host_ptr(v, PVEC_POS));
    if (!pos) return fail("NULL positions");
    for (int64_t i = 0; i < n; ++i)
      for (int d = 0; d < 3; ++d)
        pos[d * cap + i] = (d == 0 ? -0.5 : 0.0) + static_cast<double>((i * 37 + d * 11) % 97) / 97;
    int64_t removed = -1;
    ok(pvec_map(v, 0, &removed), "map");
    int64_t n2 = 0, ng = 0;
    ok(pvec_vector_get_size(v, &n2), "size");
    if (removed != 0 || n2 != n) fail("map lost particles");
    ok(pvec_ghost_get(v, nullptr, 0, 0), "ghost_get");
    ok(pvec_vector_get_ghost_size(v, &ng), "ghost_size");
    if (ng <= 0) fail("no periodic ghosts");
    ok(pvec_ghost_put(v, nullptr, 0, PVEC_REDUCE_MAX, 0), "ghost_put");
  }
#endif

  void run() {
    for (int r = 0; r < kRounds; ++r) {
      pvec_vector_t v = given;
#ifndef PVEC_TEST_HAVE_MPI
      v = create();
#endif
      if (!v) return fail("no vector");
      round(v, r);
#ifndef PVEC_TEST_HAVE_MPI
      distribute(v);
      ok(pvec_vector_destroy(v), "vector_destroy");
#endif
    }
  }
};

}  // namespace

TEST_CASE("distinct vectors used concurrently from several threads", "[hardening][threads]") {
  std::vector<Worker> workers(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    workers[t].id = t;
#ifdef PVEC_TEST_HAVE_MPI
    workers[t].given = workers[t].create();  // MPI calls stay on the main thread
#endif
  }
  std::vector<std::thread> threads;
  for (auto& w : workers) threads.emplace_back([&w] { w.run(); });
  for (auto& th : threads) th.join();
  int total = 0;
  std::string report;
  for (auto& w : workers) {
    for (const auto& e : w.errors) report += "\n  thread " + std::to_string(w.id) + ": " + e;
    total += static_cast<int>(w.errors.size());
    if (w.given && pvec_vector_destroy(w.given) != PVEC_SUCCESS) {
      report += "\n  destroying the vector of thread " + std::to_string(w.id) + " failed";
      ++total;
    }
  }
  INFO("failures:" << report);
  CHECK(total == 0);
}
