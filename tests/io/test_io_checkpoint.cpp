// HDF5 checkpoints and restart (issue 20): round trips at this rank count for every dtype and
// shape (the full schema of dist_util, 1D-4D, float32/float64 positions, an empty rank),
// values bitwise equal after restart, checked as a multiset over ranks (every id once, every
// byte a function of the id); N-to-M restarts through sub-communicators (3 -> 1, 2, 4 and
// 4 -> 3, at 4 ranks); the device-mirror write leaves the host mirror untouched; and every
// bad input and damaged file gives its documented status and changes nothing. Long because
// it is the whole contract of one file format, case by case.
#include "dist_util.hpp"

#ifndef PVEC_TEST_NO_HDF5
#include <hdf5.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>
#include <string>
#include <unistd.h>

using namespace dist;

namespace {

const double kLo[4] = {-1.0, 0.0, 0.5, 2.0};
const double kHi[4] = {1.0, 3.0, 2.25, 2.5};
constexpr uint64_t kSalt = 20;

bool have_hdf5() {
  int flag = -1;
  REQUIRE(pvec_has_hdf5(&flag) == PVEC_SUCCESS);
  return flag == 1;
}

// Coordinate d of particle id: a function of the id, inside [lo, lo + 0.99 L).
double coord(int64_t id, int d, int dim) {
  const double u = (mix(static_cast<uint64_t>(id) * 31 + d + 7) >> 11) * 0x1.0p-53;
  return kLo[d] + 0.99 * u * (kHi[d] - kLo[d]);
}

std::string path_for(const std::string& name) {
  // Every rank of MPI_COMM_WORLD names the same file (rank 0's pid).
  int64_t pid = rank() == 0 ? static_cast<int64_t>(getpid()) : 0;
  pid = sum(pid);
  return "io_test_" + std::to_string(pid) + "_" + name + ".h5";
}

pvec_vector_desc make_desc(int dim, pvec_dtype pos, bool periodic) {
  pvec_vector_desc d = PVEC_VECTOR_DESC_INIT;
  d.dim = dim;
  d.pos_dtype = pos;
  for (int k = 0; k < dim; ++k) {
    d.domain_lo[k] = kLo[k];
    d.domain_hi[k] = kHi[k];
    d.boundary[k] = periodic && k == 0 ? PVEC_PERIODIC : PVEC_NON_PERIODIC;
  }
  d.ghost_width = 0.1;
  d.backend = PVEC_BACKEND_HOST;
  return d;
}

// n particles with ids [first, first + n), positions and values functions of the id.
pvec_vector_t make_vector(pvec_vector_desc d, int64_t n, int64_t first, Props* p) {
  pvec_schema_t s = make_full_schema(p);
  d.n_particles = n;
  d.placement = PVEC_PLACE_LOCAL;
  pvec_vector_t v = nullptr;
  REQUIRE(pvec_vector_create(&d, s, &v) == PVEC_SUCCESS);
  pvec_schema_destroy(s);
  const Column id = column(v, p->id), pos = column(v, PVEC_POS);
  for (int64_t i = 0; i < n; ++i) {
    id.set_bits(i, 0, static_cast<uint64_t>(first + i));
    for (int k = 0; k < d.dim; ++k) set_pos(pos, i, k, coord(first + i, k, d.dim));
  }
  fill_values(v, *p, 0, n, kSalt);
  return v;
}

// Every local particle: values and coordinates those of its id; returns the local ids.
std::vector<int64_t> check_particles(pvec_vector_t v, const Props& p, Failures& f) {
  const int64_t n = n_local(v);
  check_values(v, p, 0, n, kSalt, f);
  const Column pos = column(v, PVEC_POS);
  std::vector<int64_t> ids;
  pvec_vector_desc probe = PVEC_VECTOR_DESC_INIT;
  probe.pos_dtype = pos_dtype(v);
  const int dim = dim_of(v);
  // The expected coordinate, rounded to the position type as set_pos rounds it.
  for (int64_t i = 0; i < n; ++i) {
    const int64_t id = id_of(v, p, i);
    ids.push_back(id);
    for (int k = 0; k < dim; ++k) {
      const double want = probe.pos_dtype == PVEC_FLOAT32
                              ? static_cast<double>(static_cast<float>(coord(id, k, dim)))
                              : coord(id, k, dim);
      const double got = get_pos(pos, i, k);
      if (std::memcmp(&want, &got, sizeof got) != 0)
        f.addf("particle ", id, " coordinate ", k, ": ", got, ", want ", want);
    }
  }
  return ids;
}

void check_id_set(const std::vector<int64_t>& local, int64_t n_global, Failures& f) {
  std::vector<int64_t> all = allgather(local);
  std::sort(all.begin(), all.end());
  if (static_cast<int64_t>(all.size()) != n_global) {
    f.addf("global count ", all.size(), ", want ", n_global);
    return;
  }
  for (int64_t k = 0; k < n_global; ++k)
    if (all[k] != k) {
      f.addf("id ", k, " missing or repeated (found ", all[k], ")");
      return;
    }
}

// The device mirror holds what the host mirror holds, on either backend: a copy from the
// device mirror to the host mirror changes no host byte.
void check_mirrors_agree(pvec_vector_t v, Failures& f) {
  const pvec_test::Snapshot before = pvec_test::snapshot(v);
  REQUIRE(pvec_device_to_host(v, nullptr, 0) == PVEC_SUCCESS);
  const pvec_test::Snapshot after = pvec_test::snapshot(v);
  for (size_t k = 0; k < before.cols.size(); ++k)
    if (before.cols[k] != after.cols[k]) f.addf("column ", k, ": the device mirror differs");
}

void remove_files(const std::string& path) {
  if (rank() == 0) {
    std::remove(path.c_str());
    std::remove((path.substr(0, path.size() - 3) + ".xmf").c_str());
    std::remove((path + ".tmp").c_str());
  }
  barrier();
}

}  // namespace

TEST_CASE("checkpoint calls without parallel HDF5 say so", "[io]") {
  if (have_hdf5()) return;
  Props p;
  pvec_vector_t v = make_vector(make_desc(3, PVEC_FLOAT64, false), 4, 4 * rank(), &p);
  CHECK(pvec_checkpoint_write(v, "x.h5", 0, 0.0, 0, nullptr, nullptr, nullptr, 0) ==
        PVEC_ERROR_NOT_SUPPORTED);
  CHECK(std::string(pvec_last_error()).find("HDF5") != std::string::npos);
  pvec_vector_destroy(v);
}

TEST_CASE("checkpoint round trip at this rank count, every dtype and shape", "[io]") {
  if (!have_hdf5()) {
    WARN("pvec built without parallel HDF5: checkpoint round trips not run");
    return;
  }
  struct C {
    int dim;
    pvec_dtype pos;
    bool periodic;
  };
  for (const C c : {C{1, PVEC_FLOAT64, false}, C{2, PVEC_FLOAT32, true}, C{3, PVEC_FLOAT64, true},
                    C{3, PVEC_FLOAT32, false}, C{4, PVEC_FLOAT64, false}}) {
    // 23 + ...: a fraction of a staged block; 50000 + ...: several blocks of every column
    // (io/staging.hpp stages about 1 MiB of rows at a time), with a partial last one.
    for (const int64_t base : {int64_t{23}, int64_t{50000}})
      for (const bool device : {false, true}) {
        if (base > 23 && c.dim != 3) continue;
        INFO("dim " << c.dim << " pos " << pvec_dtype_name(c.pos) << " device " << device << " n "
                    << base);
        const std::string path = path_for("rt");
        Props p;
        // Rank 1 starts empty.
        const int64_t n = rank() == 1 ? 0 : base + 7 * rank();
        const int64_t first = exscan(n), total = sum(n);
        pvec_vector_desc d = make_desc(c.dim, c.pos, c.periodic);
        pvec_vector_t v = make_vector(d, n, first, &p);
        DIST_OK(pvec_map(v, 0, nullptr));
        Failures f;
        if (device) {
          // The device mirror holds the data, the host mirror something else: the write must
          // read the device one and leave the host one as it is.
          DIST_OK(pvec_host_to_device(v, nullptr, 0));
          fill_values(v, p, 0, n_local(v), kSalt + 1);
        }
        const pvec_test::Snapshot before = pvec_test::snapshot(v);
        const int64_t mine = n_local(v);
        const char* keys[] = {"run", "dt", "seed"};
        const char* strings[] = {"io-test", nullptr, nullptr};
        const double numbers[] = {0, 0.5, 42};
        DIST_OK(pvec_checkpoint_write(v, path.c_str(), 12, 0.25, 3, keys, strings, numbers,
                                      device ? PVEC_ON_DEVICE : 0u));
        if (!(pvec_test::snapshot(v) == before)) f.add("the write changed the vector");
        pvec_vector_destroy(v);

        // Describe gives back the geometry and the schema.
        pvec_vector_desc got = PVEC_VECTOR_DESC_INIT;
        pvec_schema_t schema = nullptr;
        int64_t step = -1;
        double time = -1;
        DIST_OK(pvec_checkpoint_describe(path.c_str(), &got, &schema, &step, &time));
        if (step != 12 || time != 0.25) f.addf("step ", step, " time ", time);
        if (got.dim != c.dim || got.pos_dtype != c.pos) f.add("dim or pos dtype differ");
        for (int k = 0; k < c.dim; ++k)
          if (got.domain_lo[k] != kLo[k] || got.domain_hi[k] != kHi[k] ||
              got.boundary[k] != d.boundary[k])
            f.addf("domain or boundary ", k, " differs");
        if (got.ghost_width != d.ghost_width) f.add("ghost width differs");
        int count = 0;
        pvec_schema_get_count(schema, &count);
        if (count != static_cast<int>(p.all.size())) f.addf("schema has ", count, " properties");
        f.require("describe");

        got.backend = PVEC_BACKEND_HOST;
        pvec_vector_t r = nullptr;
        DIST_OK(pvec_checkpoint_restart(path.c_str(), &got, schema, 0, &r));
        pvec_schema_destroy(schema);
        const std::vector<int64_t> ids = check_particles(r, p, f);
        check_id_set(ids, total, f);
        // Distributed: every particle on the rank that owns it.
        const Decomp dc = decomposition(r);
        check_positions_owned(r, dc, f);
        // Both mirrors hold the data: compare the device mirror (host memory here) as well.
        const pvec_test::Snapshot s = pvec_test::snapshot(r);
        for (size_t k = 0; k < s.cols.size() && k < s.dev.size(); ++k)
          if (s.cols[k] != s.dev[k]) f.addf("column ", k, ": the device mirror differs");
        // On the rank count that wrote it, each rank reads the rows it wrote, which it owns:
        // the map moves nothing, and the rows come back in their order.
        pvec_op_stats st{};
        st.struct_size = sizeof st;
        DIST_OK(pvec_vector_get_op_stats(r, &st));
        if (st.particles_sent != 0 || st.particles_received != 0)
          f.addf("the restart's map sent ", st.particles_sent, " and received ",
                 st.particles_received, " particles");
        if (n_local(r) != mine) f.addf("restarted with ", n_local(r), " rows, wrote ", mine);
        const std::vector<std::vector<unsigned char>>& wrote = device ? before.dev : before.cols;
        if (!wrote.empty() && s.cols != wrote) f.add("the rows came back in another order");
        f.require("restart");
        pvec_vector_destroy(r);
        remove_files(path);
      }
  }
}

TEST_CASE("restart: both mirrors hold the rows its map wrapped or moved", "[io]") {
  if (!have_hdf5()) {
    WARN("pvec built without parallel HDF5: not run");
    return;
  }
  // Written unmapped, with every x one period above the box (x is periodic): on the rank
  // count that wrote it, each rank reads its own rows back and the restart's map must wrap
  // every one of them, and, with several ranks, move those another rank owns. The device
  // mirror must end up with the map's rows, not the file's.
  for (const pvec_backend backend : {PVEC_BACKEND_HOST, PVEC_BACKEND_AUTO}) {
    INFO("backend " << backend);
    const std::string path = path_for("wrap");
    Props p;
    const int64_t n = 3000 + 11 * rank();
    const int64_t first = exscan(n), total = sum(n);
    pvec_vector_desc d = make_desc(3, PVEC_FLOAT64, true);
    d.backend = backend;
    pvec_vector_t v = make_vector(d, n, first, &p);
    const Column pos = column(v, PVEC_POS);
    for (int64_t i = 0; i < n; ++i) set_pos(pos, i, 0, get_pos(pos, i, 0) + (kHi[0] - kLo[0]));
    DIST_OK(pvec_host_to_device(v, nullptr, 0));
    DIST_OK(pvec_checkpoint_write(v, path.c_str(), 0, 0, 0, nullptr, nullptr, nullptr, 0));
    pvec_vector_destroy(v);
    pvec_schema_t s = make_full_schema(&p);
    pvec_vector_t r = nullptr;
    DIST_OK(pvec_checkpoint_restart(path.c_str(), &d, s, 0, &r));
    pvec_schema_destroy(s);
    Failures f;
    const Column back = column(r, PVEC_POS);
    for (int64_t i = 0; i < n_local(r); ++i)
      if (!(get_pos(back, i, 0) >= kLo[0] && get_pos(back, i, 0) < kHi[0]))
        f.addf("particle ", i, " x = ", get_pos(back, i, 0), " was not wrapped");
    check_mirrors_agree(r, f);
    std::vector<int64_t> ids;
    for (int64_t i = 0; i < n_local(r); ++i) ids.push_back(id_of(r, p, i));
    check_id_set(ids, total, f);
    f.require("restart");
    pvec_vector_destroy(r);
    remove_files(path);
  }
}

#ifdef PVEC_TEST_HAVE_MPI
namespace {
// Ranks [0, k) of the world in a communicator; MPI_COMM_NULL on the others.
MPI_Comm first_ranks(int k) {
  MPI_Comm c = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, rank() < k ? 0 : MPI_UNDEFINED, rank(), &c);
  return c;
}
}  // namespace

TEST_CASE("restart on another rank count: 3 -> 1, 2, 4 and 4 -> 3", "[io][n_to_m]") {
  if (!have_hdf5() || size() < 4) {
    WARN("needs parallel HDF5 and 4 ranks");
    return;
  }
  struct NM {
    int from, to;
  };
  for (const NM c : {NM{3, 1}, NM{3, 2}, NM{3, 4}, NM{4, 3}}) {
    INFO(c.from << " ranks -> " << c.to << " ranks");
    const std::string path = path_for("nm");
    Props p;
    Failures f;
    int64_t total = 0;
    {
      MPI_Comm w = first_ranks(c.from);
      const int64_t n = rank() < c.from ? 40 + 13 * rank() : 0;
      const int64_t first = exscan(n);
      total = sum(n);
      if (w != MPI_COMM_NULL) {
        pvec_vector_desc d = make_desc(3, PVEC_FLOAT64, true);
        pvec_vector_desc_set_comm(&d, w);
        pvec_vector_t v = make_vector(d, n, first, &p);
        if (pvec_map(v, 0, nullptr) != PVEC_SUCCESS) f.add(pvec_last_error());
        if (pvec_checkpoint_write(v, path.c_str(), 3, 1.5, 0, nullptr, nullptr, nullptr, 0) !=
            PVEC_SUCCESS)
          f.add(pvec_last_error());
        pvec_vector_destroy(v);
        MPI_Comm_free(&w);
      }
      f.require("write");
    }
    MPI_Comm r = first_ranks(c.to);
    std::vector<int64_t> ids;
    if (r != MPI_COMM_NULL) {
      pvec_vector_desc d = make_desc(3, PVEC_FLOAT64, true);
      pvec_vector_desc_set_comm(&d, r);
      pvec_schema_t s = make_full_schema(&p);
      pvec_vector_t v = nullptr;
      if (pvec_checkpoint_restart(path.c_str(), &d, s, 0, &v) != PVEC_SUCCESS) {
        f.add(pvec_last_error());
      } else {
        ids = check_particles(v, p, f);
        check_mirrors_agree(v, f);
        // Particles on their owners: each rank's local positions inside its subdomain.
        double lo[3], hi[3];
        pvec_vector_get_subdomain(v, lo, hi);
        const Column pos = column(v, PVEC_POS);
        for (int64_t i = 0; i < n_local(v); ++i)
          for (int k = 0; k < 3; ++k) {
            const double x = get_pos(pos, i, k);
            if (x < lo[k] || (x >= hi[k] && hi[k] != kHi[k]))
              f.addf("particle ", i, " coordinate ", k, " = ", x, " outside its subdomain");
          }
        pvec_vector_destroy(v);
      }
      pvec_schema_destroy(s);
      MPI_Comm_free(&r);
    }
    check_id_set(ids, total, f);
    f.require("restart");
    remove_files(path);
  }
}
#endif

namespace {

// A small checkpoint (every rank), its schema and desc, for the bad-input cases.
struct Small {
  std::string path;
  Props p;
  pvec_vector_desc d;
  Small(const std::string& name) : path(path_for(name)), d(make_desc(2, PVEC_FLOAT64, false)) {
    pvec_vector_t v = make_vector(d, 10, 10 * rank(), &p);
    DIST_OK(pvec_map(v, 0, nullptr));
    DIST_OK(pvec_checkpoint_write(v, path.c_str(), 1, 0.5, 0, nullptr, nullptr, nullptr, 0));
    pvec_vector_destroy(v);
  }
  ~Small() { remove_files(path); }
};

// pvec_checkpoint_restart must fail with want on every rank, naming `words` in the message, and
// leave out alone.
void expect_restart_fails(const std::string& path, const pvec_vector_desc& d, pvec_schema_t s,
                          pvec_status want, const std::string& words, Failures& f) {
  pvec_vector_t out = reinterpret_cast<pvec_vector_t>(0x1234);
  const pvec_status st = pvec_checkpoint_restart(path.c_str(), &d, s, 0, &out);
  const std::string msg = pvec_last_error();
  if (st != want)
    f.addf("status ", pvec_status_string(st), " want ", pvec_status_string(want), ": ", msg);
  if (msg.find(words) == std::string::npos) f.addf("message '", msg, "' lacks '", words, "'");
  if (out != reinterpret_cast<pvec_vector_t>(0x1234)) f.add("out was written");
}

}  // namespace

TEST_CASE("restart validates the request and names the first mismatch", "[io][errors]") {
  if (!have_hdf5()) return;
  Small c("bad");
  Failures f;
  pvec_schema_t good = make_full_schema(&c.p);
  // Wrong dtype requested for one property.
  {
    pvec_schema_t s = nullptr;
    pvec_schema_create(&s);
    for (const char* name : {"id", "f32", "f64", "i32", "u32", "u64"})
      pvec_schema_add_scalar(s, name,
                             std::string(name) == "f32" ? PVEC_FLOAT64
                             : std::string(name) == "id"
                                 ? PVEC_INT64
                                 : (std::string(name) == "f64"   ? PVEC_FLOAT64
                                    : std::string(name) == "i32" ? PVEC_INT32
                                    : std::string(name) == "u32" ? PVEC_UINT32
                                                                 : PVEC_UINT64),
                             nullptr);
    pvec_schema_add_vector(s, "v3", PVEC_FLOAT64, 3, nullptr);
    pvec_schema_add_vector(s, "vi3", PVEC_INT32, 3, nullptr);
    pvec_schema_add_tensor(s, "t23", PVEC_FLOAT32, 2, 3, nullptr);
    pvec_schema_add_tensor(s, "tu23", PVEC_UINT64, 2, 3, nullptr);
    pvec_schema_add_tensor(s, "t57", PVEC_FLOAT32, 5, 7, nullptr);
    expect_restart_fails(c.path, c.d, s, PVEC_ERROR_DTYPE_MISMATCH, "'f32'", f);
    pvec_schema_destroy(s);
  }
  // Missing property in the request (the file has an extra one), and an extra one requested.
  {
    pvec_schema_t s = nullptr;
    pvec_schema_create(&s);
    pvec_schema_add_scalar(s, "id", PVEC_INT64, nullptr);
    expect_restart_fails(c.path, c.d, s, PVEC_ERROR_INVALID_ARGUMENT, "'f32'", f);
    pvec_schema_destroy(s);
    Props q;
    pvec_schema_t t = make_full_schema(&q);
    pvec_schema_add_scalar(t, "extra", PVEC_FLOAT32, nullptr);
    expect_restart_fails(c.path, c.d, t, PVEC_ERROR_INVALID_ARGUMENT, "'extra'", f);
    pvec_schema_destroy(t);
  }
  // Wrong shape.
  {
    pvec_schema_t s = nullptr;
    pvec_schema_create(&s);
    pvec_schema_add_scalar(s, "id", PVEC_INT64, nullptr);
    pvec_schema_add_scalar(s, "f32", PVEC_FLOAT32, nullptr);
    pvec_schema_add_scalar(s, "f64", PVEC_FLOAT64, nullptr);
    pvec_schema_add_scalar(s, "i32", PVEC_INT32, nullptr);
    pvec_schema_add_scalar(s, "u32", PVEC_UINT32, nullptr);
    pvec_schema_add_scalar(s, "u64", PVEC_UINT64, nullptr);
    pvec_schema_add_vector(s, "v3", PVEC_FLOAT64, 2, nullptr);
    expect_restart_fails(c.path, c.d, s, PVEC_ERROR_INVALID_ARGUMENT, "'v3' is vector[3]", f);
    pvec_schema_destroy(s);
  }
  // Wrong dimension, domain, boundary, position dtype.
  {
    pvec_vector_desc d = c.d;
    d.dim = 3;
    expect_restart_fails(c.path, d, good, PVEC_ERROR_INVALID_ARGUMENT, "dimension", f);
    d = c.d;
    d.domain_hi[1] = 4.0;
    expect_restart_fails(c.path, d, good, PVEC_ERROR_INVALID_ARGUMENT, "domain", f);
    d = c.d;
    d.boundary[0] = PVEC_PERIODIC;
    expect_restart_fails(c.path, d, good, PVEC_ERROR_INVALID_ARGUMENT, "boundary", f);
    d = c.d;
    d.pos_dtype = PVEC_FLOAT32;
    expect_restart_fails(c.path, d, good, PVEC_ERROR_DTYPE_MISMATCH, "positions", f);
  }
  // Bad arguments.
  {
    pvec_vector_t out = nullptr;
    if (pvec_checkpoint_restart(nullptr, &c.d, good, 0, &out) != PVEC_ERROR_INVALID_ARGUMENT)
      f.add("path NULL");
    if (pvec_checkpoint_restart(c.path.c_str(), &c.d, good, 7, &out) != PVEC_ERROR_INVALID_ARGUMENT)
      f.add("flags");
    if (pvec_checkpoint_restart(c.path.c_str(), &c.d, good, 0, nullptr) !=
        PVEC_ERROR_INVALID_ARGUMENT)
      f.add("out NULL");
    expect_restart_fails("no_such_file.h5", c.d, good, PVEC_ERROR_IO, "no_such_file.h5", f);
  }
  f.require("mismatches");
  pvec_schema_destroy(good);
}

#ifndef PVEC_TEST_NO_HDF5
TEST_CASE("damaged checkpoints are clear errors, never a crash", "[io][errors]") {
  if (!have_hdf5()) return;
  Small c("damaged");
  Failures f;
  pvec_schema_t good = make_full_schema(&c.p);
  const std::vector<char> whole = read_all(c.path);
  const std::string copy = c.path + ".copy.h5";
  auto damaged = [&](const char* what, const std::function<void(std::vector<char>&)>& edit,
                     const std::string& words) {
    if (rank() == 0) {
      std::vector<char> b = whole;
      edit(b);
      write_all(copy, b);
    }
    barrier();
    INFO(what);
    expect_restart_fails(copy, c.d, good, PVEC_ERROR_IO, words, f);
    pvec_vector_desc d = PVEC_VECTOR_DESC_INIT;
    pvec_schema_t s = nullptr;
    if (pvec_checkpoint_describe(copy.c_str(), &d, &s, nullptr, nullptr) != PVEC_ERROR_IO)
      f.addf(what, ": describe did not fail with IO");
    if (s != nullptr) f.addf(what, ": describe created a schema");
    barrier();
  };
  damaged(
      "truncated to half", [](std::vector<char>& b) { b.resize(b.size() / 2); }, copy);
  damaged(
      "truncated to 100 bytes", [](std::vector<char>& b) { b.resize(100); }, copy);
  damaged(
      "empty", [](std::vector<char>& b) { b.clear(); }, copy);
  damaged(
      "signature flipped",
      [](std::vector<char>& b) {
        b[1] ^= 0x5a;
        b[3] ^= 0x33;
      },
      copy);
  damaged(
      "superblock flipped",
      [](std::vector<char>& b) {
        for (int k = 8; k < 48; ++k) b[k] ^= 0xff;
      },
      copy);
  // The completion attribute missing: as a crash before the end leaves the file.
  if (rank() == 0) {
    write_all(copy, whole);
    hid_t file = H5Fopen(copy.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    H5Adelete(file, "complete");
    H5Fclose(file);
  }
  barrier();
  expect_restart_fails(copy, c.d, good, PVEC_ERROR_IO, "incomplete", f);
  // Another attribute missing.
  if (rank() == 0) {
    write_all(copy, whole);
    hid_t file = H5Fopen(copy.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    H5Adelete(file, "domain_lo");
    H5Fclose(file);
  }
  barrier();
  expect_restart_fails(copy, c.d, good, PVEC_ERROR_IO, "'domain_lo' is missing", f);
  // Not HDF5 at all.
  if (rank() == 0) write_all(copy, std::vector<char>(4096, 'x'));
  barrier();
  expect_restart_fails(copy, c.d, good, PVEC_ERROR_IO, "not an HDF5 file", f);
  f.require("damaged files");
  if (rank() == 0) std::remove(copy.c_str());
  pvec_schema_destroy(good);
}

#endif

TEST_CASE("checkpoint write: bad arguments change nothing; a failed write leaves no file",
          "[io][errors]") {
  if (!have_hdf5()) return;
  Small c("args");
  Props p;
  pvec_vector_t v = make_vector(c.d, 5, 5 * rank(), &p);
  const pvec_test::Snapshot before = pvec_test::snapshot(v);
  const std::vector<char> file_before = read_all(c.path);
  Failures f;
  const char* keys[] = {"a", "a"};
  const char* empty_key[] = {""};
  const double nums[] = {1, 2};
  struct Bad {
    const char* what;
    pvec_status want;
    std::function<pvec_status()> call;
  };
  const char* path = c.path.c_str();
  const Bad bad[] = {
      {"path NULL", PVEC_ERROR_INVALID_ARGUMENT,
       [&] { return pvec_checkpoint_write(v, nullptr, 0, 0, 0, nullptr, nullptr, nullptr, 0); }},
      {"path empty", PVEC_ERROR_INVALID_ARGUMENT,
       [&] { return pvec_checkpoint_write(v, "", 0, 0, 0, nullptr, nullptr, nullptr, 0); }},
      {"time NaN", PVEC_ERROR_INVALID_ARGUMENT,
       [&] { return pvec_checkpoint_write(v, path, 0, NAN, 0, nullptr, nullptr, nullptr, 0); }},
      {"n_attrs < 0", PVEC_ERROR_INVALID_ARGUMENT,
       [&] { return pvec_checkpoint_write(v, path, 0, 0, -1, nullptr, nullptr, nullptr, 0); }},
      {"keys NULL", PVEC_ERROR_INVALID_ARGUMENT,
       [&] { return pvec_checkpoint_write(v, path, 0, 0, 1, nullptr, nullptr, nums, 0); }},
      {"repeated key", PVEC_ERROR_INVALID_ARGUMENT,
       [&] { return pvec_checkpoint_write(v, path, 0, 0, 2, keys, nullptr, nums, 0); }},
      {"empty key", PVEC_ERROR_INVALID_ARGUMENT,
       [&] { return pvec_checkpoint_write(v, path, 0, 0, 1, empty_key, nullptr, nums, 0); }},
      {"numbers NULL", PVEC_ERROR_INVALID_ARGUMENT,
       [&] { return pvec_checkpoint_write(v, path, 0, 0, 1, keys, nullptr, nullptr, 0); }},
      {"flags", PVEC_ERROR_INVALID_ARGUMENT,
       [&] { return pvec_checkpoint_write(v, path, 0, 0, 0, nullptr, nullptr, nullptr, 64); }},
      {"NULL handle", PVEC_ERROR_INVALID_HANDLE,
       [&] { return pvec_checkpoint_write(nullptr, path, 0, 0, 0, nullptr, nullptr, nullptr, 0); }},
      {"no such folder", PVEC_ERROR_IO, [&] {
         return pvec_checkpoint_write(v, "no_such_folder/x.h5", 0, 0, 0, nullptr, nullptr, nullptr,
                                      0);
       }}};
  for (const Bad& b : bad) {
    const pvec_status s = b.call();
    if (s != b.want)
      f.addf(b.what, ": ", pvec_status_string(s), ", want ", pvec_status_string(b.want), ": ",
             pvec_last_error());
    if (std::string(pvec_last_error()).empty()) f.addf(b.what, ": no message");
  }
  if (!(pvec_test::snapshot(v) == before)) f.add("the vector changed");
  if (read_all(c.path) != file_before) f.add("the existing checkpoint changed");
  if (std::ifstream("no_such_folder/x.h5.tmp")) f.add("a temporary file was left");
  f.require("bad writes");
  pvec_vector_destroy(v);
}
