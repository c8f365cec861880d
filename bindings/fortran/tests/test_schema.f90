!> Schemas: declaration order gives the indices, every shape form, and each invalid declaration
!> is refused with its status (through stat=) while the schema stays unchanged.
program test_schema
  use, intrinsic :: iso_c_binding
  use pvec
  use ftest
  implicit none
  type(pvec_schema) :: s, dead
  integer :: idx, n, st, dt, rk
  character(:), allocatable :: pname
  integer(c_int64_t) :: ext(2)

  call pvec_init()
  call pvec_schema_create(s)
  call check(c_associated(s%h), 'schema handle')

  call pvec_schema_add_scalar(s, 'rho', PVEC_FLOAT32, idx)
  call check(idx == 0, 'first property has index 0')
  call pvec_schema_add_vector(s, 'vel', PVEC_FLOAT64, 3, idx)
  call check(idx == 1, 'second index')
  call pvec_schema_add_tensor(s, 'stress', PVEC_FLOAT32, 2, 3, idx)
  call check(idx == 2, 'third index')
  call pvec_schema_add(s, 'id', PVEC_INT64, index=idx)
  call check(idx == 3, 'generic scalar')
  call pvec_schema_add(s, 'flags', PVEC_UINT32, [4], idx)
  call check(idx == 4, 'generic vector')
  call pvec_schema_add(s, 'm', PVEC_FLOAT64, [2, 2], idx)
  call check(idx == 5, 'generic tensor')
  call pvec_schema_add(s, 'k   ', PVEC_INT32)   ! trailing blanks are not part of the name
  call pvec_schema_get_count(s, n)
  call check(n == 7, 'count after 7 declarations')
  ! Read back (0-based indices, as in C): the tensor m, then the blank-padded k.
  call pvec_schema_get_property(s, 5, pname, dt, rk, ext)
  call check(pname == 'm' .and. len(pname) == 1, 'property 5 is m')
  call check(dt == PVEC_FLOAT64 .and. rk == 2 .and. all(ext == [2_c_int64_t, 2_c_int64_t]), &
             'm is float64 tensor[2][2]')
  call pvec_schema_get_property(s, 6, pname, dt, rk, ext)
  call check(pname == 'k' .and. len(pname) == 1 .and. rk == 0, 'property 6 is k, a scalar')
  call pvec_schema_get_property(s, 7, pname, dt, rk, ext, stat=st)
  call check_status(st, PVEC_ERROR_OUT_OF_RANGE, 'property index out of range')

  ! Each refusal leaves the schema as it was.
  call pvec_schema_add_scalar(s, 'rho', PVEC_FLOAT32, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'duplicate name')
  call check(len(pvec_last_error()) > 0, 'a refusal has a message')
  call pvec_schema_add_scalar(s, 'k', PVEC_FLOAT32, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'duplicate of a blank-padded name')
  call pvec_schema_add_scalar(s, 'pos', PVEC_FLOAT32, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'reserved name pos')
  call pvec_schema_add_scalar(s, '', PVEC_FLOAT32, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'empty name')
  call pvec_schema_add_scalar(s, repeat('x', PVEC_MAX_NAME + 1), PVEC_FLOAT32, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'name too long')
  call pvec_schema_add_scalar(s, repeat('y', PVEC_MAX_NAME), PVEC_FLOAT32, idx, stat=st)
  call check_status(st, PVEC_SUCCESS, 'longest name')
  call check(idx == 7, 'index after refusals')
  call check(len(pvec_last_error()) == 0, 'a success clears the message')
  call pvec_schema_add_scalar(s, 'bad', 0, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'unknown dtype')
  call pvec_schema_add_vector(s, 'bad', PVEC_FLOAT32, 0, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'extent 0')
  call pvec_schema_add(s, 'bad', PVEC_FLOAT32, [2, 2, 2], stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'rank 3 (refused in Fortran)')
  call check(index(pvec_last_error(), 'rank') > 0, 'rank message: '//pvec_last_error())
  call pvec_schema_get_count(s, n)
  call check(n == 8, 'count unchanged by refusals')

  ! Destroy: the handle becomes NULL; a stale copy is detected by the library.
  dead = s
  call pvec_schema_destroy(s)
  call check(.not. c_associated(s%h), 'destroyed handle is NULL')
  call pvec_schema_get_count(dead, n, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_HANDLE, 'stale schema handle')
  call pvec_schema_get_count(s, n, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_HANDLE, 'NULL schema handle')
  call pvec_schema_destroy(dead, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_HANDLE, 'double destroy')

  call pvec_finalize()
  print '(a)', 'test_schema: OK'
end program test_schema
