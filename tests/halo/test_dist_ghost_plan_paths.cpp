// Proves that the host path's own plan builder (two passes over the particles, entries placed
// by rank without a sort: halo/ghost_plan_host.hpp) makes exactly the plan of the device
// path's passes (select, count, scan, fill, stable sort by rank), which the host runs while
// force_generic_ghost_plan is on: the same ghosts in the same rows, every column byte for
// byte, and the same figures; then ghost_put ADD through each plan gives the same local bytes.
// The receive paths and row kernels are compared on the way: the host plan's rows are copied
// and reduced by runs of consecutive sources whatever their length (force_plan_runs), its
// blocks read from the senders' shared segments (at 2+ ranks); the device passes' plan copies
// and reduces entry by entry, and its blocks travel through MPI whole into the receive buffer,
// to be unpacked (shared memory refused, force_ghost_piece_rows); and the host plan once more
// entry by entry, its blocks through MPI column by column straight into the ghost rows.
// 1D-3D, float32/float64, periodic or not, ghost widths from tiny to wider than a subdomain and
// than the box (the general path), at 1-4 ranks; dist_host_threads runs it on 3 threads.
#include "dist_util.hpp"
#include "comm/shm_exchange.hpp"
#include "halo/ghost_get.hpp"
#include "halo/plan_runs.hpp"

using namespace dist;

namespace {

struct Result {
  pvec_test::Snapshot snap;
  pvec_op_stats ghost_ops{}, put_ops{};
};

// How a vector's ghost exchanges are made (see the top).
enum class Mode { host_runs_shm, generic_whole, host_pieces };

// ghost_get of every property with a new plan, its plan replayed, then ghost_put ADD of the
// 4-byte and 8-byte integers, on a new vector of setup s.
Result exchange(const Setup& s, Mode mode) {
  Props p;
  const bool generic = mode == Mode::generic_whole;
  pvec::impl::shm_refuse_on_rank(mode == Mode::host_runs_shm ? -1 : pvec::impl::kShmAllRanks);
  pvec_vector_t v = make_mapped(s, &p);
  pvec::impl::force_generic_ghost_plan(generic);
  pvec::impl::force_ghost_piece_rows(generic ? INT64_MAX : 1);
  pvec::impl::force_plan_runs(mode == Mode::host_runs_shm ? 1 : 0);
  Result out;
  DIST_OK(pvec_ghost_get(v, nullptr, 0, 0));
  out.ghost_ops = op_stats(v);
  DIST_OK(pvec_ghost_get(v, nullptr, 0, PVEC_GHOST_REUSE_PLAN));
  const int put[] = {p.i32, p.u64};
  DIST_OK(pvec_ghost_put(v, put, 2, PVEC_REDUCE_ADD, 0));
  out.put_ops = op_stats(v);
  out.snap = pvec_test::snapshot(v);
  pvec::impl::force_generic_ghost_plan(false);
  pvec::impl::force_ghost_piece_rows(0);
  pvec::impl::force_plan_runs(-1);
  DIST_OK(pvec_vector_destroy(v));
  pvec::impl::shm_refuse_on_rank(-1);
  return out;
}

void same_figures(const pvec_op_stats& a, const pvec_op_stats& b, const char* op, Failures& f) {
  // (bytes: a block in pieces leaves out its up to 7 bytes of padding)
  if (a.particles_sent != b.particles_sent || a.particles_received != b.particles_received ||
      a.particles_self != b.particles_self || a.bytes_sent > b.bytes_sent + 8 * size() ||
      b.bytes_sent > a.bytes_sent + 8 * size())
    f.addf(op, ": host plan sent/received/self/bytes ", a.particles_sent, "/", a.particles_received,
           "/", a.particles_self, "/", a.bytes_sent, ", the other path's ", b.particles_sent, "/",
           b.particles_received, "/", b.particles_self, "/", b.bytes_sent);
}

void run(int dim, pvec_dtype t, std::initializer_list<int> periodic, double width, int64_t n,
         uint64_t seed) {
  Setup s;
  s.dim = dim;
  s.pos = t;
  int d = 0;
  for (int b : periodic) s.periodic[d++] = b;
  s.width = width;
  s.n_per_rank = n;
  s.seed = seed;
  CAPTURE(dim, pvec_dtype_name(t), s.periodic[0], s.periodic[1], s.periodic[2], width, n);
  const Result host = exchange(s, Mode::host_runs_shm);
  Failures f;
  for (Mode m : {Mode::generic_whole, Mode::host_pieces}) {
    const Result other = exchange(s, m);
    const char* name = m == Mode::generic_whole ? "device passes' plan" : "host plan by MPI";
    if (host.snap.n_local != other.snap.n_local || host.snap.n_ghost != other.snap.n_ghost)
      f.addf("sizes ", host.snap.n_local, "+", host.snap.n_ghost, " (host plan) against ",
             other.snap.n_local, "+", other.snap.n_ghost, " (", name, ")");
    else {
      const std::string diff = pvec_test::compare_rows(host.snap, other.snap, host.snap.rows());
      if (!diff.empty()) f.add(std::string("rows differ from the ") + name + "'s: " + diff);
    }
    same_figures(host.ghost_ops, other.ghost_ops, "ghost_get", f);
    same_figures(host.put_ops, other.put_ops, "ghost_put", f);
  }
  f.require("host plan by runs and shared memory against the other paths");
}

}  // namespace

TEST_CASE("the host plan is the device passes' plan, byte for byte", "[dist][ghost]") {
  run(1, PVEC_FLOAT64, {1}, 0.05, 300, 901);
  run(1, PVEC_FLOAT32, {0}, 0.7, 120, 902);  // wider than a subdomain at 3-4 ranks
  run(1, PVEC_FLOAT32, {1}, 2.5, 40, 903);   // wider than the box
  run(2, PVEC_FLOAT32, {1, 0}, 0.1, 400, 904);
  run(2, PVEC_FLOAT64, {1, 1}, 1.2, 60, 905);
  run(3, PVEC_FLOAT32, {1, 1, 1}, 0.05, 3000, 906);  // the fast path, many ranges
  run(3, PVEC_FLOAT64, {1, 0, 1}, 0.15, 1500, 907);
  run(3, PVEC_FLOAT32, {0, 1, 0}, 0.3, 300, 908);
  run(3, PVEC_FLOAT64, {1, 1, 1}, 0.0, 200, 909);  // no width: no ghosts
}
