// Lennard-Jones molecular dynamics with pvec: the standard LJ liquid (density 0.8442,
// T = 0.72, cutoff 2.5, truncated and shifted, dt = 0.005) in a periodic 3D box, NVE with
// velocity Verlet, a Verlet list with skin 0.3 over local and ghost particles. It starts as an
// fcc lattice at T0 = 1.44, which melts and settles near T = 0.72 (the start of LAMMPS's LJ
// benchmark; --t0 changes it).
//
//   mpirun -np 2 ./lj_md [--cells N] [--steps S] [--equil E] [--t0 T] [--float32] [--full]
//   [--sort morton|rowmajor|halo] [--overlap] [--trace FILE] [--quiet]
//
// --cells N: N^3 fcc unit cells, 4 N^3 particles (default 8). --steps: measured steps
// (default 1000), after --equil equilibration steps (default 200: the lattice melts; its
// energy excursion while particles first collide is not the integrator's drift).
// --float32: positions, velocities and forces in float32 (default float64). --full: a full
// Verlet list (every pair twice, no ghost_put) instead of a half list. --sort: the order of
// the rebuilds' pvec_vector_sort (default morton; halo: PVEC_SORT_HALO_FIRST, which speeds up the
// ghost exchanges of the host path). --overlap: the plan-replay steps split ghost_get around the
// forces between local particles (see below). --trace FILE: when each part of
// each measured step ran on each rank, as CSV (lj_trace.hpp; bench/plot_timeline.py draws
// it). --quiet: no energy table.
//
// Each step: half kick and drift; pvec_verlet_check (collective: did any particle move more
// than skin/2 since the list was built?); if so a rebuild (pvec_map, pvec_vector_sort by cells,
// ghost_get with a new plan, pvec_verlet_build), else ghost_get replaying the plan
// (PVEC_GHOST_REUSE_PLAN: the same ghosts at their new positions); forces from the list; with
// the half list pvec_ghost_put(ADD) of the forces the ghosts collected; the second half
// kick. With --overlap (lj_overlap.hpp) the replay is split: pvec_ghost_get_begin, the forces
// between local particles while the ghosts travel, pvec_ghost_get_end, then the forces of the
// rows that have a ghost neighbour (docs/examples.md says when that pays). With the CUDA backend
// every kernel runs on the device mirror (raw pointers from pvec_vector_get_layouts), without a GPU
// the same functors run as loops over the host mirror.
//
// It checks itself and exits non-zero on failure: forces at step 0 against a brute-force
// sum over periodic images, total momentum, and the relative drift of the total energy.
#include <pvec.h>

#include <mpi.h>

#include "lj_check.hpp"
#include "lj_kernels.hpp"
#include "lj_options.hpp"
#include "lj_overlap.hpp"
#include "lj_trace.hpp"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#define CHECK(call)                                                             \
  do {                                                                          \
    pvec_status s_ = (call);                                                    \
    if (s_ != PVEC_SUCCESS) {                                                   \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, \
                   pvec_last_error());                                          \
      MPI_Abort(MPI_COMM_WORLD, 1);                                             \
    }                                                                           \
  } while (0)

namespace {

const double kDensity = 0.8442, kCutoff = 2.5, kSkin = 0.3, kDt = 0.005;
const double kJitter = 0.02;  // initial displacement from the lattice sites, per coordinate

struct Totals {
  double ke = 0, pe = 0, p[3] = {0, 0, 0};
  double energy() const { return ke + pe; }
};

template <class T>
class Simulation {
 public:
  Simulation(const lj::Options& o) : opt_(o) {
    n_total_ = 4 * o.cells * o.cells * o.cells;
    lattice_ = std::cbrt(4.0 / kDensity);
    box_ = lattice_ * static_cast<double>(o.cells);
    pot_.rc2 = kCutoff * kCutoff;
    const double ir6 = 1.0 / (pot_.rc2 * pot_.rc2 * pot_.rc2);
    pot_.shift = 4.0 * ir6 * (ir6 - 1.0);

    const pvec_dtype t = sizeof(T) == 4 ? PVEC_FLOAT32 : PVEC_FLOAT64;
    pvec_schema_t schema;
    CHECK(pvec_schema_create(&schema));
    CHECK(pvec_schema_add_vector(schema, "velocity", t, 3, &p_vel_));
    CHECK(pvec_schema_add_vector(schema, "force", t, 3, &p_force_));
    CHECK(pvec_schema_add_scalar(schema, "epot", PVEC_FLOAT64, &p_epot_));
    pvec_vector_desc desc = PVEC_VECTOR_DESC_INIT;
    desc.dim = 3;
    desc.pos_dtype = t;
    for (int d = 0; d < 3; ++d) {
      desc.domain_hi[d] = box_;
      desc.boundary[d] = PVEC_PERIODIC;
    }
    desc.ghost_width = kCutoff + kSkin;
    desc.n_particles = n_total_;
    CHECK(pvec_vector_create(&desc, schema, &vec_));
    CHECK(pvec_schema_destroy(schema));
    CHECK(pvec_vector_get_rank(vec_, &rank_));
    CHECK(pvec_vector_get_nranks(vec_, &size_));
    pvec_backend backend;
    CHECK(pvec_vector_get_backend(vec_, &backend));
    gpu_ = backend == PVEC_BACKEND_CUDA;
    on_ = gpu_ ? static_cast<unsigned>(PVEC_ON_DEVICE) : 0u;
#if defined(__CUDACC__)
    if (gpu_) {  // our runtime launches on the device pvec's runtime chose (pvec.h, pvec_init)
      int dev;
      CHECK(pvec_vector_get_device(vec_, &dev));
      lj::cuda_check(cudaSetDevice(dev), "cudaSetDevice");
    }
#endif
  }
  ~Simulation() {
    if (list_) pvec_verlet_destroy(list_);
    pvec_vector_destroy(vec_);
  }

  int run();

 private:
  // Raw pointers of the mirror the kernels run on; refreshed after every call that may
  // reallocate or reorder (map, sort, ghost_get).
  lj::Columns<T> columns(bool host = false) {
    const int props[4] = {PVEC_POS, p_vel_, p_force_, p_epot_};
    pvec_layout l[4];
    for (auto& x : l) x = PVEC_LAYOUT_INIT;
    CHECK(pvec_vector_get_layouts(vec_, props, 4, l, 4));
    const bool dev = gpu_ && !host;
    auto ptr = [&](int k) { return dev ? l[k].device_ptr : l[k].host_ptr; };
    n_ = l[0].n_local;
    n_ghost_ = l[0].n_ghost;
    return {static_cast<T*>(ptr(0)), static_cast<T*>(ptr(1)), static_cast<T*>(ptr(2)),
            static_cast<double*>(ptr(3)), l[0].capacity};
  }
  void initial_state();
  void rebuild();
  pvec::verlet_view list_view();
  void forces();
  void replay_overlapped();
  // Runs f, adds its time to part p and records it as event ev of the current step.
  template <class F>
  void timed(lj::Part p, lj::Event ev, F&& f) {
    const double a = MPI_Wtime();
    f();
    const double b = MPI_Wtime();
    time_[p] += b - a;
    trace_.add(step_, ev, a, b);
  }
  Totals totals();
  bool check_step0(const Totals& t0);

  lj::Options opt_;
  pvec_vector_t vec_ = nullptr;
  pvec_verlet_t list_ = nullptr;
  lj::SplitList split_;  // the list, local neighbours first, and its boundary rows (overlap)
  lj::Trace trace_;
  int step_ = 0;
  int p_vel_ = 0, p_force_ = 0, p_epot_ = 0, rank_ = 0, size_ = 1;
  bool gpu_ = false;
  unsigned on_ = 0;
  std::int64_t n_total_ = 0, n_ = 0, n_ghost_ = 0, pairs_ = 0;
  double lattice_ = 0, box_ = 0;
  lj::Potential pot_{};
  double time_[lj::kParts] = {0, 0, 0, 0, 0, 0};
};

// Lattice positions with jitter and Gaussian velocities on the host mirror, then zero total
// momentum and the exact kinetic temperature opt_.t0 (3(N-1) degrees of freedom).
template <class T>
void Simulation<T>::initial_state() {
  lj::Columns<T> s = columns(true);
  std::int64_t first = 0;
  MPI_Exscan(&n_, &first, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (rank_ == 0) first = 0;
  double p[3] = {0, 0, 0}, gp[3];
  for (std::int64_t i = 0; i < n_; ++i) {
    double x[3];
    lj::fcc_site(first + i, opt_.cells, lattice_, kJitter, x);
    for (int c = 0; c < 3; ++c) {
      s.x[c * s.cap + i] = static_cast<T>(x[c]);
      s.v[c * s.cap + i] = static_cast<T>(lj::normal(static_cast<std::uint64_t>(first + i), c));
      p[c] += static_cast<double>(s.v[c * s.cap + i]);
    }
  }
  MPI_Allreduce(p, gp, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double ke = 0, gke;
  for (std::int64_t i = 0; i < n_; ++i)
    for (int c = 0; c < 3; ++c) {
      T& v = s.v[c * s.cap + i];
      v = static_cast<T>(static_cast<double>(v) - gp[c] / static_cast<double>(n_total_));
      ke += 0.5 * static_cast<double>(v) * static_cast<double>(v);
    }
  MPI_Allreduce(&ke, &gke, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  const double scale = std::sqrt(opt_.t0 / (2.0 * gke / (3.0 * (n_total_ - 1))));
  for (std::int64_t i = 0; i < n_; ++i)
    for (int c = 0; c < 3; ++c) s.v[c * s.cap + i] *= static_cast<T>(scale);
  if (gpu_) CHECK(pvec_host_to_device(vec_, nullptr, 0));
}

// The particles moved more than skin/2: send each to its owner, order them by cell (nearby
// particles near in memory for the force kernel), fetch ghosts with a new plan and rebuild
// the list from them.
template <class T>
void Simulation<T>::rebuild() {
  CHECK(pvec_map(vec_, on_, nullptr));
  CHECK(pvec_vector_sort(vec_, kCutoff + kSkin, on_ | opt_.sort, nullptr));
  CHECK(pvec_ghost_get(vec_, PVEC_NO_PROPS, 0, on_));
  if (!list_) {
    const unsigned half = opt_.full ? 0u : static_cast<unsigned>(PVEC_VERLET_HALF);
    CHECK(pvec_verlet_create(vec_, kCutoff, kSkin, 1, on_ | half, &list_));
  } else {
    CHECK(pvec_verlet_build(list_));
  }
  if (opt_.overlap) {
    columns();                                   // n_ after the map
    const pvec::verlet_view list = list_view();  // sets pairs_
    split_.update(gpu_, list, pairs_, n_);
  }
}

// The list as kernels see it (valid until the next build).
template <class T>
pvec::verlet_view Simulation<T>::list_view() {
  pvec_verlet_info info = PVEC_VERLET_INFO_INIT;
  CHECK(pvec_verlet_get_info(list_, &info));
  pairs_ = info.n_pairs;
  return {info.n, info.offsets, info.neighbors, info.half};
}

template <class T>
void Simulation<T>::forces() {
  lj::Columns<T> s = columns();
  const pvec::verlet_view list = list_view();
  if (opt_.full) {
    lj::for_each(gpu_, n_, lj::Force<T, false>{s, list, pot_});
  } else {
    lj::for_each(gpu_, n_ + n_ghost_, lj::ZeroForce<T>{s});
    lj::for_each(gpu_, n_, lj::Force<T, true>{s, list, pot_});
  }
}

// A plan-replay step's ghost_get and forces, overlapped: the pairs of two local particles are
// computed while the ghosts' positions travel, the pairs with a ghost after they arrived.
template <class T>
void Simulation<T>::replay_overlapped() {
  timed(lj::kGhostGet, lj::kEvGetBegin,
        [&] { CHECK(pvec_ghost_get_begin(vec_, PVEC_NO_PROPS, 0, on_ | PVEC_GHOST_REUSE_PLAN)); });
  const lj::SplitView list = split_.view();
  timed(lj::kForce, lj::kEvInterior, [&] {
    const lj::Columns<T> s = columns();  // local rows are the caller's between begin and end
    if (opt_.full) {
      lj::for_each(gpu_, n_, lj::ForcePart<T, false, false>{s, list, pot_, nullptr});
    } else {
      lj::for_each(gpu_, n_, lj::ZeroForce<T>{s});
      lj::for_each(gpu_, n_, lj::ForcePart<T, true, false>{s, list, pot_, nullptr});
    }
  });
  timed(lj::kGhostGet, lj::kEvGetEnd, [&] { CHECK(pvec_ghost_get_end(vec_)); });
  timed(lj::kForce, lj::kEvBoundary, [&] {
    const lj::Columns<T> s = columns();
    const std::int64_t nb = split_.n_rows();
    if (opt_.full) {
      lj::for_each(gpu_, nb, lj::ForcePart<T, false, true>{s, list, pot_, split_.rows()});
    } else {
      lj::for_each(gpu_, n_ghost_, lj::ZeroForce<T>{s, n_});
      lj::for_each(gpu_, nb, lj::ForcePart<T, true, true>{s, list, pot_, split_.rows()});
    }
  });
}

// Kinetic and potential energy and momentum, summed over the ranks (on the host mirror).
template <class T>
Totals Simulation<T>::totals() {
  if (gpu_) {
    const int props[2] = {p_vel_, p_epot_};
    CHECK(pvec_device_to_host(vec_, props, 2));
  }
  lj::Columns<T> s = columns(true);
  double local[5] = {0, 0, 0, 0, 0}, sum[5];
  for (std::int64_t i = 0; i < n_; ++i) {
    for (int c = 0; c < 3; ++c) {
      const double v = static_cast<double>(s.v[c * s.cap + i]);
      local[0] += 0.5 * v * v;
      local[2 + c] += v;
    }
    local[1] += s.epot[i];
  }
  MPI_Allreduce(local, sum, 5, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  Totals t;
  t.ke = sum[0];
  t.pe = sum[1];
  for (int c = 0; c < 3; ++c) t.p[c] = sum[2 + c];
  return t;
}

template <class T>
bool Simulation<T>::check_step0(const Totals& t0) {
  if (gpu_) {
    const int props[2] = {PVEC_POS, p_force_};
    CHECK(pvec_device_to_host(vec_, props, 2));
  }
  lj::Columns<T> s = columns(true);
  const lj::ForceCheck fc =
      lj::check_forces(s.x, s.f, s.cap, n_, n_total_, box_, pot_, t0.pe, MPI_COMM_WORLD);
  const double tol = sizeof(T) == 4 ? 1e-3 : 1e-9;
  const bool ok = fc.max_rel < tol && (fc.pe_rel < 0 || fc.pe_rel < tol);
  if (rank_ == 0) {
    std::printf("force check (step 0, %" PRId64
                " particles against a brute-force sum over "
                "periodic images): max relative error %.3e (tolerance %.0e)",
                fc.checked, fc.max_rel, tol);
    if (fc.pe_rel >= 0) std::printf(", potential energy relative error %.3e", fc.pe_rel);
    std::printf(ok ? "\n" : "  FAILED\n");
  }
  return ok;
}

template <class T>
int Simulation<T>::run() {
  if (rank_ == 0)
    std::printf("LJ NVE: %" PRId64 " particles (%" PRId64
                "^3 fcc cells), box %.4f, density "
                "%.4f, T0 %.2f, rc %.1f, skin %.1f, dt %.3f, %s positions, %s list, %d rank(s), "
                "%s; plan-replay ghost_get %s\n",
                n_total_, opt_.cells, box_, kDensity, opt_.t0, kCutoff, kSkin, kDt,
                sizeof(T) == 4 ? "float32" : "float64", opt_.full ? "full" : "half", size_,
                gpu_ ? "CUDA backend: kernels on the GPU"
                     : "host backend: the same kernels as loops on the host",
                opt_.overlap ? "overlapped with the interior forces" : "blocking");
  initial_state();
  rebuild();
  if (opt_.overlap)
    replay_overlapped();  // so that the force check below checks the split passes
  else
    forces();
  if (!opt_.full) CHECK(pvec_ghost_put(vec_, &p_force_, 1, PVEC_REDUCE_ADD, on_));
  const Totals t0 = totals();
  bool ok = check_step0(t0);
  std::int64_t pairs = pairs_, all_pairs = 0;
  MPI_Allreduce(&pairs, &all_pairs, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (rank_ == 0) {
    std::printf("Verlet list: %.1f entries per particle within cutoff + skin (%s)\n",
                static_cast<double>(all_pairs) / static_cast<double>(n_total_),
                opt_.full ? "full list: every pair twice" : "half list: each pair once");
    if (!opt_.quiet)
      std::printf("%6s %14s %14s %14s %12s %10s\n", "step", "E/N", "KE/N", "PE/N", "T", "|dE/E0|");
  }
  auto report = [&](int step, const Totals& t) {
    const double drift = std::fabs(t.energy() - t0.energy()) / std::fabs(t0.energy());
    const double N = static_cast<double>(n_total_);
    if (rank_ == 0 && !opt_.quiet)
      std::printf("%6d %14.8f %14.8f %14.8f %12.6f %10.3e\n", step, t.energy() / N, t.ke / N,
                  t.pe / N, 2.0 * t.ke / (3.0 * (N - 1)), drift);
    return drift;
  };
  const int every = opt_.steps >= 20 ? opt_.steps / 20 : 1;
  const int sample = opt_.steps >= 100 ? std::max(1, opt_.steps / 100) : 1;
  double max_drift = opt_.equil > 0 ? 0.0 : report(0, t0);

  const T dt = static_cast<T>(kDt), half = static_cast<T>(0.5 * kDt);
  int rebuilds = 0;
  auto advance = [&] {
    timed(lj::kIntegrate, lj::kEvKick, [&] {
      lj::for_each(gpu_, n_, lj::Kick<T>{columns(), half, dt, true});
    });
    int again = 0;
    timed(lj::kCheck, lj::kEvCheck, [&] { CHECK(pvec_verlet_check(list_, &again)); });
    if (again) {
      timed(lj::kRebuild, lj::kEvRebuild, [&] { rebuild(); });
      ++rebuilds;
      timed(lj::kForce, lj::kEvForce, [&] { forces(); });
    } else if (opt_.overlap) {
      replay_overlapped();
    } else {
      timed(lj::kGhostGet, lj::kEvGhostGet,
            [&] { CHECK(pvec_ghost_get(vec_, PVEC_NO_PROPS, 0, on_ | PVEC_GHOST_REUSE_PLAN)); });
      timed(lj::kForce, lj::kEvForce, [&] { forces(); });
    }
    if (!opt_.full)
      timed(lj::kGhostPut, lj::kEvGhostPut,
            [&] { CHECK(pvec_ghost_put(vec_, &p_force_, 1, PVEC_REDUCE_ADD, on_)); });
    timed(lj::kIntegrate, lj::kEvKick2, [&] {
      lj::for_each(gpu_, n_, lj::Kick<T>{columns(), half, dt, false});
    });
  };

  // Equilibration: the lattice melts (its energy error is the largest of the run, while
  // particles first collide); the drift and the times are of the steps after it.
  for (int step = 1; step <= opt_.equil; ++step) advance();
  const Totals te = opt_.equil > 0 ? totals() : t0;
  for (double& x : time_) x = 0;
  rebuilds = 0;
  if (rank_ == 0 && opt_.equil > 0 && !opt_.quiet)
    std::printf("(after %d equilibration steps; the drift is measured from here)\n", opt_.equil);
  auto report_e = [&](int step, const Totals& tt) {
    const double drift = std::fabs(tt.energy() - te.energy()) / std::fabs(te.energy());
    const double N = static_cast<double>(n_total_);
    if (rank_ == 0 && !opt_.quiet && (step % every == 0 || step == opt_.steps))
      std::printf("%6d %14.8f %14.8f %14.8f %12.6f %10.3e\n", step, tt.energy() / N, tt.ke / N,
                  tt.pe / N, 2.0 * tt.ke / (3.0 * (N - 1)), drift);
    return drift;
  };
  if (opt_.equil > 0) max_drift = report_e(0, te);
  Totals t = te;
  MPI_Barrier(MPI_COMM_WORLD);
  const double loop_start = MPI_Wtime();
  trace_.start(!opt_.trace.empty(), loop_start);
  for (int step = 1; step <= opt_.steps; ++step) {
    step_ = step;
    advance();
    // The energy every `sample` steps (a reduction, not in the parts' times), so that no
    // excursion between table rows goes unseen.
    if (step % sample == 0 || step == opt_.steps) {
      const double a = MPI_Wtime();
      t = totals();
      trace_.add(step, lj::kEvEnergy, a, MPI_Wtime());
      max_drift = std::fmax(max_drift, report_e(step, t));
    }
  }
  // The measured steps' wall time on the slowest rank, energy samples included (what a
  // step costs; the parts' sum below counts a rank's wait for another's work twice).
  const double loop_here = MPI_Wtime() - loop_start;
  double loop = 0;
  MPI_Reduce(&loop_here, &loop, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);

  // The checks on the final state, and where the time went.
  const double momentum = std::sqrt(t.p[0] * t.p[0] + t.p[1] * t.p[1] + t.p[2] * t.p[2]) /
                          static_cast<double>(n_total_);
  const double p_tol = sizeof(T) == 4 ? 1e-5 : 1e-10, e_tol = sizeof(T) == 4 ? 1e-3 : 1e-4;
  const bool p_ok = momentum < p_tol, e_ok = max_drift < e_tol;
  ok = ok && p_ok && e_ok;
  if (!opt_.trace.empty() && !trace_.write(opt_.trace.c_str(), lj::kEventNames, MPI_COMM_WORLD)) {
    if (rank_ == 0) std::fprintf(stderr, "lj_md: could not write %s\n", opt_.trace.c_str());
    ok = false;
  }
  double worst[lj::kParts];
  MPI_Reduce(time_, worst, lj::kParts, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank_ == 0) {
    std::printf("momentum: |P|/N = %.3e after %d steps (tolerance %.0e)%s\n", momentum, opt_.steps,
                p_tol, p_ok ? "" : "  FAILED");
    std::printf(
        "energy: E/N = %.8f after %d equilibration steps, %.8f %d steps later; max "
        "|E(t)-E(0)|/|E(0)| = %.3e (sampled every %d steps; tolerance %.0e)%s\n",
        te.energy() / n_total_, opt_.equil, t.energy() / n_total_, opt_.steps, max_drift, sample,
        e_tol, e_ok ? "" : "  FAILED");
    std::printf("rebuilds: %d in %d steps (map + sort + ghost_get + verlet_build)\n", rebuilds,
                opt_.steps);
    double sum = 0;
    std::printf("time per step (ms, slowest rank):");
    for (int k = 0; k < lj::kParts; ++k) {
      const double ms = 1e3 * worst[k] / std::max(opt_.steps, 1);
      sum += ms;
      std::printf(" %s %.3f", lj::kPartNames[k], ms);
    }
    std::printf(" | total %.3f | wall %.3f", sum, 1e3 * loop / std::max(opt_.steps, 1));
    if (rebuilds > 0) std::printf(" | %.3f ms per rebuild", 1e3 * worst[lj::kRebuild] / rebuilds);
    std::printf("\n%s\n", ok ? "lj_md: all checks passed" : "lj_md: CHECKS FAILED");
  }
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CHECK(pvec_init(&argc, &argv));
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  lj::Options o;
  if (!lj::parse(argc, argv, &o)) {
    if (rank == 0)
      std::fprintf(stderr,
                   "usage: %s [--cells N] [--steps S] [--equil E] [--t0 T] [--float32] [--full]\n"
                   "          [--sort morton|rowmajor|halo] [--overlap] [--trace FILE]\n"
                   "          [--quiet]\n",
                   argv[0]);
    CHECK(pvec_finalize());
    return 2;
  }
  int rc;
  if (o.f32) {
    Simulation<float> sim(o);
    rc = sim.run();
  } else {
    Simulation<double> sim(o);
    rc = sim.run();
  }
  int any = 0;
  MPI_Allreduce(&rc, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  CHECK(pvec_finalize());
  return any;
}
