// Longer than 500 lines because it is the whole C++ layer, one header that users include.
// pvec.hpp -- header-only C++17 layer over the C interface of pvec.h.
//
// Everything here calls pvec.h functions and nothing else, so the C ABI stays the one thing
// that ships; this header adds ownership (RAII, move-only handles), exceptions and typed
// views. It compiles with any C++17 compiler and with nvcc.
//
//   pvec::runtime       pvec_init / pvec_finalize for the lifetime of an object
//   pvec::schema        the properties a particle carries (owns a pvec_schema_t)
//   pvec::vector_desc   builder for pvec_vector_desc
//   pvec::vector        a particle vector (owns a pvec_vector_t)
//   pvec::view<T>       by-value view of one property, for host code and CUDA kernels
//                       (pvec_view.hpp)
//   pvec::cell_list     a cell list, pvec::verlet_list a Verlet list: #include
//                       <pvec_neighbors.hpp>; their kernel views pvec::cell_list_view /
//                       pvec::verlet_view are in pvec_neighbors_view.hpp
//
// Errors: every function that calls pvec throws pvec::error (a std::runtime_error) carrying
// the pvec_status and the pvec_last_error() text when the call fails; the object is then
// unchanged, as the C call guarantees. Destructors never throw.
//
// The generation rule (pvec.h, "Pointer lifetime"): a raw pointer, pvec_layout or pvec::view
// obtained from a vector stays valid until the next call on that vector that may reallocate
// or reorder: reserve, resize, append, remove, shrink_to_fit, map, ghost_get, ghost_get_begin,
// sort and destruction (reset, move-assignment onto it, the destructor). Each of those that does
// reallocate or reorder increments vector::generation(); vector::is_current /
// vector::check_view compare a view's generation with it. Transfers, queries, ghost_get_end and
// ghost_put (and its begin and end) invalidate nothing.
//
// Example:
//
//   pvec::runtime rt(argc, argv);
//   pvec::schema s;
//   int vel = s.add_vector<float>("vel", 3);
//   pvec::vector v(pvec::vector_desc().domain({0, 0, 0}, {1, 1, 1}).particles(1000), s);
//   auto hv = v.host_view<float>(vel);
//   for (std::int64_t i = 0; i < v.size(); ++i) hv(i, 0) = 1.0f;
//   v.host_to_device({vel});
//   my_kernel<<<blocks, threads>>>(v.device_view<float>(vel), v.size());
#ifndef PVEC_HPP
#define PVEC_HPP

#include <pvec.h>

#include "pvec_spawn.hpp"
#include "pvec_view.hpp"

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace pvec {

// ======================================================================================
// Errors
// ======================================================================================

/// Exception thrown by every pvec.hpp function whose underlying pvec call fails, and by the
/// C++-side checks (dtype of a typed view, argument lists). what() reads
/// "pvec: <pvec_last_error text> [<pvec_status_string>]".
class error : public std::runtime_error {
 public:
  /// An error with the given status and full message.
  error(pvec_status status, const std::string& message)
      : std::runtime_error(message), status_(status) {}
  /// The pvec_status of the failed call (never PVEC_SUCCESS).
  pvec_status status() const noexcept { return status_; }

 private:
  pvec_status status_;
};

namespace detail {

inline std::string format_error(pvec_status status, const std::string& text) {
  const std::string name = pvec_status_string(status);
  return text.empty() ? "pvec: " + name : "pvec: " + text + " [" + name + "]";
}

[[noreturn]] inline void fail(pvec_status status, const std::string& text) {
  throw error(status, format_error(status, text));
}

}  // namespace detail

/// Does nothing when status is PVEC_SUCCESS; otherwise throws pvec::error with status and the
/// current pvec_last_error() text. Call it directly after the pvec.h call that returned
/// status: every pvec call clears the last-error text on entry.
inline void check(pvec_status status) {
  if (status == PVEC_SUCCESS) return;
  const std::string text = pvec_last_error();  // copy before anything else can clear it
  detail::fail(status, text);
}

namespace detail {
/// check() for a C call made on behalf of the C++ function `caller`: the message names the
/// function the user called first, then the C detail ("pvec::vector::host_view:
/// pvec_vector_get_layout: property 7 out of range ...").
inline void check_in(const char* caller, pvec_status status) {
  if (status == PVEC_SUCCESS) return;
  const std::string text = pvec_last_error();
  fail(status, std::string(caller) + ": " + text);
}
}  // namespace detail

// ======================================================================================
// Element types
// ======================================================================================

namespace detail {

template <class T>
constexpr pvec_dtype integer_dtype() {
  return sizeof(T) == 4   ? (std::is_signed<T>::value ? PVEC_INT32 : PVEC_UINT32)
         : sizeof(T) == 8 ? (std::is_signed<T>::value ? PVEC_INT64 : PVEC_UINT64)
                          : pvec_dtype(0);
}

// pvec_dtype(0) marks a type that is not a pvec element type.
template <class T>
struct dtype_traits {
  static constexpr pvec_dtype value = pvec_dtype(0);
};
template <>
struct dtype_traits<float> {
  static constexpr pvec_dtype value = PVEC_FLOAT32;
};
template <>
struct dtype_traits<double> {
  static constexpr pvec_dtype value = PVEC_FLOAT64;
};
// The standard integer types by size and signedness, so that both long and long long map to
// the 8-byte dtypes whatever std::int64_t is an alias of.
#define PVEC_DETAIL_INTEGER_DTYPE(T)                        \
  template <>                                               \
  struct dtype_traits<T> {                                  \
    static constexpr pvec_dtype value = integer_dtype<T>(); \
  };
PVEC_DETAIL_INTEGER_DTYPE(int)
PVEC_DETAIL_INTEGER_DTYPE(unsigned)
PVEC_DETAIL_INTEGER_DTYPE(long)
PVEC_DETAIL_INTEGER_DTYPE(unsigned long)
PVEC_DETAIL_INTEGER_DTYPE(long long)
PVEC_DETAIL_INTEGER_DTYPE(unsigned long long)
#undef PVEC_DETAIL_INTEGER_DTYPE

}  // namespace detail

/// The pvec_dtype of element type T (cv-qualifiers ignored): float -> PVEC_FLOAT32, double ->
/// PVEC_FLOAT64, 4- and 8-byte signed/unsigned integers -> PVEC_(U)INT32/64. Any other T is a
/// compile-time error.
template <class T>
constexpr pvec_dtype dtype_of() {
  constexpr pvec_dtype d = detail::dtype_traits<std::remove_cv_t<T>>::value;
  static_assert(d != pvec_dtype(0),
                "pvec: T is not an element type (float, double, 4- or 8-byte integer)");
  return d;
}

/// Name of a dtype ("float32"; "unknown" for an invalid value). Never throws.
inline std::string dtype_name(pvec_dtype dtype) { return pvec_dtype_name(dtype); }

/// Size in bytes of one element of dtype (0 for an invalid value). Never throws.
inline std::size_t dtype_size(pvec_dtype dtype) { return pvec_dtype_size(dtype); }

// ======================================================================================
// Library-wide functions
// ======================================================================================

/// Version of the loaded library, "MAJOR.MINOR.PATCH" (compare with PVEC_VERSION_NUMBER).
inline std::string version_string() { return pvec_version_string(); }

/// Whether pvec is between pvec_init and pvec_finalize. Throws pvec::error on failure.
inline bool initialized() {
  int flag = 0;
  check(pvec_initialized(&flag));
  return flag != 0;
}

/// Number of CUDA devices this process can use (0 without CUDA). Throws pvec::error.
inline int cuda_device_count() {
  int n = 0;
  check(pvec_cuda_device_count(&n));
  return n;
}

/// Process-wide accounting of pvec's live allocations (pvec_memory_get_stats).
/// Throws pvec::error.
inline pvec_memory_stats memory_stats() {
  pvec_memory_stats s{};
  s.struct_size = sizeof s;
  check(pvec_memory_get_stats(&s));
  return s;
}

/// Starts pvec on construction and ends it on destruction, like a scoped pvec_init /
/// pvec_finalize pair. Only the runtime that actually started pvec finalises it, so a
/// runtime created while pvec is already running (e.g. inside a library) is harmless.
/// Neither copyable nor movable: create one in main() and let it outlive every
/// pvec::vector (pvec_finalize destroys vectors still alive; their destructors then do
/// nothing harmful).
class runtime {
 public:
  /// pvec_init(NULL, NULL). Throws pvec::error (PVEC_ERROR_MPI; PVEC_ERROR_STATE after
  /// pvec_finalize). Collective over MPI_COMM_WORLD when it initialises MPI.
  runtime() : runtime(nullptr, nullptr) {}
  /// pvec_init(&argc, &argv): MPI may remove its own arguments. Throws as runtime().
  runtime(int& argc, char**& argv) : runtime(&argc, &argv) {}
  /// pvec_finalize() if this object started pvec (collective); errors are ignored.
  ~runtime() {
    if (owns_) pvec_finalize();
  }
  runtime(const runtime&) = delete;
  runtime& operator=(const runtime&) = delete;

  /// True when this object started pvec and will finalise it.
  bool owns() const noexcept { return owns_; }

 private:
  runtime(int* argc, char*** argv) : owns_(!initialized()) { check(pvec_init(argc, argv)); }
  bool owns_;
};

// ======================================================================================
// Schema
// ======================================================================================

/// The list of properties a particle carries; owns a pvec_schema_t. Move-only. A vector
/// copies the schema at creation, so a schema may be destroyed or reused afterwards.
/// Property indices are given in declaration order (0, 1, ...) by the add functions.
class schema {
 public:
  /// An empty schema (pvec_schema_create). Throws pvec::error (OUT_OF_MEMORY).
  schema() { check(pvec_schema_create(&handle_)); }
  /// Takes ownership of a handle made elsewhere (pvec_schema_create, or the schema
  /// pvec_checkpoint_describe returns); it is destroyed with this object.
  static schema adopt(pvec_schema_t handle) noexcept {
    schema s(nullptr);
    s.handle_ = handle;
    return s;
  }
  /// Destroys the handle; vectors made from the schema are unaffected.
  ~schema() { reset(); }
  /// Takes the handle of other, which becomes empty (get() == nullptr).
  schema(schema&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  /// Destroys this schema's handle and takes other's.
  schema& operator=(schema&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }
  schema(const schema&) = delete;
  schema& operator=(const schema&) = delete;

 private:
  explicit schema(std::nullptr_t) noexcept {}

 public:
  /// Adds a property of the given rank (0 scalar, 1 vector, 2 tensor) and extents
  /// (pvec_schema_add) and returns its index. Throws pvec::error: INVALID_ARGUMENT (empty,
  /// too long, duplicate or reserved name "pos", bad dtype, rank, extent), OVERFLOW,
  /// INVALID_HANDLE (moved-from schema). The schema is unchanged on error.
  int add(const std::string& name, pvec_dtype dtype, int rank, const std::int64_t* extents) {
    int index = -1;
    check(pvec_schema_add(handle_, name.c_str(), dtype, rank, extents, &index));
    return index;
  }
  /// Adds a scalar property of dtype; returns its index. Throws as add().
  int add_scalar(const std::string& name, pvec_dtype dtype) {
    int index = -1;
    check(pvec_schema_add_scalar(handle_, name.c_str(), dtype, &index));
    return index;
  }
  /// Adds a scalar property of element type T, e.g. s.add_scalar<double>("mass").
  template <class T>
  int add_scalar(const std::string& name) {
    return add_scalar(name, dtype_of<T>());
  }
  /// Adds a vector[n] property of dtype; returns its index. Throws as add().
  int add_vector(const std::string& name, pvec_dtype dtype, std::int64_t n) {
    int index = -1;
    check(pvec_schema_add_vector(handle_, name.c_str(), dtype, n, &index));
    return index;
  }
  /// Adds a vector[n] property of element type T, e.g. s.add_vector<float>("v", 2).
  template <class T>
  int add_vector(const std::string& name, std::int64_t n) {
    return add_vector(name, dtype_of<T>(), n);
  }
  /// Adds a tensor[n][m] property of dtype; returns its index. Throws as add().
  int add_tensor(const std::string& name, pvec_dtype dtype, std::int64_t n, std::int64_t m) {
    int index = -1;
    check(pvec_schema_add_tensor(handle_, name.c_str(), dtype, n, m, &index));
    return index;
  }
  /// Adds a tensor[n][m] property of element type T, e.g. s.add_tensor<float>("t", 2, 2).
  template <class T>
  int add_tensor(const std::string& name, std::int64_t n, std::int64_t m) {
    return add_tensor(name, dtype_of<T>(), n, m);
  }
  /// Number of properties declared so far. Throws pvec::error (INVALID_HANDLE).
  int count() const {
    int n = 0;
    check(pvec_schema_get_count(handle_, &n));
    return n;
  }
  /// One declared property: name, dtype, rank (0 scalar, 1 vector, 2 tensor), extents
  /// (unused ones are 1).
  struct property_info {
    std::string name;
    pvec_dtype dtype;
    int rank;
    std::int64_t extents[PVEC_MAX_RANK];
  };
  /// Property index (0 <= index < count()). Throws pvec::error (OUT_OF_RANGE,
  /// INVALID_HANDLE).
  property_info property(int index) const {
    char name[PVEC_MAX_NAME + 1];
    property_info p{};
    check(
        pvec_schema_get_property(handle_, index, name, sizeof name, &p.dtype, &p.rank, p.extents));
    p.name = name;
    return p;
  }

  /// The C handle (nullptr when moved from); it stays owned by this object.
  pvec_schema_t get() const noexcept { return handle_; }
  /// Gives up ownership: returns the handle, which the caller must pvec_schema_destroy.
  pvec_schema_t release() noexcept { return std::exchange(handle_, nullptr); }
  /// Destroys the handle now (if any); the object becomes empty.
  void reset() noexcept {
    if (handle_ != nullptr) pvec_schema_destroy(handle_);
    handle_ = nullptr;
  }
  /// True while the object holds a handle.
  explicit operator bool() const noexcept { return handle_ != nullptr; }

 private:
  pvec_schema_t handle_ = nullptr;
};

// ======================================================================================
// Vector description
// ======================================================================================

/// Builder for pvec_vector_desc; starts from PVEC_VECTOR_DESC_INIT (3D double positions in
/// [0,1]^3, non-periodic, no ghosts, no particles, backend AUTO, pinned host memory, world
/// communicator). Setters return *this for chaining; values are checked by pvec_vector_create
/// (i.e. by the pvec::vector constructor), except the list lengths checked here.
class vector_desc {
 public:
  /// Space dimension, 1..PVEC_MAX_DIM.
  vector_desc& dim(int d) {
    desc_.dim = d;
    return *this;
  }
  /// Position dtype, PVEC_FLOAT32 or PVEC_FLOAT64.
  vector_desc& pos_dtype(pvec_dtype dtype) {
    desc_.pos_dtype = dtype;
    return *this;
  }
  /// Position element type T (float or double).
  template <class T>
  vector_desc& pos_type() {
    return pos_dtype(dtype_of<T>());
  }
  /// Domain box [lo, hi); also sets dim to the number of values. Throws pvec::error
  /// (INVALID_ARGUMENT) when lo and hi differ in length or hold more than PVEC_MAX_DIM.
  vector_desc& domain(std::initializer_list<double> lo, std::initializer_list<double> hi) {
    if (lo.size() != hi.size() || lo.size() > PVEC_MAX_DIM)
      detail::fail(PVEC_ERROR_INVALID_ARGUMENT,
                   "pvec::vector_desc::domain: lo and hi need the same length, at most " +
                       std::to_string(PVEC_MAX_DIM));
    std::size_t d = 0;
    for (auto a = lo.begin(), b = hi.begin(); a != lo.end(); ++a, ++b, ++d) {
      desc_.domain_lo[d] = *a;
      desc_.domain_hi[d] = *b;
    }
    desc_.dim = static_cast<int>(lo.size());
    return *this;
  }
  /// Boundary condition per dimension, in order. Throws pvec::error (INVALID_ARGUMENT) for
  /// more than PVEC_MAX_DIM values.
  vector_desc& boundaries(std::initializer_list<pvec_boundary> bc) {
    if (bc.size() > PVEC_MAX_DIM)
      detail::fail(PVEC_ERROR_INVALID_ARGUMENT,
                   "pvec::vector_desc::boundaries: more than PVEC_MAX_DIM values");
    int d = 0;
    for (pvec_boundary b : bc) desc_.boundary[d++] = b;
    return *this;
  }
  /// Periodic boundaries in every dimension.
  vector_desc& periodic() {
    for (int& b : desc_.boundary) b = PVEC_PERIODIC;
    return *this;
  }
  /// Halo width for ghost_get, >= 0.
  vector_desc& ghost_width(double width) {
    desc_.ghost_width = width;
    return *this;
  }
  /// Initial zero-initialised particles: n in total split over the ranks (PVEC_PLACE_EVEN),
  /// or n on this rank (PVEC_PLACE_LOCAL).
  vector_desc& particles(std::int64_t n, pvec_placement placement = PVEC_PLACE_EVEN) {
    desc_.n_particles = n;
    desc_.placement = placement;
    return *this;
  }
  /// Where the device mirror lives: AUTO, HOST or CUDA.
  vector_desc& backend(pvec_backend b) {
    desc_.backend = b;
    return *this;
  }
  /// Host mirror memory with the CUDA backend: PVEC_HOST_PINNED or PVEC_HOST_PAGEABLE.
  vector_desc& host_memory(pvec_host_memory m) {
    desc_.host_memory = m;
    return *this;
  }
  /// Communicator given by its Fortran handle (MPI_Comm_c2f, mpi4py's py2f()).
  vector_desc& comm_f(std::int64_t handle) {
    desc_.has_comm = 1;
    desc_.comm_f = handle;
    return *this;
  }
#if defined(MPI_VERSION) && !defined(PVEC_NO_MPI_HELPERS)
  /// Communicator of the vector (available when <mpi.h> is included before pvec.hpp).
  vector_desc& comm(MPI_Comm c) {
    pvec_vector_desc_set_comm(&desc_, c);
    return *this;
  }
#endif
  /// The C struct, for direct field access.
  const pvec_vector_desc& c_desc() const noexcept { return desc_; }
  /// The C struct, for direct field access.
  pvec_vector_desc& c_desc() noexcept { return desc_; }

 private:
  pvec_vector_desc desc_ = PVEC_VECTOR_DESC_INIT;
};

/// An axis-aligned box of dim() values per corner.
struct box {
  std::vector<double> lo;  ///< low corner
  std::vector<double> hi;  ///< high corner
};

// ======================================================================================
// Vector
// ======================================================================================

namespace detail {

// An explicit list of property indices, never NULL: pvec reads props == NULL as "all
// properties", so an empty C++ list must still pass a valid pointer to mean "none".
inline const int* props_ptr(const int* props, std::size_t n) {
  static const int none = 0;
  return n == 0 ? &none : props;
}

inline int props_count(std::size_t n) {
  if (n > static_cast<std::size_t>(INT32_MAX))
    fail(PVEC_ERROR_INVALID_ARGUMENT, "pvec: property list too long");
  return static_cast<int>(n);
}

}  // namespace detail

/// The caller's metadata of a checkpoint (the attributes of /metadata): strings, numbers
/// and arrays of numbers (1 to PVEC_METADATA_MAX_VALUES), each under a key unique over the
/// three lists. vector::checkpoint writes it; checkpoint_describe reads it back, in key order.
struct metadata {
  std::vector<std::pair<std::string, std::string>> strings;
  std::vector<std::pair<std::string, double>> numbers;
  std::vector<std::pair<std::string, std::vector<double>>> arrays;
};

/// A distributed particle vector; owns a pvec_vector_t. Move-only.
///
/// Every member function throws pvec::error when the underlying pvec call fails (a
/// moved-from or default-constructed vector gives PVEC_ERROR_INVALID_HANDLE) and leaves the
/// vector unchanged then. Which calls invalidate pointers and views: see the generation rule
/// at the top of this header; each function below says whether it may.
class vector {
 public:
  /// An empty object holding no vector; assign one to it later.
  vector() noexcept = default;
  /// Creates a vector (pvec_vector_create) from a builder and a schema (copied). Collective.
  /// Throws pvec::error: INVALID_ARGUMENT, INVALID_HANDLE (schema), OVERFLOW, OUT_OF_MEMORY,
  /// NO_DEVICE (backend CUDA without a device), CUDA, MPI, STATE (no pvec_init).
  vector(const vector_desc& desc, const schema& s) : vector(desc.c_desc(), s) {}
  /// As above, from the C description.
  vector(const pvec_vector_desc& desc, const schema& s) {
    check(pvec_vector_create(&desc, s.get(), &handle_));
  }
  /// Takes ownership of a handle created with pvec_vector_create.
  static vector adopt(pvec_vector_t handle) noexcept {
    vector v;
    v.handle_ = handle;
    return v;
  }
  /// Destroys the vector (pvec_vector_destroy; collective); errors are ignored.
  ~vector() { reset(); }
  /// Takes other's vector; other becomes empty. Views stay valid (same buffers).
  vector(vector&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  /// Destroys this vector (collective) and takes other's.
  vector& operator=(vector&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }
  vector(const vector&) = delete;
  vector& operator=(const vector&) = delete;

  /// The C handle (nullptr when empty); it stays owned by this object.
  pvec_vector_t get() const noexcept { return handle_; }
  /// Gives up ownership: returns the handle, which the caller must pvec_vector_destroy.
  pvec_vector_t release() noexcept { return std::exchange(handle_, nullptr); }
  /// Destroys the vector now (collective; invalidates every pointer and view of it).
  void reset() noexcept {
    if (handle_ != nullptr) pvec_vector_destroy(handle_);
    handle_ = nullptr;
  }
  /// True while the object holds a vector.
  explicit operator bool() const noexcept { return handle_ != nullptr; }

  // ---- Queries (local, cheap) ------------------------------------------------------------

  /// Number of local particles.
  std::int64_t size() const { return query<std::int64_t>(pvec_vector_get_size); }
  /// Number of ghosts, stored after the local particles (0 until ghost_get).
  std::int64_t ghost_size() const { return query<std::int64_t>(pvec_vector_get_ghost_size); }
  /// Capacity C: the component stride, in elements, of every property.
  std::int64_t capacity() const { return query<std::int64_t>(pvec_vector_get_capacity); }
  /// Space dimension.
  int dim() const { return query<int>(pvec_vector_get_dim); }
  /// Position dtype (PVEC_FLOAT32 or PVEC_FLOAT64).
  pvec_dtype pos_dtype() const { return query<pvec_dtype>(pvec_vector_get_pos_dtype); }
  /// Number of properties (positions not counted).
  int prop_count() const { return query<int>(pvec_vector_get_prop_count); }
  /// Index of the property called name (PVEC_POS for "pos"). Throws pvec::error
  /// (INVALID_ARGUMENT) when there is none.
  int prop_index(const std::string& name) const {
    int prop = 0;
    check(pvec_vector_get_prop_index(handle_, name.c_str(), &prop));
    return prop;
  }
  /// Layout of property prop (or PVEC_POS): dtype, shape, capacity, strides, sizes,
  /// generation and both pointers. Throws pvec::error (OUT_OF_RANGE). Valid until the
  /// generation changes.
  pvec_layout layout(int prop) const {
    pvec_layout l{};
    l.struct_size = sizeof l;
    check(pvec_vector_get_layout(handle_, prop, &l));
    return l;
  }
  /// Layouts of the positions and then every property (element 1 + p is property p), in one
  /// call: what a kernel refreshes after map or ghost_get. Valid until the generation changes.
  std::vector<pvec_layout> layouts() const {
    std::vector<pvec_layout> out(static_cast<std::size_t>(prop_count()) + 1);
    out[0].struct_size = sizeof(pvec_layout);
    check(pvec_vector_get_layouts(handle_, nullptr, 0, out.data(), static_cast<int>(out.size())));
    return out;
  }
  /// Backend in use: PVEC_BACKEND_HOST or PVEC_BACKEND_CUDA.
  pvec_backend backend() const { return query<pvec_backend>(pvec_vector_get_backend); }
  /// CUDA device ordinal holding the device mirror, or -1 with the host backend.
  int device() const { return query<int>(pvec_vector_get_device); }
  /// Generation counter, incremented by every reallocation or reordering.
  std::uint64_t generation() const { return query<std::uint64_t>(pvec_vector_get_generation); }
  /// Domain box given at creation.
  pvec::box domain() const { return box_query(pvec_vector_get_domain); }
  /// Subdomain owned by this rank.
  pvec::box subdomain() const { return box_query(pvec_vector_get_subdomain); }
  /// Boundary condition (pvec_boundary) per dimension.
  std::vector<int> boundaries() const {
    std::vector<int> bc(static_cast<std::size_t>(dim()));
    check(pvec_vector_get_boundaries(handle_, bc.data()));
    return bc;
  }
  /// Ghost width given at creation.
  double ghost_width() const { return query<double>(pvec_vector_get_ghost_width); }
  /// This process's rank in the vector's communicator.
  int comm_rank() const { return query<int>(pvec_vector_get_rank); }
  /// Number of ranks of the vector's communicator.
  int comm_size() const { return query<int>(pvec_vector_get_nranks); }
  /// Rank owning point x (dim() coordinates; periodic dimensions wrapped). Throws
  /// pvec::error (INVALID_ARGUMENT: outside a non-periodic boundary, not finite).
  int owner_rank(const double* x) const {
    int rank = 0;
    check(pvec_vector_get_owner_rank(handle_, x, &rank));
    return rank;
  }

  // ---- Raw pointers and views ------------------------------------------------------------

  /// Host mirror of prop (or PVEC_POS) as T*: element (i, c) at p[c*capacity() + i].
  /// Throws pvec::error: OUT_OF_RANGE, DTYPE_MISMATCH (T is not the property's type).
  /// Valid until the generation changes.
  template <class T>
  T* host_ptr(int prop) const {
    return make_view<T>(prop, false, "host_ptr").data;
  }
  /// Device mirror of prop (or PVEC_POS) as T*, for kernels; a host address with the host
  /// backend. Throws and stays valid as host_ptr.
  template <class T>
  T* device_ptr(int prop) const {
    return make_view<T>(prop, true, "device_ptr").data;
  }
  /// View of the host mirror of prop (or PVEC_POS), indexed v(i), v(i, c), v(i, a, b).
  /// Throws pvec::error: OUT_OF_RANGE, DTYPE_MISMATCH (T, const ignored, is not the
  /// property's type). Valid until the generation changes.
  template <class T>
  view<T> host_view(int prop) const {
    return make_view<T>(prop, false, "host_view");
  }
  /// View of the device mirror of prop (or PVEC_POS), to pass by value into a kernel (with
  /// the host backend it points to the second host allocation). Throws and stays valid as
  /// host_view.
  template <class T>
  view<T> device_view(int prop) const {
    return make_view<T>(prop, true, "device_view");
  }
  /// True when v was taken at the vector's current generation (its pointer is still valid).
  template <class T>
  bool is_current(const view<T>& v) const {
    return v.generation == generation();
  }
  /// Throws pvec::error (INVALID_ARGUMENT) when v is stale (is_current(v) is false): a
  /// debugging aid to call before using a view kept across calls that may reallocate.
  template <class T>
  void check_view(const view<T>& v) const {
    const std::uint64_t now = generation();
    if (v.generation != now)
      detail::fail(PVEC_ERROR_INVALID_ARGUMENT,
                   "pvec::vector::check_view: stale view of generation " +
                       std::to_string(v.generation) + ", vector is at generation " +
                       std::to_string(now));
  }

  // ---- Changing the number of particles (local; drop ghosts) -----------------------------

  /// Makes capacity() >= n; data kept. May reallocate (invalidates views when it does).
  void reserve(std::int64_t n) { check(pvec_vector_reserve(handle_, n)); }
  /// Sets size() to n; new particles are zero on both mirrors. May reallocate.
  void resize(std::int64_t n) { check(pvec_vector_resize(handle_, n)); }
  /// Appends k zero particles, growing capacity geometrically; returns the index of the
  /// first new one. May reallocate.
  std::int64_t append(std::int64_t k = 1) {
    std::int64_t first = 0;
    check(pvec_vector_append(handle_, k, &first));
    return first;
  }
  /// Removes the listed local particles (any order); the others keep their order. Reorders,
  /// so views are invalidated when the list is not empty. Throws pvec::error
  /// (INVALID_ARGUMENT for duplicates, OUT_OF_RANGE).
  void remove(const std::int64_t* indices, std::int64_t count) {
    check(pvec_vector_remove(handle_, indices, count));
  }
  /// As above, from a list.
  void remove(std::initializer_list<std::int64_t> indices) {
    remove(indices.begin(), static_cast<std::int64_t>(indices.size()));
  }
  /// As above, from a std::vector.
  void remove(const std::vector<std::int64_t>& indices) {
    remove(indices.data(), static_cast<std::int64_t>(indices.size()));
  }
  /// Reduces capacity to size() rounded up to 64 (at least 64). May reallocate.
  void shrink_to_fit() { check(pvec_vector_shrink_to_fit(handle_)); }

  // ---- Removal by mark and particles created by kernels (local; docs/population.md) --------

  /// Removes the local particles whose scalar property mark_prop is nonzero, on the host mirror
  /// (flags PVEC_ON_DEVICE: the device mirror); PVEC_REMOVE_FILL_HOLES fills the holes with the
  /// last survivors instead of keeping the order. Returns the number removed. Invalidates views.
  std::int64_t remove_marked(int mark_prop, unsigned flags = 0) {
    std::int64_t removed = 0;
    check(pvec_vector_remove_marked(handle_, mark_prop, nullptr, flags, &removed));
    return removed;
  }
  /// As above, the marks an array of size() int32 in the memory of that mirror.
  std::int64_t remove_marked(const std::int32_t* marks, unsigned flags = 0) {
    std::int64_t removed = 0;
    check(pvec_vector_remove_marked(handle_, PVEC_NO_PROPERTY, marks, flags, &removed));
    return removed;
  }
  /// pvec_vector_remove_marked_async: on the device, not waiting; the count goes to
  /// n_removed_dev (device memory, may be null); the size follows at the next call.
  void remove_marked_async(int mark_prop, unsigned flags, std::int64_t* n_removed_dev) {
    check(pvec_vector_remove_marked_async(handle_, mark_prop, nullptr, flags | PVEC_ON_DEVICE,
                                          n_removed_dev));
  }
  /// Opens a spawn of up to max_new particles on the host mirror (PVEC_ON_DEVICE: the device
  /// mirror); pass the result by value to kernels (pvec::spawn_claim). Take views after it.
  pvec_spawner spawn_begin(std::int64_t max_new, unsigned flags = 0) {
    pvec_spawner s = PVEC_SPAWNER_INIT;
    check(pvec_vector_spawn_begin(handle_, max_new, flags, &s));
    return s;
  }
  /// Closes the spawn; returns the particles added. Throws pvec::error OUT_OF_RANGE (nothing
  /// added) when the kernels asked for more than was reserved; the message says how many.
  std::int64_t spawn_commit() {
    std::int64_t added = 0;
    check(pvec_vector_spawn_commit(handle_, &added));
    return added;
  }
  /// Closes the spawn without adding anything.
  void spawn_cancel() { check(pvec_vector_spawn_cancel(handle_)); }
  /// Numbers the particles 0..N-1 into the int64/uint64 property id_prop (PVEC_IDS_KEEP: keeps
  /// them) and starts the id counter. Collective.
  void ids_init(int id_prop, unsigned flags = 0) {
    check(pvec_vector_ids_init(handle_, id_prop, flags));
  }
  /// count new unique ids: {first, stride}; the k-th is first + k * stride.
  std::pair<std::int64_t, std::int64_t> ids_take(std::int64_t count) {
    std::pair<std::int64_t, std::int64_t> out{0, 0};
    check(pvec_vector_ids_take(handle_, count, &out.first, &out.second));
    return out;
  }

  // ---- Host <-> device transfers (invalidate nothing) ------------------------------------

  /// Copies every property and the positions host -> device; blocks until done.
  void host_to_device() { check(pvec_host_to_device(handle_, nullptr, 0)); }
  /// Copies the listed properties (PVEC_POS for positions; empty list: nothing) host ->
  /// device; blocks. Throws pvec::error (OUT_OF_RANGE, INVALID_ARGUMENT for a repeat).
  void host_to_device(std::initializer_list<int> props) {
    host_to_device(props.begin(), props.size());
  }
  /// As above, from a std::vector.
  void host_to_device(const std::vector<int>& props) { host_to_device(props.data(), props.size()); }
  /// Copies every property and the positions device -> host; blocks until done.
  void device_to_host() { check(pvec_device_to_host(handle_, nullptr, 0)); }
  /// Copies the listed properties device -> host; blocks. Throws as host_to_device.
  void device_to_host(std::initializer_list<int> props) {
    device_to_host(props.begin(), props.size());
  }
  /// As above, from a std::vector.
  void device_to_host(const std::vector<int>& props) { device_to_host(props.data(), props.size()); }
  /// host_to_device of everything, ordered on stream (a cudaStream_t converts) and returning
  /// without waiting: leave the data untouched until the stream reaches the copy.
  void host_to_device_async(pvec_stream_t stream) {
    check(pvec_host_to_device_async(handle_, nullptr, 0, stream));
  }
  /// host_to_device of the listed properties, ordered on stream, not waiting.
  void host_to_device_async(std::initializer_list<int> props, pvec_stream_t stream) {
    check(pvec_host_to_device_async(handle_, detail::props_ptr(props.begin(), props.size()),
                                    detail::props_count(props.size()), stream));
  }
  /// device_to_host of everything, ordered on stream, not waiting.
  void device_to_host_async(pvec_stream_t stream) {
    check(pvec_device_to_host_async(handle_, nullptr, 0, stream));
  }
  /// device_to_host of the listed properties, ordered on stream, not waiting.
  void device_to_host_async(std::initializer_list<int> props, pvec_stream_t stream) {
    check(pvec_device_to_host_async(handle_, detail::props_ptr(props.begin(), props.size()),
                                    detail::props_count(props.size()), stream));
  }
  /// Stream on which pvec orders this vector's device work and blocking transfers (a
  /// cudaStream_t converts; nullptr is the default stream). Keep it alive while in use.
  void set_stream(pvec_stream_t stream) { check(pvec_vector_set_stream(handle_, stream)); }
  /// The stream set with set_stream (nullptr by default).
  pvec_stream_t stream() const { return query<pvec_stream_t>(pvec_vector_get_stream); }
  /// Waits until the work pvec ordered on the vector's stream is done.
  void synchronize() { check(pvec_vector_synchronize(handle_)); }

  // ---- Mirror coherence (docs/coherence.md) ----------------------------------------------

  /// Declares that the caller's code wrote the listed properties (empty list: every property
  /// and the positions) on the host mirror (flags PVEC_ON_DEVICE: the device mirror), in the
  /// row sets of flags (PVEC_ROWS_LOCAL, PVEC_ROWS_GHOST; neither: both).
  void mark_modified(std::initializer_list<int> props, unsigned flags = 0) {
    check(pvec_vector_mark_modified(handle_, props.size() ? props.begin() : nullptr,
                                    static_cast<int>(props.size()), flags));
  }
  /// Copies to the host mirror (PVEC_ON_DEVICE: the device mirror) the row sets of the listed
  /// properties (empty: all) that are older there.
  void sync(std::initializer_list<int> props, unsigned flags = 0) {
    check(pvec_vector_sync(handle_, props.size() ? props.begin() : nullptr,
                           static_cast<int>(props.size()), flags));
  }
  /// PVEC_MIRROR_* bits: which mirror holds the newest values of prop's rows.
  unsigned mirror_state(int prop) const {
    unsigned s = 0;
    check(pvec_vector_get_mirror_state(handle_, prop, &s));
    return s;
  }
  /// Copy older rows before an operation reads them, instead of throwing STALE_MIRROR.
  void set_auto_sync(bool on) { check(pvec_vector_set_auto_sync(handle_, on ? 1 : 0)); }

  // ---- Distribution (collective) ---------------------------------------------------------

  /// Sends every local particle to the rank owning its position (pvec_map); returns the
  /// global number removed (only with PVEC_MAP_REMOVE_OUTSIDE). Invalidates views. Throws
  /// pvec::error (PARTICLES_OUTSIDE with the vector untouched, MPI, CUDA, ...).
  std::int64_t map(unsigned flags = 0) {
    std::int64_t removed = 0;
    check(pvec_map(handle_, flags, &removed));
    return removed;
  }
  /// Replaces the ghosts; every property and the positions travel. Invalidates views.
  void ghost_get(unsigned flags = 0) { check(pvec_ghost_get(handle_, nullptr, 0, flags)); }
  /// Replaces the ghosts; the listed properties and the positions travel. Invalidates views.
  void ghost_get(std::initializer_list<int> props, unsigned flags = 0) {
    check(pvec_ghost_get(handle_, detail::props_ptr(props.begin(), props.size()),
                         detail::props_count(props.size()), flags));
  }
  /// Sends ghost values of every property back to their owners, combined with op.
  /// Invalidates nothing. Throws pvec::error (INVALID_ARGUMENT without a prior ghost_get).
  void ghost_put(pvec_reduce_op op = PVEC_REDUCE_ADD, unsigned flags = 0) {
    check(pvec_ghost_put(handle_, nullptr, 0, op, flags));
  }
  /// As above, for the listed properties only.
  void ghost_put(std::initializer_list<int> props, pvec_reduce_op op = PVEC_REDUCE_ADD,
                 unsigned flags = 0) {
    check(pvec_ghost_put(handle_, detail::props_ptr(props.begin(), props.size()),
                         detail::props_count(props.size()), op, flags));
  }

  // ---- Split-phase ghost exchange (collective begin, docs/overlap.md) ----------------------
  //
  // ghost_get / ghost_put in two calls, so that the caller computes while the messages travel;
  // the result is bitwise the blocking call's. Every rank calls begin, then end. While one is
  // in flight, map, ghost_get, ghost_put (and their begins), sort, append, remove, resize,
  // reserve, shrink_to_fit, remove_marked, spawn_begin, ids_init, rebalance, follow, the
  // transfers, sync and every neighbour list build throw pvec::error PVEC_ERROR_STATE and
  // change nothing; queries, reductions, mark_modified and the writers work. Other vectors are
  // independent. Destroying the vector in flight completes the exchange first.

  /// ghost_get's first half: checks, plans, packs and posts every property and the positions
  /// (may grow the vector: invalidates views, as ghost_get does). Until ghost_get_end the local
  /// rows may be read and written on either mirror (what travels was packed here); the ghost
  /// rows must not be touched, and ghost_size() still gives the previous count. Throws
  /// pvec::error as ghost_get does, and PVEC_ERROR_STATE (an exchange in flight, a spawn open).
  void ghost_get_begin(unsigned flags = 0) {
    check(pvec_ghost_get_begin(handle_, nullptr, 0, flags));
  }
  /// As above; the listed properties and the positions travel.
  void ghost_get_begin(std::initializer_list<int> props, unsigned flags = 0) {
    check(pvec_ghost_get_begin(handle_, detail::props_ptr(props.begin(), props.size()),
                               detail::props_count(props.size()), flags));
  }
  /// Completes ghost_get_begin and writes the ghost rows. Local, but every rank must call it.
  /// Throws pvec::error PVEC_ERROR_STATE (no ghost_get_begin in flight), MPI, CUDA (then the
  /// vector has no ghosts and no plan).
  void ghost_get_end() { check(pvec_ghost_get_end(handle_)); }
  /// ghost_put's first half: packs the ghost rows of every property (not the positions) and
  /// posts them. Until ghost_put_end the properties' local rows must not be read or written
  /// (they are combined at end) nor their ghost rows written; the positions are free.
  /// Invalidates nothing. Throws pvec::error as ghost_put does, and PVEC_ERROR_STATE (an
  /// exchange in flight).
  void ghost_put_begin(pvec_reduce_op op = PVEC_REDUCE_ADD, unsigned flags = 0) {
    check(pvec_ghost_put_begin(handle_, nullptr, 0, op, flags));
  }
  /// As above, for the listed properties only: until ghost_put_end their local rows must not be
  /// read or written nor their ghost rows written; every other property's rows are free.
  void ghost_put_begin(std::initializer_list<int> props, pvec_reduce_op op = PVEC_REDUCE_ADD,
                       unsigned flags = 0) {
    check(pvec_ghost_put_begin(handle_, detail::props_ptr(props.begin(), props.size()),
                               detail::props_count(props.size()), op, flags));
  }
  /// Completes ghost_put_begin and combines the values into the local rows. Local, but every
  /// rank must call it. Throws pvec::error PVEC_ERROR_STATE (no ghost_put_begin in flight),
  /// MPI, CUDA (then the listed properties' local rows are unspecified).
  void ghost_put_end() { check(pvec_ghost_put_end(handle_)); }

  // ---- Locality sort (local, not collective) ---------------------------------------------

  /// Reorders the local particles (every property and the positions, stably) by cells of
  /// width cell_width, on the host mirror (flags PVEC_ON_DEVICE: the device mirror);
  /// PVEC_SORT_MORTON orders the cells along a Z-order curve, PVEC_SORT_HALO_FIRST puts the
  /// cells within a ghost width of the subdomain's faces first (pvec.h says how; not with
  /// Morton), PVEC_SORT_BOTH_MIRRORS permutes the other mirror too (else it keeps the old
  /// order). Returns true when rows moved: then the generation changed (views and pointers are
  /// invalid), the ghost plan is forgotten and every cell and Verlet list of the vector is
  /// stale. false: already in that order, nothing invalidated. Throws pvec::error:
  /// INVALID_ARGUMENT (unknown flags, Morton with halo-first, cell_width not positive and
  /// finite, a NaN or infinite local position), NOT_SUPPORTED (dimension 4; 2^31 rows or
  /// cells), OUT_OF_MEMORY;
  /// the vector is unchanged then.
  bool sort(double cell_width, unsigned flags = 0) {
    int moved = 0;
    detail::check_in("pvec::vector::sort", pvec_vector_sort(handle_, cell_width, flags, &moved));
    return moved != 0;
  }

  /// pvec_vector_get_imbalance: {largest local count over the mean, the same of the local sums
  /// of weight_prop (a scalar float32/float64 property; PVEC_NO_WEIGHT: the counts)}; 1 is
  /// perfect balance. flags: PVEC_ON_DEVICE (read the device mirror's weights). Collective.
  /// Throws pvec::error (INVALID_ARGUMENT for a negative, NaN or infinite weight, on every rank).
  std::pair<double, double> imbalance(int weight_prop = PVEC_NO_WEIGHT, unsigned flags = 0) const {
    std::pair<double, double> out{1.0, 1.0};
    check(pvec_vector_get_imbalance(handle_, weight_prop, flags, &out.first, &out.second));
    return out;
  }

  /// pvec_vector_rebalance: when the imbalance exceeds threshold, boxes that follow the
  /// particles (weighted by weight_prop, or counted with PVEC_NO_WEIGHT) and one map to them.
  /// Returns {before, after}. flags: PVEC_ON_DEVICE. Collective. Throws pvec::error.
  std::pair<double, double> rebalance(int weight_prop = PVEC_NO_WEIGHT, double threshold = 1.0,
                                      unsigned flags = 0) {
    std::pair<double, double> out{1.0, 1.0};
    check(pvec_vector_rebalance(handle_, weight_prop, threshold, flags, &out.first, &out.second));
    return out;
  }

  /// pvec_vector_follow: take leader's boxes now and at each of its rebalances (which map this
  /// vector too). flags: PVEC_ON_DEVICE (map the device mirror). Collective. Throws
  /// pvec::error.
  void follow(const vector& leader, unsigned flags = 0) {
    check(pvec_vector_follow(handle_, leader.get(), flags));
  }
  /// pvec_vector_follow with NULL: stop following; the boxes stay. Collective.
  void unfollow() { check(pvec_vector_follow(handle_, nullptr, 0)); }

  /// pvec_vtk_write of every property: this step for ParaView (flags: PVEC_ON_DEVICE,
  /// PVEC_VTK_RANK_ARRAY). Collective. Throws pvec::error with pvec_vtk_write's status (IO,
  /// MPI on the ranks that did not fail, ...).
  void write_vtk(const std::string& prefix, std::int64_t step = 0, double time = 0.0,
                 unsigned flags = 0) const {
    check(pvec_vtk_write(handle_, prefix.c_str(), step, time, nullptr, 0, flags));
  }
  /// pvec_vtk_write of the listed properties only (an empty list: the positions only). A
  /// braced list ({rho, vel}) picks this overload, not the flags of the one above.
  void write_vtk(const std::string& prefix, std::int64_t step, double time,
                 std::initializer_list<int> props, unsigned flags = 0) const {
    write_vtk_list(prefix, step, time, props.begin(), props.size(), flags);
  }
  /// As above, from a std::vector.
  void write_vtk(const std::string& prefix, std::int64_t step, double time,
                 const std::vector<int>& props, unsigned flags = 0) const {
    write_vtk_list(prefix, step, time, props.data(), props.size(), flags);
  }
  /// pvec_checkpoint_write of every property, with the caller's metadata (keys unique over
  /// its three lists; every rank passes the same). flags: PVEC_ON_DEVICE. Collective. Throws
  /// pvec::error with its status.
  void checkpoint(const std::string& path, std::int64_t step = 0, double time = 0.0,
                  const pvec::metadata& meta = {}, unsigned flags = 0) const {
    write_checkpoint(path, step, time, nullptr, 0, meta, flags);
  }
  /// pvec_checkpoint_write of the listed properties only (an empty list: the positions only).
  void checkpoint(const std::string& path, std::int64_t step, double time,
                  std::initializer_list<int> props, const pvec::metadata& meta = {},
                  unsigned flags = 0) const {
    write_checkpoint(path, step, time, detail::props_ptr(props.begin(), props.size()),
                     detail::props_count(props.size()), meta, flags);
  }
  /// As above, from a std::vector.
  void checkpoint(const std::string& path, std::int64_t step, double time,
                  const std::vector<int>& props, const pvec::metadata& meta = {},
                  unsigned flags = 0) const {
    write_checkpoint(path, step, time, detail::props_ptr(props.data(), props.size()),
                     detail::props_count(props.size()), meta, flags);
  }

 private:
  template <class R, class F>
  R query(F f) const {
    R r{};
    check(f(handle_, &r));
    return r;
  }

  template <class F>
  pvec::box box_query(F f) const {
    const auto d = static_cast<std::size_t>(dim());
    pvec::box b{std::vector<double>(d), std::vector<double>(d)};
    check(f(handle_, b.lo.data(), b.hi.data()));
    return b;
  }

  void write_vtk_list(const std::string& prefix, std::int64_t step, double time, const int* props,
                      std::size_t n, unsigned flags) const {
    check(pvec_vtk_write(handle_, prefix.c_str(), step, time, detail::props_ptr(props, n),
                         detail::props_count(n), flags));
  }

  void write_checkpoint(const std::string& path, std::int64_t step, double time, const int* props,
                        int nprops, const pvec::metadata& meta, unsigned flags) const {
    std::vector<const char*> keys, texts;
    std::vector<double> values;
    std::vector<int> counts;
    for (const auto& s : meta.strings) {
      keys.push_back(s.first.c_str());
      texts.push_back(s.second.c_str());
      counts.push_back(0);
    }
    for (const auto& n : meta.numbers) {
      keys.push_back(n.first.c_str());
      texts.push_back(nullptr);
      values.push_back(n.second);
      counts.push_back(0);  // a number, not an array of one
    }
    for (const auto& a : meta.arrays) {
      keys.push_back(a.first.c_str());
      texts.push_back(nullptr);
      values.insert(values.end(), a.second.begin(), a.second.end());
      counts.push_back(a.second.size() > static_cast<std::size_t>(INT32_MAX)
                           ? -1
                           : static_cast<int>(a.second.size()));
    }
    check(pvec_checkpoint_write(handle_, path.c_str(), step, time, props, nprops,
                                static_cast<int>(keys.size()), keys.data(), texts.data(),
                                values.data(), meta.arrays.empty() ? nullptr : counts.data(),
                                flags));
  }

  void host_to_device(const int* props, std::size_t n) {
    check(pvec_host_to_device(handle_, detail::props_ptr(props, n), detail::props_count(n)));
  }
  void device_to_host(const int* props, std::size_t n) {
    check(pvec_device_to_host(handle_, detail::props_ptr(props, n), detail::props_count(n)));
  }

  template <class T>
  view<T> make_view(int prop, bool device, const char* fn) const {
    constexpr pvec_dtype want = dtype_of<T>();
    pvec_layout l{};
    l.struct_size = sizeof l;
    detail::check_in((std::string("pvec::vector::") + fn).c_str(),
                     pvec_vector_get_layout(handle_, prop, &l));
    if (l.dtype != want)
      detail::fail(PVEC_ERROR_DTYPE_MISMATCH,
                   std::string("pvec::vector::") + fn + "<" + dtype_name(want) + ">: property " +
                       std::to_string(prop) + " (\"" + (l.name ? l.name : "") + "\") holds " +
                       dtype_name(l.dtype));
    void* p = device ? l.device_ptr : l.host_ptr;
    return view<T>{static_cast<T*>(p), l.capacity, {l.extents[0], l.extents[1]}, l.generation};
  }

  pvec_vector_t handle_ = nullptr;
};

// ======================================================================================
// Checkpoints (pvec_checkpoint_describe, pvec_checkpoint_restart; vector::checkpoint writes)
// ======================================================================================

/// What a checkpoint holds: the description a restart needs (dim, pos_dtype, domain,
/// boundary, ghost_width filled; the rest PVEC_VECTOR_DESC_INIT's), its properties, the step
/// and time stored.
struct checkpoint_info {
  pvec_vector_desc desc = PVEC_VECTOR_DESC_INIT;
  pvec::schema properties;
  std::int64_t step = 0;
  double time = 0.0;
  /// The metadata written with it, each list in key order.
  pvec::metadata metadata;
};

/// pvec_checkpoint_describe. Local (any rank). Throws pvec::error (IO naming the file and
/// what is wrong, NOT_SUPPORTED without parallel HDF5).
inline checkpoint_info checkpoint_describe(const std::string& path) {
  checkpoint_info info;
  pvec_schema_t s = nullptr;
  check(pvec_checkpoint_describe(path.c_str(), &info.desc, &s, &info.step, &info.time));
  info.properties = schema::adopt(s);
  int n = 0;
  check(pvec_checkpoint_get_metadata_count(path.c_str(), &n));
  for (int k = 0; k < n; ++k) {
    char key[4096];
    pvec_metadata_kind kind = PVEC_METADATA_NUMBER;
    std::size_t len = 0;
    check(pvec_checkpoint_get_metadata(path.c_str(), k, key, sizeof key, &kind, &len, nullptr, 0,
                                       nullptr, 0));
    if (kind == PVEC_METADATA_STRING) {
      std::string text(len + 1, '\0');
      check(pvec_checkpoint_get_metadata(path.c_str(), k, nullptr, 0, nullptr, nullptr, nullptr, 0,
                                         &text[0], text.size()));
      text.resize(len);
      info.metadata.strings.emplace_back(key, std::move(text));
    } else {
      std::vector<double> values(len);
      check(pvec_checkpoint_get_metadata(path.c_str(), k, nullptr, 0, nullptr, nullptr,
                                         values.data(), values.size(), nullptr, 0));
      if (kind == PVEC_METADATA_NUMBER)
        info.metadata.numbers.emplace_back(key, values[0]);
      else
        info.metadata.arrays.emplace_back(key, std::move(values));
    }
  }
  return info;
}

/// pvec_checkpoint_restart: a new vector from the checkpoint, on this run's ranks (any
/// number); desc and s must match the file (checkpoint_describe gives both). Collective.
/// Throws pvec::error with its status (IO for a damaged file: the dataset named).
inline vector checkpoint_restart(const std::string& path, const pvec_vector_desc& desc,
                                 const schema& s, unsigned flags = 0) {
  pvec_vector_t out = nullptr;
  check(pvec_checkpoint_restart(path.c_str(), &desc, s.get(), flags, &out));
  return vector::adopt(out);
}

}  // namespace pvec

#endif  // PVEC_HPP
