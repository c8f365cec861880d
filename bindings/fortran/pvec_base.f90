!> pvec_base -- what every wrapper of the Fortran binding shares: the handle types, how a
!> wrapper ends (stat=, errmsg=, or error stop), the error message and status strings, and
!> the conversion of strings and argument lists between Fortran and C. Module pvec re-exports
!> the user-facing part; the rest is for the other modules of the binding.
module pvec_base
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: error_unit
  use pvec_capi
  implicit none
  private
  public :: pvec_vector, pvec_schema, pvec_cell_list, pvec_verlet
  public :: pvec_c_handle, pvec_vector_from_c, pvec_schema_from_c
  public :: pvec_status_string, pvec_last_error, pvec_c_string
  ! For the other modules of the binding (module pvec does not re-export these):
  public :: fortran_error, finish, finish_c, finish_f, finish_narrow, itoa, c_str
  public :: props_arg, flags_arg, check_dim_arrays

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

  !> A cell list (pvec_cell_list_t) and a Verlet list (pvec_verlet_t); default-initialised: NULL.
  type, public :: pvec_cell_list
    type(c_ptr) :: h = c_null_ptr
  end type pvec_cell_list
  type, public :: pvec_verlet
    type(c_ptr) :: h = c_null_ptr
  end type pvec_verlet

  !> pvec_c_handle(vec) / pvec_c_handle(schema) / pvec_c_handle(list): the C handle
  !> (pvec_vector_t / pvec_schema_t / pvec_cell_list_t / pvec_verlet_t)
  !> as a type(c_ptr), for a C, C++ or CUDA function declared with `type(c_ptr), value`.
  !> c_null_ptr for a default-initialised or destroyed handle.
  interface pvec_c_handle
    module procedure vector_c_handle, schema_c_handle, cell_list_c_handle, verlet_c_handle
  end interface

  interface
    ! libc, to measure C strings.
    function c_strlen(s) result(r) bind(C, name='strlen')
      import :: c_ptr, c_size_t
      type(c_ptr), value :: s
      integer(c_size_t) :: r
    end function c_strlen
  end interface

  !> Message of the latest failure detected on the Fortran side (a dtype mismatch in
  !> pvec_host_view, an array too short, ...), cleared by the next wrapper call that reaches C.
  !> Process-wide, not per thread (unlike the C library's message).
  character(len=:), allocatable, save :: fortran_error

contains

  ! ---- How a wrapper ends ------------------------------------------------------------------------

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

  ! ---- Messages and strings ---------------------------------------------------------------------

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

  !> Fortran string -> NUL-terminated C string (trailing blanks removed).
  pure function c_str(s) result(r)
    character(*), intent(in) :: s
    character(kind=c_char, len=:), allocatable :: r
    r = trim(s)//c_null_char
  end function c_str

  !> An optional flags argument as the C int the C ABI takes: 0 when absent.
  pure function flags_arg(flags) result(f)
    integer, intent(in), optional :: flags
    integer(c_int) :: f
    f = 0
    if (present(flags)) f = int(flags, c_int)
  end function flags_arg

  !> Integer to text, without blanks.
  pure function itoa(i) result(r)
    integer(c_int64_t), intent(in) :: i
    character(len=:), allocatable :: r
    character(len=24) :: buf
    write (buf, '(i0)') i
    r = trim(buf)
  end function itoa

  ! ---- Handles to and from C --------------------------------------------------------------------

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

  ! ---- Arguments shared by several wrappers -----------------------------------------------------

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
end module pvec_base
