// HDF5 checkpoints and restart (issue 20): round trips at this rank count for every dtype and
// shape (the full schema of dist_util, 1D-4D, float32/float64 positions, an empty rank),
// values bitwise equal after restart, checked as a multiset over ranks (every id once, every
// byte a function of the id); N-to-M restarts through sub-communicators (3 -> 1, 2, 4 and
// 4 -> 3, at 4 ranks); the device-mirror write leaves the host mirror untouched; without
// parallel HDF5 the calls say so. Bad input and damaged files: test_io_checkpoint_errors.cpp.
#include "checkpoint_util.hpp"

#include <string>
#include <vector>

using namespace ckpt_test;

TEST_CASE("checkpoint calls without parallel HDF5 say so", "[io]") {
  if (have_hdf5()) return;
  Props p;
  pvec_vector_t v = make_vector(make_desc(3, PVEC_FLOAT64, false), 4, 4 * rank(), &p);
  CHECK(pvec_checkpoint_write(v, "x.h5", 0, 0.0, 0, nullptr, nullptr, nullptr, 0) ==
        PVEC_ERROR_NOT_SUPPORTED);
  CHECK(std::string(pvec_last_error()).find("HDF5") != std::string::npos);
  int n = -1;
  CHECK(pvec_checkpoint_get_metadata_count("x.h5", &n) == PVEC_ERROR_NOT_SUPPORTED);
  CHECK(n == -1);
  pvec_vector_destroy(v);
}

TEST_CASE("the caller's metadata reads back, strings and numbers, in key order", "[io]") {
  if (!have_hdf5()) return;
  Props p;
  pvec_vector_t v = make_vector(make_desc(2, PVEC_FLOAT64, false), 5, 5 * rank(), &p);
  const std::string path = path_for("meta");
  const char* keys[] = {"dt", "case", "zeta", "alpha"};
  const char* strings[] = {nullptr, "dam break", nullptr, ""};
  const double numbers[] = {0.125, 0, -3e300, 0};
  DIST_OK(pvec_checkpoint_write(v, path.c_str(), 4, 2.0, 4, keys, strings, numbers, 0));
  int n = -1;
  DIST_OK(pvec_checkpoint_get_metadata_count(path.c_str(), &n));
  CHECK(n == 4);
  struct Want {
    const char* key;
    int is_string;
    double number;
    const char* text;
  };
  const Want want[] = {{"alpha", 1, 0, ""},
                       {"case", 1, 0, "dam break"},
                       {"dt", 0, 0.125, ""},
                       {"zeta", 0, -3e300, ""}};
  for (int k = 0; k < 4; ++k) {
    char key[16], text[16];
    int is_string = -1;
    double number = -1;
    size_t len = 99;
    DIST_OK(pvec_checkpoint_get_metadata(path.c_str(), k, key, sizeof key, &is_string, &number,
                                         text, sizeof text, &len));
    CHECK(std::string(key) == want[k].key);
    CHECK(is_string == want[k].is_string);
    CHECK(number == want[k].number);
    CHECK(std::string(text) == want[k].text);
    CHECK(len == std::string(want[k].text).size());
  }
  // The text's length alone, to size a buffer; then buffers too small, and a bad index:
  // errors that write nothing.
  size_t len = 0;
  DIST_OK(pvec_checkpoint_get_metadata(path.c_str(), 1, nullptr, 0, nullptr, nullptr, nullptr, 0,
                                       &len));
  CHECK(len == 9);
  char small[4] = {'x', 'x', 'x', 'x'};
  len = 77;
  CHECK(pvec_checkpoint_get_metadata(path.c_str(), 1, nullptr, 0, nullptr, nullptr, small,
                                     sizeof small, &len) == PVEC_ERROR_INVALID_ARGUMENT);
  CHECK(pvec_checkpoint_get_metadata(path.c_str(), 0, small, sizeof small - 2, nullptr, nullptr,
                                     nullptr, 0, &len) == PVEC_ERROR_INVALID_ARGUMENT);
  CHECK(pvec_checkpoint_get_metadata(path.c_str(), 4, small, sizeof small, nullptr, nullptr,
                                     nullptr, 0, &len) == PVEC_ERROR_OUT_OF_RANGE);
  CHECK((small[0] == 'x' && len == 77));
  barrier();  // every rank has read the file (local calls) before rank 0 removes it
  remove_files(path);
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
