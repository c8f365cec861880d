// Particles removed by mark and created by kernels, at 1-4 ranks, on the host and the device
// path: removal keeps the survivors' order or fills the holes exactly as promised (against a
// reference), for a mark property of any dtype and a marks array; a spawn adds the slots claimed
// (a "kernel": host threads claiming with atomics, or on a CUDA build rows written to the
// device mirror and the counter set through the runtime), reports an overflow with the number
// asked and adds nothing; ids are unique over ranks; map and ghost_get right after; an
// inflow/outflow channel of 1,000 steps conserves what went in minus what went out; bad input
// changes nothing.
#include "dist_util.hpp"
#include "test_support.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <set>
#include <string>
#include <thread>
#include <vector>

using namespace dist;

namespace {

// Properties: 0 id (int64), 1 mark (int32), 2 weight (float64), 3 vel (float32[3]).
constexpr int kId = 0, kMark = 1, kWeight = 2, kVel = 3;

bool cuda_vector(pvec_vector_t v) {
  pvec_backend b = PVEC_BACKEND_HOST;
  REQUIRE(pvec_vector_get_backend(v, &b) == PVEC_SUCCESS);
  return b == PVEC_BACKEND_CUDA;
}

pvec_vector_t make(int64_t n_per_rank, int dim = 2) {
  pvec_schema_t s = nullptr;
  REQUIRE(pvec_schema_create(&s) == PVEC_SUCCESS);
  REQUIRE(pvec_schema_add_scalar(s, "id", PVEC_INT64, nullptr) == PVEC_SUCCESS);
  REQUIRE(pvec_schema_add_scalar(s, "mark", PVEC_INT32, nullptr) == PVEC_SUCCESS);
  REQUIRE(pvec_schema_add_scalar(s, "weight", PVEC_FLOAT64, nullptr) == PVEC_SUCCESS);
  REQUIRE(pvec_schema_add_vector(s, "vel", PVEC_FLOAT32, 3, nullptr) == PVEC_SUCCESS);
  pvec_vector_desc d = PVEC_VECTOR_DESC_INIT;
  d.dim = dim;
  d.ghost_width = 0.1;
  d.n_particles = n_per_rank;
  d.placement = PVEC_PLACE_LOCAL;
  pvec_vector_t v = nullptr;
  DIST_OK(pvec_vector_create(&d, s, &v));
  pvec_schema_destroy(s);
  return v;
}

// Fills the host mirror: random positions in this rank's box, id k, mark(k), weight 0.5 k,
// vel (k, -k, 2k); then copies it to the device mirror.
template <class Mark>
void fill(pvec_vector_t v, Mark mark, uint64_t seed) {
  double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  DIST_OK(pvec_vector_get_subdomain(v, lo, hi));
  const Column pos = column(v, PVEC_POS), id = column(v, kId), mk = column(v, kMark),
               w = column(v, kWeight), vel = column(v, kVel);
  Rng rng(seed + static_cast<uint64_t>(rank()) * 7919);
  const int64_t base = exscan(n_local(v));
  for (int64_t i = 0; i < n_local(v); ++i) {
    for (int d = 0; d < dim_of(v); ++d) set_pos(pos, i, d, rng.uniform(lo[d], hi[d]));
    const int64_t k = base + i;
    reinterpret_cast<int64_t*>(id.base)[i] = k;
    reinterpret_cast<int32_t*>(mk.base)[i] = mark(k) ? 1 : 0;
    reinterpret_cast<double*>(w.base)[i] = 0.5 * static_cast<double>(k);
    for (int c = 0; c < 3; ++c)
      reinterpret_cast<float*>(vel.at(i, c))[0] = static_cast<float>((c == 1 ? -1 : c + 1) * k);
  }
  DIST_OK(pvec_host_to_device(v, nullptr, 0));
}

std::vector<int64_t> ids_on_host(pvec_vector_t v) {
  const Column id = column(v, kId);
  const int64_t* p = reinterpret_cast<const int64_t*>(id.base);
  return std::vector<int64_t>(p, p + n_local(v));
}

// Every property of row i agrees with its id (what fill wrote); failures named.
void check_rows(pvec_vector_t v, Failures& f) {
  const Column id = column(v, kId), w = column(v, kWeight), vel = column(v, kVel);
  for (int64_t i = 0; i < n_local(v); ++i) {
    const int64_t k = reinterpret_cast<const int64_t*>(id.base)[i];
    if (reinterpret_cast<const double*>(w.base)[i] != 0.5 * static_cast<double>(k))
      f.addf("row ", i, " (id ", k, "): weight does not follow its particle");
    for (int c = 0; c < 3; ++c)
      if (reinterpret_cast<const float*>(vel.at(i, c))[0] !=
          static_cast<float>((c == 1 ? -1 : c + 1) * k))
        f.addf("row ", i, " (id ", k, "): vel ", c, " does not follow its particle");
  }
}

// The order remove_marked promises: keep order, or the holes filled by the last survivors.
std::vector<int64_t> expected_order(const std::vector<int64_t>& ids,
                                    const std::vector<char>& marked, bool fill_holes) {
  const int64_t n = static_cast<int64_t>(ids.size());
  int64_t r = 0;
  for (char m : marked) r += m ? 1 : 0;
  std::vector<int64_t> out;
  if (!fill_holes) {
    for (int64_t i = 0; i < n; ++i)
      if (!marked[size_t(i)]) out.push_back(ids[size_t(i)]);
    return out;
  }
  out.assign(ids.begin(), ids.begin() + (n - r));
  std::vector<int64_t> tail;
  for (int64_t i = n - r; i < n; ++i)
    if (!marked[size_t(i)]) tail.push_back(ids[size_t(i)]);
  size_t t = 0;
  for (int64_t i = 0; i < n - r; ++i)
    if (marked[size_t(i)]) out[size_t(i)] = tail[t++];
  return out;
}

// Copies the device mirror to the host when the path ran on the device.
void to_host(pvec_vector_t v, Path p) {
  if (p == Path::device) DIST_OK(pvec_device_to_host(v, nullptr, 0));
}

}  // namespace

TEST_CASE("remove_marked: order kept or holes filled, any mark, both paths") {
  for (const Path p : {Path::host, Path::device})
    for (const bool fill_holes : {false, true})
      for (const int source : {0, 1, 2}) {  // int32 property, float64 property, marks array
        INFO(name_of(p) << " path, " << (fill_holes ? "fill holes" : "keep order") << ", source "
                        << source);
        pvec_vector_t v = make(200 + 37 * rank());
        // Marks: every 3rd id, a run at the start and one at the end of each rank.
        auto mark = [](int64_t k) { return k % 3 == 1 || k % 200 < 5 || k % 200 > 190; };
        fill(v, mark, 11);
        const std::vector<int64_t> ids = ids_on_host(v);
        std::vector<char> marked(ids.size());
        for (size_t i = 0; i < ids.size(); ++i) marked[i] = mark(ids[i]) ? 1 : 0;
        const std::vector<int64_t> want = expected_order(ids, marked, fill_holes);
        const unsigned flags = flag_of(p) | (fill_holes ? PVEC_REMOVE_FILL_HOLES : 0u);
        int64_t removed = -1;
        const uint64_t gen = generation(v);
        if (source == 2) {
          // The marks array lives in the memory of the mirror the call runs on.
          std::vector<int32_t> host_marks(marked.begin(), marked.end());
          const int32_t* marks = host_marks.data();
#if defined(PVEC_TEST_CUDA)
          int32_t* dev = nullptr;
          if (p == Path::device && cuda_vector(v)) {
            REQUIRE(cudaMalloc(reinterpret_cast<void**>(&dev), host_marks.size() * 4 + 4) ==
                    cudaSuccess);
            REQUIRE(cudaMemcpy(dev, host_marks.data(), host_marks.size() * 4,
                               cudaMemcpyHostToDevice) == cudaSuccess);
            marks = dev;
          }
#endif
          DIST_OK(pvec_vector_remove_marked(v, PVEC_NO_PROPERTY, marks, flags, &removed));
#if defined(PVEC_TEST_CUDA)
          if (dev) cudaFree(dev);
#endif
        } else {
          if (source == 1) {  // the weight property as the mark: nonzero for the marked
            const Column w = column(v, kWeight);
            for (size_t i = 0; i < ids.size(); ++i)
              reinterpret_cast<double*>(w.base)[i] = marked[i] ? 1.0 + ids[i] : 0.0;
            DIST_OK(pvec_vector_mark_modified(v, nullptr, 0, 0));
            DIST_OK(pvec_host_to_device(v, nullptr, 0));
          }
          DIST_OK(pvec_vector_remove_marked(v, source == 1 ? kWeight : kMark, nullptr, flags,
                                            &removed));
        }
        DIST_REQUIRE(removed == static_cast<int64_t>(ids.size() - want.size()));
        DIST_REQUIRE(generation(v) > gen);
        DIST_REQUIRE(n_local(v) == static_cast<int64_t>(want.size()));
        // The other mirror is older now: reading it without a copy is refused.
        unsigned state = 0;
        DIST_OK(pvec_vector_get_mirror_state(v, kId, &state));
        const unsigned here = p == Path::device ? PVEC_MIRROR_DEVICE_LOCAL : PVEC_MIRROR_HOST_LOCAL;
        DIST_REQUIRE((state & 3u) == here || removed == 0);
        to_host(v, p);
        DIST_REQUIRE(ids_on_host(v) == want);
        Failures f;
        if (source != 1) check_rows(v, f);
        f.require("rows follow their particles");
        pvec_vector_destroy(v);
      }
}

TEST_CASE("remove_marked: bad input is refused and changes nothing") {
  pvec_vector_t v = make(50);
  fill(
      v, [](int64_t k) { return k % 2 == 0; }, 3);
  const Snapshot before = snapshot(v);
  const int32_t marks[1] = {1};
  int64_t removed = 77;
  auto refused = [&](pvec_status st, pvec_status want) {
    DIST_REQUIRE(st == want);
    DIST_REQUIRE(std::string(pvec_last_error()).size() > 0);
    DIST_REQUIRE(n_local(v) == 50);
    DIST_REQUIRE(compare_rows(before, snapshot(v), 50).empty());
  };
  refused(pvec_vector_remove_marked(v, kMark, marks, 0, &removed), PVEC_ERROR_INVALID_ARGUMENT);
  refused(pvec_vector_remove_marked(v, PVEC_NO_PROPERTY, nullptr, 0, &removed),
          PVEC_ERROR_INVALID_ARGUMENT);
  refused(pvec_vector_remove_marked(v, PVEC_POS, nullptr, 0, &removed),
          PVEC_ERROR_INVALID_ARGUMENT);
  refused(pvec_vector_remove_marked(v, kVel, nullptr, 0, &removed), PVEC_ERROR_INVALID_ARGUMENT);
  refused(pvec_vector_remove_marked(v, 9, nullptr, 0, &removed), PVEC_ERROR_OUT_OF_RANGE);
  refused(pvec_vector_remove_marked(v, kMark, nullptr, 1u << 30, &removed),
          PVEC_ERROR_INVALID_ARGUMENT);
  refused(pvec_vector_remove_marked_async(v, kMark, nullptr, 0, nullptr),
          PVEC_ERROR_INVALID_ARGUMENT);
  refused(pvec_vector_remove_marked(nullptr, kMark, nullptr, 0, &removed),
          PVEC_ERROR_INVALID_HANDLE);
  DIST_REQUIRE(removed == 77);
  pvec_vector_destroy(v);
}

TEST_CASE("remove_marked_async: the count lands where asked, the size follows") {
  pvec_vector_t v = make(300);
  fill(
      v, [](int64_t k) { return k % 4 == 0; }, 5);
  const std::vector<int64_t> ids = ids_on_host(v);
  int64_t want = 0;
  for (int64_t k : ids) want += k % 4 == 0 ? 1 : 0;
  int64_t* out = nullptr;
  int64_t host_out = -1;
  const bool gpu = cuda_vector(v);
#if defined(PVEC_TEST_CUDA)
  if (gpu) REQUIRE(cudaMalloc(reinterpret_cast<void**>(&out), sizeof(int64_t)) == cudaSuccess);
#endif
  if (!gpu) out = &host_out;
  DIST_OK(pvec_vector_remove_marked_async(v, kMark, nullptr, PVEC_ON_DEVICE, out));
  // Any later call takes the new size.
  DIST_REQUIRE(n_local(v) == static_cast<int64_t>(ids.size()) - want);
  int64_t got = host_out;
#if defined(PVEC_TEST_CUDA)
  if (gpu) {
    REQUIRE(cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost) == cudaSuccess);
    cudaFree(out);
  }
#endif
  DIST_REQUIRE(got == want);
  DIST_OK(pvec_device_to_host(v, nullptr, 0));
  bool none_marked = true;
  for (int64_t k : ids_on_host(v)) none_marked = none_marked && k % 4 != 0;
  DIST_REQUIRE(none_marked);
  pvec_vector_destroy(v);
}

namespace {
// A "kernel" that creates `asked` particles in the spawn: host threads claiming slots with
// atomics on the host mirror, or (device path of a CUDA vector) rows prepared on the host,
// copied to the device mirror, and the counter set, as a kernel would leave them.
void run_spawn_kernel(pvec_vector_t v, const pvec_spawner& sp, int64_t asked, bool device,
                      double x0) {
  const int dim = dim_of(v);
  pvec_layout lp = PVEC_LAYOUT_INIT, li = PVEC_LAYOUT_INIT;
  REQUIRE(pvec_vector_get_layout(v, PVEC_POS, &lp) == PVEC_SUCCESS);
  REQUIRE(pvec_vector_get_layout(v, kId, &li) == PVEC_SUCCESS);
  double lo[3], hi[3];
  REQUIRE(pvec_vector_get_subdomain(v, lo, hi) == PVEC_SUCCESS);
  auto write = [&](double* pos, int64_t* id, int64_t row, int64_t slot) {
    for (int d = 0; d < dim; ++d)
      pos[d * sp.capacity + row] = d == 0 ? x0 : lo[d] + (hi[d] - lo[d]) * 0.5;
    id[row] = sp.id_first + slot * sp.id_stride;
  };
#if defined(PVEC_TEST_CUDA)
  if (device && cuda_vector(v)) {  // a CUDA build without a device has host mirrors
    const int64_t k = std::min(asked, sp.limit);
    std::vector<double> pos(static_cast<size_t>(dim * sp.capacity));
    std::vector<int64_t> id(static_cast<size_t>(sp.capacity));
    for (int64_t s = 0; s < k; ++s) write(pos.data(), id.data(), sp.first + s, s);
    for (int d = 0; d < dim; ++d)
      REQUIRE(cudaMemcpy(static_cast<double*>(lp.device_ptr) + d * sp.capacity + sp.first,
                         pos.data() + d * sp.capacity + sp.first, 8 * k,
                         cudaMemcpyHostToDevice) == cudaSuccess);
    REQUIRE(cudaMemcpy(static_cast<int64_t*>(li.device_ptr) + sp.first, id.data() + sp.first, 8 * k,
                       cudaMemcpyHostToDevice) == cudaSuccess);
    const unsigned long long c = static_cast<unsigned long long>(asked);
    REQUIRE(cudaMemcpy(sp.counter, &c, sizeof c, cudaMemcpyHostToDevice) == cudaSuccess);
    return;
  }
#endif
  double* pos = static_cast<double*>(device ? lp.device_ptr : lp.host_ptr);
  int64_t* id = static_cast<int64_t*>(device ? li.device_ptr : li.host_ptr);
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t)
    threads.emplace_back([&, t] {
      for (int64_t j = t; j < asked; j += 3) {
        const unsigned long long s = __atomic_fetch_add(sp.counter, 1ull, __ATOMIC_RELAXED);
        if (static_cast<int64_t>(s) < sp.limit)
          write(pos, id, sp.first + static_cast<int64_t>(s), static_cast<int64_t>(s));
      }
    });
  for (auto& th : threads) th.join();
}
}  // namespace

TEST_CASE("spawn: claimed slots become particles, overflow adds nothing, ids unique") {
  for (const Path p : {Path::host, Path::device}) {
    INFO(name_of(p) << " path");
    pvec_vector_t v = make(40 + 3 * rank());
    fill(
        v, [](int64_t) { return false; }, 9);
    DIST_OK(pvec_vector_ids_init(v, kId, flag_of(p)));
    const int64_t n0 = n_local(v), total0 = sum(n0);
    pvec_spawner sp = PVEC_SPAWNER_INIT;
    DIST_OK(pvec_vector_spawn_begin(v, 25, flag_of(p), &sp));
    DIST_REQUIRE(sp.first == n0 && sp.limit == 25 && sp.capacity >= n0 + 25);
    DIST_REQUIRE(sp.id_stride == size() && sp.id_first == total0 + rank());
    // Refused while open, changing nothing.
    DIST_REQUIRE(pvec_vector_append(v, 1, nullptr) == PVEC_ERROR_STATE);
    DIST_REQUIRE(pvec_vector_spawn_begin(v, 1, flag_of(p), &sp) == PVEC_ERROR_STATE);
    const int64_t asked = 10 + rank();
    run_spawn_kernel(v, sp, asked, p == Path::device, 0.5);
    int64_t added = -1;
    DIST_OK(pvec_vector_spawn_commit(v, &added));
    DIST_REQUIRE(added == asked && n_local(v) == n0 + asked);
    // The new rows are zero where the kernel wrote nothing.
    to_host(v, p);
    const Column w = column(v, kWeight), id = column(v, kId);
    bool rows_ok = true;
    for (int64_t i = n0; i < n_local(v); ++i)
      rows_ok = rows_ok && reinterpret_cast<const double*>(w.base)[i] == 0.0 &&
                reinterpret_cast<const int64_t*>(id.base)[i] >= total0;
    DIST_REQUIRE(rows_ok);
    // Overflow: asked for more than reserved; nothing added, the number asked reported.
    pvec_spawner sp2 = PVEC_SPAWNER_INIT;
    DIST_OK(pvec_vector_spawn_begin(v, 4, flag_of(p), &sp2));
    run_spawn_kernel(v, sp2, 9, p == Path::device, 0.5);
    added = -1;
    const pvec_status over = pvec_vector_spawn_commit(v, &added);
    const std::string over_error = pvec_last_error();
    DIST_REQUIRE(over == PVEC_ERROR_OUT_OF_RANGE);
    DIST_REQUIRE(mentions_number(over_error, 9));
    DIST_REQUIRE(added == 9 && n_local(v) == n0 + asked);
    DIST_REQUIRE(pvec_vector_spawn_commit(v, &added) == PVEC_ERROR_STATE);
    // Host-made ids continue the sequence; all ids over all ranks are unique.
    int64_t first = -1, stride = 0;
    DIST_OK(pvec_vector_ids_take(v, 3, &first, &stride));
    DIST_REQUIRE(stride == size());
    to_host(v, p);
    std::vector<int64_t> mine = ids_on_host(v);
    for (int k = 0; k < 3; ++k) mine.push_back(first + k * stride);
    std::vector<int64_t> all = allgather(mine);
    std::set<int64_t> unique(all.begin(), all.end());
    DIST_REQUIRE(unique.size() == all.size());
    // map and ghost_get right after a spawn, on the same path.
    if (p == Path::device) DIST_OK(pvec_host_to_device(v, nullptr, 0));
    DIST_OK(pvec_map(v, flag_of(p), nullptr));
    DIST_OK(pvec_ghost_get(v, nullptr, 0, flag_of(p)));
    DIST_REQUIRE(sum(n_local(v)) == total0 + sum(asked));
    pvec_vector_destroy(v);
  }
}

TEST_CASE("ids: KEEP finds the next free id; bad arguments refused") {
  pvec_vector_t v = make(10);
  fill(
      v, [](int64_t) { return false; }, 1);
  // ids 1000 + 2 k (the caller's own numbering)
  const Column id = column(v, kId);
  for (int64_t i = 0; i < n_local(v); ++i)
    reinterpret_cast<int64_t*>(id.base)[i] = 1000 + 2 * (exscan(0) + i + 10 * rank());
  DIST_OK(pvec_vector_mark_modified(v, nullptr, 0, 0));
  DIST_OK(pvec_vector_ids_init(v, kId, PVEC_IDS_KEEP));
  int64_t first = 0, stride = 0;
  DIST_OK(pvec_vector_ids_take(v, 1, &first, &stride));
  DIST_REQUIRE(first == 1000 + 2 * (10 * size() - 1) + 1 + rank());
  DIST_REQUIRE(pvec_vector_ids_init(v, kMark, 0) == PVEC_ERROR_INVALID_ARGUMENT);
  DIST_REQUIRE(pvec_vector_ids_init(v, PVEC_POS, 0) == PVEC_ERROR_INVALID_ARGUMENT);
  DIST_REQUIRE(pvec_vector_ids_take(v, -1, &first, &stride) == PVEC_ERROR_INVALID_ARGUMENT);
  pvec_vector_t fresh = make(1);
  DIST_REQUIRE(pvec_vector_ids_take(fresh, 1, &first, &stride) == PVEC_ERROR_STATE);
  pvec_vector_destroy(fresh);
  pvec_vector_destroy(v);
}

TEST_CASE("channel: 1,000 steps of inflow and outflow conserve what went in minus out") {
  for (const Path p : {Path::host, Path::device}) {
    INFO(name_of(p) << " path");
    pvec_vector_t v = make(0);
    DIST_OK(pvec_vector_ids_init(v, kId, flag_of(p)));
    const unsigned on = flag_of(p);
    int64_t created = 0, removed_total = 0;
    const double dx = 0.01;
    // 300 steps under PVEC_TEST_LIGHT (the sanitizer runs): the same paths, fewer rounds.
    const int steps = pvec_test::light() ? 300 : 1000;
    for (int step = 0; step < steps; ++step) {
      // Inflow: the rank whose box holds (0.005, 0.5) creates 2 particles per step.
      pvec_spawner sp = PVEC_SPAWNER_INIT;
      DIST_OK(pvec_vector_spawn_begin(v, 2, on, &sp));
      const double inlet[2] = {0.005, 0.5};
      int owner = -1;
      DIST_OK(pvec_vector_get_owner_rank(v, inlet, &owner));
      const int64_t born = owner == rank() ? 2 : 0;
      run_spawn_kernel(v, sp, born, p == Path::device, 0.005);
      int64_t added = 0;
      DIST_OK(pvec_vector_spawn_commit(v, &added));
      created += sum(added);
      // Move every particle by dx along x on the host, as a kernel would (then declared).
      if (p == Path::device) DIST_OK(pvec_device_to_host(v, nullptr, 0));
      const Column pos = column(v, PVEC_POS);
      for (int64_t i = 0; i < n_local(v); ++i) set_pos(pos, i, 0, get_pos(pos, i, 0) + dx);
      DIST_OK(pvec_vector_mark_modified(v, nullptr, 0, 0));
      if (p == Path::device) DIST_OK(pvec_host_to_device(v, nullptr, 0));
      // Outflow, alternately by map's removal outside the box and by mark past x = 0.9.
      int64_t out = 0;
      if (step % 2 == 0) {
        DIST_OK(pvec_map(v, on | PVEC_MAP_REMOVE_OUTSIDE, &out));
      } else {
        if (p == Path::device) DIST_OK(pvec_device_to_host(v, nullptr, 0));
        const Column mk = column(v, kMark), pos2 = column(v, PVEC_POS);
        for (int64_t i = 0; i < n_local(v); ++i)
          reinterpret_cast<int32_t*>(mk.base)[i] = get_pos(pos2, i, 0) > 0.9 ? 1 : 0;
        DIST_OK(pvec_vector_mark_modified(v, nullptr, 0, 0));
        if (p == Path::device) DIST_OK(pvec_host_to_device(v, nullptr, 0));
        int64_t here = 0;
        DIST_OK(pvec_vector_remove_marked(
            v, kMark, nullptr, on | (step % 4 == 1 ? PVEC_REMOVE_FILL_HOLES : 0u), &here));
        out = sum(here);
        DIST_OK(pvec_map(v, on, nullptr));
      }
      removed_total += out;
      DIST_REQUIRE(sum(n_local(v)) == created - removed_total);
    }
    DIST_REQUIRE(created == 2 * steps);
    // 90 steps to cross: at most the last 100 steps' particles are still inside.
    DIST_REQUIRE(removed_total > created - 200);
    to_host(v, p);
    std::vector<int64_t> all = allgather(ids_on_host(v));
    std::set<int64_t> unique(all.begin(), all.end());
    DIST_REQUIRE(unique.size() == all.size());
    pvec_vector_destroy(v);
  }
}
