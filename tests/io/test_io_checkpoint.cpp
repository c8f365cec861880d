// HDF5 checkpoints and restart (issue 20): round trips at this rank count for every dtype and
// shape (the full schema of dist_util, 1D-4D, float32/float64 positions, an empty rank),
// values bitwise equal after restart, checked as a multiset over ranks (every id once, every
// byte a function of the id); N-to-M restarts through sub-communicators (3 -> 1, 2, 4 and
// 4 -> 3, at 4 ranks); the device-mirror write leaves the host mirror untouched; without
// parallel HDF5 the calls say so. Bad input and damaged files: test_io_checkpoint_errors.cpp.
#include "checkpoint_util.hpp"

#include <fstream>
#include <string>
#include <vector>

using namespace ckpt_test;

TEST_CASE("checkpoint calls without parallel HDF5 say so", "[io]") {
  if (have_hdf5()) return;
  Props p;
  pvec_vector_t v = make_vector(make_desc(3, PVEC_FLOAT64, false), 4, 4 * rank(), &p);
  CHECK(pvec_checkpoint_write(v, "x.h5", 0, 0.0, nullptr, 0, 0, nullptr, nullptr, nullptr, nullptr,
                              0) == PVEC_ERROR_NOT_SUPPORTED);
  CHECK(std::string(pvec_last_error()).find("HDF5") != std::string::npos);
  int n = -1;
  CHECK(pvec_checkpoint_get_metadata_count("x.h5", &n) == PVEC_ERROR_NOT_SUPPORTED);
  CHECK(n == -1);
  pvec_vector_destroy(v);
}

TEST_CASE("the caller's metadata reads back: strings, numbers and arrays, in key order", "[io]") {
  if (!have_hdf5()) return;
  Props p;
  pvec_vector_t v = make_vector(make_desc(2, PVEC_FLOAT64, false), 5, 5 * rank(), &p);
  const std::string path = path_for("meta");
  // counts: 0 a number, n >= 1 an array of n (also of one); strings take no values.
  const char* keys[] = {"dt", "case", "zeta", "alpha", "g", "one"};
  const char* strings[] = {nullptr, "dam break", nullptr, "", nullptr, nullptr};
  const double numbers[] = {0.125, -3e300, 0.0, -9.81, 7.5};
  const int counts[] = {0, 99, 0, -5, 2, 1};
  DIST_OK(pvec_checkpoint_write(v, path.c_str(), 4, 2.0, nullptr, 0, 6, keys, strings, numbers,
                                counts, 0));
  int n = -1;
  DIST_OK(pvec_checkpoint_get_metadata_count(path.c_str(), &n));
  CHECK(n == 6);
  struct Want {
    const char* key;
    pvec_metadata_kind kind;
    std::vector<double> values;
    const char* text;
  };
  const Want want[] = {
      {"alpha", PVEC_METADATA_STRING, {}, ""},   {"case", PVEC_METADATA_STRING, {}, "dam break"},
      {"dt", PVEC_METADATA_NUMBER, {0.125}, ""}, {"g", PVEC_METADATA_ARRAY, {0.0, -9.81}, ""},
      {"one", PVEC_METADATA_ARRAY, {7.5}, ""},   {"zeta", PVEC_METADATA_NUMBER, {-3e300}, ""}};
  for (int k = 0; k < 6; ++k) {
    char key[16], text[16] = "untouched";
    pvec_metadata_kind kind = PVEC_METADATA_STRING;
    double values[4] = {-1, -1, -1, -1};
    size_t len = 99;
    DIST_OK(pvec_checkpoint_get_metadata(path.c_str(), k, key, sizeof key, &kind, &len, values, 4,
                                         text, sizeof text));
    CHECK(std::string(key) == want[k].key);
    CHECK(kind == want[k].kind);
    if (kind == PVEC_METADATA_STRING) {
      CHECK(std::string(text) == want[k].text);
      CHECK(len == std::string(want[k].text).size());
      CHECK(values[0] == -1);  // a string writes no number
    } else {
      CHECK(std::string(text) == "untouched");  // a number writes no text
      REQUIRE(len == want[k].values.size());
      for (size_t i = 0; i < len; ++i) CHECK(values[i] == want[k].values[i]);
    }
  }
  // The lengths alone, to size buffers; then buffers too small, and a bad index: errors that
  // write nothing.
  size_t len = 0;
  DIST_OK(pvec_checkpoint_get_metadata(path.c_str(), 1, nullptr, 0, nullptr, &len, nullptr, 0,
                                       nullptr, 0));
  CHECK(len == 9);
  DIST_OK(pvec_checkpoint_get_metadata(path.c_str(), 3, nullptr, 0, nullptr, &len, nullptr, 0,
                                       nullptr, 0));
  CHECK(len == 2);
  char small[4] = {'x', 'x', 'x', 'x'};
  double one[1] = {-1};
  len = 77;
  CHECK(pvec_checkpoint_get_metadata(path.c_str(), 1, nullptr, 0, nullptr, &len, nullptr, 0, small,
                                     sizeof small) == PVEC_ERROR_INVALID_ARGUMENT);
  CHECK(pvec_checkpoint_get_metadata(path.c_str(), 0, small, sizeof small - 2, nullptr, &len,
                                     nullptr, 0, nullptr, 0) == PVEC_ERROR_INVALID_ARGUMENT);
  CHECK(pvec_checkpoint_get_metadata(path.c_str(), 3, nullptr, 0, nullptr, &len, one, 1, nullptr,
                                     0) == PVEC_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(pvec_last_error()).find("numbers_size 1") != std::string::npos);
  CHECK(pvec_checkpoint_get_metadata(path.c_str(), 6, small, sizeof small, nullptr, &len, nullptr,
                                     0, nullptr, 0) == PVEC_ERROR_OUT_OF_RANGE);
  CHECK((small[0] == 'x' && len == 77 && one[0] == -1));
  barrier();  // every rank has read the file (local calls) before rank 0 removes it
  remove_files(path);
  // Array lengths outside [0, PVEC_METADATA_MAX_VALUES] are refused, and nothing is written.
  const char* k1[] = {"big"};
  std::vector<double> many(PVEC_METADATA_MAX_VALUES + 1, 1.0);
  for (int bad : {-1, PVEC_METADATA_MAX_VALUES + 1}) {
    CHECK(pvec_checkpoint_write(v, path.c_str(), 0, 0.0, nullptr, 0, 1, k1, nullptr, many.data(),
                                &bad, 0) == PVEC_ERROR_INVALID_ARGUMENT);
    CHECK(std::string(pvec_last_error()).find("counts[0]") != std::string::npos);
    CHECK(!std::ifstream(path));
  }
  // The longest array is written and read back whole.
  int most = PVEC_METADATA_MAX_VALUES;
  many[PVEC_METADATA_MAX_VALUES - 1] = 42;
  DIST_OK(pvec_checkpoint_write(v, path.c_str(), 0, 0.0, nullptr, 0, 1, k1, nullptr, many.data(),
                                &most, 0));
  std::vector<double> back(PVEC_METADATA_MAX_VALUES);
  DIST_OK(pvec_checkpoint_get_metadata(path.c_str(), 0, nullptr, 0, nullptr, &len, back.data(),
                                       back.size(), nullptr, 0));
  CHECK((len == back.size() && back.back() == 42 && back.front() == 1));
  barrier();
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
        DIST_OK(pvec_checkpoint_write(v, path.c_str(), 12, 0.25, nullptr, 0, 3, keys, strings,
                                      numbers, nullptr, device ? PVEC_ON_DEVICE : 0u));
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
    DIST_OK(pvec_checkpoint_write(v, path.c_str(), 0, 0, nullptr, 0, 0, nullptr, nullptr, nullptr,
                                  nullptr, 0));
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

TEST_CASE("chosen properties: a partial checkpoint, restarted with zeros or a subset", "[io]") {
  if (!have_hdf5()) {
    WARN("pvec built without parallel HDF5: not run");
    return;
  }
  // Only id and v3 saved (listed out of order, with PVEC_POS): the full schema restarts only
  // with PVEC_RESTART_ZERO_MISSING, the other properties all zeros on both mirrors (with the
  // CUDA backend, where there is a device: AUTO); a schema of id alone only with
  // PVEC_RESTART_SKIP_EXTRA. Uneven counts at 1-3 ranks: the map moves particles.
  for (const pvec_backend backend : {PVEC_BACKEND_HOST, PVEC_BACKEND_AUTO}) {
    INFO("backend " << backend);
    const std::string path = path_for("partial");
    Props p;
    const int64_t n = 500 + 37 * rank();
    const int64_t first = exscan(n), total = sum(n);
    pvec_vector_desc d = make_desc(3, PVEC_FLOAT32, true);
    d.backend = backend;
    pvec_vector_t v = make_vector(d, n, first, &p);
    DIST_OK(pvec_host_to_device(v, nullptr, 0));
    const int saved[] = {p.v3, PVEC_POS, p.id};
    DIST_OK(pvec_checkpoint_write(v, path.c_str(), 3, 0.5, saved, 3, 0, nullptr, nullptr, nullptr,
                                  nullptr, 0));
    pvec_vector_destroy(v);
    Failures f;
    pvec_schema_t in_file = nullptr;
    DIST_OK(pvec_checkpoint_describe(path.c_str(), nullptr, &in_file, nullptr, nullptr));
    int count = 0;
    char name[64];
    pvec_schema_get_count(in_file, &count);
    if (count != 2) f.addf("the file has ", count, " properties, want 2");
    for (int k = 0; k < count && k < 2; ++k) {
      DIST_OK(pvec_schema_get_property(in_file, k, name, sizeof name, nullptr, nullptr, nullptr));
      if (std::string(name) != (k == 0 ? "id" : "v3")) f.addf("property ", k, " is ", name);
    }
    pvec_schema_destroy(in_file);
    f.require("describe");

    pvec_schema_t full = make_full_schema(&p);
    expect_restart_fails(path, d, full, PVEC_ERROR_INVALID_ARGUMENT, "PVEC_RESTART_ZERO_MISSING",
                         f);
    pvec_vector_t r = nullptr;
    DIST_OK(pvec_checkpoint_restart(path.c_str(), &d, full, PVEC_RESTART_ZERO_MISSING, &r));
    pvec_schema_destroy(full);
    Props saved_only = p;
    saved_only.values = {p.v3};
    check_values(r, saved_only, 0, n_local(r), kSalt, f);
    for (int prop : p.values) {
      if (prop == p.v3) continue;
      pvec_layout l = PVEC_LAYOUT_INIT;
      DIST_OK(pvec_vector_get_layout(r, prop, &l));
      const Column c = column(r, prop);
      for (int64_t i = 0; i < n_local(r); ++i)
        for (int64_t k = 0; k < l.ncomp; ++k)
          if (c.bits(i, k) != 0) f.addf("property ", l.name, " row ", i, " is not zero");
    }
    check_mirrors_agree(r, f);  // the device mirror's zeros too
    std::vector<int64_t> ids;
    for (int64_t i = 0; i < n_local(r); ++i) ids.push_back(id_of(r, p, i));
    check_id_set(ids, total, f);
    pvec_vector_destroy(r);
    f.require("restart with zeros");

    pvec_schema_t ids_only = nullptr;
    DIST_OK(pvec_schema_create(&ids_only));
    int id_prop = -1;
    DIST_OK(pvec_schema_add_scalar(ids_only, "id", PVEC_INT64, &id_prop));
    expect_restart_fails(path, d, ids_only, PVEC_ERROR_INVALID_ARGUMENT, "PVEC_RESTART_SKIP_EXTRA",
                         f);
    DIST_OK(pvec_checkpoint_restart(path.c_str(), &d, ids_only, PVEC_RESTART_SKIP_EXTRA, &r));
    pvec_schema_destroy(ids_only);
    int props_now = 0;
    DIST_OK(pvec_vector_get_prop_count(r, &props_now));
    if (props_now != 1) f.addf("the subset restart has ", props_now, " properties");
    ids.clear();
    for (int64_t i = 0; i < n_local(r); ++i) ids.push_back(column(r, 0).bits(i, 0));
    check_id_set(ids, total, f);
    pvec_vector_destroy(r);
    f.require("restart of a subset");
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
        if (pvec_checkpoint_write(v, path.c_str(), 3, 1.5, nullptr, 0, 0, nullptr, nullptr, nullptr,
                                  nullptr, 0) != PVEC_SUCCESS)
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
