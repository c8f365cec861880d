// The file block loop at 1, 2 and 3 host threads (io/block_pipeline.hpp): with blocks of a few
// rows (many per column, an odd count, a short last one), a checkpoint's datasets, the
// vector a restart reads and the VTK pieces (from the host and the device mirror) are the
// same bytes at every thread count. A file call that fails, or a staging step that throws,
// in the middle of a column gives PVEC_ERROR_IO on the failing rank and PVEC_ERROR_MPI on the
// others, at one thread and at two, leaves no file, and does not hang the thread pair. A
// restart's pread on the host threads (BlockPipeline::read_parallel) gives what HDF5's own
// reads give, and copies of the file in layouts pvec does not write (chunked, deflated, the
// other byte order), which HDF5 reads, restart to the same vector. Both mirrors of a restart
// hold the file's rows on either backend, with pinned and pageable host mirrors, whether the
// device mirror is filled as each block is read (particles/staged_transfer.hpp, LaneUpload)
// or after the map.
#include "backend/host_parallel.hpp"
#include "dist_util.hpp"
#include "io/block_pipeline.hpp"
#include "io/staging.hpp"
#include "scoped_option.hpp"

#ifndef PVEC_TEST_NO_HDF5
#include <hdf5.h>
#endif

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

using namespace dist;
using pvec::impl::force_host_threads;
using pvec::impl::io::BlockPipeline;
using pvec::impl::io::force_stage_bytes_for_tests;

namespace {

bool exists(const std::string& path) { return static_cast<bool>(std::ifstream(path)); }

// Every rank names rank 0's folder.
std::string folder() {
  int64_t pid = rank() == 0 ? static_cast<int64_t>(getpid()) : 0;
  pid = sum(pid);
  const std::string dir = "io_threads_" + std::to_string(pid);
  if (rank() == 0) ::mkdir(dir.c_str(), 0777);
  barrier();
  return dir;
}

// Rank 0 removes a passed test's folder (a failed one keeps it, for inspection: require
// throws before this runs).
void drop(const std::string& dir) {
  barrier();
  if (rank() == 0) std::filesystem::remove_all(dir);
}

// 3D, float64 positions, the full schema; 301 + 37 r particles with random positions, mapped.
pvec_vector_t make(Props* p) {
  pvec_schema_t s = make_full_schema(p);
  pvec_vector_desc d = PVEC_VECTOR_DESC_INIT;
  d.dim = 3;
  d.pos_dtype = PVEC_FLOAT64;
  d.ghost_width = 0.1;
  d.boundary[0] = PVEC_PERIODIC;
  d.n_particles = 301 + 37 * rank();
  d.placement = PVEC_PLACE_LOCAL;
  d.backend = PVEC_BACKEND_HOST;
  pvec_vector_t v = nullptr;
  DIST_OK(pvec_vector_create(&d, s, &v));
  pvec_schema_destroy(s);
  const Column pos = column(v, PVEC_POS), id = column(v, p->id);
  Rng rng(11 + rank());
  const int64_t n = n_local(v), first = exscan(n);
  for (int64_t i = 0; i < n; ++i) {
    id.set_bits(i, 0, static_cast<uint64_t>(first + i));
    for (int k = 0; k < 3; ++k) set_pos(pos, i, k, rng.uniform(0.0, 0.999));
  }
  fill_values(v, *p, 0, n, 5);
  DIST_OK(pvec_map(v, 0, nullptr));
  DIST_OK(pvec_host_to_device(v, nullptr, 0));
  return v;
}

#ifndef PVEC_TEST_NO_HDF5
// The raw bytes of every dataset of a checkpoint (as h5diff compares them), read serially.
std::string datasets(const std::string& path) {
  std::string out;
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(f >= 0);
  auto add = [&](const std::string& name) {
    const hid_t d = H5Dopen2(f, name.c_str(), H5P_DEFAULT);
    REQUIRE(d >= 0);
    const hid_t t = H5Dget_type(d);
    const hid_t s = H5Dget_space(d);
    const size_t bytes = H5Tget_size(t) * static_cast<size_t>(H5Sget_simple_extent_npoints(s));
    std::string b(bytes, '\0');
    if (bytes) REQUIRE(H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, &b[0]) >= 0);
    out += name + ":" + std::to_string(bytes) + ":" + b;
    H5Sclose(s);
    H5Tclose(t);
    H5Dclose(d);
  };
  add("/positions");
  add("/rank_counts");
  for (const char* p : {"id", "f32", "f64", "i32", "u32", "u64", "v3", "vi3", "t23", "tu23", "t57"})
    add(std::string("/properties/") + p);
  H5Fclose(f);
  return out;
}

// A copy of the checkpoint at `from` with every dataset rewritten holding the same values in
// a layout pvec does not write: chunked (how 0), deflated (1) or in the other byte order (2).
// A restart reads those through HDF5, not with pread (io/raw_dataset.hpp).
void relayout(const std::string& from, const std::string& to, int how) {
  std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing);
  const hid_t f = H5Fopen(to.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  REQUIRE(f >= 0);
  auto redo = [&](const std::string& name) {
    const hid_t d = H5Dopen2(f, name.c_str(), H5P_DEFAULT);
    REQUIRE(d >= 0);
    const hid_t t = H5Dget_type(d), space = H5Dget_space(d);
    const int nd = H5Sget_simple_extent_ndims(space);
    std::vector<hsize_t> dims(static_cast<size_t>(nd));
    H5Sget_simple_extent_dims(space, dims.data(), nullptr);
    std::string b(H5Tget_size(t) * static_cast<size_t>(H5Sget_simple_extent_npoints(space)), '\0');
    if (!b.empty()) REQUIRE(H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, &b[0]) >= 0);
    // The checksums are of the values, whatever the layout: the copy keeps them.
    const hid_t a = H5Aopen(d, "checksums", H5P_DEFAULT);
    REQUIRE(a >= 0);
    const hid_t as = H5Aget_space(a);
    std::vector<uint64_t> sums(static_cast<size_t>(H5Sget_simple_extent_npoints(as)));
    REQUIRE(H5Aread(a, H5T_NATIVE_UINT64, sums.data()) >= 0);
    H5Aclose(a);
    H5Dclose(d);
    REQUIRE(H5Ldelete(f, name.c_str(), H5P_DEFAULT) >= 0);
    const hid_t ft = H5Tcopy(t);
    const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (how == 2) {
      H5Tset_order(ft, H5Tget_order(t) == H5T_ORDER_LE ? H5T_ORDER_BE : H5T_ORDER_LE);
    } else {
      std::vector<hsize_t> chunk = dims;
      chunk[0] = std::max<hsize_t>(1, std::min<hsize_t>(dims[0], 7));
      H5Pset_chunk(dcpl, nd, chunk.data());
      if (how == 1) H5Pset_deflate(dcpl, 6);
    }
    const hid_t z = H5Dcreate2(f, name.c_str(), ft, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    REQUIRE(z >= 0);
    if (!b.empty()) REQUIRE(H5Dwrite(z, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, &b[0]) >= 0);
    const hid_t za = H5Acreate2(z, "checksums", H5T_STD_U64LE, as, H5P_DEFAULT, H5P_DEFAULT);
    REQUIRE((za >= 0 && H5Awrite(za, H5T_NATIVE_UINT64, sums.data()) >= 0));
    H5Aclose(za);
    H5Sclose(as);
    H5Dclose(z);
    H5Pclose(dcpl);
    H5Tclose(ft);
    H5Sclose(space);
    H5Tclose(t);
  };
  redo("/positions");
  for (const char* p : {"id", "f32", "f64", "i32", "u32", "u64", "v3", "vi3", "t23", "tu23", "t57"})
    redo(std::string("/properties/") + p);
  REQUIRE(H5Fclose(f) >= 0);
}
#endif

// The desc and schema the checkpoint at path describes, for a host-backend restart.
pvec_vector_desc described(const std::string& path, pvec_schema_t* schema) {
  pvec_vector_desc d = PVEC_VECTOR_DESC_INIT;
  int64_t step = 0;
  double time = 0;
  DIST_OK(pvec_checkpoint_describe(path.c_str(), &d, schema, &step, &time));
  d.backend = PVEC_BACKEND_HOST;
  return d;
}

// The restart of the checkpoint at path, as a snapshot of this rank's rows.
pvec_test::Snapshot restarted(const std::string& path) {
  pvec_schema_t s = nullptr;
  const pvec_vector_desc d = described(path, &s);
  pvec_vector_t r = nullptr;
  DIST_OK(pvec_checkpoint_restart(path.c_str(), &d, s, 0, &r));
  pvec_schema_destroy(s);
  pvec_test::Snapshot snap = pvec_test::snapshot(r);
  DIST_OK(pvec_vector_destroy(r));
  return snap;
}

// A checkpoint of make()'s vector at dir/name, written collectively; the vector is gone.
std::string checkpoint_of_made(const std::string& dir, const std::string& name) {
  Props p;
  pvec_vector_t v = make(&p);
  const std::string h5 = dir + "/" + name;
  DIST_OK(pvec_checkpoint_write(v, h5.c_str(), 1, 0.5, nullptr, 0, 0, nullptr, nullptr, nullptr,
                                nullptr, 0));
  DIST_OK(pvec_vector_destroy(v));
  return h5;
}

bool have_hdf5() {
  int flag = -1;
  REQUIRE(pvec_has_hdf5(&flag) == PVEC_SUCCESS);
  return flag == 1;
}

// The status every rank must see when `failing` fails and the others do not.
pvec_status want_status(bool failing_here, bool any) {
  return failing_here ? PVEC_ERROR_IO : any ? PVEC_ERROR_MPI : PVEC_SUCCESS;
}

}  // namespace

TEST_CASE("file blocks: the same bytes at 1, 2 and 3 host threads", "[io][threads]") {
  const std::string dir = folder();
  force_stage_bytes_for_tests(200);  // 8 rows of positions per block, 5 of v3, ...
  Props p;
  pvec_vector_t v = make(&p);
  Failures f;
  std::string ckpt[4], vtp[4], vtp_dev[4];
  std::vector<std::vector<unsigned char>> restarts[4];
  int64_t restarts_n[4] = {0, 0, 0, 0};
  const bool hdf5 = have_hdf5();
  char piece[64];
  for (int t : {1, 2, 3}) {
    force_host_threads(t);
    const std::string tag = std::to_string(t);
    const std::string h5 = dir + "/ckpt" + tag + ".h5";
    if (hdf5) {
      DIST_OK(pvec_checkpoint_write(v, h5.c_str(), 3, 0.25, nullptr, 0, 0, nullptr, nullptr,
                                    nullptr, nullptr, 0));
#ifndef PVEC_TEST_NO_HDF5
      if (rank() == 0) ckpt[t] = datasets(h5);
#endif
      // Every thread count restarts the file written at one thread.
      const pvec_test::Snapshot snap = restarted(dir + "/ckpt1.h5");
      restarts[t] = snap.cols;
      restarts_n[t] = snap.n_local;
    }
    const std::string run = dir + "/run" + tag, dev = dir + "/dev" + tag;
    DIST_OK(pvec_vtk_write(v, run.c_str(), 0, 0.0, nullptr, 0, PVEC_VTK_RANK_ARRAY));
    DIST_OK(pvec_vtk_write(v, dev.c_str(), 0, 0.0, nullptr, 0, PVEC_ON_DEVICE));
    std::snprintf(piece, sizeof piece, "/run%d_000000/run%d_%04d.vtp", t, t, rank());
    vtp[t] = slurp(dir + piece);
    std::snprintf(piece, sizeof piece, "/dev%d_000000/dev%d_%04d.vtp", t, t, rank());
    vtp_dev[t] = slurp(dir + piece);
  }
  force_host_threads(0);
  force_stage_bytes_for_tests(0);
  if (vtp[1].size() < 1000) f.addf("the one-thread piece has ", vtp[1].size(), " bytes");
  for (int t : {2, 3}) {
    if (hdf5 && rank() == 0 && ckpt[t] != ckpt[1])
      f.addf("checkpoint datasets at ", t, " threads differ from one thread's");
    if (hdf5 && (restarts[t] != restarts[1] || restarts_n[t] != restarts_n[1]))
      f.addf("the vector restarted at ", t, " threads differs from one thread's");
    if (vtp[t] != vtp[1]) f.addf("the VTK piece at ", t, " threads differs from one thread's");
    if (vtp_dev[t] != vtp_dev[1])
      f.addf("the device-mirror VTK piece at ", t, " threads differs from one thread's");
  }
  f.require("thread counts");
  DIST_OK(pvec_vector_destroy(v));
  drop(dir);
}

TEST_CASE("restart: both mirrors hold the file's rows, the device one filled as blocks are read",
          "[io][threads]") {
  if (!have_hdf5()) {
    WARN("pvec built without parallel HDF5: restarts into both mirrors not tested");
    return;
  }
  int devices = 0;
  REQUIRE(pvec_cuda_device_count(&devices) == PVEC_SUCCESS);
  if (devices == 0)
    WARN("no CUDA device: restarts into the CUDA backend not run (host backend only)");
  const std::string dir = folder();
  const std::string h5 = checkpoint_of_made(dir, "both.h5");
  pvec_test::Snapshot want;
  {
    pvec_test::ScopedOption off("PVEC_IO_PREAD", "0");  // HDF5's reads, one thread
    want = restarted(h5);
  }
  Failures f;
  std::vector<pvec_backend> backends{PVEC_BACKEND_HOST};
  if (devices > 0) backends.push_back(PVEC_BACKEND_CUDA);
  for (const pvec_backend b : backends)
    for (const pvec_host_memory m : {PVEC_HOST_PINNED, PVEC_HOST_PAGEABLE})
      for (const char* staged : {static_cast<const char*>(nullptr), "0", "2"})
        for (int t : {1, 2, 3})
          for (int64_t bytes : {200, 0}) {  // blocks of a few rows, and the default ~1 MiB
            pvec_test::ScopedOption env("PVEC_STAGED_TRANSFER", staged);
            force_host_threads(t);
            force_stage_bytes_for_tests(static_cast<size_t>(bytes));
            pvec_schema_t sc = nullptr;
            pvec_vector_desc d = described(h5, &sc);
            d.backend = b;
            d.host_memory = m;
            pvec_vector_t r = nullptr;
            DIST_OK(pvec_checkpoint_restart(h5.c_str(), &d, sc, 0, &r));
            pvec_schema_destroy(sc);
            const pvec_test::Snapshot host = pvec_test::snapshot(r);
            // The device mirror copied over the host one must change no byte.
            DIST_OK(pvec_device_to_host(r, nullptr, 0));
            const pvec_test::Snapshot dev = pvec_test::snapshot(r);
            DIST_OK(pvec_vector_destroy(r));
            const std::string what =
                std::string(b == PVEC_BACKEND_CUDA ? "CUDA" : "host") + " backend, " +
                (m == PVEC_HOST_PINNED ? "pinned" : "pageable") +
                ", PVEC_STAGED_TRANSFER=" + (staged ? staged : "unset") + ", " + std::to_string(t) +
                " threads, blocks of " + std::to_string(bytes) + " bytes: ";
            if (host.cols != want.cols || host.n_local != want.n_local)
              f.addf(what, "the host mirror is not what HDF5 read");
            if (dev.cols != want.cols) f.addf(what, "the device mirror is not what HDF5 read");
          }
  force_host_threads(0);
  force_stage_bytes_for_tests(0);
  f.require("restart mirrors");
  drop(dir);
}

TEST_CASE("restart: pread on the host threads gives what HDF5 reads, in every layout",
          "[io][threads]") {
  if (!have_hdf5()) {
    WARN("pvec built without parallel HDF5: raw restart reads not tested");
    return;
  }
#ifndef PVEC_TEST_NO_HDF5
  const std::string dir = folder();
  const std::string h5 = checkpoint_of_made(dir, "own.h5");
  const char* layouts[] = {"chunked", "deflated", "other byte order"};
  if (rank() == 0)
    for (int how = 0; how < 3; ++how)
      relayout(h5, dir + "/layout" + std::to_string(how) + ".h5", how);
  barrier();
  Failures f;
  pvec_test::Snapshot through_hdf5;
  {
    pvec_test::ScopedOption off("PVEC_IO_PREAD", "0");
    through_hdf5 = restarted(h5);
  }
  if (through_hdf5.n_local < 1) f.addf("the HDF5 restart holds ", through_hdf5.n_local, " rows");
  for (int t : {1, 2, 3}) {
    for (int64_t bytes : {200, 0}) {  // blocks of a few rows, and the default ~1 MiB
      force_host_threads(t);
      force_stage_bytes_for_tests(static_cast<size_t>(bytes));
      const pvec_test::Snapshot raw = restarted(h5);
      if (raw.cols != through_hdf5.cols || raw.n_local != through_hdf5.n_local)
        f.addf("pread at ", t, " threads, blocks of ", bytes, " bytes: not what HDF5 read");
      for (int how = 0; how < 3; ++how) {
        const pvec_test::Snapshot other = restarted(dir + "/layout" + std::to_string(how) + ".h5");
        if (other.cols != through_hdf5.cols || other.n_local != through_hdf5.n_local)
          f.addf(layouts[how], " copy at ", t, " threads: not what HDF5 read from pvec's file");
      }
    }
  }
  force_host_threads(0);
  force_stage_bytes_for_tests(0);
  f.require("raw restart reads");
  drop(dir);
#endif
}

TEST_CASE("file blocks: a failure mid-column is an error on every rank, at 1 and 2 threads",
          "[io][threads][errors]") {
  const std::string dir = folder();
  force_stage_bytes_for_tests(200);
  Props p;
  pvec_vector_t v = make(&p);
  Failures f;
  const bool hdf5 = have_hdf5();
  const int failing = size() - 1;  // the last rank fails, the others must still hear of it
  for (int t : {1, 2}) {
    force_host_threads(t);
    for (bool in_memory : {false, true}) {
      const std::string what = std::string(in_memory ? "staging" : "file call") + " fails at " +
                               std::to_string(t) + " threads: ";
      const pvec_status want = want_status(rank() == failing, true);
      const std::string tag = std::to_string(t) + (in_memory ? "m" : "f");
      if (hdf5) {
        const std::string h5 = dir + "/bad" + tag + ".h5";
        if (rank() == failing) BlockPipeline::inject_fault_for_tests(3, in_memory);
        const pvec_status s = pvec_checkpoint_write(v, h5.c_str(), 0, 0, nullptr, 0, 0, nullptr,
                                                    nullptr, nullptr, nullptr, 0);
        BlockPipeline::inject_fault_for_tests(-1);
        if (s != want)
          f.addf(what, "checkpoint write: ", pvec_status_string(s), ", want ",
                 pvec_status_string(want));
        barrier();
        if (exists(h5)) f.addf(what, "a checkpoint was left at ", h5);

        // A good file, then a restart whose reads fail on the last rank (file calls only: a
        // restart's memory step is an unstaging).
        DIST_OK(pvec_checkpoint_write(v, h5.c_str(), 0, 0, nullptr, 0, 0, nullptr, nullptr, nullptr,
                                      nullptr, 0));
        pvec_schema_t sc = nullptr;
        const pvec_vector_desc d = described(h5, &sc);
        for (const char* pread : {"1", "0"}) {  // pread on the host threads, then HDF5's reads
          pvec_test::ScopedOption raw("PVEC_IO_PREAD", pread);
          pvec_vector_t r = nullptr;
          if (rank() == failing) BlockPipeline::inject_fault_for_tests(3, in_memory);
          const pvec_status rs = pvec_checkpoint_restart(h5.c_str(), &d, sc, 0, &r);
          BlockPipeline::inject_fault_for_tests(-1);
          if (rs != want)
            f.addf(what, "restart (PVEC_IO_PREAD=", pread, "): ", pvec_status_string(rs), ", want ",
                   pvec_status_string(want));
          if (r) pvec_vector_destroy(r);
        }
        pvec_schema_destroy(sc);
      }
      const std::string run = dir + "/bad" + tag;
      if (rank() == failing) BlockPipeline::inject_fault_for_tests(3, in_memory);
      const pvec_status s = pvec_vtk_write(v, run.c_str(), 0, 0.0, nullptr, 0, 0);
      BlockPipeline::inject_fault_for_tests(-1);
      if (s != want)
        f.addf(what, "write_vtk: ", pvec_status_string(s), ", want ", pvec_status_string(want));
      char piece[96];
      std::snprintf(piece, sizeof piece, "/bad%s_000000/bad%s_%04d.vtp", tag.c_str(), tag.c_str(),
                    rank());
      if (rank() == failing && (exists(dir + piece) || exists(dir + piece + ".tmp")))
        f.addf(what, "a piece was left behind");
    }
  }
  force_host_threads(0);
  force_stage_bytes_for_tests(0);
  f.require("failures");
  DIST_OK(pvec_vector_destroy(v));
  drop(dir);
}
