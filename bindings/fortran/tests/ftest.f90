!> Support for the Fortran binding tests: checks that stop the program on failure, and the
!> interfaces of the C helpers in ftest_helpers.c.
module ftest
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: error_unit
  use pvec
  implicit none
  private
  public :: check, check_status, addr, c_read, c_write

  interface
    function ftest_read(vec, prop, i, c, ok) result(r) bind(C, name='pvec_ftest_read')
      import :: c_ptr, c_int, c_int64_t, c_double
      type(c_ptr), value :: vec
      integer(c_int), value :: prop
      integer(c_int64_t), value :: i, c
      integer(c_int), intent(out) :: ok
      real(c_double) :: r
    end function
    function ftest_write(vec, prop, i, c, v) result(r) bind(C, name='pvec_ftest_write')
      import :: c_ptr, c_int, c_int64_t, c_double
      type(c_ptr), value :: vec
      integer(c_int), value :: prop
      integer(c_int64_t), value :: i, c
      real(c_double), value :: v
      integer(c_int) :: r
    end function
  end interface

contains

  !> Stop with msg unless cond holds.
  subroutine check(cond, msg)
    logical, intent(in) :: cond
    character(*), intent(in) :: msg
    if (cond) return
    write (error_unit, '(a)') 'CHECK FAILED: '//msg
    flush (error_unit)
    error stop 1
  end subroutine check

  !> Stop unless status == expected; the message includes pvec_last_error().
  subroutine check_status(status, expected, msg)
    integer, intent(in) :: status, expected
    character(*), intent(in) :: msg
    character(len=16) :: a, b
    if (status == expected) return
    write (a, '(i0)') status
    write (b, '(i0)') expected
    call check(.false., msg//': status '//trim(a)//', expected '//trim(b)//' ('// &
               pvec_last_error()//')')
  end subroutine check_status

  !> Address of a C pointer as an integer.
  function addr(p) result(r)
    type(c_ptr), intent(in) :: p
    integer(c_intptr_t) :: r
    r = transfer(p, r)
  end function addr

  !> Element (i, c) of prop, 1-based like the views, read by C with the layout law alone.
  function c_read(vec, prop, i, c) result(r)
    type(pvec_vector), intent(in) :: vec
    integer, intent(in) :: prop
    integer(c_int64_t), intent(in) :: i, c
    real(c_double) :: r
    integer(c_int) :: ok
    r = ftest_read(vec%h, prop, i - 1, c - 1, ok)
    call check(ok /= 0, 'c_read: element out of range')
  end function c_read

  !> Store v at element (i, c) of prop (1-based), through C and the layout law alone.
  subroutine c_write(vec, prop, i, c, v)
    type(pvec_vector), intent(in) :: vec
    integer, intent(in) :: prop
    integer(c_int64_t), intent(in) :: i, c
    real(c_double), intent(in) :: v
    call check(ftest_write(vec%h, prop, i - 1, c - 1, v) /= 0, 'c_write: element out of range')
  end subroutine c_write
end module ftest
