// Longer than 500 lines because it is one table: a row per function and kind of bad argument.
// The bad-input matrix: one table row per (exported function, kind of bad argument), each
// checked for the documented status, a one-line message, no crash, and every live vector and
// schema exactly as before. A second test case compares the functions the table covers with
// what libpvec.so exports (nm -D) and what pvec.h declares, so that a new function cannot
// ship without rows. Calls in the wrong library state are in state_rows.hpp (own process).
#include "capi_util.hpp"
#include "state_rows.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#ifdef PVEC_TEST_HAVE_MPI
#include <mpi.h>
#endif

// Out-of-range enum values go through C (enum_shim.c): see there.
extern "C" {
size_t shim_dtype_size(int d);
const char* shim_dtype_name(int d);
const char* shim_status_string(int s);
pvec_status shim_schema_add(pvec_schema_t s, const char* name, int dtype, int rank,
                            const int64_t* extents, int* index);
pvec_status shim_schema_add_scalar(pvec_schema_t s, const char* name, int dtype, int* index);
pvec_status shim_schema_add_vector(pvec_schema_t s, const char* name, int dtype, int64_t n,
                                   int* index);
pvec_status shim_schema_add_tensor(pvec_schema_t s, const char* name, int dtype, int64_t n,
                                   int64_t m, int* index);
pvec_status shim_ghost_put(pvec_vector_t v, const int* props, int nprops, int op, unsigned flags);
pvec_status shim_ghost_put_begin(pvec_vector_t v, const int* props, int nprops, int op,
                                 unsigned flags);
void shim_set_pos_dtype(pvec_vector_desc* d, int dtype);
}

// Huge requests must come back as PVEC_ERROR_OUT_OF_MEMORY, not as a sanitizer abort.
extern "C" const char* __asan_default_options() { return "allocator_may_return_null=1"; }

namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
// 2^52 particles of float64 x3 positions: 1.5 * 2^55 bytes fit in int64 but exceed any
// address space, so the allocation fails on every machine (overcommit or not).
constexpr int64_t kUnallocatable = int64_t{1} << 52;
// 2^60 particles x 8 bytes does not fit in int64 bytes.
constexpr int64_t kByteOverflow = int64_t{1} << 60;

enum class Kind {
  status,   // returns pvec_status: expect `want` and a message
  pointer,  // pvec_host_ptr / pvec_device_ptr: expect NULL and a message
  pure,     // never fails: expect `check` to hold and pvec_last_error left alone
};

// Everything the rows act on. Targets are the vectors whose snapshots must not change.
struct Ctx {
  capi::Vector witness;            // periodic x,y; ghosts present; host != device data; ghost plan
  capi::Vector out_z;              // one particle beyond the non-periodic z boundary; no plan
  capi::Vector out_nan;            // one NaN coordinate
  capi::Vector out_inf;            // one +Inf coordinate
  pvec_schema_t schema = nullptr;  // live schema with "m" and "v"
  pvec_vector_t dead_vec = nullptr;
  pvec_schema_t dead_schema = nullptr;
  int nprops = 0;
};

struct Row {
  std::string fn;    // exported function
  std::string what;  // the bad argument
  Kind kind;
  pvec_status want;
  std::function<pvec_status(Ctx&)> call;  // status rows
  std::function<void*(Ctx&)> ptr;         // pointer rows
  std::function<bool()> check;            // pure rows
};

Row status_row(std::string fn, std::string what, pvec_status want,
               std::function<pvec_status(Ctx&)> call) {
  return Row{std::move(fn), std::move(what), Kind::status, want, std::move(call), {}, {}};
}
Row pointer_row(std::string fn, std::string what, std::function<void*(Ctx&)> ptr) {
  return Row{std::move(fn), std::move(what), Kind::pointer, PVEC_SUCCESS, {}, std::move(ptr), {}};
}
Row pure_row(std::string fn, std::string what, std::function<bool()> check) {
  return Row{std::move(fn), std::move(what), Kind::pure, PVEC_SUCCESS, {}, {}, std::move(check)};
}

// Positions of particle i (LCG, inside [0,1)^3, away from nothing in particular).
double coord(int64_t i, int d) {
  uint64_t x = static_cast<uint64_t>(i) * 6364136223846793005ull + 1442695040888963407ull +
               static_cast<uint64_t>(d) * 0x9e3779b97f4a7c15ull;
  x ^= x >> 29;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 32;
  return static_cast<double>(x >> 11) / 9007199254740992.0;
}

// A vector of n particles (mixed properties) in [0,1)^3, periodic along x and y, with host
// data (salt 2) different from device data (salt 1) so that a stray transfer shows.
capi::Vector make_filled(int64_t n) {
  pvec_vector_desc d = capi::make_desc(n);
  d.boundary[0] = PVEC_PERIODIC;
  d.boundary[1] = PVEC_PERIODIC;
  d.ghost_width = 0.15;
  capi::Vector v = capi::make_vector(capi::mixed_props(), d);
  const int nprops = static_cast<int>(capi::mixed_props().size());
  const pvec_layout pos = capi::layout_of(v.get(), PVEC_POS);
  for (int64_t i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k)
      capi::set_elem(pos.host_ptr, pos.dtype, k * pos.stride_elems + i, coord(i, k));
  for (int p = 0; p < nprops; ++p) capi::fill_host(v.get(), p, 1, 0, n);
  PVEC_REQUIRE_OK(pvec_host_to_device(v.get(), nullptr, 0));
  for (int p = 0; p < nprops; ++p) capi::fill_host(v.get(), p, 2, 0, n);
  return v;
}

void set_coord(pvec_vector_t v, int64_t i, int d, double x) {
  const pvec_layout pos = capi::layout_of(v, PVEC_POS);
  capi::set_elem(pos.host_ptr, pos.dtype, d * pos.stride_elems + i, x);
}

// Every function taking a vector handle, called with otherwise valid arguments: the rows for
// bad vector handles are generated from this list.
std::vector<std::pair<std::string, std::function<pvec_status(pvec_vector_t)>>> vector_calls() {
  static int64_t i64;
  static int i;
  static double d[PVEC_MAX_DIM], d2[PVEC_MAX_DIM];
  static int iv[PVEC_MAX_DIM];
  static pvec_dtype dt;
  static pvec_backend be;
  static uint64_t u64;
  static pvec_stream_t st;
  static pvec_layout lay;
  static pvec_op_stats ops;
  static pvec_retention_t ret;
  static const int props[1] = {0};
  static const int64_t idx[1] = {0};
  static const double x[PVEC_MAX_DIM] = {0.5, 0.5, 0.5, 0.5};
  static int32_t marks_one = 1;
  static int64_t i64b;
  static unsigned state;
  lay = PVEC_LAYOUT_INIT;
  ops.struct_size = sizeof ops;
  return {
      {"pvec_vector_get_size", [](pvec_vector_t v) { return pvec_vector_get_size(v, &i64); }},
      {"pvec_vector_get_ghost_size",
       [](pvec_vector_t v) { return pvec_vector_get_ghost_size(v, &i64); }},
      {"pvec_vector_get_capacity",
       [](pvec_vector_t v) { return pvec_vector_get_capacity(v, &i64); }},
      {"pvec_vector_get_dim", [](pvec_vector_t v) { return pvec_vector_get_dim(v, &i); }},
      {"pvec_vector_get_pos_dtype",
       [](pvec_vector_t v) { return pvec_vector_get_pos_dtype(v, &dt); }},
      {"pvec_vector_get_domain", [](pvec_vector_t v) { return pvec_vector_get_domain(v, d, d2); }},
      {"pvec_vector_get_boundaries",
       [](pvec_vector_t v) { return pvec_vector_get_boundaries(v, iv); }},
      {"pvec_vector_get_ghost_width",
       [](pvec_vector_t v) { return pvec_vector_get_ghost_width(v, d); }},
      {"pvec_vector_get_prop_count",
       [](pvec_vector_t v) { return pvec_vector_get_prop_count(v, &i); }},
      {"pvec_vector_get_prop_index",
       [](pvec_vector_t v) { return pvec_vector_get_prop_index(v, "m", &i); }},
      {"pvec_vector_get_backend", [](pvec_vector_t v) { return pvec_vector_get_backend(v, &be); }},
      {"pvec_vector_get_device", [](pvec_vector_t v) { return pvec_vector_get_device(v, &i); }},
      {"pvec_vector_get_generation",
       [](pvec_vector_t v) { return pvec_vector_get_generation(v, &u64); }},
      {"pvec_vector_reserve", [](pvec_vector_t v) { return pvec_vector_reserve(v, 1000); }},
      {"pvec_vector_resize", [](pvec_vector_t v) { return pvec_vector_resize(v, 3); }},
      {"pvec_vector_append", [](pvec_vector_t v) { return pvec_vector_append(v, 1, &i64); }},
      {"pvec_vector_remove", [](pvec_vector_t v) { return pvec_vector_remove(v, idx, 1); }},
      {"pvec_vector_shrink_to_fit", [](pvec_vector_t v) { return pvec_vector_shrink_to_fit(v); }},
      {"pvec_vector_get_layout",
       [](pvec_vector_t v) { return pvec_vector_get_layout(v, 0, &lay); }},
      {"pvec_vector_get_layouts",
       [](pvec_vector_t v) {
         static pvec_layout many[2] = {PVEC_LAYOUT_INIT, PVEC_LAYOUT_INIT};
         static const int two[2] = {PVEC_POS, 0};
         return pvec_vector_get_layouts(v, two, 2, many, 2);
       }},
      {"pvec_vector_retain", [](pvec_vector_t v) { return pvec_vector_retain(v, 0, 0, &ret); }},
      {"pvec_vector_set_stream",
       [](pvec_vector_t v) { return pvec_vector_set_stream(v, nullptr); }},
      {"pvec_vector_get_stream", [](pvec_vector_t v) { return pvec_vector_get_stream(v, &st); }},
      {"pvec_host_to_device", [](pvec_vector_t v) { return pvec_host_to_device(v, props, 1); }},
      {"pvec_device_to_host", [](pvec_vector_t v) { return pvec_device_to_host(v, nullptr, 0); }},
      {"pvec_host_to_device_async",
       [](pvec_vector_t v) { return pvec_host_to_device_async(v, props, 1, nullptr); }},
      {"pvec_device_to_host_async",
       [](pvec_vector_t v) { return pvec_device_to_host_async(v, nullptr, 0, nullptr); }},
      {"pvec_vector_synchronize", [](pvec_vector_t v) { return pvec_vector_synchronize(v); }},
      {"pvec_vector_get_rank", [](pvec_vector_t v) { return pvec_vector_get_rank(v, &i); }},
      {"pvec_vector_get_nranks", [](pvec_vector_t v) { return pvec_vector_get_nranks(v, &i); }},
      {"pvec_vector_get_subdomain",
       [](pvec_vector_t v) { return pvec_vector_get_subdomain(v, d, d2); }},
      {"pvec_vector_get_owner_rank",
       [](pvec_vector_t v) { return pvec_vector_get_owner_rank(v, x, &i); }},
      {"pvec_map", [](pvec_vector_t v) { return pvec_map(v, 0, &i64); }},
      {"pvec_ghost_get", [](pvec_vector_t v) { return pvec_ghost_get(v, nullptr, 0, 0); }},
      {"pvec_ghost_put",
       [](pvec_vector_t v) { return pvec_ghost_put(v, nullptr, 0, PVEC_REDUCE_ADD, 0); }},
      {"pvec_ghost_get_begin",
       [](pvec_vector_t v) { return pvec_ghost_get_begin(v, nullptr, 0, 0); }},
      {"pvec_ghost_get_end", [](pvec_vector_t v) { return pvec_ghost_get_end(v); }},
      {"pvec_ghost_put_begin",
       [](pvec_vector_t v) { return pvec_ghost_put_begin(v, nullptr, 0, PVEC_REDUCE_ADD, 0); }},
      {"pvec_ghost_put_end", [](pvec_vector_t v) { return pvec_ghost_put_end(v); }},
      {"pvec_vector_get_op_stats",
       [](pvec_vector_t v) { return pvec_vector_get_op_stats(v, &ops); }},
      // 11. Load balance.
      {"pvec_vector_rebalance",
       [](pvec_vector_t v) {
         return pvec_vector_rebalance(v, PVEC_NO_WEIGHT, 1.0, 0, nullptr, nullptr);
       }},
      {"pvec_vector_get_imbalance",
       [](pvec_vector_t v) {
         return pvec_vector_get_imbalance(v, PVEC_NO_WEIGHT, 0, nullptr, nullptr);
       }},
      {"pvec_vector_follow", [](pvec_vector_t v) { return pvec_vector_follow(v, nullptr, 0); }},
      // 4. Removal by mark, spawns, ids; 6. mirror coherence.
      {"pvec_vector_remove_marked",
       [](pvec_vector_t v) {
         return pvec_vector_remove_marked(v, PVEC_NO_PROPERTY, &marks_one, 0, &i64);
       }},
      {"pvec_vector_remove_marked_async",
       [](pvec_vector_t v) {
         return pvec_vector_remove_marked_async(v, PVEC_NO_PROPERTY, &marks_one, PVEC_ON_DEVICE,
                                                nullptr);
       }},
      {"pvec_vector_spawn_begin",
       [](pvec_vector_t v) {
         static pvec_spawner sp = PVEC_SPAWNER_INIT;
         return pvec_vector_spawn_begin(v, 1, 0, &sp);
       }},
      {"pvec_vector_spawn_commit",
       [](pvec_vector_t v) { return pvec_vector_spawn_commit(v, &i64); }},
      {"pvec_vector_spawn_cancel", [](pvec_vector_t v) { return pvec_vector_spawn_cancel(v); }},
      {"pvec_vector_ids_init", [](pvec_vector_t v) { return pvec_vector_ids_init(v, 0, 0); }},
      {"pvec_vector_ids_take",
       [](pvec_vector_t v) { return pvec_vector_ids_take(v, 1, &i64, &i64b); }},
      {"pvec_vector_mark_modified",
       [](pvec_vector_t v) { return pvec_vector_mark_modified(v, props, 1, 0); }},
      {"pvec_vector_sync", [](pvec_vector_t v) { return pvec_vector_sync(v, props, 1, 0); }},
      {"pvec_vector_get_mirror_state",
       [](pvec_vector_t v) { return pvec_vector_get_mirror_state(v, 0, &state); }},
      {"pvec_vector_set_auto_sync",
       [](pvec_vector_t v) { return pvec_vector_set_auto_sync(v, 1); }},
      // 9. Output and restart: the handle is checked before any file is touched.
      {"pvec_vtk_write",
       [](pvec_vector_t v) { return pvec_vtk_write(v, "hardening_vtk", 0, 0.0, nullptr, 0, 0); }},
      {"pvec_checkpoint_write",
       [](pvec_vector_t v) {
         return pvec_checkpoint_write(v, "hardening.h5", 0, 0.0, nullptr, 0, 0, nullptr, nullptr,
                                      nullptr, nullptr, 0);
       }},
      {"pvec_vector_destroy", [](pvec_vector_t v) { return pvec_vector_destroy(v); }},
  };
}

// Every function taking a schema handle, with otherwise valid arguments.
std::vector<std::pair<std::string, std::function<pvec_status(pvec_schema_t)>>> schema_calls() {
  static int n;
  static const int64_t ext[2] = {2, 2};
  return {
      {"pvec_schema_get_count", [](pvec_schema_t s) { return pvec_schema_get_count(s, &n); }},
      {"pvec_schema_get_property",
       [](pvec_schema_t s) {
         return pvec_schema_get_property(s, 0, nullptr, 0, nullptr, &n, nullptr);
       }},
      {"pvec_schema_add",
       [](pvec_schema_t s) { return pvec_schema_add(s, "zz", PVEC_FLOAT32, 2, ext, &n); }},
      {"pvec_schema_add_scalar",
       [](pvec_schema_t s) { return pvec_schema_add_scalar(s, "zz", PVEC_FLOAT32, &n); }},
      {"pvec_schema_add_vector",
       [](pvec_schema_t s) { return pvec_schema_add_vector(s, "zz", PVEC_FLOAT32, 2, &n); }},
      {"pvec_schema_add_tensor",
       [](pvec_schema_t s) { return pvec_schema_add_tensor(s, "zz", PVEC_FLOAT32, 2, 2, &n); }},
      {"pvec_vector_create",
       [](pvec_schema_t s) {
         const pvec_vector_desc d = capi::make_desc(4);
         pvec_vector_t out = nullptr;
         return pvec_vector_create(&d, s, &out);
       }},
      {"pvec_checkpoint_restart",
       [](pvec_schema_t s) {
         const pvec_vector_desc d = capi::make_desc(4);
         pvec_vector_t out = nullptr;
         return pvec_checkpoint_restart("hardening_no_such.h5", &d, s, 0, &out);
       }},
      {"pvec_schema_destroy", [](pvec_schema_t s) { return pvec_schema_destroy(s); }},
  };
}

// The bad handles of each kind; `alive` ones are live handles of the other kind.
std::vector<std::pair<std::string, std::function<pvec_vector_t(Ctx&)>>> bad_vector_handles() {
  return {
      {"NULL handle", [](Ctx&) -> pvec_vector_t { return nullptr; }},
      {"destroyed handle", [](Ctx& c) { return c.dead_vec; }},
      {"schema handle as vector", [](Ctx& c) { return reinterpret_cast<pvec_vector_t>(c.schema); }},
      {"made-up handle 0xdeadbeef",
       [](Ctx&) { return reinterpret_cast<pvec_vector_t>(uintptr_t{0xdeadbeef}); }},
      {"made-up handle -1", [](Ctx&) { return reinterpret_cast<pvec_vector_t>(~uintptr_t{0}); }},
  };
}
std::vector<std::pair<std::string, std::function<pvec_schema_t(Ctx&)>>> bad_schema_handles() {
  return {
      {"NULL handle", [](Ctx&) -> pvec_schema_t { return nullptr; }},
      {"destroyed handle", [](Ctx& c) { return c.dead_schema; }},
      {"vector handle as schema",
       [](Ctx& c) { return reinterpret_cast<pvec_schema_t>(c.witness.get()); }},
      {"made-up handle 0xdeadbeef",
       [](Ctx&) { return reinterpret_cast<pvec_schema_t>(uintptr_t{0xdeadbeef}); }},
  };
}

// Descriptor edits that pvec_vector_create must refuse, with the documented status.
struct DescEdit {
  const char* what;
  pvec_status want;
  std::function<void(pvec_vector_desc&)> edit;
};
std::vector<DescEdit> bad_descs() {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const pvec_status IA = PVEC_ERROR_INVALID_ARGUMENT;
  std::vector<DescEdit> e = {
      {"struct_size 0", IA, [](pvec_vector_desc& d) { d.struct_size = 0; }},
      {"struct_size too small", IA,
       [](pvec_vector_desc& d) { d.struct_size = sizeof(pvec_vector_desc) - 1; }},
      {"dim 0", IA, [](pvec_vector_desc& d) { d.dim = 0; }},
      {"dim -1", IA, [](pvec_vector_desc& d) { d.dim = -1; }},
      {"dim > PVEC_MAX_DIM", IA, [](pvec_vector_desc& d) { d.dim = PVEC_MAX_DIM + 1; }},
      {"dim INT_MIN", IA, [](pvec_vector_desc& d) { d.dim = std::numeric_limits<int>::min(); }},
      {"pos_dtype int32", IA, [](pvec_vector_desc& d) { d.pos_dtype = PVEC_INT32; }},
      {"pos_dtype 0", IA, [](pvec_vector_desc& d) { shim_set_pos_dtype(&d, 0); }},
      {"pos_dtype 7", IA, [](pvec_vector_desc& d) { shim_set_pos_dtype(&d, 7); }},
      {"pos_dtype -1", IA, [](pvec_vector_desc& d) { shim_set_pos_dtype(&d, -1); }},
      {"pos_dtype 99", IA, [](pvec_vector_desc& d) { shim_set_pos_dtype(&d, 99); }},
      {"lo == hi", IA, [](pvec_vector_desc& d) { d.domain_lo[0] = d.domain_hi[0] = 0.5; }},
      {"lo > hi", IA, [](pvec_vector_desc& d) { d.domain_lo[2] = 2; }},
      {"lo NaN", IA, [nan](pvec_vector_desc& d) { d.domain_lo[1] = nan; }},
      {"hi +Inf", IA, [inf](pvec_vector_desc& d) { d.domain_hi[1] = inf; }},
      {"lo -Inf", IA, [inf](pvec_vector_desc& d) { d.domain_lo[0] = -inf; }},
      {"boundary 2", IA, [](pvec_vector_desc& d) { d.boundary[1] = 2; }},
      {"boundary -1", IA, [](pvec_vector_desc& d) { d.boundary[2] = -1; }},
      {"ghost width -1", IA, [](pvec_vector_desc& d) { d.ghost_width = -1; }},
      {"ghost width NaN", IA, [nan](pvec_vector_desc& d) { d.ghost_width = nan; }},
      {"ghost width +Inf", IA, [inf](pvec_vector_desc& d) { d.ghost_width = inf; }},
      {"n_particles -1", IA, [](pvec_vector_desc& d) { d.n_particles = -1; }},
      {"n_particles INT64_MIN", IA, [](pvec_vector_desc& d) { d.n_particles = kMin; }},
      {"n_particles INT64_MAX (capacity overflows)", PVEC_ERROR_OVERFLOW,
       [](pvec_vector_desc& d) { d.n_particles = kMax; }},
      {"n_particles 2^60 (bytes overflow)", PVEC_ERROR_OVERFLOW,
       [](pvec_vector_desc& d) { d.n_particles = kByteOverflow; }},
      {"n_particles 2^52 (unallocatable)", PVEC_ERROR_OUT_OF_MEMORY,
       [](pvec_vector_desc& d) { d.n_particles = kUnallocatable; }},
      {"placement 2", IA, [](pvec_vector_desc& d) { d.placement = 2; }},
      {"placement -1", IA, [](pvec_vector_desc& d) { d.placement = -1; }},
      {"backend 3", IA, [](pvec_vector_desc& d) { d.backend = 3; }},
      {"backend -1", IA, [](pvec_vector_desc& d) { d.backend = -1; }},
      {"host_memory 2", IA, [](pvec_vector_desc& d) { d.host_memory = 2; }},
      {"host_memory -1", IA, [](pvec_vector_desc& d) { d.host_memory = -1; }},
      {"has_comm 2", IA, [](pvec_vector_desc& d) { d.has_comm = 2; }},
      {"has_comm -1", IA, [](pvec_vector_desc& d) { d.has_comm = -1; }},
  };
#ifdef PVEC_TEST_HAVE_MPI
  e.push_back({"comm_f is MPI_COMM_NULL", IA, [](pvec_vector_desc& d) {
                 d.has_comm = 1;
                 d.comm_f = static_cast<int64_t>(MPI_Comm_c2f(MPI_COMM_NULL));
               }});
#else
  e.push_back({"a communicator without MPI", PVEC_ERROR_NOT_SUPPORTED, [](pvec_vector_desc& d) {
                 d.has_comm = 1;
                 d.comm_f = 0;
               }});
#endif
  int devices = 0;
  if (pvec_cuda_device_count(&devices) == PVEC_SUCCESS && devices == 0)
    e.push_back({"backend CUDA without a device", PVEC_ERROR_NO_DEVICE,
                 [](pvec_vector_desc& d) { d.backend = PVEC_BACKEND_CUDA; }});
  return e;
}

// Property lists that every list-taking function must refuse, by the witness's count.
struct PropList {
  const char* what;
  pvec_status want;
  std::vector<int> props;
  int nprops;  // passed as given (may disagree with props.size() on purpose)
};
std::vector<PropList> bad_prop_lists(int count, bool pos_allowed) {
  const pvec_status OOR = PVEC_ERROR_OUT_OF_RANGE, IA = PVEC_ERROR_INVALID_ARGUMENT;
  std::vector<PropList> l = {
      {"nprops -1", IA, {0}, -1},
      {"nprops INT_MIN", IA, {0}, std::numeric_limits<int>::min()},
      {"repeated property", IA, {1, 0, 1}, 3},
      {"property == count", OOR, {0, count}, 2},
      {"property -2", OOR, {0, -2}, 2},
      {"property INT_MAX", OOR, {std::numeric_limits<int>::max()}, 1},
      {"property INT_MIN", OOR, {std::numeric_limits<int>::min()}, 1},
  };
  if (pos_allowed) l.push_back({"repeated PVEC_POS", IA, {PVEC_POS, 0, PVEC_POS}, 3});
  return l;
}

std::vector<Row> build_rows(Ctx& c) {
  const pvec_status IA = PVEC_ERROR_INVALID_ARGUMENT, OOR = PVEC_ERROR_OUT_OF_RANGE,
                    OVF = PVEC_ERROR_OVERFLOW, OOM = PVEC_ERROR_OUT_OF_MEMORY,
                    HANDLE = PVEC_ERROR_INVALID_HANDLE;
  std::vector<Row> rows;
  auto add = [&](std::string fn, std::string what, pvec_status want,
                 std::function<pvec_status(Ctx&)> call) {
    rows.push_back(status_row(std::move(fn), std::move(what), want, std::move(call)));
  };
  static int i;
  static int64_t i64;
  static double dd[PVEC_MAX_DIM];

  // ---- Bad handles, generated for every handle-taking function. ----
  for (const auto& h : bad_vector_handles()) {
    for (const auto& f : vector_calls()) {
      auto handle = h.second;
      auto call = f.second;
      add(f.first, h.first, HANDLE, [handle, call](Ctx& x) { return call(handle(x)); });
    }
    auto handle = h.second;
    rows.push_back(pointer_row("pvec_host_ptr", h.first,
                               [handle](Ctx& x) { return pvec_host_ptr(handle(x), 0); }));
    rows.push_back(pointer_row("pvec_device_ptr", h.first,
                               [handle](Ctx& x) { return pvec_device_ptr(handle(x), PVEC_POS); }));
  }
  for (const auto& h : bad_schema_handles())
    for (const auto& f : schema_calls()) {
      auto handle = h.second;
      auto call = f.second;
      add(f.first, h.first, HANDLE, [handle, call](Ctx& x) { return call(handle(x)); });
    }

  // ---- Section 1: pure functions never fail and leave the last error alone. ----
  rows.push_back(pure_row("pvec_version_number", "no arguments",
                          [] { return pvec_version_number() == PVEC_VERSION_NUMBER; }));
  rows.push_back(pure_row("pvec_version_string", "no arguments", [] {
    const char* s = pvec_version_string();
    return s != nullptr && std::to_string(PVEC_VERSION_MAJOR) + "." +
                                   std::to_string(PVEC_VERSION_MINOR) + "." +
                                   std::to_string(PVEC_VERSION_PATCH) ==
                               s;
  }));
  for (int s : {-1, 14, 1000, std::numeric_limits<int>::max(), std::numeric_limits<int>::min()})
    rows.push_back(pure_row("pvec_status_string", "status " + std::to_string(s), [s] {
      const char* t = shim_status_string(s);
      return t != nullptr && *t != '\0';
    }));
  rows.push_back(pure_row("pvec_last_error", "twice in a row", [] {
    const char* a = pvec_last_error();
    const std::string first = a ? a : "";
    const char* b = pvec_last_error();
    return a != nullptr && b != nullptr && first == b && !first.empty();
  }));
  for (int d : {0, 7, -1, 1000, std::numeric_limits<int>::min()}) {
    rows.push_back(pure_row("pvec_dtype_size", "dtype " + std::to_string(d),
                            [d] { return shim_dtype_size(d) == 0; }));
    rows.push_back(pure_row("pvec_dtype_name", "dtype " + std::to_string(d), [d] {
      const char* n = shim_dtype_name(d);
      return n != nullptr && std::string(n) == "unknown";
    }));
  }

  // ---- Section 2. (pvec_init / pvec_finalize in the wrong state: hardening_state.) ----
  add("pvec_initialized", "flag NULL", IA, [](Ctx&) { return pvec_initialized(nullptr); });
  add("pvec_cuda_device_count", "count NULL", IA,
      [](Ctx&) { return pvec_cuda_device_count(nullptr); });
  add("pvec_options_get_count", "count NULL", IA,
      [](Ctx&) { return pvec_options_get_count(nullptr); });
  add("pvec_options_get_info", "out NULL", IA,
      [](Ctx&) { return pvec_options_get_info(0, nullptr); });
  for (int index : {-1, 6, std::numeric_limits<int>::max(), std::numeric_limits<int>::min()})
    add("pvec_options_get_info", "index " + std::to_string(index), PVEC_ERROR_OUT_OF_RANGE,
        [index](Ctx&) {
          pvec_option_info o = PVEC_OPTION_INFO_INIT;
          return pvec_options_get_info(index, &o);
        });
  for (size_t sz : {size_t{0}, size_t{PVEC_OPTION_INFO_SIZE_V1} - 1})
    add("pvec_options_get_info", "struct_size " + std::to_string(sz), IA, [sz](Ctx&) {
      pvec_option_info o;
      o.struct_size = sz;
      return pvec_options_get_info(0, &o);
    });
  add("pvec_options_get_text", "text NULL", IA,
      [](Ctx&) { return pvec_options_get_text(nullptr); });
  add("pvec_options_set", "name NULL", IA, [](Ctx&) { return pvec_options_set(nullptr, "1"); });
  add("pvec_options_set", "unknown name", IA,
      [](Ctx&) { return pvec_options_set("PVEC_UNKNOWN", "1"); });
  for (const char* bad : {"2", "-1", "on", " 1", "1 ", "0x1", "99999999999999999999"})
    add("pvec_options_set", std::string("PVEC_SHM=\"") + bad + "\"", IA,
        [bad](Ctx&) { return pvec_options_set("PVEC_SHM", bad); });

  // ---- Section 3: schemas. ----
  add("pvec_schema_create", "out NULL", IA, [](Ctx&) { return pvec_schema_create(nullptr); });
  add("pvec_schema_get_count", "count NULL", IA,
      [](Ctx& x) { return pvec_schema_get_count(x.schema, nullptr); });
  for (int bad : {-1, 1000, std::numeric_limits<int>::max(), std::numeric_limits<int>::min()})
    add("pvec_schema_get_property", "index " + std::to_string(bad), OOR, [bad](Ctx& x) {
      char name[PVEC_MAX_NAME + 1];
      return pvec_schema_get_property(x.schema, bad, name, sizeof name, nullptr, nullptr, nullptr);
    });
  add("pvec_schema_get_property", "name buffer of 1 byte", IA, [](Ctx& x) {
    char name[1];
    return pvec_schema_get_property(x.schema, 0, name, sizeof name, nullptr, nullptr, nullptr);
  });
  const std::string long_name(PVEC_MAX_NAME + 1, 'a');
  struct NameCase {
    const char* what;
    const char* name;
  };
  const std::vector<NameCase> bad_names = {{"name NULL", nullptr},
                                           {"name empty", ""},
                                           {"name too long", nullptr},  // filled below
                                           {"name duplicate", "m"},
                                           {"name reserved \"pos\"", "pos"}};
  for (const NameCase& nc : bad_names) {
    const bool is_long = std::string(nc.what) == "name too long";
    const std::string nm = is_long ? long_name : (nc.name ? nc.name : "");
    const bool null_name = nc.name == nullptr && !is_long;
    auto name_of = [nm, null_name]() -> const char* { return null_name ? nullptr : nm.c_str(); };
    add("pvec_schema_add", nc.what, IA, [name_of](Ctx& x) {
      static const int64_t ext[1] = {3};
      return pvec_schema_add(x.schema, name_of(), PVEC_FLOAT32, 1, ext, &i);
    });
    add("pvec_schema_add_scalar", nc.what, IA,
        [name_of](Ctx& x) { return pvec_schema_add_scalar(x.schema, name_of(), PVEC_INT32, &i); });
    add("pvec_schema_add_vector", nc.what, IA, [name_of](Ctx& x) {
      return pvec_schema_add_vector(x.schema, name_of(), PVEC_INT64, 2, &i);
    });
    add("pvec_schema_add_tensor", nc.what, IA, [name_of](Ctx& x) {
      return pvec_schema_add_tensor(x.schema, name_of(), PVEC_UINT32, 2, 3, &i);
    });
  }
  for (int bad : {0, 7, -1, std::numeric_limits<int>::max()}) {
    const std::string what = "dtype " + std::to_string(bad);
    add("pvec_schema_add", what, IA,
        [bad](Ctx& x) { return shim_schema_add(x.schema, "q", bad, 0, nullptr, nullptr); });
    add("pvec_schema_add_scalar", what, IA,
        [bad](Ctx& x) { return shim_schema_add_scalar(x.schema, "q", bad, nullptr); });
    add("pvec_schema_add_vector", what, IA,
        [bad](Ctx& x) { return shim_schema_add_vector(x.schema, "q", bad, 2, nullptr); });
    add("pvec_schema_add_tensor", what, IA,
        [bad](Ctx& x) { return shim_schema_add_tensor(x.schema, "q", bad, 2, 2, nullptr); });
  }
  struct Shape {
    const char* what;
    pvec_status want;
    int rank;
    std::vector<int64_t> ext;  // empty: extents NULL
    pvec_dtype dtype;
  };
  const std::vector<Shape> bad_shapes = {
      {"rank -1", IA, -1, {2, 2}, PVEC_FLOAT32},
      {"rank 3", IA, 3, {2, 2, 2}, PVEC_FLOAT32},
      {"rank INT_MAX", IA, std::numeric_limits<int>::max(), {2, 2}, PVEC_FLOAT32},
      {"extents NULL, rank 1", IA, 1, {}, PVEC_FLOAT32},
      {"extents NULL, rank 2", IA, 2, {}, PVEC_FLOAT32},
      {"extent 0", IA, 1, {0}, PVEC_FLOAT32},
      {"extent -1", IA, 1, {-1}, PVEC_FLOAT32},
      {"extent INT64_MIN", IA, 1, {kMin}, PVEC_FLOAT32},
      {"second extent 0", IA, 2, {3, 0}, PVEC_FLOAT32},
      {"extent INT64_MAX (bytes overflow)", OVF, 1, {kMax}, PVEC_FLOAT32},
      {"extent 2^55 float32 (64-particle row overflows)", OVF, 1, {int64_t{1} << 55}, PVEC_FLOAT32},
      {"extents 2^32 x 2^32 (components overflow)",
       OVF,
       2,
       {int64_t{1} << 32, int64_t{1} << 32},
       PVEC_FLOAT64},
      {"extents 2^30 x 2^30 float64 (bytes overflow)",
       OVF,
       2,
       {int64_t{1} << 30, int64_t{1} << 30},
       PVEC_FLOAT64},
  };
  for (const Shape& sh : bad_shapes) {
    Shape s = sh;
    add("pvec_schema_add", s.what, s.want, [s](Ctx& x) {
      return pvec_schema_add(x.schema, "q", s.dtype, s.rank, s.ext.empty() ? nullptr : s.ext.data(),
                             &i);
    });
    if (s.rank == 1 && !s.ext.empty())
      add("pvec_schema_add_vector", s.what, s.want,
          [s](Ctx& x) { return pvec_schema_add_vector(x.schema, "q", s.dtype, s.ext[0], &i); });
    if (s.rank == 2 && !s.ext.empty())
      add("pvec_schema_add_tensor", s.what, s.want, [s](Ctx& x) {
        return pvec_schema_add_tensor(x.schema, "q", s.dtype, s.ext[0], s.ext[1], &i);
      });
  }
  add("pvec_schema_add_tensor", "n 0", IA,
      [](Ctx& x) { return pvec_schema_add_tensor(x.schema, "q", PVEC_INT32, 0, 2, &i); });
  add("pvec_schema_add_tensor", "m -3", IA,
      [](Ctx& x) { return pvec_schema_add_tensor(x.schema, "q", PVEC_INT32, 2, -3, &i); });

  // ---- Section 4: vectors. ----
  add("pvec_vector_desc_init", "desc NULL", IA,
      [](Ctx&) { return pvec_vector_desc_init(nullptr); });
  add("pvec_vector_create", "desc NULL", IA, [](Ctx& x) {
    pvec_vector_t out = nullptr;
    return pvec_vector_create(nullptr, x.schema, &out);
  });
  add("pvec_vector_create", "out NULL", IA, [](Ctx& x) {
    const pvec_vector_desc d = capi::make_desc(4);
    return pvec_vector_create(&d, x.schema, nullptr);
  });
  for (const DescEdit& e : bad_descs()) {
    auto edit = e.edit;
    add("pvec_vector_create", e.what, e.want, [edit](Ctx& x) {
      pvec_vector_desc d = PVEC_VECTOR_DESC_INIT;
      d.n_particles = 10;
      edit(d);
      pvec_vector_t out = nullptr;
      const pvec_status s = pvec_vector_create(&d, x.schema, &out);
      if (s == PVEC_SUCCESS) pvec_vector_destroy(out);
      return s;
    });
  }
  // NULL out-pointers of the queries.
  add("pvec_vector_get_size", "n_local NULL", IA,
      [](Ctx& x) { return pvec_vector_get_size(x.witness.get(), nullptr); });
  add("pvec_vector_get_ghost_size", "n_ghost NULL", IA,
      [](Ctx& x) { return pvec_vector_get_ghost_size(x.witness.get(), nullptr); });
  add("pvec_vector_get_capacity", "capacity NULL", IA,
      [](Ctx& x) { return pvec_vector_get_capacity(x.witness.get(), nullptr); });
  add("pvec_vector_get_dim", "dim NULL", IA,
      [](Ctx& x) { return pvec_vector_get_dim(x.witness.get(), nullptr); });
  add("pvec_vector_get_pos_dtype", "dtype NULL", IA,
      [](Ctx& x) { return pvec_vector_get_pos_dtype(x.witness.get(), nullptr); });
  add("pvec_vector_get_domain", "lo and hi NULL", IA,
      [](Ctx& x) { return pvec_vector_get_domain(x.witness.get(), nullptr, nullptr); });
  add("pvec_vector_get_boundaries", "bc NULL", IA,
      [](Ctx& x) { return pvec_vector_get_boundaries(x.witness.get(), nullptr); });
  add("pvec_vector_get_ghost_width", "width NULL", IA,
      [](Ctx& x) { return pvec_vector_get_ghost_width(x.witness.get(), nullptr); });
  add("pvec_vector_get_prop_count", "count NULL", IA,
      [](Ctx& x) { return pvec_vector_get_prop_count(x.witness.get(), nullptr); });
  add("pvec_vector_get_prop_index", "prop NULL", IA,
      [](Ctx& x) { return pvec_vector_get_prop_index(x.witness.get(), "m", nullptr); });
  add("pvec_vector_get_prop_index", "name NULL", IA,
      [](Ctx& x) { return pvec_vector_get_prop_index(x.witness.get(), nullptr, &i); });
  add("pvec_vector_get_prop_index", "name unknown", IA,
      [](Ctx& x) { return pvec_vector_get_prop_index(x.witness.get(), "no_such", &i); });
  add("pvec_vector_get_prop_index", "name empty", IA,
      [](Ctx& x) { return pvec_vector_get_prop_index(x.witness.get(), "", &i); });
  add("pvec_vector_get_prop_index", "name too long", IA, [long_name](Ctx& x) {
    return pvec_vector_get_prop_index(x.witness.get(), long_name.c_str(), &i);
  });
  add("pvec_vector_get_backend", "backend NULL", IA,
      [](Ctx& x) { return pvec_vector_get_backend(x.witness.get(), nullptr); });
  add("pvec_vector_get_device", "device NULL", IA,
      [](Ctx& x) { return pvec_vector_get_device(x.witness.get(), nullptr); });
  add("pvec_vector_get_generation", "generation NULL", IA,
      [](Ctx& x) { return pvec_vector_get_generation(x.witness.get(), nullptr); });

  // Sizes: negative, overflowing (count or bytes), and unallocatable.
  for (int64_t n : {int64_t{-1}, int64_t{-64}, kMin}) {
    const std::string w = "n " + std::to_string(n);
    add("pvec_vector_reserve", w, IA,
        [n](Ctx& x) { return pvec_vector_reserve(x.witness.get(), n); });
    add("pvec_vector_resize", w, IA,
        [n](Ctx& x) { return pvec_vector_resize(x.witness.get(), n); });
    add("pvec_vector_append", "k " + std::to_string(n), IA,
        [n](Ctx& x) { return pvec_vector_append(x.witness.get(), n, &i64); });
    add("pvec_vector_remove", "count " + std::to_string(n), IA, [n](Ctx& x) {
      static const int64_t idx[1] = {0};
      return pvec_vector_remove(x.witness.get(), idx, n);
    });
  }
  for (int64_t n : {kMax, kMax - 10, kMax - 63, kByteOverflow}) {
    const std::string w = "n " + std::to_string(n) + " (overflows)";
    add("pvec_vector_reserve", w, OVF,
        [n](Ctx& x) { return pvec_vector_reserve(x.witness.get(), n); });
    add("pvec_vector_resize", w, OVF,
        [n](Ctx& x) { return pvec_vector_resize(x.witness.get(), n); });
    add("pvec_vector_append", "k " + std::to_string(n) + " (overflows)", OVF,
        [n](Ctx& x) { return pvec_vector_append(x.witness.get(), n, &i64); });
  }
  add("pvec_vector_append", "k = INT64_MAX - n_local (capacity overflows)", OVF, [](Ctx& x) {
    return pvec_vector_append(x.witness.get(), kMax - capi::size_of(x.witness.get()), &i64);
  });
  add("pvec_vector_reserve", "n 2^52 (unallocatable)", OOM,
      [](Ctx& x) { return pvec_vector_reserve(x.witness.get(), kUnallocatable); });
  add("pvec_vector_resize", "n 2^52 (unallocatable)", OOM,
      [](Ctx& x) { return pvec_vector_resize(x.witness.get(), kUnallocatable); });
  add("pvec_vector_append", "k 2^52 (unallocatable)", OOM,
      [](Ctx& x) { return pvec_vector_append(x.witness.get(), kUnallocatable, &i64); });
  // Removal lists.
  add("pvec_vector_remove", "indices NULL, count 1", IA,
      [](Ctx& x) { return pvec_vector_remove(x.witness.get(), nullptr, 1); });
  add("pvec_vector_remove", "duplicate index", IA, [](Ctx& x) {
    static const int64_t idx[3] = {4, 2, 4};
    return pvec_vector_remove(x.witness.get(), idx, 3);
  });
  for (int64_t bad : {int64_t{-1}, -(int64_t{1} << 40), kMin, kMax}) {
    add("pvec_vector_remove", "index " + std::to_string(bad), OOR, [bad](Ctx& x) {
      const int64_t idx[2] = {0, bad};
      return pvec_vector_remove(x.witness.get(), idx, 2);
    });
  }
  add("pvec_vector_remove", "index n_local (the first ghost)", OOR, [](Ctx& x) {
    const int64_t idx[2] = {1, capi::size_of(x.witness.get())};
    return pvec_vector_remove(x.witness.get(), idx, 2);
  });

  // ---- Section 5: layout and pointers. ----
  add("pvec_vector_get_layout", "out NULL", IA,
      [](Ctx& x) { return pvec_vector_get_layout(x.witness.get(), 0, nullptr); });
  for (size_t sz : {size_t{0}, size_t{1}, sizeof(pvec_layout) - 1})
    add("pvec_vector_get_layout", "struct_size " + std::to_string(sz), IA, [sz](Ctx& x) {
      pvec_layout l = PVEC_LAYOUT_INIT;
      l.struct_size = sz;
      return pvec_vector_get_layout(x.witness.get(), 0, &l);
    });
  const int np = c.nprops;
  for (int prop :
       {-2, np, np + 1000, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()}) {
    const std::string w = "property " + std::to_string(prop);
    add("pvec_vector_get_layout", w, OOR, [prop](Ctx& x) {
      pvec_layout l = PVEC_LAYOUT_INIT;
      return pvec_vector_get_layout(x.witness.get(), prop, &l);
    });
    add("pvec_vector_get_layouts", w, OOR, [prop](Ctx& x) {
      pvec_layout l[2] = {PVEC_LAYOUT_INIT, PVEC_LAYOUT_INIT};
      const int list[2] = {0, prop};
      return pvec_vector_get_layouts(x.witness.get(), list, 2, l, 2);
    });
    rows.push_back(pointer_row("pvec_host_ptr", w,
                               [prop](Ctx& x) { return pvec_host_ptr(x.witness.get(), prop); }));
    rows.push_back(pointer_row("pvec_device_ptr", w,
                               [prop](Ctx& x) { return pvec_device_ptr(x.witness.get(), prop); }));
  }
  add("pvec_vector_retain", "out NULL", IA,
      [](Ctx& x) { return pvec_vector_retain(x.witness.get(), 0, 0, nullptr); });
  for (int prop : {-2, np, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()})
    for (int mirror : {0, 1})
      add("pvec_vector_retain",
          "property " + std::to_string(prop) + " mirror " + std::to_string(mirror), OOR,
          [prop, mirror](Ctx& x) {
            pvec_retention_t r = nullptr;
            return pvec_vector_retain(x.witness.get(), prop, mirror, &r);
          });
  add("pvec_retention_release", "NULL handle", HANDLE,
      [](Ctx&) { return pvec_retention_release(nullptr); });
  add("pvec_retention_release", "a vector handle", HANDLE, [](Ctx& x) {
    return pvec_retention_release(reinterpret_cast<pvec_retention_t>(x.witness.get()));
  });
  add("pvec_retention_release", "a schema handle", HANDLE,
      [](Ctx& x) { return pvec_retention_release(reinterpret_cast<pvec_retention_t>(x.schema)); });
  add("pvec_retention_release", "garbage handle", HANDLE, [](Ctx&) {
    return pvec_retention_release(reinterpret_cast<pvec_retention_t>(uintptr_t{0xdeadbeef}));
  });
  add("pvec_retention_release", "released twice", HANDLE, [](Ctx& x) {
    pvec_retention_t r = nullptr;
    if (pvec_vector_retain(x.witness.get(), PVEC_POS, 1, &r) != PVEC_SUCCESS)
      return PVEC_ERROR_INTERNAL;
    if (pvec_retention_release(r) != PVEC_SUCCESS) return PVEC_ERROR_INTERNAL;
    return pvec_retention_release(r);
  });

  add("pvec_vector_get_layouts", "out NULL", IA, [](Ctx& x) {
    const int one = 0;
    return pvec_vector_get_layouts(x.witness.get(), &one, 1, nullptr, 1);
  });
  add("pvec_vector_get_layouts", "struct_size 8", IA, [](Ctx& x) {
    pvec_layout l = PVEC_LAYOUT_INIT;
    l.struct_size = 8;
    const int one = 0;
    return pvec_vector_get_layouts(x.witness.get(), &one, 1, &l, 1);
  });
  add("pvec_vector_get_layouts", "n_out too small for all", IA, [](Ctx& x) {
    pvec_layout l[2] = {PVEC_LAYOUT_INIT, PVEC_LAYOUT_INIT};
    return pvec_vector_get_layouts(x.witness.get(), nullptr, 0, l, 1);
  });
  add("pvec_vector_get_layouts", "n_out negative", IA, [](Ctx& x) {
    pvec_layout l = PVEC_LAYOUT_INIT;
    const int one = 0;
    return pvec_vector_get_layouts(x.witness.get(), &one, 1, &l, -1);
  });
  add("pvec_vector_get_layouts", "nprops negative", IA, [](Ctx& x) {
    pvec_layout l = PVEC_LAYOUT_INIT;
    const int one = 0;
    return pvec_vector_get_layouts(x.witness.get(), &one, -1, &l, 1);
  });
  add("pvec_vector_get_layouts", "repeated entry", IA, [](Ctx& x) {
    pvec_layout l[2] = {PVEC_LAYOUT_INIT, PVEC_LAYOUT_INIT};
    const int twice[2] = {0, 0};
    return pvec_vector_get_layouts(x.witness.get(), twice, 2, l, 2);
  });
  add("pvec_vector_get_layouts", "PVEC_NO_PROPS with nprops 2", IA, [](Ctx& x) {
    pvec_layout l[2] = {PVEC_LAYOUT_INIT, PVEC_LAYOUT_INIT};
    return pvec_vector_get_layouts(x.witness.get(), PVEC_NO_PROPS, 2, l, 2);
  });

  // ---- Section 6: transfers. ----
  add("pvec_vector_get_stream", "stream NULL", IA,
      [](Ctx& x) { return pvec_vector_get_stream(x.witness.get(), nullptr); });
  for (const PropList& pl : bad_prop_lists(np, true)) {
    const std::vector<int> props = pl.props;
    const int n = pl.nprops;
    add("pvec_host_to_device", pl.what, pl.want,
        [props, n](Ctx& x) { return pvec_host_to_device(x.witness.get(), props.data(), n); });
    add("pvec_device_to_host", pl.what, pl.want,
        [props, n](Ctx& x) { return pvec_device_to_host(x.witness.get(), props.data(), n); });
    add("pvec_host_to_device_async", pl.what, pl.want, [props, n](Ctx& x) {
      return pvec_host_to_device_async(x.witness.get(), props.data(), n, nullptr);
    });
    add("pvec_device_to_host_async", pl.what, pl.want, [props, n](Ctx& x) {
      return pvec_device_to_host_async(x.witness.get(), props.data(), n, nullptr);
    });
  }

  // ---- Section 7: distribution. ----
  add("pvec_vector_get_rank", "rank NULL", IA,
      [](Ctx& x) { return pvec_vector_get_rank(x.witness.get(), nullptr); });
  add("pvec_vector_get_nranks", "size NULL", IA,
      [](Ctx& x) { return pvec_vector_get_nranks(x.witness.get(), nullptr); });
  add("pvec_vector_get_subdomain", "lo and hi NULL", IA,
      [](Ctx& x) { return pvec_vector_get_subdomain(x.witness.get(), nullptr, nullptr); });
  add("pvec_vector_get_owner_rank", "x NULL", IA,
      [](Ctx& x) { return pvec_vector_get_owner_rank(x.witness.get(), nullptr, &i); });
  add("pvec_vector_get_owner_rank", "rank NULL", IA, [](Ctx& x) {
    static const double p[PVEC_MAX_DIM] = {0.5, 0.5, 0.5, 0.5};
    return pvec_vector_get_owner_rank(x.witness.get(), p, nullptr);
  });
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  struct Point {
    const char* what;
    double p[PVEC_MAX_DIM];
  };
  for (const Point& pt : {Point{"z above a non-periodic boundary", {0.5, 0.5, 1.5, 0}},
                          Point{"z below a non-periodic boundary", {0.5, 0.5, -1e-9, 0}},
                          Point{"NaN in a periodic dimension", {nan, 0.5, 0.5, 0}},
                          Point{"+Inf in a periodic dimension", {0.5, inf, 0.5, 0}},
                          Point{"-Inf", {0.5, 0.5, -inf, 0}}}) {
    Point q = pt;
    add("pvec_vector_get_owner_rank", q.what, IA, [q](Ctx& x) {
      std::copy(q.p, q.p + PVEC_MAX_DIM, dd);
      return pvec_vector_get_owner_rank(x.witness.get(), dd, &i);
    });
  }
  for (unsigned flags :
       {unsigned{PVEC_GHOST_SKIP_POSITIONS}, unsigned{PVEC_GHOST_REUSE_PLAN}, 1u << 4, 1u << 31})
    add("pvec_map", "flags " + std::to_string(flags), IA,
        [flags](Ctx& x) { return pvec_map(x.witness.get(), flags, &i64); });
  add("pvec_map", "particle beyond a non-periodic boundary", PVEC_ERROR_PARTICLES_OUTSIDE,
      [](Ctx& x) { return pvec_map(x.out_z.get(), 0, &i64); });
  add("pvec_map", "NaN coordinate", PVEC_ERROR_PARTICLES_OUTSIDE,
      [](Ctx& x) { return pvec_map(x.out_nan.get(), PVEC_ON_DEVICE, nullptr); });
  add("pvec_map", "+Inf coordinate", PVEC_ERROR_PARTICLES_OUTSIDE,
      [](Ctx& x) { return pvec_map(x.out_inf.get(), 0, nullptr); });
  for (unsigned flags : {unsigned{PVEC_MAP_REMOVE_OUTSIDE}, 1u << 4, 1u << 31})
    add("pvec_ghost_get", "flags " + std::to_string(flags), IA,
        [flags](Ctx& x) { return pvec_ghost_get(x.witness.get(), nullptr, 0, flags); });
  add("pvec_ghost_get", "SKIP_POSITIONS without REUSE_PLAN", IA, [](Ctx& x) {
    return pvec_ghost_get(x.witness.get(), nullptr, 0, PVEC_GHOST_SKIP_POSITIONS);
  });
  add("pvec_ghost_get", "REUSE_PLAN without a plan", IA,
      [](Ctx& x) { return pvec_ghost_get(x.out_z.get(), nullptr, 0, PVEC_GHOST_REUSE_PLAN); });
  add("pvec_ghost_put", "without a plan", IA,
      [](Ctx& x) { return pvec_ghost_put(x.out_z.get(), nullptr, 0, PVEC_REDUCE_ADD, 0); });
  for (int op : {-1, 4, std::numeric_limits<int>::max()})
    add("pvec_ghost_put", "op " + std::to_string(op), IA,
        [op](Ctx& x) { return shim_ghost_put(x.witness.get(), nullptr, 0, op, 0); });
  for (unsigned flags :
       {unsigned{PVEC_MAP_REMOVE_OUTSIDE}, unsigned{PVEC_GHOST_REUSE_PLAN}, 1u << 31})
    add("pvec_ghost_put", "flags " + std::to_string(flags), IA, [flags](Ctx& x) {
      return pvec_ghost_put(x.witness.get(), nullptr, 0, PVEC_REDUCE_ADD, flags);
    });
  for (const PropList& pl : bad_prop_lists(np, false)) {
    const std::vector<int> props = pl.props;
    const int n = pl.nprops;
    add("pvec_ghost_get", pl.what, pl.want,
        [props, n](Ctx& x) { return pvec_ghost_get(x.witness.get(), props.data(), n, 0); });
    add("pvec_ghost_put", pl.what, pl.want, [props, n](Ctx& x) {
      return pvec_ghost_put(x.witness.get(), props.data(), n, PVEC_REDUCE_MAX, 0);
    });
    add("pvec_ghost_get_begin", pl.what, pl.want,
        [props, n](Ctx& x) { return pvec_ghost_get_begin(x.witness.get(), props.data(), n, 0); });
    add("pvec_ghost_put_begin", pl.what, pl.want, [props, n](Ctx& x) {
      return pvec_ghost_put_begin(x.witness.get(), props.data(), n, PVEC_REDUCE_MAX, 0);
    });
  }
  // The split-phase forms: the blocking calls' checks, and an end without its begin.
  for (unsigned flags : {unsigned{PVEC_MAP_REMOVE_OUTSIDE}, 1u << 4, 1u << 31})
    add("pvec_ghost_get_begin", "flags " + std::to_string(flags), IA,
        [flags](Ctx& x) { return pvec_ghost_get_begin(x.witness.get(), nullptr, 0, flags); });
  add("pvec_ghost_get_begin", "SKIP_POSITIONS without REUSE_PLAN", IA, [](Ctx& x) {
    return pvec_ghost_get_begin(x.witness.get(), nullptr, 0, PVEC_GHOST_SKIP_POSITIONS);
  });
  add("pvec_ghost_get_begin", "REUSE_PLAN without a plan", IA, [](Ctx& x) {
    return pvec_ghost_get_begin(x.out_z.get(), nullptr, 0, PVEC_GHOST_REUSE_PLAN);
  });
  add("pvec_ghost_get_end", "nothing in flight", PVEC_ERROR_STATE,
      [](Ctx& x) { return pvec_ghost_get_end(x.witness.get()); });
  add("pvec_ghost_put_begin", "without a plan", IA,
      [](Ctx& x) { return pvec_ghost_put_begin(x.out_z.get(), nullptr, 0, PVEC_REDUCE_ADD, 0); });
  for (int op : {-1, 4, std::numeric_limits<int>::max()})
    add("pvec_ghost_put_begin", "op " + std::to_string(op), IA,
        [op](Ctx& x) { return shim_ghost_put_begin(x.witness.get(), nullptr, 0, op, 0); });
  add("pvec_ghost_put_begin", "flags " + std::to_string(1u << 31), IA, [](Ctx& x) {
    return pvec_ghost_put_begin(x.witness.get(), nullptr, 0, PVEC_REDUCE_ADD, 1u << 31);
  });
  add("pvec_ghost_put_end", "nothing in flight", PVEC_ERROR_STATE,
      [](Ctx& x) { return pvec_ghost_put_end(x.witness.get()); });

  // ---- Section 7: reductions. ----
  add("pvec_vector_reduce", "result NULL", IA,
      [](Ctx& x) { return pvec_vector_reduce(x.witness.get(), 0, PVEC_REDUCE_ADD, 0, nullptr); });
  for (int op : {static_cast<int>(PVEC_REDUCE_REPLACE), -1, 4})
    add("pvec_vector_reduce", "op " + std::to_string(op), IA, [op](Ctx& x) {
      double r[64];
      return pvec_vector_reduce(x.witness.get(), 0, static_cast<pvec_reduce_op>(op), 0, r);
    });
  add("pvec_vector_reduce", "unknown flag", IA, [](Ctx& x) {
    double r[64];
    return pvec_vector_reduce(x.witness.get(), 0, PVEC_REDUCE_ADD, 1u << 20, r);
  });
  for (int prop : {-2, 99, std::numeric_limits<int>::min()})
    add("pvec_vector_reduce", "prop " + std::to_string(prop), PVEC_ERROR_OUT_OF_RANGE,
        [prop](Ctx& x) {
          double r[64];
          return pvec_vector_reduce(x.witness.get(), prop, PVEC_REDUCE_ADD, 0, r);
        });
  add("pvec_vector_allreduce", "values NULL", IA, [](Ctx& x) {
    return pvec_vector_allreduce(x.witness.get(), nullptr, 3, PVEC_FLOAT64, PVEC_REDUCE_ADD);
  });
  for (int64_t count : {int64_t{-1}, kMin})
    add("pvec_vector_allreduce", "count " + std::to_string(count), IA, [count](Ctx& x) {
      double v[4] = {0, 0, 0, 0};
      return pvec_vector_allreduce(x.witness.get(), v, count, PVEC_FLOAT64, PVEC_REDUCE_ADD);
    });
  add("pvec_vector_allreduce", "count 2^31", PVEC_ERROR_NOT_SUPPORTED, [](Ctx& x) {
    double v[4] = {0, 0, 0, 0};
    return pvec_vector_allreduce(x.witness.get(), v, int64_t{1} << 31, PVEC_FLOAT64,
                                 PVEC_REDUCE_ADD);
  });
  for (int dtype : {0, 7, -1})
    add("pvec_vector_allreduce", "dtype " + std::to_string(dtype), IA, [dtype](Ctx& x) {
      double v[4] = {0, 0, 0, 0};
      return pvec_vector_allreduce(x.witness.get(), v, 4, static_cast<pvec_dtype>(dtype),
                                   PVEC_REDUCE_ADD);
    });
  add("pvec_vector_allreduce", "op REPLACE", IA, [](Ctx& x) {
    double v[4] = {0, 0, 0, 0};
    return pvec_vector_allreduce(x.witness.get(), v, 4, PVEC_FLOAT64, PVEC_REDUCE_REPLACE);
  });

  // ---- Section 8: diagnostics. ----
  add("pvec_memory_get_stats", "out NULL", IA, [](Ctx&) { return pvec_memory_get_stats(nullptr); });
  for (size_t sz : {size_t{0}, size_t{8}, sizeof(pvec_memory_stats) - 1})
    add("pvec_memory_get_stats", "struct_size " + std::to_string(sz), IA, [sz](Ctx&) {
      pvec_memory_stats m;
      m.struct_size = sz;
      return pvec_memory_get_stats(&m);
    });
  add("pvec_vector_get_op_stats", "out NULL", IA,
      [](Ctx& x) { return pvec_vector_get_op_stats(x.witness.get(), nullptr); });
  for (size_t sz : {size_t{0}, size_t{PVEC_OP_STATS_SIZE_V1} - 1})
    add("pvec_vector_get_op_stats", "struct_size " + std::to_string(sz), IA, [sz](Ctx& x) {
      pvec_op_stats s;
      s.struct_size = sz;
      return pvec_vector_get_op_stats(x.witness.get(), &s);
    });

  // ---- Section 11: load balance. ----
  for (const auto& b : std::vector<std::tuple<const char*, int, unsigned, pvec_status>>{
           {"weight index 2^20", 1 << 20, 0u, PVEC_ERROR_OUT_OF_RANGE},
           {"weight index INT_MIN", std::numeric_limits<int>::min(), 0u, PVEC_ERROR_OUT_OF_RANGE},
           {"weight PVEC_POS", PVEC_POS, 0u, IA},
           {"flags 1<<9", PVEC_NO_WEIGHT, 1u << 9, IA},
           {"flags MAP_REMOVE_OUTSIDE", PVEC_NO_WEIGHT, PVEC_MAP_REMOVE_OUTSIDE, IA}})
    add("pvec_vector_get_imbalance", std::get<0>(b), std::get<3>(b), [b](Ctx& x) {
      double c = 0, w = 0;
      return pvec_vector_get_imbalance(x.witness.get(), std::get<1>(b), std::get<2>(b), &c, &w);
    });

  for (const auto& b : std::vector<std::tuple<const char*, int, double, unsigned, pvec_status>>{
           {"weight index 2^20", 1 << 20, 1.0, 0u, PVEC_ERROR_OUT_OF_RANGE},
           {"weight PVEC_POS", PVEC_POS, 1.0, 0u, IA},
           {"threshold 0.999", PVEC_NO_WEIGHT, 0.999, 0u, IA},
           {"threshold -1", PVEC_NO_WEIGHT, -1.0, 0u, IA},
           {"threshold NaN", PVEC_NO_WEIGHT, std::nan(""), 0u, IA},
           {"threshold Inf", PVEC_NO_WEIGHT, HUGE_VAL, 0u, IA},
           {"flags MAP_REMOVE_OUTSIDE", PVEC_NO_WEIGHT, 1.0, PVEC_MAP_REMOVE_OUTSIDE, IA}})
    add("pvec_vector_rebalance", std::get<0>(b), std::get<4>(b), [b](Ctx& x) {
      double before = -7, after = -7;
      return pvec_vector_rebalance(x.witness.get(), std::get<1>(b), std::get<2>(b), std::get<3>(b),
                                   &before, &after);
    });

  // ---- Section 4: removal by mark, spawns, ids (nothing removed or added by these rows). ----
  static const int32_t one_mark[1] = {1};
  for (const auto& b :
       std::vector<std::tuple<const char*, int, const int32_t*, unsigned, pvec_status>>{
           {"mark property and marks array", 0, one_mark, 0u, IA},
           {"neither mark property nor marks", PVEC_NO_PROPERTY, nullptr, 0u, IA},
           {"mark PVEC_POS", PVEC_POS, nullptr, 0u, IA},
           {"mark index 2^20", 1 << 20, nullptr, 0u, PVEC_ERROR_OUT_OF_RANGE},
           {"mark index INT_MIN", std::numeric_limits<int>::min(), nullptr, 0u,
            PVEC_ERROR_OUT_OF_RANGE},
           {"flags 1<<20", 0, nullptr, 1u << 20, IA},
           {"flags MAP_REMOVE_OUTSIDE", 0, nullptr, PVEC_MAP_REMOVE_OUTSIDE, IA}})
    add("pvec_vector_remove_marked", std::get<0>(b), std::get<4>(b), [b](Ctx& x) {
      int64_t n = -7;
      return pvec_vector_remove_marked(x.witness.get(), std::get<1>(b), std::get<2>(b),
                                       std::get<3>(b), &n);
    });
  add("pvec_vector_remove_marked_async", "without PVEC_ON_DEVICE", IA, [](Ctx& x) {
    return pvec_vector_remove_marked_async(x.witness.get(), 0, nullptr, 0, nullptr);
  });
  add("pvec_vector_remove_marked_async", "mark PVEC_POS", IA, [](Ctx& x) {
    return pvec_vector_remove_marked_async(x.witness.get(), PVEC_POS, nullptr, PVEC_ON_DEVICE,
                                           nullptr);
  });
  add("pvec_vector_spawn_begin", "spawner NULL", IA,
      [](Ctx& x) { return pvec_vector_spawn_begin(x.witness.get(), 1, 0, nullptr); });
  for (size_t sz : {size_t{0}, size_t{PVEC_SPAWNER_SIZE_V1} - 1})
    add("pvec_vector_spawn_begin", "struct_size " + std::to_string(sz), IA, [sz](Ctx& x) {
      pvec_spawner sp = PVEC_SPAWNER_INIT;
      sp.struct_size = sz;
      return pvec_vector_spawn_begin(x.witness.get(), 1, 0, &sp);
    });
  add("pvec_vector_spawn_begin", "max_new -1", IA, [](Ctx& x) {
    pvec_spawner sp = PVEC_SPAWNER_INIT;
    return pvec_vector_spawn_begin(x.witness.get(), -1, 0, &sp);
  });
  add("pvec_vector_spawn_begin", "max_new INT64_MAX", PVEC_ERROR_OVERFLOW, [](Ctx& x) {
    pvec_spawner sp = PVEC_SPAWNER_INIT;
    return pvec_vector_spawn_begin(x.witness.get(), std::numeric_limits<int64_t>::max(), 0, &sp);
  });
  add("pvec_vector_spawn_begin", "flags 1<<20", IA, [](Ctx& x) {
    pvec_spawner sp = PVEC_SPAWNER_INIT;
    return pvec_vector_spawn_begin(x.witness.get(), 1, 1u << 20, &sp);
  });
  add("pvec_vector_spawn_commit", "no spawn open", PVEC_ERROR_STATE,
      [](Ctx& x) { return pvec_vector_spawn_commit(x.witness.get(), nullptr); });
  add("pvec_vector_spawn_cancel", "no spawn open", PVEC_ERROR_STATE,
      [](Ctx& x) { return pvec_vector_spawn_cancel(x.witness.get()); });
  add("pvec_vector_ids_init", "id PVEC_POS", IA,
      [](Ctx& x) { return pvec_vector_ids_init(x.witness.get(), PVEC_POS, 0); });
  add("pvec_vector_ids_init", "id index 2^20", PVEC_ERROR_OUT_OF_RANGE,
      [](Ctx& x) { return pvec_vector_ids_init(x.witness.get(), 1 << 20, 0); });
  add("pvec_vector_ids_init", "flags 1<<20", IA,
      [](Ctx& x) { return pvec_vector_ids_init(x.witness.get(), 0, 1u << 20); });
  add("pvec_vector_ids_take", "count -1", IA, [](Ctx& x) {
    int64_t f = 0, st = 0;
    return pvec_vector_ids_take(x.witness.get(), -1, &f, &st);
  });
  add("pvec_vector_ids_take", "first NULL", IA, [](Ctx& x) {
    int64_t st = 0;
    return pvec_vector_ids_take(x.witness.get(), 1, nullptr, &st);
  });
  add("pvec_vector_ids_take", "no ids (ids_init not called)", PVEC_ERROR_STATE, [](Ctx& x) {
    int64_t f = 0, st = 0;
    return pvec_vector_ids_take(x.witness.get(), 1, &f, &st);
  });

  // ---- Section 6: mirror coherence. ----
  static const int bad_prop[1] = {1 << 20};
  static const int prop_twice[2] = {0, 0};
  for (const char* fn : {"pvec_vector_mark_modified", "pvec_vector_sync"}) {
    const bool mark = std::string(fn) == "pvec_vector_mark_modified";
    auto call = [mark](pvec_vector_t v, const int* p, int n, unsigned f) {
      return mark ? pvec_vector_mark_modified(v, p, n, f) : pvec_vector_sync(v, p, n, f);
    };
    add(fn, "nprops -1", IA, [call](Ctx& x) { return call(x.witness.get(), prop_twice, -1, 0); });
    add(fn, "a property twice", IA,
        [call](Ctx& x) { return call(x.witness.get(), prop_twice, 2, 0); });
    add(fn, "property 2^20", PVEC_ERROR_OUT_OF_RANGE,
        [call](Ctx& x) { return call(x.witness.get(), bad_prop, 1, 0); });
    add(fn, "flags 1<<20", IA,
        [call](Ctx& x) { return call(x.witness.get(), nullptr, 0, 1u << 20); });
    add(fn, "flags PVEC_MAP_REMOVE_OUTSIDE", IA,
        [call](Ctx& x) { return call(x.witness.get(), nullptr, 0, PVEC_MAP_REMOVE_OUTSIDE); });
  }
  add("pvec_vector_get_mirror_state", "state NULL", IA,
      [](Ctx& x) { return pvec_vector_get_mirror_state(x.witness.get(), 0, nullptr); });
  add("pvec_vector_get_mirror_state", "property 2^20", PVEC_ERROR_OUT_OF_RANGE, [](Ctx& x) {
    unsigned st = 0;
    return pvec_vector_get_mirror_state(x.witness.get(), 1 << 20, &st);
  });

  add("pvec_vector_follow", "leader is the vector itself", IA,
      [](Ctx& x) { return pvec_vector_follow(x.witness.get(), x.witness.get(), 0); });
  add("pvec_vector_follow", "flags 1<<20", IA,
      [](Ctx& x) { return pvec_vector_follow(x.witness.get(), nullptr, 1u << 20); });
  add("pvec_vector_follow", "destroyed leader", HANDLE,
      [](Ctx& x) { return pvec_vector_follow(x.witness.get(), x.dead_vec, 0); });
  add("pvec_vector_follow", "schema handle as leader", HANDLE, [](Ctx& x) {
    return pvec_vector_follow(x.witness.get(), reinterpret_cast<pvec_vector_t>(x.schema), 0);
  });

  // ---- Section 9: output and restart. No file is written or read by these rows. ----
  add("pvec_has_hdf5", "flag NULL", IA, [](Ctx&) { return pvec_has_hdf5(nullptr); });
  struct Vtk {
    const char* what;
    const char* prefix;
    int64_t step;
    double time;
    unsigned flags;
  };
  for (const Vtk b :
       {Vtk{"prefix NULL", nullptr, 0, 0.0, 0}, Vtk{"prefix empty", "", 0, 0.0, 0},
        Vtk{"step -1", "hardening_vtk", -1, 0.0, 0},
        Vtk{"step INT64_MIN", "hardening_vtk", kMin, 0.0, 0},
        Vtk{"time NaN", "hardening_vtk", 0, std::nan(""), 0},
        Vtk{"time Inf", "hardening_vtk", 0, HUGE_VAL, 0},
        Vtk{"flags 1<<9", "hardening_vtk", 0, 0.0, 1u << 9},
        Vtk{"flags MAP_REMOVE_OUTSIDE", "hardening_vtk", 0, 0.0, PVEC_MAP_REMOVE_OUTSIDE}})
    add("pvec_vtk_write", b.what, IA, [b](Ctx& x) {
      return pvec_vtk_write(x.witness.get(), b.prefix, b.step, b.time, nullptr, 0, b.flags);
    });
  // Property lists of the writers: a negative count, a repeat, an index out of range.
  static const int twice[] = {0, 0};
  static const int beyond[] = {0, 1 << 20};
  static const int minus2[] = {-2};
  struct Plist {
    const char* what;
    const int* props;
    int nprops;
    pvec_status want;
  };
  for (const Plist b : {Plist{"nprops -1", twice, -1, IA}, Plist{"a property twice", twice, 2, IA},
                        Plist{"PVEC_NO_PROPS with nprops 1", PVEC_NO_PROPS, 1, IA},
                        Plist{"index 2^20", beyond, 2, PVEC_ERROR_OUT_OF_RANGE},
                        Plist{"index -2", minus2, 1, PVEC_ERROR_OUT_OF_RANGE}}) {
    add("pvec_vtk_write", b.what, b.want, [b](Ctx& x) {
      return pvec_vtk_write(x.witness.get(), "hardening_vtk", 0, 0.0, b.props, b.nprops, 0);
    });
    add("pvec_checkpoint_write", b.what, b.want, [b](Ctx& x) {
      return pvec_checkpoint_write(x.witness.get(), "hardening.h5", 0, 0.0, b.props, b.nprops, 0,
                                   nullptr, nullptr, nullptr, nullptr, 0);
    });
  }
  static const char* key1[] = {"k"};
  for (int bad : {-1, std::numeric_limits<int>::min(), PVEC_METADATA_MAX_VALUES + 1})
    add("pvec_checkpoint_write", "counts[0] " + std::to_string(bad), IA, [bad](Ctx& x) {
      static const double one[] = {1};
      return pvec_checkpoint_write(x.witness.get(), "hardening.h5", 0, 0.0, nullptr, 0, 1, key1,
                                   nullptr, one, &bad, 0);
    });
  static const char* keys2[] = {"k", "k"};
  static const char* null_key[] = {nullptr};
  static const double nums[] = {1, 2};
  struct Ckpt {
    const char* what;
    const char* path;
    double time;
    int n;
    const char* const* keys;
    const double* numbers;
    unsigned flags;
  };
  for (const Ckpt b : {Ckpt{"path NULL", nullptr, 0.0, 0, nullptr, nullptr, 0},
                       Ckpt{"path empty", "", 0.0, 0, nullptr, nullptr, 0},
                       Ckpt{"time NaN", "hardening.h5", std::nan(""), 0, nullptr, nullptr, 0},
                       Ckpt{"n_attrs -1", "hardening.h5", 0.0, -1, nullptr, nullptr, 0},
                       Ckpt{"n_attrs INT_MIN", "hardening.h5", 0.0, std::numeric_limits<int>::min(),
                            nullptr, nullptr, 0},
                       Ckpt{"keys NULL, n_attrs 1", "hardening.h5", 0.0, 1, nullptr, nums, 0},
                       Ckpt{"key NULL", "hardening.h5", 0.0, 1, null_key, nums, 0},
                       Ckpt{"repeated key", "hardening.h5", 0.0, 2, keys2, nums, 0},
                       Ckpt{"numbers NULL for a number", "hardening.h5", 0.0, 1, keys2, nullptr, 0},
                       Ckpt{"flags 1<<4", "hardening.h5", 0.0, 0, nullptr, nullptr, 1u << 4}})
    add("pvec_checkpoint_write", b.what, IA, [b](Ctx& x) {
      return pvec_checkpoint_write(x.witness.get(), b.path, 0, b.time, nullptr, 0, b.n, b.keys,
                                   nullptr, b.numbers, nullptr, b.flags);
    });
  add("pvec_checkpoint_write", "step -1", IA, [](Ctx& x) {
    return pvec_checkpoint_write(x.witness.get(), "hardening.h5", -1, 0.0, nullptr, 0, 0, nullptr,
                                 nullptr, nullptr, nullptr, 0);
  });
  add("pvec_checkpoint_describe", "path NULL", IA,
      [](Ctx&) { return pvec_checkpoint_describe(nullptr, nullptr, nullptr, nullptr, nullptr); });
  add("pvec_checkpoint_describe", "path empty", IA,
      [](Ctx&) { return pvec_checkpoint_describe("", nullptr, nullptr, nullptr, nullptr); });
  for (size_t sz : {size_t{0}, size_t{PVEC_VECTOR_DESC_SIZE_V1} - 1})
    add("pvec_checkpoint_describe", "desc struct_size " + std::to_string(sz), IA, [sz](Ctx&) {
      pvec_vector_desc d = PVEC_VECTOR_DESC_INIT;
      d.struct_size = sz;
      return pvec_checkpoint_describe("hardening_no_such.h5", &d, nullptr, nullptr, nullptr);
    });
  {
    int hdf5 = 0;
    pvec_has_hdf5(&hdf5);
    add("pvec_checkpoint_describe", "no such file", hdf5 ? PVEC_ERROR_IO : PVEC_ERROR_NOT_SUPPORTED,
        [](Ctx&) {
          pvec_schema_t s = nullptr;
          return pvec_checkpoint_describe("hardening_no_such.h5", nullptr, &s, nullptr, nullptr);
        });
  }
  add("pvec_checkpoint_get_metadata_count", "path NULL", IA, [](Ctx&) {
    int n = 0;
    return pvec_checkpoint_get_metadata_count(nullptr, &n);
  });
  add("pvec_checkpoint_get_metadata_count", "count NULL", IA,
      [](Ctx&) { return pvec_checkpoint_get_metadata_count("hardening_no_such.h5", nullptr); });
  add("pvec_checkpoint_get_metadata", "path NULL", IA, [](Ctx&) {
    return pvec_checkpoint_get_metadata(nullptr, 0, nullptr, 0, nullptr, nullptr, nullptr, 0,
                                        nullptr, 0);
  });
  {
    int hdf5 = 0;
    pvec_has_hdf5(&hdf5);
    const pvec_status none = hdf5 ? PVEC_ERROR_IO : PVEC_ERROR_NOT_SUPPORTED;
    add("pvec_checkpoint_get_metadata_count", "no such file", none, [](Ctx&) {
      int n = 0;
      return pvec_checkpoint_get_metadata_count("hardening_no_such.h5", &n);
    });
    add("pvec_checkpoint_get_metadata", "no such file", none, [](Ctx&) {
      return pvec_checkpoint_get_metadata("hardening_no_such.h5", 0, nullptr, 0, nullptr, nullptr,
                                          nullptr, 0, nullptr, 0);
    });
  }
  add("pvec_checkpoint_restart", "path NULL", IA, [](Ctx& x) {
    const pvec_vector_desc d = capi::make_desc(4);
    pvec_vector_t out = nullptr;
    return pvec_checkpoint_restart(nullptr, &d, x.schema, 0, &out);
  });
  add("pvec_checkpoint_restart", "desc NULL", IA, [](Ctx& x) {
    pvec_vector_t out = nullptr;
    return pvec_checkpoint_restart("hardening_no_such.h5", nullptr, x.schema, 0, &out);
  });
  add("pvec_checkpoint_restart", "desc struct_size 0", IA, [](Ctx& x) {
    pvec_vector_desc d = capi::make_desc(4);
    d.struct_size = 0;
    pvec_vector_t out = nullptr;
    return pvec_checkpoint_restart("hardening_no_such.h5", &d, x.schema, 0, &out);
  });
  add("pvec_checkpoint_restart", "out NULL", IA, [](Ctx& x) {
    const pvec_vector_desc d = capi::make_desc(4);
    return pvec_checkpoint_restart("hardening_no_such.h5", &d, x.schema, 0, nullptr);
  });
  add("pvec_checkpoint_restart", "flags 1", IA, [](Ctx& x) {
    const pvec_vector_desc d = capi::make_desc(4);
    pvec_vector_t out = nullptr;
    return pvec_checkpoint_restart("hardening_no_such.h5", &d, x.schema, 1, &out);
  });
  add("pvec_checkpoint_restart", "flags PVEC_CELLS_GHOSTS", IA, [](Ctx& x) {
    const pvec_vector_desc d = capi::make_desc(4);
    pvec_vector_t out = nullptr;
    return pvec_checkpoint_restart("hardening_no_such.h5", &d, x.schema,
                                   PVEC_RESTART_SKIP_EXTRA | PVEC_CELLS_GHOSTS, &out);
  });

  // ---- Neighbour search (section 10): bad vectors, bad lists, bad arguments. ----
  static pvec_cell_list_t cl_out;
  static pvec_verlet_t vl_out;
  static pvec_cell_list_info cl_info;
  static pvec_verlet_info vl_info;
  cl_info = PVEC_CELL_LIST_INFO_INIT;
  vl_info = PVEC_VERLET_INFO_INIT;
  for (const auto& h : bad_vector_handles()) {
    add("pvec_cell_list_create", h.first, HANDLE,
        [h](Ctx& x) { return pvec_cell_list_create(h.second(x), 0.1, 1, 0, &cl_out); });
    add("pvec_vector_sort", h.first, HANDLE,
        [h](Ctx& x) { return pvec_vector_sort(h.second(x), 0.1, 0, &i); });
    add("pvec_verlet_create", h.first, HANDLE,
        [h](Ctx& x) { return pvec_verlet_create(h.second(x), 0.1, 0.0, 1, 0, &vl_out); });
    add("pvec_verlet_create_with", h.first, HANDLE, [h](Ctx& x) {
      pvec_verlet_options o = PVEC_VERLET_OPTIONS_INIT;
      o.cutoff = 0.1;
      return pvec_verlet_create_with(h.second(x), &o, &vl_out);
    });
  }
  // Verlet options against the witness's properties: mass float64, cell int32[3], stress, id
  // uint64 (index 3).
  struct Opt {
    const char* what;
    int key, skip;
    size_t size;
    unsigned flags;
    pvec_status want;
  };
  const size_t osz = sizeof(pvec_verlet_options);
  for (const Opt& b : std::vector<Opt>{
           {"key_prop float64 (mass)", 0, PVEC_NO_PROPERTY, osz, 0u, PVEC_ERROR_DTYPE_MISMATCH},
           {"key_prop int32[3] (cell)", 1, PVEC_NO_PROPERTY, osz, 0u, IA},
           {"key_prop PVEC_POS", PVEC_POS, PVEC_NO_PROPERTY, osz, 0u, IA},
           {"key_prop 2^20", 1 << 20, PVEC_NO_PROPERTY, osz, 0u, PVEC_ERROR_OUT_OF_RANGE},
           {"skip_prop -7", 3, -7, osz, 0u, PVEC_ERROR_OUT_OF_RANGE},
           {"skip_prop float32 tensor", 3, 2, osz, 0u, PVEC_ERROR_DTYPE_MISMATCH},
           {"struct_size 0", 3, PVEC_NO_PROPERTY, 0, 0u, IA},
           {"struct_size below V1", 3, PVEC_NO_PROPERTY, PVEC_VERLET_OPTIONS_SIZE_V1 - 1, 0u, IA},
           {"flags 1<<20", 3, PVEC_NO_PROPERTY, osz, 1u << 20, IA}})
    add("pvec_verlet_create_with", b.what, b.want, [b](Ctx& x) {
      pvec_verlet_options o = PVEC_VERLET_OPTIONS_INIT;
      o.struct_size = b.size;
      o.cutoff = 0.1;
      o.key_prop = b.key;
      o.skip_prop = b.skip;
      o.flags = b.flags;
      return pvec_verlet_create_with(x.witness.get(), &o, &vl_out);
    });
  add("pvec_verlet_create_with", "opts NULL", IA,
      [](Ctx& x) { return pvec_verlet_create_with(x.witness.get(), nullptr, &vl_out); });
  add("pvec_verlet_create_with", "out NULL", IA, [](Ctx& x) {
    pvec_verlet_options o = PVEC_VERLET_OPTIONS_INIT;
    o.cutoff = 0.1;
    return pvec_verlet_create_with(x.witness.get(), &o, nullptr);
  });
  add("pvec_verlet_options_init", "opts NULL", IA,
      [](Ctx&) { return pvec_verlet_options_init(nullptr); });
  const pvec_cell_list_t no_cl = nullptr, bogus_cl = reinterpret_cast<pvec_cell_list_t>(0x7777);
  const pvec_verlet_t no_vl = nullptr, bogus_vl = reinterpret_cast<pvec_verlet_t>(0x7777);
  for (pvec_cell_list_t l : {no_cl, bogus_cl}) {
    const std::string w = l ? "handle 0x7777" : "NULL handle";
    add("pvec_cell_list_build", w, HANDLE, [l](Ctx&) { return pvec_cell_list_build(l); });
    add("pvec_cell_list_get_info", w, HANDLE,
        [l](Ctx&) { return pvec_cell_list_get_info(l, &cl_info); });
    add("pvec_cell_list_destroy", w, HANDLE, [l](Ctx&) { return pvec_cell_list_destroy(l); });
  }
  for (pvec_verlet_t l : {no_vl, bogus_vl}) {
    const std::string w = l ? "handle 0x7777" : "NULL handle";
    add("pvec_verlet_build", w, HANDLE, [l](Ctx&) { return pvec_verlet_build(l); });
    add("pvec_verlet_get_info", w, HANDLE, [l](Ctx&) { return pvec_verlet_get_info(l, &vl_info); });
    add("pvec_verlet_check", w, HANDLE, [l](Ctx&) { return pvec_verlet_check(l, &i); });
    add("pvec_verlet_destroy", w, HANDLE, [l](Ctx&) { return pvec_verlet_destroy(l); });
  }
  for (double cut : {0.0, -1.0, nan, 0.5}) {
    const std::string w = "cutoff " + std::to_string(cut);
    add("pvec_cell_list_create", w, IA,
        [cut](Ctx& x) { return pvec_cell_list_create(x.witness.get(), cut, 1, 0, &cl_out); });
    add("pvec_verlet_create", w, IA,
        [cut](Ctx& x) { return pvec_verlet_create(x.witness.get(), cut, 0.0, 1, 0, &vl_out); });
    if (!(cut > 0) || cut != cut)
      add("pvec_vector_sort", "cell width " + std::to_string(cut), IA,
          [cut](Ctx& x) { return pvec_vector_sort(x.witness.get(), cut, 0, nullptr); });
  }
  add("pvec_cell_list_create", "cells_per_cutoff 0", IA,
      [](Ctx& x) { return pvec_cell_list_create(x.witness.get(), 0.1, 0, 0, &cl_out); });
  add("pvec_cell_list_create", "flags 1<<20", IA,
      [](Ctx& x) { return pvec_cell_list_create(x.witness.get(), 0.1, 1, 1u << 20, &cl_out); });
  add("pvec_cell_list_create", "out NULL", IA,
      [](Ctx& x) { return pvec_cell_list_create(x.witness.get(), 0.1, 1, 0, nullptr); });
  add("pvec_vector_sort", "flags 1<<20", IA,
      [](Ctx& x) { return pvec_vector_sort(x.witness.get(), 0.1, 1u << 20, nullptr); });
  add("pvec_verlet_create", "skin -0.01", IA,
      [](Ctx& x) { return pvec_verlet_create(x.witness.get(), 0.1, -0.01, 1, 0, &vl_out); });
  add("pvec_verlet_create", "skin NaN", IA,
      [nan](Ctx& x) { return pvec_verlet_create(x.witness.get(), 0.1, nan, 1, 0, &vl_out); });
  add("pvec_verlet_create", "cutoff + skin above the ghost width", IA,
      [](Ctx& x) { return pvec_verlet_create(x.witness.get(), 0.1, 0.1, 1, 0, &vl_out); });
  add("pvec_verlet_create", "cells_per_cutoff 9", IA,
      [](Ctx& x) { return pvec_verlet_create(x.witness.get(), 0.1, 0.0, 9, 0, &vl_out); });
  add("pvec_verlet_create", "flags 1<<20", IA,
      [](Ctx& x) { return pvec_verlet_create(x.witness.get(), 0.1, 0.0, 1, 1u << 20, &vl_out); });
  add("pvec_verlet_create", "out NULL", IA,
      [](Ctx& x) { return pvec_verlet_create(x.witness.get(), 0.1, 0.0, 1, 0, nullptr); });
  add("pvec_cell_list_create", "NaN position", IA,
      [](Ctx& x) { return pvec_cell_list_create(x.out_nan.get(), 0.1, 1, 0, &cl_out); });
  add("pvec_vector_sort", "Inf position", IA,
      [](Ctx& x) { return pvec_vector_sort(x.out_inf.get(), 0.1, 0, nullptr); });
  return rows;
}

// Names of the exported pvec_* functions of the shared library (nm -D --defined-only).
std::set<std::string> exported_functions() {
  const std::string cmd = std::string(PVEC_NM) + " -D --defined-only '" + PVEC_LIB_FILE + "'";
  std::set<std::string> names;
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  char line[1024];
  while (std::fgets(line, sizeof line, p)) {
    std::istringstream in(line);
    std::string addr, type, name;
    if (!(in >> addr >> type >> name)) continue;
    name = name.substr(0, name.find('@'));
    if (name.rfind("pvec_", 0) == 0) names.insert(name);
  }
  const int rc = pclose(p);
  INFO(cmd);
  REQUIRE(rc == 0);
  return names;
}

// Names of the functions pvec.h declares with PVEC_API.
std::set<std::string> declared_functions() {
  std::ifstream in(PVEC_HEADER_FILE);
  REQUIRE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  std::set<std::string> names;
  const std::regex decl(R"(PVEC_API[^;(]*?\b(pvec_[A-Za-z0-9_]+)\s*\()");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), decl); it != std::sregex_iterator();
       ++it)
    names.insert((*it)[1]);
  return names;
}

// Takes what must not change under a failed call: the witness vectors and the schema.
struct World {
  std::vector<capi::Snapshot> vecs;
  int schema_count = -1;
  bool operator==(const World& o) const { return vecs == o.vecs && schema_count == o.schema_count; }
};
World world(Ctx& c) {
  World w;
  for (pvec_vector_t v : {c.witness.get(), c.out_z.get(), c.out_nan.get(), c.out_inf.get()})
    w.vecs.push_back(capi::snapshot(v));
  REQUIRE(pvec_schema_get_count(c.schema, &w.schema_count) == PVEC_SUCCESS);
  return w;
}
std::string describe(const World& w) {
  std::string s;
  for (const auto& v : w.vecs) s += "[" + capi::to_string(v) + "] ";
  return s + "schema count " + std::to_string(w.schema_count);
}

// Sets up the context shared by the rows.
void make_ctx(Ctx& c) {
  c.witness = make_filled(300);
  PVEC_REQUIRE_OK(pvec_ghost_get(c.witness.get(), nullptr, 0, 0));
  int64_t ng = 0;
  PVEC_REQUIRE_OK(pvec_vector_get_ghost_size(c.witness.get(), &ng));
  REQUIRE(ng > 0);  // the periodic images exist, so dropping them on failure would show
  c.out_z = make_filled(20);
  set_coord(c.out_z.get(), 7, 2, 1.5);
  c.out_nan = make_filled(20);
  set_coord(c.out_nan.get(), 3, 0, std::numeric_limits<double>::quiet_NaN());
  PVEC_REQUIRE_OK(pvec_host_to_device(c.out_nan.get(), nullptr, 0));  // NaN on both mirrors
  c.out_inf = make_filled(20);
  set_coord(c.out_inf.get(), 19, 1, std::numeric_limits<double>::infinity());
  PVEC_REQUIRE_OK(pvec_schema_create(&c.schema));
  PVEC_REQUIRE_OK(pvec_schema_add_scalar(c.schema, "m", PVEC_FLOAT64, nullptr));
  PVEC_REQUIRE_OK(pvec_schema_add_vector(c.schema, "v", PVEC_FLOAT32, 3, nullptr));
  {
    capi::Vector gone = make_filled(5);
    c.dead_vec = gone.get();
  }
  PVEC_REQUIRE_OK(pvec_schema_create(&c.dead_schema));
  PVEC_REQUIRE_OK(pvec_schema_destroy(c.dead_schema));
  PVEC_REQUIRE_OK(pvec_vector_get_prop_count(c.witness.get(), &c.nprops));
}

// Runs one row; returns a description of what went wrong, or "" when it behaved.
std::string run_row(const Row& r, Ctx& c) {
  // Rows are independent: a row that wrongly dropped the witness's ghosts must not hide the
  // same fault in the next one.
  int64_t ng = 0;
  REQUIRE(pvec_vector_get_ghost_size(c.witness.get(), &ng) == PVEC_SUCCESS);
  if (ng == 0) PVEC_REQUIRE_OK(pvec_ghost_get(c.witness.get(), nullptr, 0, 0));
  const World before = world(c);
  // world() ended with successful calls, so the last error is "": a status or pointer row
  // must leave a message of its own. Pure rows get a known error that they must not touch.
  int64_t dummy = 0;
  if (r.kind == Kind::pure) pvec_vector_get_size(nullptr, &dummy);
  const std::string before_err = pvec_last_error();
  REQUIRE((r.kind == Kind::pure) != before_err.empty());
  std::string problem;
  switch (r.kind) {
    case Kind::status: {
      const pvec_status s = r.call(c);
      const std::string msg = pvec_last_error();
      if (s != r.want)
        problem = std::string("status ") + std::to_string(s) + " (" + pvec_status_string(s) +
                  "), want " + std::to_string(r.want) + " (" + pvec_status_string(r.want) +
                  "); message: " + msg;
      else if (msg.empty())
        problem = "no message in pvec_last_error";
      else if (msg.find('\n') != std::string::npos)
        problem = "message is not one line: " + msg;
      else if (msg.rfind(r.fn, 0) != 0)
        problem = "message does not name the function: " + msg;
      break;
    }
    case Kind::pointer: {
      void* p = r.ptr(c);
      const std::string msg = pvec_last_error();
      if (p != nullptr)
        problem = "returned a pointer";
      else if (msg.empty())
        problem = "no message in pvec_last_error";
      break;
    }
    case Kind::pure: {
      const bool ok = r.check();
      if (!ok) problem = "result check failed";
      if (std::string(pvec_last_error()) != before_err)
        problem += " changed pvec_last_error (pure functions leave it alone)";
      break;
    }
  }
  const World after = world(c);
  if (!(after == before))
    problem += (problem.empty() ? "" : "; ") + std::string("state changed: before ") +
               describe(before) + " after " + describe(after);
  return problem;
}

}  // namespace

TEST_CASE("bad input matrix: every exported function, every kind of bad argument",
          "[hardening][matrix]") {
  Ctx c;
  make_ctx(c);
  const std::vector<Row> rows = build_rows(c);
  std::map<std::string, int> per_fn;
  int failures = 0;
  std::string report;
  for (const Row& r : rows) {
    per_fn[r.fn] += 1;
    const std::string problem = run_row(r, c);
    if (!problem.empty()) {
      ++failures;
      report += "\n  " + r.fn + " [" + r.what + "]: " + problem;
      std::printf("FAILED ROW %s [%s]: %s\n", r.fn.c_str(), r.what.c_str(), problem.c_str());
    }
  }
  std::printf("bad input matrix: %zu rows over %zu functions, %d failed\n", rows.size(),
              per_fn.size(), failures);
  INFO("rows that did not behave as documented:" << report);
  CHECK(failures == 0);
  pvec_schema_destroy(c.schema);
}

TEST_CASE("every exported function is in the bad input matrix", "[hardening][complete]") {
  const std::set<std::string> exported = exported_functions();
  const std::set<std::string> declared = declared_functions();
  INFO("exported " << exported.size() << ", declared " << declared.size());
  REQUIRE(exported.size() >= 50);
  // The header is the contract: exactly its functions are exported.
  for (const auto& n : declared) {
    INFO("declared in pvec.h but not exported: " << n);
    CHECK(exported.count(n) == 1);
  }
  for (const auto& n : exported) {
    INFO("exported but not declared with PVEC_API in pvec.h: " << n);
    CHECK(declared.count(n) == 1);
  }
  Ctx c;
  make_ctx(c);
  std::set<std::string> covered;
  for (const Row& r : build_rows(c)) covered.insert(r.fn);
  for (const std::string& n : hardening::state_row_functions()) covered.insert(n);
  for (const auto& n : exported) {
    INFO("exported function without a row in the bad input matrix: " << n);
    CHECK(covered.count(n) == 1);
  }
  for (const auto& n : covered) {
    INFO("matrix row for a function that is not exported: " << n);
    CHECK(exported.count(n) == 1);
  }
  pvec_schema_destroy(c.schema);
}
