// The split-phase ghost exchange (pvec_ghost_get_begin / _end, pvec_ghost_put_begin / _end) at
// 1-4 ranks on the host and the device path: bitwise the blocking calls' result (new plan,
// replayed plan, positions left out, property subsets, every reduction), with the caller
// writing local rows between begin and end (the ghosts carry the values of begin), another
// vector exchanging meanwhile, every call that must wait refused with STATE and nothing changed,
// and a vector destroyed in flight. Registered also with shared memory and CUDA IPC off
// (MPI messages, staged on the device).
#include "dist_util.hpp"

#include <string>
#include <vector>

using namespace dist;

namespace {

// Two vectors with the same particles (the same seed), one for the blocking calls and one
// for the split ones.
struct Twins {
  Props p;
  pvec_vector_t a = nullptr, b = nullptr;
  explicit Twins(const Setup& s) {
    a = make_mapped(s, &p);
    b = make_mapped(s, &p);
  }
  ~Twins() {
    pvec_vector_destroy(a);
    pvec_vector_destroy(b);
  }
  Twins(const Twins&) = delete;
  Twins& operator=(const Twins&) = delete;
};

// The host mirror of every row of both vectors, after a copy from the device on that path.
void require_same(const Twins& t, Path path, const char* what) {
  INFO(what);
  if (path == Path::device) {
    DIST_OK(pvec_vector_sync(t.a, nullptr, 0, 0));
    DIST_OK(pvec_vector_sync(t.b, nullptr, 0, 0));
  }
  DIST_REQUIRE(n_local(t.a) == n_local(t.b));
  DIST_REQUIRE(n_ghost(t.a) == n_ghost(t.b));
  const Snapshot sa = snapshot(t.a), sb = snapshot(t.b);
  const std::string diff = compare_rows(sa, sb, n_local(t.a) + n_ghost(t.a));
  Failures f;
  if (!diff.empty()) f.add(std::string(what) + ": split and blocking differ: " + diff);
  f.require(what);
}

// New local values of every property but the id (the caller's kernel between begin and end),
// declared.
void write_local(pvec_vector_t v, const Props& p, uint64_t salt) {
  fill_values(v, p, 0, n_local(v), salt);
  DIST_OK(pvec_vector_mark_modified(v, p.values.data(), static_cast<int>(p.values.size()),
                                    PVEC_ROWS_LOCAL));
}

}  // namespace

TEST_CASE("ghost_get_begin/end: bitwise ghost_get, local rows free in between") {
  for (const Path path : {Path::host, Path::device})
    for (int dim : {2, 3})
      for (int periodic : {0, 1}) {
        Setup s;
        s.dim = dim;
        s.periodic[0] = s.periodic[1] = s.periodic[2] = periodic;
        s.pos = dim == 2 ? PVEC_FLOAT32 : PVEC_FLOAT64;
        s.n_per_rank = 300;
        s.seed = 7 + dim;
        CAPTURE(name_of(path), dim, periodic);
        Twins t(s);
        const unsigned on = flag_of(path);
        if (path == Path::device) {
          DIST_OK(pvec_host_to_device(t.a, nullptr, 0));
          DIST_OK(pvec_host_to_device(t.b, nullptr, 0));
        }
        // A new plan, every property.
        DIST_OK(pvec_ghost_get(t.a, nullptr, 0, on));
        const int64_t ghosts_before = n_ghost(t.b);
        DIST_OK(pvec_ghost_get_begin(t.b, nullptr, 0, on));
        DIST_REQUIRE(n_ghost(t.b) == ghosts_before);  // the count of the end
        if (path == Path::host) {                     // local rows are free meanwhile
          write_local(t.a, t.p, 99);
          write_local(t.b, t.p, 99);
        }
        DIST_OK(pvec_ghost_get_end(t.b));
        DIST_REQUIRE(sum(n_ghost(t.b)) > 0 || (size() == 1 && !periodic));  // something moved
        require_same(t, path, "new plan");
        // The plan replayed with a subset; then with the positions left out.
        const int sub[3] = {t.p.f64, t.p.v3, t.p.i32};
        if (path == Path::device) {
          DIST_OK(pvec_host_to_device(t.a, nullptr, 0));
          DIST_OK(pvec_host_to_device(t.b, nullptr, 0));
        } else {
          write_local(t.a, t.p, 5);
          write_local(t.b, t.p, 5);
        }
        DIST_OK(pvec_ghost_get(t.a, sub, 3, on | PVEC_GHOST_REUSE_PLAN));
        DIST_OK(pvec_ghost_get_begin(t.b, sub, 3, on | PVEC_GHOST_REUSE_PLAN));
        DIST_OK(pvec_ghost_get_end(t.b));
        require_same(t, path, "replayed plan");
        const unsigned skip = on | PVEC_GHOST_REUSE_PLAN | PVEC_GHOST_SKIP_POSITIONS;
        DIST_OK(pvec_ghost_get(t.a, sub, 2, skip));
        DIST_OK(pvec_ghost_get_begin(t.b, sub, 2, skip));
        DIST_OK(pvec_ghost_get_end(t.b));
        require_same(t, path, "positions left out");
        const pvec_op_stats st = op_stats(t.b);
        DIST_REQUIRE(st.transport == expected_transport(t.b, path) ||
                     (expected_transport(t.b, path) == PVEC_TRANSPORT_MPI_STAGED &&
                      st.transport == PVEC_TRANSPORT_MPI));
      }
}

TEST_CASE("ghost_put_begin/end: bitwise ghost_put for every reduction") {
  for (const Path path : {Path::host, Path::device})
    for (const pvec_reduce_op op :
         {PVEC_REDUCE_ADD, PVEC_REDUCE_MIN, PVEC_REDUCE_MAX, PVEC_REDUCE_REPLACE}) {
      // On the device, ADD of floats and REPLACE of several copies combine in the order of
      // atomics: bitwise only for integers (ADD) and for MIN and MAX.
      if (path == Path::device && op == PVEC_REDUCE_REPLACE) continue;
      Setup s;
      s.periodic[0] = s.periodic[1] = s.periodic[2] = 1;
      s.n_per_rank = 250;
      s.seed = 31;
      CAPTURE(name_of(path), static_cast<int>(op));
      Twins t(s);
      const unsigned on = flag_of(path);
      for (pvec_vector_t v : {t.a, t.b}) {
        if (path == Path::device) DIST_OK(pvec_host_to_device(v, nullptr, 0));
        DIST_OK(pvec_ghost_get(v, nullptr, 0, on));
        if (path == Path::device) DIST_OK(pvec_device_to_host(v, nullptr, 0));
        // Contributions in the ghost rows, the same in both.
        fill_values(v, t.p, n_local(v), n_local(v) + n_ghost(v), 1234);
        DIST_OK(pvec_vector_mark_modified(v, t.p.values.data(), static_cast<int>(t.p.values.size()),
                                          PVEC_ROWS_GHOST));
        if (path == Path::device) DIST_OK(pvec_host_to_device(v, nullptr, 0));
      }
      std::vector<int> props;
      if (path == Path::device && op == PVEC_REDUCE_ADD)
        props = {t.p.i32, t.p.u32, t.p.u64, t.p.vi3};
      else
        props = t.p.values;
      const int np = static_cast<int>(props.size());
      DIST_OK(pvec_ghost_put(t.a, props.data(), np, op, on));
      DIST_OK(pvec_ghost_put_begin(t.b, props.data(), np, op, on));
      // Another vector exchanges meanwhile: the two flights do not mix.
      {
        Props q;
        pvec_vector_t other = make_mapped(s, &q);
        DIST_OK(pvec_ghost_get(other, nullptr, 0, 0));
        DIST_REQUIRE(sum(n_ghost(other)) > 0);
        pvec_vector_destroy(other);
      }
      DIST_OK(pvec_ghost_put_end(t.b));
      require_same(t, path, "ghost_put");
    }
}

TEST_CASE("split phase: calls that must wait are refused and change nothing") {
  Setup s;
  s.periodic[0] = 1;
  s.n_per_rank = 120;
  Props p;
  pvec_vector_t v = make_mapped(s, &p);
  DIST_OK(pvec_ghost_get(v, nullptr, 0, 0));
  for (const bool get : {true, false}) {
    CAPTURE(get);
    if (get)
      DIST_OK(pvec_ghost_get_begin(v, nullptr, 0, PVEC_GHOST_REUSE_PLAN));
    else
      DIST_OK(pvec_ghost_put_begin(v, nullptr, 0, PVEC_REDUCE_MAX, 0));
    const int64_t n = n_local(v);
    const uint64_t gen = generation(v);
    const Snapshot before = snapshot(v);
    auto refused = [&](pvec_status st, const char* what) {
      INFO(what);
      DIST_REQUIRE(st == PVEC_ERROR_STATE);
      DIST_REQUIRE(std::string(pvec_last_error()).find("in flight") != std::string::npos);
      DIST_REQUIRE(n_local(v) == n && generation(v) == gen);
      DIST_REQUIRE(compare_rows(before, snapshot(v), n).empty());
    };
    int64_t k = 0;
    int moved = 0;
    refused(pvec_map(v, 0, nullptr), "map");
    refused(pvec_ghost_get(v, nullptr, 0, 0), "ghost_get");
    refused(pvec_ghost_get_begin(v, nullptr, 0, 0), "ghost_get_begin");
    refused(pvec_ghost_put(v, nullptr, 0, PVEC_REDUCE_ADD, 0), "ghost_put");
    refused(pvec_ghost_put_begin(v, nullptr, 0, PVEC_REDUCE_ADD, 0), "ghost_put_begin");
    refused(pvec_vector_sort(v, 0.1, 0, &moved), "sort");
    refused(pvec_vector_append(v, 3, &k), "append");
    refused(pvec_vector_resize(v, 1), "resize");
    refused(pvec_vector_reserve(v, 100000), "reserve");
    refused(pvec_vector_shrink_to_fit(v), "shrink_to_fit");
    const int64_t first[1] = {0};
    refused(pvec_vector_remove(v, first, 1), "remove");
    refused(pvec_vector_remove_marked(v, p.i32, nullptr, 0, &k), "remove_marked");
    pvec_spawner sp = PVEC_SPAWNER_INIT;
    refused(pvec_vector_spawn_begin(v, 4, 0, &sp), "spawn_begin");
    refused(pvec_host_to_device(v, nullptr, 0), "host_to_device");
    refused(pvec_device_to_host(v, nullptr, 0), "device_to_host");
    refused(pvec_vector_sync(v, nullptr, 0, PVEC_ON_DEVICE), "sync");
    refused(pvec_vector_rebalance(v, PVEC_NO_WEIGHT, 1.0, 0, nullptr, nullptr), "rebalance");
    pvec_cell_list_t cl = nullptr;
    refused(pvec_cell_list_create(v, 0.05, 1, 0, &cl), "cell list");
    DIST_REQUIRE(cl == nullptr);
    // The other end is refused too; queries and reductions work.
    refused(get ? pvec_ghost_put_end(v) : pvec_ghost_get_end(v), "the other end");
    int64_t size = -1;
    DIST_OK(pvec_vector_get_size(v, &size));
    DIST_REQUIRE(size == n);
    double total = 0;
    DIST_OK(pvec_vector_reduce(v, p.f64, PVEC_REDUCE_ADD, 0, &total));
    DIST_OK(get ? pvec_ghost_get_end(v) : pvec_ghost_put_end(v));
    // Nothing in flight now: a second end is refused; everything works again.
    DIST_REQUIRE(pvec_ghost_get_end(v) == PVEC_ERROR_STATE);
    DIST_REQUIRE(pvec_ghost_put_end(v) == PVEC_ERROR_STATE);
    DIST_OK(pvec_ghost_get(v, nullptr, 0, PVEC_GHOST_REUSE_PLAN));
  }
  // Bad arguments to begin are refused before anything is in flight.
  DIST_REQUIRE(pvec_ghost_get_begin(v, nullptr, 0, 1u << 30) == PVEC_ERROR_INVALID_ARGUMENT);
  DIST_REQUIRE(pvec_ghost_put_begin(v, nullptr, 0, static_cast<pvec_reduce_op>(42), 0) ==
               PVEC_ERROR_INVALID_ARGUMENT);
  const int bad[1] = {99};
  DIST_REQUIRE(pvec_ghost_get_begin(v, bad, 1, 0) == PVEC_ERROR_OUT_OF_RANGE);
  DIST_REQUIRE(pvec_ghost_get_end(v) == PVEC_ERROR_STATE);
  DIST_REQUIRE(pvec_ghost_get_begin(nullptr, nullptr, 0, 0) == PVEC_ERROR_INVALID_HANDLE);
  DIST_REQUIRE(pvec_ghost_get_end(nullptr) == PVEC_ERROR_INVALID_HANDLE);
  DIST_REQUIRE(pvec_ghost_put_end(nullptr) == PVEC_ERROR_INVALID_HANDLE);
  pvec_vector_destroy(v);
}

TEST_CASE("split phase: a vector destroyed in flight completes the exchange first") {
  Setup s;
  s.n_per_rank = 200;
  Props p;
  pvec_vector_t v = make_mapped(s, &p);
  DIST_OK(pvec_ghost_get_begin(v, nullptr, 0, 0));
  DIST_OK(pvec_vector_destroy(v));
  // The communicator is clean: the next vector exchanges as usual.
  pvec_vector_t w = make_mapped(s, &p);
  DIST_OK(pvec_ghost_get(w, nullptr, 0, 0));
  DIST_OK(pvec_ghost_put_begin(w, nullptr, 0, PVEC_REDUCE_ADD, 0));
  DIST_OK(pvec_vector_destroy(w));
  pvec_memory_stats ms = PVEC_MEMORY_STATS_INIT;
  DIST_OK(pvec_memory_get_stats(&ms));
  DIST_REQUIRE(ms.host_bytes == 0 && ms.device_bytes == 0);
}
