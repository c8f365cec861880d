!> Without stat=, a failure prints "pvec: <status>: <message>" and stops the program with the
!> status as exit code. CTest checks the output and that the line after the call never runs.
!> errmsg= without stat= does not change that (as in ALLOCATE): the program still stops.
program test_error_stop
  use, intrinsic :: iso_c_binding
  use pvec
  implicit none
  type(pvec_vector) :: null_vec
  integer(c_int64_t) :: n
  character(len=100) :: msg
  call pvec_init()
  call pvec_vector_get_size(null_vec, n, errmsg=msg)
  print '(a)', 'UNREACHED: the failing call returned'
end program test_error_stop
