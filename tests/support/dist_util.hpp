// Helpers for the MPI distribution tests (map, ghost_get, ghost_put): collective assertions
// that never leave a rank waiting in a collective, gathers, a deterministic random source,
// a schema with every kind of property whose values are a function of the particle id,
// typed position access, whole-vector snapshots, and the host/device path protocol.
// The tests use pvec only through pvec.h; MPI is used directly to build the references
// (dist_reference.cpp; the rest in dist_util.cpp).
#pragma once
#ifdef PVEC_TEST_HAVE_MPI
// MPI first, so that pvec.h offers pvec_vector_desc_set_comm; only its C API (the C++
// bindings of some MPIs need a library that is not linked).
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>
#endif
#include <pvec.h>

#include "snapshot.hpp"

#include "catch_compat.hpp"

#if defined(PVEC_TEST_CUDA)
#include <cuda_runtime_api.h>
#endif

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace dist {

// ---- MPI over MPI_COMM_WORLD (a single rank without MPI) --------------------------------

int rank();
int size();
// True on every rank iff v is true on every rank.
bool all_true(bool v);
int64_t sum(int64_t v);
int64_t exscan(int64_t v);
void barrier();
// Concatenation of every rank's bytes, in rank order (counts: bytes per rank, optional).
std::vector<unsigned char> allgather_bytes(const void* data, int64_t bytes,
                                           std::vector<int64_t>* counts = nullptr);

template <class X>
std::vector<X> allgather(const std::vector<X>& local, std::vector<int64_t>* counts = nullptr) {
  std::vector<int64_t> bytes;
  std::vector<unsigned char> all =
      allgather_bytes(local.data(), static_cast<int64_t>(local.size() * sizeof(X)), &bytes);
  std::vector<X> out(all.size() / sizeof(X));
  if (!all.empty()) std::memcpy(out.data(), all.data(), all.size());
  if (counts) {
    counts->clear();
    for (int64_t b : bytes) counts->push_back(b / static_cast<int64_t>(sizeof(X)));
  }
  return out;
}

// ---- Collective assertions ---------------------------------------------------------------

// Collects this rank's failures; require() reports them here and stops the test case on
// every rank when any rank has one (a REQUIRE on one rank alone would deadlock the others in
// their next collective call).
class Failures {
 public:
  void add(const std::string& what);
  template <class... A>
  void addf(const A&... parts) {
    std::ostringstream s;
    (s << ... << parts);
    add(s.str());
  }
  int64_t count() const { return count_; }
  void require(const char* context);

 private:
  int64_t count_ = 0;
  std::vector<std::string> first_;
};

// A collective pvec call (or a local one that must succeed on every rank).
#define DIST_OK(call)                                                                           \
  do {                                                                                          \
    const pvec_status s_ = (call);                                                              \
    const std::string e_ = pvec_last_error();                                                   \
    if (s_ != PVEC_SUCCESS)                                                                     \
      FAIL_CHECK("rank " << dist::rank() << ": " #call " -> " << pvec_status_string(s_) << ": " \
                         << e_);                                                                \
    REQUIRE(dist::all_true(s_ == PVEC_SUCCESS));                                                \
  } while (0)

// A condition that must hold on every rank; stops every rank when it fails on one.
#define DIST_REQUIRE(...)                                                       \
  do {                                                                          \
    const bool ok_ = static_cast<bool>(__VA_ARGS__);                            \
    if (!ok_) FAIL_CHECK("rank " << dist::rank() << ": failed: " #__VA_ARGS__); \
    REQUIRE(dist::all_true(ok_));                                               \
  } while (0)

// ---- Deterministic randomness (the same on every platform) -------------------------------

class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  uint64_t next();                                         // splitmix64
  double uniform() { return (next() >> 11) * 0x1.0p-53; }  // [0, 1)
  double uniform(double a, double b) { return a + (b - a) * uniform(); }
  int64_t below(int64_t n) { return static_cast<int64_t>(next() % static_cast<uint64_t>(n)); }
  bool chance(double p) { return uniform() < p; }

 private:
  uint64_t s_;
};

uint64_t mix(uint64_t x);  // splitmix64 finaliser

// Copies n elements of an array pvec handed out (a list's arrays) to the host: device memory
// through the CUDA runtime (programs built with PVEC_TEST_CUDA), host memory as it is.
template <class X>
std::vector<X> fetch(const X* p, int64_t n, bool on_device) {
  std::vector<X> out(static_cast<size_t>(std::max<int64_t>(n, 0)));
  if (n <= 0) return out;
#if defined(PVEC_TEST_CUDA)
  if (on_device) {
    REQUIRE(cudaMemcpy(out.data(), p, sizeof(X) * n, cudaMemcpyDeviceToHost) == cudaSuccess);
    return out;
  }
#else
  REQUIRE(!on_device);
#endif
  std::copy(p, p + n, out.begin());
  return out;
}

// ---- Paths -------------------------------------------------------------------------------

enum class Path { host, device };
inline unsigned flag_of(Path p) {
  return p == Path::device ? static_cast<unsigned>(PVEC_ON_DEVICE) : 0u;
}
inline const char* name_of(Path p) { return p == Path::device ? "device" : "host"; }

// ---- Files -------------------------------------------------------------------------------

std::vector<char> read_all(const std::string& path);  // a file's bytes (none when absent)
void write_all(const std::string& path, const std::vector<char>& bytes);  // created or replaced
std::string slurp(const std::string& path);                               // read_all as text

// ---- The full schema ---------------------------------------------------------------------

// Every dtype and every tensor rank. "id" (int64) identifies a particle; every other value is
// value_bits(id, prop, component, salt), so any misplaced byte is seen. t57 is large (35
// components), so that the 4-byte components fill more than one row-kernel launch.
struct Props {
  int id, f32, f64, i32, u32, u64, v3, vi3, t23, tu23, t57;
  std::vector<int> all;     // every property index, id included
  std::vector<int> values;  // every property but id
};
pvec_schema_t make_full_schema(Props* props);

uint64_t value_bits(int64_t id, int prop, int64_t comp, uint64_t salt);

// ---- Vector access -----------------------------------------------------------------------

struct Column {
  unsigned char* base = nullptr;  // host mirror
  size_t elem = 0;
  int64_t ncomp = 0, cap = 0;
  pvec_dtype dtype = PVEC_FLOAT64;
  unsigned char* at(int64_t i, int64_t c) const { return base + (c * cap + i) * elem; }
  uint64_t bits(int64_t i, int64_t c) const;              // element as raw bits (zero-extended)
  void set_bits(int64_t i, int64_t c, uint64_t v) const;  // low elem bytes of v
};
Column column(pvec_vector_t v, int prop);  // host mirror of prop or PVEC_POS

int64_t n_local(pvec_vector_t v);
int64_t n_ghost(pvec_vector_t v);
int64_t capacity(pvec_vector_t v);
uint64_t generation(pvec_vector_t v);
int dim_of(pvec_vector_t v);
pvec_dtype pos_dtype(pvec_vector_t v);
int64_t id_of(pvec_vector_t v, const Props& p, int64_t i);

// Set (before the tests run) by programs in which some rank refuses CUDA IPC, so that device
// calls fall back to MPI: expected_transport then expects the staged path.
extern bool g_ipc_refused;
// Set by a white-box program in which a rank refuses shared memory (tests/comm/refuse_shm.cpp):
// a vector's first host call then turns it off, and host calls go through MPI.
extern bool g_shm_refused;
// Whether every rank of MPI_COMM_WORLD runs on this node (collective the first time).
bool single_node();
// The pvec_transport a successful distribution call on path p must report: none at one
// rank, CUDA IPC for device calls of a CUDA vector on one node unless PVEC_IPC=0, staged MPI
// for other device calls of a CUDA vector, shared memory for host calls on one node unless
// PVEC_SHM=0 (or a rank refused it: g_shm_refused), MPI otherwise. run_on checks it.
int64_t expected_transport(pvec_vector_t v, Path p);

// pvec_vector_get_op_stats of v, the whole struct (REQUIREd to succeed).
pvec_op_stats op_stats(pvec_vector_t v);
// What every ghost exchange's figures must say, on every rank (collective: call on all):
// particles_self is this rank's `own_images` (its own periodic images) and within
// particles_sent; only entries for other ranks make message bytes; entries sent and received
// agree over the ranks. `op` names the call in the messages.
void check_exchange_figures(const pvec_op_stats& ops, int64_t own_images, const char* op,
                            Failures& f);

// Position coordinate as double / written from double (rounded to the position type).
double get_pos(const Column& pos, int64_t i, int d);
void set_pos(const Column& pos, int64_t i, int d, double x);

// Writes value_bits(id, ...) into every non-id property of particles [from, to).
void fill_values(pvec_vector_t v, const Props& p, int64_t from, int64_t to, uint64_t salt);
// Checks listed properties (default: every non-id one) of particles [from, to) against
// value_bits(id, ...).
void check_values(pvec_vector_t v, const Props& p, int64_t from, int64_t to, uint64_t salt,
                  Failures& f, const std::vector<int>* props = nullptr);

// Decomposition of the vector's communicator: every rank's subdomain (dim values each).
struct Decomp {
  int dim = 0, ranks = 0;
  double lo[PVEC_MAX_DIM], hi[PVEC_MAX_DIM];
  int periodic[PVEC_MAX_DIM];
  std::vector<double> sub_lo, sub_hi;  // ranks * dim
  double len(int d) const { return hi[d] - lo[d]; }
  // Rank whose box holds x (half-open, closed at a non-periodic hi); -1 if none.
  int owner(const double* x) const;
  bool in_sub(int r, const double* x) const;
};
Decomp decomposition(pvec_vector_t v);  // collective over MPI_COMM_WORLD

// Checks that every local particle lies in this rank's subdomain.
void check_positions_owned(pvec_vector_t v, const Decomp& dc, Failures& f);

// ---- Ghost reference ---------------------------------------------------------------------

// A ghost as seen from outside: the id it copies and its (shifted) coordinates, held as
// doubles (exact for float32 positions) and compared bit for bit.
struct GhostEntry {
  int64_t id = 0;
  double x[PVEC_MAX_DIM] = {0, 0, 0, 0};
  bool operator<(const GhostEntry& o) const;
  bool operator==(const GhostEntry& o) const;
  std::string str(int dim) const;
};

// Every rank's local particles: ids, coordinates (dim per particle) and owning rank.
struct AllParticles {
  std::vector<int64_t> ids;
  std::vector<double> xs;
  std::vector<int> rank;
};
AllParticles gather_particles(pvec_vector_t v, const Props& p);  // collective

// Brute force: the ghosts rank r must hold. Particle p of rank q appears with integer shift
// s (0 on non-periodic dimensions) iff for every d: sub_lo_r[d] - w <= x'_d < sub_hi_r[d] + w,
// x'_d = x_d + (T)(s_d * L_d) computed in the position type T, except r == q with s == 0.
// Sorted.
std::vector<GhostEntry> reference_ghosts(const Decomp& dc, pvec_dtype t, double width,
                                         const AllParticles& all, int r);
// This rank's ghosts [n_local, n_local + n_ghost), sorted.
std::vector<GhostEntry> actual_ghosts(pvec_vector_t v, const Props& p);
// Reports entries missing from or extra in actual (as multisets).
void compare_ghosts(const std::vector<GhostEntry>& want, const std::vector<GhostEntry>& got,
                    int dim, Failures& f);

// ---- A populated vector ------------------------------------------------------------------

// Domain of the populated vectors: [-1, 1] x [0, 3] x [0.5, 2.25] (bounds exact in float32).
extern const double kDomainLo[3];
extern const double kDomainHi[3];

struct Setup {
  int dim = 3;
  pvec_dtype pos = PVEC_FLOAT64;
  int periodic[3] = {0, 0, 0};
  double width = 0.1;
  int64_t n_per_rank = 100;  // rank r creates n_per_rank + 5 r
  double edge_fraction = 0.25;
  uint64_t seed = 1;
};

// x moved by k units in the last place of the position type t.
double nudge(double x, pvec_dtype t, int k);

// A vector with the full schema; ids 0..N-1; random positions, edge_fraction of the
// coordinates on a subdomain edge, an edge +- width, or one period away from those, each
// nudged by -2..2 ulps of the position type (the cases where rounding decides); values
// value_bits(id, ..., seed). Mapped on the host. Collective.
pvec_vector_t make_mapped(const Setup& s, Props* props);

// ---- Snapshots and the path protocol -----------------------------------------------------

// The vector snapshot of tests/support.
using pvec_test::compare_rows;
using pvec_test::restore_host;
using pvec_test::Snapshot;
using pvec_test::snapshot;

// Runs op (a collective distribution call, given its path flag) on path p and returns its
// status on this rank. Device path: host -> device, op(PVEC_ON_DEVICE), device -> host, so
// the result is read on the host. Both paths check that the other mirror was not touched in
// the rows that existed before and after (host path: the device mirror still holds the
// pre-op host data; device path: the host mirror did not change). *error (may be NULL)
// receives op's pvec_last_error().
pvec_status run_on(pvec_vector_t v, Path p, const std::function<pvec_status(unsigned)>& op,
                   Failures& f, std::string* error = nullptr);

// Whether text contains the integer n as a whole number (not part of a longer one).
bool mentions_number(const std::string& text, int64_t n);

// f(T{}) for the C++ type T of dtype t (the six of pvec_dtype); returns what f returns.
template <class F>
decltype(auto) by_dtype(pvec_dtype t, F&& f) {
  switch (t) {
    case PVEC_FLOAT32:
      return f(float{});
    case PVEC_FLOAT64:
      return f(double{});
    case PVEC_INT32:
      return f(int32_t{});
    case PVEC_INT64:
      return f(int64_t{});
    case PVEC_UINT32:
      return f(uint32_t{});
    default:
      return f(uint64_t{});
  }
}

}  // namespace dist
