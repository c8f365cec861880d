!> OpenACC on pvec's device mirror: pvec_device_ptr gives the address, c_f_pointer shapes it
!> (capacity, ncomp), and an explicit-shape dummy argument declared deviceptr lets the compute
!> region use it without any data clause or copy. The kernel scales a vector[2] property;
!> pvec_device_to_host brings the result back to the host mirror, where it is checked.
!>
!> Which backend: with an offloading compiler (nvfortran -acc, device type not host) the
!> pointer must be CUDA memory, so the vector asks for PVEC_BACKEND_CUDA. With host fallback
!> (gfortran -fopenacc without an offload target, device type acc_device_host) "device"
!> addresses are host addresses, so the vector asks for PVEC_BACKEND_HOST, whose device mirror
!> is a second host allocation: the example then runs, and checks, the same code path.
program openacc_deviceptr
  use, intrinsic :: iso_c_binding
  use openacc
  use pvec
  implicit none
  type(pvec_schema) :: schema
  type(pvec_vector_desc) :: desc
  type(pvec_vector) :: vec
  real(c_float), pointer :: v(:, :)
  real(c_float), pointer, contiguous :: v_dev(:, :)
  integer(c_int64_t) :: capacity, n, i
  integer :: prop

  call pvec_init()
  call pvec_schema_create(schema)
  call pvec_schema_add_vector(schema, 'v', PVEC_FLOAT32, 2, prop)
  desc%dim = 2
  desc%n_particles = 1000
  if (acc_get_device_type() == acc_device_host) then
    desc%backend = PVEC_BACKEND_HOST
  else
    desc%backend = PVEC_BACKEND_CUDA
  end if
  call pvec_vector_create(desc, schema, vec)
  call pvec_schema_destroy(schema)
  call pvec_vector_get_size(vec, n)
  call pvec_vector_get_capacity(vec, capacity)

  call pvec_host_view(vec, prop, v)
  do i = 1, n
    v(i, 1) = real(i, c_float)
    v(i, 2) = -real(i, c_float)
  end do
  call pvec_host_to_device(vec, [prop])

  ! The device mirror, shaped like the host view; never dereferenced on the host.
  call c_f_pointer(pvec_device_ptr(vec, prop), v_dev, [capacity, 2_c_int64_t])
  call scale(v_dev, capacity, n, 3.0_c_float)

  call pvec_device_to_host(vec, [prop])
  do i = 1, n
    if (v(i, 1) /= 3 * i .or. v(i, 2) /= -3 * i) error stop 'openacc_deviceptr: wrong result'
  end do
  print '(a,i0,a)', 'openacc_deviceptr: scaled ', n, ' particles on the device mirror: OK'
  call pvec_vector_destroy(vec)
  call pvec_finalize()

contains

  !> x(i, c) = s * x(i, c) for the n live particles; x is device memory.
  subroutine scale(x, capacity, n, s)
    integer(c_int64_t), intent(in) :: capacity, n
    real(c_float), intent(inout) :: x(capacity, 2)
    real(c_float), intent(in) :: s
    integer(c_int64_t) :: i
    !$acc parallel loop deviceptr(x)
    do i = 1, n
      x(i, 1) = s * x(i, 1)
      x(i, 2) = s * x(i, 2)
    end do
  end subroutine scale
end program openacc_deviceptr
