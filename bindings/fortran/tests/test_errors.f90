!> Error reporting through stat=: NULL and stale handles, calls before pvec_init, bad
!> descriptors, messages that explain, and a success clearing the message.
program test_errors
  use, intrinsic :: iso_c_binding
  use pvec
  use ftest
  implicit none
  type(pvec_schema) :: s
  type(pvec_vector_desc) :: desc
  type(pvec_vector) :: vec, null_vec, stale
  integer(c_int64_t) :: n
  logical :: flag
  integer :: st, bc(1)
  real(c_double) :: empty(0)

  call pvec_initialized(flag)
  call check(.not. flag, 'not initialised yet')
  call pvec_schema_create(s)   ! schemas work before pvec_init
  call pvec_schema_add_scalar(s, 'a', PVEC_FLOAT32)
  call pvec_vector_create(desc, s, vec, stat=st)
  call check_status(st, PVEC_ERROR_STATE, 'create before pvec_init')

  call pvec_init()
  call pvec_initialized(flag)
  call check(flag, 'initialised')
  call pvec_init(stat=st)
  call check_status(st, PVEC_SUCCESS, 'second pvec_init is harmless')

  ! NULL handle.
  call pvec_vector_get_size(null_vec, n, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_HANDLE, 'NULL vector')
  call check(len(pvec_last_error()) > 0, 'NULL handle message')
  call check(pvec_status_string(st) == 'invalid handle', 'status string')

  ! Bad descriptors: each field checked.
  desc%dim = 0
  call pvec_vector_create(desc, s, vec, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'dim 0')
  desc%dim = PVEC_MAX_DIM + 1
  call pvec_vector_create(desc, s, vec, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'dim 5')
  desc%dim = 1
  desc%pos_dtype = PVEC_INT32
  call pvec_vector_create(desc, s, vec, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'integer positions')
  desc%pos_dtype = PVEC_FLOAT32
  desc%domain_hi(1) = desc%domain_lo(1)
  call pvec_vector_create(desc, s, vec, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'empty box')
  desc%domain_hi(1) = 1
  desc%ghost_width = -1
  call pvec_vector_create(desc, s, vec, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'negative ghost width')
  desc%ghost_width = 0
  desc%n_particles = -3
  call pvec_vector_create(desc, s, vec, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'negative count')
  desc%n_particles = 3
  desc%backend = 9
  call pvec_vector_create(desc, s, vec, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'unknown backend')
  desc%backend = PVEC_BACKEND_AUTO
  call pvec_vector_create(desc, null_vec_schema(), vec, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_HANDLE, 'NULL schema')
  call pvec_vector_create(desc, s, vec, stat=st)
  call check_status(st, PVEC_SUCCESS, 'good descriptor')
  call check(len(pvec_last_error()) == 0, 'success clears the message')

  ! Refusals found in Fortran (an array shorter than dim) explain themselves too.
  call pvec_vector_get_boundaries(vec, bc, stat=st)
  call check_status(st, PVEC_SUCCESS, 'bc(1) for dim 1')
  call pvec_vector_get_domain(vec, lo=empty, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'lo(0) for dim 1')
  call check(index(pvec_last_error(), 'pvec_vector_get_domain') > 0, 'message: '//pvec_last_error())
  call pvec_vector_get_size(vec, n)
  call check(len(pvec_last_error()) == 0, 'next success clears a Fortran-side message')

  ! Stale handle.
  stale = vec
  call pvec_vector_destroy(vec)
  call pvec_vector_get_size(stale, n, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_HANDLE, 'destroyed vector')
  call pvec_vector_destroy(stale, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_HANDLE, 'double destroy')
  call check(c_associated(stale%h), 'a failed destroy leaves the handle as it was')

  call pvec_schema_destroy(s)
  call pvec_finalize()
  call pvec_initialized(flag)
  call check(.not. flag, 'finalised')
  call pvec_init(stat=st)
  call check_status(st, PVEC_ERROR_STATE, 'pvec_init after pvec_finalize')
  print '(a)', 'test_errors: OK'

contains

  function null_vec_schema() result(r)
    type(pvec_schema) :: r
  end function null_vec_schema
end program test_errors
