!> pvec_schemas -- building a schema: the properties a vector will carry (pvec.h section 3).
module pvec_schemas
  use, intrinsic :: iso_c_binding
  use pvec_capi
  use pvec_base, only: pvec_schema, finish_c, finish_f, itoa, c_str
  implicit none
  private
  public :: pvec_schema_create, pvec_schema_destroy, pvec_schema_add, pvec_schema_add_scalar
  public :: pvec_schema_add_vector, pvec_schema_add_tensor, pvec_schema_get_count
  public :: pvec_schema_get_property

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

contains

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

  !> Property index (0-based, as in C) of the schema: its name (trimmed into a deferred-length
  !> string), dtype, rank (0 scalar, 1 vector, 2 tensor) and extents (unused ones are 1).
  subroutine pvec_schema_get_property(schema, index, name, dtype, rank, extents, stat, errmsg)
    type(pvec_schema), intent(in) :: schema
    integer, intent(in) :: index
    character(:), allocatable, intent(out) :: name
    integer, intent(out) :: dtype, rank
    integer(c_int64_t), intent(out) :: extents(2)
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    character(kind=c_char), target :: buf(64)
    integer(c_int), target :: cd, cr
    integer(c_int64_t), target :: ce(2)
    integer(c_int) :: st
    integer :: k
    buf = c_null_char
    cd = 0
    cr = 0
    ce = 1
    st = c_pvec_schema_get_property(schema%h, int(index, c_int), c_loc(buf), &
                                    int(size(buf), c_size_t), c_loc(cd), c_loc(cr), c_loc(ce))
    k = 0
    do while (k < size(buf))
      if (buf(k + 1) == c_null_char) exit
      k = k + 1
    end do
    allocate (character(k) :: name)
    name = transfer(buf(1:k), name)
    dtype = cd
    rank = cr
    extents = ce
    call finish_c(st, stat, errmsg)
  end subroutine pvec_schema_get_property
end module pvec_schemas
