// The C ABI: each function checks its arguments, calls the layer below, and turns any
// exception into a status and a per-thread message. No logic lives here.
#include <pvec.h>

#include "capi/handle_table.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/schema.hpp"
#include "backend/device.hpp"
#include "dist/dist_vector.hpp"
#include "dist/environment.hpp"
#include "memory/allocator.hpp"

#include <atomic>
#include <cstring>
#include <new>
#include <string>

using namespace pvec::detail;

namespace pvec::detail {
uint64_t next_handle_id() {
  static std::atomic<uint64_t> next{0x1000};
  return next.fetch_add(1);
}
}  // namespace pvec::detail

namespace {

thread_local std::string t_last_error;

HandleTable<Schema>& schemas() {
  static HandleTable<Schema> table("schema");
  return table;
}
HandleTable<DistVector>& vectors() {
  static HandleTable<DistVector> table("vector");
  return table;
}

template <class F>
pvec_status guard(const char* fn, F&& body) {
  t_last_error.clear();
  try {
    body();
    return PVEC_SUCCESS;
  } catch (const Error& e) {
    t_last_error = std::string(fn) + ": " + e.what();
    return e.status();
  } catch (const std::bad_alloc&) {
    t_last_error = std::string(fn) + ": out of host memory";
    return PVEC_ERROR_OUT_OF_MEMORY;
  } catch (const std::exception& e) {
    t_last_error = std::string(fn) + ": internal error: " + e.what();
    return PVEC_ERROR_INTERNAL;
  } catch (...) {
    t_last_error = std::string(fn) + ": internal error: unknown exception";
    return PVEC_ERROR_INTERNAL;
  }
}

// An enum argument from C may hold any int: read its bits as an int before validating, never
// as the C++ enum (whose out-of-range values are undefined behaviour).
// Taken by reference: copying the parameter would already be a typed load.
template <class E>
int enum_value(const E& e) {
  static_assert(sizeof(E) == sizeof(int), "pvec enums are int-sized");
  int v;
  std::memcpy(&v, &e, sizeof v);
  return v;
}

template <class T>
T& out_arg(T* p, const char* name) {
  if (p == nullptr) fail(PVEC_ERROR_INVALID_ARGUMENT, name, " is NULL");
  return *p;
}

void require_init() {
  if (!environment_initialized())
    fail(PVEC_ERROR_STATE, "pvec is not initialised: call pvec_init first");
}

DistVector& vec_of(pvec_vector_t v) { return vectors().get(v); }

// Getter returning a pointer: NULL on error, message set.
template <class F>
void* pointer_guard(const char* fn, F&& body) {
  void* result = nullptr;
  guard(fn, [&] { result = body(); });
  return result;
}

}  // namespace

/* ---- 1. Versions and errors ---------------------------------------------------------- */

extern "C" int pvec_version_number(void) { return PVEC_VERSION_NUMBER; }

extern "C" const char* pvec_version_string(void) {
#define PVEC_STR2(x) #x
#define PVEC_STR(x) PVEC_STR2(x)
  return PVEC_STR(PVEC_VERSION_MAJOR) "." PVEC_STR(PVEC_VERSION_MINOR) "." PVEC_STR(
      PVEC_VERSION_PATCH);
}

extern "C" const char* pvec_status_string(pvec_status status) {
  switch (enum_value(status)) {
    case PVEC_SUCCESS:
      return "success";
    case PVEC_ERROR_INVALID_ARGUMENT:
      return "invalid argument";
    case PVEC_ERROR_INVALID_HANDLE:
      return "invalid handle";
    case PVEC_ERROR_OUT_OF_RANGE:
      return "index out of range";
    case PVEC_ERROR_OVERFLOW:
      return "size overflow";
    case PVEC_ERROR_OUT_OF_MEMORY:
      return "out of memory";
    case PVEC_ERROR_NO_DEVICE:
      return "no CUDA device";
    case PVEC_ERROR_CUDA:
      return "CUDA error";
    case PVEC_ERROR_MPI:
      return "MPI error";
    case PVEC_ERROR_STATE:
      return "call not allowed in this state";
    case PVEC_ERROR_PARTICLES_OUTSIDE:
      return "particles outside the domain";
    case PVEC_ERROR_DTYPE_MISMATCH:
      return "dtype mismatch";
    case PVEC_ERROR_NOT_SUPPORTED:
      return "not supported by this build";
    case PVEC_ERROR_INTERNAL:
      return "internal error";
  }
  return "unknown status";
}

extern "C" const char* pvec_last_error(void) { return t_last_error.c_str(); }

/* ---- 2. Start and end ---------------------------------------------------------------- */

extern "C" pvec_status pvec_init(int* argc, char*** argv) {
  return guard("pvec_init", [&] { environment_init(argc, argv); });
}

extern "C" pvec_status pvec_finalize(void) {
  return guard("pvec_finalize", [&] {
    require_init();
    // Vectors hold duplicated communicators: free them while MPI is alive.
    vectors().take_all();
    schemas().take_all();
    environment_finalize();
  });
}

extern "C" pvec_status pvec_initialized(int* flag) {
  return guard("pvec_initialized",
               [&] { out_arg(flag, "flag") = environment_initialized() ? 1 : 0; });
}

extern "C" pvec_status pvec_cuda_device_count(int* count) {
  return guard("pvec_cuda_device_count", [&] { out_arg(count, "count") = device_count(); });
}

/* ---- 3. Schemas ---------------------------------------------------------------------- */

extern "C" size_t pvec_dtype_size(pvec_dtype d) { return dtype_size(enum_value(d)); }
extern "C" const char* pvec_dtype_name(pvec_dtype d) { return dtype_name(enum_value(d)); }

extern "C" pvec_status pvec_schema_create(pvec_schema_t* out) {
  return guard("pvec_schema_create", [&] {
    auto& o = out_arg(out, "out");
    o = to_handle<pvec_schema_t>(schemas().insert(std::make_unique<Schema>()));
  });
}

extern "C" pvec_status pvec_schema_destroy(pvec_schema_t schema) {
  return guard("pvec_schema_destroy", [&] { schemas().take(schema); });
}

extern "C" pvec_status pvec_schema_add(pvec_schema_t schema, const char* name, pvec_dtype dtype,
                                       int rank, const int64_t* extents, int* index) {
  return guard("pvec_schema_add", [&] {
    int k = schemas().get(schema).add(name, enum_value(dtype), rank, extents);
    if (index) *index = k;
  });
}

extern "C" pvec_status pvec_schema_add_scalar(pvec_schema_t schema, const char* name,
                                              pvec_dtype dtype, int* index) {
  return guard("pvec_schema_add_scalar", [&] {
    int k = schemas().get(schema).add(name, enum_value(dtype), 0, nullptr);
    if (index) *index = k;
  });
}

extern "C" pvec_status pvec_schema_add_vector(pvec_schema_t schema, const char* name,
                                              pvec_dtype dtype, int64_t n, int* index) {
  return guard("pvec_schema_add_vector", [&] {
    int64_t ext[1] = {n};
    int k = schemas().get(schema).add(name, enum_value(dtype), 1, ext);
    if (index) *index = k;
  });
}

extern "C" pvec_status pvec_schema_add_tensor(pvec_schema_t schema, const char* name,
                                              pvec_dtype dtype, int64_t n, int64_t m, int* index) {
  return guard("pvec_schema_add_tensor", [&] {
    int64_t ext[2] = {n, m};
    int k = schemas().get(schema).add(name, enum_value(dtype), 2, ext);
    if (index) *index = k;
  });
}

extern "C" pvec_status pvec_schema_count(pvec_schema_t schema, int* count) {
  return guard("pvec_schema_count", [&] {
    const Schema& s = schemas().get(schema);
    out_arg(count, "count") = s.count();
  });
}

/* ---- 4. Vectors ---------------------------------------------------------------------- */

extern "C" pvec_status pvec_vector_desc_init(pvec_vector_desc* desc) {
  return guard("pvec_vector_desc_init", [&] {
    pvec_vector_desc d = PVEC_VECTOR_DESC_INIT;
    out_arg(desc, "desc") = d;
  });
}

extern "C" pvec_status pvec_vector_create(const pvec_vector_desc* desc, pvec_schema_t schema,
                                          pvec_vector_t* out) {
  return guard("pvec_vector_create", [&] {
    if (desc == nullptr) fail(PVEC_ERROR_INVALID_ARGUMENT, "desc is NULL");
    out_arg(out, "out");
    const Schema& s = schemas().get(schema);
    require_init();
    auto v = std::make_unique<DistVector>(*desc, s);
    *out = to_handle<pvec_vector_t>(vectors().insert(std::move(v)));
  });
}

extern "C" pvec_status pvec_vector_destroy(pvec_vector_t vec) {
  return guard("pvec_vector_destroy", [&] { vectors().take(vec); });
}

extern "C" pvec_status pvec_size(pvec_vector_t vec, int64_t* n) {
  return guard("pvec_size", [&] {
    auto& v = vec_of(vec);
    out_arg(n, "n_local") = v.particles().n_local();
  });
}

extern "C" pvec_status pvec_ghost_size(pvec_vector_t vec, int64_t* n) {
  return guard("pvec_ghost_size", [&] {
    auto& v = vec_of(vec);
    out_arg(n, "n_ghost") = v.particles().n_ghost();
  });
}

extern "C" pvec_status pvec_capacity(pvec_vector_t vec, int64_t* c) {
  return guard("pvec_capacity", [&] {
    auto& v = vec_of(vec);
    out_arg(c, "capacity") = v.particles().capacity();
  });
}

extern "C" pvec_status pvec_dim(pvec_vector_t vec, int* dim) {
  return guard("pvec_dim", [&] {
    auto& v = vec_of(vec);
    out_arg(dim, "dim") = v.dim();
  });
}

extern "C" pvec_status pvec_pos_dtype(pvec_vector_t vec, pvec_dtype* dtype) {
  return guard("pvec_pos_dtype", [&] {
    auto& v = vec_of(vec);
    out_arg(dtype, "dtype") = v.pos_dtype();
  });
}

extern "C" pvec_status pvec_domain(pvec_vector_t vec, double* lo, double* hi) {
  return guard("pvec_domain", [&] {
    auto& v = vec_of(vec);
    if (lo == nullptr && hi == nullptr) fail(PVEC_ERROR_INVALID_ARGUMENT, "lo and hi are NULL");
    for (int d = 0; d < v.dim(); ++d) {
      if (lo) lo[d] = v.grid().lo[d];
      if (hi) hi[d] = v.grid().hi[d];
    }
  });
}

extern "C" pvec_status pvec_boundaries(pvec_vector_t vec, int* bc) {
  return guard("pvec_boundaries", [&] {
    auto& v = vec_of(vec);
    out_arg(bc, "bc");
    for (int d = 0; d < v.dim(); ++d)
      bc[d] = v.grid().periodic[d] ? PVEC_PERIODIC : PVEC_NON_PERIODIC;
  });
}

extern "C" pvec_status pvec_ghost_width(pvec_vector_t vec, double* width) {
  return guard("pvec_ghost_width", [&] {
    auto& v = vec_of(vec);
    out_arg(width, "width") = v.ghost_width();
  });
}

extern "C" pvec_status pvec_prop_count(pvec_vector_t vec, int* count) {
  return guard("pvec_prop_count", [&] {
    auto& v = vec_of(vec);
    out_arg(count, "count") = v.schema().count();
  });
}

extern "C" pvec_status pvec_prop_index(pvec_vector_t vec, const char* name, int* prop) {
  return guard("pvec_prop_index", [&] {
    auto& v = vec_of(vec);
    if (name == nullptr) fail(PVEC_ERROR_INVALID_ARGUMENT, "name is NULL");
    out_arg(prop, "prop");
    if (std::strcmp(name, "pos") == 0) {
      *prop = PVEC_POS;
      return;
    }
    int k = v.schema().find(name);
    if (k < 0) fail(PVEC_ERROR_INVALID_ARGUMENT, "no property is called \"", name, "\"");
    *prop = k;
  });
}

extern "C" pvec_status pvec_vector_backend(pvec_vector_t vec, pvec_backend* backend) {
  return guard("pvec_vector_backend", [&] {
    auto& v = vec_of(vec);
    out_arg(backend, "backend") = v.particles().cuda() ? PVEC_BACKEND_CUDA : PVEC_BACKEND_HOST;
  });
}

extern "C" pvec_status pvec_vector_device(pvec_vector_t vec, int* device) {
  return guard("pvec_vector_device", [&] {
    auto& v = vec_of(vec);
    out_arg(device, "device") = v.particles().device();
  });
}

extern "C" pvec_status pvec_generation(pvec_vector_t vec, uint64_t* generation) {
  return guard("pvec_generation", [&] {
    auto& v = vec_of(vec);
    out_arg(generation, "generation") = v.particles().generation();
  });
}

extern "C" pvec_status pvec_reserve(pvec_vector_t vec, int64_t n) {
  return guard("pvec_reserve", [&] {
    auto& v = vec_of(vec);
    v.particles().reserve(n);
    v.forget_ghost_plan();
  });
}

extern "C" pvec_status pvec_resize(pvec_vector_t vec, int64_t n) {
  return guard("pvec_resize", [&] {
    auto& v = vec_of(vec);
    v.particles().resize(n);
    v.forget_ghost_plan();
  });
}

extern "C" pvec_status pvec_append(pvec_vector_t vec, int64_t k, int64_t* first) {
  return guard("pvec_append", [&] {
    auto& v = vec_of(vec);
    int64_t f = v.particles().append(k);
    v.forget_ghost_plan();
    if (first) *first = f;
  });
}

extern "C" pvec_status pvec_remove(pvec_vector_t vec, const int64_t* indices, int64_t count) {
  return guard("pvec_remove", [&] {
    auto& v = vec_of(vec);
    v.particles().remove(indices, count);
    v.forget_ghost_plan();
  });
}

extern "C" pvec_status pvec_shrink_to_fit(pvec_vector_t vec) {
  return guard("pvec_shrink_to_fit", [&] {
    auto& v = vec_of(vec);
    v.particles().shrink_to_fit();
    v.forget_ghost_plan();
  });
}

/* ---- 5. Layout and pointers ---------------------------------------------------------- */

extern "C" pvec_status pvec_layout_get(pvec_vector_t vec, int prop, pvec_layout* out) {
  return guard("pvec_layout_get", [&] {
    auto& v = vec_of(vec);
    if (out == nullptr) fail(PVEC_ERROR_INVALID_ARGUMENT, "out is NULL");
    if (out->struct_size < sizeof(pvec_layout))
      fail(PVEC_ERROR_INVALID_ARGUMENT, "out->struct_size is ", out->struct_size,
           "; set it to sizeof(pvec_layout)");
    int col = v.column_of(prop);
    ParticleSet& ps = v.particles();
    ps.flush_device();
    const PropertyBuffer& b = ps.column(col);
    pvec_layout l = PVEC_LAYOUT_INIT;
    l.struct_size = out->struct_size;
    l.prop = prop;
    l.name = b.spec.name.c_str();
    l.dtype = b.spec.dtype;
    l.elem_size = b.spec.elem_size;
    l.rank = b.spec.rank;
    for (int k = 0; k < PVEC_MAX_RANK; ++k) l.extents[k] = b.spec.extents[k];
    l.ncomp = b.spec.ncomp;
    l.capacity = ps.capacity();
    l.stride_elems = ps.capacity();
    l.stride_bytes = ps.capacity() * static_cast<int64_t>(b.spec.elem_size);
    l.n_local = ps.n_local();
    l.n_ghost = ps.n_ghost();
    l.generation = ps.generation();
    l.host_ptr = b.host;
    l.device_ptr = b.dev;
    *out = l;
  });
}

extern "C" void* pvec_host_ptr(pvec_vector_t vec, int prop) {
  return pointer_guard("pvec_host_ptr", [&]() -> void* {
    auto& v = vec_of(vec);
    return v.particles().column(v.column_of(prop)).host;
  });
}

extern "C" void* pvec_device_ptr(pvec_vector_t vec, int prop) {
  return pointer_guard("pvec_device_ptr", [&]() -> void* {
    auto& v = vec_of(vec);
    int col = v.column_of(prop);
    v.particles().flush_device();
    return v.particles().column(col).dev;
  });
}

/* ---- 6. Transfers -------------------------------------------------------------------- */

extern "C" pvec_status pvec_set_stream(pvec_vector_t vec, pvec_stream_t stream) {
  return guard("pvec_set_stream", [&] {
    auto& v = vec_of(vec);
    v.particles().sync_stream();
    v.particles().set_stream(stream);
  });
}

extern "C" pvec_status pvec_get_stream(pvec_vector_t vec, pvec_stream_t* stream) {
  return guard("pvec_get_stream", [&] {
    auto& v = vec_of(vec);
    out_arg(stream, "stream") = static_cast<pvec_stream_t>(v.particles().stream());
  });
}

namespace {
pvec_status transfer(const char* fn, pvec_vector_t vec, const int* props, int nprops,
                     bool to_device, bool async, void* stream) {
  return guard(fn, [&] {
    auto& v = vec_of(vec);
    std::vector<int> cols = v.columns_of(props, nprops, true);
    ParticleSet& ps = v.particles();
    ps.transfer(to_device, cols, async ? stream : ps.stream(), !async);
  });
}
}  // namespace

extern "C" pvec_status pvec_host_to_device(pvec_vector_t vec, const int* props, int nprops) {
  return transfer("pvec_host_to_device", vec, props, nprops, true, false, nullptr);
}
extern "C" pvec_status pvec_device_to_host(pvec_vector_t vec, const int* props, int nprops) {
  return transfer("pvec_device_to_host", vec, props, nprops, false, false, nullptr);
}
extern "C" pvec_status pvec_host_to_device_async(pvec_vector_t vec, const int* props, int nprops,
                                                 pvec_stream_t stream) {
  return transfer("pvec_host_to_device_async", vec, props, nprops, true, true, stream);
}
extern "C" pvec_status pvec_device_to_host_async(pvec_vector_t vec, const int* props, int nprops,
                                                 pvec_stream_t stream) {
  return transfer("pvec_device_to_host_async", vec, props, nprops, false, true, stream);
}

extern "C" pvec_status pvec_synchronize(pvec_vector_t vec) {
  return guard("pvec_synchronize", [&] { vec_of(vec).particles().sync_stream(); });
}

/* ---- 7. Distribution ----------------------------------------------------------------- */

extern "C" pvec_status pvec_comm_rank(pvec_vector_t vec, int* rank) {
  return guard("pvec_comm_rank", [&] {
    auto& v = vec_of(vec);
    out_arg(rank, "rank") = v.comm().rank();
  });
}

extern "C" pvec_status pvec_comm_size(pvec_vector_t vec, int* size) {
  return guard("pvec_comm_size", [&] {
    auto& v = vec_of(vec);
    out_arg(size, "size") = v.comm().size();
  });
}

extern "C" pvec_status pvec_subdomain(pvec_vector_t vec, double* lo, double* hi) {
  return guard("pvec_subdomain", [&] {
    auto& v = vec_of(vec);
    if (lo == nullptr && hi == nullptr) fail(PVEC_ERROR_INVALID_ARGUMENT, "lo and hi are NULL");
    v.subdomain(v.comm().rank(), lo, hi);
  });
}

extern "C" pvec_status pvec_owner_rank(pvec_vector_t vec, const double* x, int* rank) {
  return guard("pvec_owner_rank", [&] {
    auto& v = vec_of(vec);
    if (x == nullptr) fail(PVEC_ERROR_INVALID_ARGUMENT, "x is NULL");
    out_arg(rank, "rank") = v.owner_rank(x);
  });
}

namespace {
void check_flags(unsigned flags, unsigned allowed) {
  if (flags & ~allowed)
    fail(PVEC_ERROR_INVALID_ARGUMENT, "flags 0x", std::hex, flags & ~allowed,
         " are not valid here");
}
}  // namespace

extern "C" pvec_status pvec_map(pvec_vector_t vec, unsigned flags, int64_t* n_removed) {
  return guard("pvec_map", [&] {
    auto& v = vec_of(vec);
    check_flags(flags, PVEC_ON_DEVICE | PVEC_MAP_REMOVE_OUTSIDE);
    int64_t removed = v.map(flags);
    if (n_removed) *n_removed = removed;
  });
}

extern "C" pvec_status pvec_ghost_get(pvec_vector_t vec, const int* props, int nprops,
                                      unsigned flags) {
  return guard("pvec_ghost_get", [&] {
    auto& v = vec_of(vec);
    check_flags(flags, PVEC_ON_DEVICE | PVEC_GHOST_REUSE_PLAN | PVEC_GHOST_SKIP_POSITIONS);
    v.ghost_get(props, nprops, flags);
  });
}

extern "C" pvec_status pvec_ghost_put(pvec_vector_t vec, const int* props, int nprops,
                                      pvec_reduce_op op, unsigned flags) {
  return guard("pvec_ghost_put", [&] {
    auto& v = vec_of(vec);
    check_flags(flags, PVEC_ON_DEVICE);
    const int op_value = enum_value(op);
    if (op_value < PVEC_REDUCE_ADD || op_value > PVEC_REDUCE_REPLACE)
      fail(PVEC_ERROR_INVALID_ARGUMENT, "unknown reduction ", op_value);
    v.ghost_put(props, nprops, op, flags);
  });
}

/* ---- 8. Diagnostics ------------------------------------------------------------------ */

extern "C" pvec_status pvec_memory_stats_get(pvec_memory_stats* out) {
  return guard("pvec_memory_stats_get", [&] {
    if (out == nullptr) fail(PVEC_ERROR_INVALID_ARGUMENT, "out is NULL");
    if (out->struct_size < sizeof(pvec_memory_stats))
      fail(PVEC_ERROR_INVALID_ARGUMENT, "out->struct_size is ", out->struct_size,
           "; set it to sizeof(pvec_memory_stats)");
    memory_stats(out);
  });
}

extern "C" pvec_status pvec_last_op_stats(pvec_vector_t vec, pvec_op_stats* out) {
  return guard("pvec_last_op_stats", [&] {
    auto& v = vec_of(vec);
    if (out == nullptr) fail(PVEC_ERROR_INVALID_ARGUMENT, "out is NULL");
    static_assert(PVEC_OP_STATS_SIZE_V1 == offsetof(pvec_op_stats, particles_self),
                  "PVEC_OP_STATS_SIZE_V1 is the first layout");
    static_assert(PVEC_OP_STATS_SIZE_V2 == offsetof(pvec_op_stats, transport),
                  "PVEC_OP_STATS_SIZE_V2 is the second layout");
    if (out->struct_size < PVEC_OP_STATS_SIZE_V1)
      fail(PVEC_ERROR_INVALID_ARGUMENT, "out->struct_size is ", out->struct_size,
           "; set it to sizeof(pvec_op_stats)");
    const auto& s = v.last_stats();
    out->compute_seconds = s.compute_seconds;
    out->exchange_seconds = s.exchange_seconds;
    out->bytes_sent = s.bytes_sent;
    out->bytes_received = s.bytes_received;
    out->particles_sent = s.particles_sent;
    out->particles_received = s.particles_received;
    if (out->struct_size >= PVEC_OP_STATS_SIZE_V2) out->particles_self = s.particles_self;
    if (out->struct_size >= sizeof(pvec_op_stats)) out->transport = s.transport;
  });
}
