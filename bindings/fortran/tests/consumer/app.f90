!> An outside program using the installed binding: built by install_consumer.cmake with
!> `gfortran app.f90 $(pkg-config --cflags --libs pvec-fortran)` and with CMake
!> (find_package(pvec) and pvec::pvec_fortran).
program app
  use, intrinsic :: iso_c_binding
  use pvec
  implicit none
  type(pvec_schema) :: s
  type(pvec_vector_desc) :: desc
  type(pvec_vector) :: vec
  real(c_double), pointer :: v(:, :)
  integer(c_int64_t) :: cap
  integer :: prop

  call pvec_init()
  call pvec_schema_create(s)
  call pvec_schema_add_vector(s, 'v', PVEC_FLOAT64, 3, prop)
  desc%n_particles = 100
  call pvec_vector_create(desc, s, vec)
  call pvec_vector_get_capacity(vec, cap)
  call pvec_host_view(vec, prop, v)
  v(100, 3) = 1.5d0
  if (cap /= 128 .or. size(v, 1) /= 128 .or. size(v, 2) /= 3) error stop 'consumer: bad shape'
  call pvec_vector_destroy(vec)
  call pvec_schema_destroy(s)
  call pvec_finalize()
  print '(a,a)', 'consumer: OK, pvec ', pvec_version_string()
end program app
