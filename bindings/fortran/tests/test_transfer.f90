!> Host <-> device transfers from Fortran: a round trip restores the data, a list of properties
!> moves only those, an empty list moves nothing, and the device pointer has the host layout
!> (read directly when the backend is HOST, where the "device" mirror is host memory).
program test_transfer
  use, intrinsic :: iso_c_binding
  use pvec
  use ftest
  implicit none
  type(pvec_schema) :: s
  type(pvec_vector_desc) :: desc
  type(pvec_vector) :: vec
  real(c_float), pointer :: a(:), ad(:)
  real(c_double), pointer :: t(:, :, :), td(:, :), x(:, :)
  integer(c_int64_t), parameter :: np = 77
  integer(c_int64_t) :: i, cap
  integer :: backend, ndev, dev, st
  integer :: no_props(0)
  type(c_ptr) :: stream, dp

  call pvec_init()
  call pvec_cuda_device_count(ndev)
  call check(ndev >= 0, 'device count')
  call pvec_schema_create(s)
  call pvec_schema_add_scalar(s, 'a', PVEC_FLOAT32)
  call pvec_schema_add_tensor(s, 't', PVEC_FLOAT64, 2, 2)
  desc%dim = 2
  desc%pos_dtype = PVEC_FLOAT64
  desc%n_particles = np
  call pvec_vector_create(desc, s, vec)
  call pvec_schema_destroy(s)
  call pvec_vector_get_backend(vec, backend)
  call check(backend == PVEC_BACKEND_HOST .or. backend == PVEC_BACKEND_CUDA, 'backend resolved')
  if (ndev == 0) call check(backend == PVEC_BACKEND_HOST, 'no device: host backend')
  call pvec_vector_get_device(vec, dev)
  if (backend == PVEC_BACKEND_HOST) call check(dev == -1, 'host backend has device -1')
  if (backend == PVEC_BACKEND_CUDA) call check(dev >= 0 .and. dev < ndev, 'device ordinal')
  call pvec_vector_get_capacity(vec, cap)

  call pvec_host_view(vec, 0, a)
  call pvec_host_view(vec, 1, t)
  call pvec_host_view(vec, PVEC_POS, x)
  do i = 1, np
    a(i) = real(i, c_float)
    t(i, :, :) = reshape([1d0, 2d0, 3d0, 4d0] * i, [2, 2])
    x(i, :) = [real(i, c_double), -real(i, c_double)]
  end do

  call pvec_host_to_device(vec)   ! everything, positions included

  if (backend == PVEC_BACKEND_HOST) then
    ! The device pointer is a distinct allocation with the same layout.
    dp = pvec_device_ptr(vec, 0)
    call check(addr(dp) /= addr(c_loc(a(1))), 'device mirror is a separate buffer')
    call c_f_pointer(dp, ad, [cap])
    call check(all(ad(1:np) == a(1:np)), 'device copy of a')
    call c_f_pointer(pvec_device_ptr(vec, 1), td, [cap, 4_c_int64_t])
    do i = 1, np
      call check(td(i, 1) == i .and. td(i, 2) == 2 * i .and. td(i, 3) == 3 * i .and. &
                 td(i, 4) == 4 * i, 'device copy of t in component order')
    end do
  end if

  ! Clear the host, bring back only t: a stays cleared.
  a = 0
  t = 0
  x = 0
  call pvec_device_to_host(vec, [1])
  call check(all(a == 0), 'a not transferred')
  do i = 1, np
    call check(all(t(i, :, :) == reshape([1d0, 2d0, 3d0, 4d0] * i, [2, 2])), 't restored')
  end do
  call check(all(x == 0), 'positions not transferred')
  ! An empty list moves nothing. (A variable, not the literal [integer ::]: gfortran 12 passes a
  ! zero-size array constructor to an optional argument as absent, which would mean "all".)
  call pvec_device_to_host(vec, no_props)
  call check(all(a == 0), 'empty list moves nothing')
  call pvec_device_to_host(vec, [PVEC_POS, 0])
  do i = 1, np
    call check(a(i) == i .and. x(i, 1) == i .and. x(i, 2) == -i, 'a and positions restored')
  end do

  ! Async variants on the vector's stream (NULL: default stream), then synchronize.
  call pvec_vector_get_stream(vec, stream)
  call check(.not. c_associated(stream), 'default stream is NULL')
  call pvec_vector_set_stream(vec, c_null_ptr)
  a(1:np) = 5
  call pvec_host_to_device_async(vec, c_null_ptr, [0])
  call pvec_vector_synchronize(vec)
  a = 0
  call pvec_device_to_host_async(vec, c_null_ptr)
  call pvec_vector_synchronize(vec)
  call check(all(a(1:np) == 5), 'async round trip')

  ! Refusals.
  call pvec_host_to_device(vec, [7], stat=st)
  call check_status(st, PVEC_ERROR_OUT_OF_RANGE, 'transfer of property 7')
  call pvec_host_to_device(vec, [0, 0], stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'repeated property')
  dp = pvec_device_ptr(vec, 5, stat=st)
  call check_status(st, PVEC_ERROR_OUT_OF_RANGE, 'device_ptr of property 5')
  call check(.not. c_associated(dp), 'failed device_ptr is NULL')

  call pvec_vector_destroy(vec)
  call pvec_finalize()
  print '(a)', 'test_transfer: OK'
end program test_transfer
