// Neighbour lists at 1-4 ranks, on the host and the device path: cell lists and Verlet lists
// equal a brute-force reference over the rank's rows (1D/2D/3D, periodic and not, float32 and
// float64); a half list holds each pair exactly once in the whole run, and a kernel that adds
// to both ends followed by ghost_put(ADD) gives every particle its full neighbour count (the
// Verlet checks also on rebalanced boxes: particles gathered to a corner, unequal cells); the
// rebuild check is true exactly when a particle moved more than skin/2; stale lists and bad
// input are refused.
#include "neighbors_util.hpp"

#include <pvec_neighbors_view.hpp>

#include <algorithm>
#include <limits>
#include <set>
#include <string>
#include <utility>
#include <vector>

using namespace nbr_test;

namespace {
// Gathers the particles towards the low corner (x -> lo + (x - lo)^2 / L per dimension: the
// density grows like 1/sqrt towards it), then rebalances: boxes of unequal sizes, cut where
// the particles are dense.
void gather_and_rebalance(pvec_vector_t v, const Box& b, Path p) {
  const Column pos = column(v, PVEC_POS);
  for (int64_t i = 0; i < n_local(v); ++i)
    for (int d = 0; d < b.dim; ++d) {
      const double x = get_pos(pos, i, d);
      set_pos(pos, i, d, x * x / b.length);
    }
  const unsigned on = flag_of(p);
  if (p == Path::device) DIST_OK(pvec_host_to_device(v, nullptr, 0));
  DIST_OK(pvec_map(v, on, nullptr));
  DIST_OK(pvec_vector_rebalance(v, PVEC_NO_WEIGHT, 1.0, on, nullptr, nullptr));
  DIST_OK(pvec_ghost_get(v, nullptr, 0, on));
  if (p == Path::device) to_host(v);
}
}  // namespace

TEST_CASE("Verlet lists (full and half) equal a brute-force reference", "[neighbors]") {
  for (const Box& b : boxes())
    for (Path p : {Path::host, Path::device})
      for (bool rebalanced : {false, true}) {
        INFO(box_name(b) << ", " << name_of(p) << " path" << (rebalanced ? ", rebalanced" : ""));
        Failures f;
        pvec_vector_t v = make_box(b);
        if (rebalanced)
          gather_and_rebalance(v, b, p);
        else
          run_path(v, p);
        const unsigned on = flag_of(p);
        const double cutoff = 0.15, skin = 0.03;
        for (int span : {1, 2}) {
          pvec_verlet_t full = nullptr, half = nullptr;
          DIST_OK(pvec_verlet_create(v, cutoff, skin, span, on, &full));
          DIST_OK(pvec_verlet_create(v, cutoff, skin, span, on | PVEC_VERLET_HALF, &half));
          const HostList hf = fetch_list(full), hh = fetch_list(half);
          check_full_list(v, hf, cutoff + skin, f);

          // Determinism: a rebuild gives the same arrays.
          DIST_OK(pvec_verlet_build(half));
          const HostList hh2 = fetch_list(half);
          if (hh2.offsets != hh.offsets || hh2.nbr != hh.nbr)
            f.add("a rebuild changed the half list");

          // Half list: local pairs once; with ghosts, the ghost_put(ADD) of a count over both
          // ends gives each particle its full count, which is exactly once per pair in the run.
          const int64_t n = n_local(v), total = n + n_ghost(v);
          std::set<std::pair<int32_t, int32_t>> local_pairs;
          Column acc = column(v, kAcc);
          double* a = reinterpret_cast<double*>(acc.base);
          std::fill(a, a + total, 0.0);
          for (int64_t i = 0; i < n; ++i)
            for (int64_t e = hh.offsets[i]; e < hh.offsets[i + 1]; ++e) {
              const int32_t j = hh.nbr[e];
              a[i] += 1;
              a[j] += 1;
              if (j < n &&
                  !local_pairs.insert({std::min<int32_t>(i, j), std::max<int32_t>(i, j)}).second)
                f.addf("local pair (", i, ", ", j, ") listed twice");
            }
          int acc_prop = kAcc;
          if (p == Path::device) DIST_OK(pvec_host_to_device(v, &acc_prop, 1));
          DIST_OK(pvec_ghost_put(v, &acc_prop, 1, PVEC_REDUCE_ADD, on));
          if (p == Path::device) DIST_OK(pvec_device_to_host(v, &acc_prop, 1));
          for (int64_t i = 0; i < n; ++i)
            if (a[i] != static_cast<double>(hf.offsets[i + 1] - hf.offsets[i])) {
              f.addf("particle ", i, ": half list + ghost_put counts ", a[i], " pairs, full list ",
                     hf.offsets[i + 1] - hf.offsets[i]);
              break;
            }
          DIST_OK(pvec_verlet_destroy(full));
          DIST_OK(pvec_verlet_destroy(half));
        }
        f.require("Verlet lists");
        DIST_OK(pvec_vector_destroy(v));
      }
}

TEST_CASE("cell lists hold every row once, in its cell, deterministically", "[neighbors]") {
  for (const Box& b : boxes())
    for (Path p : {Path::host, Path::device}) {
      INFO(box_name(b) << ", " << name_of(p) << " path");
      Failures f;
      pvec_vector_t v = make_box(b);
      run_path(v, p);
      for (unsigned ghosts : {0u, static_cast<unsigned>(PVEC_CELLS_GHOSTS)}) {
        pvec_cell_list_t cl = nullptr;
        DIST_OK(pvec_cell_list_create(v, 0.12, 2, flag_of(p) | ghosts, &cl));
        pvec_cell_list_info info = PVEC_CELL_LIST_INFO_INIT;
        DIST_OK(pvec_cell_list_get_info(cl, &info));
        const int64_t n = n_local(v), rows = ghosts ? n + n_ghost(v) : n;
        if (info.n_entries != rows) f.addf("cell list holds ", info.n_entries, " rows of ", rows);
        const bool dev = info.on_device != 0;
        auto off = fetch(info.cell_offsets, info.ncells + 1, dev);
        auto parts = fetch(info.cell_particles, info.n_entries, dev);
        auto loc = fetch(info.local_offsets, info.ncells + 1, dev);
        pvec::cell_list_view g{};
        g.dim = info.dim;
        g.span = info.span;
        for (int d = 0; d < 3; ++d) {
          g.origin[d] = info.origin[d];
          g.width[d] = info.width[d];
          g.inv_width[d] = info.inv_width[d];
          g.dims[d] = info.dims[d];
        }
        g.ncells = info.ncells;
        g.cell_offsets = off.data();
        g.cell_particles = parts.data();
        g.local_offsets = loc.data();
        if (off.back() != rows) f.add("cell_offsets[ncells] is not the row count");
        std::vector<int> seen(static_cast<size_t>(rows), 0);
        Column pos = column(v, PVEC_POS);
        for (int64_t c = 0; c < info.ncells; ++c) {
          const int32_t nloc = loc[c + 1] - loc[c];
          for (int32_t e = off[c]; e < off[c + 1]; ++e) {
            const int32_t r = parts[e];
            if (r < 0 || r >= rows) {
              f.addf("row ", r, " out of range");
              continue;
            }
            ++seen[r];
            if (e > off[c] && parts[e - 1] >= r) f.addf("cell ", c, " is not ascending");
            if ((e - off[c] < nloc) != (r < n)) f.addf("cell ", c, ": locals are not first");
            double x[3] = {0, 0, 0};
            for (int d = 0; d < info.dim; ++d) x[d] = get_pos(pos, r, d);
            if (g.cell_of(x) != c)
              f.addf("row ", r, " is in cell ", c, ", its position in ", g.cell_of(x));
          }
        }
        for (int64_t r = 0; r < rows; ++r)
          if (seen[r] != 1) {
            f.addf("row ", r, " appears ", seen[r], " times");
            break;
          }
        // Every row within the cutoff of a local particle is among its near cells.
        for (int64_t i = 0; i < n && ghosts; i += 7) {
          double x[3] = {0, 0, 0};
          for (int d = 0; d < info.dim; ++d) x[d] = get_pos(pos, i, d);
          std::set<int32_t> near;
          g.for_each_near(x, [&](int32_t j) { near.insert(j); });
          for (int64_t j = 0; j < rows; ++j)
            if (within(pos, pos_dtype(v), info.dim, i, j, 0.12) &&
                !near.count(static_cast<int32_t>(j)))
              f.addf("row ", j, " is within the cutoff of ", i, " but not in its near cells");
        }
        DIST_OK(pvec_cell_list_destroy(cl));
      }
      f.require("cell lists");
      DIST_OK(pvec_vector_destroy(v));
    }
}

TEST_CASE("pvec_verlet_check is true exactly when a particle moved more than skin/2",
          "[neighbors]") {
  // Unsorted rows, and rows in cell order (whose reference positions the device build writes
  // in its entry pass rather than copying them): the first, a middle and the last row move.
  for (bool sorted : {false, true})
    for (Path p : {Path::host, Path::device}) {
      INFO(name_of(p) << " path, " << (sorted ? "sorted" : "unsorted") << " rows");
      Box b;
      pvec_vector_t v = make_box(b);
      const double skin = 0.04;
      if (sorted) {
        DIST_OK(pvec_vector_sort(v, 0.1 + skin, flag_of(p) | PVEC_SORT_BOTH_MIRRORS, nullptr));
        DIST_OK(pvec_ghost_get(v, nullptr, 0, 0));  // the plan the host calls below replay
        if (p == Path::device) DIST_OK(pvec_host_to_device(v, nullptr, 0));
      }
      pvec_verlet_t l = nullptr;
      DIST_OK(pvec_verlet_create(v, 0.1, skin, 1, flag_of(p), &l));
      int rebuild = -1;
      DIST_OK(pvec_verlet_check(l, &rebuild));
      DIST_REQUIRE(rebuild == 0);
      Column pos = column(v, PVEC_POS);
      const int64_t n = n_local(v);
      for (int64_t row : {int64_t{0}, n / 2, n - 1}) {
        const bool mine = rank() == size() - 1 && n > 0;
        const double x0 = mine ? get_pos(pos, row, 1) : 0;
        for (double move : {0.45 * skin, 0.55 * skin, 0.0}) {
          if (mine) set_pos(pos, row, 1, x0 + move);
          if (p == Path::device) DIST_OK(pvec_host_to_device(v, nullptr, 0));
          DIST_OK(pvec_verlet_check(l, &rebuild));
          INFO("row " << row << " moved by " << move / skin << " skin");
          DIST_REQUIRE(rebuild == (move > skin / 2 ? 1 : 0));
        }
      }
      // A replayed ghost_get keeps the rows: the list stays usable. A new plan does not.
      DIST_OK(pvec_ghost_get(v, nullptr, 0, PVEC_GHOST_REUSE_PLAN));
      pvec_verlet_info info = PVEC_VERLET_INFO_INIT;
      DIST_REQUIRE(pvec_verlet_get_info(l, &info) == PVEC_SUCCESS);
      DIST_OK(pvec_ghost_get(v, nullptr, 0, 0));
      // The new ghosts reach the device mirror before a device build reads them.
      if (p == Path::device) DIST_OK(pvec_host_to_device(v, nullptr, 0));
      DIST_REQUIRE(pvec_verlet_get_info(l, &info) == PVEC_ERROR_STATE);
      DIST_REQUIRE(std::string(pvec_last_error()).find("stale") != std::string::npos);
      DIST_OK(pvec_verlet_check(l, &rebuild));
      DIST_REQUIRE(rebuild == 1);
      DIST_OK(pvec_verlet_build(l));
      DIST_REQUIRE(pvec_verlet_get_info(l, &info) == PVEC_SUCCESS);
      DIST_OK(pvec_map(v, 0, nullptr));
      DIST_REQUIRE(pvec_verlet_get_info(l, &info) == PVEC_ERROR_STATE);
      DIST_OK(pvec_verlet_destroy(l));
      DIST_OK(pvec_vector_destroy(v));
    }
}

TEST_CASE("neighbour search refuses bad input and changes nothing", "[neighbors]") {
  Box b;
  pvec_vector_t v = make_box(b);
  const Snapshot before = snapshot(v);
  pvec_verlet_t l = nullptr;
  pvec_cell_list_t cl = nullptr;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (double cut : {0.0, -1.0, nan, 1.0})
    DIST_REQUIRE(pvec_verlet_create(v, cut, 0.0, 1, 0, &l) == PVEC_ERROR_INVALID_ARGUMENT);
  DIST_REQUIRE(std::string(pvec_last_error()).find("ghost width") != std::string::npos);
  DIST_REQUIRE(pvec_verlet_create(v, 0.15, 0.1, 1, 0, &l) == PVEC_ERROR_INVALID_ARGUMENT);
  DIST_REQUIRE(pvec_verlet_create(v, 0.1, -0.01, 1, 0, &l) == PVEC_ERROR_INVALID_ARGUMENT);
  DIST_REQUIRE(pvec_verlet_create(v, 0.1, 0.01, 0, 0, &l) == PVEC_ERROR_INVALID_ARGUMENT);
  DIST_REQUIRE(pvec_verlet_create(v, 0.1, 0.01, 9, 0, &l) == PVEC_ERROR_INVALID_ARGUMENT);
  DIST_REQUIRE(pvec_verlet_create(v, 0.1, 0.01, 1, 1u << 20, &l) == PVEC_ERROR_INVALID_ARGUMENT);
  DIST_REQUIRE(pvec_verlet_create(v, 0.1, 0.01, 1, 0, nullptr) == PVEC_ERROR_INVALID_ARGUMENT);
  DIST_REQUIRE(pvec_cell_list_create(v, nan, 1, 0, &cl) == PVEC_ERROR_INVALID_ARGUMENT);
  DIST_REQUIRE(pvec_cell_list_create(nullptr, 0.1, 1, 0, &cl) == PVEC_ERROR_INVALID_HANDLE);
  DIST_REQUIRE(pvec_vector_sort(v, 0.0, 0, nullptr) == PVEC_ERROR_INVALID_ARGUMENT);
  DIST_REQUIRE(pvec_vector_sort(v, 0.1, 1u << 20, nullptr) == PVEC_ERROR_INVALID_ARGUMENT);
  DIST_REQUIRE(l == nullptr && cl == nullptr);
  DIST_REQUIRE(pvec_verlet_get_info(nullptr, nullptr) == PVEC_ERROR_INVALID_HANDLE);
  DIST_REQUIRE(pvec_verlet_destroy(nullptr) == PVEC_ERROR_INVALID_HANDLE);
  const std::string diff = compare_rows(before, snapshot(v), n_local(v) + n_ghost(v));
  INFO(diff);
  DIST_REQUIRE(diff.empty());

  // A NaN position: refused, nothing reordered.
  Column pos = column(v, PVEC_POS);
  const bool mine = rank() == 0 && n_local(v) > 0;
  if (mine) set_pos(pos, 0, 0, nan);
  const pvec_status st = pvec_vector_sort(v, 0.1, 0, nullptr);
  DIST_REQUIRE(st == (mine ? PVEC_ERROR_INVALID_ARGUMENT : PVEC_SUCCESS) || !mine);
  DIST_REQUIRE(pvec_verlet_create(v, 0.1, 0.0, 1, 0, &l) ==
                   (mine ? PVEC_ERROR_INVALID_ARGUMENT : PVEC_SUCCESS) ||
               !mine);
  if (l) pvec_verlet_destroy(l);
  l = nullptr;
  if (mine) set_pos(pos, 0, 0, 0.5);

  // A struct_size too small, a destroyed vector.
  DIST_OK(pvec_verlet_create(v, 0.1, 0.0, 1, 0, &l));
  pvec_verlet_info info = PVEC_VERLET_INFO_INIT;
  info.struct_size = 8;
  DIST_REQUIRE(pvec_verlet_get_info(l, &info) == PVEC_ERROR_INVALID_ARGUMENT);
  DIST_OK(pvec_vector_destroy(v));
  info.struct_size = sizeof info;
  DIST_REQUIRE(pvec_verlet_get_info(l, &info) == PVEC_ERROR_INVALID_HANDLE);
  DIST_REQUIRE(std::string(pvec_last_error()).find("destroyed") != std::string::npos);
  DIST_OK(pvec_verlet_destroy(l));
}

TEST_CASE("neighbour search of empty ranks and a half list without its plan", "[neighbors]") {
  Box b;
  b.n_per_rank = rank() == 0 ? 0 : 50;
  pvec_vector_t v = make_box(b);
  pvec_verlet_t l = nullptr;
  DIST_OK(pvec_verlet_create(v, 0.1, 0.05, 1, PVEC_VERLET_HALF, &l));
  const HostList h = fetch_list(l);
  DIST_REQUIRE(h.n == n_local(v));
  // After a sort that moved rows the plan is gone: a half list over the old ghosts is
  // refused (local calls: each rank answers for itself).
  int moved = 0;
  DIST_OK(pvec_vector_sort(v, 0.1, 0, &moved));
  const pvec_status st = pvec_verlet_build(l);
  const pvec_status want = moved && n_ghost(v) > 0 ? PVEC_ERROR_STATE : PVEC_SUCCESS;
  DIST_REQUIRE(st == want);
  DIST_OK(pvec_verlet_destroy(l));
  DIST_OK(pvec_vector_destroy(v));
}
