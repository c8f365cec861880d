// Longer than 500 lines because it is one program read top to bottom: the set-up, the step
// loop, the output and the checks of one simulation (its kernels, checks, options and output
// helpers are in the headers beside it).
// A weakly compressible SPH dam break with pvec: Martin & Moyce's water column (a wide, 2a
// high, a = 1 m) collapses in a tank 5a long. 3D by default (the column spans a periodic width,
// so the flow is that of their quasi-2D experiment; --dim 2 runs the plane problem). Wendland C2
// kernel (h = 1.3 dp), Tait's equation (gamma 7, c0 = 10 sqrt(2 g 2a)), Monaghan's artificial
// viscosity (alpha 0.1), the continuity equation, dynamic boundary particles (3 layers of fixed
// wall particles whose density evolves), the OpenFPM-style Verlet integrator (an Euler step
// every 40 steps) and an adaptive time step (CFL 0.2).
//
//   mpirun -np 2 ./sph_dambreak [--dim 2|3] [--dp X] [--width W] [--time t | --steps S]
//     [--float32] [--quiet] [--rebalance-every K] [--threshold X] [--rebalance-weight
//     count|neighbors] [--order key|cell] [--keep-wall-pairs] [--host] [--vtk DIR] [--vtk-every N]
//     [--checkpoint FILE --checkpoint-at STEP] [--restart FILE]
//
// One pvec vector holds fluid and walls (property "type": 0 fluid, 1 wall; "id": a global id
// given at creation). Each step: the time step from the last rates (pvec_vector_reduce MIN of
// each particle's limit: exact, so every rank count agrees); the integrator on local rows;
// pvec_verlet_check, and on a rebuild (when K steps passed since the last, first
// pvec_vector_rebalance, weights: each particle's list entries) pvec_map + pvec_vector_sort +
// pvec_ghost_get (new plan) + pvec_verlet_build, else pvec_ghost_get replaying the plan; pressure
// on local and ghost rows; rates over a FULL Verlet list (each particle sums its own terms: no
// ghost_put). The list is in key order (pvec_verlet_create_with, key = id) without wall-wall pairs
// (skip = type), so every sum adds the same terms in the same order on any rank count: the final
// state is bitwise the same at 1, 2, 3 or 4 ranks, which the printed state hash shows.
// docs/examples.md has the rest.
#include <pvec.h>

#include <mpi.h>

#include "sph_check.hpp"
#include "sph_kernels.hpp"
#include "sph_options.hpp"
#include "sph_output.hpp"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

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

using sph::Options;

const double kG = 9.81, kRho0 = 1000.0, kHOverDp = 1.3, kSkinOverDp = 0.5, kCfl = 0.2;
const double kAlpha = 0.1, kSoundFactor = 10.0, kEndT = 3.4;
const int kEulerEvery = 40;
// The surge-front check (see run() and docs/examples.md): active from this resolution
// (particles across a), over the data points up to the run's end (at least 3), within this
// largest relative deviation. The simulated front leads the experiment's, more with finer
// particles: largest deviation 0.115, 0.149, 0.175 at a/dp = 20, 40, 80 (2D), about 0.25 when
// extrapolated from them; the tolerance is above that.
const int kFrontMinNa = 20;
const double kFrontTol = 0.3;

enum Part { kRates, kIntegrate, kReduce, kCheck, kMapGhost, kList, kRebalance, kOutput, kParts };
const char* const kPartNames[kParts] = {"rates",     "integrate", "dt+front",  "check",
                                        "map+ghost", "list",      "rebalance", "output"};

template <class T>
class Simulation {
 public:
  explicit Simulation(const Options& o)
      : opt_(o), geo_(o.dim, o.dp, o.width, 2 * kHOverDp + kSkinOverDp) {
    const double dp = geo_.dp, h = kHOverDp * dp, a = geo_.a;
    const double c0 = kSoundFactor * std::sqrt(2 * kG * 2 * a);
    const double pi = 3.141592653589793;
    const double norm = o.dim == 3 ? 21.0 / (16.0 * pi * h * h * h) : 7.0 / (4.0 * pi * h * h);
    ph_ = {o.dim,        h,  kRho0 * std::pow(dp, o.dim), kRho0, c0 * c0 * kRho0 / 7.0, c0, kAlpha,
           0.01 * h * h, kG, -5.0 * norm / (h * h)};
    cutoff_ = 2 * h;
    skin_ = kSkinOverDp * dp;
    t_end_ = o.time > 0 ? o.time : kEndT / std::sqrt(2 * kG / a);

    const pvec_dtype t = sizeof(T) == 4 ? PVEC_FLOAT32 : PVEC_FLOAT64;
    pvec_schema_t schema;
    CHECK(pvec_schema_create(&schema));
    CHECK(pvec_schema_add_scalar(schema, "type", PVEC_INT32, &p_type_));
    CHECK(pvec_schema_add_scalar(schema, "id", PVEC_INT64, &p_id_));
    CHECK(pvec_schema_add_scalar(schema, "rho", t, &p_rho_));
    CHECK(pvec_schema_add_scalar(schema, "rho_prev", t, &p_rho_prev_));
    CHECK(pvec_schema_add_scalar(schema, "drho", t, &p_drho_));
    CHECK(pvec_schema_add_scalar(schema, "pressure", t, &p_p_));
    CHECK(pvec_schema_add_vector(schema, "velocity", t, o.dim, &p_v_));
    CHECK(pvec_schema_add_vector(schema, "velocity_prev", t, o.dim, &p_v_prev_));
    CHECK(pvec_schema_add_vector(schema, "acceleration", t, o.dim, &p_acc_));
    CHECK(pvec_schema_add_scalar(schema, "scratch", t, &p_scratch_));
    CHECK(pvec_schema_add_scalar(schema, "cost", PVEC_FLOAT32, &p_cost_));
    pvec_vector_desc desc = PVEC_VECTOR_DESC_INIT;
    desc.dim = o.dim;
    desc.pos_dtype = t;
    const int up = o.dim - 1;
    desc.domain_lo[0] = -4 * dp;
    desc.domain_hi[0] = geo_.tank_length() + 4 * dp;
    if (o.dim == 3) {  // the width: periodic, no side walls
      desc.domain_hi[1] = geo_.width();
      desc.boundary[1] = PVEC_PERIODIC;
    }
    desc.domain_lo[up] = -4 * dp;
    desc.domain_hi[up] = 4 * a;
    desc.ghost_width = cutoff_ + skin_;
    if (o.host) desc.backend = PVEC_BACKEND_HOST;
    if (o.restart.empty()) {
      desc.n_particles = geo_.n_total();
      CHECK(pvec_vector_create(&desc, schema, &vec_));
    } else {
      CHECK(pvec_checkpoint_restart(o.restart.c_str(), &desc, schema, PVEC_RESTART_ZERO_MISSING,
                                    &vec_));
      CHECK(pvec_checkpoint_describe(o.restart.c_str(), nullptr, nullptr, &step0_, &t0_));
    }
    CHECK(pvec_schema_destroy(schema));
    CHECK(pvec_vector_get_rank(vec_, &rank_));
    CHECK(pvec_vector_get_nranks(vec_, &size_));
    pvec_backend backend;
    CHECK(pvec_vector_get_backend(vec_, &backend));
    gpu_ = backend == PVEC_BACKEND_CUDA;
    on_ = gpu_ ? static_cast<unsigned>(PVEC_ON_DEVICE) : 0u;
#if defined(__CUDACC__)
    if (gpu_) {  // our kernels run on the device pvec's runtime chose (pvec.h, pvec_init)
      int dev;
      CHECK(pvec_vector_get_device(vec_, &dev));
      sph::cuda_check(cudaSetDevice(dev), "cudaSetDevice");
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
  // reallocate or reorder (map, sort, ghost_get, rebalance).
  sph::Columns<T> columns(bool host = false) {
    const int props[11] = {PVEC_POS, p_v_, p_v_prev_,  p_acc_,  p_rho_, p_rho_prev_,
                           p_drho_,  p_p_, p_scratch_, p_cost_, p_type_};
    pvec_layout l[11];
    for (auto& x : l) x = PVEC_LAYOUT_INIT;
    CHECK(pvec_vector_get_layouts(vec_, props, 11, l, 11));
    const bool dev = gpu_ && !host;
    auto ptr = [&](int k) { return dev ? l[k].device_ptr : l[k].host_ptr; };
    auto col = [&](int k) { return static_cast<T*>(ptr(k)); };
    n_ = l[0].n_local;
    n_ghost_ = l[0].n_ghost;
    return {col(0),
            col(1),
            col(2),
            col(3),
            col(4),
            col(5),
            col(6),
            col(7),
            col(8),
            static_cast<float*>(ptr(9)),
            static_cast<const std::int32_t*>(ptr(10)),
            l[0].capacity};
  }
  void initial_state();
  void rebuild();
  void rates();
  double front();
  void output(std::int64_t step, double t);
  double elapsed(Part p, double since) {
    const double now = MPI_Wtime();
    time_[p] += now - since;
    return now;
  }

  Options opt_;
  sph::Geometry geo_;
  sph::Physics ph_{};
  pvec_vector_t vec_ = nullptr;
  pvec_verlet_t list_ = nullptr;
  int p_type_ = 0, p_id_ = 0, p_rho_ = 0, p_rho_prev_ = 0, p_drho_ = 0, p_p_ = 0, p_v_ = 0;
  int p_v_prev_ = 0, p_acc_ = 0, p_scratch_ = 0, p_cost_ = 0, rank_ = 0, size_ = 1;
  bool gpu_ = false;
  unsigned on_ = 0;
  std::int64_t n_ = 0, n_ghost_ = 0, step0_ = 0, removed_ = 0, rebuilds_ = 0;
  double cutoff_ = 0, skin_ = 0, t_end_ = 0, t0_ = 0;
  double time_[kParts] = {0, 0, 0, 0, 0, 0, 0, 0};
};

// Lattice sites, types and ids from the global index (each rank fills its share of the rows
// pvec_vector_create gave it), at rest, the fluid at hydrostatic density: p = rho0 g (2a - z).
template <class T>
void Simulation<T>::initial_state() {
  sph::Columns<T> s = columns(true);
  auto* id = static_cast<std::int64_t*>(pvec_host_ptr(vec_, p_id_));
  auto* type = static_cast<std::int32_t*>(pvec_host_ptr(vec_, p_type_));
  std::int64_t first = 0;
  MPI_Exscan(&n_, &first, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (rank_ == 0) first = 0;
  const int D = opt_.dim;
  for (std::int64_t i = 0; i < n_; ++i) {
    double x[3];
    id[i] = first + i;
    type[i] = geo_.site(first + i, x);
    for (int d = 0; d < D; ++d) s.x[d * s.cap + i] = static_cast<T>(x[d]);
    const double p = type[i] == sph::kFluid ? kRho0 * kG * (2 * geo_.a - x[D - 1]) : 0.0;
    s.rho[i] = s.rho_prev[i] = static_cast<T>(kRho0 * std::pow(1 + p / ph_.B, 1.0 / 7.0));
  }
  if (gpu_) CHECK(pvec_host_to_device(vec_, nullptr, 0));
}

// Particles to their owners, rows in cell order, ghosts with a new plan (type and id too: the
// list reads them on the ghost rows), the list rebuilt and the particles' weights from it.
template <class T>
void Simulation<T>::rebuild() {
  double t = MPI_Wtime();
  std::int64_t removed = 0;
  CHECK(pvec_map(vec_, on_ | PVEC_MAP_REMOVE_OUTSIDE, &removed));
  removed_ += removed;
  CHECK(pvec_vector_sort(vec_, cutoff_ + skin_, on_ | PVEC_SORT_MORTON, nullptr));
  const int props[4] = {p_type_, p_id_, p_rho_, p_v_};
  CHECK(pvec_ghost_get(vec_, props, 4, on_));
  t = elapsed(kMapGhost, t);
  if (list_) {
    CHECK(pvec_verlet_build(list_));
  } else {
    // Key order (by id) makes every sum independent of the rank count; --order cell keeps
    // the cell order (faster to build, sums that differ in the last bits between rank
    // counts); wall-wall pairs are left out unless --keep-wall-pairs.
    pvec_verlet_options vo = PVEC_VERLET_OPTIONS_INIT;
    vo.cutoff = cutoff_;
    vo.skin = skin_;
    vo.flags = on_;
    vo.key_prop = opt_.cell_order ? PVEC_NO_PROPERTY : p_id_;
    vo.skip_prop = opt_.keep_wall_pairs ? PVEC_NO_PROPERTY : p_type_;
    CHECK(pvec_verlet_create_with(vec_, &vo, &list_));
  }
  pvec_verlet_info info = PVEC_VERLET_INFO_INIT;
  CHECK(pvec_verlet_get_info(list_, &info));
  const pvec::verlet_view list{info.n, info.offsets, info.neighbors, info.half};
  float* cost = columns().cost;
  sph::for_each(gpu_, info.n, sph::Cost{cost, list});
  elapsed(kList, t);
  ++rebuilds_;
}

// Pressure on local and ghost rows, then the rates of the local particles and each one's time
// step limit (in scratch).
template <class T>
void Simulation<T>::rates() {
  const double t = MPI_Wtime();
  sph::Columns<T> s = columns();
  const T inv_rho0 = static_cast<T>(1.0 / kRho0), B = static_cast<T>(ph_.B);
  sph::for_each(gpu_, n_ + n_ghost_, sph::Pressure<T>{s.rho, s.p, inv_rho0, B});
  pvec_verlet_info info = PVEC_VERLET_INFO_INIT;
  CHECK(pvec_verlet_get_info(list_, &info));
  const pvec::verlet_view list{info.n, info.offsets, info.neighbors, info.half};
  sph::for_each(gpu_, n_, sph::Rates<T>{s, list, ph_});
  elapsed(kRates, t);
}

// The surge front Z = (largest x of the fluid near the floor + dp/2) / a: the fluid's edge is
// half a spacing beyond its last particle (Z = 1 at t = 0).
template <class T>
double Simulation<T>::front() {
  const double band = std::max(3 * geo_.dp, 0.1 * geo_.a);
  const T lowest = std::numeric_limits<T>::lowest();
  const sph::Columns<T> cols = columns();
  sph::for_each(gpu_, n_, sph::FrontCandidate<T>{cols, opt_.dim, static_cast<T>(band), lowest});
  double xmax = 0;
  CHECK(pvec_vector_reduce(vec_, p_scratch_, PVEC_REDUCE_MAX, on_, &xmax));
  return (xmax + 0.5 * geo_.dp) / geo_.a;
}

template <class T>
void Simulation<T>::output(std::int64_t step, double t) {
  const double t_start = MPI_Wtime();
  if (!opt_.vtk.empty() && (step % opt_.vtk_every == 0 || t >= t_end_)) {
    const int props[5] = {p_type_, p_id_, p_rho_, p_p_, p_v_};
    const std::string prefix = opt_.vtk + "/dambreak";
    CHECK(pvec_vtk_write(vec_, prefix.c_str(), step, t, props, 5, on_ | PVEC_VTK_RANK_ARRAY));
    // The ranks' boxes beside it (scripts/draw_decomposition.py draws both).
    sph::write_boxes(vec_, prefix, step);
  }
  if (!opt_.checkpoint.empty() && step == opt_.checkpoint_at) {
    // The state: x, v, v_prev, rho, rho_prev (rates and pressure follow from it), the type and
    // id, and the geometry the restart rebuilds.
    const int props[6] = {p_type_, p_id_, p_rho_, p_rho_prev_, p_v_, p_v_prev_};
    const char* keys[3] = {"dim", "na", "ny"};
    const double numbers[3] = {static_cast<double>(opt_.dim), static_cast<double>(geo_.na),
                               static_cast<double>(geo_.ny)};
    CHECK(pvec_checkpoint_write(vec_, opt_.checkpoint.c_str(), step, t, props, 6, 3, keys, nullptr,
                                numbers, nullptr, on_));
    if (rank_ == 0)
      std::printf("checkpoint: %s at step %" PRId64 ", t = %.6f s\n", opt_.checkpoint.c_str(), step,
                  t);
  }
  elapsed(kOutput, t_start);
}

template <class T>
int Simulation<T>::run() {
  const double a = geo_.a, tscale = std::sqrt(2 * kG / a);
  char width[64] = "";
  if (opt_.dim == 3)
    std::snprintf(width, sizeof width, ", %" PRId64 " dp = %.3fa wide (periodic)", geo_.ny,
                  geo_.width() / a);
  if (rank_ == 0)
    std::printf("SPH dam break: %dD, %" PRId64 " particles (%" PRId64 " fluid, %" PRId64
                " wall), a = %.3f m, dp = a/%" PRId64
                " = %.5f m, h = %.2f dp, c0 = %.2f m/s, alpha "
                "%.2f, tank 5a long%s, %s, %d rank(s), %s\n",
                opt_.dim, geo_.n_total(), geo_.n_fluid, geo_.n_floor + geo_.n_end, a, geo_.na,
                geo_.dp, kHOverDp, ph_.c0, kAlpha, width, sizeof(T) == 4 ? "float32" : "float64",
                size_,
                gpu_ ? "CUDA backend: kernels on the GPU" : "host backend: kernels as host loops");
  if (rank_ == 0 && opt_.cell_order)
    std::printf(
        "note: --order cell: neighbours are summed in cell order, so the state hash depends on "
        "the rank count\n");
  if (opt_.restart.empty()) initial_state();
  rebuild();
  // The water starts in one corner: balance the list entries before the first step (the list
  // gives the weights), then build again on the new boxes. Values do not change.
  if (opt_.rebalance_every > 0) {
    double before = 1, after = 1;
    const int weight = opt_.count_weight ? PVEC_NO_WEIGHT : p_cost_;
    CHECK(pvec_vector_rebalance(vec_, weight, opt_.threshold, on_, &before, &after));
    if (rank_ == 0 && !opt_.quiet && before != after)
      std::printf("rebalance at the start: imbalance %.3f -> %.3f\n", before, after);
    if (before != after) rebuild();
  }
  rates();
  double lim = 0;
  CHECK(pvec_vector_reduce(vec_, p_scratch_, PVEC_REDUCE_MIN, on_, &lim));
  std::int64_t step = step0_;
  double t = t0_;
  // The surge front at the data's times: the first step at or after each T_k.
  double front_T[sph::kMartinMoyceCount], front_Z[sph::kMartinMoyceCount];
  int sampled = 0, next = 0;
  while (next < sph::kMartinMoyceCount && sph::kMartinMoyce[next].T < t * tscale) ++next;
  const int first_sample = next;
  if (step == 0) output(step, t);
  if (rank_ == 0 && !opt_.quiet)
    std::printf("%8s %10s %8s %10s %8s %8s\n", "step", "t [s]", "T", "dt [s]", "Z", "Z (M&M)");
  const std::int64_t steps_at_start = step;
  std::int64_t last_balance = step;
  bool done = opt_.steps >= 0 ? step >= opt_.steps : t >= t_end_;
  while (!done) {
    ++step;
    double t_start = MPI_Wtime();
    const double dt = kCfl * lim;
    const bool euler = (step - 1) % kEulerEvery == 0;
    const sph::Columns<T> cols = columns();
    sph::for_each(
        gpu_, n_,
        sph::Integrate<T>{cols, opt_.dim, static_cast<T>(dt), static_cast<T>(kRho0), euler});
    t += dt;
    t_start = elapsed(kIntegrate, t_start);
    // A checkpoint comes with a rebuild whatever the rank count, so that the periodic wrap of
    // map happens at the same steps on every rank count and on a restart. A rebalance waits
    // for a rebuild (the check's answer is the same on every rank count), at least K steps
    // after the last one: its map then costs no extra list build, and changes no value.
    const bool forced = !opt_.checkpoint.empty() && step == opt_.checkpoint_at;
    int again = 0;
    if (!forced) CHECK(pvec_verlet_check(list_, &again));
    t_start = elapsed(kCheck, t_start);
    if ((forced || again) && opt_.rebalance_every > 0 &&
        step - last_balance >= opt_.rebalance_every) {
      last_balance = step;
      double before = 1, after = 1;
      const int weight = opt_.count_weight ? PVEC_NO_WEIGHT : p_cost_;
      CHECK(pvec_vector_rebalance(vec_, weight, opt_.threshold, on_, &before, &after));
      if (rank_ == 0 && !opt_.quiet && before != after)
        std::printf("rebalance at step %" PRId64 ": imbalance %.3f -> %.3f (%s)\n", step, before,
                    after, opt_.count_weight ? "particles" : "list entries");
      t_start = elapsed(kRebalance, t_start);
    }
    if (forced || again) {
      rebuild();
    } else {
      const int props[2] = {p_rho_, p_v_};
      CHECK(pvec_ghost_get(vec_, props, 2, on_ | PVEC_GHOST_REUSE_PLAN));
      elapsed(kMapGhost, t_start);
    }
    rates();
    t_start = MPI_Wtime();
    CHECK(pvec_vector_reduce(vec_, p_scratch_, PVEC_REDUCE_MIN, on_, &lim));
    done = opt_.steps >= 0 ? step >= opt_.steps : t >= t_end_;
    if (next < sph::kMartinMoyceCount && t * tscale >= sph::kMartinMoyce[next].T) {
      const double Z = front();
      while (next < sph::kMartinMoyceCount && t * tscale >= sph::kMartinMoyce[next].T) {
        front_T[next] = t * tscale;
        front_Z[next] = Z;
        if (rank_ == 0 && !opt_.quiet)
          std::printf("%8" PRId64 " %10.6f %8.4f %10.3e %8.4f %8.2f\n", step, t, t * tscale, dt, Z,
                      sph::kMartinMoyce[next].Z);
        ++next;
        ++sampled;
      }
    }
    elapsed(kReduce, t_start);
    output(step, t);
  }

  // The checks on the final state, and where the time went.
  if (gpu_) {
    const int props[5] = {PVEC_POS, p_v_, p_rho_, p_id_, p_type_};
    CHECK(pvec_device_to_host(vec_, props, 5));
  }
  const sph::Columns<T> s = columns(true);
  const auto* id = static_cast<const std::int64_t*>(pvec_host_ptr(vec_, p_id_));
  const sph::Summary sum =
      sph::summarize(geo_, s.type, id, s.x, s.v, s.rho, s.cap, n_, MPI_COMM_WORLD);
  const std::int64_t N = geo_.n_total();
  const bool count_ok = sum.n == N && sum.n_fluid == geo_.n_fluid && removed_ == 0;
  const bool ids_ok =
      sum.id_sum == sph::id_sum_expected(N) && sum.id_xor == sph::id_xor_expected(N);
  const bool walls_ok = sum.walls_moved == 0;
  const bool rho_ok =
      sum.not_finite == 0 && sum.rho_min > 0.8 * kRho0 && sum.rho_max < 1.25 * kRho0;
  const sph::FrontFit fit = sph::compare_front(front_T, front_Z, first_sample, sampled);
  const double worst = fit.worst;
  const bool front_on = sampled >= 3 && geo_.na >= kFrontMinNa;
  const bool front_ok = !front_on || worst <= kFrontTol;
  const bool ok = count_ok && ids_ok && walls_ok && rho_ok && front_ok;
  double by_count = 1, by_cost = 1, worst_time[kParts];
  CHECK(pvec_vector_get_imbalance(vec_, p_cost_, on_, &by_count, &by_cost));
  MPI_Reduce(time_, worst_time, kParts, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  // The force pass's time on the ranks: what the balance achieved in time, not in weights.
  double rates_sum = 0;
  MPI_Reduce(&time_[kRates], &rates_sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank_ == 0) {
    const std::int64_t ran = step - steps_at_start;
    std::printf("end: step %" PRId64 ", t = %.6f s, T = %.4f; %" PRId64 " list rebuilds\n", step, t,
                t * tscale, rebuilds_);
    std::printf("particles: %" PRId64 " (%" PRId64 " fluid, %" PRId64 " wall; expected %" PRId64
                ", %" PRId64 " removed at the domain's edge)%s\n",
                sum.n, sum.n_fluid, sum.n_wall, N, removed_, count_ok ? "" : "  FAILED");
    std::printf("mass: %.6e kg (every particle rho0 dp^%d = %.6e kg, so exact with the count)\n",
                static_cast<double>(sum.n) * ph_.mass, opt_.dim, ph_.mass);
    std::printf("ids: sum %" PRIu64 ", xor %" PRIu64 " (expected %" PRIu64 ", %" PRIu64 ")%s\n",
                sum.id_sum, sum.id_xor, sph::id_sum_expected(N), sph::id_xor_expected(N),
                ids_ok ? "" : "  FAILED");
    std::printf("walls: %" PRId64 " wall particles off their sites%s\n", sum.walls_moved,
                walls_ok ? "" : "  FAILED");
    std::printf("fluid density: %.2f .. %.2f kg/m^3 (bounds 0.8 .. 1.25 rho0), %" PRId64
                " non-finite%s\n",
                sum.rho_min, sum.rho_max, sum.not_finite, rho_ok ? "" : "  FAILED");
    if (front_on)
      std::printf(
          "surge front: largest |Z - Z_MM| / Z_MM = %.3f over %d points of Martin & "
          "Moyce (1952) up to T = %.2f (tolerance %.2f); mean lead %.3f in T over %d points%s\n",
          worst, sampled, front_T[first_sample + sampled - 1], kFrontTol, fit.lead, fit.reached,
          front_ok ? "" : "  FAILED");
    else
      std::printf("surge front: not checked (%d data points in this run, a/dp = %" PRId64
                  "; the check needs 3 points and a/dp >= %d); largest deviation %.3f\n",
                  sampled, geo_.na, kFrontMinNa, worst);
    std::printf("imbalance: %.3f by particles, %.3f by list entries\n", by_count, by_cost);
    std::printf("state hash: 0x%016" PRIx64 "\n", sum.hash);
    const double per = 1e3 / static_cast<double>(std::max<std::int64_t>(ran, 1));
    const double mean_rates = rates_sum / size_;
    std::printf("force pass (ms per step): slowest rank %.3f, mean %.3f (time imbalance %.3f)\n",
                worst_time[kRates] * per, mean_rates * per,
                mean_rates > 0 ? worst_time[kRates] / mean_rates : 1.0);
    double total = 0;
    std::printf("time per step (ms, slowest rank, %" PRId64 " steps):", ran);
    for (int k = 0; k < kParts; ++k) {
      const double ms = 1e3 * worst_time[k] / static_cast<double>(std::max<std::int64_t>(ran, 1));
      total += ms;
      std::printf(" %s %.3f", kPartNames[k], ms);
    }
    std::printf(" | total %.3f\n%s\n", total,
                ok ? "sph_dambreak: all checks passed" : "sph_dambreak: CHECKS FAILED");
  }
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CHECK(pvec_init(&argc, &argv));
  int rank = 0, hdf5 = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  CHECK(pvec_has_hdf5(&hdf5));
  Options o;
  if (!sph::parse(argc, argv, &o)) {
    if (rank == 0)
      std::fprintf(stderr,
                   "usage: %s [--dim 2|3] [--dp X] [--width W] [--time t | --steps S] "
                   "[--float32] [--quiet]\n  [--rebalance-every K] [--threshold X] "
                   "[--rebalance-weight count|neighbors] [--order key|cell] "
                   "[--keep-wall-pairs] [--host]\n  [--vtk DIR] [--vtk-every N]"
                   " [--checkpoint FILE --checkpoint-at STEP] [--restart FILE]\n",
                   argv[0]);
    CHECK(pvec_finalize());
    return 2;
  }
  if (!hdf5 && (!o.checkpoint.empty() || !o.restart.empty())) {
    if (rank == 0)
      std::printf("sph_dambreak: this pvec was built without parallel HDF5: %s\n",
                  o.restart.empty() ? "--checkpoint skipped" : "--restart skipped, nothing run");
    o.checkpoint.clear();
    if (!o.restart.empty()) {
      CHECK(pvec_finalize());
      return 0;
    }
  }
  if (!o.restart.empty() && !sph::restart_options(&o)) {
    if (rank == 0)
      std::fprintf(stderr, "sph_dambreak: %s is not a checkpoint of this program: %s\n",
                   o.restart.c_str(), pvec_last_error());
    CHECK(pvec_finalize());
    return 1;
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
