!> pvec_reductions -- sums, minima and maxima over the vector's communicator without MPI in the
!> program (pvec.h "Reductions", docs/reductions.md): of each component of a property over the
!> local particles of every rank (pvec_vector_reduce), or of the caller's own values
!> (pvec_vector_allreduce). Both are collective: every rank calls them with the same property
!> (or count and kind) and op, and gets the same result.
module pvec_reductions
  use, intrinsic :: iso_c_binding
  use pvec_capi
  use pvec_base, only: flags_arg, pvec_vector, fortran_error, finish, finish_c, itoa, &
                       pvec_c_string
  implicit none
  private
  public :: pvec_vector_reduce, pvec_vector_allreduce

  !> call pvec_vector_reduce(vec, prop, op, result [, flags] [, stat] [, errmsg]): result(c+1)
  !> is op (PVEC_REDUCE_ADD, _MIN or _MAX) of component c of property prop (or PVEC_POS) over
  !> the local particles of every rank; a tensor[n][m]'s entry (a,b) is result(a*m + b + 1).
  !> result is real(c_double) for float32 and float64 properties, integer(c_int64_t) for the
  !> integer ones (uint32/uint64 sums keep their bits), an array of at least ncomp values, or a
  !> scalar for a one-component property. flags: PVEC_ON_DEVICE (read the device mirror).
  !> Unlike C, result comes before the optional flags. result is written only on success; a
  !> result of the wrong kind gives PVEC_ERROR_DTYPE_MISMATCH, one too small
  !> PVEC_ERROR_INVALID_ARGUMENT, on the ranks where it is so (every rank still takes part).
  interface pvec_vector_reduce
    module procedure reduce_f64_0, reduce_f64_1, reduce_i64_0, reduce_i64_1
  end interface

  !> call pvec_vector_allreduce(vec, values, op [, stat] [, errmsg]): values (a scalar or an
  !> array, host memory) becomes op (PVEC_REDUCE_ADD, _MIN or _MAX) of each entry over the
  !> ranks, in place. real(c_float), real(c_double), integer(c_int32_t) or integer(c_int64_t):
  !> PVEC_FLOAT32, _FLOAT64, _INT32 or _INT64 in C (for unsigned values call
  !> c_pvec_vector_allreduce with PVEC_UINT32 or PVEC_UINT64). 32-bit sums are computed in 32
  !> bits. values is unchanged on failure.
  interface pvec_vector_allreduce
    module procedure allreduce_f32_0, allreduce_f32_1, allreduce_f64_0, allreduce_f64_1
    module procedure allreduce_i32_0, allreduce_i32_1, allreduce_i64_0, allreduce_i64_1
  end interface

contains

  ! ---- pvec_vector_reduce -----------------------------------------------------------------------

  !> Shared body: the C call into a buffer of the property's own result type and size, then the
  !> Fortran checks of the caller's result. The C call comes first so that every rank takes part
  !> in the collective even where this rank's argument is wrong (a rank that returned early
  !> would leave the others waiting). st: the status; buf(1:ncomp): the C result (8 bytes each:
  !> double or (u)int64 bits); want_real: the kind of the caller's result; room: its size
  !> (1 for a scalar: scalar true).
  subroutine reduce_core(vec, prop, op, flags, want_real, scalar, room, buf, ncomp, st)
    type(pvec_vector), intent(in) :: vec
    integer, intent(in) :: prop, op
    integer, intent(in), optional :: flags
    logical, intent(in) :: want_real, scalar
    integer(c_int64_t), intent(in) :: room
    integer(c_int64_t), allocatable, target, intent(out) :: buf(:)
    integer(c_int64_t), intent(out) :: ncomp
    integer(c_int), intent(out) :: st
    type(pvec_layout) :: lay
    logical :: is_real
    integer(c_int) :: f
    character(len=:), allocatable :: what
    f = flags_arg(flags)
    lay%struct_size = c_sizeof(lay)
    ncomp = 1
    is_real = want_real
    if (c_pvec_vector_get_layout(vec%h, int(prop, c_int), lay) == PVEC_SUCCESS) then
      ncomp = lay%ncomp
      is_real = lay%dtype == PVEC_FLOAT32 .or. lay%dtype == PVEC_FLOAT64
    end if
    ! On a failed layout query C fails the same way, before writing: one value is room enough.
    allocate (buf(max(1_c_int64_t, ncomp)))
    st = c_pvec_vector_reduce(vec%h, int(prop, c_int), int(op, c_int), f, c_loc(buf))
    if (allocated(fortran_error)) deallocate (fortran_error)
    if (st /= PVEC_SUCCESS) return
    what = 'pvec_vector_reduce: property '//itoa(int(prop, c_int64_t))//" ('"// &
           pvec_c_string(lay%name)//"')"
    if (is_real .neqv. want_real) then
      st = PVEC_ERROR_DTYPE_MISMATCH
      if (is_real) then
        fortran_error = what//' has dtype '//pvec_c_string(c_pvec_dtype_name(lay%dtype))// &
                        ': its result is real(c_double), not integer(c_int64_t)'
      else
        fortran_error = what//' has dtype '//pvec_c_string(c_pvec_dtype_name(lay%dtype))// &
                        ': its result is integer(c_int64_t), not real(c_double)'
      end if
    else if (room < ncomp) then
      st = PVEC_ERROR_INVALID_ARGUMENT
      if (scalar) then
        fortran_error = what//' has '//itoa(ncomp)//' components: pass an array result('// &
                        itoa(ncomp)//')'
      else
        fortran_error = what//' has '//itoa(ncomp)//' components, result holds '//itoa(room)
      end if
    end if
  end subroutine reduce_core

  subroutine reduce_f64_1(vec, prop, op, result, flags, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer, intent(in) :: prop, op
    real(c_double), intent(inout) :: result(:)
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int64_t), allocatable :: buf(:)
    integer(c_int64_t) :: n
    integer(c_int) :: st
    call reduce_core(vec, prop, op, flags, .true., .false., size(result, kind=c_int64_t), buf, n, &
                     st)
    if (st == PVEC_SUCCESS) result(1:n) = transfer(buf(1:n), 0.0_c_double, int(n))
    call finish(st, stat, errmsg)
  end subroutine reduce_f64_1

  subroutine reduce_f64_0(vec, prop, op, result, flags, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer, intent(in) :: prop, op
    real(c_double), intent(inout) :: result
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int64_t), allocatable :: buf(:)
    integer(c_int64_t) :: n
    integer(c_int) :: st
    call reduce_core(vec, prop, op, flags, .true., .true., 1_c_int64_t, buf, n, st)
    if (st == PVEC_SUCCESS) result = transfer(buf(1), 0.0_c_double)
    call finish(st, stat, errmsg)
  end subroutine reduce_f64_0

  subroutine reduce_i64_1(vec, prop, op, result, flags, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer, intent(in) :: prop, op
    integer(c_int64_t), intent(inout) :: result(:)
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int64_t), allocatable :: buf(:)
    integer(c_int64_t) :: n
    integer(c_int) :: st
    call reduce_core(vec, prop, op, flags, .false., .false., size(result, kind=c_int64_t), buf, n, &
                     st)
    if (st == PVEC_SUCCESS) result(1:n) = buf(1:n)
    call finish(st, stat, errmsg)
  end subroutine reduce_i64_1

  subroutine reduce_i64_0(vec, prop, op, result, flags, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer, intent(in) :: prop, op
    integer(c_int64_t), intent(inout) :: result
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int64_t), allocatable :: buf(:)
    integer(c_int64_t) :: n
    integer(c_int) :: st
    call reduce_core(vec, prop, op, flags, .false., .true., 1_c_int64_t, buf, n, st)
    if (st == PVEC_SUCCESS) result = buf(1)
    call finish(st, stat, errmsg)
  end subroutine reduce_i64_0

  ! ---- pvec_vector_allreduce --------------------------------------------------------------------

  !> Shared body: n values of dtype at p (c_null_ptr when n is 0).
  subroutine allreduce_core(vec, p, n, dtype, op, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    type(c_ptr), intent(in) :: p
    integer(c_int64_t), intent(in) :: n
    integer(c_int), intent(in) :: dtype
    integer, intent(in) :: op
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    call finish_c(c_pvec_vector_allreduce(vec%h, p, n, dtype, int(op, c_int)), stat, errmsg)
  end subroutine allreduce_core

  subroutine allreduce_f32_1(vec, values, op, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    real(c_float), intent(inout), target, contiguous :: values(:)
    integer, intent(in) :: op
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int64_t) :: n
    type(c_ptr) :: p
    n = size(values, kind=c_int64_t)
    p = c_null_ptr
    if (n > 0) p = c_loc(values)
    call allreduce_core(vec, p, n, PVEC_FLOAT32, op, stat, errmsg)
  end subroutine allreduce_f32_1

  subroutine allreduce_f64_1(vec, values, op, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    real(c_double), intent(inout), target, contiguous :: values(:)
    integer, intent(in) :: op
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int64_t) :: n
    type(c_ptr) :: p
    n = size(values, kind=c_int64_t)
    p = c_null_ptr
    if (n > 0) p = c_loc(values)
    call allreduce_core(vec, p, n, PVEC_FLOAT64, op, stat, errmsg)
  end subroutine allreduce_f64_1

  subroutine allreduce_i32_1(vec, values, op, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer(c_int32_t), intent(inout), target, contiguous :: values(:)
    integer, intent(in) :: op
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int64_t) :: n
    type(c_ptr) :: p
    n = size(values, kind=c_int64_t)
    p = c_null_ptr
    if (n > 0) p = c_loc(values)
    call allreduce_core(vec, p, n, PVEC_INT32, op, stat, errmsg)
  end subroutine allreduce_i32_1

  subroutine allreduce_i64_1(vec, values, op, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer(c_int64_t), intent(inout), target, contiguous :: values(:)
    integer, intent(in) :: op
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int64_t) :: n
    type(c_ptr) :: p
    n = size(values, kind=c_int64_t)
    p = c_null_ptr
    if (n > 0) p = c_loc(values)
    call allreduce_core(vec, p, n, PVEC_INT64, op, stat, errmsg)
  end subroutine allreduce_i64_1

  subroutine allreduce_f32_0(vec, value, op, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    real(c_float), intent(inout), target :: value
    integer, intent(in) :: op
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    call allreduce_core(vec, c_loc(value), 1_c_int64_t, PVEC_FLOAT32, op, stat, errmsg)
  end subroutine allreduce_f32_0

  subroutine allreduce_f64_0(vec, value, op, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    real(c_double), intent(inout), target :: value
    integer, intent(in) :: op
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    call allreduce_core(vec, c_loc(value), 1_c_int64_t, PVEC_FLOAT64, op, stat, errmsg)
  end subroutine allreduce_f64_0

  subroutine allreduce_i32_0(vec, value, op, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer(c_int32_t), intent(inout), target :: value
    integer, intent(in) :: op
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    call allreduce_core(vec, c_loc(value), 1_c_int64_t, PVEC_INT32, op, stat, errmsg)
  end subroutine allreduce_i32_0

  subroutine allreduce_i64_0(vec, value, op, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer(c_int64_t), intent(inout), target :: value
    integer, intent(in) :: op
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    call allreduce_core(vec, c_loc(value), 1_c_int64_t, PVEC_INT64, op, stat, errmsg)
  end subroutine allreduce_i64_0
end module pvec_reductions
