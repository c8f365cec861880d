// Longer than 500 lines because one driver serves the device and host programs (one byte model).
// The map / ghost_get benchmark driver (see map_ghost_driver.hpp and docs/performance.md).
//
// Per particle count n (per rank) one vector of the realistic particle is created in a
// periodic unit box, each rank's particles uniform in its subdomain, with the ghost width
// chosen so that ~10% of the particles are ghosts. Then:
//   map        for each mover fraction f: before every call the first f*n particles of each
//              rank move by one subdomain width along a split dimension (into the neighbour;
//              with no split dimension, i.e. 1 rank, across the periodic boundary and back
//              onto the same rank, so map only relabels, wraps and keeps them); map is timed.
//   ghost_get  all properties with positions, a new plan each call.
//   ghost_reuse  the same with PVEC_GHOST_REUSE_PLAN (values only travel).
// Each timed call is bracketed by barriers; a rep's time is the slowest rank's. Reported per
// operation: median time, particles/s, pvec_vector_get_op_stats' compute and exchange parts
// (medians of the slowest rank), model bytes and their fraction of the copy roofline (copy
// bandwidth of the same memory measured in this run with all ranks copying at once), and the
// allocation counts of pvec_memory_stats across the timed reps (must be 0: PASS/FAIL).
#include "map_ghost_driver.hpp"

#include <pvec.h>

#if defined(BENCH_HAVE_MPI)
#include <mpi.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench_common.hpp"

namespace bench {
namespace {

// ---- Tiny MPI layer (one rank without MPI) --------------------------------------------------

int world_rank() {
  int r = 0;
#if defined(BENCH_HAVE_MPI)
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
#endif
  return r;
}
int world_size() {
  int s = 1;
#if defined(BENCH_HAVE_MPI)
  MPI_Comm_size(MPI_COMM_WORLD, &s);
#endif
  return s;
}
void barrier() {
#if defined(BENCH_HAVE_MPI)
  MPI_Barrier(MPI_COMM_WORLD);
#endif
}
double max_all(double v) {
#if defined(BENCH_HAVE_MPI)
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
#endif
  return v;
}
double sum_all(double v) {
#if defined(BENCH_HAVE_MPI)
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
#endif
  return v;
}

// ---- Host side ------------------------------------------------------------------------------

class HostSide final : public Side {
 public:
  const char* name() const override { return "host"; }
  void init_positions(float* pos, int64_t capacity, int64_t n, const double* lo, const double* hi,
                      uint64_t seed, const Placement& order) override {
    for (int d = 0; d < 3; ++d)
      for (int64_t i = 0; i < n; ++i) {
        const uint32_t k = grid_coord(order, seed, i, n, d);
        pos[d * capacity + i] =
            static_cast<float>(lo[d] + (hi[d] - lo[d]) * (static_cast<double>(k) /
                                                          static_cast<double>(1u << kGridBits)));
      }
  }
  void shift(float* row, int64_t m, float dx) override {
    for (int64_t i = 0; i < m; ++i) row[i] += dx;
  }
  void* alloc(size_t bytes) override {
    void* p = std::malloc(bytes);
    if (p == nullptr) die("malloc of " + std::to_string(bytes) + " bytes");
    std::memset(p, 1, bytes);
    return p;
  }
  void release(void* p) override { std::free(p); }
  void copy(void* dst, const void* src, size_t bytes) override { std::memcpy(dst, src, bytes); }
};

// ---- Measurement ----------------------------------------------------------------------------

// Aggregate copy bandwidth (read + write bytes per second, all ranks copying at once).
double roofline(Side& side, size_t bytes, int reps) {
  void* a = side.alloc(bytes);
  void* b = side.alloc(bytes);
  side.copy(b, a, bytes);  // warm-up
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    barrier();
    const double t0 = now_seconds();
    side.copy(b, a, bytes);
    t.push_back(max_all(now_seconds() - t0));
  }
  side.release(a);
  side.release(b);
  return 2.0 * static_cast<double>(bytes) * world_size() / median(t);
}

struct Config {
  bool on_device = false;
  unsigned flags = 0;
  int warmup = 2;
  int reps = 10;
  int backend = PVEC_BACKEND_AUTO;
  int host_memory = PVEC_HOST_PAGEABLE;
  double ghost_frac = 0.10;
  double roof_bw = 0;   // bytes/s, aggregate
  bool sorted = false;  // --order sorted: particles ordered by cell (placement.hpp)
  bool halo = false;    // --order halo: sorted, then pvec_vector_sort halo-first before the ghosts
  bool alloc_ok = true;
  int P = 1, me = 0;
};

// Ghost width w such that (prod_d (L_d + 2w)) / prod_d L_d - 1 == frac for this rank's
// subdomain lengths L (uniform density: ghosts are the particles in the shell of width w).
double ghost_width_for(const double* L, double frac) {
  double lo = 0, hi = 0.25 * std::min(L[0], std::min(L[1], L[2]));
  for (int it = 0; it < 100; ++it) {
    const double w = 0.5 * (lo + hi);
    const double g = (L[0] + 2 * w) * (L[1] + 2 * w) * (L[2] + 2 * w) / (L[0] * L[1] * L[2]) - 1;
    (g < frac ? lo : hi) = w;
  }
  return 0.5 * (lo + hi);
}

struct OpResult {
  double t = 0, compute = 0, exchange = 0;  // medians of the slowest rank, seconds
  double bytes = 0;                         // model bytes, all ranks, per call
  double sent = 0, received = 0;            // particles, all ranks, per call
  int64_t host_allocs = 0, pinned_allocs = 0, device_allocs = 0;  // all ranks, timed reps
};

pvec_memory_stats mem_stats() {
  pvec_memory_stats m{};
  m.struct_size = sizeof m;
  BENCH_PVEC(pvec_memory_get_stats(&m));
  return m;
}

int64_t cap_now(pvec_vector_t v) {
  int64_t c = 0;
  BENCH_PVEC(pvec_vector_get_capacity(v, &c));
  return c;
}

float* pos_of(pvec_vector_t v, bool device) {
  return static_cast<float*>(device ? pvec_device_ptr(v, PVEC_POS) : pvec_host_ptr(v, PVEC_POS));
}

// One operation repeated: `before` runs untimed ahead of each call, `call` is timed and
// returns this rank's model bytes of the call just made.
template <class Before, class Call>
OpResult repeat(pvec_vector_t v, const Config& cfg, Before&& before, Call&& call) {
  OpResult out;
  std::vector<double> t, tc, tx;
  pvec_memory_stats m0{};
  double bytes = 0, sent = 0, recv = 0;
  for (int r = 0; r < cfg.warmup + cfg.reps; ++r) {
    if (r == cfg.warmup) m0 = mem_stats();
    before();
    barrier();
    const double t0 = now_seconds();
    const double b = call();
    const double dt = now_seconds() - t0;
    pvec_op_stats s{};
    s.struct_size = sizeof s;
    BENCH_PVEC(pvec_vector_get_op_stats(v, &s));
    if (r < cfg.warmup) continue;
    t.push_back(max_all(dt));
    tc.push_back(max_all(s.compute_seconds));
    tx.push_back(max_all(s.exchange_seconds));
    bytes += b;
    sent += static_cast<double>(s.particles_sent);
    recv += static_cast<double>(s.particles_received);
  }
  const pvec_memory_stats m1 = mem_stats();
  out.t = median(t);
  out.compute = median(tc);
  out.exchange = median(tx);
  out.bytes = sum_all(bytes) / cfg.reps;
  out.sent = sum_all(sent) / cfg.reps;
  out.received = sum_all(recv) / cfg.reps;
  out.host_allocs =
      static_cast<int64_t>(sum_all(static_cast<double>(m1.host_allocs - m0.host_allocs)));
  out.pinned_allocs =
      static_cast<int64_t>(sum_all(static_cast<double>(m1.pinned_allocs - m0.pinned_allocs)));
  out.device_allocs =
      static_cast<int64_t>(sum_all(static_cast<double>(m1.device_allocs - m0.device_allocs)));
  return out;
}

void report(const char* op, int64_t n, double frac, int64_t n_global, const OpResult& r,
            Config& cfg, const Table& table) {
  const bool pass = r.host_allocs == 0 && r.pinned_allocs == 0 && r.device_allocs == 0;
  cfg.alloc_ok = cfg.alloc_ok && pass;
  if (cfg.me != 0) return;
  const double roof = r.t > 0 ? r.bytes / (r.t * cfg.roof_bw) : 0;
  const double roof_c = r.compute > 0 ? r.bytes / (r.compute * cfg.roof_bw) : 0;
  const double pps = r.t > 0 ? static_cast<double>(n_global) / r.t : 0;
  const std::string allocs =
      fmt("%lld/%lld/%lld", static_cast<long long>(r.host_allocs),
          static_cast<long long>(r.pinned_allocs), static_cast<long long>(r.device_allocs));
  table.row({op, std::to_string(cfg.P), count_str(n), frac >= 0 ? fmt("%.2f", frac) : "",
             fmt("%.3f", r.t * 1e3), fmt("%.1f", pps * 1e-6), fmt("%.3f", r.compute * 1e3),
             fmt("%.3f", r.exchange * 1e3), fmt("%.3f", r.bytes * 1e-9), fmt("%.3f", roof),
             fmt("%.3f", roof_c), allocs + (pass ? " PASS" : " FAIL")});
  Json j(cfg.on_device ? "map_ghost" : "map_ghost_host");
  j.str("name", op).str("op", op).str("path", cfg.on_device ? "device" : "host");
  j.str("order", cfg.halo ? "halo" : cfg.sorted ? "sorted" : "random");
  j.integer("ranks", cfg.P).integer("n_per_rank", n).integer("n_global", n_global);
  if (frac >= 0) j.num("movers", frac);
  j.integer("reps", cfg.reps)
      .num("time_s", r.t)
      .num("particles_per_s", pps)
      .num("compute_s", r.compute)
      .num("exchange_s", r.exchange)
      .num("particles_sent", r.sent)
      .num("particles_received", r.received)
      .num("model_bytes", r.bytes)
      .num("gbps", gbps(r.bytes, r.t))
      .num("roofline_gbps", cfg.roof_bw * 1e-9)
      .num("ratio", roof)
      .str("ratio_is", "model bytes / (time * copy roofline)")
      .num("ratio_compute", roof_c)
      .integer("host_allocs", r.host_allocs)
      .integer("pinned_allocs", r.pinned_allocs)
      .integer("device_allocs", r.device_allocs)
      .boolean("no_alloc_pass", pass)
      .print();
}

void run_size(int64_t n, const std::vector<double>& fracs, bool do_ghost, Config& cfg,
              std::unique_ptr<Side>& side, const Table& table) {
  RealisticSchema rs;
  const double kBytes = static_cast<double>(RealisticSchema::kBytes);
  const double kPos = static_cast<double>(RealisticSchema::kPosBytes);
  pvec_vector_desc d = realistic_desc(0, cfg.backend, cfg.host_memory);
  for (int k = 0; k < 3; ++k) d.boundary[k] = PVEC_PERIODIC;
  // A probe vector tells this rank's subdomain, which sets the ghost width (the same on every
  // rank: subdomains of a Cartesian split are equal, and the maximum is taken anyway).
  double lo[3], hi[3], L[3];
  {
    pvec_vector_t probe = nullptr;
    BENCH_PVEC(pvec_vector_create(&d, rs.schema, &probe));
    BENCH_PVEC(pvec_vector_get_subdomain(probe, lo, hi));
    BENCH_PVEC(pvec_vector_destroy(probe));
  }
  for (int k = 0; k < 3; ++k) L[k] = hi[k] - lo[k];
  d.ghost_width = max_all(ghost_width_for(L, cfg.ghost_frac));
  d.n_particles = n;
  pvec_vector_t v = nullptr;
  BENCH_PVEC(pvec_vector_create(&d, rs.schema, &v));
  pvec_backend used = PVEC_BACKEND_HOST;
  BENCH_PVEC(pvec_vector_get_backend(v, &used));
  const bool cuda_side = cfg.on_device && used == PVEC_BACKEND_CUDA;
  if (!side || (std::string(side->name()) == "cuda") != cuda_side) {
#if defined(BENCH_HAVE_CUDA_SIDE)
    if (cuda_side) side = make_cuda_side(pvec_device_ptr(v, PVEC_POS));
#endif
    if (!cuda_side) side.reset(new HostSide);
    if (!side) die("CUDA backend without the CUDA side of the benchmark");
  }
  int64_t cap = 0;
  BENCH_PVEC(pvec_vector_get_capacity(v, &cap));
  // Sorted order: cells no narrower than the ghost width, as a cell list for that cut-off.
  Placement order;
  order.sorted = cfg.sorted || cfg.halo;
  for (int k = 0; k < 3; ++k)
    order.cells[k] = std::max<int64_t>(1, static_cast<int64_t>(L[k] / d.ghost_width));
  side->init_positions(pos_of(v, cfg.on_device), cap, n, lo, hi,
                       0x5eed0000ull + static_cast<uint64_t>(cfg.me), order);
  const int64_t n_global = static_cast<int64_t>(sum_all(static_cast<double>(n)));

  // Map: every rank shifts its first f*n particles by its subdomain width along a split
  // dimension (into the neighbour there), or along x across the periodic boundary and back
  // onto itself when no dimension is split (1 rank).
  int sd = 0;
  for (int k = 1; k < 3; ++k)
    if (L[k] < L[sd]) sd = k;
  const float dx = static_cast<float>(L[sd]);
  for (double f : fracs) {
    int64_t n_before = 0;
    const OpResult r = repeat(
        v, cfg,
        [&] {
          BENCH_PVEC(pvec_vector_get_size(v, &n_before));
          const int64_t m = std::llround(f * static_cast<double>(n_before));
          side->shift(pos_of(v, cfg.on_device) + sd * cap_now(v), m, dx);
        },
        [&] {
          BENCH_PVEC(pvec_map(v, cfg.flags, nullptr));
          pvec_op_stats s{};
          s.struct_size = sizeof s;
          BENCH_PVEC(pvec_vector_get_op_stats(v, &s));
          // Arrivals fill the movers' rows; only when fewer arrive than leave must stayers
          // move, those beyond the new end: with the movers the first indices, min(n - sent,
          // sent - received) of them.
          const double sent = static_cast<double>(s.particles_sent);
          const double received = static_cast<double>(s.particles_received);
          const double moved =
              std::max(0.0, std::min(static_cast<double>(n_before) - sent, sent - received));
          return static_cast<double>(n_before) * kPos + 2 * kBytes * (sent + moved + received);
        });
    report("map", n, f, n_global, r, cfg, table);
  }
  int64_t n_local = 0;
  BENCH_PVEC(pvec_vector_get_size(v, &n_local));
  if (static_cast<int64_t>(sum_all(static_cast<double>(n_local))) != n_global)
    die("map did not conserve the global particle count");

  if (do_ghost) {
    // Halo order: the library's halo-first locality sort (cells of the ghost width, those at
    // the subdomain's faces first) after the map rounds, as a code would sort before its
    // ghost exchanges.
    if (cfg.halo)
      BENCH_PVEC(pvec_vector_sort(v, d.ghost_width, cfg.flags | PVEC_SORT_HALO_FIRST, nullptr));
    const auto ghost_bytes = [&](bool label) {
      pvec_op_stats s{};
      s.struct_size = sizeof s;
      BENCH_PVEC(pvec_vector_get_op_stats(v, &s));
      // A ghost for another rank is packed (read + write) and unpacked there (read + write);
      // an own periodic image is copied once, from its source into its ghost row.
      return (label ? static_cast<double>(n_local) * kPos : 0.0) +
             2 * kBytes *
                 static_cast<double>(s.particles_sent + s.particles_received - s.particles_self);
    };
    const OpResult g = repeat(
        v, cfg, [] {},
        [&] {
          BENCH_PVEC(pvec_ghost_get(v, nullptr, 0, cfg.flags));
          return ghost_bytes(true);
        });
    report("ghost_get", n, -1, n_global, g, cfg, table);
    const OpResult gr = repeat(
        v, cfg, [] {},
        [&] {
          BENCH_PVEC(pvec_ghost_get(v, nullptr, 0, cfg.flags | PVEC_GHOST_REUSE_PLAN));
          return ghost_bytes(false);
        });
    report("ghost_reuse", n, -1, n_global, gr, cfg, table);
    // ghost_put ADD of every property (not the positions), the reduction of a force loop over
    // a half list: a ghost for another rank is packed (read + write) and reduced there (read
    // the message, read and write its source); an own periodic image is reduced from its ghost
    // row (read the row, read and write the source).
    const double kProps = kBytes - kPos;
    const OpResult gp = repeat(
        v, cfg, [] {},
        [&] {
          BENCH_PVEC(pvec_ghost_put(v, nullptr, 0, PVEC_REDUCE_ADD, cfg.flags));
          pvec_op_stats s{};
          s.struct_size = sizeof s;
          BENCH_PVEC(pvec_vector_get_op_stats(v, &s));
          const double self = static_cast<double>(s.particles_self);
          return kProps * (2 * (static_cast<double>(s.particles_sent) - self) +
                           3 * (static_cast<double>(s.particles_received) - self) + 3 * self);
        });
    report("ghost_put", n, -1, n_global, gp, cfg, table);
    int64_t n_ghost = 0;
    BENCH_PVEC(pvec_vector_get_ghost_size(v, &n_ghost));
    const double ghost_share =
        sum_all(static_cast<double>(n_ghost)) / static_cast<double>(n_global);
    if (cfg.me == 0)
      std::printf("#   ghosts: %.1f%% of the local particles (ghost width %.5f)\n",
                  100.0 * ghost_share, d.ghost_width);
    if (ghost_share < 0.5 * cfg.ghost_frac || ghost_share > 2.0 * cfg.ghost_frac)
      die("ghost_get produced " + std::to_string(ghost_share) + " ghosts per particle, expected ~" +
          std::to_string(cfg.ghost_frac));
  }
  BENCH_PVEC(pvec_vector_destroy(v));
}

}  // namespace

int run_map_ghost(int argc, char** argv, bool on_device) {
  BENCH_PVEC(pvec_init(&argc, &argv));
  const std::string prog = on_device ? "bench_map_ghost" : "bench_map_ghost_host";
  const std::string usage =
      prog +
      (on_device ? ": pvec_map / pvec_ghost_get on the device mirrors (PVEC_ON_DEVICE).\n"
                 : ": pvec_map / pvec_ghost_get on the host mirrors (flags 0).\n") +
      "Run under mpiexec for several ranks.\n"
      "  --quick            tiny sizes, for CI\n" +
      (on_device ? "  --sizes LIST       particles per rank (default 2^20,2^22,2^24,2^26)\n"
                 : "  --sizes LIST       particles per rank (default 1e4,1e5,1e6,1e7)\n") +
      "  --min N --max N    keep only sizes in [N, M]\n"
      "  --movers LIST      mover fractions (default 0.01,0.1,0.5)\n"
      "  --ghost-frac F     target ghosts per local particle (default 0.10)\n"
      "  --no-ghost         map only\n"
      "  --order random|sorted|halo  particle order in memory: random (default; ghosts\n"
      "                     and movers are scattered over the arrays), sorted by cell, as\n"
      "                     codes with cell lists keep them, or halo: sorted, and before\n"
      "                     the ghost rows pvec_vector_sort(PVEC_SORT_HALO_FIRST) by cells of the\n"
      "                     ghost width (the cells at the subdomain's faces first)\n"
      "  --reps N           timed repetitions (default 10)\n"
      "  --warmup N         untimed repetitions first (default 2)\n"
      "  --backend auto|host|cuda  (default " +
      (on_device ? "auto" : "host") +
      ")\n"
      "  --pinned           pinned host mirrors (default pageable: the benchmark never\n"
      "                     transfers them after setting up)\n"
      "  --roofline-bytes N size of the roofline copy (default 512 MiB, quick 16 MiB)\n";
  Args args(argc, argv, usage);
  const bool quick = args.flag("--quick");
  std::vector<int64_t> defaults = on_device
                                      ? std::vector<int64_t>{int64_t{1} << 20, int64_t{1} << 22,
                                                             int64_t{1} << 24, int64_t{1} << 26}
                                      : std::vector<int64_t>{10000, 100000, 1000000, 10000000};
  if (quick) defaults = {on_device ? int64_t{1} << 14 : int64_t{10000}};
  const std::vector<int64_t> sizes = pick_sizes(args, defaults);
  const std::vector<double> fracs =
      parse_reals(args.value("--movers", quick ? "0.01,0.5" : "0.01,0.1,0.5"));
  Config cfg;
  cfg.on_device = on_device;
  cfg.flags = on_device ? static_cast<unsigned>(PVEC_ON_DEVICE) : 0u;
  cfg.ghost_frac = args.real("--ghost-frac", 0.10);
  const bool do_ghost = !args.flag("--no-ghost");
  const std::string order = args.value("--order", "random");
  if (order != "random" && order != "sorted" && order != "halo") die("--order random|sorted|halo");
  cfg.sorted = order == "sorted";
  cfg.halo = order == "halo";
  cfg.reps = static_cast<int>(args.count("--reps", quick ? 5 : 10));
  cfg.warmup = static_cast<int>(args.count("--warmup", 2));
  const std::string backend = args.value("--backend", on_device ? "auto" : "host");
  cfg.host_memory = args.flag("--pinned") ? PVEC_HOST_PINNED : PVEC_HOST_PAGEABLE;
  const int64_t roof_bytes =
      args.count("--roofline-bytes", quick ? int64_t{16} << 20 : int64_t{512} << 20);
  args.finish();
  if (backend == "host")
    cfg.backend = PVEC_BACKEND_HOST;
  else if (backend == "cuda")
    cfg.backend = PVEC_BACKEND_CUDA;
  else if (backend != "auto")
    die("--backend auto|host|cuda");
  if (cfg.reps < 1 || cfg.warmup < 1) die("--reps and --warmup must be >= 1");
  for (double f : fracs)
    if (f < 0 || f > 0.5) die("mover fractions must lie in [0, 0.5]");
  cfg.P = world_size();
  cfg.me = world_rank();

  // The roofline uses the memory the operations run on: a first small vector tells which.
  std::unique_ptr<Side> side;
  const char* side_name = "host";
  {
    RealisticSchema rs;
    pvec_vector_desc d = realistic_desc(64, cfg.backend, cfg.host_memory);
    pvec_vector_t v = nullptr;
    BENCH_PVEC(pvec_vector_create(&d, rs.schema, &v));
    pvec_backend used = PVEC_BACKEND_HOST;
    BENCH_PVEC(pvec_vector_get_backend(v, &used));
#if defined(BENCH_HAVE_CUDA_SIDE)
    if (on_device && used == PVEC_BACKEND_CUDA) side = make_cuda_side(pvec_device_ptr(v, PVEC_POS));
#endif
    if (!side) side.reset(new HostSide);
    side_name = side->name();
    BENCH_PVEC(pvec_vector_destroy(v));
  }
  cfg.roof_bw = roofline(*side, static_cast<size_t>(roof_bytes), 10);

  if (cfg.me == 0) {
    std::printf(
        "# %s: %d rank(s), %s path, memory: %s%s; realistic 64-byte particle, "
        "periodic unit box, ghosts ~%.0f%%, particle order: %s\n",
        prog.c_str(), cfg.P, on_device ? "device" : "host", side_name,
        on_device && std::string(side_name) == "host"
            ? " (no CUDA device: the device path runs on the host backend)"
            : "",
        100 * cfg.ghost_frac,
        cfg.halo     ? "sorted by cell, halo-first before the ghosts"
        : cfg.sorted ? "sorted by cell"
                     : "random");
    std::printf(
        "# roofline: %s copy, all ranks at once, %.1f GB/s (read+write); median of "
        "%d reps after %d warm-up; times are the slowest rank's\n",
        side_name, cfg.roof_bw * 1e-9, cfg.reps, cfg.warmup);
    Json(on_device ? "map_ghost" : "map_ghost_host")
        .str("name", "config")
        .str("path", on_device ? "device" : "host")
        .str("memory", side_name)
        .integer("ranks", cfg.P)
        .str("order", cfg.halo     ? "halo"
                      : cfg.sorted ? "sorted"
                                   : "random")
        .integer("reps", cfg.reps)
        .num("ghost_frac", cfg.ghost_frac)
        .integer("roofline_bytes", roof_bytes)
        .num("roofline_gbps", cfg.roof_bw * 1e-9)
        .print();
  }
  Table table({{"op", 11},
               {"ranks", 5},
               {"n/rank", 6},
               {"movers", 6},
               {"time_ms", 9},
               {"Mpart/s", 8},
               {"compute_ms", 10},
               {"exch_ms", 9},
               {"model_GB", 8},
               {"roof", 5},
               {"roof_c", 6},
               {"allocs h/p/d", 16}});
  if (cfg.me == 0) table.header();
  for (int64_t n : sizes) run_size(n, fracs, do_ghost, cfg, side, table);
  side.reset();
  if (cfg.me == 0)
    std::printf(
        "# no allocation in steady state (pvec_memory_stats deltas over the timed reps "
        "== 0): %s\n",
        cfg.alloc_ok ? "PASS" : "FAIL");
  BENCH_PVEC(pvec_finalize());
  return cfg.alloc_ok ? 0 : 1;
}

}  // namespace bench
