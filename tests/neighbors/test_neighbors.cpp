// Neighbour search at 1-4 ranks, on the host and the device path: cell lists and Verlet lists
// equal a brute-force reference over the rank's rows (1D/2D/3D, periodic and not, float32 and
// float64); a half list holds each pair exactly once in the whole run, and a kernel that adds
// to both ends followed by ghost_put(ADD) gives every particle its full neighbour count; the
// rebuild check is true exactly when a particle moved more than skin/2; stale lists are
// refused; the locality sort keeps every particle's values and leaves the rows in cell order;
// every device build method (sort, pass) gives the host's arrays.
// Over 500 lines: one MPI test program, whose cases share the random boxes, the list fetches
// and the brute-force references (one program launch per rank count instead of several).
#include "dist_util.hpp"

#include <pvec_neighbors.hpp>

#if defined(PVEC_TEST_CUDA)
#include <cuda_runtime_api.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <set>
#include <utility>

using namespace dist;

namespace {

// Copies n elements of a list array to the host (device memory through the CUDA runtime).
template <class X>
std::vector<X> fetch(const X* p, int64_t n, bool on_device) {
  std::vector<X> out(static_cast<size_t>(std::max<int64_t>(n, 0)));
  if (n <= 0) return out;
#if defined(PVEC_TEST_CUDA)
  if (on_device) {
    REQUIRE(cudaMemcpy(out.data(), p, sizeof(X) * n, cudaMemcpyDeviceToHost) == cudaSuccess);
    return out;
  }
#else
  REQUIRE(!on_device);
#endif
  std::copy(p, p + n, out.begin());
  return out;
}

struct Box {
  int dim = 3;
  pvec_dtype pos = PVEC_FLOAT64;
  bool periodic = true;
  double length = 1.0;
  double ghost = 0.2;
  int64_t n_per_rank = 300;
  uint64_t seed = 7;
  double lattice = 0;  // > 0: particles on lattice sites of this spacing, nudged (see make_box)
};

constexpr int kId = 0, kAcc = 1, kVel = 2;

// A vector of uniform random particles in [0, L)^dim, ids 0..N-1 over the ranks, vel a
// function of the id; mapped and with ghosts (host mirror), then copied to the device mirror.
pvec_vector_t make_box(const Box& b) {
  pvec_schema_t s = nullptr;
  REQUIRE(pvec_schema_create(&s) == PVEC_SUCCESS);
  REQUIRE(pvec_schema_add_scalar(s, "id", PVEC_INT64, nullptr) == PVEC_SUCCESS);
  REQUIRE(pvec_schema_add_scalar(s, "acc", PVEC_FLOAT64, nullptr) == PVEC_SUCCESS);
  REQUIRE(pvec_schema_add_vector(s, "vel", PVEC_FLOAT32, 3, nullptr) == PVEC_SUCCESS);
  pvec_vector_desc d = PVEC_VECTOR_DESC_INIT;
  d.dim = b.dim;
  d.pos_dtype = b.pos;
  for (int k = 0; k < b.dim; ++k) {
    d.domain_lo[k] = 0;
    d.domain_hi[k] = b.length;
    d.boundary[k] = b.periodic ? PVEC_PERIODIC : PVEC_NON_PERIODIC;
  }
  d.ghost_width = b.ghost;
  d.n_particles = b.n_per_rank;
  d.placement = PVEC_PLACE_LOCAL;
  pvec_vector_t v = nullptr;
  DIST_OK(pvec_vector_create(&d, s, &v));
  pvec_schema_destroy(s);
  const int64_t first = exscan(b.n_per_rank);
  Rng rng(b.seed * 1000003 + static_cast<uint64_t>(rank()));
  Column pos = column(v, PVEC_POS), id = column(v, kId), vel = column(v, kVel);
  // Lattice sites a few spacings apart lie at the cutoff or a hair from it: each coordinate is
  // nudged by 0, 1e-12, 1e-9, 1e-7 or 1e-5 spacings either way, so that pair distances fall at
  // every scale around it, down to the last bits of the squared distance.
  const double nudges[] = {0, 1e-12, 1e-9, 1e-7, 1e-5};
  const int64_t sites = b.lattice > 0 ? static_cast<int64_t>(b.length / b.lattice) : 0;
  for (int64_t i = 0; i < b.n_per_rank; ++i) {
    for (int k = 0; k < b.dim; ++k) {
      if (sites == 0) {
        set_pos(pos, i, k, rng.uniform(0, b.length));
        continue;
      }
      const auto site = static_cast<int64_t>(rng.uniform(0, static_cast<double>(sites)));
      const double nudge =
          nudges[static_cast<int>(rng.uniform(0, 5)) % 5] * (rng.uniform(0, 1) < 0.5 ? -1 : 1);
      set_pos(pos, i, k,
              std::min(std::max((static_cast<double>(site) + nudge) * b.lattice, 0.0),
                       std::nextafter(b.length, 0.0)));
    }
    reinterpret_cast<int64_t*>(id.base)[i] = first + i;
    for (int c = 0; c < 3; ++c)
      reinterpret_cast<float*>(vel.base)[c * id.cap + i] = static_cast<float>(first + i + 0.25 * c);
  }
  DIST_OK(pvec_map(v, 0, nullptr));
  DIST_OK(pvec_ghost_get(v, nullptr, 0, 0));
  DIST_OK(pvec_host_to_device(v, nullptr, 0));
  return v;
}

// Distance squared of rows i and j in the position type, summed as pvec sums it.
template <class T>
T dist2(const Column& pos, int dim, int64_t i, int64_t j) {
  const T* x = reinterpret_cast<const T*>(pos.base);
  T r2 = 0;
  for (int d = 0; d < dim; ++d) {
    const T dx = x[d * pos.cap + j] - x[d * pos.cap + i];
    r2 += dx * dx;
  }
  return r2;
}

bool within(const Column& pos, pvec_dtype t, int dim, int64_t i, int64_t j, double r) {
  if (t == PVEC_FLOAT32) {
    const float rf = static_cast<float>(r);
    return dist2<float>(pos, dim, i, j) < rf * rf;
  }
  return dist2<double>(pos, dim, i, j) < r * r;
}

struct HostList {
  std::vector<int64_t> offsets;
  std::vector<int32_t> nbr;
  int64_t n = 0;
};

HostList fetch_list(pvec_verlet_t l) {
  pvec_verlet_info info = PVEC_VERLET_INFO_INIT;
  REQUIRE(pvec_verlet_get_info(l, &info) == PVEC_SUCCESS);
  HostList h;
  h.n = info.n;
  h.offsets = fetch(info.offsets, info.n + 1, info.on_device != 0);
  REQUIRE(h.offsets.back() == info.n_pairs);
  h.nbr = fetch(info.neighbors, info.n_pairs, info.on_device != 0);
  return h;
}

// Brings the device mirror's rows to the host (after a device-path operation).
void to_host(pvec_vector_t v) { DIST_OK(pvec_device_to_host(v, nullptr, 0)); }

// The device path runs map and ghost_get on the device mirror (then both mirrors agree).
void run_path(pvec_vector_t v, Path p) {
  if (p == Path::device) {
    DIST_OK(pvec_map(v, PVEC_ON_DEVICE, nullptr));
    DIST_OK(pvec_ghost_get(v, nullptr, 0, PVEC_ON_DEVICE));
    to_host(v);
  }
}

void check_full_list(pvec_vector_t v, const HostList& h, double r, Failures& f) {
  Column pos = column(v, PVEC_POS);
  const int dim = dim_of(v);
  const pvec_dtype t = pos_dtype(v);
  const int64_t n = n_local(v), total = n + n_ghost(v);
  if (h.n != n) f.addf("list has ", h.n, " particles, the vector ", n);
  for (int64_t i = 0; i < n && i < h.n; ++i) {
    std::vector<int32_t> got(h.nbr.begin() + h.offsets[i], h.nbr.begin() + h.offsets[i + 1]);
    std::vector<int32_t> want;
    for (int64_t j = 0; j < total; ++j)
      if (j != i && within(pos, t, dim, i, j, r)) want.push_back(static_cast<int32_t>(j));
    std::sort(got.begin(), got.end());
    if (got != want) {
      f.addf("particle ", i, ": ", got.size(), " neighbours listed, ", want.size(), " within ", r);
      return;
    }
  }
}

std::string box_name(const Box& b) {
  std::ostringstream s;
  s << b.dim << "D " << (b.periodic ? "periodic" : "open") << " " << pvec_dtype_name(b.pos)
    << " L=" << b.length << " ghost=" << b.ghost << " n/rank=" << b.n_per_rank;
  if (b.lattice > 0) s << " lattice=" << b.lattice;
  return s.str();
}

// id -> the positions and velocities of each local row (from the device mirror: copied to
// the host first), for checking that a sort keeps every particle's values.
std::map<int64_t, std::vector<double>> local_values(pvec_vector_t v, int dim, bool device) {
  if (device) to_host(v);
  std::map<int64_t, std::vector<double>> m;
  Column pos = column(v, PVEC_POS), id = column(v, kId), vel = column(v, kVel);
  for (int64_t i = 0; i < n_local(v); ++i) {
    std::vector<double> row;
    for (int d = 0; d < dim; ++d) row.push_back(get_pos(pos, i, d));
    for (int c = 0; c < 3; ++c) row.push_back(reinterpret_cast<float*>(vel.base)[c * vel.cap + i]);
    m[reinterpret_cast<int64_t*>(id.base)[i]] = row;
  }
  return m;
}

std::vector<Box> boxes() {
  std::vector<Box> out;
  for (int dim : {1, 2, 3})
    for (bool periodic : {true, false})
      for (pvec_dtype t : {PVEC_FLOAT64, PVEC_FLOAT32}) {
        Box b;
        b.dim = dim;
        b.periodic = periodic;
        b.pos = t;
        b.n_per_rank = dim == 1 ? 60 : (dim == 2 ? 200 : 300);
        b.seed = static_cast<uint64_t>(dim * 10 + periodic * 2 + (t == PVEC_FLOAT32));
        out.push_back(b);
      }
  return out;
}

}  // namespace

TEST_CASE("Verlet lists (full and half) equal a brute-force reference", "[neighbors]") {
  for (const Box& b : boxes())
    for (Path p : {Path::host, Path::device}) {
      INFO(box_name(b) << ", " << name_of(p) << " path");
      Failures f;
      pvec_vector_t v = make_box(b);
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

TEST_CASE("pvec_vector_sort keeps every particle and leaves the rows in cell order",
          "[neighbors]") {
  for (const Box& b : boxes())
    for (Path p : {Path::host, Path::device})
      for (unsigned order : {0u, static_cast<unsigned>(PVEC_SORT_MORTON)}) {
        INFO(box_name(b) << ", " << name_of(p) << " path, " << (order ? "Morton" : "row-major"));
        Failures f;
        pvec_vector_t v = make_box(b);
        const int64_t n = n_local(v);
        auto record = [&](bool device) { return local_values(v, b.dim, device); };
        const auto before = record(false);
        const uint64_t gen = generation(v);
        int moved = -1;
        DIST_OK(pvec_vector_sort(v, 0.1, flag_of(p) | order, &moved));
        if (n > 1 && moved != 1) f.add("random rows were reported in order already");
        if (moved == 1 && generation(v) == gen) f.add("the generation did not change");
        if (record(p == Path::device) != before) f.add("a particle's values changed");
        DIST_OK(pvec_vector_sort(v, 0.1, flag_of(p) | order, &moved));
        if (moved != 0) f.add("a second sort moved rows");
        if (order && b.dim > 1) {
          // The rows follow the Z-order curve of the cells: the cell coordinates (from the
          // grid of a cell list of the same width) interleaved bit by bit here, dimension 0
          // most significant, are non-decreasing.
          pvec_cell_list_t cl = nullptr;
          DIST_OK(pvec_cell_list_create(v, 0.1, 1, 0, &cl));
          pvec_cell_list_info info = PVEC_CELL_LIST_INFO_INIT;
          DIST_OK(pvec_cell_list_get_info(cl, &info));
          int bits = 0;
          for (int d = 0; d < b.dim; ++d)
            while ((int64_t{1} << bits) < info.dims[d]) ++bits;
          Column pos = column(v, PVEC_POS);
          uint64_t last = 0;
          for (int64_t i = 0; i < n; ++i) {
            int64_t c[3] = {0, 0, 0};
            for (int d = 0; d < b.dim; ++d) {
              const double q = (get_pos(pos, i, d) - info.origin[d]) * info.inv_width[d];
              c[d] = !(q >= 0) ? 0 : (q >= double(info.dims[d]) ? info.dims[d] - 1 : int64_t(q));
            }
            uint64_t key = 0;
            for (int k = bits - 1; k >= 0; --k)
              for (int d = 0; d < b.dim; ++d) key = (key << 1) | ((c[d] >> k) & 1);
            if (i > 0 && key < last) {
              f.addf("row ", i, " has Morton key ", key, " after ", last);
              break;
            }
            last = key;
          }
          DIST_OK(pvec_cell_list_destroy(cl));
        }
        if (!order) {
          pvec_cell_list_t cl = nullptr;
          DIST_OK(pvec_ghost_get(v, nullptr, 0, flag_of(p)));
          DIST_OK(pvec_cell_list_create(v, 0.1, 1, flag_of(p), &cl));
          pvec_cell_list_info info = PVEC_CELL_LIST_INFO_INIT;
          DIST_OK(pvec_cell_list_get_info(cl, &info));
          if (!info.sorted) f.add("the cell list of a sorted vector is not marked sorted");
          auto parts = fetch(info.cell_particles, info.n_entries, info.on_device != 0);
          for (int64_t e = 0; e < info.n_entries; ++e)
            if (parts[e] != e) {
              f.addf("entry ", e, " of the sorted vector's cell list is row ", parts[e]);
              break;
            }
          DIST_OK(pvec_cell_list_destroy(cl));
        }
        f.require("sort");
        DIST_OK(pvec_vector_destroy(v));
      }
}

// PVEC_SORT_HALO_FIRST: every particle keeps its values; the particles within one ghost width
// of the lower face of dimension 0 come before those clearly not in a lower cell of dimension
// 0 (their groups come first), and the particles within a ghost width of any face before
// those clearly inner in every dimension (the inner group is last); a second sort moves
// nothing; ghost_get gives the same ghosts as from the unsorted rows; it refuses Morton.
TEST_CASE("pvec_vector_sort halo-first keeps every particle and puts the halo first",
          "[neighbors]") {
  for (const Box& b : boxes())
    for (Path p : {Path::host, Path::device}) {
      INFO(box_name(b) << ", " << name_of(p) << " path");
      Failures f;
      pvec_vector_t v = make_box(b);
      const unsigned flag = flag_of(p);
      const int64_t n = n_local(v);
      const bool dev = p == Path::device;
      // id -> the row's values (locals); ghosts as a sorted list of (id, coordinates).
      auto locals = [&] { return local_values(v, b.dim, dev); };
      auto ghosts = [&] {
        DIST_OK(pvec_ghost_get(v, nullptr, 0, flag));
        if (dev) to_host(v);
        std::vector<std::vector<double>> g;
        Column pos = column(v, PVEC_POS), id = column(v, kId);
        for (int64_t i = n; i < n + n_ghost(v); ++i) {
          std::vector<double> row{static_cast<double>(reinterpret_cast<int64_t*>(id.base)[i])};
          for (int d = 0; d < b.dim; ++d) row.push_back(get_pos(pos, i, d));
          g.push_back(row);
        }
        std::sort(g.begin(), g.end());
        return g;
      };
      const auto before = locals();
      const auto ghosts_before = ghosts();
      const Snapshot snap = snapshot(v);
      DIST_REQUIRE(pvec_vector_sort(v, 0.1, flag | PVEC_SORT_HALO_FIRST | PVEC_SORT_MORTON,
                                    nullptr) == PVEC_ERROR_INVALID_ARGUMENT);
      DIST_REQUIRE(std::string(pvec_last_error()).find("exclude") != std::string::npos);
      if (!compare_rows(snap, snapshot(v), n + n_ghost(v)).empty())
        f.add("a refused sort changed the rows");
      int moved = -1;
      DIST_OK(pvec_vector_sort(v, 0.1, flag | PVEC_SORT_HALO_FIRST, &moved));
      if (n > 8 && moved != 1) f.add("random rows were reported in halo-first order already");
      if (locals() != before) f.add("a particle's values changed");
      DIST_OK(pvec_vector_sort(v, 0.1, flag | PVEC_SORT_HALO_FIRST, &moved));
      if (moved != 0) f.add("a second halo-first sort moved rows");
      double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
      DIST_OK(pvec_vector_get_subdomain(v, lo, hi));
      // Cells are at most 2 x 0.1 wide here, so beyond gw + 0.25 of a face no cell reaches
      // into its band.
      const double gw = b.ghost, margin = gw + 0.25;
      Column pos = column(v, PVEC_POS);
      int64_t last_near0 = -1, first_far0 = n, last_near = -1, first_inner = n;
      for (int64_t i = 0; i < n; ++i) {
        const double x0 = get_pos(pos, i, 0);
        if (x0 - lo[0] < gw) last_near0 = i;
        if (x0 - lo[0] >= margin && first_far0 == n) first_far0 = i;
        bool near = false, inner = true;
        for (int d = 0; d < b.dim; ++d) {
          const double x = get_pos(pos, i, d), to_face = std::min(x - lo[d], hi[d] - x);
          near = near || to_face < gw;
          inner = inner && to_face >= margin;
        }
        if (near) last_near = i;
        if (inner && first_inner == n) first_inner = i;
      }
      if (last_near0 > first_far0)
        f.addf("row ", last_near0, " is near the lower face of dimension 0, after row ", first_far0,
               ", which is not");
      if (last_near > first_inner)
        f.addf("row ", last_near, " is near a face, after row ", first_inner,
               ", which is inner in every dimension");
      if (ghosts() != ghosts_before) f.add("ghost_get after the sort gave other ghosts");
      f.require("halo-first sort");
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

namespace {

// The arrays of a cell list (locals, and locals + ghosts) and of full and half Verlet lists
// of v on path p.
struct Arrays {
  std::vector<int32_t> off[2], parts[2], loc[2];
  int sorted[2] = {0, 0};
  bool on_device = false;  // the cell lists were built on a device mirror
  HostList full, half;
  HostList full_again, half_again;  // after a second build of the same lists
};

Arrays build_all(pvec_vector_t v, Path p, int span, double cutoff, double skin) {
  Arrays a;
  const unsigned on = flag_of(p);
  for (int gh = 0; gh < 2; ++gh) {
    pvec_cell_list_t cl = nullptr;
    DIST_OK(pvec_cell_list_create(v, cutoff + skin, span, on | (gh ? PVEC_CELLS_GHOSTS : 0u), &cl));
    pvec_cell_list_info info = PVEC_CELL_LIST_INFO_INIT;
    DIST_OK(pvec_cell_list_get_info(cl, &info));
    const bool dev = info.on_device != 0;
    a.on_device = dev;
    a.off[gh] = fetch(info.cell_offsets, info.ncells + 1, dev);
    a.parts[gh] = fetch(info.cell_particles, info.n_entries, dev);
    a.loc[gh] = fetch(info.local_offsets, info.ncells + 1, dev);
    a.sorted[gh] = info.sorted;
    DIST_OK(pvec_cell_list_destroy(cl));
  }
  pvec_verlet_t full = nullptr, half = nullptr;
  DIST_OK(pvec_verlet_create(v, cutoff, skin, span, on, &full));
  DIST_OK(pvec_verlet_create(v, cutoff, skin, span, on | PVEC_VERLET_HALF, &half));
  a.full = fetch_list(full);
  a.half = fetch_list(half);
  // Rebuilt with the room of the first build (what steady state does; on the device a
  // one-pass build fills only when its entries fit).
  DIST_OK(pvec_verlet_build(full));
  DIST_OK(pvec_verlet_build(half));
  a.full_again = fetch_list(full);
  a.half_again = fetch_list(half);
  DIST_OK(pvec_verlet_destroy(full));
  DIST_OK(pvec_verlet_destroy(half));
  return a;
}

void compare(const Arrays& want, const Arrays& got, Failures& f) {
  for (int gh = 0; gh < 2; ++gh) {
    const char* what = gh ? "cell list with ghosts" : "cell list";
    if (got.off[gh] != want.off[gh]) f.addf(what, ": cell_offsets differ");
    if (got.parts[gh] != want.parts[gh]) f.addf(what, ": cell_particles differ");
    if (got.loc[gh] != want.loc[gh]) f.addf(what, ": local_offsets differ");
    if (got.sorted[gh] != want.sorted[gh]) f.addf(what, ": sorted ", got.sorted[gh]);
  }
  if (got.full.offsets != want.full.offsets || got.full.nbr != want.full.nbr)
    f.add("full Verlet lists differ");
  if (got.half.offsets != want.half.offsets || got.half.nbr != want.half.nbr)
    f.add("half Verlet lists differ");
  if (got.full_again.offsets != want.full.offsets || got.full_again.nbr != want.full.nbr)
    f.add("full Verlet lists differ after a rebuild");
  if (got.half_again.offsets != want.half.offsets || got.half_again.nbr != want.half.nbr)
    f.add("half Verlet lists differ after a rebuild");
}

}  // namespace

// The device builds (a radix or an atomic counting sort of the rows by their count, a
// warp-per-cell Verlet pass where the stencil fits a warp (span 1), a per-particle one where it
// does not (span 2)) must give exactly the host's arrays, in random row order and
// after a locality sort (whose cell list of locals takes the no-sort path), at the first build
// and at a rebuild of the same lists (steady state: the buffers exist), including cells of
// more than 32 particles (a warp takes them in chunks), and particles at and near the cutoff
// (lattice boxes: host and device round distances alike, so they agree on every pair).
TEST_CASE("every build method gives the host's arrays", "[neighbors]") {
  std::vector<Box> bs = boxes();
  // ~40 particles per cell of 0.12 (24,000 in the unit box). PVEC_TEST_LIGHT (set by the
  // sanitizer step of scripts/hardening.sh, where this box's pair loops took 100 s) makes it
  // ~13 per cell, still several rounds of candidates per particle.
  Box dense;
  dense.n_per_rank = (std::getenv("PVEC_TEST_LIGHT") != nullptr ? 8000 : 24000) / size();
  dense.seed = 99;
  bs.push_back(dense);
  for (pvec_dtype t : {PVEC_FLOAT64, PVEC_FLOAT32}) {
    Box lat;  // pairs at the cutoff (0.12 = 2 spacings) and near it
    lat.lattice = 0.06;
    lat.pos = t;
    lat.n_per_rank = 1200 / size();
    lat.seed = 31;
    bs.push_back(lat);
  }
  for (const Box& b : bs)
    for (int sorted : {0, 1}) {
      INFO(box_name(b) << (sorted ? ", sorted" : ", random order"));
      Failures f;
      pvec_vector_t v = make_box(b);
      const double cutoff = 0.1, skin = 0.02;
      if (sorted) {  // by the grid of the span-1 lists (same width, same origin)
        DIST_OK(pvec_vector_sort(v, cutoff + skin, PVEC_SORT_BOTH_MIRRORS, nullptr));
        DIST_OK(pvec_ghost_get(v, nullptr, 0, 0));
        DIST_OK(pvec_host_to_device(v, nullptr, 0));
      }
      for (int span : {1, 2}) {
        const Arrays ref = build_all(v, Path::host, span, cutoff, skin);
        if (sorted && span == 1 && ref.sorted[0] == 0)
          f.add("a sorted vector's cell list says unsorted");
        INFO("span " << span);
        compare(ref, build_all(v, Path::device, span, cutoff, skin), f);
      }
      f.require("build methods");
      DIST_OK(pvec_vector_destroy(v));
    }
}

// A device rebuild fills padded rows of the room the last build needed; when the particles
// crowd (each rank's locals pulled halfway to its subdomain's centre: 2^dim times the density)
// the counts outgrow that room, and the rebuild must still give exactly the host's arrays (the
// counts it made are scanned and the CSR fill runs); the rebuild after it, with the new room,
// again.
TEST_CASE("device rebuilds whose lists outgrow the last build's room", "[neighbors]") {
  for (pvec_dtype t : {PVEC_FLOAT64, PVEC_FLOAT32})
    for (int dim : {2, 3}) {
      Box b;
      b.dim = dim;
      b.pos = t;
      b.n_per_rank = (dim == 3 ? 2400 : 800) / size() + 1;
      b.seed = 57 + static_cast<uint64_t>(dim);
      INFO(box_name(b));
      Failures f;
      pvec_vector_t v = make_box(b);
      run_path(v, Path::device);
      const double cutoff = 0.1, skin = 0.02;
      pvec_verlet_t full = nullptr, half = nullptr;
      const unsigned dev = flag_of(Path::device);
      DIST_OK(pvec_verlet_create(v, cutoff, skin, 1, dev, &full));
      DIST_OK(pvec_verlet_create(v, cutoff, skin, 1, dev | PVEC_VERLET_HALF, &half));
      double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
      DIST_OK(pvec_vector_get_subdomain(v, lo, hi));
      Column pos = column(v, PVEC_POS);
      for (int64_t i = 0; i < n_local(v); ++i)
        for (int d = 0; d < dim; ++d) {
          const double c = 0.5 * (lo[d] + hi[d]);
          set_pos(pos, i, d, c + 0.5 * (get_pos(pos, i, d) - c));
        }
      DIST_OK(pvec_ghost_get(v, nullptr, 0, 0));
      DIST_OK(pvec_host_to_device(v, nullptr, 0));
      run_path(v, Path::device);
      for (int round = 0; round < 2; ++round) {
        INFO((round == 0 ? "rebuild past the room" : "rebuild within the new room"));
        DIST_OK(pvec_verlet_build(full));
        DIST_OK(pvec_verlet_build(half));
        const HostList df = fetch_list(full), dh = fetch_list(half);
        pvec_verlet_t hf = nullptr, hh = nullptr;
        DIST_OK(pvec_verlet_create(v, cutoff, skin, 1, 0, &hf));
        DIST_OK(pvec_verlet_create(v, cutoff, skin, 1, PVEC_VERLET_HALF, &hh));
        const HostList rf = fetch_list(hf), rh = fetch_list(hh);
        if (df.offsets != rf.offsets || df.nbr != rf.nbr) f.add("full lists differ");
        if (dh.offsets != rh.offsets || dh.nbr != rh.nbr) f.add("half lists differ");
        check_full_list(v, df, cutoff + skin, f);
        DIST_OK(pvec_verlet_destroy(hf));
        DIST_OK(pvec_verlet_destroy(hh));
      }
      f.require("rebuilds past the room");
      DIST_OK(pvec_verlet_destroy(full));
      DIST_OK(pvec_verlet_destroy(half));
      DIST_OK(pvec_vector_destroy(v));
    }
}
