// bench_balance: pvec_vector_rebalance on clustered particles (90% of them in a tenth of the
// box), the realistic particle (64 bytes), --per-rank particles on each rank, on the device
// mirrors where there is a GPU (else the host backend, and it says so).
//
//   imbalance      the count imbalance on equal boxes, and after the rebalance (target <= 1.05)
//   rebalance      the first call (decomposition and its map, which moves most particles: they
//                  sit in one equal box), and a later one (after the 10% movers: the boxes shift
//                  a little, few particles move), against a plain map with 10% movers on the
//                  balanced boxes (the baseline, measured in the same run; target <= 3x).
//                  The first one also against the same move without the decomposition: a
//                  second vector holding the same particles on the equal boxes takes the
//                  balanced boxes through pvec_vector_follow, whose map sends every particle
//                  where the rebalance's map sent it (fresh message buffers for both)
//   map, ghost     a map with 10% movers and a ghost_get (new plan) on the balanced boxes of the
//                  clustered particles, against the same calls on equal boxes of uniformly
//                  spread particles, the same count per rank (target <= 1.3x). The map timed is
//                  the second one after the rebalance (and after creation, for equal boxes);
//                  the first is reported on its own row: a rebalance leaves each rank at the
//                  mean count, and a rank whose capacity is about that grows it on the next
//                  net inflow (a doubling: new memory, the rows copied), once. The equal boxes'
//                  ghost width is chosen (with untimed ghost_gets) so that their busiest rank
//                  holds as many ghosts as the balanced boxes' busiest: both ghost_gets move
//                  the same number of ghosts (the clustered particles' small boxes hold many
//                  more ghosts at the same width). Each vector's first ghost_get is timed, and
//                  a second one right after it (a new plan again, the same particles): a first
//                  ghost_get that grows a rank's capacity pays for it (new memory, the rows
//                  copied), and the bench says on how many ranks it did
//
// Medians of --reps repetitions, each on a fresh vector; a barrier before each timed call and
// the largest time over the ranks. One JSON line per measurement (docs/performance.md).
#include "bench_common.hpp"

#ifdef BENCH_HAVE_MPI
#include <mpi.h>
#endif

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

using namespace bench;

namespace {

int rank_of() {
  int r = 0;
#ifdef BENCH_HAVE_MPI
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
#endif
  return r;
}
int size_of() {
  int n = 1;
#ifdef BENCH_HAVE_MPI
  MPI_Comm_size(MPI_COMM_WORLD, &n);
#endif
  return n;
}
void barrier() {
#ifdef BENCH_HAVE_MPI
  MPI_Barrier(MPI_COMM_WORLD);
#endif
}
double max_over_ranks(double x) {
#ifdef BENCH_HAVE_MPI
  MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
#endif
  return x;
}

double sum_over_ranks(double x) {
#ifdef BENCH_HAVE_MPI
  MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
#endif
  return x;
}

// Times f on every rank after a barrier; the largest over the ranks.
template <class F>
double timed(F f) {
  barrier();
  const double t0 = now_seconds();
  f();
  return max_over_ranks(now_seconds() - t0);
}

struct Run {
  int64_t per_rank;
  bool device;
  int backend;
  double ghost;
};

// A vector of per_rank particles on this rank at positions drawn from the clustered (90% in
// the low corner tenth of the box) or the uniform distribution; mapped (on the host, then
// copied to the device when the run is on the device).
pvec_vector_t make(const Run& run, const RealisticSchema& s, bool clustered, uint64_t seed) {
  pvec_vector_desc d = realistic_desc(run.per_rank, run.backend, PVEC_HOST_PINNED);
  d.ghost_width = run.ghost;
  d.boundary[0] = PVEC_PERIODIC;
  pvec_vector_t v = nullptr;
  BENCH_PVEC(pvec_vector_create(&d, s.schema, &v));
  pvec_layout l = PVEC_LAYOUT_INIT;
  BENCH_PVEC(pvec_vector_get_layout(v, PVEC_POS, &l));
  float* x = static_cast<float*>(l.host_ptr);
  std::mt19937_64 rng(seed * 7919 + static_cast<uint64_t>(rank_of()));
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  const float side = 0.464f;  // 0.1^(1/3): a tenth of the volume
  for (int64_t i = 0; i < run.per_rank; ++i) {
    const bool in = clustered && (i % 10) != 9;
    for (int c = 0; c < 3; ++c) x[c * l.stride_elems + i] = (in ? side : 0.999f) * u(rng);
  }
  BENCH_PVEC(pvec_map(v, 0, nullptr));
  if (run.device) BENCH_PVEC(pvec_host_to_device(v, nullptr, 0));
  return v;
}

// Moves 10% of the local particles (every tenth) to new positions of the same distribution;
// the next map sends most of them to another rank.
void move_tenth(pvec_vector_t v, const Run& run, bool clustered, uint64_t seed) {
  if (run.device) BENCH_PVEC(pvec_device_to_host(v, nullptr, 0));
  pvec_layout l = PVEC_LAYOUT_INIT;
  BENCH_PVEC(pvec_vector_get_layout(v, PVEC_POS, &l));
  float* x = static_cast<float*>(l.host_ptr);
  std::mt19937_64 rng(seed * 104729 + static_cast<uint64_t>(rank_of()));
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  for (int64_t i = 0; i < l.n_local; i += 10)
    for (int c = 0; c < 3; ++c)
      x[c * l.stride_elems + i] = (clustered && (i / 10) % 10 != 9 ? 0.464f : 0.999f) * u(rng);
  if (run.device) BENCH_PVEC(pvec_host_to_device(v, nullptr, 0));
}

int64_t ghost_count(pvec_vector_t v) {
  int64_t g = 0;
  BENCH_PVEC(pvec_vector_get_ghost_size(v, &g));
  return g;
}

// The ghost width at which equal boxes of uniformly spread particles give `target` ghosts on
// their busiest rank (within 2%, from a few untimed ghost_gets: the count grows about linearly
// with a thin width), at most 0.2 (subdomains of 4 ranks are 0.5 wide).
double matched_width(const Run& run, const RealisticSchema& s, uint64_t seed, double target) {
  Run r = run;
  for (int it = 0; it < 5 && target > 0; ++it) {
    pvec_vector_t e = make(r, s, false, seed);
    BENCH_PVEC(
        pvec_ghost_get(e, nullptr, 0, run.device ? static_cast<unsigned>(PVEC_ON_DEVICE) : 0u));
    const double g = max_over_ranks(static_cast<double>(ghost_count(e)));
    BENCH_PVEC(pvec_vector_destroy(e));
    if (g > 0 && std::fabs(g - target) <= 0.02 * target) break;
    const double next = g > 0 ? r.ghost * target / g : 2 * r.ghost;
    r.ghost = next < 0.2 ? next : 0.2;
  }
  return r.ghost;
}

int64_t capacity_of(pvec_vector_t v) {
  int64_t c = 0;
  BENCH_PVEC(pvec_vector_get_capacity(v, &c));
  return c;
}

double count_imbalance(pvec_vector_t v) {
  double c = 0;
  BENCH_PVEC(pvec_vector_get_imbalance(v, PVEC_NO_WEIGHT, 0, &c, nullptr));
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  BENCH_PVEC(pvec_init(&argc, &argv));  // starts MPI where pvec runs with it
  Args a(argc, argv,
         "bench_balance [--per-rank N] [--reps R] [--backend host|cuda] [--quick]\n"
         "  --per-rank N   particles each rank creates (default 1e6; quick 1e4)\n"
         "  --reps R       repetitions, the median is reported (default 5; quick 2)\n"
         "  --backend B    host or cuda (default: cuda where there is a device)\n");
  const bool quick = a.flag("--quick");
  Run run{a.count("--per-rank", quick ? 10000 : 1000000), false, PVEC_BACKEND_HOST, 0.02};
  const int reps = static_cast<int>(a.count("--reps", quick ? 2 : 5));
  const std::string backend = a.value("--backend", "");
  a.finish();
  int devices = 0;
  BENCH_PVEC(pvec_cuda_device_count(&devices));
  run.device = backend == "cuda" || (backend.empty() && devices > 0);
  if (run.device && devices == 0) die("--backend cuda: no CUDA device");
  run.backend = run.device ? PVEC_BACKEND_CUDA : PVEC_BACKEND_HOST;
  const unsigned on = run.device ? static_cast<unsigned>(PVEC_ON_DEVICE) : 0u;
  const int ranks = size_of();
  {
    RealisticSchema s;

    std::vector<double> t_rebalance, t_again, t_map10, t_ghost, t_map10_equal, t_ghost_equal;
    std::vector<double> t_ghost2, t_ghost2_equal;  // the second ghost_get of each vector
    std::vector<double> t_same_move;  // the first rebalance's move, by pvec_vector_follow
    double grew = 0, grew_equal = 0;  // ranks whose first ghost_get grew the capacity, last rep
    std::vector<double> t_first, t_first_equal;  // the first map after the rebalance / creation
    double before = 0, after = 0;
    double ghosts = 0, ghosts_equal = 0;  // the most on a rank, last repetition
    double width_equal = run.ghost;       // the equal boxes' matched ghost width, last one
    for (int r = 0; r < reps; ++r) {
      const uint64_t seed = static_cast<uint64_t>(r) + 1;
      pvec_vector_t v = make(run, s, true, seed);
      before = count_imbalance(v);
      pvec_vector_t same = make(run, s, true, seed);  // the same particles, equal boxes
      t_rebalance.push_back(timed(
          [&] { BENCH_PVEC(pvec_vector_rebalance(v, PVEC_NO_WEIGHT, 1.0, on, nullptr, &after)); }));
      t_same_move.push_back(timed([&] { BENCH_PVEC(pvec_vector_follow(same, v, on)); }));
      BENCH_PVEC(pvec_vector_follow(same, nullptr, 0));
      BENCH_PVEC(pvec_vector_destroy(same));
      move_tenth(v, run, true, seed);
      t_first.push_back(timed([&] { BENCH_PVEC(pvec_map(v, on, nullptr)); }));
      move_tenth(v, run, true, seed + 300);
      t_map10.push_back(timed([&] { BENCH_PVEC(pvec_map(v, on, nullptr)); }));
      const int64_t cap = capacity_of(v);
      t_ghost.push_back(timed([&] { BENCH_PVEC(pvec_ghost_get(v, nullptr, 0, on)); }));
      grew = sum_over_ranks(capacity_of(v) > cap ? 1.0 : 0.0);
      t_ghost2.push_back(timed([&] { BENCH_PVEC(pvec_ghost_get(v, nullptr, 0, on)); }));
      ghosts = max_over_ranks(static_cast<double>(ghost_count(v)));
      move_tenth(v, run, true, seed + 100);
      t_again.push_back(timed([&] {
        BENCH_PVEC(pvec_vector_rebalance(v, PVEC_NO_WEIGHT, 1.0, on, nullptr, nullptr));
      }));
      BENCH_PVEC(pvec_vector_destroy(v));
      // The same calls on equal boxes of uniformly spread particles, as many ghosts.
      Run eq = run;
      eq.ghost = matched_width(run, s, seed, ghosts);
      width_equal = eq.ghost;
      pvec_vector_t e = make(eq, s, false, seed);
      move_tenth(e, run, false, seed);
      t_first_equal.push_back(timed([&] { BENCH_PVEC(pvec_map(e, on, nullptr)); }));
      move_tenth(e, run, false, seed + 300);
      t_map10_equal.push_back(timed([&] { BENCH_PVEC(pvec_map(e, on, nullptr)); }));
      const int64_t cap_equal = capacity_of(e);
      t_ghost_equal.push_back(timed([&] { BENCH_PVEC(pvec_ghost_get(e, nullptr, 0, on)); }));
      grew_equal = sum_over_ranks(capacity_of(e) > cap_equal ? 1.0 : 0.0);
      t_ghost2_equal.push_back(timed([&] { BENCH_PVEC(pvec_ghost_get(e, nullptr, 0, on)); }));
      ghosts_equal = max_over_ranks(static_cast<double>(ghost_count(e)));
      BENCH_PVEC(pvec_vector_destroy(e));
    }
    const double reb = median(t_rebalance), map10 = median(t_map10), ghost = median(t_ghost);
    const double again = median(t_again), same_move = median(t_same_move);
    const double ghost2 = median(t_ghost2), ghost2_eq = median(t_ghost2_equal);
    const double map_eq = median(t_map10_equal), ghost_eq = median(t_ghost_equal);
    const double first = median(t_first), first_eq = median(t_first_equal);
    if (rank_of() == 0) {
      std::printf("# bench_balance: %d rank(s), %lld particles per rank, %s, %d reps (medians)\n",
                  ranks, static_cast<long long>(run.per_rank),
                  run.device ? "device mirrors" : "host backend", reps);
      std::printf("%-34s %12s %12s %8s\n", "measurement", "pvec", "baseline", "ratio");
      std::printf("%-34s %12.3f %12.3f %8s\n", "imbalance (after, before)", after, before, "");
      std::printf("%-34s %10.3f ms %10.3f ms %8.2f\n", "rebalance vs map of 10% movers", reb * 1e3,
                  map10 * 1e3, map10 > 0 ? reb / map10 : 0.0);
      std::printf("%-34s %10.3f ms %10.3f ms %8.2f\n", "rebalance vs the same move (follow)",
                  reb * 1e3, same_move * 1e3, same_move > 0 ? reb / same_move : 0.0);
      std::printf("%-34s %10.3f ms %10.3f ms %8.2f\n", "later rebalance vs map of 10%", again * 1e3,
                  map10 * 1e3, map10 > 0 ? again / map10 : 0.0);
      std::printf("%-34s %10.3f ms %10.3f ms %8.2f\n", "map 10%: balanced vs equal boxes",
                  map10 * 1e3, map_eq * 1e3, map_eq > 0 ? map10 / map_eq : 0.0);
      std::printf("%-34s %10.3f ms %10.3f ms %8.2f\n", "first map after: balanced vs equal",
                  first * 1e3, first_eq * 1e3, first_eq > 0 ? first / first_eq : 0.0);
      std::printf("%-34s %10.3f ms %10.3f ms %8.2f\n", "ghost_get: balanced vs equal boxes",
                  ghost * 1e3, ghost_eq * 1e3, ghost_eq > 0 ? ghost / ghost_eq : 0.0);
      std::printf("%-34s %10.3f ms %10.3f ms %8.2f\n", "second ghost_get: balanced vs equal",
                  ghost2 * 1e3, ghost2_eq * 1e3, ghost2_eq > 0 ? ghost2 / ghost2_eq : 0.0);
      std::printf("%-34s %12.0f %12.0f\n", "ranks growing at the first ghost_get", grew,
                  grew_equal);
      std::printf("%-34s %12.0f %12.0f %8.2f\n", "ghosts (most on a rank)", ghosts, ghosts_equal,
                  ghosts_equal > 0 ? ghosts / ghosts_equal : 0.0);
      std::printf("%-34s %12.4f %12.4f\n", "ghost width (balanced, equal)", run.ghost, width_equal);
      Json("bench_balance")
          .num("ranks", ranks)
          .num("per_rank", static_cast<double>(run.per_rank))
          .str("mirror", run.device ? "device" : "host")
          .num("imbalance_before", before)
          .num("imbalance_after", after)
          .num("rebalance_ms", reb * 1e3)
          .num("rebalance_again_ms", again * 1e3)
          .num("same_move_ms", same_move * 1e3)
          .num("map10_ms", map10 * 1e3)
          .num("ghost_ms", ghost * 1e3)
          .num("map10_equal_ms", map_eq * 1e3)
          .num("first_map_ms", first * 1e3)
          .num("first_map_equal_ms", first_eq * 1e3)
          .num("ghost_equal_ms", ghost_eq * 1e3)
          .num("ghost2_ms", ghost2 * 1e3)
          .num("ghost2_equal_ms", ghost2_eq * 1e3)
          .num("ranks_grown_first_ghost", grew)
          .num("ranks_grown_first_ghost_equal", grew_equal)
          .num("ghosts", ghosts)
          .num("ghosts_equal", ghosts_equal)
          .num("ghost_width", run.ghost)
          .num("ghost_width_equal", width_equal)
          .print();
    }
  }  // the schema is destroyed before pvec_finalize
  BENCH_PVEC(pvec_finalize());
  return 0;
}
