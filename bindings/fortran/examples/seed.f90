!> The OpenFPM "GPU CUDA inter-operability with plain arrays" example, in Fortran with pvec.
!> 100 particles in the periodic unit square with a 0.05 ghost, carrying a real scalar, a
!> real(2) vector and a real(2,2) tensor. It prints where the components live (each component
!> row of a float property is capacity*4 = 0x200 bytes after the previous one) and reads
!> particle 50 back through the host views, as the seed's CUDA kernel does on the device.
program seed
  use, intrinsic :: iso_c_binding
  use pvec
  implicit none

  interface
    ! The C library's rand(), so that the positions are those of the C++ original.
    function c_rand() result(r) bind(C, name='rand')
      import :: c_int
      integer(c_int) :: r
    end function
  end interface
  real(c_float), parameter :: rand_max = 2147483647.0   ! RAND_MAX of glibc (and of macOS)

  type(pvec_schema) :: schema
  type(pvec_vector_desc) :: desc
  type(pvec_vector) :: vd
  real(c_float), pointer :: pos(:, :), scalar(:), vector(:, :), tensor(:, :, :)
  integer(c_int64_t) :: capacity, n, i
  integer :: prop_scalar, prop_vector, prop_tensor
  integer, parameter :: p = 51   ! particle 50 of the C++ original: Fortran indices start at 1

  call pvec_init()

  ! aggregate<float, float[2], float[2][2]>
  call pvec_schema_create(schema)
  call pvec_schema_add_scalar(schema, 'scalar', PVEC_FLOAT32, prop_scalar)
  call pvec_schema_add_vector(schema, 'vector', PVEC_FLOAT32, 2, prop_vector)
  call pvec_schema_add_tensor(schema, 'tensor', PVEC_FLOAT32, 2, 2, prop_tensor)

  ! Box<2,float> domain({0,0},{1,1}), periodic in x and y, Ghost<2,float> g(0.05), 100 particles.
  desc%dim = 2
  desc%pos_dtype = PVEC_FLOAT32
  desc%domain_lo(1:2) = 0
  desc%domain_hi(1:2) = 1
  desc%boundary(1:2) = PVEC_PERIODIC
  desc%ghost_width = 0.05d0
  desc%n_particles = 100
  call pvec_vector_create(desc, schema, vd)
  call pvec_schema_destroy(schema)

  ! Fill through the host views: pos(i, d+1) is coordinate d of particle i-1, and the tensor
  ! entry [a][b] is tensor(i, b+1, a+1).
  call pvec_vector_get_size(vd, n)
  call pvec_host_view(vd, PVEC_POS, pos)
  call pvec_host_view(vd, prop_scalar, scalar)
  call pvec_host_view(vd, prop_vector, vector)
  call pvec_host_view(vd, prop_tensor, tensor)
  do i = 1, n
    pos(i, 1) = real(c_rand(), c_float) / rand_max
    pos(i, 2) = real(c_rand(), c_float) / rand_max
    scalar(i) = pos(i, 1) + pos(i, 2)
    vector(i, 1) = pos(i, 1)
    vector(i, 2) = pos(i, 2)
    tensor(i, 1, 1) = pos(i, 1)              ! [0][0]
    tensor(i, 2, 1) = pos(i, 2)              ! [0][1]
    tensor(i, 1, 2) = pos(i, 1) + pos(i, 2)  ! [1][0]
    tensor(i, 2, 2) = pos(i, 2) - pos(i, 1)  ! [1][1]
  end do

  call pvec_map(vd)

  ! map may reorder and reallocate: fetch the views again.
  call pvec_host_view(vd, prop_scalar, scalar)
  call pvec_host_view(vd, prop_vector, vector)
  call pvec_host_view(vd, prop_tensor, tensor)
  call pvec_vector_get_capacity(vd, capacity)

  print '(2a)', 'First particle property 0, address: ', hex(c_loc(scalar(1)))
  print '(2a)', 'First particle property 1, address: ', hex(c_loc(vector(1, 1)))
  print '(2a)', 'First particle property 2, address: ', hex(c_loc(tensor(1, 1, 1)))
  print '(a,i0)', 'Capacity internal vector: ', capacity
  ! vector(i, c+1) is component c of particle i-1; tensor(i, b+1, a+1) is its entry [a][b].
  print '(2a)', 'First particle property 1 component 0, address: ', hex(c_loc(vector(1, 1)))
  print '(2a)', 'First particle property 1 component 1, address: ', hex(c_loc(vector(1, 2)))
  print '(2a)', 'First particle property 2 component 00, address: ', hex(c_loc(tensor(1, 1, 1)))
  print '(2a)', 'First particle property 2 component 01, address: ', hex(c_loc(tensor(1, 2, 1)))
  print '(2a)', 'First particle property 2 component 10, address: ', hex(c_loc(tensor(1, 1, 2)))
  print '(2a)', 'First particle property 2 component 11, address: ', hex(c_loc(tensor(1, 2, 2)))
  print '(2a)', 'Second particle property 1 component 0, address: ', hex(c_loc(vector(2, 1)))
  print '(2a)', 'Second particle property 1 component 1, address: ', hex(c_loc(vector(2, 2)))
  print '(2a)', 'Second particle property 2 component 00, address: ', hex(c_loc(tensor(2, 1, 1)))
  print '(2a)', 'Second particle property 2 component 01, address: ', hex(c_loc(tensor(2, 2, 1)))
  print '(2a)', 'Second particle property 2 component 10, address: ', hex(c_loc(tensor(2, 1, 2)))
  print '(2a)', 'Second particle property 2 component 11, address: ', hex(c_loc(tensor(2, 2, 2)))
  print '(a,z0)', 'Component stride (bytes): 0x', &
    transfer(c_loc(vector(1, 2)), 0_c_intptr_t) - transfer(c_loc(vector(1, 1)), 0_c_intptr_t)
  print '(a)', ''

  ! The seed copies to the device and prints particle 50 from a kernel, indexing
  ! vector[p + c*capacity]; pvec_device_ptr(vd, prop) is that pointer (see
  ! examples/cuda_fortran.cuf and openacc_deviceptr.f90). Here the same values come from the
  ! host views, which have the same layout.
  call pvec_host_to_device(vd, [prop_scalar, prop_vector, prop_tensor])
  print '(a,f9.6)', 'Scalar particle 50 = ', scalar(p)
  print '(a,f9.6)', 'Vector particle 50 = ', vector(p, 1)
  print '(a,f9.6)', 'Vector particle 50 = ', vector(p, 2)
  print '(a,f9.6)', 'Tensor particle 50 = ', tensor(p, 1, 1)
  print '(a,f9.6)', 'Tensor particle 50 = ', tensor(p, 2, 1)
  print '(a,f9.6)', 'Tensor particle 50 = ', tensor(p, 1, 2)
  print '(a,f9.6)', 'Tensor particle 50 = ', tensor(p, 2, 2)

  call pvec_vector_destroy(vd)
  call pvec_finalize()

contains

  !> An address as C++ prints it: "0x" and lowercase hex digits.
  function hex(ptr) result(r)
    type(c_ptr), intent(in) :: ptr
    character(len=:), allocatable :: r
    character(len=32) :: buf
    integer :: k
    write (buf, '(z0)') transfer(ptr, 0_c_intptr_t)
    do k = 1, len_trim(buf)
      if (buf(k:k) >= 'A' .and. buf(k:k) <= 'F') buf(k:k) = achar(iachar(buf(k:k)) + 32)
    end do
    r = '0x'//trim(buf)
  end function hex
end program seed
