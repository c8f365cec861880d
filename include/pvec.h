/* Longer than 500 lines because it is the whole C interface of pvec and its manual.
 * pvec.h -- distributed particle vectors that plain CUDA kernels can read and write.
 *
 * This header is the whole C interface of pvec and its manual. It is C99, compiles as C and
 * as C++, and needs no CUDA or MPI header. Read it top to bottom:
 *
 *   1. Versions, status codes and errors
 *   2. Library start and end (pvec_init / pvec_finalize)
 *   3. Schemas: the properties a particle carries, declared at run time
 *   4. Vectors: creation, queries, growth and removal
 *   5. Layout and raw pointers: what a kernel needs to index the data
 *   6. Host <-> device transfers
 *   7. Distribution over MPI: decomposition, map, ghost_get, ghost_put
 *   8. Diagnostics
 *   9. Output and restart: ParaView files (VTK XML) and HDF5 checkpoints
 *  10. Neighbour search: cell lists, locality sort, Verlet lists
 *  11. Load balance: how evenly the particles and their cost are spread over the ranks
 *
 * ---------------------------------------------------------------------------------------
 * The layout contract (the product; see docs/layout.md for the long version)
 * ---------------------------------------------------------------------------------------
 * A vector holds particles. Every property has its own buffer on the host and its own
 * buffer on the device ("mirrors"), with the same layout in both. With `capacity` C:
 *
 *     scalar           particle i                 base[i]
 *     vector[n]        particle i, component c    base[c*C + i]
 *     tensor[n][m]     particle i, entry (a,b)    base[(a*m + b)*C + i]
 *     positions        particle i, coordinate d   pos[d*C + i]
 *
 * C is shared by all properties of a vector, is a multiple of 64 elements (so every
 * component row starts 256-byte aligned for 4- and 8-byte types) and is at least 64.
 * Appends grow C geometrically (x2); reserve/resize/create ask for exactly the requested
 * count rounded up to 64. C never shrinks except in pvec_vector_shrink_to_fit.
 * Local particles are [0, n_local); ghosts follow at [n_local, n_local + n_ghost).
 *
 * Pointer lifetime: a pointer or layout returned by pvec stays valid until the next call
 * on the same vector that may reallocate or reorder: pvec_vector_reserve,
 * pvec_vector_resize, pvec_vector_append, pvec_vector_remove, pvec_vector_shrink_to_fit,
 * pvec_vector_sort, pvec_map, pvec_ghost_get and pvec_vector_destroy. Each reallocation or
 * reordering increments the vector's generation counter (pvec_layout.generation), so a
 * binding can detect a stale view. pvec_vector_retain keeps a
 * buffer allocated beyond that point (section 5), for memory handed to other libraries.
 *
 * Mirrors are synchronised only when asked (pvec_host_to_device / pvec_device_to_host).
 * What each call leaves in the mirrors:
 *   - create, append, resize: the new particles are zero on both mirrors;
 *   - reserve, shrink_to_fit, remove: both mirrors keep their values (remove packs both);
 *   - map, ghost_get, ghost_put run on one mirror (the device mirror with PVEC_ON_DEVICE,
 *     else the host mirror) and write only that one. The other mirror keeps its bytes where
 *     rows existed before (rows beyond the old sizes are unspecified), but after map or
 *     ghost_get they no longer describe the same particles: copy the mirror that ran over the
 *     other (pvec_device_to_host after a device map, say) before reading it;
 *   - transfers copy rows [0, n_local + n_ghost) of the listed properties, ghosts included.
 *
 * ---------------------------------------------------------------------------------------
 * Names
 * ---------------------------------------------------------------------------------------
 * One rule, with one list of exceptions:
 *   - pvec_<object>_<verb> for everything that acts on an object: pvec_vector_create,
 *     pvec_vector_reserve, pvec_cell_list_build, pvec_checkpoint_write, pvec_vtk_write. The
 *     objects are the handle types (schema, vector, cell_list, verlet, retention), the files
 *     (checkpoint, vtk), the library's memory accounting (memory) and run-time options
 *     (options).
 *   - Queries are pvec_<object>_get_<what> (pvec_vector_get_size, pvec_vector_get_layout,
 *     pvec_verlet_get_info), settings pvec_<object>_set_<what> (pvec_vector_set_stream).
 *   - The verbs of the seed document (OpenFPM's interoperability example) keep their short
 *     form, pvec_<verb>, on a vector: pvec_map, pvec_ghost_get, pvec_ghost_put,
 *     pvec_host_to_device, pvec_device_to_host (and their _async forms), pvec_host_ptr,
 *     pvec_device_ptr; the split-phase exchanges add _begin and _end (pvec_ghost_get_begin).
 *   - Library-wide functions: pvec_init, pvec_finalize, pvec_initialized,
 *     pvec_version_number, pvec_version_string, pvec_status_string, pvec_last_error,
 *     pvec_dtype_size, pvec_dtype_name, pvec_cuda_device_count, pvec_has_hdf5.
 * Constants are PVEC_<GROUP>_<NAME>; types are pvec_<name>, handles pvec_<object>_t.
 * docs/CHANGELOG.md lists the names that changed in 0.1.0 (no old name is kept).
 *
 * ---------------------------------------------------------------------------------------
 * Conventions
 * ---------------------------------------------------------------------------------------
 * - Every function returns pvec_status (PVEC_SUCCESS = 0) and writes results through
 *   out-parameters, except the pointer getters pvec_host_ptr / pvec_device_ptr, which
 *   return NULL on error, and the string functions, which never return NULL.
 * - On error, pvec_last_error() gives a one-line explanation for the calling thread and the
 *   vector is left exactly as it was (no partial change).
 * - Handles are opaque identifiers, not memory addresses: a NULL or destroyed handle is
 *   detected and reported as PVEC_ERROR_INVALID_HANDLE, never dereferenced.
 * - Sizes and indices are int64_t; a negative size is PVEC_ERROR_INVALID_ARGUMENT.
 * - Every function says whether it is "Collective": called by every rank of the vector's
 *   communicator, in the same order; or "Local": it involves no other rank.
 * - Every function says what it invalidates (the pointers and layouts of a vector, a cell or
 *   Verlet list); one that says nothing invalidates nothing.
 * - "Since" gives the version that added the function in its present form.
 * - Thread safety: distinct handles may be used concurrently from different threads; one
 *   handle must not be used by two threads at once without external locking.
 * - Units: strides are given both in elements and in bytes, named so.
 * - Versioned structs (pvec_vector_desc, pvec_layout, pvec_memory_stats, pvec_op_stats,
 *   pvec_cell_list_info, pvec_verlet_info, pvec_option_info) start with struct_size, which the
 *   caller sets to sizeof the struct it was compiled with; each has an initializer macro
 *   (PVEC_<STRUCT>_INIT) that does so. Fields are only ever appended: pvec reads or writes
 *   only the caller's struct_size bytes and takes the defaults for fields the caller does not
 *   know, so a program built against an older pvec.h keeps working. A struct_size below the
 *   struct's first layout (its _SIZE_V1 macro) is INVALID_ARGUMENT.
 */
#ifndef PVEC_H
#define PVEC_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define PVEC_API
#elif defined(__GNUC__)
#define PVEC_API __attribute__((visibility("default")))
#else
#define PVEC_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================================= */
/* 1. Versions, status codes and errors                                                    */
/* ======================================================================================= */

#define PVEC_VERSION_MAJOR 0
#define PVEC_VERSION_MINOR 1
#define PVEC_VERSION_PATCH 0
/** MAJOR*10000 + MINOR*100 + PATCH of the header in use. */
#define PVEC_VERSION_NUMBER \
  (PVEC_VERSION_MAJOR * 10000 + PVEC_VERSION_MINOR * 100 + PVEC_VERSION_PATCH)

/** Version number of the library actually loaded (compare with PVEC_VERSION_NUMBER). Never
 *  fails. Local; callable at any time. Since 0.1. */
PVEC_API int pvec_version_number(void);
/** Version of the loaded library as "MAJOR.MINOR.PATCH". Never NULL. Local; callable at any
 *  time. Since 0.1. */
PVEC_API const char* pvec_version_string(void);

/** Status returned by every function. Values are stable; new ones are only appended. */
typedef enum pvec_status {
  PVEC_SUCCESS = 0,
  /** An argument is invalid: NULL out-pointer, negative size, bad enum value, bad name. */
  PVEC_ERROR_INVALID_ARGUMENT = 1,
  /** The handle is NULL, was destroyed, or is of the wrong kind. */
  PVEC_ERROR_INVALID_HANDLE = 2,
  /** A property index or particle index is out of range. */
  PVEC_ERROR_OUT_OF_RANGE = 3,
  /** A size or a byte count would overflow. */
  PVEC_ERROR_OVERFLOW = 4,
  /** Host, pinned or device memory could not be allocated; nothing was changed. */
  PVEC_ERROR_OUT_OF_MEMORY = 5,
  /** CUDA was asked for, but this build has no CUDA or the machine has no usable device. */
  PVEC_ERROR_NO_DEVICE = 6,
  /** The CUDA runtime reported an error (the message names it). */
  PVEC_ERROR_CUDA = 7,
  /** MPI reported an error, or a collective call failed on another rank. */
  PVEC_ERROR_MPI = 8,
  /** The call is not allowed now: before pvec_init, after pvec_finalize, and the like. */
  PVEC_ERROR_STATE = 9,
  /** pvec_map found particles outside a non-periodic boundary or with a NaN/Inf
   *  coordinate; no rank changed anything. The message gives the global count. */
  PVEC_ERROR_PARTICLES_OUTSIDE = 10,
  /** A typed access asked for a dtype that is not the property's. */
  PVEC_ERROR_DTYPE_MISMATCH = 11,
  /** The operation is not available in this build (e.g. MPI support compiled out). */
  PVEC_ERROR_NOT_SUPPORTED = 12,
  /** A bug in pvec: please report it with the message. */
  PVEC_ERROR_INTERNAL = 13,
  /** A file could not be created, written, renamed or read, or is not a complete, valid
   *  pvec file (truncated, corrupted, written by an interrupted run); the message names the
   *  file and what is wrong. Since 0.1 (section 9). */
  PVEC_ERROR_IO = 14,
  /** An operation would read a property on a mirror that holds older values than the other
   *  mirror (pvec knows the other side was changed since: by one of its own operations or one
   *  the caller declared with pvec_vector_mark_modified); the message names the property and
   *  what changed the other side. Nothing was changed. Copy the newer side first, or turn on
   *  pvec_vector_set_auto_sync (section 6). Since 0.1. */
  PVEC_ERROR_STALE_MIRROR = 15
} pvec_status;

/** Short constant description of a status ("invalid handle"). Never NULL, also for values
 *  that are not a pvec_status. Local; callable at any time. Since 0.1. */
PVEC_API const char* pvec_status_string(pvec_status status);

/** Detail of the most recent failed call made by this thread, e.g.
 *  "pvec_device_ptr: property 7 out of range: vector has 3 properties".
 *  Every pvec call that returns a pvec_status, and the pointer getters, clear it on entry,
 *  so after a successful call it is "". The pure functions pvec_last_error,
 *  pvec_status_string, pvec_dtype_size, pvec_dtype_name, pvec_version_number and
 *  pvec_version_string leave it alone. Never NULL; the string stays valid until the next
 *  pvec call from this thread. Local; callable at any time. Since 0.1. */
PVEC_API const char* pvec_last_error(void);

/* ======================================================================================= */
/* 2. Library start and end                                                                */
/* ======================================================================================= */

/** Start pvec. Reads the run-time options from the environment (pvec_options_get_info lists
 *  them; docs/options.md), then initialises MPI (MPI_Init_thread, MPI_THREAD_FUNNELED) only if
 *  the program has not already done so; a program started without mpirun runs as one rank.
 *  When CUDA devices exist, selects device (node-local rank mod device count) for this
 *  process, unless the option PVEC_DEVICE names one. argc/argv may be NULL.
 *  libpvec carries its own CUDA runtime (linked statically), apart from the program's: the
 *  device it selects is current for pvec's runtime only. A CUDA program makes the same
 *  device current in its own runtime before it allocates or launches for a vector:
 *  cudaSetDevice(d) with d from pvec_vector_get_device (both runtimes then share that device's
 *  primary context, so pointers and streams pass between them).
 *  Calling it again is harmless (and reads nothing again). Collective over MPI_COMM_WORLD when
 *  it initialises MPI, else local.
 *  Errors: INVALID_ARGUMENT (a malformed option in the environment, named with what it
 *  accepts; PVEC_DEVICE beyond the devices there are; nothing is started); MPI; STATE after
 *  pvec_finalize. Since 0.1. */
PVEC_API pvec_status pvec_init(int* argc, char*** argv);

/** End pvec: destroys every vector, list and schema still alive (their handles become
 *  invalid), frees pvec's staging memory, and finalises MPI if pvec_init initialised it.
 *  Collective over MPI_COMM_WORLD. Before pvec_init and after
 *  pvec_finalize, the calls that need no library state work: section 1, pvec_initialized,
 *  pvec_cuda_device_count, pvec_memory_get_stats (so that a program can check that
 *  everything was freed), the schema functions and pvec_retention_release; pvec_init after
 *  pvec_finalize and pvec_vector_create return PVEC_ERROR_STATE, and the handles of the
 *  vectors that were alive are PVEC_ERROR_INVALID_HANDLE. Buffers held by pvec_vector_retain stay
 *  allocated until released.
 *  Errors: PVEC_ERROR_STATE if pvec_init was not called. Since 0.1. */
PVEC_API pvec_status pvec_finalize(void);

/** *flag = 1 between pvec_init and pvec_finalize, else 0. Local; callable at any time.
 *  Errors: INVALID_ARGUMENT (flag NULL). Since 0.1. */
PVEC_API pvec_status pvec_initialized(int* flag);

/** Whether this build has CUDA and the process sees at least one device: *count = number of
 *  devices (0 when none, or when built without CUDA). Local; callable at any time.
 *  Errors: INVALID_ARGUMENT (count NULL). Since 0.1. */
PVEC_API pvec_status pvec_cuda_device_count(int* count);

/* ---- Run-time options -------------------------------------------------------------------- */
/* The switches pvec reads from the environment (fallbacks a run may need: transports off,
 * staged transfers, the device), declared in one table. pvec_init reads each once; a variable
 * that is unset takes its default; pvec_options_set changes one afterwards. docs/options.md
 * lists them. A program prints what a run used with pvec_options_get_text. */

/** Where an option's value in use came from (pvec_option_info.source). */
typedef enum pvec_option_source {
  PVEC_OPTION_DEFAULT = 0,     /**< the default: unset in the environment */
  PVEC_OPTION_ENVIRONMENT = 1, /**< the environment variable, read by pvec_init */
  PVEC_OPTION_SET = 2          /**< pvec_options_set */
} pvec_option_source;

/** One run-time option (pvec_options_get_info). The strings are constant, owned by pvec. */
typedef struct pvec_option_info {
  size_t struct_size;        /**< set by the caller: sizeof(pvec_option_info) */
  const char* name;          /**< the environment variable, e.g. "PVEC_IPC" */
  const char* accepts;       /**< the values it takes, e.g. "0 or 1", "auto, 0 or 1" */
  const char* default_value; /**< e.g. "1", "auto" */
  const char* meaning;       /**< one line */
  int source;                /**< pvec_option_source of the value in use */
  int value;                 /**< the value in use; -1 stands for "auto" */
} pvec_option_info;

#define PVEC_OPTION_INFO_INIT \
  { sizeof(pvec_option_info), NULL, NULL, NULL, NULL, 0, 0 }
/** Size of the first layout of pvec_option_info. Since 0.1. */
#define PVEC_OPTION_INFO_SIZE_V1 (offsetof(pvec_option_info, value) + sizeof(int))

/** Number of run-time options. Local; callable at any time.
 *  Errors: INVALID_ARGUMENT (count NULL). Since 0.1. */
PVEC_API pvec_status pvec_options_get_count(int* count);

/** Describe option index (0 .. count-1) and its value in use into *out (struct_size set by the
 *  caller); no byte beyond out->struct_size is written. Before pvec_init the values are the
 *  defaults. Local; callable at any time.
 *  Errors: INVALID_ARGUMENT (out NULL or struct_size below PVEC_OPTION_INFO_SIZE_V1),
 *  OUT_OF_RANGE (index). Since 0.1. */
PVEC_API pvec_status pvec_options_get_info(int index, pvec_option_info* out);

/** *text = every option in use, one line each: "PVEC_IPC=1 (environment; default 1):
 *  meaning". The string belongs to the calling thread and stays valid until its next call of
 *  this function. Local; callable at any time. Errors: INVALID_ARGUMENT (text NULL).
 *  Since 0.1. */
PVEC_API pvec_status pvec_options_get_text(const char** text);

/** Set option name (e.g. "PVEC_STAGED_TRANSFER") to value, as text in the form the
 *  environment variable takes ("0", "1", "auto", a device ordinal); value NULL or "" sets it
 *  back to its default. It takes effect for later calls: PVEC_IPC and PVEC_SHM when a vector
 *  is created (its ranks agree on them then), PVEC_DEVICE at pvec_init only (set it before),
 *  the others at each call. Local: set it alike on every rank. Overrides what pvec_init reads
 *  when called before it, or after it.
 *  Errors: INVALID_ARGUMENT (name NULL or not an option, naming the options; a value it does
 *  not take, saying what it takes); nothing changes on error. Since 0.1. */
PVEC_API pvec_status pvec_options_set(const char* name, const char* value);

/* ======================================================================================= */
/* 3. Schemas                                                                              */
/* ======================================================================================= */

/** Element types. Only 4- and 8-byte types: every component row then starts 256-byte
 *  aligned when the capacity is a multiple of 64. */
typedef enum pvec_dtype {
  PVEC_FLOAT32 = 1,
  PVEC_FLOAT64 = 2,
  PVEC_INT32 = 3,
  PVEC_INT64 = 4,
  PVEC_UINT32 = 5,
  PVEC_UINT64 = 6
} pvec_dtype;

/** Size in bytes of one element of dtype, or 0 for an unknown dtype (no other error). Local;
 *  callable at any time. Since 0.1. */
PVEC_API size_t pvec_dtype_size(pvec_dtype dtype);
/** Name of dtype ("float32"), "unknown" for an unknown dtype. Never NULL. Local; callable at
 *  any time. Since 0.1. */
PVEC_API const char* pvec_dtype_name(pvec_dtype dtype);

/** Largest tensor rank (a scalar has rank 0, vector[n] rank 1, tensor[n][m] rank 2). */
#define PVEC_MAX_RANK 2
/** Longest property name, in bytes, without the terminating NUL. */
#define PVEC_MAX_NAME 63

/** A list of property declarations; a vector copies it at creation. */
typedef struct pvec_schema_s* pvec_schema_t;

/** Create an empty schema. Local; callable before pvec_init and after pvec_finalize.
 *  Errors: INVALID_ARGUMENT (out NULL), OUT_OF_MEMORY. Since 0.1. */
PVEC_API pvec_status pvec_schema_create(pvec_schema_t* out);
/** Destroy a schema; vectors created from it are unaffected. Local.
 *  Errors: INVALID_HANDLE. Since 0.1. */
PVEC_API pvec_status pvec_schema_destroy(pvec_schema_t schema);

/** Append a property; its index is its position in declaration order (0, 1, ...).
 *  rank 0: scalar (extents ignored, may be NULL); rank 1: vector[extents[0]];
 *  rank 2: tensor[extents[0]][extents[1]], entry (a,b) is component a*extents[1] + b.
 *  name: 1..PVEC_MAX_NAME bytes, unique in the schema, must not be "pos" (reserved for the
 *  positions). *index (may be NULL) receives the new property's index.
 *  Errors: INVALID_HANDLE; INVALID_ARGUMENT (NULL/empty/long/duplicate/reserved name,
 *  unknown dtype, rank outside 0..2, extents NULL with rank >= 1, extent < 1); OVERFLOW
 *  (64 x components x element size, the bytes of the smallest capacity, does not fit in
 *  int64). The schema is unchanged on error. Local. Since 0.1. */
PVEC_API pvec_status pvec_schema_add(pvec_schema_t schema, const char* name, pvec_dtype dtype,
                                     int rank, const int64_t* extents, int* index);
/** pvec_schema_add with rank 0; its errors. Local. Since 0.1. */
PVEC_API pvec_status pvec_schema_add_scalar(pvec_schema_t schema, const char* name,
                                            pvec_dtype dtype, int* index);
/** pvec_schema_add with rank 1, extents {n}; its errors. Local. Since 0.1. */
PVEC_API pvec_status pvec_schema_add_vector(pvec_schema_t schema, const char* name,
                                            pvec_dtype dtype, int64_t n, int* index);
/** pvec_schema_add with rank 2, extents {n, m}; its errors. Local. Since 0.1. */
PVEC_API pvec_status pvec_schema_add_tensor(pvec_schema_t schema, const char* name,
                                            pvec_dtype dtype, int64_t n, int64_t m, int* index);
/** Number of properties declared so far. Local.
 *  Errors: INVALID_HANDLE, INVALID_ARGUMENT (count NULL). Since 0.1. */
PVEC_API pvec_status pvec_schema_get_count(pvec_schema_t schema, int* count);
/** Property index of the schema (0 <= index < count): its name copied into name (a buffer of
 *  name_size >= PVEC_MAX_NAME + 1 bytes, NUL-terminated), its dtype, rank (0 scalar, 1
 *  vector, 2 tensor) and extents (PVEC_MAX_RANK entries; unused ones are 1). Any of name,
 *  dtype, rank, extents may be NULL when not wanted. A schema from pvec_checkpoint_describe
 *  tells what a checkpoint holds this way. Local. On error nothing is written.
 *  Errors: INVALID_HANDLE; OUT_OF_RANGE (index); INVALID_ARGUMENT (name not NULL and
 *  name_size too small for the name). Since 0.1. */
PVEC_API pvec_status pvec_schema_get_property(pvec_schema_t schema, int index, char* name,
                                              size_t name_size, pvec_dtype* dtype, int* rank,
                                              int64_t* extents);

/* ======================================================================================= */
/* 4. Vectors                                                                              */
/* ======================================================================================= */

typedef struct pvec_vector_s* pvec_vector_t;

/** Largest supported space dimension. */
#define PVEC_MAX_DIM 4

/** Property index that names the positions wherever a property index is taken. */
#define PVEC_POS (-1)

/** The empty property list, for the calls that take (props, nprops): pass it with nprops = 0,
 *  e.g. pvec_ghost_get(v, PVEC_NO_PROPS, 0, flags) sends the positions only. NULL means
 *  every property. A sentinel address, never read; with nprops != 0 it is INVALID_ARGUMENT.
 *  Since 0.1. */
#define PVEC_NO_PROPS ((const int*)(intptr_t)-1)
/** Property argument meaning "none" (pvec_verlet_options: no key order, no pair filter;
 *  pvec_vector_remove_marked: the marks are an array, not a property). */
#define PVEC_NO_PROPERTY (-2)

typedef enum pvec_boundary { PVEC_NON_PERIODIC = 0, PVEC_PERIODIC = 1 } pvec_boundary;

/** Where the "device" mirror lives. AUTO: CUDA when a device is usable, else HOST. HOST: the
 *  device mirror is a second host allocation with the same layout (transfers are real
 *  copies). CUDA: device memory, PVEC_ERROR_NO_DEVICE when none is usable. */
typedef enum pvec_backend {
  PVEC_BACKEND_AUTO = 0,
  PVEC_BACKEND_HOST = 1,
  PVEC_BACKEND_CUDA = 2
} pvec_backend;

/** Host mirror memory with the CUDA backend: page-locked (default; transfers run at full
 *  link speed) or pageable (cheaper to allocate, several times slower to transfer; see
 *  docs/performance.md). */
typedef enum pvec_host_memory { PVEC_HOST_PINNED = 0, PVEC_HOST_PAGEABLE = 1 } pvec_host_memory;

/** How the initial particles of pvec_vector_create are placed: EVEN splits n_particles
 *  (a global count) as evenly as possible over the ranks, lower ranks taking the remainder;
 *  LOCAL gives each rank the n_particles it passes. */
typedef enum pvec_placement { PVEC_PLACE_EVEN = 0, PVEC_PLACE_LOCAL = 1 } pvec_placement;

/** Everything pvec_vector_create needs besides the schema. Fill it with
 *  PVEC_VECTOR_DESC_INIT or pvec_vector_desc_init() first, then set fields; fields are
 *  only ever appended, and struct_size tells the library which ones the caller knows. */
typedef struct pvec_vector_desc {
  size_t struct_size;             /**< sizeof(pvec_vector_desc) of the caller */
  int dim;                        /**< space dimension, 1..PVEC_MAX_DIM (default 3) */
  pvec_dtype pos_dtype;           /**< PVEC_FLOAT32 or PVEC_FLOAT64 (default FLOAT64) */
  double domain_lo[PVEC_MAX_DIM]; /**< box low corner (default 0) */
  double domain_hi[PVEC_MAX_DIM]; /**< box high corner, > domain_lo (default 1) */
  int boundary[PVEC_MAX_DIM];     /**< pvec_boundary per dimension (default NON_PERIODIC) */
  double ghost_width;             /**< halo width, >= 0 (default 0) */
  int64_t n_particles;            /**< initial particles, zero-initialised (default 0) */
  int placement;                  /**< pvec_placement of n_particles (default EVEN) */
  int backend;                    /**< pvec_backend (default AUTO) */
  int host_memory;                /**< pvec_host_memory (default PINNED) */
  int has_comm;                   /**< 0: MPI_COMM_WORLD; 1: use comm_f */
  int64_t comm_f;                 /**< Fortran handle of the communicator (MPI_Comm_c2f in C,
                                       the integer in Fortran, comm.py2f() in mpi4py) */
} pvec_vector_desc;

#define PVEC_VECTOR_DESC_INIT                                                                    \
  {                                                                                              \
    sizeof(pvec_vector_desc), 3, PVEC_FLOAT64, {0, 0, 0, 0}, {1, 1, 1, 1}, {0, 0, 0, 0}, 0.0, 0, \
        PVEC_PLACE_EVEN, PVEC_BACKEND_AUTO, PVEC_HOST_PINNED, 0, 0                               \
  }

/** Size of the first layout of pvec_vector_desc: the smallest struct_size that
 *  pvec_vector_create accepts. Since 0.1. */
#define PVEC_VECTOR_DESC_SIZE_V1 (offsetof(pvec_vector_desc, comm_f) + sizeof(int64_t))

/** Fill *desc with the defaults of PVEC_VECTOR_DESC_INIT (for languages without macros). It
 *  writes sizeof(pvec_vector_desc) of the loaded library, so it is for bindings that ship
 *  with the library (Python, Fortran); a program compiled against pvec.h uses
 *  PVEC_VECTOR_DESC_INIT, which stays right when a later pvec appends fields. Local; callable
 *  at any time. Errors: INVALID_ARGUMENT (desc NULL). Since 0.1. */
PVEC_API pvec_status pvec_vector_desc_init(pvec_vector_desc* desc);

/** Create a vector of desc->n_particles particles (placed as desc->placement says) with the
 *  properties of schema (copied: the schema may be destroyed afterwards). Properties and
 *  positions are zero on both mirrors. Capacity: the local count rounded up to 64, at
 *  least 64. Collective over the communicator (it is duplicated, so pvec's messages never
 *  mix with the program's). Requires pvec_init.
 *  Errors: INVALID_ARGUMENT (bad dim, dtype, box, boundary, ghost width, negative count,
 *  bad enum, comm_f outside the range of a Fortran handle), INVALID_HANDLE (schema), OVERFLOW,
 *  OUT_OF_MEMORY, NO_DEVICE (backend CUDA without a device), CUDA, MPI (with the MPI error
 *  string; also when comm_f is not a valid communicator: pvec's own MPI calls return errors
 *  and never abort the job, whatever error handler the program set), STATE (no pvec_init).
 *  Since 0.1. */
PVEC_API pvec_status pvec_vector_create(const pvec_vector_desc* desc, pvec_schema_t schema,
                                        pvec_vector_t* out);

/** Destroy a vector and free both mirrors (buffers held by pvec_vector_retain excepted).
 *  Invalidates every pointer and layout from it; its cell and Verlet lists then return
 *  INVALID_HANDLE (destroy them still). Collective. Errors: INVALID_HANDLE. Since 0.1. */
PVEC_API pvec_status pvec_vector_destroy(pvec_vector_t vec);

/* ---- Queries (local, cheap: no synchronisation) ---------------------------------------- */
/* Each writes its out-parameter only on success. */

/** Number of local (owned) particles. Local.
 *  Errors: INVALID_HANDLE, INVALID_ARGUMENT (out-pointer NULL). Since 0.1. */
PVEC_API pvec_status pvec_vector_get_size(pvec_vector_t vec, int64_t* n_local);
/** Number of ghost particles after the local ones (0 until pvec_ghost_get). Local.
 *  Errors: INVALID_HANDLE, INVALID_ARGUMENT (out-pointer NULL). Since 0.1. */
PVEC_API pvec_status pvec_vector_get_ghost_size(pvec_vector_t vec, int64_t* n_ghost);
/** Capacity C shared by every property: the component stride in elements. Local.
 *  Errors: INVALID_HANDLE, INVALID_ARGUMENT (out-pointer NULL). Since 0.1. */
PVEC_API pvec_status pvec_vector_get_capacity(pvec_vector_t vec, int64_t* capacity);
/** Space dimension. Local.
 *  Errors: INVALID_HANDLE, INVALID_ARGUMENT (out-pointer NULL). Since 0.1. */
PVEC_API pvec_status pvec_vector_get_dim(pvec_vector_t vec, int* dim);
/** Position dtype (FLOAT32 or FLOAT64). Local.
 *  Errors: INVALID_HANDLE, INVALID_ARGUMENT (out-pointer NULL). Since 0.1. */
PVEC_API pvec_status pvec_vector_get_pos_dtype(pvec_vector_t vec, pvec_dtype* dtype);
/** Domain box: lo and hi each receive dim values (either may be NULL, not both). Local.
 *  Errors: INVALID_HANDLE, INVALID_ARGUMENT (both NULL). Since 0.1. */
PVEC_API pvec_status pvec_vector_get_domain(pvec_vector_t vec, double* lo, double* hi);
/** Boundary conditions: bc receives dim pvec_boundary values. Local.
 *  Errors: INVALID_HANDLE, INVALID_ARGUMENT (out-pointer NULL). Since 0.1. */
PVEC_API pvec_status pvec_vector_get_boundaries(pvec_vector_t vec, int* bc);
/** Ghost width given at creation. Local.
 *  Errors: INVALID_HANDLE, INVALID_ARGUMENT (out-pointer NULL). Since 0.1. */
PVEC_API pvec_status pvec_vector_get_ghost_width(pvec_vector_t vec, double* width);
/** Number of properties (positions not counted). Local.
 *  Errors: INVALID_HANDLE, INVALID_ARGUMENT (out-pointer NULL). Since 0.1. */
PVEC_API pvec_status pvec_vector_get_prop_count(pvec_vector_t vec, int* count);
/** Index of the property called name (PVEC_POS for "pos"). Local.
 *  Errors: INVALID_HANDLE, INVALID_ARGUMENT (name or prop NULL; no property has that name).
 *  Since 0.1. */
PVEC_API pvec_status pvec_vector_get_prop_index(pvec_vector_t vec, const char* name, int* prop);
/** Backend in use: PVEC_BACKEND_HOST or PVEC_BACKEND_CUDA (never AUTO). Local.
 *  Errors: INVALID_HANDLE, INVALID_ARGUMENT (out-pointer NULL). Since 0.1. */
PVEC_API pvec_status pvec_vector_get_backend(pvec_vector_t vec, pvec_backend* backend);
/** CUDA device ordinal of the device mirror (the device current at creation), or -1 with
 *  the host backend. Local.
 *  Errors: INVALID_HANDLE, INVALID_ARGUMENT (out-pointer NULL). Since 0.1. */
PVEC_API pvec_status pvec_vector_get_device(pvec_vector_t vec, int* device);
/** Generation counter: incremented by every reallocation or reordering of the buffers. Local.
 *  Errors: INVALID_HANDLE, INVALID_ARGUMENT (out-pointer NULL). Since 0.1. */
PVEC_API pvec_status pvec_vector_get_generation(pvec_vector_t vec, uint64_t* generation);

/* ---- Changing the number of particles ------------------------------------------------- */
/* All of these drop the ghosts first (n_ghost becomes 0), act on both mirrors with the same
 * result, and are local (not collective). They invalidate pointers when they reallocate,
 * which the generation counter shows. On error nothing changes. */

/** Make capacity >= n (exactly n rounded up to 64 when it grows). Data kept. Local.
 *  Invalidates pointers when it grows; drops the ghosts; lists become stale.
 *  Errors: INVALID_HANDLE, INVALID_ARGUMENT (n < 0), OVERFLOW, OUT_OF_MEMORY, CUDA.
 *  Since 0.1. */
PVEC_API pvec_status pvec_vector_reserve(pvec_vector_t vec, int64_t n);

/** Set the local size to n. Particles [0, min(n, old)) keep their values; new particles are
 *  zero on both mirrors. Grows capacity exactly (n rounded up to 64) when needed. Local.
 *  Invalidates pointers when it grows; drops the ghosts; lists become stale.
 *  Errors: as pvec_vector_reserve. Since 0.1. */
PVEC_API pvec_status pvec_vector_resize(pvec_vector_t vec, int64_t n);

/** Append k zero-initialised particles (both mirrors) at the end of the local ones, growing
 *  the capacity geometrically (to max(2*C, needed) rounded to 64) so that n appends cost
 *  O(n). *first (may be NULL) receives the index of the first new particle (the old n_local,
 *  also when k == 0). Local. Invalidates pointers when it grows; drops the ghosts;
 *  lists become stale.
 *  Errors: as pvec_vector_reserve (k < 0 is INVALID_ARGUMENT). Since 0.1. */
PVEC_API pvec_status pvec_vector_append(pvec_vector_t vec, int64_t k, int64_t* first);

/** Remove the local particles whose indices are listed (any order). The others keep their
 *  relative order and are packed to [0, n - count). Never reallocates, but reorders, so
 *  the generation is incremented (pointers into rows are invalid) when count > 0; drops the
 *  ghosts; lists become stale. Local.
 *  Errors: INVALID_HANDLE, INVALID_ARGUMENT (indices NULL with count > 0, count < 0,
 *  duplicate index), OUT_OF_RANGE (an index outside [0, n_local)), OUT_OF_MEMORY, CUDA.
 *  Since 0.1. */
PVEC_API pvec_status pvec_vector_remove(pvec_vector_t vec, const int64_t* indices, int64_t count);

/** Reduce the capacity to the local size rounded up to 64 (at least 64). Data kept. Also
 *  gives back the page-locked blocks that blocking transfers of pageable mirrors keep.
 *  Local. Invalidates pointers when the capacity changes; drops the ghosts; lists become
 *  stale. Errors: INVALID_HANDLE, OUT_OF_MEMORY, CUDA. Since 0.1. */
PVEC_API pvec_status pvec_vector_shrink_to_fit(pvec_vector_t vec);

/* ---- Removal by mark, and particles created by kernels (docs/population.md) ----------- */
/* A GPU simulation keeps its particles on the device: these remove and create them on the
 * mirror the call runs on (the device mirror with PVEC_ON_DEVICE, else the host mirror),
 * without a round trip through the host. They change only that mirror: the other one holds
 * older values of every property afterwards (section 6, mirror coherence). */

/** Flags of pvec_vector_remove_marked and pvec_vector_ids_init (or-ed with PVEC_ON_DEVICE). */
enum {
  /** remove_marked: fill each hole before the new end with a survivor from after it (the last
   *  survivors move, in order, into the first holes) instead of keeping the survivors' order:
   *  only as many particles move as were removed before the new end. */
  PVEC_REMOVE_FILL_HOLES = 1u << 12,
  /** ids_init: keep the ids the particles have (numbered by the caller, or restored by a
   *  restart); only the next free id is computed, from the largest. */
  PVEC_IDS_KEEP = 1u << 13
};

/** Remove the local particles whose mark is nonzero, on one mirror. The marks are the scalar
 *  property mark_prop (any dtype; nonzero, NaN included, removes; the property is removed
 *  with its particles like any other), or, with mark_prop = PVEC_NO_PROPERTY, the array marks
 *  of n_local int32 in the memory of that mirror (device memory with PVEC_ON_DEVICE and the
 *  CUDA backend). The survivors keep their order, packed to [0, n - removed), unless
 *  PVEC_REMOVE_FILL_HOLES: then the survivors after the new end fill the holes before it.
 *  *n_removed (may be NULL) receives the number removed. Only the mirror the call runs on
 *  changes; the other one holds older values of every property until copied. Drops the
 *  ghosts; increments the generation; lists become stale. Local. Blocks until done.
 *  flags: PVEC_ON_DEVICE, PVEC_REMOVE_FILL_HOLES.
 *  Errors: INVALID_HANDLE, INVALID_ARGUMENT (both or neither of mark_prop and marks; marks not
 *  readable by the device; mark_prop not a scalar; the positions as mark), OUT_OF_RANGE
 *  (mark_prop), STALE_MIRROR (a property is older on this mirror), STATE (a spawn is open),
 *  OUT_OF_MEMORY, CUDA, NOT_SUPPORTED (more than 2^31-1 local particles on the device).
 *  Since 0.1. */
PVEC_API pvec_status pvec_vector_remove_marked(pvec_vector_t vec, int mark_prop,
                                               const int32_t* marks, unsigned flags,
                                               int64_t* n_removed);

/** pvec_vector_remove_marked on the device mirror without waiting: the work is ordered on the
 *  vector's stream and the number removed is written, by that work, to n_removed_dev (one
 *  int64 in device memory; may be NULL), where kernels queued after it on the stream may
 *  read it. The vector's size stays pending until the host needs it: the next pvec call on the
 *  vector (any, but pvec_device_ptr, pvec_host_ptr and pvec_vector_get_stream) waits for the
 *  stream and takes the new size. The marks must stay readable until the stream passes the
 *  removal. With the host backend it runs at once (n_removed_dev is then host memory).
 *  flags: PVEC_ON_DEVICE (required), PVEC_REMOVE_FILL_HOLES. Local. Errors: those of
 *  pvec_vector_remove_marked, and INVALID_ARGUMENT without PVEC_ON_DEVICE or when
 *  n_removed_dev is not device memory. Since 0.1. */
PVEC_API pvec_status pvec_vector_remove_marked_async(pvec_vector_t vec, int mark_prop,
                                                     const int32_t* marks, unsigned flags,
                                                     int64_t* n_removed_dev);

/** What a kernel needs to create particles (pvec_vector_spawn_begin): passed by value to the
 *  kernel. A thread claims a slot s by an atomic increment of *counter (atomicAdd on the
 *  device; pvec.hpp's pvec::spawn_claim does it); a slot s < limit is the row first + s of
 *  every property (component c of property p at base_p[c * capacity + first + s]), where the
 *  thread writes the new particle; a slot s >= limit must not be written: the commit reports
 *  how many were asked for. id_first and id_stride give slot s the globally unique id
 *  id_first + s * id_stride (after pvec_vector_ids_init; else id_first = -1). */
typedef struct pvec_spawner {
  size_t struct_size;          /**< sizeof(pvec_spawner) */
  unsigned long long* counter; /**< slots claimed, in the spawn mirror's memory; starts at 0 */
  int64_t first;               /**< the row of slot 0 (the local count at spawn_begin) */
  int64_t limit;               /**< the slots reserved */
  int64_t capacity;            /**< the stride of every component (the vector's capacity) */
  int64_t id_first;            /**< id of slot 0, or -1 without pvec_vector_ids_init */
  int64_t id_stride;           /**< id step between slots (the rank count), 0 without ids */
} pvec_spawner;
/** Initializer of pvec_spawner (struct_size set). */
#define PVEC_SPAWNER_INIT \
  { sizeof(pvec_spawner), NULL, 0, 0, 0, -1, 0 }
#define PVEC_SPAWNER_SIZE_V1 (sizeof(size_t) + sizeof(void*) + 5 * sizeof(int64_t))

/** Open a spawn: room for up to max_new particles after the local ones, on the device mirror
 *  (PVEC_ON_DEVICE) or the host mirror, whose rows are zero on that mirror and whose claim
 *  counter is 0; *spawner (struct_size set by the caller) receives what kernels need. The
 *  capacity grows when needed (pointers are invalid then: take them after this call; they
 *  stay valid until the commit). While the spawn is open, calls that change the particles
 *  (map, ghost_get, sort, append, remove, resize, reserve, another spawn_begin, ...) return
 *  STATE. Drops the ghosts. Local. Blocks until the rows are zeroed.
 *  Errors: INVALID_HANDLE, INVALID_ARGUMENT (max_new < 0, spawner NULL or too small, unknown
 *  flag), STATE (a spawn is already open), STALE_MIRROR (a property is older on that mirror),
 *  OVERFLOW, OUT_OF_MEMORY, CUDA. Since 0.1. */
PVEC_API pvec_status pvec_vector_spawn_begin(pvec_vector_t vec, int64_t max_new, unsigned flags,
                                             pvec_spawner* spawner);
/** Close the spawn: the slots claimed become local particles (n_local grows by their count,
 *  *n_added, may be NULL). Waits for the vector's stream first; kernels on other streams must
 *  be complete (synchronise them). When the kernels asked for more slots than were reserved,
 *  nothing is added, *n_added receives the number asked for, and the call returns
 *  OUT_OF_RANGE saying so (reserve that many and run them again). Either way the spawn is
 *  closed. The mirror of the spawn holds the new particles; the other mirror holds older values
 *  of every property. The ids of the slots are used up whether or not the commit succeeds.
 *  Lists become stale. Local. Errors: INVALID_HANDLE, STATE (no spawn open), OUT_OF_RANGE,
 *  CUDA. Since 0.1. */
PVEC_API pvec_status pvec_vector_spawn_commit(pvec_vector_t vec, int64_t* n_added);
/** Close the spawn without adding anything. Local. Errors: INVALID_HANDLE, STATE (no spawn
 *  open). Since 0.1. */
PVEC_API pvec_status pvec_vector_spawn_cancel(pvec_vector_t vec);

/** Globally unique particle ids. Numbers the local particles of every rank 0 .. N-1 in rank
 *  order into the scalar int64 or uint64 property id_prop, on the device mirror with
 *  PVEC_ON_DEVICE or else the host mirror (with PVEC_IDS_KEEP, keeps the ids there and reads
 *  their largest, M), and starts the vector's id counter at N (or M + 1): from then on
 *  pvec_vector_ids_take and spawners hand out ids no rank has handed out, without
 *  communication (rank r's k-th new id is N + k * P + r for P ranks). After a restart, or ids
 *  numbered by the caller, call it with PVEC_IDS_KEEP. Collective.
 *  flags: PVEC_ON_DEVICE, PVEC_IDS_KEEP.
 *  Errors: INVALID_HANDLE, INVALID_ARGUMENT (id_prop not a scalar int64/uint64; a negative id
 *  with PVEC_IDS_KEEP; ranks passing different arguments), OUT_OF_RANGE, STALE_MIRROR, STATE (a
 *  spawn is open), MPI. Since 0.1. */
PVEC_API pvec_status pvec_vector_ids_init(pvec_vector_t vec, int id_prop, unsigned flags);
/** Take count new ids for particles this rank creates: first + k * stride for k < count
 *  (*first and *stride; stride is the rank count). Local. Errors: INVALID_HANDLE,
 *  INVALID_ARGUMENT (count < 0, an out-pointer NULL), STATE (pvec_vector_ids_init not called),
 *  OVERFLOW. Since 0.1. */
PVEC_API pvec_status pvec_vector_ids_take(pvec_vector_t vec, int64_t count, int64_t* first,
                                          int64_t* stride);

/* ======================================================================================= */
/* 5. Layout and raw pointers                                                              */
/* ======================================================================================= */

/** What a kernel needs to index one property (or the positions) of a vector.
 *  Element (particle i, component c) is at  (char*)ptr + c*stride_bytes + i*elem_size,
 *  i.e. ((T*)ptr)[c*stride_elems + i], with stride_elems == capacity. */
typedef struct pvec_layout {
  size_t struct_size;             /**< set by the caller: sizeof(pvec_layout) */
  int prop;                       /**< property index, or PVEC_POS */
  const char* name;               /**< property name ("pos" for positions); valid while the
                                       vector lives */
  pvec_dtype dtype;               /**< element type */
  size_t elem_size;               /**< bytes per element */
  int rank;                       /**< 0 scalar, 1 vector, 2 tensor */
  int64_t extents[PVEC_MAX_RANK]; /**< shape; unused entries are 1 */
  int64_t ncomp;                  /**< components: product of the extents */
  int64_t capacity;               /**< C */
  int64_t stride_elems;           /**< distance between components, in elements (== C) */
  int64_t stride_bytes;           /**< distance between components, in bytes */
  int64_t n_local;                /**< local particles */
  int64_t n_ghost;                /**< ghost particles, after the local ones */
  uint64_t generation;            /**< generation these pointers belong to */
  void* host_ptr;                 /**< host mirror, component 0 of particle 0 */
  void* device_ptr;               /**< device mirror (a host address with the host backend) */
} pvec_layout;

#define PVEC_LAYOUT_INIT \
  { sizeof(pvec_layout), 0, NULL, (pvec_dtype)0, 0, 0, {1, 1}, 0, 0, 0, 0, 0, 0, 0, NULL, NULL }

/** Size of the first layout of pvec_layout: the smallest struct_size pvec_vector_get_layout
 * accepts. Since 0.1. */
#define PVEC_LAYOUT_SIZE_V1 (offsetof(pvec_layout, device_ptr) + sizeof(void*))

/** Fill *out (whose struct_size the caller sets) for property prop or PVEC_POS; no byte
 *  beyond out->struct_size is written.
 *  Errors: INVALID_HANDLE, INVALID_ARGUMENT (out NULL or struct_size below PVEC_LAYOUT_SIZE_V1),
 *  OUT_OF_RANGE (prop). Local. Valid until the generation changes. Since 0.1. */
PVEC_API pvec_status pvec_vector_get_layout(pvec_vector_t vec, int prop, pvec_layout* out);

/** The layouts of several properties in one call, for refreshing a kernel's pointers after
 *  map or ghost_get: out[k] receives the layout of props[k] (PVEC_POS for the positions);
 *  props == NULL means the positions and then every property (out[0] the positions,
 *  out[1 + p] property p; nprops ignored). out is an array of n_out elements whose size is
 *  out[0].struct_size (the caller's sizeof(pvec_layout)); every element is written with
 *  that struct_size, no byte beyond. Local. Valid until the generation changes.
 *  Errors: INVALID_HANDLE, INVALID_ARGUMENT (out NULL, out[0].struct_size below
 *  PVEC_LAYOUT_SIZE_V1, nprops < 0, a repeated entry, n_out too small for the list),
 *  OUT_OF_RANGE (an entry). Nothing is written on error. Since 0.1. */
PVEC_API pvec_status pvec_vector_get_layouts(pvec_vector_t vec, const int* props, int nprops,
                                             pvec_layout* out, int n_out);

/** Host mirror of property prop (or PVEC_POS): element (i, c) at ptr[c*capacity + i].
 *  Returns NULL on error (INVALID_HANDLE, OUT_OF_RANGE; see pvec_last_error). Local. Valid
 *  until the generation changes. Since 0.1. */
PVEC_API void* pvec_host_ptr(pvec_vector_t vec, int prop);

/** Device mirror of property prop (or PVEC_POS), to pass to a CUDA kernel; the same layout
 *  as the host mirror. With the host backend it is the second host allocation. Returns
 *  NULL on error (as pvec_host_ptr). Local. Valid until the generation changes. Since 0.1. */
PVEC_API void* pvec_device_ptr(pvec_vector_t vec, int prop);

/* ---- Retention: memory that outlives the vector ---------------------------------------- */

/** A retention keeps one buffer alive: the allocation of one property's mirror (all its
 *  components, the whole capacity) as it was when pvec_vector_retain was called. */
typedef struct pvec_retention_s* pvec_retention_t;

/** Keep the buffer of property prop (or PVEC_POS) on the host mirror (device_mirror == 0)
 *  or the device mirror (device_mirror != 0) allocated until pvec_retention_release, even after
 *  pvec_vector_destroy, pvec_finalize, or a reallocation of the vector (growth,
 *  shrink_to_fit). It is for bindings that hand the memory to consumers whose lifetime pvec
 *  does not control (DLPack, NumPy): while the vector lives and does not reallocate, the
 *  buffer is the vector's own and pvec keeps writing it; afterwards it holds the values it
 *  had then and pvec no longer touches it (a later reallocation or destruction gives the
 *  vector new buffers). Retained memory is counted by pvec_memory_stats until it is freed.
 *  The pointers are those of pvec_vector_get_layout (the device mirror's pending zero fill is done
 *  first). Local, not collective. Retaining the same buffer several times is allowed; each
 *  retention is released on its own.
 *  Errors: INVALID_HANDLE (vec), INVALID_ARGUMENT (out NULL), OUT_OF_RANGE (prop),
 *  OUT_OF_MEMORY. Since 0.1. */
PVEC_API pvec_status pvec_vector_retain(pvec_vector_t vec, int prop, int device_mirror,
                                        pvec_retention_t* out);

/** End a retention: the buffer is freed if its vector no longer uses it and no other
 *  retention holds it. May be called at any time, also after pvec_finalize. Local.
 *  Errors: INVALID_HANDLE (NULL, already released, or not a retention handle). Since 0.1. */
PVEC_API pvec_status pvec_retention_release(pvec_retention_t retention);

/* ======================================================================================= */
/* 6. Host <-> device transfers                                                            */
/* ======================================================================================= */

/** CUDA stream, without the CUDA header: a cudaStream_t converts to and from it. NULL is
 *  the legacy default stream. */
typedef struct CUstream_st* pvec_stream_t;

/** Stream on which pvec orders this vector's own device work (growth copies, zero fill,
 *  removal, map, ghost exchange) and the blocking transfers. Default NULL. The caller
 *  keeps the stream alive while the vector uses it. Local. Errors: INVALID_HANDLE.
 *  Since 0.1. */
PVEC_API pvec_status pvec_vector_set_stream(pvec_vector_t vec, pvec_stream_t stream);
/** The stream set by pvec_vector_set_stream (NULL by default). Local.
 *  Errors: INVALID_HANDLE, INVALID_ARGUMENT (stream NULL). Since 0.1. */
PVEC_API pvec_status pvec_vector_get_stream(pvec_vector_t vec, pvec_stream_t* stream);

/** Copy the listed properties (PVEC_POS for positions) from host to device mirror, live
 *  particles [0, n_local + n_ghost) of each component only, one 2D copy per property. Ghost
 *  rows that pvec knows to be older on the source than on the destination (a ghost_get ran on
 *  the destination since) are left out: the destination keeps its newer ghosts. Local rows
 *  that are older on the source are refused (STALE_MIRROR, nothing copied): copying them would
 *  lose newer values (section 6, mirror coherence).
 *  props == NULL means every property and the positions (nprops ignored). Blocks until
 *  the copies are done, after the work ordered on the vector's stream. Local. Invalidates
 *  nothing.
 *  With pageable host mirrors (PVEC_HOST_PAGEABLE), from 16 MiB in all and two or more host
 *  threads, the copies go through page-locked blocks on up to 8 host threads, which the
 *  vector keeps (16 MiB) until pvec_vector_shrink_to_fit or its destruction (docs/layout.md);
 *  the option PVEC_STAGED_TRANSFER=0 turns that off.
 *  Errors: INVALID_HANDLE, INVALID_ARGUMENT (nprops < 0, a repeated index), OUT_OF_RANGE,
 *  STALE_MIRROR, CUDA. Nothing is copied on an argument error. Since 0.1. */
PVEC_API pvec_status pvec_host_to_device(pvec_vector_t vec, const int* props, int nprops);
/** The reverse of pvec_host_to_device: the same rows, errors and rules. Local. Since 0.1. */
PVEC_API pvec_status pvec_device_to_host(pvec_vector_t vec, const int* props, int nprops);

/** As pvec_host_to_device, ordered on stream and returning without waiting. The data must
 *  not be touched or reallocated before the stream reaches the copy. With pageable host
 *  memory the CUDA runtime may complete part of the copy before returning. Local.
 *  Errors: those of pvec_host_to_device. Since 0.1. */
PVEC_API pvec_status pvec_host_to_device_async(pvec_vector_t vec, const int* props, int nprops,
                                               pvec_stream_t stream);
/** As pvec_device_to_host, ordered on stream and returning without waiting. Local.
 *  Errors: those of pvec_device_to_host. Since 0.1. */
PVEC_API pvec_status pvec_device_to_host_async(pvec_vector_t vec, const int* props, int nprops,
                                               pvec_stream_t stream);

/** Wait until all work pvec ordered on the vector's stream is done. Local.
 *  Errors: INVALID_HANDLE, CUDA. Since 0.1. */
PVEC_API pvec_status pvec_vector_synchronize(pvec_vector_t vec);

/* ---- Mirror coherence (docs/coherence.md) --------------------------------------------- */
/* pvec knows which mirror each of its operations wrote, per property and per set of rows (the
 * local particles' rows and the ghosts' rows): map, ghost_get, ghost_put, sort, remove_marked
 * and spawn_commit write the mirror they run on; restarts write the host mirror; a transfer
 * makes its destination equal to its source for the properties it copies; create, append,
 * resize, reserve, remove and shrink_to_fit act on both alike. Writes by the caller's own code
 * are invisible to pvec until declared with pvec_vector_mark_modified.
 *
 * An operation that reads a property on a mirror that holds older values than the other one
 * returns PVEC_ERROR_STALE_MIRROR naming the property and the operation that changed the
 * other side (every rank, for collective calls), and changes nothing; a transfer that would
 * copy older values over newer ones is refused the same way. With pvec_vector_set_auto_sync
 * on, pvec copies the newer rows over first instead. Programs that copy what they need before
 * they read it never see the status. */

/** Row sets of pvec_vector_mark_modified and pvec_vector_sync (or-ed with PVEC_ON_DEVICE);
 *  neither: both. */
enum {
  PVEC_ROWS_LOCAL = 1u << 14, /**< the local particles' rows [0, n_local) */
  PVEC_ROWS_GHOST = 1u << 15  /**< the ghosts' rows [n_local, n_local + n_ghost) */
};

/** Bits of pvec_vector_get_mirror_state: set when that mirror holds the newest values of
 *  that row set (both mirrors of a set when they are equal). */
enum {
  PVEC_MIRROR_HOST_LOCAL = 1,
  PVEC_MIRROR_DEVICE_LOCAL = 2,
  PVEC_MIRROR_HOST_GHOST = 4,
  PVEC_MIRROR_DEVICE_GHOST = 8
};

/** Declare that the caller's code wrote the listed properties (PVEC_POS: positions; NULL:
 *  every property and the positions) on the device mirror (PVEC_ON_DEVICE) or the host
 *  mirror, in the row sets of flags (PVEC_ROWS_LOCAL, PVEC_ROWS_GHOST; neither: both): that
 *  mirror now holds their newest values, and reading the other mirror before a copy is
 *  refused. Like Kokkos DualView's modify. Writing local positions this way also makes a
 *  later PVEC_GHOST_SKIP_POSITIONS on the mirror refused (the ghosts' positions would no
 *  longer match). Local. Invalidates nothing.
 *  Errors: INVALID_HANDLE, INVALID_ARGUMENT (nprops < 0, a repeated index, unknown flag),
 *  OUT_OF_RANGE. Since 0.1. */
PVEC_API pvec_status pvec_vector_mark_modified(pvec_vector_t vec, const int* props, int nprops,
                                               unsigned flags);
/** Make the listed properties current on the device mirror (PVEC_ON_DEVICE) or the host
 *  mirror: copy, of the row sets in flags (neither: both), only those that are older there
 *  than on the other mirror. Nothing is copied when they are current. Like Kokkos DualView's
 *  sync. Local; blocks until the copies are done. Invalidates nothing.
 *  Errors: those of pvec_host_to_device. Since 0.1. */
PVEC_API pvec_status pvec_vector_sync(pvec_vector_t vec, const int* props, int nprops,
                                      unsigned flags);
/** Which mirror holds the newest values of property prop (PVEC_POS for the positions):
 *  *state receives PVEC_MIRROR_* bits. Local.
 *  Errors: INVALID_HANDLE, INVALID_ARGUMENT (state NULL), OUT_OF_RANGE. Since 0.1. */
PVEC_API pvec_status pvec_vector_get_mirror_state(pvec_vector_t vec, int prop, unsigned* state);
/** Automatic synchronisation (on != 0): an operation that would read a property on a mirror
 *  holding older values first copies the newer rows from the other mirror (a blocking copy)
 *  instead of returning PVEC_ERROR_STALE_MIRROR. Off by default. Local.
 *  Errors: INVALID_HANDLE. Since 0.1. */
PVEC_API pvec_status pvec_vector_set_auto_sync(pvec_vector_t vec, int on);

/* ======================================================================================= */
/* 7. Distribution over MPI                                                                */
/* ======================================================================================= */

/** Flags for map / ghost_get / ghost_put, or-ed. */
enum {
  /** Run on the device mirrors (label, pack, unpack, compact on the GPU); the result is left
   *  on the device. Without it the operation runs on the host mirrors. Like OpenFPM's
   *  RUN_ON_DEVICE. */
  PVEC_ON_DEVICE = 1u << 0,
  /** map: remove particles outside a non-periodic boundary or with NaN/Inf coordinates
   *  instead of failing; the global count removed is reported. */
  PVEC_MAP_REMOVE_OUTSIDE = 1u << 1,
  /** ghost_get, with PVEC_GHOST_REUSE_PLAN only: do not send positions; the ghosts keep those
   *  of the previous ghost_get. Right only while the sources' positions are unchanged since
   *  then (a kernel pass that updates only other properties). pvec refuses it
   *  (INVALID_ARGUMENT, every rank) where it can see the positions changed: after a
   *  pvec_host_to_device (for the device mirror) or pvec_device_to_host (for the host mirror)
   *  that included the positions since the ghosts last received theirs, and whenever
   *  PVEC_GHOST_REUSE_PLAN itself is refused. A kernel that writes positions through a pointer
   *  is not visible to pvec: then send the positions. */
  PVEC_GHOST_SKIP_POSITIONS = 1u << 2,
  /** ghost_get: replay the plan of the previous ghost_get (which particles go to which ranks,
   *  with which periodic shifts) instead of building one from the positions; the listed
   *  properties and, unless PVEC_GHOST_SKIP_POSITIONS, the positions travel with their
   *  current values (positions shifted by the plan's periodic shifts). Particles may have
   *  moved since the plan was made: the ghosts are then the particles that were near the
   *  boundary when it was made, at their new positions. That is the Verlet-skin use of
   *  molecular dynamics: with ghost_width = cutoff + skin, a plan stays right until some
   *  particle moved more than skin/2 since it was made (see docs/distribution.md). Valid while
   *  the local particles are the same: no append, remove, resize, reserve, shrink, map or
   *  reordering since the plan was made on any rank, the previous ghost_get ran on the same
   *  mirror (with or without PVEC_ON_DEVICE), and, with PVEC_GHOST_SKIP_POSITIONS, the ghost
   *  count is unchanged. Otherwise every rank returns INVALID_ARGUMENT saying why, and
   *  nothing changes. */
  PVEC_GHOST_REUSE_PLAN = 1u << 3
};

typedef enum pvec_reduce_op {
  PVEC_REDUCE_ADD = 0,
  PVEC_REDUCE_MIN = 1,
  PVEC_REDUCE_MAX = 2,
  PVEC_REDUCE_REPLACE = 3
} pvec_reduce_op;

/** This process's rank in the vector's communicator. Local.
 *  Errors: INVALID_HANDLE, INVALID_ARGUMENT (rank NULL). Since 0.1. */
PVEC_API pvec_status pvec_vector_get_rank(pvec_vector_t vec, int* rank);
/** The number of ranks of the vector's communicator. Local.
 *  Errors: INVALID_HANDLE, INVALID_ARGUMENT (size NULL). Since 0.1. */
PVEC_API pvec_status pvec_vector_get_nranks(pvec_vector_t vec, int* size);

/** Subdomain owned by this rank (dim values each; lo or hi may be NULL, not both). A particle
 *  belongs to the rank whose half-open box [lo, hi) contains it; the last rank along a
 *  dimension also owns hi of a non-periodic domain. The boxes are equal cells of a rank grid
 *  until pvec_vector_rebalance moves them (and a restart on the writer's rank count takes the
 *  writer's). Local.
 *  Errors: INVALID_HANDLE, INVALID_ARGUMENT (both NULL). Since 0.1. */
PVEC_API pvec_status pvec_vector_get_subdomain(pvec_vector_t vec, double* lo, double* hi);

/** Rank that owns point x (dim coordinates; periodic dimensions are wrapped first). Local.
 *  Errors: INVALID_HANDLE, INVALID_ARGUMENT (x or rank NULL; x outside a non-periodic
 *  boundary or not finite). Since 0.1. */
PVEC_API pvec_status pvec_vector_get_owner_rank(pvec_vector_t vec, const double* x, int* rank);

/** Send every local particle, with all properties, to the rank owning its position;
 *  periodic coordinates are wrapped into the box first: x becomes x - k*L (L = hi - lo, k the
 *  integer that puts it in [lo, hi)), rounded once, so it is the exactly rounded x - k*L, the
 *  value a ghost image x + s*L gets on the other side (float32 positions: that double rounded
 *  to float); a result that rounds to hi becomes lo. Coordinates inside the box are left bit
 *  for bit. Drops ghosts. Global count and
 *  values are conserved exactly. Particles outside a non-periodic boundary or with a
 *  non-finite coordinate make every rank return PVEC_ERROR_PARTICLES_OUTSIDE with the
 *  vector untouched, unless PVEC_MAP_REMOVE_OUTSIDE is set; *n_removed (may be NULL)
 *  receives the global number removed. Collective. Invalidates pointers (reorders and may
 *  grow). flags: PVEC_ON_DEVICE, PVEC_MAP_REMOVE_OUTSIDE.
 *  Errors: INVALID_HANDLE, INVALID_ARGUMENT, PARTICLES_OUTSIDE, OUT_OF_MEMORY, CUDA, MPI,
 *  NOT_SUPPORTED (PVEC_ON_DEVICE with more than 2^31-1 local particles on a rank: the GPU
 *  selection and sort count in int; that rank returns it, the others MPI, nothing changes).
 *  Since 0.1. */
PVEC_API pvec_status pvec_map(pvec_vector_t vec, unsigned flags, int64_t* n_removed);

/** Replace the ghosts by copies of every particle (of any rank, this one included) that lies
 *  within ghost_width of this rank's subdomain, or of its periodic images, with positions
 *  shifted by the period across periodic boundaries. Ghosts are appended after the local
 *  particles; the listed properties (props NULL: all) and the positions travel. A property
 *  not listed is not written: after a new plan its ghost rows hold unspecified values until
 *  the caller writes them; with PVEC_GHOST_REUSE_PLAN the ghost rows are those of the previous
 *  ghost_get and keep what they held on the mirror the call runs on. Collective.
 *  Invalidates pointers (may grow). flags: PVEC_ON_DEVICE, PVEC_GHOST_REUSE_PLAN,
 *  PVEC_GHOST_SKIP_POSITIONS. Errors: INVALID_HANDLE, INVALID_ARGUMENT, OUT_OF_RANGE,
 *  OUT_OF_MEMORY, CUDA, MPI, NOT_SUPPORTED (PVEC_ON_DEVICE with more than 2^31-1 local
 *  particles or ghost entries on a rank, as for pvec_map). Since 0.1. */
PVEC_API pvec_status pvec_ghost_get(pvec_vector_t vec, const int* props, int nprops,
                                    unsigned flags);

/** Send the ghosts' values of the listed properties back to the particles they copy and
 *  combine them there with op; ghost values are then left as they were. Any property may be
 *  listed, whether or not the last ghost_get sent it: what travels is what the ghost rows
 *  hold, typically contributions the caller's kernel accumulated on the ghosts (forces, density
 *  sums). Uses the plan of the last ghost_get (INVALID_ARGUMENT without one). Collective;
 *  invalidates nothing.
 *  flags: PVEC_ON_DEVICE. Errors: INVALID_HANDLE, INVALID_ARGUMENT, OUT_OF_RANGE,
 *  OUT_OF_MEMORY (a message buffer could not grow; nothing changed), CUDA, MPI.
 *
 *  Messages of pvec_map, pvec_ghost_get and pvec_ghost_put: host data goes through shared
 *  memory when every rank runs on one node (option PVEC_SHM=0 turns that off), else through MPI;
 *  device data goes device to device through CUDA IPC when every rank runs the CUDA backend
 *  on one node (option PVEC_IPC=0 turns that off), else through a CUDA-aware MPI or staged through
 *  pinned host memory. pvec_op_stats.transport tells which (see pvec_transport). The options
 *  PVEC_SHM and PVEC_IPC are docs/options.md's. Since 0.1. */
PVEC_API pvec_status pvec_ghost_put(pvec_vector_t vec, const int* props, int nprops,
                                    pvec_reduce_op op, unsigned flags);

/* ---- Split-phase ghost exchange (docs/overlap.md) ---------------------------------------- */

/** pvec_ghost_get in two calls, so that the caller computes while the ghosts travel. begin
 *  takes the same arguments and does everything collective (the checks every rank agrees on,
 *  the plan, the room: it may grow the vector and invalidate pointers as pvec_ghost_get does),
 *  packs the messages and posts them; pvec_ghost_get_end completes them and writes the ghost
 *  rows. The result is bitwise that of pvec_ghost_get. Between begin and end:
 *   - the local rows of every property may be read and written, on either mirror, by the
 *     caller's code (what travels was packed at begin), and kernels may run on them;
 *   - the ghost rows must not be read or written (they are being received), and
 *     pvec_vector_get_ghost_size still gives the previous count;
 *   - every call on the vector that changes the particles, moves rows, exchanges, copies
 *     between the mirrors or reads the ghost rows returns PVEC_ERROR_STATE and changes
 *     nothing: pvec_map, pvec_ghost_get(_begin), pvec_ghost_put(_begin), pvec_vector_sort,
 *     append, remove, resize, reserve, shrink_to_fit, pvec_vector_remove_marked(_async),
 *     pvec_vector_spawn_begin, pvec_vector_ids_init, pvec_vector_rebalance (also of its
 *     leader), pvec_vector_follow, the transfers and pvec_vector_sync, and every neighbour list
 *     build or update; queries, reductions, pvec_vector_mark_modified and the file writers
 *     work (they read local rows).
 *  Other vectors are independent. What travels meanwhile: MPI messages of host mirrors and of
 *  a CUDA-aware MPI, staged device messages (copied to pinned memory at begin, back at end),
 *  and the notices of shared memory between ranks of one node (the blocks are read at end);
 *  CUDA IPC copies complete inside begin. Collective (begin); end is local but completes
 *  messages every rank's begin posted, so every rank must call it. pvec_vector_destroy of a
 *  vector in flight completes the exchange first.
 *  Errors of begin: those of pvec_ghost_get, and STATE (an exchange already in flight, or a
 *  spawn open). Errors of end: INVALID_HANDLE, STATE (no pvec_ghost_get_begin in flight),
 *  MPI, CUDA (then the vector has no ghosts and no plan). pvec_last_op_stats after end
 *  describes the whole exchange. Since 0.1. */
PVEC_API pvec_status pvec_ghost_get_begin(pvec_vector_t vec, const int* props, int nprops,
                                          unsigned flags);
PVEC_API pvec_status pvec_ghost_get_end(pvec_vector_t vec);

/** pvec_ghost_put in two calls: begin (collective; the same arguments and checks as
 *  pvec_ghost_put) packs the ghost rows of the listed properties and posts the messages;
 *  pvec_ghost_put_end completes them and combines the values into the local rows, bitwise as
 *  pvec_ghost_put does. Between them the listed properties' local rows must not be read or
 *  written (they are combined at end) nor their ghost rows written (this rank's own periodic
 *  images are read at end); every other property's rows are free. The same calls as during a
 *  ghost_get in flight return PVEC_ERROR_STATE. Errors of begin: those of pvec_ghost_put, and
 *  STATE (an exchange already in flight). Errors of end: INVALID_HANDLE, STATE (no
 *  pvec_ghost_put_begin in flight), MPI, CUDA (then the local rows of the listed properties
 *  are unspecified). Since 0.1. */
PVEC_API pvec_status pvec_ghost_put_begin(pvec_vector_t vec, const int* props, int nprops,
                                          pvec_reduce_op op, unsigned flags);
PVEC_API pvec_status pvec_ghost_put_end(pvec_vector_t vec);

/* ---- Reductions over the vector's communicator (docs/reductions.md) ---------------------- */

/** Sum, minimum or maximum of each component of property prop (PVEC_POS: the positions) over
 *  the local particles of every rank (ghosts excluded): result[c] for component c, ncomp
 *  values (the property's components in layout order). On the host mirror, or on the device
 *  mirror with PVEC_ON_DEVICE (read there: one reduction per component on the GPU, only the
 *  results reach the host). result's type follows the property's: double for float32 and
 *  float64 (float32 values are summed in double), int64_t for int32 and int64, uint64_t for
 *  uint32 and uint64. A NaN in a component on any rank makes that result NaN (for every op).
 *  With no local particle on any rank: 0 for PVEC_REDUCE_ADD, the type's largest value (+inf)
 *  for MIN and its smallest (-inf) for MAX. The same result on every rank; the order of the
 *  sum depends on the rank count, so float sums may differ in the last bits between runs on
 *  different rank counts. Collective: every rank passes the same prop and op (checked: a rank
 *  that does not makes every rank return INVALID_ARGUMENT). Invalidates nothing.
 *  op: PVEC_REDUCE_ADD, PVEC_REDUCE_MIN or PVEC_REDUCE_MAX. flags: PVEC_ON_DEVICE.
 *  Errors: INVALID_HANDLE, INVALID_ARGUMENT (result NULL, unknown flags, op REPLACE or unknown,
 *  ranks disagreeing), OUT_OF_RANGE (prop), CUDA, MPI (also on the other ranks when one
 *  rank's local pass failed). result is written only on success. Since 0.1. */
PVEC_API pvec_status pvec_vector_reduce(pvec_vector_t vec, int prop, pvec_reduce_op op,
                                        unsigned flags, void* result);

/** Combine the caller's values[0, count) of dtype (host memory) over the vector's
 *  communicator, in place: the sum, minimum or maximum of each entry over the ranks (an energy
 *  sum, a time step's minimum, a flag's maximum) without MPI in the program. Sums of 32-bit
 *  types are computed in the type (they may overflow: pass 64-bit values for large sums). A
 *  NaN in an entry on any rank makes that entry NaN everywhere. Collective: every rank passes
 *  the same count, dtype and op (checked, as pvec_vector_reduce). count 0 is allowed.
 *  Errors: INVALID_HANDLE, INVALID_ARGUMENT (values NULL with count > 0, count < 0, unknown
 *  dtype, op REPLACE or unknown, ranks disagreeing), NOT_SUPPORTED (count above 2^31 - 1),
 *  MPI. The values are unchanged on error. Since 0.1. */
PVEC_API pvec_status pvec_vector_allreduce(pvec_vector_t vec, void* values, int64_t count,
                                           pvec_dtype dtype, pvec_reduce_op op);

/* ======================================================================================= */
/* 8. Diagnostics                                                                          */
/* ======================================================================================= */

/** Process-wide memory accounting of pvec's own allocations. */
typedef struct pvec_memory_stats {
  size_t struct_size;    /**< set by the caller: sizeof(pvec_memory_stats) */
  int64_t host_bytes;    /**< live pageable host bytes */
  int64_t pinned_bytes;  /**< live page-locked host bytes */
  int64_t device_bytes;  /**< live device bytes */
  int64_t host_allocs;   /**< pageable allocations made so far */
  int64_t pinned_allocs; /**< page-locked allocations made so far */
  int64_t device_allocs; /**< device allocations made so far */
} pvec_memory_stats;

/** Size of the first layout of pvec_memory_stats: the smallest struct_size
 *  pvec_memory_get_stats accepts. Since 0.1. */
#define PVEC_MEMORY_STATS_SIZE_V1 (offsetof(pvec_memory_stats, device_allocs) + sizeof(int64_t))
#define PVEC_MEMORY_STATS_INIT \
  { sizeof(pvec_memory_stats), 0, 0, 0, 0, 0, 0 }

/** Read the memory accounting into *out; no byte beyond out->struct_size is written. Local;
 *  callable at any time (after pvec_finalize too, to check that everything was freed).
 *  Errors: INVALID_ARGUMENT (out NULL, or struct_size below PVEC_MEMORY_STATS_SIZE_V1).
 *  Since 0.1. */
PVEC_API pvec_status pvec_memory_get_stats(pvec_memory_stats* out);

/** How the messages of a distribution call travelled (pvec_op_stats.transport). */
typedef enum pvec_transport {
  /** No messages: one rank (or no call yet). */
  PVEC_TRANSPORT_NONE = 0,
  /** MPI on the buffers of the mirror the call ran on: host buffers, or device buffers handed
   *  to a CUDA-aware MPI. */
  PVEC_TRANSPORT_MPI = 1,
  /** Device buffers copied to pinned host memory, sent by MPI, copied back. */
  PVEC_TRANSPORT_MPI_STAGED = 2,
  /** Device to device through CUDA inter-process memory: every rank on one node with the
   *  CUDA backend (each rank maps the others' receive buffers; MPI carries only sizes and
   *  synchronisation). Used for device calls wherever it works; the option PVEC_IPC=0 turns
   *  it off. */
  PVEC_TRANSPORT_CUDA_IPC = 3,
  /** Host data through shared memory: every rank on one node, on one backend. Each rank packs
   *  its blocks into its segment of a window every rank maps (MPI-3 shared memory) and the
   *  receivers read them there, straight into their rows; MPI carries only a notice per
   *  block. Used for host calls wherever it works; the option PVEC_SHM=0 turns it off (MPI
   *  then carries the blocks). */
  PVEC_TRANSPORT_SHARED_MEMORY = 4
} pvec_transport;

/** Figures of the last pvec_map, pvec_ghost_get or pvec_ghost_put on a vector, so that the
 *  on-processor work and the communication can be measured apart. */
typedef struct pvec_op_stats {
  size_t struct_size;         /**< set by the caller: sizeof(pvec_op_stats) */
  double compute_seconds;     /**< labelling, packing, unpacking, compaction (wall time) */
  double exchange_seconds;    /**< messages between ranks: MPI, host staging of device data,
                                   or CUDA IPC copies and their MPI bookkeeping */
  int64_t bytes_sent;         /**< message bytes this rank sent to other ranks */
  int64_t bytes_received;     /**< message bytes this rank received from other ranks */
  int64_t particles_sent;     /**< particles (or ghost entries) sent, own images included */
  int64_t particles_received; /**< particles (or ghost entries) received, own images included */
  /** Of particles_sent (and of particles_received): the ghost entries this rank sends itself,
   *  its periodic images. ghost_get writes them straight into the ghost rows and ghost_put
   *  reduces them straight from there; they are in no message, so bytes_sent and
   *  bytes_received leave them out. Zero for map. */
  int64_t particles_self;
  /** The pvec_transport the call's messages took (the same on every rank). */
  int64_t transport;
} pvec_op_stats;

/** Size of the first layout of pvec_op_stats: the smallest struct_size that
 *  pvec_vector_get_op_stats accepts. Since 0.1. */
#define PVEC_OP_STATS_SIZE_V1 (offsetof(pvec_op_stats, transport) + sizeof(int64_t))
#define PVEC_OP_STATS_INIT \
  { sizeof(pvec_op_stats), 0.0, 0.0, 0, 0, 0, 0, 0, 0 }

/** Read the figures of the last distribution call on vec (zeros before the first). Fields
 *  beyond out->struct_size are not written, so a caller built against an older pvec.h gets
 *  the fields it knows. Local.
 *  Errors: INVALID_HANDLE, INVALID_ARGUMENT (out NULL, or struct_size below
 *  PVEC_OP_STATS_SIZE_V1). Since 0.1. */
PVEC_API pvec_status pvec_vector_get_op_stats(pvec_vector_t vec, pvec_op_stats* out);

/* ======================================================================================= */
/* 9. Output and restart                                                                   */
/* ======================================================================================= */
/* ParaView-ready output without any dependency (VTK XML PolyData), and checkpoints through
 * parallel HDF5 that restart on any number of ranks. docs/io.md has the file layouts. Every
 * path is a file name of the local file system, seen alike by every rank (a shared file
 * system when ranks run on several nodes). Ghosts are never written. */

/** Flag of pvec_vtk_write (or-ed with PVEC_ON_DEVICE): add an Int32 point array "rank"
 *  holding the writing rank of each particle. */
#define PVEC_VTK_RANK_ARRAY (1u << 4)

/** *flag = 1 when this build writes and reads HDF5 checkpoints (built against a parallel,
 *  MPI, HDF5), else 0; without it pvec_checkpoint_write, pvec_checkpoint_describe and
 *  pvec_checkpoint_restart return PVEC_ERROR_NOT_SUPPORTED. Local. Errors: INVALID_ARGUMENT (flag
 *  NULL). Since 0.1. */
PVEC_API pvec_status pvec_has_hdf5(int* flag);

/** Write the local particles of every rank as one step of a ParaView time series:
 *    <prefix>_<step>/<name>_<rank>.vtp  one VTK XML PolyData piece per rank: the positions
 *                                       (padded with zeros to 3D), one point array per
 *                                       listed property under its name (vector[n]: n components,
 *                                       tensor[n][m]: n*m, entry (a,b) at a*m + b), one
 *                                       vertex cell per particle; binary appended data, raw
 *                                       encoding, header_type UInt64
 *    <prefix>_<step>.pvtp               the index of the pieces (rank 0)
 *    <prefix>.pvd                       the time series (rank 0): every step written so far
 *                                       with its time; rewritten on each call, keeping the
 *                                       entries already there (also those of an earlier run:
 *                                       a restarted simulation extends its series), an entry
 *                                       of the same step being replaced
 *  <name> is the last component of prefix ("run" for "out/run"), <step> is written with at
 *  least 6 digits and <rank> with at least 4 (out/run_000042/run_0003.vtp). Missing folders
 *  of prefix are created first, as mkdir -p does (every rank; ranks racing is fine). dtypes
 *  map to Float32, Float64, Int32, Int64,
 *  UInt32, UInt64. props lists the properties written, in declaration order whatever the order
 *  of the list (NULL: every property; PVEC_NO_PROPS with nprops = 0: positions only; PVEC_POS
 *  may be listed, the positions are always written): scratch arrays need not be drawn. flags:
 *  PVEC_ON_DEVICE (write the device mirror, through a staging copy; the
 *  host mirror is not touched), PVEC_VTK_RANK_ARRAY. Each file is written under a temporary
 *  name and renamed when complete; the .pvtp and .pvd only after every piece was. Collective;
 *  invalidates nothing, changes no particle.
 *  Errors: INVALID_HANDLE; INVALID_ARGUMENT (prefix NULL or empty, step < 0, time not finite,
 *  unknown flags, nprops < 0, a property listed twice, a listed property called "rank" with
 *  PVEC_VTK_RANK_ARRAY); OUT_OF_RANGE (a listed index); OUT_OF_MEMORY; CUDA;
 *  IO (a file or folder could not be written, or a component of prefix is a file: the message
 *  names it). An error on any rank is an error on every rank: the rank that failed returns
 *  its own status (IO, say), the others PVEC_ERROR_MPI naming the failing rank. Since 0.1. */
PVEC_API pvec_status pvec_vtk_write(pvec_vector_t vec, const char* prefix, int64_t step,
                                    double time, const int* props, int nprops, unsigned flags);

/** Largest number of values of one array attribute of a checkpoint's metadata. */
#define PVEC_METADATA_MAX_VALUES 4096

/** What one attribute of a checkpoint's metadata holds (pvec_checkpoint_get_metadata). */
typedef enum pvec_metadata_kind {
  PVEC_METADATA_NUMBER = 0, /**< one float64 (an HDF5 scalar attribute) */
  PVEC_METADATA_STRING = 1, /**< a string (an HDF5 scalar variable-length string) */
  PVEC_METADATA_ARRAY = 2   /**< 1 to PVEC_METADATA_MAX_VALUES float64 (a 1-D attribute) */
} pvec_metadata_kind;

/** Write a checkpoint: one HDF5 file at path holding every rank's local particles, as
 *    /positions              float32|float64 [N][dim]
 *    /properties/<name>      each listed property: its dtype, [N] (scalar), [N][n] (vector[n])
 *                            or [N][n][m] (tensor[n][m])
 *    /rank_counts            int64 [ranks]: the particles each rank wrote, in rank order
 *  (N the global count; rank r's particles at rows [sum of the counts of ranks < r, ...)), and as
 *  attributes of the root group: format "pvec-checkpoint", format_version 1, pvec_version, dim,
 *  pos_dtype, domain_lo, domain_hi, boundary, ghost_width, rank_grid and decomposition_cuts (the
 *  decomposition: ranks per dimension and their interior cuts, after pvec_vector_rebalance too),
 *  n_ranks, n_global, step, time, property_names (the listed properties in declaration order) and
 *  complete = 1. props lists the properties saved, as for pvec_vtk_write (NULL: every property;
 *  PVEC_NO_PROPS with nprops = 0: positions only): scratch arrays need not be saved, and a restart
 *  can recreate them (PVEC_RESTART_ZERO_MISSING). The attributes of /metadata are the caller's,
 *  n_attrs keys: attribute k is a string when strings != NULL and strings[k] != NULL, else float64
 *  values taken from numbers one after another in attribute order: counts[k] is the length of
 *  attribute k, an array of 1 to PVEC_METADATA_MAX_VALUES values (kind PVEC_METADATA_ARRAY, also
 *  for one value), or 0 for one number (PVEC_METADATA_NUMBER); counts NULL makes every number
 *  attribute one number; counts[k] is not read for a string. Every rank passes the same step, time,
 *  properties and attributes. The file is written as <path>.tmp and renamed to path when complete,
 *  so a crash never leaves a file at path that looks whole; an existing file at path is replaced
 *  only then. Missing folders of path are created (as mkdir -p). Before HDF5 opens the file, every
 *  rank checks its file size limit and the free space against the file's size, so a disk or limit
 *  too small for it fails at once; a write that fails later (any rank, any step) closes every HDF5
 *  object on every rank, removes <path>.tmp and leaves the previous file at path as it was. Each
 *  dataset carries an attribute "checksums": one uint64 per writing rank, the checksum of that
 *  rank's rows (docs/io.md), verified by pvec_checkpoint_restart. The file uses HDF5's 1.8 format
 *  (checksummed object headers, readable by HDF5 1.8 and later). An XDMF sidecar (path with its
 *  extension replaced by .xmf) lets ParaView open the checkpoint (dim 2 and 3). flags:
 *  PVEC_ON_DEVICE (write the device mirror through a staging copy). Collective; invalidates
 *  nothing.
 *  Errors: INVALID_HANDLE; INVALID_ARGUMENT (path NULL or empty, step < 0, time not finite, nprops
 *  < 0, a property listed twice, n_attrs < 0, keys NULL with n_attrs > 0, a key NULL, empty or
 *  repeated, a number needed but numbers NULL, counts[k] outside [0, PVEC_METADATA_MAX_VALUES],
 *  unknown flags); OUT_OF_RANGE (a listed index); OUT_OF_MEMORY; CUDA; IO (a folder cannot be made
 *  or a component of path is a file, the file would not fit the size limit or the free space, HDF5
 *  fails: the message names the file and the step); NOT_SUPPORTED (built without parallel HDF5; the
 *  message says so). An error on any rank is an error on every rank: the rank that failed returns
 *  its own status (the folders are rank 0's), the others PVEC_ERROR_MPI naming it. Since 0.1. */
PVEC_API pvec_status pvec_checkpoint_write(pvec_vector_t vec, const char* path, int64_t step,
                                           double time, const int* props, int nprops, int n_attrs,
                                           const char* const* keys, const char* const* strings,
                                           const double* numbers, const int* counts,
                                           unsigned flags);

/** Read what a checkpoint holds, to restart from it without knowing it beforehand: fills
 *  desc's dim, pos_dtype, domain_lo, domain_hi, boundary and ghost_width (desc->struct_size
 *  set by the caller, no byte beyond it written; the other fields are left as they are),
 *  creates *schema (the caller destroys it) with the file's properties in declaration order,
 *  and writes the step and time stored (step and time may be NULL; desc and schema may be
 *  NULL when not wanted). Local (every rank may call it). On error nothing is written.
 *  Errors: INVALID_ARGUMENT (path NULL, desc->struct_size too small), IO (no such file, not
 *  a complete pvec checkpoint, or a header no writer writes: an attribute or dataset missing,
 *  of another type or count, a domain that is not a finite interval, an invalid property
 *  name or extent, rank counts that are negative or do not add up, a dataset storing fewer
 *  bytes than its shape; the message names the file and the first such field: docs/io.md),
 *  OUT_OF_MEMORY, NOT_SUPPORTED. Since 0.1. */
PVEC_API pvec_status pvec_checkpoint_describe(const char* path, pvec_vector_desc* desc,
                                              pvec_schema_t* schema, int64_t* step, double* time);

/** Number of the caller's attributes stored with a checkpoint (pvec_checkpoint_write's keys,
 *  the attributes of /metadata). Local (every rank may call it); the file is validated as by
 *  pvec_checkpoint_describe.
 *  Errors: INVALID_ARGUMENT (path or count NULL); IO (as pvec_checkpoint_describe, and an
 *  attribute of /metadata that is neither a string nor a number); NOT_SUPPORTED. Since 0.1. */
PVEC_API pvec_status pvec_checkpoint_get_metadata_count(const char* path, int* count);

/** The caller's attribute index of a checkpoint (0 <= index < count; in the order of their
 *  names, bytewise): its key copied into key (key_size bytes, NUL-terminated) and its kind in
 *  *kind; *length receives its number of values (1 for PVEC_METADATA_NUMBER) or, for a string,
 *  its length without the NUL (also when the buffer for it is NULL, to size one). The values
 *  of a number or array go to numbers (room for numbers_size values), a string to text
 *  (text_size bytes, NUL-terminated). Each output may be NULL when not wanted. Local. On error
 *  nothing is written.
 *  Errors: INVALID_ARGUMENT (path NULL; key, numbers or text not NULL and too small for what it
 *  must hold, the message says how much is needed); OUT_OF_RANGE (index); IO; NOT_SUPPORTED.
 *  Since 0.1. */
PVEC_API pvec_status pvec_checkpoint_get_metadata(const char* path, int index, char* key,
                                                  size_t key_size, pvec_metadata_kind* kind,
                                                  size_t* length, double* numbers,
                                                  size_t numbers_size, char* text,
                                                  size_t text_size);

/** Flags of pvec_checkpoint_restart (bits of their own: no other call accepts them). */
enum {
  /** Properties of the schema that the file lacks start with every component 0. */
  PVEC_RESTART_ZERO_MISSING = 1u << 10,
  /** Properties of the file that the schema lacks are not read. */
  PVEC_RESTART_SKIP_EXTRA = 1u << 11
};

/** Create a vector from a checkpoint, on any number of ranks (not necessarily the number
 *  that wrote it): desc and schema are what pvec_vector_create takes (n_particles and
 *  placement are ignored), and must match the file: the same properties (names, dtypes,
 *  shapes; order may differ), dimension, position dtype, domain and boundaries; ghost_width,
 *  backend, host memory and communicator are the caller's. Rank r reads rows [r*N/M ...) of
 *  the global arrays (M ranks; ranks may start empty), or, when M is the rank count that wrote
 *  the file, the rows rank r wrote, and the vector takes the writer's boxes (its
 *  decomposition_cuts, rebalanced ones too: the map then moves nothing); then the vector is
 *  distributed with pvec_map (particles end on the rank owning their position; values bitwise
 *  as written; on the writer's rank count each rank holds the rows it wrote, in their order;
 *  on another, the boxes are equal ones: pvec_vector_rebalance follows the particles). Both
 *  mirrors hold the data (with the CUDA backend it is copied to the device). The rows are read
 *  on every host thread (pread at the offsets HDF5 reports for pvec's own contiguous datasets;
 *  other layouts through HDF5). flags: PVEC_RESTART_ZERO_MISSING (properties of schema that the
 *  file lacks are created with every component 0 on both mirrors, instead of an error),
 *  PVEC_RESTART_SKIP_EXTRA (properties of the file that schema lacks are not read, instead of an
 *  error); a property in both must match in dtype and shape whatever the flags. Collective.
 *  *out is written only on success.
 *  Errors: INVALID_ARGUMENT (path or out NULL, unknown flags, and the first mismatch between
 *  file and request, named: "property 'v' is vector[3] in the file, vector[2] requested",
 *  missing or extra property, dim, domain, boundary, pos dtype); DTYPE_MISMATCH (a
 *  property's dtype differs, named); IO (missing, truncated, corrupted or incomplete file;
 *  rows that do not match their checksum: the message names the dataset, the rows and the
 *  rank that wrote them;
 *  or a damaged header as for pvec_checkpoint_describe: the message says which, and the
 *  file is checked before the request); and those of pvec_vector_create and pvec_map;
 *  NOT_SUPPORTED. Since 0.1. */
PVEC_API pvec_status pvec_checkpoint_restart(const char* path, const pvec_vector_desc* desc,
                                             pvec_schema_t schema, unsigned flags,
                                             pvec_vector_t* out);

/* ======================================================================================= */
/* 10. Neighbour search: cell lists, locality sort, Verlet lists                           */
/* ======================================================================================= */
/*
 * The particles near each particle, as plain arrays a kernel reads directly (docs/neighbors.md
 * draws them). All indices are rows of the vector: local particles [0, n_local), ghosts after
 * them. 1, 2 and 3 dimensions (4: NOT_SUPPORTED). Built on the host mirror, or on the device
 * mirror with PVEC_ON_DEVICE (the arrays are then device memory, for CUDA kernels; with the
 * host backend they are host memory). A cutoff above the vector's ghost width is refused
 * (INVALID_ARGUMENT): neighbours across a subdomain boundary would be missed.
 *
 * What invalidates a list: a list describes the rows of the vector when it was built. Every
 * change of which particle is in which row makes it stale: pvec_map, pvec_vector_sort,
 * pvec_ghost_get with a new plan (without PVEC_GHOST_REUSE_PLAN), append, remove, resize, reserve,
 * shrink_to_fit, pvec_checkpoint_restart (a new vector). A ghost_get that replays its plan keeps
 * the rows (only their values change), so a list stays usable between rebuilds: the Verlet-skin
 * pattern of molecular dynamics. A stale list is refused by pvec_cell_list_get_info and
 * pvec_verlet_get_info (PVEC_ERROR_STATE, saying why) until it is rebuilt; the arrays of a list
 * stay allocated (and their pointers valid) until the list is rebuilt or destroyed. A list whose
 * vector was destroyed returns INVALID_HANDLE. Lists are handles of their own; they are not
 * collective (pvec_verlet_check excepted) and are destroyed by pvec_finalize. One list must
 * not be used by two threads at once; lists of one vector follow the vector's rule (one
 * thread at a time per vector).
 */

/** Flags of section 10 (or-ed with PVEC_ON_DEVICE). */
enum {
  /** pvec_cell_list_create: include the ghost rows (else the local rows only). */
  PVEC_CELLS_GHOSTS = 1u << 5,
  /** pvec_vector_sort: order the cells along a Morton (Z-order) curve, so that nearby cells are
   *  near in memory in every direction (else row-major, the last dimension fastest). */
  PVEC_SORT_MORTON = 1u << 6,
  /** pvec_vector_sort: apply the same permutation to the other mirror too (else it keeps the old
   *  order, as after pvec_map). */
  PVEC_SORT_BOTH_MIRRORS = 1u << 7,
  /** pvec_verlet_create: a half list (each pair once) instead of a full one. */
  PVEC_VERLET_HALF = 1u << 8,
  /** pvec_vector_sort: the halo-first order. The cells within one ghost width of a subdomain face
   *  come first, grouped by the faces they touch (along each dimension: low, high, inner;
   *  dimension 0 most significant), the inner cells last; row-major within a group. The
   *  particles a neighbour's ghosts copy then lie in a few runs of rows (one for each face of
   *  dimension 0), which the host ghost_get, its plan reuse and ghost_put read as streams. Not
   *  with PVEC_SORT_MORTON. */
  PVEC_SORT_HALO_FIRST = 1u << 9
};

typedef struct pvec_cell_list_s* pvec_cell_list_t;
typedef struct pvec_verlet_s* pvec_verlet_t;

/** A cell list's arrays and geometry (pvec_cell_list_get_info). Cells form a grid over the rank's
 *  subdomain widened by the ghost width, at least cutoff / cells_per_cutoff wide; cell
 *  (c0, c1, c2) is c = (c0*dims[1] + c1)*dims[2] + c2 (row-major, last dimension fastest;
 *  unused dimensions have dims 1). A position x is in cell coordinate
 *  floor((x[d] - origin[d]) * inv_width[d]) clamped to [0, dims[d]) (a ghost a few ulp
 *  outside the band is in the edge cell). The rows of cell c are
 *  cell_particles[cell_offsets[c] .. cell_offsets[c+1]), locals first, each part ascending;
 *  the first local_offsets[c+1] - local_offsets[c] of them are local. When sorted != 0 the
 *  local rows are in cell order: the locals of cell c are exactly rows
 *  local_offsets[c] .. local_offsets[c+1]-1, so a kernel over a sorted vector needs no
 *  indirection for them (after a row-major pvec_vector_sort, without PVEC_SORT_MORTON, with a cell
 *  width that gives the same cells, until the rows change; a Morton-sorted vector is near in
 *  memory but not in this list's row-major cell order, so sorted is 0 there). All particles
 *  within the cutoff of a particle in cell c are in the cells within +-span of c in every
 *  dimension. */
typedef struct pvec_cell_list_info {
  size_t struct_size;            /**< set by the caller: sizeof(pvec_cell_list_info) */
  int dim;                       /**< 1, 2 or 3 */
  int span;                      /**< cells per cutoff: neighbours lie within +-span cells */
  int on_device;                 /**< the arrays are device memory */
  int sorted;                    /**< local rows are in cell order (see above) */
  double cutoff;                 /**< the cutoff the list was built for */
  double origin[3];              /**< lower corner of cell (0,0,0) */
  double width[3];               /**< cell widths */
  double inv_width[3];           /**< 1 / width */
  int64_t dims[3];               /**< cells per dimension */
  int64_t ncells;                /**< dims[0]*dims[1]*dims[2] */
  int64_t n_local;               /**< local rows when built */
  int64_t n_entries;             /**< rows in the list: n_local, or n_local + ghosts */
  const int32_t* cell_offsets;   /**< ncells + 1 */
  const int32_t* cell_particles; /**< n_entries */
  const int32_t* local_offsets;  /**< ncells + 1: exclusive scan of each cell's local count */
} pvec_cell_list_info;

#define PVEC_CELL_LIST_INFO_INIT                                                                 \
  {                                                                                              \
    sizeof(pvec_cell_list_info), 0, 0, 0, 0, 0.0, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, 0, \
        0, 0, NULL, NULL, NULL                                                                   \
  }
#define PVEC_CELL_LIST_INFO_SIZE_V1 (offsetof(pvec_cell_list_info, local_offsets) + sizeof(void*))

/** Build a cell list of vec's rows for a cutoff (cells at least cutoff / cells_per_cutoff
 *  wide; cells_per_cutoff in [1, 8], 1 the usual). flags: PVEC_ON_DEVICE, PVEC_CELLS_GHOSTS.
 *  Local. Deterministic: the same rows give the same arrays. *out is written only on success.
 *  Errors: INVALID_HANDLE (vec), INVALID_ARGUMENT (out NULL, unknown flags, cutoff not
 *  positive and finite or above the ghost width, cells_per_cutoff out of range, a NaN or
 *  infinite position), NOT_SUPPORTED (dimension 4; 2^31 rows or cells), OUT_OF_MEMORY, CUDA.
 *  Since 0.1. */
PVEC_API pvec_status pvec_cell_list_create(pvec_vector_t vec, double cutoff, int cells_per_cutoff,
                                           unsigned flags, pvec_cell_list_t* out);

/** Rebuild the list from the vector's rows as they are now (same cutoff and flags); the
 *  arrays are reused when large enough. Local. On error the list is stale until a build
 *  succeeds. Errors: INVALID_HANDLE (list, or its vector destroyed), and those of
 *  pvec_cell_list_create. Since 0.1. */
PVEC_API pvec_status pvec_cell_list_build(pvec_cell_list_t list);

/** Fill *out (struct_size set by the caller). Local. The pointers are valid until the list
 *  is rebuilt or destroyed. Errors: INVALID_HANDLE, INVALID_ARGUMENT (out NULL or
 *  struct_size below PVEC_CELL_LIST_INFO_SIZE_V1), STATE (stale: the rows changed since the
 *  build; the message says to rebuild). Since 0.1. */
PVEC_API pvec_status pvec_cell_list_get_info(pvec_cell_list_t list, pvec_cell_list_info* out);

/** Free the list. Its arrays are invalid afterwards. Local.
 *  Errors: INVALID_HANDLE (NULL, or already destroyed). Since 0.1. */
PVEC_API pvec_status pvec_cell_list_destroy(pvec_cell_list_t list);

/** Reorder the local particles of the host mirror (PVEC_ON_DEVICE: the device mirror) by
 *  cell: all properties and the positions, stably (particles of one cell keep their relative
 *  order). The cells are those of a cell list of cutoff cell_width (cell_width the cutoff,
 *  typically) with one cell per cutoff: a grid over the subdomain widened by the ghost width,
 *  origin at its low corner, cells at least cell_width wide (pvec_cell_list_info gives the same
 *  origin and widths). Row-major cell order by default (the last dimension fastest); with
 *  PVEC_SORT_MORTON the cells follow the Z-order curve: cell coordinates interleaved bit by bit
 *  from the highest bit, dimension 0 first within a bit (so (c0, c1) = (1, 0) comes after
 *  (0, 1)); with PVEC_SORT_HALO_FIRST the halo-first order (the flag says what). The cell
 *  lists' `sorted` is 1 only after a row-major sort. With PVEC_SORT_BOTH_MIRRORS the other
 *  mirror is permuted the same way (else it keeps the old order, as after pvec_map). Ghost
 *  rows do not move; the next ghost_get brings ghosts in the order of their owners' (sorted)
 *  rows. Local. When the rows are in cell order already nothing moves and nothing is
 *  invalidated; otherwise the generation changes (pointers are invalid: each column gets a
 *  new buffer, the old one is kept as spare for the next sort and counted by
 *  pvec_memory_get_stats), the ghost plan is forgotten (the next ghost_get builds one) and
 *  lists are stale. *moved (may be NULL) tells which. Work memory, kept by the vector for the
 *  next sort and counted by pvec_memory_get_stats: O(local rows + cells) in every order (a
 *  few 4-byte entries per row and per cell), besides the spare columns.
 *  Errors: INVALID_HANDLE, INVALID_ARGUMENT (unknown flags, PVEC_SORT_MORTON with
 *  PVEC_SORT_HALO_FIRST, cell_width not positive and finite, a NaN or infinite local
 *  position), NOT_SUPPORTED (dimension 4; 2^31 rows or cells), OUT_OF_MEMORY, CUDA; the vector
 *  is unchanged on error. Since 0.1. */
PVEC_API pvec_status pvec_vector_sort(pvec_vector_t vec, double cell_width, unsigned flags,
                                      int* moved);

/** A Verlet list's arrays (pvec_verlet_get_info): the neighbours of local particle i are the rows
 *  neighbors[offsets[i] .. offsets[i+1]) (local or ghost), every row closer than
 *  cutoff + skin to i when the list was built (distance computed in the position dtype,
 *  strictly less). offsets has n + 1 entries (64-bit: pair counts may pass 2^31). A full list
 *  holds both (i, j) and (j, i). A half list holds each pair once: two locals i < j in the
 *  list of the one whose cell comes first in a half stencil (the same cell: in i's); a
 *  local i and a ghost g in i's list when g's owner rank is above this rank, or, for this
 *  rank's own periodic images, when the image's periodic shift is positive (its first nonzero
 *  component). The rank that owns the other particle never lists the pair, so a kernel that
 *  adds f to i and -f to g, followed by pvec_ghost_put(PVEC_REDUCE_ADD), counts every pair
 *  exactly once in the whole run. Neighbours of one particle are in cell order,
 *  deterministically. */
typedef struct pvec_verlet_info {
  size_t struct_size;       /**< set by the caller: sizeof(pvec_verlet_info) */
  int half;                 /**< a half list */
  int on_device;            /**< the arrays are device memory */
  double cutoff;            /**< the interaction cutoff */
  double skin;              /**< the list holds pairs closer than cutoff + skin */
  int64_t n;                /**< local particles with a list (n_local when built) */
  int64_t n_pairs;          /**< entries: offsets[n] */
  const int64_t* offsets;   /**< n + 1 */
  const int32_t* neighbors; /**< n_pairs */
} pvec_verlet_info;

#define PVEC_VERLET_INFO_INIT \
  { sizeof(pvec_verlet_info), 0, 0, 0.0, 0.0, 0, 0, NULL, NULL }
#define PVEC_VERLET_INFO_SIZE_V1 (offsetof(pvec_verlet_info, neighbors) + sizeof(void*))

/** Build a Verlet list of vec's local particles over its local and ghost rows, for pairs
 *  closer than cutoff + skin (cutoff + skin at most the ghost width), from a cell list of
 *  cells_per_cutoff cells per (cutoff + skin) (1 or 2 are the useful values). flags:
 *  PVEC_ON_DEVICE, PVEC_VERLET_HALF. A half list over ghosts needs the ghosts of the last
 *  ghost_get (with its plan still valid), so it can tell who owns each. The positions of the
 *  local particles are kept as the reference of pvec_verlet_check. No maximum neighbour
 *  count: the arrays grow to fit and are reused by later builds. Local. Deterministic.
 *  *out is written only on success.
 *  Errors: INVALID_HANDLE, INVALID_ARGUMENT (out NULL, unknown flags, cutoff not positive,
 *  skin negative, either not finite, cutoff + skin above the ghost width, cells_per_cutoff
 *  out of [1, 8], a NaN or infinite position), STATE (a half list whose ghosts do not come
 *  from the last valid ghost plan), NOT_SUPPORTED (dimension 4; 2^31 rows or cells),
 *  OUT_OF_MEMORY, CUDA. Since 0.1. */
PVEC_API pvec_status pvec_verlet_create(pvec_vector_t vec, double cutoff, double skin,
                                        int cells_per_cutoff, unsigned flags, pvec_verlet_t* out);

/** What pvec_verlet_create_with builds. Fill it with PVEC_VERLET_OPTIONS_INIT (or
 *  pvec_verlet_options_init), then set fields; fields are only ever appended.
 *
 *  key_prop orders each particle's neighbours by a key instead of by cell: a scalar integer
 *  property (INT32, UINT32, INT64 or UINT64; signed keys in signed order) holding a global id,
 *  so that a loop over a full list visits the same neighbours in the same order on any
 *  decomposition, rank count, after a rebalance or a restart, and floating-point sums over it
 *  are bitwise the same (docs/neighbors.md). Ascending key, ties in row order (keys are meant
 *  to be unique). A half list can be key-ordered too, but which rank lists a pair across a
 *  boundary depends on the decomposition.
 *
 *  skip_prop filters pairs inside the build: a scalar integer property, and a pair of two
 *  particles that both hold a nonzero value is left out (fixed wall particles, whose mutual
 *  pairs no force loop needs). Pairs with one flagged particle stay.
 *
 *  Both properties are read on the mirror the list is built on, on the local and ghost rows:
 *  the ghost rows must be current there (brought by a ghost_get on that mirror since the one
 *  that made them, or copied by a transfer from a mirror where they were), else the build
 *  returns STATE naming the property.
 *
 *  source lists the neighbours in another vector: for each local particle of vec, the rows
 *  (local and ghost) of source closer than cutoff + skin (fluid particles' wall neighbours,
 *  with no common vector). Both vectors must have the same boxes (one follows the other:
 *  pvec_vector_follow; checked at every build, STATE otherwise), the same position dtype and
 *  backend; cutoff + skin at most source's ghost width (vec's own ghosts are not read). A full
 *  list only (no PVEC_VERLET_HALF, no skip_prop); key_prop is then a property of source. The
 *  list is stale when the rows of either vector change, and pvec_verlet_check watches the
 *  local particles of both. */
typedef struct pvec_verlet_options {
  size_t struct_size;   /**< sizeof(pvec_verlet_options) of the caller */
  double cutoff;        /**< interaction cutoff, > 0 */
  double skin;          /**< >= 0; the list holds pairs closer than cutoff + skin */
  int cells_per_cutoff; /**< cells per (cutoff + skin) of the cell list used, 1..8 (default 1) */
  unsigned flags;       /**< PVEC_ON_DEVICE, PVEC_VERLET_HALF (default 0) */
  int key_prop;         /**< PVEC_NO_PROPERTY (default), or the key property (see above) */
  int skip_prop;        /**< PVEC_NO_PROPERTY (default), or the pair filter's property */
  pvec_vector_t source; /**< NULL (default): the vector itself; else the vector whose rows
                             are the neighbours (see above) */
} pvec_verlet_options;

#define PVEC_VERLET_OPTIONS_INIT \
  { sizeof(pvec_verlet_options), 0.0, 0.0, 1, 0, PVEC_NO_PROPERTY, PVEC_NO_PROPERTY, NULL }
/** Size of the first layout of pvec_verlet_options. Since 0.1. */
#define PVEC_VERLET_OPTIONS_SIZE_V1 (offsetof(pvec_verlet_options, skip_prop) + sizeof(int))

/** Fill *opts with the defaults of PVEC_VERLET_OPTIONS_INIT (for languages without macros;
 *  as pvec_vector_desc_init). Local. Errors: INVALID_ARGUMENT (opts NULL). Since 0.1. */
PVEC_API pvec_status pvec_verlet_options_init(pvec_verlet_options* opts);

/** pvec_verlet_create with options: the same list, and with key_prop its neighbours in key
 *  order, with skip_prop without the pairs the filter names. pvec_verlet_build, _check,
 *  _get_info and _destroy work on it as on any list; a rebuild keeps the options. Local.
 *  *out is written only on success.
 *  Errors: those of pvec_verlet_create; INVALID_HANDLE (source not NULL and not a live
 *  vector); INVALID_ARGUMENT (opts NULL or its struct_size below PVEC_VERLET_OPTIONS_SIZE_V1;
 *  key_prop or skip_prop PVEC_POS or not a scalar; with a source: PVEC_VERLET_HALF, a
 *  skip_prop, another position dtype or backend, cutoff + skin above its ghost width);
 *  OUT_OF_RANGE (key_prop or skip_prop neither a property index nor PVEC_NO_PROPERTY);
 *  DTYPE_MISMATCH (key_prop or skip_prop not an integer property); STATE (the property's
 *  ghost rows are not current on the mirror the list is built on; the message names it and
 *  says which ghost_get brings them; source's boxes differ from vec's). Since 0.1. */
PVEC_API pvec_status pvec_verlet_create_with(pvec_vector_t vec, const pvec_verlet_options* opts,
                                             pvec_verlet_t* out);

/** Rebuild the list from the rows as they are now (after map and a new ghost_get, typically).
 *  On the device a rebuild is one pass where the room of the last build suffices: it keeps a
 *  device work array of padded rows (each particle's room the last build's largest count and
 *  an eighth more; used only while that is at most 4 times the list's entries and half of
 *  the free device memory), and falls back to count + fill when a count outgrew the room.
 *  The arrays are the same either way; reuse one list rather than creating a new one per
 *  rebuild. Local. On error the list is stale until a build succeeds. Errors: as
 *  pvec_verlet_create (or pvec_verlet_create_with, whose options a rebuild keeps and checks
 *  again: STATE for stale ghost rows of the key or filter, or a source whose boxes differ),
 *  and INVALID_HANDLE (list, its vector or its source destroyed). Since 0.1. */
PVEC_API pvec_status pvec_verlet_build(pvec_verlet_t list);

/** Fill *out. Local. Pointers valid until the list is rebuilt or destroyed.
 *  Errors: INVALID_HANDLE, INVALID_ARGUMENT (out NULL, struct_size too small), STATE (stale).
 *  Since 0.1. */
PVEC_API pvec_status pvec_verlet_get_info(pvec_verlet_t list, pvec_verlet_info* out);

/** *rebuild = 1 when on any rank some local particle (of a list with a source, of either
 *  vector) moved more than skin / 2 from where it was at the build (on the mirror the list was
 *  built on: the GPU reads the positions and only a flag comes back), or the list is stale;
 *  else 0. The same answer on every rank, so that
 *  all ranks rebuild together (map, ghost_get, pvec_verlet_build). Collective.
 *  Errors: INVALID_HANDLE, INVALID_ARGUMENT (rebuild NULL), CUDA, MPI. Since 0.1. */
PVEC_API pvec_status pvec_verlet_check(pvec_verlet_t list, int* rebuild);

/** Free the list. Its arrays are invalid afterwards. Local.
 *  Errors: INVALID_HANDLE (NULL, or already destroyed). Since 0.1. */
PVEC_API pvec_status pvec_verlet_destroy(pvec_verlet_t list);

/* ======================================================================================= */
/* 11. Load balance                                                                        */
/* ======================================================================================= */
/* How evenly the particles, or the work they cost, are spread over the ranks
 * (docs/balance.md). A weight is a scalar float32 or float64 property holding each particle's
 * cost (finite, >= 0); PVEC_NO_WEIGHT counts particles instead. */

/** Weight argument meaning "every particle costs the same": count particles. */
#define PVEC_NO_WEIGHT (-2)

/** The imbalance of the local particles over the vector's ranks: *count_imbalance = the
 *  largest local count over the mean local count, *weight_imbalance = the same of each rank's
 *  sum of property weight_prop (PVEC_NO_WEIGHT: the counts again). 1 is perfect balance, the
 *  rank count the worst (one rank holds everything); 1 when there is no particle, or no
 *  weight, anywhere. Ghosts do not count. The weights are read on the host mirror, or on the
 *  device mirror with PVEC_ON_DEVICE (summed on the GPU, only the sums reach the host). Either
 *  output may be NULL. Collective: every rank passes the same weight_prop and flags (checked
 *  first: ranks that differ make every rank return INVALID_ARGUMENT); changes nothing,
 *  invalidates nothing. On error nothing is written.
 *  Errors: INVALID_HANDLE; OUT_OF_RANGE (weight_prop is none of: a property index,
 *  PVEC_NO_WEIGHT, PVEC_POS); INVALID_ARGUMENT (ranks passing different arguments; weight_prop
 *  is PVEC_POS or not a scalar; a weight negative, NaN or infinite on some rank: every rank
 *  returns it, naming the lowest such rank; unknown flags); DTYPE_MISMATCH (the weight is not
 *  float32 or float64); CUDA; MPI. Since 0.1. */
PVEC_API pvec_status pvec_vector_get_imbalance(pvec_vector_t vec, int weight_prop, unsigned flags,
                                               double* count_imbalance, double* weight_imbalance);

/** Rebalance: when the imbalance (pvec_vector_get_imbalance of weight_prop's sums, or of the
 *  counts with PVEC_NO_WEIGHT) exceeds threshold (>= 1; 1 rebalances whenever anything is
 *  uneven), replace the decomposition by one that follows the particles and map them to it
 *  (one pvec_map). Each rank still owns one box: the boxes form a rectilinear grid whose cut
 *  planes split the weight evenly (docs/balance.md), so pvec_vector_get_subdomain,
 *  pvec_vector_get_owner_rank, ghost_get (periodic images too), ghost_put, cell and Verlet
 *  lists and the output keep their meaning. Deterministic: the same particles and weights give
 *  the same boxes, on the host or the device. Particles piled on one value leave empty boxes
 *  rather than failing. *before receives the imbalance measured first, *after the one of the
 *  new boxes (equal to *before when nothing was done); either may be NULL. The positions (and
 *  weights) are read on the host mirror, or with PVEC_ON_DEVICE on the device mirror, and the
 *  map runs there. Collective: every rank passes the same weight_prop, threshold and flags
 *  (checked first, as for pvec_vector_get_imbalance). When it rebalances it invalidates what
 *  pvec_map invalidates (pointers, ghosts, plans, lists); otherwise it changes nothing.
 *  Vectors that follow vec (pvec_vector_follow) take the new boxes and are mapped in the same
 *  call; when a map fails, every vector goes back to the old boxes.
 *  Errors: those of pvec_vector_get_imbalance; INVALID_ARGUMENT (threshold below 1 or not
 *  finite); STATE (vec follows another vector: rebalance its leader); those of pvec_map
 *  (PARTICLES_OUTSIDE: the decomposition and the particles stay as they were). Since 0.1. */
PVEC_API pvec_status pvec_vector_rebalance(pvec_vector_t vec, int weight_prop, double threshold,
                                           unsigned flags, double* before, double* after);

/** Share a decomposition: vec takes leader's boxes now and at every later
 *  pvec_vector_rebalance of leader, which maps vec too (on the mirror that call's flags name),
 *  so that particles of both vectors near each other live on the same rank (fluid and wall
 *  particles, a tracer set), and neighbour lists between them (pvec_verlet_options.source) are
 *  possible. The rebalance weighs the leader's particles only. When the boxes differ, vec's
 *  particles are mapped to them now (flags: PVEC_ON_DEVICE maps the device mirror). leader
 *  NULL: vec stops following and keeps its boxes (nothing moves). A follower cannot be
 *  rebalanced itself (STATE) and cannot be followed; destroying the leader leaves its
 *  followers on their own with the boxes they have. A checkpoint records the boxes, not the
 *  link: after a restart call this again. Collective over vec's communicator: every rank passes
 *  the same flags and a leader or NULL alike (checked first). Invalidates what pvec_map
 *  invalidates on vec when its boxes change; nothing otherwise.
 *  Errors: INVALID_HANDLE (vec; leader not NULL and not a live vector); INVALID_ARGUMENT (leader
 *  is vec; another dimension, domain or boundary; a communicator with other ranks or another
 *  order; unknown flags; ranks passing different arguments); STATE (vec is followed by other
 *  vectors; leader follows another vector: follow that one); those of pvec_map (then vec
 *  keeps its boxes and particles); MPI. Since 0.1. */
PVEC_API pvec_status pvec_vector_follow(pvec_vector_t vec, pvec_vector_t leader, unsigned flags);

#ifdef __cplusplus
}
#endif

/* With <mpi.h> included first, a C or C++ program can pass a communicator directly. */
#if defined(MPI_VERSION) && !defined(PVEC_NO_MPI_HELPERS)
static inline void pvec_vector_desc_set_comm(pvec_vector_desc* desc, MPI_Comm comm) {
  desc->has_comm = 1;
  desc->comm_f = (int64_t)MPI_Comm_c2f(comm);
}
#endif

#endif /* PVEC_H */
