!> pvec_vectors -- a vector: its creation and destruction, what it is (sizes, box, dtype,
!> properties, backend) and how its number of particles changes (pvec.h section 4; the
!> subdomain query of section 7 is here beside the domain query it shares its code with).
module pvec_vectors
  use, intrinsic :: iso_c_binding
  use pvec_capi
  use pvec_base, only: pvec_vector, pvec_schema, fortran_error, finish, finish_c, &
                       finish_f, finish_narrow, itoa, c_str, check_dim_arrays
  implicit none
  private
  public :: pvec_vector_desc_init, pvec_vector_desc_set_comm, pvec_vector_create
  public :: pvec_vector_destroy
  public :: pvec_vector_get_size, pvec_vector_get_ghost_size, pvec_vector_get_capacity
  public :: pvec_vector_get_dim, pvec_vector_get_pos_dtype, pvec_vector_get_domain
  public :: pvec_vector_get_subdomain, pvec_vector_get_boundaries, pvec_vector_get_ghost_width
  public :: pvec_vector_get_prop_count, pvec_vector_get_prop_index
  public :: pvec_vector_get_backend, pvec_vector_get_device, pvec_vector_get_generation
  public :: pvec_vector_reserve, pvec_vector_resize, pvec_vector_append, pvec_vector_remove
  public :: pvec_vector_shrink_to_fit

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

contains

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

  !> Shared body of pvec_vector_get_domain and pvec_vector_get_subdomain (C fills dim values
  !> through plain pointers, so the arrays are copied through contiguous buffers).
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
      call finish_f(PVEC_ERROR_INVALID_ARGUMENT, &
                    'pvec_vector_get_boundaries: bc must hold dim = '// &
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
      call finish_c(c_pvec_vector_remove(vec%h, c_loc(idx), size(idx, kind=c_int64_t)), stat, &
                    errmsg)
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
end module pvec_vectors
