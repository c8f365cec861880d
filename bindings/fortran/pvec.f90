!> pvec -- Fortran binding of the pvec C ABI (include/pvec.h).
!> (Long because a Fortran module is one file: the whole binding, interfaces then wrappers.)
!>
!> Two layers, both public:
!>
!>   c_pvec_<name>   one bind(C) interface per function of pvec.h, with bind(C, name='pvec_<name>'):
!>                   handles as type(c_ptr) by value, statuses as integer(c_int), strings as
!>                   NUL-terminated type(c_ptr). Use them when you need exactly the C behaviour.
!>   pvec_<name>     readable wrappers: type(pvec_vector)/type(pvec_schema) handles, Fortran
!>                   strings in and out, optional arguments, 1-based particle indices, and an
!>                   optional `stat` argument. Without `stat`, a failure prints the message to
!>                   error_unit and stops the program (error stop <status>); with `stat`, the
!>                   status is returned and the program continues. pvec_last_error() then
!>                   explains the failure. An optional `errmsg` (any character variable)
!>                   receives that message on failure and is untouched on success, as in
!>                   ALLOCATE.
!>
!> Indexing (see docs/fortran.md for the full table). C stores particle i, component c of a
!> property at base[c*C + i] with C the capacity. pvec_host_view returns a Fortran pointer whose
!> leading dimension is C, so with 1-based Fortran indices:
!>
!>   scalar           v(i)           = base[i-1]
!>   vector[n]        v(i, c+1)      = base[c*C + i-1]
!>   tensor[n][m]     v(i, b+1, a+1) = base[(a*m + b)*C + i-1]      (C entry (a,b); v is C x m x n)
!>   positions        x(i, d+1)      = pos[d*C + i-1]
!>
!> Property indices are identifiers, not array indices: use the value pvec_schema_add or
!> pvec_vector_get_prop_index gave you (0, 1, ... in declaration order, as in C) and PVEC_POS for the
!> positions. Particle indices taken or returned by the wrappers (pvec_vector_append's first,
!> pvec_vector_remove's list) are 1-based, matching the views.
module pvec
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: error_unit
  implicit none
  private

  ! ---- Versions ----------------------------------------------------------------------------------
  !> Version of pvec.h this module was written for. C's PVEC_VERSION_NUMBER macro is named
  !> PVEC_BINDING_VERSION_NUMBER here: Fortran names ignore case, and pvec_version_number is
  !> the function giving the version of the loaded library.
  integer(c_int), parameter, public :: PVEC_VERSION_MAJOR = 0
  integer(c_int), parameter, public :: PVEC_VERSION_MINOR = 1
  integer(c_int), parameter, public :: PVEC_VERSION_PATCH = 0
  integer(c_int), parameter, public :: PVEC_BINDING_VERSION_NUMBER = &
                                       PVEC_VERSION_MAJOR*10000 + PVEC_VERSION_MINOR*100 + &
                                       PVEC_VERSION_PATCH

  ! ---- pvec_status -------------------------------------------------------------------------------
  integer(c_int), parameter, public :: PVEC_SUCCESS = 0
  integer(c_int), parameter, public :: PVEC_ERROR_INVALID_ARGUMENT = 1
  integer(c_int), parameter, public :: PVEC_ERROR_INVALID_HANDLE = 2
  integer(c_int), parameter, public :: PVEC_ERROR_OUT_OF_RANGE = 3
  integer(c_int), parameter, public :: PVEC_ERROR_OVERFLOW = 4
  integer(c_int), parameter, public :: PVEC_ERROR_OUT_OF_MEMORY = 5
  integer(c_int), parameter, public :: PVEC_ERROR_NO_DEVICE = 6
  integer(c_int), parameter, public :: PVEC_ERROR_CUDA = 7
  integer(c_int), parameter, public :: PVEC_ERROR_MPI = 8
  integer(c_int), parameter, public :: PVEC_ERROR_STATE = 9
  integer(c_int), parameter, public :: PVEC_ERROR_PARTICLES_OUTSIDE = 10
  integer(c_int), parameter, public :: PVEC_ERROR_DTYPE_MISMATCH = 11
  integer(c_int), parameter, public :: PVEC_ERROR_NOT_SUPPORTED = 12
  integer(c_int), parameter, public :: PVEC_ERROR_INTERNAL = 13
  integer(c_int), parameter, public :: PVEC_ERROR_IO = 14

  ! ---- pvec_dtype --------------------------------------------------------------------------------
  !> Unsigned dtypes have no Fortran kind: their views use the signed integer of the same size.
  integer(c_int), parameter, public :: PVEC_FLOAT32 = 1
  integer(c_int), parameter, public :: PVEC_FLOAT64 = 2
  integer(c_int), parameter, public :: PVEC_INT32 = 3
  integer(c_int), parameter, public :: PVEC_INT64 = 4
  integer(c_int), parameter, public :: PVEC_UINT32 = 5
  integer(c_int), parameter, public :: PVEC_UINT64 = 6

  ! ---- Limits and special values -----------------------------------------------------------------
  integer(c_int), parameter, public :: PVEC_MAX_RANK = 2
  integer(c_int), parameter, public :: PVEC_MAX_NAME = 63
  integer(c_int), parameter, public :: PVEC_MAX_DIM = 4
  !> Property index naming the positions.
  integer(c_int), parameter, public :: PVEC_POS = -1
  !> The C sentinel for an empty property list (its address value). In Fortran pass a
  !> zero-size array instead.
  integer(c_intptr_t), parameter, public :: PVEC_NO_PROPS = -1_c_intptr_t

  ! ---- Sizes of the first two layouts of pvec_op_stats -------------------------------------------
  !> The smallest struct_size pvec_vector_get_op_stats accepts (without particles_self), and the size
  !> with particles_self but without transport.
  integer(c_size_t), parameter, public :: PVEC_OP_STATS_SIZE_V1 = &
                                          storage_size(0_c_size_t)/8 + 2*8 + 4*8
  integer(c_size_t), parameter, public :: PVEC_OP_STATS_SIZE_V2 = PVEC_OP_STATS_SIZE_V1 + 8
  !> Sizes of the first layouts of the other versioned structs (the smallest struct_size pvec
  !> accepts; LP64 targets, checked against pvec.h by the ABI tests).
  integer(c_size_t), parameter, public :: PVEC_VECTOR_DESC_SIZE_V1 = 136
  integer(c_size_t), parameter, public :: PVEC_LAYOUT_SIZE_V1 = 136
  integer(c_size_t), parameter, public :: PVEC_MEMORY_STATS_SIZE_V1 = 56
  integer(c_size_t), parameter, public :: PVEC_CELL_LIST_INFO_SIZE_V1 = 176
  integer(c_size_t), parameter, public :: PVEC_VERLET_INFO_SIZE_V1 = 64

  ! ---- pvec_boundary, pvec_backend, pvec_host_memory, pvec_placement -----------------------------
  integer(c_int), parameter, public :: PVEC_NON_PERIODIC = 0
  integer(c_int), parameter, public :: PVEC_PERIODIC = 1
  integer(c_int), parameter, public :: PVEC_BACKEND_AUTO = 0
  integer(c_int), parameter, public :: PVEC_BACKEND_HOST = 1
  integer(c_int), parameter, public :: PVEC_BACKEND_CUDA = 2
  integer(c_int), parameter, public :: PVEC_HOST_PINNED = 0
  integer(c_int), parameter, public :: PVEC_HOST_PAGEABLE = 1
  integer(c_int), parameter, public :: PVEC_PLACE_EVEN = 0
  integer(c_int), parameter, public :: PVEC_PLACE_LOCAL = 1

  ! ---- Flags of map / ghost_get / ghost_put (combine with ior) -----------------------------------
  integer(c_int), parameter, public :: PVEC_ON_DEVICE = 1
  integer(c_int), parameter, public :: PVEC_MAP_REMOVE_OUTSIDE = 2
  integer(c_int), parameter, public :: PVEC_GHOST_SKIP_POSITIONS = 4
  integer(c_int), parameter, public :: PVEC_GHOST_REUSE_PLAN = 8
  !> 9. Output and restart: flag of pvec_vtk_write (an Int32 point array "rank").
  integer(c_int), parameter, public :: PVEC_VTK_RANK_ARRAY = 16
  !> Flags of section 10 (neighbour search), or-ed (ior) with PVEC_ON_DEVICE.
  integer(c_int), parameter, public :: PVEC_CELLS_GHOSTS = 32
  integer(c_int), parameter, public :: PVEC_SORT_MORTON = 64
  integer(c_int), parameter, public :: PVEC_SORT_BOTH_MIRRORS = 128
  integer(c_int), parameter, public :: PVEC_VERLET_HALF = 256
  integer(c_int), parameter, public :: PVEC_SORT_HALO_FIRST = 512

  ! ---- pvec_reduce_op ----------------------------------------------------------------------------
  integer(c_int), parameter, public :: PVEC_REDUCE_ADD = 0
  integer(c_int), parameter, public :: PVEC_REDUCE_MIN = 1
  integer(c_int), parameter, public :: PVEC_REDUCE_MAX = 2
  integer(c_int), parameter, public :: PVEC_REDUCE_REPLACE = 3

  ! ---- pvec_transport (pvec_op_stats%transport) --------------------------------------------
  integer(c_int), parameter, public :: PVEC_TRANSPORT_NONE = 0
  integer(c_int), parameter, public :: PVEC_TRANSPORT_MPI = 1
  integer(c_int), parameter, public :: PVEC_TRANSPORT_MPI_STAGED = 2
  integer(c_int), parameter, public :: PVEC_TRANSPORT_CUDA_IPC = 3
  integer(c_int), parameter, public :: PVEC_TRANSPORT_SHARED_MEMORY = 4

  ! ---- Handles -----------------------------------------------------------------------------------
  !> A vector (pvec_vector_t). A default-initialised one is the NULL handle. To hand it to C,
  !> C++ or CUDA code, pass pvec_c_handle(vec) (the pvec_vector_t itself, a type(c_ptr));
  !> pvec_vector_from_c(h) wraps a handle that C created. (The component h is that pointer; it
  !> stays public for existing code, but pvec_c_handle is the documented way.)
  type, public :: pvec_vector
    type(c_ptr) :: h = c_null_ptr
  end type pvec_vector

  !> A schema (pvec_schema_t). A default-initialised one is the NULL handle. pvec_c_handle and
  !> pvec_schema_from_c convert it to and from C's pvec_schema_t.
  type, public :: pvec_schema
    type(c_ptr) :: h = c_null_ptr
  end type pvec_schema

  ! ---- Structs, field for field as in pvec.h -----------------------------------------------------
  !> pvec_vector_desc. Default values are those of PVEC_VECTOR_DESC_INIT; struct_size is set by
  !> pvec_vector_create (the wrapper), so leave it alone unless you call c_pvec_vector_create.
  !> Arrays are 1-based: domain_lo(d+1) is C's domain_lo[d].
  type, bind(C), public :: pvec_vector_desc
    integer(c_size_t) :: struct_size = 0
    integer(c_int) :: dim = 3
    integer(c_int) :: pos_dtype = PVEC_FLOAT64
    real(c_double) :: domain_lo(PVEC_MAX_DIM) = 0.0_c_double
    real(c_double) :: domain_hi(PVEC_MAX_DIM) = 1.0_c_double
    integer(c_int) :: boundary(PVEC_MAX_DIM) = PVEC_NON_PERIODIC
    real(c_double) :: ghost_width = 0.0_c_double
    integer(c_int64_t) :: n_particles = 0
    integer(c_int) :: placement = PVEC_PLACE_EVEN
    integer(c_int) :: backend = PVEC_BACKEND_AUTO
    integer(c_int) :: host_memory = PVEC_HOST_PINNED
    integer(c_int) :: has_comm = 0
    integer(c_int64_t) :: comm_f = 0
  end type pvec_vector_desc

  !> pvec_layout. extents(1) is C's extents[0]. generation is uint64 in C (bit pattern kept).
  !> name is a NUL-terminated C string: pvec_c_string(layout%name) gives it as a Fortran string.
  type, bind(C), public :: pvec_layout
    integer(c_size_t) :: struct_size = 0
    integer(c_int) :: prop = 0
    type(c_ptr) :: name = c_null_ptr
    integer(c_int) :: dtype = 0
    integer(c_size_t) :: elem_size = 0
    integer(c_int) :: rank = 0
    integer(c_int64_t) :: extents(PVEC_MAX_RANK) = 1
    integer(c_int64_t) :: ncomp = 0
    integer(c_int64_t) :: capacity = 0
    integer(c_int64_t) :: stride_elems = 0
    integer(c_int64_t) :: stride_bytes = 0
    integer(c_int64_t) :: n_local = 0
    integer(c_int64_t) :: n_ghost = 0
    integer(c_int64_t) :: generation = 0
    type(c_ptr) :: host_ptr = c_null_ptr
    type(c_ptr) :: device_ptr = c_null_ptr
  end type pvec_layout

  !> pvec_memory_stats.
  type, bind(C), public :: pvec_memory_stats
    integer(c_size_t) :: struct_size = 0
    integer(c_int64_t) :: host_bytes = 0
    integer(c_int64_t) :: pinned_bytes = 0
    integer(c_int64_t) :: device_bytes = 0
    integer(c_int64_t) :: host_allocs = 0
    integer(c_int64_t) :: pinned_allocs = 0
    integer(c_int64_t) :: device_allocs = 0
  end type pvec_memory_stats

  !> pvec_op_stats: figures of the last pvec_map / pvec_ghost_get / pvec_ghost_put.
  type, bind(C), public :: pvec_op_stats
    integer(c_size_t) :: struct_size = 0
    real(c_double) :: compute_seconds = 0
    real(c_double) :: exchange_seconds = 0
    integer(c_int64_t) :: bytes_sent = 0
    integer(c_int64_t) :: bytes_received = 0
    integer(c_int64_t) :: particles_sent = 0
    integer(c_int64_t) :: particles_received = 0
    integer(c_int64_t) :: particles_self = 0
    integer(c_int64_t) :: transport = 0  !< a PVEC_TRANSPORT_* value
  end type pvec_op_stats

  !> A cell list (pvec_cell_list_t) and a Verlet list (pvec_verlet_t); default-initialised: NULL.
  type, public :: pvec_cell_list
    type(c_ptr) :: h = c_null_ptr
  end type pvec_cell_list
  type, public :: pvec_verlet
    type(c_ptr) :: h = c_null_ptr
  end type pvec_verlet

  !> pvec_cell_list_info (pvec_cell_list_get_info). origin(d+1), width(d+1), inv_width(d+1),
  !> dims(d+1) are C's [d]. The three arrays are C pointers: in host memory (on_device == 0:
  !> built on the host mirror, or on the device mirror of the host backend)
  !> pvec_cell_list_arrays maps them to Fortran arrays; with on_device /= 0 they are CUDA
  !> addresses for CUDA Fortran / OpenACC. They hold 0-based C values: cell c (0-based,
  !> c = (c0*dims(2) + c1)*dims(3) + c2) is cell_offsets(c+1) of the Fortran array, and a row
  !> r in cell_particles is Fortran particle r + 1.
  type, bind(C), public :: pvec_cell_list_info
    integer(c_size_t) :: struct_size = 0
    integer(c_int) :: dim = 0
    integer(c_int) :: span = 0
    integer(c_int) :: on_device = 0
    integer(c_int) :: sorted = 0
    real(c_double) :: cutoff = 0
    real(c_double) :: origin(3) = 0
    real(c_double) :: width(3) = 0
    real(c_double) :: inv_width(3) = 0
    integer(c_int64_t) :: dims(3) = 0
    integer(c_int64_t) :: ncells = 0
    integer(c_int64_t) :: n_local = 0
    integer(c_int64_t) :: n_entries = 0
    type(c_ptr) :: cell_offsets = c_null_ptr    !< int32, ncells + 1
    type(c_ptr) :: cell_particles = c_null_ptr  !< int32, n_entries (0-based rows)
    type(c_ptr) :: local_offsets = c_null_ptr   !< int32, ncells + 1
  end type pvec_cell_list_info

  !> pvec_verlet_info (pvec_verlet_get_info). offsets: int64, n + 1 entries; neighbors: int32,
  !> n_pairs entries, 0-based rows (local or ghost). See pvec_verlet_arrays for the loop.
  type, bind(C), public :: pvec_verlet_info
    integer(c_size_t) :: struct_size = 0
    integer(c_int) :: half = 0
    integer(c_int) :: on_device = 0
    real(c_double) :: cutoff = 0
    real(c_double) :: skin = 0
    integer(c_int64_t) :: n = 0
    integer(c_int64_t) :: n_pairs = 0
    type(c_ptr) :: offsets = c_null_ptr
    type(c_ptr) :: neighbors = c_null_ptr
  end type pvec_verlet_info

  ! ---- The C ABI, one interface per function of pvec.h -------------------------------------------
  ! Enums travel as integer(c_int), unsigned flags as integer(c_int) (same size and bits),
  ! uint64 as integer(c_int64_t), pvec_stream_t and handles as type(c_ptr).
  public :: c_pvec_version_number, c_pvec_version_string, c_pvec_status_string
  public :: c_pvec_last_error, c_pvec_init, c_pvec_finalize, c_pvec_initialized
  public :: c_pvec_cuda_device_count, c_pvec_dtype_size, c_pvec_dtype_name
  public :: c_pvec_schema_create, c_pvec_schema_destroy, c_pvec_schema_add
  public :: c_pvec_schema_add_scalar, c_pvec_schema_add_vector, c_pvec_schema_add_tensor
  public :: c_pvec_schema_get_count, c_pvec_vector_desc_init, c_pvec_vector_create
  public :: c_pvec_vector_destroy, c_pvec_vector_get_size, c_pvec_vector_get_ghost_size
  public :: c_pvec_vector_get_capacity, c_pvec_vector_get_dim
  public :: c_pvec_vector_get_pos_dtype, c_pvec_vector_get_domain, c_pvec_vector_get_boundaries, c_pvec_vector_get_ghost_width
  public :: c_pvec_vector_get_prop_count, c_pvec_vector_get_prop_index, c_pvec_vector_get_backend, c_pvec_vector_get_device
  public :: c_pvec_vector_get_generation
  public :: c_pvec_vector_reserve, c_pvec_vector_resize, c_pvec_vector_append, c_pvec_vector_remove, c_pvec_vector_shrink_to_fit
  public :: c_pvec_vector_get_layouts
  public :: c_pvec_vector_get_layout, c_pvec_host_ptr, c_pvec_device_ptr, c_pvec_vector_set_stream
  public :: c_pvec_vector_get_stream, c_pvec_host_to_device, c_pvec_device_to_host
  public :: c_pvec_host_to_device_async, c_pvec_device_to_host_async, c_pvec_vector_synchronize
  public :: c_pvec_vector_get_rank, c_pvec_vector_get_nranks, c_pvec_vector_get_subdomain, c_pvec_vector_get_owner_rank
  public :: c_pvec_map, c_pvec_ghost_get, c_pvec_ghost_put, c_pvec_memory_get_stats
  public :: c_pvec_vector_get_op_stats
  public :: c_pvec_vector_retain, c_pvec_retention_release
  ! 9. Output and restart
  public :: c_pvec_has_hdf5, c_pvec_vtk_write, c_pvec_checkpoint_write
  public :: c_pvec_checkpoint_describe, c_pvec_checkpoint_restart
  public :: c_pvec_cell_list_create, c_pvec_cell_list_build, c_pvec_cell_list_get_info
  public :: c_pvec_cell_list_destroy, c_pvec_vector_sort, c_pvec_verlet_create, c_pvec_verlet_build
  public :: c_pvec_verlet_get_info, c_pvec_verlet_check, c_pvec_verlet_destroy

  interface
    ! 1. Versions, status codes and errors
    function c_pvec_version_number() result(r) bind(C, name='pvec_version_number')
      import :: c_int
      integer(c_int) :: r
    end function
    function c_pvec_version_string() result(r) bind(C, name='pvec_version_string')
      import :: c_ptr
      type(c_ptr) :: r
    end function
    function c_pvec_status_string(status) result(r) bind(C, name='pvec_status_string')
      import :: c_int, c_ptr
      integer(c_int), value :: status
      type(c_ptr) :: r
    end function
    function c_pvec_last_error() result(r) bind(C, name='pvec_last_error')
      import :: c_ptr
      type(c_ptr) :: r
    end function
    ! 2. Library start and end
    function c_pvec_init(argc, argv) result(r) bind(C, name='pvec_init')
      import :: c_int, c_ptr
      type(c_ptr), value :: argc, argv
      integer(c_int) :: r
    end function
    function c_pvec_finalize() result(r) bind(C, name='pvec_finalize')
      import :: c_int
      integer(c_int) :: r
    end function
    function c_pvec_initialized(flag) result(r) bind(C, name='pvec_initialized')
      import :: c_int
      integer(c_int), intent(out) :: flag
      integer(c_int) :: r
    end function
    function c_pvec_cuda_device_count(count) result(r) bind(C, name='pvec_cuda_device_count')
      import :: c_int
      integer(c_int), intent(out) :: count
      integer(c_int) :: r
    end function
    ! 3. Schemas
    function c_pvec_dtype_size(dtype) result(r) bind(C, name='pvec_dtype_size')
      import :: c_int, c_size_t
      integer(c_int), value :: dtype
      integer(c_size_t) :: r
    end function
    function c_pvec_dtype_name(dtype) result(r) bind(C, name='pvec_dtype_name')
      import :: c_int, c_ptr
      integer(c_int), value :: dtype
      type(c_ptr) :: r
    end function
    function c_pvec_schema_create(out) result(r) bind(C, name='pvec_schema_create')
      import :: c_int, c_ptr
      type(c_ptr), intent(out) :: out
      integer(c_int) :: r
    end function
    function c_pvec_schema_destroy(schema) result(r) bind(C, name='pvec_schema_destroy')
      import :: c_int, c_ptr
      type(c_ptr), value :: schema
      integer(c_int) :: r
    end function
    !> extents and index may be c_null_ptr, as in C.
    function c_pvec_schema_add(schema, name, dtype, rank, extents, index) result(r) &
        bind(C, name='pvec_schema_add')
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: schema
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int), value :: dtype, rank
      type(c_ptr), value :: extents, index
      integer(c_int) :: r
    end function
    function c_pvec_schema_add_scalar(schema, name, dtype, index) result(r) &
        bind(C, name='pvec_schema_add_scalar')
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: schema
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int), value :: dtype
      type(c_ptr), value :: index
      integer(c_int) :: r
    end function
    function c_pvec_schema_add_vector(schema, name, dtype, n, index) result(r) &
        bind(C, name='pvec_schema_add_vector')
      import :: c_int, c_ptr, c_char, c_int64_t
      type(c_ptr), value :: schema
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int), value :: dtype
      integer(c_int64_t), value :: n
      type(c_ptr), value :: index
      integer(c_int) :: r
    end function
    function c_pvec_schema_add_tensor(schema, name, dtype, n, m, index) result(r) &
        bind(C, name='pvec_schema_add_tensor')
      import :: c_int, c_ptr, c_char, c_int64_t
      type(c_ptr), value :: schema
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int), value :: dtype
      integer(c_int64_t), value :: n, m
      type(c_ptr), value :: index
      integer(c_int) :: r
    end function
    function c_pvec_schema_get_count(schema, count) result(r) bind(C, name='pvec_schema_get_count')
      import :: c_int, c_ptr
      type(c_ptr), value :: schema
      integer(c_int), intent(out) :: count
      integer(c_int) :: r
    end function
    ! 4. Vectors
    function c_pvec_vector_desc_init(desc) result(r) bind(C, name='pvec_vector_desc_init')
      import :: c_int, pvec_vector_desc
      type(pvec_vector_desc), intent(inout) :: desc
      integer(c_int) :: r
    end function
    function c_pvec_vector_create(desc, schema, out) result(r) &
        bind(C, name='pvec_vector_create')
      import :: c_int, c_ptr, pvec_vector_desc
      type(pvec_vector_desc), intent(in) :: desc
      type(c_ptr), value :: schema
      type(c_ptr), intent(out) :: out
      integer(c_int) :: r
    end function
    function c_pvec_vector_destroy(vec) result(r) bind(C, name='pvec_vector_destroy')
      import :: c_int, c_ptr
      type(c_ptr), value :: vec
      integer(c_int) :: r
    end function
    function c_pvec_vector_get_size(vec, n_local) result(r) bind(C, name='pvec_vector_get_size')
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: vec
      integer(c_int64_t), intent(out) :: n_local
      integer(c_int) :: r
    end function
    function c_pvec_vector_get_ghost_size(vec, n_ghost) result(r) bind(C, name='pvec_vector_get_ghost_size')
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: vec
      integer(c_int64_t), intent(out) :: n_ghost
      integer(c_int) :: r
    end function
    function c_pvec_vector_get_capacity(vec, capacity) result(r) bind(C, name='pvec_vector_get_capacity')
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: vec
      integer(c_int64_t), intent(out) :: capacity
      integer(c_int) :: r
    end function
    function c_pvec_vector_get_dim(vec, dim) result(r) bind(C, name='pvec_vector_get_dim')
      import :: c_int, c_ptr
      type(c_ptr), value :: vec
      integer(c_int), intent(out) :: dim
      integer(c_int) :: r
    end function
    function c_pvec_vector_get_pos_dtype(vec, dtype) result(r) bind(C, name='pvec_vector_get_pos_dtype')
      import :: c_int, c_ptr
      type(c_ptr), value :: vec
      integer(c_int), intent(out) :: dtype
      integer(c_int) :: r
    end function
    !> lo and hi: addresses of dim doubles each, or c_null_ptr.
    function c_pvec_vector_get_domain(vec, lo, hi) result(r) bind(C, name='pvec_vector_get_domain')
      import :: c_int, c_ptr
      type(c_ptr), value :: vec, lo, hi
      integer(c_int) :: r
    end function
    function c_pvec_vector_get_boundaries(vec, bc) result(r) bind(C, name='pvec_vector_get_boundaries')
      import :: c_int, c_ptr
      type(c_ptr), value :: vec, bc
      integer(c_int) :: r
    end function
    function c_pvec_vector_get_ghost_width(vec, width) result(r) bind(C, name='pvec_vector_get_ghost_width')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: vec
      real(c_double), intent(out) :: width
      integer(c_int) :: r
    end function
    function c_pvec_vector_get_prop_count(vec, count) result(r) bind(C, name='pvec_vector_get_prop_count')
      import :: c_int, c_ptr
      type(c_ptr), value :: vec
      integer(c_int), intent(out) :: count
      integer(c_int) :: r
    end function
    function c_pvec_vector_get_prop_index(vec, name, prop) result(r) bind(C, name='pvec_vector_get_prop_index')
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: vec
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int), intent(out) :: prop
      integer(c_int) :: r
    end function
    function c_pvec_vector_get_backend(vec, backend) result(r) bind(C, name='pvec_vector_get_backend')
      import :: c_int, c_ptr
      type(c_ptr), value :: vec
      integer(c_int), intent(out) :: backend
      integer(c_int) :: r
    end function
    function c_pvec_vector_get_device(vec, device) result(r) bind(C, name='pvec_vector_get_device')
      import :: c_int, c_ptr
      type(c_ptr), value :: vec
      integer(c_int), intent(out) :: device
      integer(c_int) :: r
    end function
    function c_pvec_vector_get_generation(vec, generation) result(r) bind(C, name='pvec_vector_get_generation')
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: vec
      integer(c_int64_t), intent(out) :: generation
      integer(c_int) :: r
    end function
    function c_pvec_vector_reserve(vec, n) result(r) bind(C, name='pvec_vector_reserve')
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: vec
      integer(c_int64_t), value :: n
      integer(c_int) :: r
    end function
    function c_pvec_vector_resize(vec, n) result(r) bind(C, name='pvec_vector_resize')
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: vec
      integer(c_int64_t), value :: n
      integer(c_int) :: r
    end function
    !> first: address of an int64 (0-based index) or c_null_ptr.
    function c_pvec_vector_append(vec, k, first) result(r) bind(C, name='pvec_vector_append')
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: vec
      integer(c_int64_t), value :: k
      type(c_ptr), value :: first
      integer(c_int) :: r
    end function
    !> indices: address of count 0-based int64 indices.
    function c_pvec_vector_remove(vec, indices, count) result(r) bind(C, name='pvec_vector_remove')
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: vec, indices
      integer(c_int64_t), value :: count
      integer(c_int) :: r
    end function
    function c_pvec_vector_shrink_to_fit(vec) result(r) bind(C, name='pvec_vector_shrink_to_fit')
      import :: c_int, c_ptr
      type(c_ptr), value :: vec
      integer(c_int) :: r
    end function
    ! 5. Layout and raw pointers
    function c_pvec_vector_get_layout(vec, prop, out) result(r) bind(C, name='pvec_vector_get_layout')
      import :: c_int, c_ptr, pvec_layout
      type(c_ptr), value :: vec
      integer(c_int), value :: prop
      type(pvec_layout), intent(inout) :: out
      integer(c_int) :: r
    end function
    function c_pvec_vector_get_layouts(vec, props, nprops, out, n_out) result(r) &
        bind(C, name='pvec_vector_get_layouts')
      import :: c_int, c_ptr
      type(c_ptr), value :: vec, props, out
      integer(c_int), value :: nprops, n_out
      integer(c_int) :: r
    end function
    function c_pvec_host_ptr(vec, prop) result(r) bind(C, name='pvec_host_ptr')
      import :: c_int, c_ptr
      type(c_ptr), value :: vec
      integer(c_int), value :: prop
      type(c_ptr) :: r
    end function
    function c_pvec_device_ptr(vec, prop) result(r) bind(C, name='pvec_device_ptr')
      import :: c_int, c_ptr
      type(c_ptr), value :: vec
      integer(c_int), value :: prop
      type(c_ptr) :: r
    end function
    !> Keeps a mirror's buffer allocated until c_pvec_retention_release (device_mirror 0: host).
    function c_pvec_vector_retain(vec, prop, device_mirror, out) result(r) bind(C, name='pvec_vector_retain')
      import :: c_int, c_ptr
      type(c_ptr), value :: vec
      integer(c_int), value :: prop, device_mirror
      type(c_ptr), intent(out) :: out
      integer(c_int) :: r
    end function
    function c_pvec_retention_release(retention) result(r) bind(C, name='pvec_retention_release')
      import :: c_int, c_ptr
      type(c_ptr), value :: retention
      integer(c_int) :: r
    end function
    ! 6. Host <-> device transfers (props: address of nprops ints, or c_null_ptr for all)
    function c_pvec_vector_set_stream(vec, stream) result(r) bind(C, name='pvec_vector_set_stream')
      import :: c_int, c_ptr
      type(c_ptr), value :: vec, stream
      integer(c_int) :: r
    end function
    function c_pvec_vector_get_stream(vec, stream) result(r) bind(C, name='pvec_vector_get_stream')
      import :: c_int, c_ptr
      type(c_ptr), value :: vec
      type(c_ptr), intent(out) :: stream
      integer(c_int) :: r
    end function
    function c_pvec_host_to_device(vec, props, nprops) result(r) &
        bind(C, name='pvec_host_to_device')
      import :: c_int, c_ptr
      type(c_ptr), value :: vec, props
      integer(c_int), value :: nprops
      integer(c_int) :: r
    end function
    function c_pvec_device_to_host(vec, props, nprops) result(r) &
        bind(C, name='pvec_device_to_host')
      import :: c_int, c_ptr
      type(c_ptr), value :: vec, props
      integer(c_int), value :: nprops
      integer(c_int) :: r
    end function
    function c_pvec_host_to_device_async(vec, props, nprops, stream) result(r) &
        bind(C, name='pvec_host_to_device_async')
      import :: c_int, c_ptr
      type(c_ptr), value :: vec, props
      integer(c_int), value :: nprops
      type(c_ptr), value :: stream
      integer(c_int) :: r
    end function
    function c_pvec_device_to_host_async(vec, props, nprops, stream) result(r) &
        bind(C, name='pvec_device_to_host_async')
      import :: c_int, c_ptr
      type(c_ptr), value :: vec, props
      integer(c_int), value :: nprops
      type(c_ptr), value :: stream
      integer(c_int) :: r
    end function
    function c_pvec_vector_synchronize(vec) result(r) bind(C, name='pvec_vector_synchronize')
      import :: c_int, c_ptr
      type(c_ptr), value :: vec
      integer(c_int) :: r
    end function
    ! 7. Distribution over MPI
    function c_pvec_vector_get_rank(vec, rank) result(r) bind(C, name='pvec_vector_get_rank')
      import :: c_int, c_ptr
      type(c_ptr), value :: vec
      integer(c_int), intent(out) :: rank
      integer(c_int) :: r
    end function
    function c_pvec_vector_get_nranks(vec, size) result(r) bind(C, name='pvec_vector_get_nranks')
      import :: c_int, c_ptr
      type(c_ptr), value :: vec
      integer(c_int), intent(out) :: size
      integer(c_int) :: r
    end function
    function c_pvec_vector_get_subdomain(vec, lo, hi) result(r) bind(C, name='pvec_vector_get_subdomain')
      import :: c_int, c_ptr
      type(c_ptr), value :: vec, lo, hi
      integer(c_int) :: r
    end function
    function c_pvec_vector_get_owner_rank(vec, x, rank) result(r) bind(C, name='pvec_vector_get_owner_rank')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: vec
      real(c_double), intent(in) :: x(*)
      integer(c_int), intent(out) :: rank
      integer(c_int) :: r
    end function
    !> n_removed: address of an int64, or c_null_ptr.
    function c_pvec_map(vec, flags, n_removed) result(r) bind(C, name='pvec_map')
      import :: c_int, c_ptr
      type(c_ptr), value :: vec
      integer(c_int), value :: flags
      type(c_ptr), value :: n_removed
      integer(c_int) :: r
    end function
    function c_pvec_ghost_get(vec, props, nprops, flags) result(r) bind(C, name='pvec_ghost_get')
      import :: c_int, c_ptr
      type(c_ptr), value :: vec, props
      integer(c_int), value :: nprops, flags
      integer(c_int) :: r
    end function
    function c_pvec_ghost_put(vec, props, nprops, op, flags) result(r) &
        bind(C, name='pvec_ghost_put')
      import :: c_int, c_ptr
      type(c_ptr), value :: vec, props
      integer(c_int), value :: nprops, op, flags
      integer(c_int) :: r
    end function
    ! 8. Diagnostics
    function c_pvec_memory_get_stats(out) result(r) bind(C, name='pvec_memory_get_stats')
      import :: c_int, pvec_memory_stats
      type(pvec_memory_stats), intent(inout) :: out
      integer(c_int) :: r
    end function
    function c_pvec_vector_get_op_stats(vec, out) result(r) bind(C, name='pvec_vector_get_op_stats')
      import :: c_int, c_ptr, pvec_op_stats
      type(c_ptr), value :: vec
      type(pvec_op_stats), intent(inout) :: out
      integer(c_int) :: r
    end function
    ! 9. Output and restart. Strings are NUL-terminated (trim(s)//c_null_char); keys and
    ! strings of pvec_checkpoint_write are arrays of C pointers (c_loc of NUL-terminated
    ! character arrays), numbers a real(c_double) array, each passed as c_loc or c_null_ptr.
    function c_pvec_has_hdf5(flag) result(r) bind(C, name='pvec_has_hdf5')
      import :: c_int
      integer(c_int), intent(out) :: flag
      integer(c_int) :: r
    end function
    function c_pvec_vtk_write(vec, prefix, step, time, flags) result(r) &
        bind(C, name='pvec_vtk_write')
      import :: c_int, c_ptr, c_char, c_int64_t, c_double
      type(c_ptr), value :: vec
      character(kind=c_char), intent(in) :: prefix(*)
      integer(c_int64_t), value :: step
      real(c_double), value :: time
      integer(c_int), value :: flags
      integer(c_int) :: r
    end function
    function c_pvec_checkpoint_write(vec, path, step, time, n_attrs, keys, strings, numbers, &
                                     flags) result(r) bind(C, name='pvec_checkpoint_write')
      import :: c_int, c_ptr, c_char, c_int64_t, c_double
      type(c_ptr), value :: vec
      character(kind=c_char), intent(in) :: path(*)
      integer(c_int64_t), value :: step
      real(c_double), value :: time
      integer(c_int), value :: n_attrs
      type(c_ptr), value :: keys
      type(c_ptr), value :: strings
      type(c_ptr), value :: numbers
      integer(c_int), value :: flags
      integer(c_int) :: r
    end function
    function c_pvec_checkpoint_describe(path, desc, schema, step, time) result(r) &
        bind(C, name='pvec_checkpoint_describe')
      import :: c_int, c_ptr, c_char, c_int64_t, c_double, pvec_vector_desc
      character(kind=c_char), intent(in) :: path(*)
      type(pvec_vector_desc), intent(inout) :: desc
      type(c_ptr), intent(out) :: schema
      integer(c_int64_t), intent(out) :: step
      real(c_double), intent(out) :: time
      integer(c_int) :: r
    end function
    function c_pvec_checkpoint_restart(path, desc, schema, flags, out) result(r) &
        bind(C, name='pvec_checkpoint_restart')
      import :: c_int, c_ptr, c_char, pvec_vector_desc
      character(kind=c_char), intent(in) :: path(*)
      type(pvec_vector_desc), intent(in) :: desc
      type(c_ptr), value :: schema
      integer(c_int), value :: flags
      type(c_ptr), intent(out) :: out
      integer(c_int) :: r
    end function
    ! 10. Neighbour search. Handles by value, out-handles by reference; flags as integer(c_int).
    function c_pvec_cell_list_create(vec, cutoff, cells_per_cutoff, flags, out) result(r) &
        bind(C, name='pvec_cell_list_create')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: vec
      real(c_double), value :: cutoff
      integer(c_int), value :: cells_per_cutoff, flags
      type(c_ptr), intent(out) :: out
      integer(c_int) :: r
    end function
    function c_pvec_cell_list_build(list) result(r) bind(C, name='pvec_cell_list_build')
      import :: c_int, c_ptr
      type(c_ptr), value :: list
      integer(c_int) :: r
    end function
    function c_pvec_cell_list_get_info(list, out) result(r) bind(C, name='pvec_cell_list_get_info')
      import :: c_int, c_ptr, pvec_cell_list_info
      type(c_ptr), value :: list
      type(pvec_cell_list_info), intent(inout) :: out
      integer(c_int) :: r
    end function
    function c_pvec_cell_list_destroy(list) result(r) bind(C, name='pvec_cell_list_destroy')
      import :: c_int, c_ptr
      type(c_ptr), value :: list
      integer(c_int) :: r
    end function
    !> moved: address of an int, or c_null_ptr.
    function c_pvec_vector_sort(vec, cell_width, flags, moved) result(r) bind(C, name='pvec_vector_sort')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: vec
      real(c_double), value :: cell_width
      integer(c_int), value :: flags
      type(c_ptr), value :: moved
      integer(c_int) :: r
    end function
    function c_pvec_verlet_create(vec, cutoff, skin, cells_per_cutoff, flags, out) result(r) &
        bind(C, name='pvec_verlet_create')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: vec
      real(c_double), value :: cutoff, skin
      integer(c_int), value :: cells_per_cutoff, flags
      type(c_ptr), intent(out) :: out
      integer(c_int) :: r
    end function
    function c_pvec_verlet_build(list) result(r) bind(C, name='pvec_verlet_build')
      import :: c_int, c_ptr
      type(c_ptr), value :: list
      integer(c_int) :: r
    end function
    function c_pvec_verlet_get_info(list, out) result(r) bind(C, name='pvec_verlet_get_info')
      import :: c_int, c_ptr, pvec_verlet_info
      type(c_ptr), value :: list
      type(pvec_verlet_info), intent(inout) :: out
      integer(c_int) :: r
    end function
    function c_pvec_verlet_check(list, rebuild) result(r) bind(C, name='pvec_verlet_check')
      import :: c_int, c_ptr
      type(c_ptr), value :: list
      integer(c_int), intent(out) :: rebuild
      integer(c_int) :: r
    end function
    function c_pvec_verlet_destroy(list) result(r) bind(C, name='pvec_verlet_destroy')
      import :: c_int, c_ptr
      type(c_ptr), value :: list
      integer(c_int) :: r
    end function
    ! libc, to measure C strings.
    function c_strlen(s) result(r) bind(C, name='strlen')
      import :: c_ptr, c_size_t
      type(c_ptr), value :: s
      integer(c_size_t) :: r
    end function
  end interface

  ! ---- Readable wrappers -------------------------------------------------------------------------
  public :: pvec_version_number, pvec_version_string, pvec_status_string, pvec_last_error
  public :: pvec_c_string
  public :: pvec_init, pvec_finalize, pvec_initialized, pvec_cuda_device_count
  public :: pvec_dtype_size, pvec_dtype_name
  public :: pvec_schema_create, pvec_schema_destroy, pvec_schema_add, pvec_schema_add_scalar
  public :: pvec_schema_add_vector, pvec_schema_add_tensor, pvec_schema_get_count
  public :: pvec_vector_desc_init, pvec_vector_desc_set_comm, pvec_vector_create
  public :: pvec_vector_destroy
  public :: pvec_vector_get_size, pvec_vector_get_ghost_size, pvec_vector_get_capacity
  public :: pvec_vector_get_dim, pvec_vector_get_pos_dtype, pvec_vector_get_domain
  public :: pvec_vector_get_boundaries, pvec_vector_get_ghost_width, pvec_vector_get_prop_count, pvec_vector_get_prop_index
  public :: pvec_vector_get_backend, pvec_vector_get_device, pvec_vector_get_generation
  public :: pvec_vector_reserve, pvec_vector_resize, pvec_vector_append, pvec_vector_remove, pvec_vector_shrink_to_fit
  public :: pvec_vector_get_layout, pvec_host_ptr, pvec_device_ptr, pvec_host_view
  public :: pvec_vector_set_stream, pvec_vector_get_stream, pvec_host_to_device, pvec_device_to_host
  public :: pvec_host_to_device_async, pvec_device_to_host_async, pvec_vector_synchronize
  public :: pvec_vector_get_rank, pvec_vector_get_nranks, pvec_vector_get_subdomain, pvec_vector_get_owner_rank
  public :: pvec_map, pvec_ghost_get, pvec_ghost_put, pvec_memory_get_stats
  public :: pvec_vector_get_op_stats
  public :: pvec_c_handle, pvec_vector_from_c, pvec_schema_from_c
  public :: pvec_cell_list_create, pvec_cell_list_build, pvec_cell_list_get_info
  public :: pvec_cell_list_destroy, pvec_cell_list_arrays, pvec_vector_sort
  public :: pvec_verlet_create, pvec_verlet_build, pvec_verlet_get_info, pvec_verlet_check
  public :: pvec_verlet_destroy, pvec_verlet_arrays

  !> pvec_c_handle(vec) / pvec_c_handle(schema) / pvec_c_handle(list): the C handle
  !> (pvec_vector_t / pvec_schema_t / pvec_cell_list_t / pvec_verlet_t)
  !> as a type(c_ptr), for a C, C++ or CUDA function declared with `type(c_ptr), value`.
  !> c_null_ptr for a default-initialised or destroyed handle.
  interface pvec_c_handle
    module procedure vector_c_handle, schema_c_handle, cell_list_c_handle, verlet_c_handle
  end interface

  !> Every size, count and particle index, given or returned, is a default integer
  !> (integer(c_int32_t)) or an integer(c_int64_t), in any combination: one specific per
  !> combination. A returned value too large for a default integer gives PVEC_ERROR_OVERFLOW.
  interface pvec_vector_reserve
    module procedure reserve_i64, reserve_i32
  end interface
  interface pvec_vector_resize
    module procedure resize_i64, resize_i32
  end interface
  !> pvec_vector_append(vec, k [, first] [, stat]): k and first each of either kind.
  interface pvec_vector_append
    module procedure append_i64, append_i64_f32, append_i32, append_i32_f64
  end interface
  interface pvec_vector_remove
    module procedure remove_i64, remove_i32
  end interface
  interface pvec_vector_get_size
    module procedure size_i64, size_i32
  end interface
  interface pvec_vector_get_ghost_size
    module procedure ghost_size_i64, ghost_size_i32
  end interface
  interface pvec_vector_get_capacity
    module procedure capacity_i64, capacity_i32
  end interface
  interface pvec_map
    module procedure map_i64, map_i32
  end interface
  !> extents, n and m: creation counts of either kind.
  interface pvec_schema_add
    module procedure schema_add_i32, schema_add_i64
  end interface
  interface pvec_schema_add_vector
    module procedure add_vector_i32, add_vector_i64
  end interface
  interface pvec_schema_add_tensor
    module procedure add_tensor_i32_i32, add_tensor_i32_i64, add_tensor_i64_i32, add_tensor_i64_i64
  end interface

  !> call pvec_host_view(vec, prop, v [, stat]): v => the host mirror of property prop (or
  !> PVEC_POS), no copy, leading dimension = capacity. Rank 1: scalars, v(C). Rank 2: any
  !> property as v(C, ncomp) -- vector[n] as v(C, n), positions as x(C, dim), a tensor flattened
  !> to its n*m components. Rank 3: tensor[n][m] as v(C, m, n), so v(i, b+1, a+1) is entry (a,b).
  !> The kind must match the dtype: real(c_float) FLOAT32, real(c_double) FLOAT64,
  !> integer(c_int32_t) INT32 or UINT32, integer(c_int64_t) INT64 or UINT64; otherwise the
  !> status is PVEC_ERROR_DTYPE_MISMATCH. The view is valid until the generation changes.
  interface pvec_host_view
    module procedure view_f32_1, view_f32_2, view_f32_3
    module procedure view_f64_1, view_f64_2, view_f64_3
    module procedure view_i32_1, view_i32_2, view_i32_3
    module procedure view_i64_1, view_i64_2, view_i64_3
  end interface

  !> Message of the latest failure detected on the Fortran side (a dtype mismatch in
  !> pvec_host_view, an array too short, ...), cleared by the next wrapper call that reaches C.
  !> Process-wide, not per thread (unlike the C library's message).
  character(len=:), allocatable, save :: fortran_error

contains

  ! ================================================================================================
  ! Internals
  ! ================================================================================================

  !> Fortran string -> NUL-terminated C string (trailing blanks removed).
  pure function c_str(s) result(r)
    character(*), intent(in) :: s
    character(kind=c_char, len=:), allocatable :: r
    r = trim(s)//c_null_char
  end function c_str

  !> Ends every wrapper: returns the status through stat, or stops the program on failure.
  subroutine finish(status, stat, errmsg)
    integer(c_int), intent(in) :: status
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    if (present(stat)) stat = status
    if (status /= PVEC_SUCCESS .and. present(errmsg)) errmsg = pvec_last_error()
    if (status == PVEC_SUCCESS .or. present(stat)) return
    write (error_unit, '(a)') 'pvec: '//pvec_status_string(status)//': '//pvec_last_error()
    flush (error_unit)
    error stop status
  end subroutine finish

  !> A status from a C call: a Fortran-side message no longer applies.
  subroutine finish_c(status, stat, errmsg)
    integer(c_int), intent(in) :: status
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    if (allocated(fortran_error)) deallocate (fortran_error)
    call finish(status, stat, errmsg)
  end subroutine finish_c

  !> A failure found on the Fortran side, explained by msg.
  subroutine finish_f(status, msg, stat, errmsg)
    integer(c_int), intent(in) :: status
    character(*), intent(in) :: msg
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    fortran_error = msg
    call finish(status, stat, errmsg)
  end subroutine finish_f

  !> Integer to text, without blanks.
  pure function itoa(i) result(r)
    integer(c_int64_t), intent(in) :: i
    character(len=:), allocatable :: r
    character(len=24) :: buf
    write (buf, '(i0)') i
    r = trim(buf)
  end function itoa

  !> Ends a wrapper whose C call returned the int64 n into a default integer r: r = n, or
  !> PVEC_ERROR_OVERFLOW (r = 0) when n does not fit; r = 0 when the call failed.
  subroutine finish_narrow(status, n, r, where, stat, errmsg)
    integer(c_int), intent(in) :: status
    integer(c_int64_t), intent(in) :: n
    integer(c_int32_t), intent(out) :: r
    character(*), intent(in) :: where
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    r = 0
    if (status == PVEC_SUCCESS .and. (n > huge(r) .or. n < -huge(r) - 1)) then
      call finish_f(PVEC_ERROR_OVERFLOW, where//': '//itoa(n)// &
                    ' does not fit a default integer: pass an integer(c_int64_t)', stat, errmsg)
      return
    end if
    if (status == PVEC_SUCCESS) r = int(n, c_int32_t)
    call finish_c(status, stat, errmsg)
  end subroutine finish_narrow

  ! ================================================================================================
  ! Handles to and from C
  ! ================================================================================================

  pure function vector_c_handle(vec) result(h)
    type(pvec_vector), intent(in) :: vec
    type(c_ptr) :: h
    h = vec%h
  end function vector_c_handle

  pure function schema_c_handle(schema) result(h)
    type(pvec_schema), intent(in) :: schema
    type(c_ptr) :: h
    h = schema%h
  end function schema_c_handle

  pure function cell_list_c_handle(list) result(h)
    type(pvec_cell_list), intent(in) :: list
    type(c_ptr) :: h
    h = list%h
  end function cell_list_c_handle

  pure function verlet_c_handle(list) result(h)
    type(pvec_verlet), intent(in) :: list
    type(c_ptr) :: h
    h = list%h
  end function verlet_c_handle

  !> The vector whose C handle (pvec_vector_t) is h, e.g. one created by C code. No copy and
  !> no check: the vector is the same object; destroying it from Fortran or C ends it for both.
  pure function pvec_vector_from_c(h) result(vec)
    type(c_ptr), intent(in) :: h
    type(pvec_vector) :: vec
    vec%h = h
  end function pvec_vector_from_c

  !> The schema whose C handle (pvec_schema_t) is h.
  pure function pvec_schema_from_c(h) result(schema)
    type(c_ptr), intent(in) :: h
    type(pvec_schema) :: schema
    schema%h = h
  end function pvec_schema_from_c

  ! ================================================================================================
  ! 1. Versions, status codes and errors
  ! ================================================================================================

  !> Version number of the loaded library (MAJOR*10000 + MINOR*100 + PATCH).
  function pvec_version_number() result(r)
    integer :: r
    r = c_pvec_version_number()
  end function pvec_version_number

  !> Version of the loaded library as "MAJOR.MINOR.PATCH".
  function pvec_version_string() result(r)
    character(len=:), allocatable :: r
    r = pvec_c_string(c_pvec_version_string())
  end function pvec_version_string

  !> Short description of a status ("invalid handle").
  function pvec_status_string(status) result(r)
    integer(c_int), intent(in) :: status
    character(len=:), allocatable :: r
    r = pvec_c_string(c_pvec_status_string(status))
  end function pvec_status_string

  !> Detail of the latest failed wrapper call ("" after a success): the C library's message, or
  !> the binding's own when the failure was detected in Fortran. (After calling the raw
  !> c_pvec_* interfaces, read pvec_c_string(c_pvec_last_error()) instead.)
  function pvec_last_error() result(r)
    character(len=:), allocatable :: r
    if (allocated(fortran_error)) then
      r = fortran_error
    else
      r = pvec_c_string(c_pvec_last_error())
    end if
  end function pvec_last_error

  !> Copy of a NUL-terminated C string ("" for c_null_ptr), e.g. pvec_c_string(layout%name).
  function pvec_c_string(p) result(r)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: r
    character(kind=c_char), pointer :: chars(:)
    integer :: n, i
    if (.not. c_associated(p)) then
      r = ''
      return
    end if
    n = int(c_strlen(p))
    call c_f_pointer(p, chars, [n])
    allocate (character(len=n) :: r)
    do i = 1, n
      r(i:i) = chars(i)
    end do
  end function pvec_c_string

  ! ================================================================================================
  ! 2. Library start and end
  ! ================================================================================================

  !> Start pvec (and MPI, if the program has not initialised it). Call once, before any vector.
  subroutine pvec_init(stat, errmsg)
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    call finish_c(c_pvec_init(c_null_ptr, c_null_ptr), stat, errmsg)
  end subroutine pvec_init

  !> End pvec: destroys every vector and schema left, finalises MPI if pvec_init started it.
  !> Collective.
  subroutine pvec_finalize(stat, errmsg)
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    call finish_c(c_pvec_finalize(), stat, errmsg)
  end subroutine pvec_finalize

  !> flag = .true. between pvec_init and pvec_finalize.
  subroutine pvec_initialized(flag, stat, errmsg)
    logical, intent(out) :: flag
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int) :: f, st
    f = 0
    st = c_pvec_initialized(f)
    flag = f /= 0
    call finish_c(st, stat, errmsg)
  end subroutine pvec_initialized

  !> Number of usable CUDA devices (0 without CUDA).
  subroutine pvec_cuda_device_count(count, stat, errmsg)
    integer, intent(out) :: count
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int) :: c, st
    c = 0
    st = c_pvec_cuda_device_count(c)
    count = c
    call finish_c(st, stat, errmsg)
  end subroutine pvec_cuda_device_count

  ! ================================================================================================
  ! 3. Schemas
  ! ================================================================================================

  !> Size in bytes of one element of dtype (0 for an unknown dtype).
  function pvec_dtype_size(dtype) result(r)
    integer(c_int), intent(in) :: dtype
    integer :: r
    r = int(c_pvec_dtype_size(dtype))
  end function pvec_dtype_size

  !> Name of dtype ("float32"; "unknown" for an unknown dtype).
  function pvec_dtype_name(dtype) result(r)
    integer(c_int), intent(in) :: dtype
    character(len=:), allocatable :: r
    r = pvec_c_string(c_pvec_dtype_name(dtype))
  end function pvec_dtype_name

  !> Create an empty schema.
  subroutine pvec_schema_create(schema, stat, errmsg)
    type(pvec_schema), intent(out) :: schema
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    call finish_c(c_pvec_schema_create(schema%h), stat, errmsg)
  end subroutine pvec_schema_create

  !> Destroy a schema (vectors made from it are unaffected); the handle becomes NULL.
  subroutine pvec_schema_destroy(schema, stat, errmsg)
    type(pvec_schema), intent(inout) :: schema
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int) :: st
    st = c_pvec_schema_destroy(schema%h)
    if (st == PVEC_SUCCESS) schema%h = c_null_ptr
    call finish_c(st, stat, errmsg)
  end subroutine pvec_schema_destroy

  !> Append a property of the given shape: extents absent or [] for a scalar, [n] for vector[n],
  !> [n, m] for tensor[n][m] (C entry (a,b) = component a*m + b). index receives its property
  !> index (0, 1, ... in declaration order, as in C).
  subroutine schema_add_i64(schema, name, dtype, extents, index, stat, errmsg)
    type(pvec_schema), intent(in) :: schema
    character(*), intent(in) :: name
    integer(c_int), intent(in) :: dtype
    integer(c_int64_t), intent(in) :: extents(:)
    integer, intent(out), optional :: index
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int64_t), target :: ext(max(1, PVEC_MAX_RANK))
    integer(c_int), target :: idx
    integer(c_int) :: rank, st
    ext = 1
    rank = size(extents)
    if (rank > PVEC_MAX_RANK) then
      call finish_f(PVEC_ERROR_INVALID_ARGUMENT, 'pvec_schema_add: '//itoa(int(rank, &
                    c_int64_t))//' extents given, at most 2 (rank 0..2)', stat, errmsg)
      return
    end if
    ext(1:rank) = extents
    idx = -1
    st = c_pvec_schema_add(schema%h, c_str(name), dtype, rank, c_loc(ext), c_loc(idx))
    if (present(index)) index = idx
    call finish_c(st, stat, errmsg)
  end subroutine schema_add_i64
  subroutine schema_add_i32(schema, name, dtype, extents, index, stat, errmsg)
    type(pvec_schema), intent(in) :: schema
    character(*), intent(in) :: name
    integer(c_int), intent(in) :: dtype
    integer(c_int32_t), intent(in), optional :: extents(:)
    integer, intent(out), optional :: index
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int64_t) :: none(0)
    if (present(extents)) then
      call schema_add_i64(schema, name, dtype, int(extents, c_int64_t), index, stat, errmsg)
    else
      call schema_add_i64(schema, name, dtype, none, index, stat, errmsg)
    end if
  end subroutine schema_add_i32

  !> Append a scalar property.
  subroutine pvec_schema_add_scalar(schema, name, dtype, index, stat, errmsg)
    type(pvec_schema), intent(in) :: schema
    character(*), intent(in) :: name
    integer(c_int), intent(in) :: dtype
    integer, intent(out), optional :: index
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int), target :: idx
    integer(c_int) :: st
    idx = -1
    st = c_pvec_schema_add_scalar(schema%h, c_str(name), dtype, c_loc(idx))
    if (present(index)) index = idx
    call finish_c(st, stat, errmsg)
  end subroutine pvec_schema_add_scalar

  !> Append a vector[n] property.
  subroutine add_vector_i64(schema, name, dtype, n, index, stat, errmsg)
    type(pvec_schema), intent(in) :: schema
    character(*), intent(in) :: name
    integer(c_int), intent(in) :: dtype
    integer(c_int64_t), intent(in) :: n
    integer, intent(out), optional :: index
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int), target :: idx
    integer(c_int) :: st
    idx = -1
    st = c_pvec_schema_add_vector(schema%h, c_str(name), dtype, n, c_loc(idx))
    if (present(index)) index = idx
    call finish_c(st, stat, errmsg)
  end subroutine add_vector_i64
  subroutine add_vector_i32(schema, name, dtype, n, index, stat, errmsg)
    type(pvec_schema), intent(in) :: schema
    character(*), intent(in) :: name
    integer(c_int), intent(in) :: dtype
    integer(c_int32_t), intent(in) :: n
    integer, intent(out), optional :: index
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    call add_vector_i64(schema, name, dtype, int(n, c_int64_t), index, stat, errmsg)
  end subroutine add_vector_i32

  !> Append a tensor[n][m] property; its host view is v(C, m, n), v(i, b+1, a+1) = entry (a,b).
  subroutine add_tensor_i64_i64(schema, name, dtype, n, m, index, stat, errmsg)
    type(pvec_schema), intent(in) :: schema
    character(*), intent(in) :: name
    integer(c_int), intent(in) :: dtype
    integer(c_int64_t), intent(in) :: n, m
    integer, intent(out), optional :: index
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int), target :: idx
    integer(c_int) :: st
    idx = -1
    st = c_pvec_schema_add_tensor(schema%h, c_str(name), dtype, n, m, c_loc(idx))
    if (present(index)) index = idx
    call finish_c(st, stat, errmsg)
  end subroutine add_tensor_i64_i64
  subroutine add_tensor_i32_i32(schema, name, dtype, n, m, index, stat, errmsg)
    type(pvec_schema), intent(in) :: schema
    character(*), intent(in) :: name
    integer(c_int), intent(in) :: dtype
    integer(c_int32_t), intent(in) :: n, m
    integer, intent(out), optional :: index
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    call add_tensor_i64_i64(schema, name, dtype, int(n, c_int64_t), int(m, c_int64_t), index, &
                            stat, errmsg)
  end subroutine add_tensor_i32_i32
  subroutine add_tensor_i32_i64(schema, name, dtype, n, m, index, stat, errmsg)
    type(pvec_schema), intent(in) :: schema
    character(*), intent(in) :: name
    integer(c_int), intent(in) :: dtype
    integer(c_int32_t), intent(in) :: n
    integer(c_int64_t), intent(in) :: m
    integer, intent(out), optional :: index
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    call add_tensor_i64_i64(schema, name, dtype, int(n, c_int64_t), m, index, stat, errmsg)
  end subroutine add_tensor_i32_i64
  subroutine add_tensor_i64_i32(schema, name, dtype, n, m, index, stat, errmsg)
    type(pvec_schema), intent(in) :: schema
    character(*), intent(in) :: name
    integer(c_int), intent(in) :: dtype
    integer(c_int64_t), intent(in) :: n
    integer(c_int32_t), intent(in) :: m
    integer, intent(out), optional :: index
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    call add_tensor_i64_i64(schema, name, dtype, n, int(m, c_int64_t), index, stat, errmsg)
  end subroutine add_tensor_i64_i32

  !> Number of properties declared so far.
  subroutine pvec_schema_get_count(schema, count, stat, errmsg)
    type(pvec_schema), intent(in) :: schema
    integer, intent(out) :: count
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int) :: c, st
    c = 0
    st = c_pvec_schema_get_count(schema%h, c)
    count = c
    call finish_c(st, stat, errmsg)
  end subroutine pvec_schema_get_count

  ! ================================================================================================
  ! 4. Vectors
  ! ================================================================================================

  !> Reset desc to the library's defaults (PVEC_VECTOR_DESC_INIT). A freshly declared
  !> type(pvec_vector_desc) already holds them.
  subroutine pvec_vector_desc_init(desc, stat, errmsg)
    type(pvec_vector_desc), intent(inout) :: desc
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    desc%struct_size = c_sizeof(desc)
    call finish_c(c_pvec_vector_desc_init(desc), stat, errmsg)
  end subroutine pvec_vector_desc_init

  !> Use communicator comm (a Fortran MPI handle: the integer of `use mpi`, or comm%mpi_val of
  !> `use mpi_f08`) instead of MPI_COMM_WORLD.
  subroutine pvec_vector_desc_set_comm(desc, comm)
    type(pvec_vector_desc), intent(inout) :: desc
    integer, intent(in) :: comm
    desc%has_comm = 1
    desc%comm_f = int(comm, c_int64_t)
  end subroutine pvec_vector_desc_set_comm

  !> Create a vector from desc and schema (copied). Collective over the communicator.
  subroutine pvec_vector_create(desc, schema, vec, stat, errmsg)
    type(pvec_vector_desc), intent(in) :: desc
    type(pvec_schema), intent(in) :: schema
    type(pvec_vector), intent(out) :: vec
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    type(pvec_vector_desc) :: d
    d = desc
    d%struct_size = c_sizeof(d)
    call finish_c(c_pvec_vector_create(d, schema%h, vec%h), stat, errmsg)
  end subroutine pvec_vector_create

  !> Destroy a vector (collective); the handle becomes NULL and its views dangle.
  subroutine pvec_vector_destroy(vec, stat, errmsg)
    type(pvec_vector), intent(inout) :: vec
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int) :: st
    st = c_pvec_vector_destroy(vec%h)
    if (st == PVEC_SUCCESS) vec%h = c_null_ptr
    call finish_c(st, stat, errmsg)
  end subroutine pvec_vector_destroy

  !> Number of local particles.
  subroutine size_i64(vec, n_local, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer(c_int64_t), intent(out) :: n_local
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    n_local = 0
    call finish_c(c_pvec_vector_get_size(vec%h, n_local), stat, errmsg)
  end subroutine size_i64
  subroutine size_i32(vec, n_local, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer(c_int32_t), intent(out) :: n_local
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int64_t) :: n
    integer(c_int) :: st
    n = 0
    st = c_pvec_vector_get_size(vec%h, n)
    call finish_narrow(st, n, n_local, 'pvec_vector_get_size', stat, errmsg)
  end subroutine size_i32

  !> Number of ghosts (stored after the local particles).
  subroutine ghost_size_i64(vec, n_ghost, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer(c_int64_t), intent(out) :: n_ghost
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    n_ghost = 0
    call finish_c(c_pvec_vector_get_ghost_size(vec%h, n_ghost), stat, errmsg)
  end subroutine ghost_size_i64
  subroutine ghost_size_i32(vec, n_ghost, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer(c_int32_t), intent(out) :: n_ghost
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int64_t) :: n
    integer(c_int) :: st
    n = 0
    st = c_pvec_vector_get_ghost_size(vec%h, n)
    call finish_narrow(st, n, n_ghost, 'pvec_vector_get_ghost_size', stat, errmsg)
  end subroutine ghost_size_i32

  !> Capacity C: the leading dimension of every view.
  subroutine capacity_i64(vec, capacity, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer(c_int64_t), intent(out) :: capacity
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    capacity = 0
    call finish_c(c_pvec_vector_get_capacity(vec%h, capacity), stat, errmsg)
  end subroutine capacity_i64
  subroutine capacity_i32(vec, capacity, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer(c_int32_t), intent(out) :: capacity
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int64_t) :: n
    integer(c_int) :: st
    n = 0
    st = c_pvec_vector_get_capacity(vec%h, n)
    call finish_narrow(st, n, capacity, 'pvec_vector_get_capacity', stat, errmsg)
  end subroutine capacity_i32

  !> Space dimension.
  subroutine pvec_vector_get_dim(vec, dim, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer, intent(out) :: dim
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int) :: d, st
    d = 0
    st = c_pvec_vector_get_dim(vec%h, d)
    dim = d
    call finish_c(st, stat, errmsg)
  end subroutine pvec_vector_get_dim

  !> Position dtype (PVEC_FLOAT32 or PVEC_FLOAT64).
  subroutine pvec_vector_get_pos_dtype(vec, dtype, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer, intent(out) :: dtype
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int) :: d, st
    d = 0
    st = c_pvec_vector_get_pos_dtype(vec%h, d)
    dtype = d
    call finish_c(st, stat, errmsg)
  end subroutine pvec_vector_get_pos_dtype

  !> Checks that each present array holds at least dim values; 0 or a status.
  function check_dim_arrays(vec, where, stat_st, a, b) result(dim)
    type(pvec_vector), intent(in) :: vec
    character(*), intent(in) :: where
    integer(c_int), intent(out) :: stat_st
    real(c_double), intent(in), optional :: a(:), b(:)
    integer(c_int) :: dim
    if (allocated(fortran_error)) deallocate (fortran_error)
    dim = 0
    stat_st = c_pvec_vector_get_dim(vec%h, dim)
    if (stat_st /= PVEC_SUCCESS) return
    if (present(a)) then
      if (size(a) < dim) stat_st = PVEC_ERROR_INVALID_ARGUMENT
    end if
    if (present(b)) then
      if (size(b) < dim) stat_st = PVEC_ERROR_INVALID_ARGUMENT
    end if
    if (stat_st /= PVEC_SUCCESS) fortran_error = where//': arrays must hold dim = '// &
                                                  itoa(int(dim, c_int64_t))//' values'
  end function check_dim_arrays

  !> Domain box: lo(1:dim) and hi(1:dim) (each optional; arrays of at least dim values).
  subroutine pvec_vector_get_domain(vec, lo, hi, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    real(c_double), intent(inout), optional, target :: lo(:), hi(:)
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    call box_query(vec, 'pvec_vector_get_domain', .false., lo, hi, stat, errmsg)
  end subroutine pvec_vector_get_domain

  !> This rank's subdomain: lo(1:dim), hi(1:dim) (each optional).
  subroutine pvec_vector_get_subdomain(vec, lo, hi, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    real(c_double), intent(inout), optional, target :: lo(:), hi(:)
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    call box_query(vec, 'pvec_vector_get_subdomain', .true., lo, hi, stat, errmsg)
  end subroutine pvec_vector_get_subdomain

  !> Shared body of pvec_vector_get_domain and pvec_vector_get_subdomain (C fills dim values through plain pointers,
  !> so the arrays are copied through contiguous buffers).
  subroutine box_query(vec, where, sub, lo, hi, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    character(*), intent(in) :: where
    logical, intent(in) :: sub
    real(c_double), intent(inout), optional, target :: lo(:), hi(:)
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    real(c_double), target :: blo(PVEC_MAX_DIM), bhi(PVEC_MAX_DIM)
    type(c_ptr) :: plo, phi
    integer(c_int) :: st, dim
    dim = check_dim_arrays(vec, where, st, lo, hi)
    if (st /= PVEC_SUCCESS) then
      call finish(st, stat, errmsg)
      return
    end if
    plo = c_null_ptr
    phi = c_null_ptr
    if (present(lo)) plo = c_loc(blo)
    if (present(hi)) phi = c_loc(bhi)
    if (sub) then
      st = c_pvec_vector_get_subdomain(vec%h, plo, phi)
    else
      st = c_pvec_vector_get_domain(vec%h, plo, phi)
    end if
    if (st == PVEC_SUCCESS .and. present(lo)) lo(1:dim) = blo(1:dim)
    if (st == PVEC_SUCCESS .and. present(hi)) hi(1:dim) = bhi(1:dim)
    call finish_c(st, stat, errmsg)
  end subroutine box_query

  !> Boundary conditions: bc(1:dim) receives PVEC_PERIODIC / PVEC_NON_PERIODIC.
  subroutine pvec_vector_get_boundaries(vec, bc, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer, intent(inout) :: bc(:)
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int), target :: b(PVEC_MAX_DIM)
    integer(c_int) :: st, dim
    dim = 0
    st = c_pvec_vector_get_dim(vec%h, dim)
    if (st == PVEC_SUCCESS .and. size(bc) < dim) then
      call finish_f(PVEC_ERROR_INVALID_ARGUMENT, 'pvec_vector_get_boundaries: bc must hold dim = '// &
                    itoa(int(dim, c_int64_t))//' values', stat, errmsg)
      return
    end if
    if (st == PVEC_SUCCESS) st = c_pvec_vector_get_boundaries(vec%h, c_loc(b))
    if (st == PVEC_SUCCESS) bc(1:dim) = b(1:dim)
    call finish_c(st, stat, errmsg)
  end subroutine pvec_vector_get_boundaries

  !> Ghost width given at creation.
  subroutine pvec_vector_get_ghost_width(vec, width, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    real(c_double), intent(out) :: width
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    width = 0
    call finish_c(c_pvec_vector_get_ghost_width(vec%h, width), stat, errmsg)
  end subroutine pvec_vector_get_ghost_width

  !> Number of properties (positions not counted).
  subroutine pvec_vector_get_prop_count(vec, count, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer, intent(out) :: count
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int) :: c, st
    c = 0
    st = c_pvec_vector_get_prop_count(vec%h, c)
    count = c
    call finish_c(st, stat, errmsg)
  end subroutine pvec_vector_get_prop_count

  !> Index of the property called name (PVEC_POS for "pos").
  subroutine pvec_vector_get_prop_index(vec, name, prop, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    character(*), intent(in) :: name
    integer, intent(out) :: prop
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int) :: p, st
    p = 0
    st = c_pvec_vector_get_prop_index(vec%h, c_str(name), p)
    prop = p
    call finish_c(st, stat, errmsg)
  end subroutine pvec_vector_get_prop_index

  !> Backend in use: PVEC_BACKEND_HOST or PVEC_BACKEND_CUDA.
  subroutine pvec_vector_get_backend(vec, backend, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer, intent(out) :: backend
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int) :: b, st
    b = 0
    st = c_pvec_vector_get_backend(vec%h, b)
    backend = b
    call finish_c(st, stat, errmsg)
  end subroutine pvec_vector_get_backend

  !> CUDA device ordinal of the device mirror, or -1 with the host backend.
  subroutine pvec_vector_get_device(vec, device, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer, intent(out) :: device
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int) :: d, st
    d = -1
    st = c_pvec_vector_get_device(vec%h, d)
    device = d
    call finish_c(st, stat, errmsg)
  end subroutine pvec_vector_get_device

  !> Generation counter: changes whenever views and pointers of the vector become invalid.
  subroutine pvec_vector_get_generation(vec, generation, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer(c_int64_t), intent(out) :: generation
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    generation = 0
    call finish_c(c_pvec_vector_get_generation(vec%h, generation), stat, errmsg)
  end subroutine pvec_vector_get_generation

  !> Make capacity >= n. Invalidates views when it reallocates.
  subroutine reserve_i64(vec, n, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer(c_int64_t), intent(in) :: n
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    call finish_c(c_pvec_vector_reserve(vec%h, n), stat, errmsg)
  end subroutine reserve_i64
  subroutine reserve_i32(vec, n, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer(c_int32_t), intent(in) :: n
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    call reserve_i64(vec, int(n, c_int64_t), stat, errmsg)
  end subroutine reserve_i32

  !> Set the local size to n (new particles zero). Invalidates views when it reallocates.
  subroutine resize_i64(vec, n, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer(c_int64_t), intent(in) :: n
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    call finish_c(c_pvec_vector_resize(vec%h, n), stat, errmsg)
  end subroutine resize_i64
  subroutine resize_i32(vec, n, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer(c_int32_t), intent(in) :: n
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    call resize_i64(vec, int(n, c_int64_t), stat, errmsg)
  end subroutine resize_i32

  !> Append k zero particles; first (optional) receives the 1-based index of the first one.
  !> Grows capacity geometrically; invalidates views when it reallocates.
  subroutine append_i64(vec, k, first, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer(c_int64_t), intent(in) :: k
    integer(c_int64_t), intent(out), optional :: first
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int64_t), target :: f
    integer(c_int) :: st
    f = -1
    st = c_pvec_vector_append(vec%h, k, c_loc(f))
    if (present(first)) first = f + 1
    call finish_c(st, stat, errmsg)
  end subroutine append_i64
  !> k as integer(c_int64_t), first as a default integer. Refused with PVEC_ERROR_OVERFLOW,
  !> appending nothing, when the first new index would not fit a default integer.
  subroutine append_i64_f32(vec, k, first, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer(c_int64_t), intent(in) :: k
    integer(c_int32_t), intent(out) :: first
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int64_t) :: n, f
    integer(c_int) :: st
    first = 0
    n = 0
    st = c_pvec_vector_get_size(vec%h, n)
    if (st == PVEC_SUCCESS .and. n + 1 > huge(first)) then
      call finish_f(PVEC_ERROR_OVERFLOW, 'pvec_vector_append: the first new particle would be '// &
                    itoa(n + 1)//', beyond a default integer: pass first as an '// &
                    'integer(c_int64_t)', stat, errmsg)
      return
    end if
    call append_i64(vec, k, f, stat, errmsg)
    first = int(f, c_int32_t)
  end subroutine append_i64_f32
  subroutine append_i32(vec, k, first, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer(c_int32_t), intent(in) :: k
    integer(c_int32_t), intent(out), optional :: first
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    if (present(first)) then
      call append_i64_f32(vec, int(k, c_int64_t), first, stat, errmsg)
    else
      call append_i64(vec, int(k, c_int64_t), stat=stat, errmsg=errmsg)
    end if
  end subroutine append_i32
  subroutine append_i32_f64(vec, k, first, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer(c_int32_t), intent(in) :: k
    integer(c_int64_t), intent(out) :: first
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    call append_i64(vec, int(k, c_int64_t), first, stat, errmsg)
  end subroutine append_i32_f64

  !> Remove the local particles with the given 1-based indices (any order); the others keep
  !> their order. Invalidates views (reorders).
  subroutine remove_i64(vec, indices, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer(c_int64_t), intent(in) :: indices(:)
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int64_t), allocatable, target :: idx(:)
    allocate (idx(size(indices)))
    idx = indices - 1
    if (size(idx) == 0) then
      call finish_c(c_pvec_vector_remove(vec%h, c_null_ptr, 0_c_int64_t), stat, errmsg)
    else
      call finish_c(c_pvec_vector_remove(vec%h, c_loc(idx), size(idx, kind=c_int64_t)), stat, errmsg)
    end if
  end subroutine remove_i64
  subroutine remove_i32(vec, indices, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer(c_int32_t), intent(in) :: indices(:)
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    call remove_i64(vec, int(indices, c_int64_t), stat, errmsg)
  end subroutine remove_i32

  !> Reduce the capacity to the local size rounded up to 64. Invalidates views.
  subroutine pvec_vector_shrink_to_fit(vec, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    call finish_c(c_pvec_vector_shrink_to_fit(vec%h), stat, errmsg)
  end subroutine pvec_vector_shrink_to_fit

  ! ================================================================================================
  ! 5. Layout, raw pointers and host views
  ! ================================================================================================

  !> Everything about property prop (or PVEC_POS): dtype, shape, capacity, strides, sizes,
  !> generation and both pointers.
  subroutine pvec_vector_get_layout(vec, prop, layout, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer(c_int), intent(in) :: prop
    type(pvec_layout), intent(out) :: layout
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    layout%struct_size = c_sizeof(layout)
    call finish_c(c_pvec_vector_get_layout(vec%h, prop, layout), stat, errmsg)
  end subroutine pvec_vector_get_layout

  !> Host mirror of property prop (or PVEC_POS): element (i, c) at index c*C + i (0-based).
  !> c_null_ptr on failure (with stat present).
  function pvec_host_ptr(vec, prop, stat, errmsg) result(p)
    type(pvec_vector), intent(in) :: vec
    integer(c_int), intent(in) :: prop
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    type(c_ptr) :: p
    p = c_pvec_host_ptr(vec%h, prop)
    call finish_pointer(vec, prop, p, stat, errmsg)
  end function pvec_host_ptr

  !> Device mirror of property prop (or PVEC_POS), same layout as the host mirror: hand it to
  !> CUDA Fortran (c_devptr), OpenACC (deviceptr) or C. With the host backend it is a second
  !> host allocation. c_null_ptr on failure (with stat present).
  function pvec_device_ptr(vec, prop, stat, errmsg) result(p)
    type(pvec_vector), intent(in) :: vec
    integer(c_int), intent(in) :: prop
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    type(c_ptr) :: p
    p = c_pvec_device_ptr(vec%h, prop)
    call finish_pointer(vec, prop, p, stat, errmsg)
  end function pvec_device_ptr

  !> The pointer getters report failure by NULL only: a layout query on the same arguments
  !> fails the same way and gives the status; the getter's own message is kept.
  subroutine finish_pointer(vec, prop, p, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer(c_int), intent(in) :: prop
    type(c_ptr), intent(in) :: p
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    type(pvec_layout) :: lay
    character(len=:), allocatable :: msg
    integer(c_int) :: st
    if (c_associated(p)) then
      call finish_c(PVEC_SUCCESS, stat, errmsg)
      return
    end if
    msg = pvec_c_string(c_pvec_last_error())
    lay%struct_size = c_sizeof(lay)
    st = c_pvec_vector_get_layout(vec%h, prop, lay)
    if (st == PVEC_SUCCESS) st = PVEC_ERROR_INTERNAL
    call finish_f(st, msg, stat, errmsg)
  end subroutine finish_pointer

  !> Common part of every pvec_host_view: layout query, dtype and rank checks, shape.
  subroutine view_setup(vec, prop, view_rank, dt_a, dt_b, kind_name, p, shp, st)
    type(pvec_vector), intent(in) :: vec
    integer(c_int), intent(in) :: prop, view_rank, dt_a, dt_b
    character(*), intent(in) :: kind_name
    type(c_ptr), intent(out) :: p
    integer(c_int64_t), intent(out) :: shp(3)
    integer(c_int), intent(out) :: st
    type(pvec_layout) :: lay
    character(len=:), allocatable :: what
    p = c_null_ptr
    shp = 0
    if (allocated(fortran_error)) deallocate (fortran_error)
    lay%struct_size = c_sizeof(lay)
    st = c_pvec_vector_get_layout(vec%h, prop, lay)
    if (st /= PVEC_SUCCESS) return
    what = "pvec_host_view: property "//itoa(int(prop, c_int64_t))//" ('"// &
           pvec_c_string(lay%name)//"')"
    if (lay%dtype /= dt_a .and. lay%dtype /= dt_b) then
      st = PVEC_ERROR_DTYPE_MISMATCH
      fortran_error = what//' has dtype '//pvec_dtype_name(lay%dtype)// &
                      ', the view is '//kind_name
      return
    end if
    select case (view_rank)
    case (1)
      if (lay%rank /= 0) then
        st = PVEC_ERROR_INVALID_ARGUMENT
        fortran_error = what//' has '//itoa(lay%ncomp)// &
                        ' components: use a rank-2 view v(capacity, ncomp)'
        return
      end if
      shp = [lay%capacity, 1_c_int64_t, 1_c_int64_t]
    case (2)
      shp = [lay%capacity, lay%ncomp, 1_c_int64_t]
    case default
      if (lay%rank /= 2) then
        st = PVEC_ERROR_INVALID_ARGUMENT
        fortran_error = what//' is not a tensor: a rank-3 view needs tensor[n][m]'
        return
      end if
      shp = [lay%capacity, lay%extents(2), lay%extents(1)]
    end select
    p = lay%host_ptr
  end subroutine view_setup

  subroutine view_f32_1(vec, prop, v, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer(c_int), intent(in) :: prop
    real(c_float), pointer, intent(out) :: v(:)
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    type(c_ptr) :: p
    integer(c_int64_t) :: s(3)
    integer(c_int) :: st
    nullify (v)
    call view_setup(vec, prop, 1, PVEC_FLOAT32, PVEC_FLOAT32, 'real(c_float)', p, s, st)
    if (st == PVEC_SUCCESS) call c_f_pointer(p, v, s(1:1))
    call finish(st, stat, errmsg)
  end subroutine view_f32_1
  subroutine view_f32_2(vec, prop, v, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer(c_int), intent(in) :: prop
    real(c_float), pointer, intent(out) :: v(:, :)
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    type(c_ptr) :: p
    integer(c_int64_t) :: s(3)
    integer(c_int) :: st
    nullify (v)
    call view_setup(vec, prop, 2, PVEC_FLOAT32, PVEC_FLOAT32, 'real(c_float)', p, s, st)
    if (st == PVEC_SUCCESS) call c_f_pointer(p, v, s(1:2))
    call finish(st, stat, errmsg)
  end subroutine view_f32_2
  subroutine view_f32_3(vec, prop, v, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer(c_int), intent(in) :: prop
    real(c_float), pointer, intent(out) :: v(:, :, :)
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    type(c_ptr) :: p
    integer(c_int64_t) :: s(3)
    integer(c_int) :: st
    nullify (v)
    call view_setup(vec, prop, 3, PVEC_FLOAT32, PVEC_FLOAT32, 'real(c_float)', p, s, st)
    if (st == PVEC_SUCCESS) call c_f_pointer(p, v, s)
    call finish(st, stat, errmsg)
  end subroutine view_f32_3

  subroutine view_f64_1(vec, prop, v, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer(c_int), intent(in) :: prop
    real(c_double), pointer, intent(out) :: v(:)
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    type(c_ptr) :: p
    integer(c_int64_t) :: s(3)
    integer(c_int) :: st
    nullify (v)
    call view_setup(vec, prop, 1, PVEC_FLOAT64, PVEC_FLOAT64, 'real(c_double)', p, s, st)
    if (st == PVEC_SUCCESS) call c_f_pointer(p, v, s(1:1))
    call finish(st, stat, errmsg)
  end subroutine view_f64_1
  subroutine view_f64_2(vec, prop, v, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer(c_int), intent(in) :: prop
    real(c_double), pointer, intent(out) :: v(:, :)
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    type(c_ptr) :: p
    integer(c_int64_t) :: s(3)
    integer(c_int) :: st
    nullify (v)
    call view_setup(vec, prop, 2, PVEC_FLOAT64, PVEC_FLOAT64, 'real(c_double)', p, s, st)
    if (st == PVEC_SUCCESS) call c_f_pointer(p, v, s(1:2))
    call finish(st, stat, errmsg)
  end subroutine view_f64_2
  subroutine view_f64_3(vec, prop, v, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer(c_int), intent(in) :: prop
    real(c_double), pointer, intent(out) :: v(:, :, :)
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    type(c_ptr) :: p
    integer(c_int64_t) :: s(3)
    integer(c_int) :: st
    nullify (v)
    call view_setup(vec, prop, 3, PVEC_FLOAT64, PVEC_FLOAT64, 'real(c_double)', p, s, st)
    if (st == PVEC_SUCCESS) call c_f_pointer(p, v, s)
    call finish(st, stat, errmsg)
  end subroutine view_f64_3

  subroutine view_i32_1(vec, prop, v, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer(c_int), intent(in) :: prop
    integer(c_int32_t), pointer, intent(out) :: v(:)
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    type(c_ptr) :: p
    integer(c_int64_t) :: s(3)
    integer(c_int) :: st
    nullify (v)
    call view_setup(vec, prop, 1, PVEC_INT32, PVEC_UINT32, 'integer(c_int32_t)', p, s, st)
    if (st == PVEC_SUCCESS) call c_f_pointer(p, v, s(1:1))
    call finish(st, stat, errmsg)
  end subroutine view_i32_1
  subroutine view_i32_2(vec, prop, v, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer(c_int), intent(in) :: prop
    integer(c_int32_t), pointer, intent(out) :: v(:, :)
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    type(c_ptr) :: p
    integer(c_int64_t) :: s(3)
    integer(c_int) :: st
    nullify (v)
    call view_setup(vec, prop, 2, PVEC_INT32, PVEC_UINT32, 'integer(c_int32_t)', p, s, st)
    if (st == PVEC_SUCCESS) call c_f_pointer(p, v, s(1:2))
    call finish(st, stat, errmsg)
  end subroutine view_i32_2
  subroutine view_i32_3(vec, prop, v, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer(c_int), intent(in) :: prop
    integer(c_int32_t), pointer, intent(out) :: v(:, :, :)
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    type(c_ptr) :: p
    integer(c_int64_t) :: s(3)
    integer(c_int) :: st
    nullify (v)
    call view_setup(vec, prop, 3, PVEC_INT32, PVEC_UINT32, 'integer(c_int32_t)', p, s, st)
    if (st == PVEC_SUCCESS) call c_f_pointer(p, v, s)
    call finish(st, stat, errmsg)
  end subroutine view_i32_3

  subroutine view_i64_1(vec, prop, v, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer(c_int), intent(in) :: prop
    integer(c_int64_t), pointer, intent(out) :: v(:)
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    type(c_ptr) :: p
    integer(c_int64_t) :: s(3)
    integer(c_int) :: st
    nullify (v)
    call view_setup(vec, prop, 1, PVEC_INT64, PVEC_UINT64, 'integer(c_int64_t)', p, s, st)
    if (st == PVEC_SUCCESS) call c_f_pointer(p, v, s(1:1))
    call finish(st, stat, errmsg)
  end subroutine view_i64_1
  subroutine view_i64_2(vec, prop, v, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer(c_int), intent(in) :: prop
    integer(c_int64_t), pointer, intent(out) :: v(:, :)
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    type(c_ptr) :: p
    integer(c_int64_t) :: s(3)
    integer(c_int) :: st
    nullify (v)
    call view_setup(vec, prop, 2, PVEC_INT64, PVEC_UINT64, 'integer(c_int64_t)', p, s, st)
    if (st == PVEC_SUCCESS) call c_f_pointer(p, v, s(1:2))
    call finish(st, stat, errmsg)
  end subroutine view_i64_2
  subroutine view_i64_3(vec, prop, v, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer(c_int), intent(in) :: prop
    integer(c_int64_t), pointer, intent(out) :: v(:, :, :)
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    type(c_ptr) :: p
    integer(c_int64_t) :: s(3)
    integer(c_int) :: st
    nullify (v)
    call view_setup(vec, prop, 3, PVEC_INT64, PVEC_UINT64, 'integer(c_int64_t)', p, s, st)
    if (st == PVEC_SUCCESS) call c_f_pointer(p, v, s)
    call finish(st, stat, errmsg)
  end subroutine view_i64_3

  ! ================================================================================================
  ! 6. Host <-> device transfers
  ! ================================================================================================

  !> Set the CUDA stream (a cudaStream_t as type(c_ptr); c_null_ptr = default stream).
  subroutine pvec_vector_set_stream(vec, stream, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    type(c_ptr), intent(in) :: stream
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    call finish_c(c_pvec_vector_set_stream(vec%h, stream), stat, errmsg)
  end subroutine pvec_vector_set_stream

  !> The vector's CUDA stream.
  subroutine pvec_vector_get_stream(vec, stream, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    type(c_ptr), intent(out) :: stream
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    stream = c_null_ptr
    call finish_c(c_pvec_vector_get_stream(vec%h, stream), stat, errmsg)
  end subroutine pvec_vector_get_stream

  !> The (props, nprops) pair of C: absent props means all properties and the positions.
  subroutine props_arg(props, buf, p, n)
    integer, intent(in), optional :: props(:)
    integer(c_int), allocatable, target, intent(inout) :: buf(:)
    type(c_ptr), intent(out) :: p
    integer(c_int), intent(out) :: n
    p = c_null_ptr
    n = 0
    if (.not. present(props)) return
    n = size(props)
    ! A zero-length list means "no property", not "all": pass a valid non-NULL address.
    allocate (buf(max(1, n)))
    buf(1:n) = int(props, c_int)
    p = c_loc(buf)
  end subroutine props_arg

  !> Copy the listed properties (PVEC_POS for positions; absent: all and the positions) from
  !> the host to the device mirror. Blocks.
  subroutine pvec_host_to_device(vec, props, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer, intent(in), optional :: props(:)
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int), allocatable, target :: buf(:)
    type(c_ptr) :: p
    integer(c_int) :: n
    call props_arg(props, buf, p, n)
    call finish_c(c_pvec_host_to_device(vec%h, p, n), stat, errmsg)
  end subroutine pvec_host_to_device

  !> The reverse of pvec_host_to_device.
  subroutine pvec_device_to_host(vec, props, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer, intent(in), optional :: props(:)
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int), allocatable, target :: buf(:)
    type(c_ptr) :: p
    integer(c_int) :: n
    call props_arg(props, buf, p, n)
    call finish_c(c_pvec_device_to_host(vec%h, p, n), stat, errmsg)
  end subroutine pvec_device_to_host

  !> pvec_host_to_device ordered on stream, without waiting.
  subroutine pvec_host_to_device_async(vec, stream, props, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    type(c_ptr), intent(in) :: stream
    integer, intent(in), optional :: props(:)
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int), allocatable, target :: buf(:)
    type(c_ptr) :: p
    integer(c_int) :: n
    call props_arg(props, buf, p, n)
    call finish_c(c_pvec_host_to_device_async(vec%h, p, n, stream), stat, errmsg)
  end subroutine pvec_host_to_device_async

  !> pvec_device_to_host ordered on stream, without waiting.
  subroutine pvec_device_to_host_async(vec, stream, props, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    type(c_ptr), intent(in) :: stream
    integer, intent(in), optional :: props(:)
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int), allocatable, target :: buf(:)
    type(c_ptr) :: p
    integer(c_int) :: n
    call props_arg(props, buf, p, n)
    call finish_c(c_pvec_device_to_host_async(vec%h, p, n, stream), stat, errmsg)
  end subroutine pvec_device_to_host_async

  !> Wait for all work pvec ordered on the vector's stream.
  subroutine pvec_vector_synchronize(vec, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    call finish_c(c_pvec_vector_synchronize(vec%h), stat, errmsg)
  end subroutine pvec_vector_synchronize

  ! ================================================================================================
  ! 7. Distribution over MPI
  ! ================================================================================================

  !> This process's rank in the vector's communicator (0-based, as MPI's).
  subroutine pvec_vector_get_rank(vec, rank, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer, intent(out) :: rank
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int) :: r, st
    r = -1
    st = c_pvec_vector_get_rank(vec%h, r)
    rank = r
    call finish_c(st, stat, errmsg)
  end subroutine pvec_vector_get_rank

  !> Number of ranks of the vector's communicator.
  subroutine pvec_vector_get_nranks(vec, size, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer, intent(out) :: size
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int) :: s, st
    s = 0
    st = c_pvec_vector_get_nranks(vec%h, s)
    size = s
    call finish_c(st, stat, errmsg)
  end subroutine pvec_vector_get_nranks

  !> Rank (0-based) owning point x(1:dim).
  subroutine pvec_vector_get_owner_rank(vec, x, rank, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    real(c_double), intent(in) :: x(:)
    integer, intent(out) :: rank
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    real(c_double) :: buf(PVEC_MAX_DIM)
    integer(c_int) :: r, st, dim
    dim = check_dim_arrays(vec, 'pvec_vector_get_owner_rank', st, x)
    rank = -1
    if (st /= PVEC_SUCCESS) then
      call finish(st, stat, errmsg)
      return
    end if
    buf = 0
    buf(1:dim) = x(1:dim)
    r = -1
    st = c_pvec_vector_get_owner_rank(vec%h, buf, r)
    rank = r
    call finish_c(st, stat, errmsg)
  end subroutine pvec_vector_get_owner_rank

  !> Send every particle to the rank owning its position (collective; invalidates views).
  !> flags: PVEC_ON_DEVICE, PVEC_MAP_REMOVE_OUTSIDE. n_removed: global count removed.
  subroutine map_i64(vec, flags, n_removed, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer, intent(in), optional :: flags
    integer(c_int64_t), intent(out), optional :: n_removed
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int64_t), target :: nr
    integer(c_int) :: f, st
    f = 0
    if (present(flags)) f = int(flags, c_int)
    nr = 0
    st = c_pvec_map(vec%h, f, c_loc(nr))
    if (present(n_removed)) n_removed = nr
    call finish_c(st, stat, errmsg)
  end subroutine map_i64
  !> n_removed as a default integer (PVEC_ERROR_OVERFLOW after the map if the count does not fit).
  subroutine map_i32(vec, flags, n_removed, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer, intent(in), optional :: flags
    integer(c_int32_t), intent(out) :: n_removed
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int64_t), target :: nr
    integer(c_int) :: f, st
    f = 0
    if (present(flags)) f = int(flags, c_int)
    nr = 0
    st = c_pvec_map(vec%h, f, c_loc(nr))
    call finish_narrow(st, nr, n_removed, 'pvec_map', stat, errmsg)
  end subroutine map_i32

  !> Replace the ghosts by copies of the particles within ghost_width of this rank's subdomain
  !> (collective; invalidates views). props absent: all properties.
  subroutine pvec_ghost_get(vec, props, flags, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer, intent(in), optional :: props(:)
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int), allocatable, target :: buf(:)
    type(c_ptr) :: p
    integer(c_int) :: n, f
    f = 0
    if (present(flags)) f = int(flags, c_int)
    call props_arg(props, buf, p, n)
    call finish_c(c_pvec_ghost_get(vec%h, p, n, f), stat, errmsg)
  end subroutine pvec_ghost_get

  !> Send ghost values of the listed properties (absent: all) back to their owners and combine
  !> them with op (PVEC_REDUCE_*). Collective. Note the order: op comes before the optional
  !> props, unlike C, so that `call pvec_ghost_put(vec, PVEC_REDUCE_ADD)` works.
  subroutine pvec_ghost_put(vec, op, props, flags, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer, intent(in) :: op
    integer, intent(in), optional :: props(:)
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int), allocatable, target :: buf(:)
    type(c_ptr) :: p
    integer(c_int) :: n, f
    f = 0
    if (present(flags)) f = int(flags, c_int)
    call props_arg(props, buf, p, n)
    call finish_c(c_pvec_ghost_put(vec%h, p, n, int(op, c_int), f), stat, errmsg)
  end subroutine pvec_ghost_put

  ! ================================================================================================
  ! 8. Diagnostics
  ! ================================================================================================

  !> Process-wide accounting of pvec's allocations.
  subroutine pvec_memory_get_stats(stats, stat, errmsg)
    type(pvec_memory_stats), intent(out) :: stats
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    stats%struct_size = c_sizeof(stats)
    call finish_c(c_pvec_memory_get_stats(stats), stat, errmsg)
  end subroutine pvec_memory_get_stats

  !> Figures of the last distribution call on vec (zeros before the first).
  subroutine pvec_vector_get_op_stats(vec, stats, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    type(pvec_op_stats), intent(out) :: stats
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    stats%struct_size = c_sizeof(stats)
    call finish_c(c_pvec_vector_get_op_stats(vec%h, stats), stat, errmsg)
  end subroutine pvec_vector_get_op_stats

  ! ================================================================================================
  ! 10. Neighbour search (pvec.h section 10; docs/fortran.md). Local calls, except
  ! pvec_verlet_check (collective). A list is stale after pvec_map, pvec_vector_sort (when rows moved),
  ! pvec_ghost_get without PVEC_GHOST_REUSE_PLAN and any change of the particles: the _get and
  ! _arrays calls then give PVEC_ERROR_STATE until the list is rebuilt. Arrays obtained from a
  ! list are valid until it is rebuilt or destroyed. Rows in the arrays are 0-based C values:
  ! Fortran particle index = row + 1.
  ! ================================================================================================

  !> Build a cell list of vec's rows for cutoff (cells at least cutoff / cells_per_cutoff wide,
  !> cells_per_cutoff in 1..8, default 1). flags: PVEC_ON_DEVICE, PVEC_CELLS_GHOSTS (include the
  !> ghosts). Errors: PVEC_ERROR_INVALID_ARGUMENT (cutoff not positive and finite or above the
  !> ghost width, cells_per_cutoff out of range, unknown flags, a NaN position),
  !> PVEC_ERROR_NOT_SUPPORTED (dim 4), PVEC_ERROR_INVALID_HANDLE, OUT_OF_MEMORY, CUDA.
  subroutine pvec_cell_list_create(vec, cutoff, list, cells_per_cutoff, flags, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    real(c_double), intent(in) :: cutoff
    type(pvec_cell_list), intent(out) :: list
    integer, intent(in), optional :: cells_per_cutoff, flags
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int) :: k, f
    type(c_ptr) :: h
    k = 1
    if (present(cells_per_cutoff)) k = int(cells_per_cutoff, c_int)
    f = 0
    if (present(flags)) f = int(flags, c_int)
    h = c_null_ptr
    list%h = c_null_ptr
    k = c_pvec_cell_list_create(vec%h, cutoff, k, f, h)
    if (k == PVEC_SUCCESS) list%h = h
    call finish_c(k, stat, errmsg)
  end subroutine pvec_cell_list_create

  !> Rebuild the list from the vector's rows as they are now (same cutoff and flags).
  subroutine pvec_cell_list_build(list, stat, errmsg)
    type(pvec_cell_list), intent(in) :: list
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    call finish_c(c_pvec_cell_list_build(list%h), stat, errmsg)
  end subroutine pvec_cell_list_build

  !> The list's geometry and array pointers. PVEC_ERROR_STATE when stale.
  subroutine pvec_cell_list_get_info(list, info, stat, errmsg)
    type(pvec_cell_list), intent(in) :: list
    type(pvec_cell_list_info), intent(out) :: info
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    info%struct_size = c_sizeof(info)
    call finish_c(c_pvec_cell_list_get_info(list%h, info), stat, errmsg)
  end subroutine pvec_cell_list_get_info

  !> Free the list; list becomes the NULL handle.
  subroutine pvec_cell_list_destroy(list, stat, errmsg)
    type(pvec_cell_list), intent(inout) :: list
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int) :: st
    st = c_pvec_cell_list_destroy(list%h)
    if (st == PVEC_SUCCESS) list%h = c_null_ptr
    call finish_c(st, stat, errmsg)
  end subroutine pvec_cell_list_destroy

  !> The arrays of a cell list built on the host mirror, as Fortran pointers (no copy):
  !> cell_offsets(1:ncells+1), cell_particles(1:n_entries), local_offsets(1:ncells+1), holding
  !> C's 0-based values. The rows of 0-based cell c are
  !>   do e = cell_offsets(c+1) + 1, cell_offsets(c+2);  i = cell_particles(e) + 1
  !> A list whose arrays are CUDA memory (info%on_device /= 0: built with PVEC_ON_DEVICE on the
  !> CUDA backend) gives PVEC_ERROR_INVALID_ARGUMENT: use the type(c_ptr) fields of
  !> pvec_cell_list_get_info in CUDA Fortran or OpenACC. A stale list gives STATE.
  subroutine pvec_cell_list_arrays(list, cell_offsets, cell_particles, local_offsets, info, &
                                   stat, errmsg)
    type(pvec_cell_list), intent(in) :: list
    integer(c_int32_t), pointer, intent(out) :: cell_offsets(:), cell_particles(:)
    integer(c_int32_t), pointer, intent(out), optional :: local_offsets(:)
    type(pvec_cell_list_info), intent(out), optional :: info
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    type(pvec_cell_list_info) :: i
    integer(c_int) :: st
    integer(c_int32_t), pointer, save :: none(:) => null()
    cell_offsets => null()
    cell_particles => null()
    if (present(local_offsets)) local_offsets => null()
    i%struct_size = c_sizeof(i)
    st = c_pvec_cell_list_get_info(list%h, i)
    if (present(info)) info = i
    if (st /= PVEC_SUCCESS) then
      call finish_c(st, stat, errmsg)
      return
    end if
    if (i%on_device /= 0) then
      call finish_f(PVEC_ERROR_INVALID_ARGUMENT, 'pvec_cell_list_arrays: the arrays are CUDA '// &
                    'memory: use the device pointers of pvec_cell_list_get_info', &
                    stat, errmsg)
      return
    end if
    call c_f_pointer(i%cell_offsets, cell_offsets, [i%ncells + 1])
    if (i%n_entries > 0) then
      call c_f_pointer(i%cell_particles, cell_particles, [i%n_entries])
    else  ! no rows: the C pointer may be NULL
      if (.not. associated(none)) allocate (none(0))
      cell_particles => none
    end if
    if (present(local_offsets)) call c_f_pointer(i%local_offsets, local_offsets, [i%ncells + 1])
    call finish_c(st, stat, errmsg)
  end subroutine pvec_cell_list_arrays

  !> Reorder the local particles by cells of width cell_width (every property and the
  !> positions, stably) on the host mirror (flags PVEC_ON_DEVICE: the device mirror);
  !> PVEC_SORT_MORTON: Z-order of cells; PVEC_SORT_HALO_FIRST: the cells within a ghost width
  !> of the subdomain's faces first, grouped by face (not with Morton); PVEC_SORT_BOTH_MIRRORS:
  !> permute the other mirror too.
  !> moved = .true. when rows moved (views and lists are then stale, the ghost plan is
  !> forgotten), .false. when already in cell order. Local. Errors: PVEC_ERROR_INVALID_ARGUMENT
  !> (cell_width not positive and finite, unknown flags, a NaN position), NOT_SUPPORTED; the
  !> vector is unchanged then.
  subroutine pvec_vector_sort(vec, cell_width, flags, moved, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    real(c_double), intent(in) :: cell_width
    integer, intent(in), optional :: flags
    logical, intent(out), optional :: moved
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int), target :: m
    integer(c_int) :: f, st
    f = 0
    if (present(flags)) f = int(flags, c_int)
    m = 0
    st = c_pvec_vector_sort(vec%h, cell_width, f, c_loc(m))
    if (present(moved)) moved = m /= 0
    call finish_c(st, stat, errmsg)
  end subroutine pvec_vector_sort

  !> Build a Verlet list of the local particles over local and ghost rows: the pairs closer
  !> than cutoff + skin (at most the ghost width), from cells_per_cutoff (default 1) cells per
  !> cutoff + skin. flags: PVEC_ON_DEVICE, PVEC_VERLET_HALF (each pair once). Errors:
  !> PVEC_ERROR_INVALID_ARGUMENT (cutoff not positive, skin negative, cutoff + skin above the
  !> ghost width, unknown flags, a NaN position), STATE (a half list whose ghosts do not come from
  !> the last valid ghost plan), NOT_SUPPORTED, INVALID_HANDLE, OUT_OF_MEMORY, CUDA.
  subroutine pvec_verlet_create(vec, cutoff, skin, list, cells_per_cutoff, flags, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    real(c_double), intent(in) :: cutoff, skin
    type(pvec_verlet), intent(out) :: list
    integer, intent(in), optional :: cells_per_cutoff, flags
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int) :: k, f
    type(c_ptr) :: h
    k = 1
    if (present(cells_per_cutoff)) k = int(cells_per_cutoff, c_int)
    f = 0
    if (present(flags)) f = int(flags, c_int)
    h = c_null_ptr
    list%h = c_null_ptr
    k = c_pvec_verlet_create(vec%h, cutoff, skin, k, f, h)
    if (k == PVEC_SUCCESS) list%h = h
    call finish_c(k, stat, errmsg)
  end subroutine pvec_verlet_create

  !> Rebuild from the rows as they are now; the positions become check's new reference.
  subroutine pvec_verlet_build(list, stat, errmsg)
    type(pvec_verlet), intent(in) :: list
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    call finish_c(c_pvec_verlet_build(list%h), stat, errmsg)
  end subroutine pvec_verlet_build

  !> The list's sizes and array pointers. PVEC_ERROR_STATE when stale.
  subroutine pvec_verlet_get_info(list, info, stat, errmsg)
    type(pvec_verlet), intent(in) :: list
    type(pvec_verlet_info), intent(out) :: info
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    info%struct_size = c_sizeof(info)
    call finish_c(c_pvec_verlet_get_info(list%h, info), stat, errmsg)
  end subroutine pvec_verlet_get_info

  !> rebuild = .true. when some local particle on some rank moved more than skin / 2 since the
  !> build, or the list is stale. Collective: the same answer on every rank.
  subroutine pvec_verlet_check(list, rebuild, stat, errmsg)
    type(pvec_verlet), intent(in) :: list
    logical, intent(out) :: rebuild
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int) :: r, st
    r = 0
    st = c_pvec_verlet_check(list%h, r)
    rebuild = r /= 0
    call finish_c(st, stat, errmsg)
  end subroutine pvec_verlet_check

  !> Free the list; list becomes the NULL handle.
  subroutine pvec_verlet_destroy(list, stat, errmsg)
    type(pvec_verlet), intent(inout) :: list
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int) :: st
    st = c_pvec_verlet_destroy(list%h)
    if (st == PVEC_SUCCESS) list%h = c_null_ptr
    call finish_c(st, stat, errmsg)
  end subroutine pvec_verlet_destroy

  !> The arrays of a Verlet list built on the host mirror, as Fortran pointers (no copy):
  !> offsets(1:n+1) (int64) and neighbors(1:n_pairs) (int32), holding C's 0-based values.
  !> The neighbours of (1-based) local particle i:
  !>   do e = offsets(i) + 1, offsets(i+1);  j = neighbors(e) + 1;  ...  end do
  !> (j > n_local: a ghost). A list whose arrays are CUDA memory (info%on_device /= 0: built
  !> with PVEC_ON_DEVICE on the CUDA backend) gives PVEC_ERROR_INVALID_ARGUMENT: use the
  !> type(c_ptr) fields of pvec_verlet_get_info. A stale list gives STATE.
  subroutine pvec_verlet_arrays(list, offsets, neighbors, info, stat, errmsg)
    type(pvec_verlet), intent(in) :: list
    integer(c_int64_t), pointer, intent(out) :: offsets(:)
    integer(c_int32_t), pointer, intent(out) :: neighbors(:)
    type(pvec_verlet_info), intent(out), optional :: info
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    type(pvec_verlet_info) :: i
    integer(c_int) :: st
    integer(c_int32_t), pointer, save :: none(:) => null()
    offsets => null()
    neighbors => null()
    i%struct_size = c_sizeof(i)
    st = c_pvec_verlet_get_info(list%h, i)
    if (present(info)) info = i
    if (st /= PVEC_SUCCESS) then
      call finish_c(st, stat, errmsg)
      return
    end if
    if (i%on_device /= 0) then
      call finish_f(PVEC_ERROR_INVALID_ARGUMENT, 'pvec_verlet_arrays: the arrays are CUDA '// &
                    'memory: use the device pointers of pvec_verlet_get_info', &
                    stat, errmsg)
      return
    end if
    call c_f_pointer(i%offsets, offsets, [i%n + 1])
    if (i%n_pairs > 0) then
      call c_f_pointer(i%neighbors, neighbors, [i%n_pairs])
    else  ! no pairs: the C pointer may be NULL
      if (.not. associated(none)) allocate (none(0))
      neighbors => none
    end if
    call finish_c(st, stat, errmsg)
  end subroutine pvec_verlet_arrays

end module pvec
