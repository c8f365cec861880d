// bench_io: GB/s of pvec_checkpoint_write, pvec_checkpoint_restart and pvec_vtk_write for the
// realistic 64-byte particle, each against plain MPI-IO of the same bytes to the same directory in
// the same run (every rank its bytes at the exclusive scan of the byte counts, timed both with
// MPI_File_write_at_all / read_at_all and with MPI_File_write_at / read_at; the faster median
// is the baseline): ratio = pvec GB/s / MPI-IO GB/s. --sizes are global
// particle counts, spread evenly over the ranks of the run (mpiexec -n 1..4), then distributed
// with pvec_map before anything is timed: the state a simulation checkpoints.
//
// What is counted: 64 bytes per particle for every operation (VTK's 16 bytes of vertex cells
// per particle are written but not counted); the time of the slowest rank from a common
// barrier; the median of --reps repetitions, each writing fresh files. No fsync: writes go to
// the page cache and reads come from it, for pvec and MPI-IO alike (each read follows the
// write of the same file). A restart creates the vector it reads into, so two read baselines:
//   read      MPI-IO into a buffer the run already touched (the baseline);
//   read_new  the same into a buffer mapped inside the timed region (mmap: new pages, first
//             touched by the read), as a restart's fresh vector is.
// pvec_checkpoint_restart includes its pvec_map and fills both mirrors. restart_h5 rows: the same
// restart with PVEC_IO_PREAD=0 (HDF5's reads from the calling thread, the block pipeline's second
// thread unstaging, instead of pread on every host thread), in the same repetitions, the two
// taking turns at going first. --backend host (the default): the
// device mirror is a second host allocation, twice the new memory of read_new; --backend cuda:
// the writes read the device mirror and a restart fills it from one new host allocation. See
// docs/performance.md ("Output and restart").
#include "bench_common.hpp"
#include "io/row_checksum.hpp"

#if defined(BENCH_HAVE_MPI)
#include <mpi.h>
#endif

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <sys/mman.h>

using namespace bench;
namespace fs = std::filesystem;

#if !defined(BENCH_HAVE_MPI)
int main() {
  std::printf("bench_io: built without MPI (no MPI-IO baseline): skipped\n");
  return 0;
}
#else

namespace {

int rank_ = 0, size_ = 1;

double max_over_ranks(double t) {
  double m = t;
  MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

// Time of fn on the slowest rank, every rank starting together.
template <class F>
double timed(F&& fn) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = now_seconds();
  fn();
  const double t = now_seconds() - t0;
  return max_over_ranks(t);
}

void mpi_check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) die(std::string("MPI: ") + what);
}

// The plain MPI-IO baseline: one file, rank r's bytes at the exclusive scan of the counts.
struct MpiIo {
  std::vector<char> buf;
  int64_t offset = 0;
  MPI_Datatype particle = MPI_DATATYPE_NULL;
  explicit MpiIo(int64_t n_local) : buf(static_cast<size_t>(n_local * 64)) {
    for (size_t i = 0; i < buf.size(); ++i) buf[i] = static_cast<char>(i * 131 + rank_);
    int64_t bytes = static_cast<int64_t>(buf.size());
    MPI_Exscan(&bytes, &offset, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (rank_ == 0) offset = 0;
    MPI_Type_contiguous(64, MPI_BYTE, &particle);
    MPI_Type_commit(&particle);
  }
  ~MpiIo() { MPI_Type_free(&particle); }
  int count() const { return static_cast<int>(buf.size() / 64); }
  // collective: MPI_File_write_at_all, else MPI_File_write_at (each rank's bytes are one
  // contiguous range: collective buffering may only add a copy).
  void write(const std::string& path, bool collective) {
    MPI_File f;
    mpi_check(MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY,
                            MPI_INFO_NULL, &f),
              "open for writing");
    mpi_check(
        collective
            ? MPI_File_write_at_all(f, offset, buf.data(), count(), particle, MPI_STATUS_IGNORE)
            : MPI_File_write_at(f, offset, buf.data(), count(), particle, MPI_STATUS_IGNORE),
        "write_at(_all)");
    mpi_check(MPI_File_close(&f), "close");
  }
  // Into buf, or into to when given (count() particles).
  void read(const std::string& path, bool collective, char* to = nullptr) {
    MPI_File f;
    mpi_check(MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_RDONLY, MPI_INFO_NULL, &f),
              "open for reading");
    char* p = to ? to : buf.data();
    mpi_check(collective ? MPI_File_read_at_all(f, offset, p, count(), particle, MPI_STATUS_IGNORE)
                         : MPI_File_read_at(f, offset, p, count(), particle, MPI_STATUS_IGNORE),
              "read_at(_all)");
    mpi_check(MPI_File_close(&f), "close");
  }
};

// Rank 0 removes path (file or folder); every rank waits for it.
void remove_path(const fs::path& p) {
  if (rank_ == 0) {
    std::error_code ec;
    fs::remove_all(p, ec);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

// Fills the local particles: uniform positions in the unit box, rho = global index mod 1000.
double fill(pvec_vector_t v, const RealisticSchema& rs, int64_t first) {
  int64_t n = 0, cap = 0;
  BENCH_PVEC(pvec_vector_get_size(v, &n));
  BENCH_PVEC(pvec_vector_get_capacity(v, &cap));
  std::mt19937_64 rng(12345u + static_cast<unsigned>(rank_));
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  auto* pos = static_cast<float*>(pvec_host_ptr(v, PVEC_POS));
  auto* rho = static_cast<float*>(pvec_host_ptr(v, rs.rho));
  auto* vel = static_cast<float*>(pvec_host_ptr(v, rs.vel));
  auto* st = static_cast<float*>(pvec_host_ptr(v, rs.stress));
  if (!pos || !rho || !vel || !st) die("pvec_host_ptr returned NULL");
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    for (int c = 0; c < 3; ++c) pos[c * cap + i] = u(rng);
    rho[i] = static_cast<float>((first + i) % 1000);
    sum += rho[i];
    for (int c = 0; c < 3; ++c) vel[c * cap + i] = u(rng);
    for (int c = 0; c < 9; ++c) st[c * cap + i] = static_cast<float>(c + i % 7);
  }
  double total = 0;
  MPI_Allreduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return total;
}

// Global particle count and sum of rho of v, to check a restart.
void totals(pvec_vector_t v, const RealisticSchema& rs, int64_t* n_global, double* rho_sum) {
  int64_t n = 0;
  BENCH_PVEC(pvec_vector_get_size(v, &n));
  const auto* rho = static_cast<const float*>(pvec_host_ptr(v, rs.rho));
  double s = 0;
  for (int64_t i = 0; i < n; ++i) s += rho[i];
  MPI_Allreduce(&n, n_global, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&s, rho_sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

// Times of one MPI-IO baseline, independent (t[0]) and collective (t[1]) calls; the baseline
// is the faster median.
struct Baseline {
  std::vector<double> t[2];
  double best() const { return std::min(median(t[0]), median(t[1])); }
  const char* mode() const { return median(t[1]) <= median(t[0]) ? "collective" : "independent"; }
};

struct Row {
  const char* op;
  const char* vs;       // the table's column
  const char* against;  // the JSON's
  double t_pvec;
  const Baseline* base;
};

}  // namespace

int main(int argc, char** argv) {
  BENCH_PVEC(pvec_init(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  const std::string usage =
      "bench_io: pvec_checkpoint_write, pvec_checkpoint_restart and pvec_vtk_write against plain "
      "MPI-IO\n"
      "of the same bytes (ratio = pvec GB/s / MPI-IO GB/s). Run under mpiexec for several\n"
      "ranks.\n"
      "  --quick        tiny sizes, for CI\n"
      "  --sizes LIST   global particle counts (default 1e6,1e7; quick 1e4)\n"
      "  --reps N       repetitions, the median is reported (default 3)\n"
      "  --dir DIR      where a temporary folder for the files is made (default /tmp);\n"
      "                 it is removed at the end\n"
      "  --backend B    host (default) or cuda: the vector's backend; with cuda the writes\n"
      "                 read the device mirror (PVEC_ON_DEVICE) and a restart fills it\n";
  Args args(argc, argv, usage);
  const bool quick = args.flag("--quick");
  const std::vector<int64_t> sizes = pick_sizes(
      args, quick ? std::vector<int64_t>{10000} : std::vector<int64_t>{1000000, 10000000});
  const int reps = static_cast<int>(args.count("--reps", 3));
  const std::string base = args.value("--dir", "/tmp");
  const std::string backend_name = args.value("--backend", "host");
  args.finish();
  if (backend_name != "host" && backend_name != "cuda") die("--backend must be host or cuda");
  const bool cuda = backend_name == "cuda";
  const unsigned where = cuda ? static_cast<unsigned>(PVEC_ON_DEVICE) : 0u;
  if (reps < 1) die("--reps must be >= 1");

  int has_hdf5 = 0;
  BENCH_PVEC(pvec_has_hdf5(&has_hdf5));

  // A fresh folder under --dir, named by rank 0.
  char dir_buf[4096] = {0};
  if (rank_ == 0) {
    std::string tmpl = base + "/pvec_bench_io.XXXXXX";
    if (tmpl.size() >= sizeof dir_buf) die("--dir too long");
    std::snprintf(dir_buf, sizeof dir_buf, "%s", tmpl.c_str());
    if (!mkdtemp(dir_buf)) die("cannot make a folder under " + base);
  }
  MPI_Bcast(dir_buf, sizeof dir_buf, MPI_CHAR, 0, MPI_COMM_WORLD);
  const fs::path dir(dir_buf);

  if (rank_ == 0) {
    std::printf(
        "# bench_io: %d rank(s), realistic 64-byte particle (pos f32[3], rho f32, vel f32[3], "
        "stress f32[3][3]), %s backend%s; files in %s (removed at the end)\n",
        size_, backend_name.c_str(),
        cuda ? " (writes from the device mirror, restart fills it)" : "", dir.c_str());
    std::printf(
        "# GB/s = 64 B x global particles / time of the slowest rank; median of %d reps; "
        "particles mapped before the runs; no fsync (the page cache counts, for pvec and "
        "MPI-IO alike); MPI-IO: the faster median of collective and independent calls; "
        "reads follow the write of the same file; restart includes its "
        "pvec_map and fills both mirrors; vs read: MPI-IO into a touched buffer, read_new: "
        "into a new one (its first touch timed); VTK's 16 B/particle of cell arrays are not "
        "counted\n",
        reps);
    if (!has_hdf5)
      std::printf("# built without parallel HDF5: checkpoint and restart skipped, VTK only\n");
    Json("io")
        .str("name", "config")
        .integer("ranks", size_)
        .integer("reps", reps)
        .boolean("hdf5", has_hdf5 != 0)
        .boolean("fsync", false)
        .str("backend", backend_name.c_str())
        .print();
  }
  Table table({{"op", 10},
               {"vs", 8},
               {"ranks", 5},
               {"n", 5},
               {"MB", 6},
               {"pvec_ms", 9},
               {"pvec_GB/s", 9},
               {"mpiio_ms", 9},
               {"mpiio_GB/s", 10},
               {"ratio", 5}});
  if (rank_ == 0) table.header();

  RealisticSchema rs;
  for (const int64_t n : sizes) {
    pvec_vector_desc d =
        realistic_desc(n, cuda ? PVEC_BACKEND_CUDA : PVEC_BACKEND_HOST, PVEC_HOST_PAGEABLE);
    d.placement = PVEC_PLACE_EVEN;
    pvec_vector_t v = nullptr;
    BENCH_PVEC(pvec_vector_create(&d, rs.schema, &v));
    int64_t n_local = 0;
    BENCH_PVEC(pvec_vector_get_size(v, &n_local));
    int64_t first = 0;
    MPI_Exscan(&n_local, &first, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (rank_ == 0) first = 0;
    const double rho_sum = fill(v, rs, first);
    // Particles on the ranks that own them, as in a simulation between steps.
    BENCH_PVEC(pvec_map(v, 0, nullptr));
    BENCH_PVEC(pvec_vector_get_size(v, &n_local));
    if (cuda) BENCH_PVEC(pvec_host_to_device(v, nullptr, 0));
    MpiIo mpiio(n_local);
    const double bytes = 64.0 * static_cast<double>(n);

    std::vector<double> t_ckw, t_rst, t_rst_h5, t_vtk, t_sum;
    Baseline b_write, b_read, b_read_new;
    const std::string ck = (dir / "ckpt.h5").string();
    const std::string raw = (dir / "raw.bin").string();
    const fs::path vtk_dir = dir / "vtk";
    for (int r = 0; r < reps; ++r) {
      if (has_hdf5) {
        t_ckw.push_back(timed([&] {
          BENCH_PVEC(pvec_checkpoint_write(v, ck.c_str(), r, 0.1 * r, nullptr, 0, 0, nullptr,
                                           nullptr, nullptr, nullptr, where));
        }));
        // The restart with pread on every host thread (the default) and through HDF5's reads
        // from the calling thread (PVEC_IO_PREAD=0, the path of files pvec did not write),
        // taking turns at going first: the second reuses memory the first just gave back.
        for (int k = 0; k < 2; ++k) {
          const bool h5 = (k == 1) == (r % 2 == 0);
          if (h5) BENCH_PVEC(pvec_options_set("PVEC_IO_PREAD", "0"));
          pvec_vector_t back = nullptr;
          (h5 ? t_rst_h5 : t_rst).push_back(timed([&] {
            BENCH_PVEC(pvec_checkpoint_restart(ck.c_str(), &d, rs.schema, 0, &back));
          }));
          BENCH_PVEC(pvec_options_set("PVEC_IO_PREAD", "1"));
          int64_t n_back = 0;
          double sum_back = 0;
          totals(back, rs, &n_back, &sum_back);
          if (n_back != n || sum_back != rho_sum)
            die("restart did not give back the particles written");
          BENCH_PVEC(pvec_vector_destroy(back));
        }
        remove_path(ck);
        remove_path(dir / "ckpt.xmf");
        // The checkpoint's checksums (src/io/row_checksum.hpp) of this rank's 64 bytes per
        // particle on one thread, as the writer sums them: the slowest rank's time.
        std::vector<unsigned char> rows_bytes(static_cast<size_t>(n_local) * 64, 1);
        volatile uint64_t sink = 0;
        t_sum.push_back(timed([&] {
          sink = sink + pvec::impl::io::word_sum(rows_bytes.data(), rows_bytes.size(), 0);
        }));
      }
      for (const bool coll : {true, false}) {
        b_write.t[coll].push_back(timed([&] { mpiio.write(raw, coll); }));
        b_read.t[coll].push_back(timed([&] { mpiio.read(raw, coll); }));
        // New pages from the kernel (mmap, not malloc, which may hand back pages it kept).
        const size_t len = std::max<size_t>(mpiio.buf.size(), 1);
        void* fresh = MAP_FAILED;
        b_read_new.t[coll].push_back(timed([&] {
          fresh = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
          if (fresh == MAP_FAILED) die("mmap failed");
          mpiio.read(raw, coll, static_cast<char*>(fresh));
        }));
        munmap(fresh, len);
        remove_path(raw);
      }
      if (rank_ == 0) fs::create_directories(vtk_dir);
      MPI_Barrier(MPI_COMM_WORLD);
      const std::string prefix = (vtk_dir / "particles").string();
      t_vtk.push_back(timed(
          [&] { BENCH_PVEC(pvec_vtk_write(v, prefix.c_str(), r, 0.1 * r, nullptr, 0, where)); }));
      remove_path(vtk_dir);
    }
    BENCH_PVEC(pvec_vector_destroy(v));

    std::vector<Row> rows;
    if (has_hdf5) {
      rows.push_back({"ckpt_write", "write", "mpiio_write", median(t_ckw), &b_write});
      rows.push_back({"restart", "read", "mpiio_read", median(t_rst), &b_read});
      rows.push_back({"restart", "read_new", "mpiio_read_new_buffer", median(t_rst), &b_read_new});
      rows.push_back({"restart_h5", "read", "mpiio_read", median(t_rst_h5), &b_read});
      rows.push_back(
          {"restart_h5", "read_new", "mpiio_read_new_buffer", median(t_rst_h5), &b_read_new});
    }
    rows.push_back({"vtk_write", "write", "mpiio_write", median(t_vtk), &b_write});
    if (rank_ == 0)
      for (const Row& row : rows) {
        const double t_mpi = row.base->best();
        const double g = gbps(bytes, row.t_pvec), gm = gbps(bytes, t_mpi);
        const double ratio = gm > 0 ? g / gm : 0;
        table.row({row.op, row.vs, fmt("%d", size_), count_str(n), fmt("%.0f", bytes * 1e-6),
                   fmt("%.1f", row.t_pvec * 1e3), fmt("%.2f", g), fmt("%.1f", t_mpi * 1e3),
                   fmt("%.2f", gm), fmt("%.2f", ratio)});
        Json("io")
            .str("name", row.op)
            .integer("ranks", size_)
            .integer("n", n)
            .num("bytes", bytes)
            .num("time_s", row.t_pvec)
            .num("gbps", g)
            .str("against", row.against)
            .num("against_time_s", t_mpi)
            .str("against_mode", row.base->mode())
            .num("against_collective_s", median(row.base->t[1]))
            .num("against_independent_s", median(row.base->t[0]))
            .num("against_gbps", gm)
            .num("ratio", ratio)
            .print();
      }
    if (has_hdf5 && rank_ == 0) {
      // Not overlapped, the checksums would add this much; the writer overlaps them with the
      // file calls, the restart spreads them over the reading threads.
      const double ts = median(t_sum);
      std::printf(
          "# checksums, one thread, not overlapped: %.1f ms = %.1f%% of ckpt_write, "
          "%.1f%% of restart\n",
          ts * 1e3, 100 * ts / median(t_ckw), 100 * ts / median(t_rst));
      Json("io")
          .str("name", "checksum")
          .integer("ranks", size_)
          .integer("n", n)
          .num("time_s", ts)
          .num("of_write", ts / median(t_ckw))
          .num("of_restart", ts / median(t_rst))
          .print();
    }
  }
  remove_path(dir);
  BENCH_PVEC(pvec_finalize());
  return 0;
}

#endif
