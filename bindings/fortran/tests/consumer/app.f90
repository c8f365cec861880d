!> An outside program using the installed binding: built by install_consumer.cmake with
!> `gfortran app.f90 $(pkg-config --cflags --libs pvec-fortran)` and with CMake
!> (find_package(pvec) and pvec::pvec_fortran). It uses the wrappers through module pvec and,
!> in raw_version, the generated module pvec_capi on its own: every installed module works.
program app
  use, intrinsic :: iso_c_binding
  use pvec
  implicit none
  type(pvec_schema) :: s
  type(pvec_vector_desc) :: desc
  type(pvec_vector) :: vec
  real(c_double), pointer :: v(:, :)
  integer(c_int64_t) :: cap
  integer :: prop, nopt
  real(c_double) :: vmax(3), e

  call pvec_init()
  call pvec_schema_create(s)
  call pvec_schema_add_vector(s, 'v', PVEC_FLOAT64, 3, prop)
  desc%n_particles = 100
  call pvec_vector_create(desc, s, vec)
  call pvec_vector_get_capacity(vec, cap)
  call pvec_host_view(vec, prop, v)
  v(100, 3) = 1.5d0
  if (cap /= 128 .or. size(v, 1) /= 128 .or. size(v, 2) /= 3) error stop 'consumer: bad shape'
  call pvec_vector_reduce(vec, prop, PVEC_REDUCE_MAX, vmax)
  e = 2
  call pvec_vector_allreduce(vec, e, PVEC_REDUCE_ADD)
  call pvec_options_get_count(nopt)
  if (any(vmax /= [0d0, 0d0, 1.5d0]) .or. e /= 2 .or. nopt < 1) error stop 'consumer: reduce'
  if (.not. raw_version()) error stop 'consumer: pvec_capi'
  call pvec_vector_destroy(vec)
  call pvec_schema_destroy(s)
  call pvec_finalize()
  print '(a,a)', 'consumer: OK, pvec ', pvec_version_string()
contains

  logical function raw_version()
    use pvec_capi, only: c_pvec_version_number, PVEC_BINDING_VERSION_NUMBER
    raw_version = c_pvec_version_number() == PVEC_BINDING_VERSION_NUMBER
  end function raw_version
end program app
