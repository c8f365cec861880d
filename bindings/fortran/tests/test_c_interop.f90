!> A Fortran vector handed to C: pvec_c_handle(vec) is the pvec_vector_t that C functions take
!> (by value, type(c_ptr), value in their interface), and pvec_vector_from_c wraps a handle C
!> made. The C helpers (interop_helpers.c) use only pvec.h.
program test_c_interop
  use, intrinsic :: iso_c_binding
  use pvec
  use ftest
  implicit none

  interface
    function interop_fill(vec, prop, vprop, offset) result(n) bind(C, name='interop_fill')
      import :: c_ptr, c_int, c_double, c_int64_t
      type(c_ptr), value :: vec
      integer(c_int), value :: prop, vprop
      real(c_double), value :: offset
      integer(c_int64_t) :: n
    end function
    function interop_size_status(vec) result(st) bind(C, name='interop_size_status')
      import :: c_ptr, c_int
      type(c_ptr), value :: vec
      integer(c_int) :: st
    end function
    function interop_create(n, out) result(st) bind(C, name='interop_create')
      import :: c_ptr, c_int, c_int64_t
      integer(c_int64_t), value :: n
      type(c_ptr), intent(out) :: out
      integer(c_int) :: st
    end function
    function interop_schema_count(schema) result(n) bind(C, name='interop_schema_count')
      import :: c_ptr, c_int
      type(c_ptr), value :: schema
      integer(c_int) :: n
    end function
  end interface

  type(pvec_schema) :: schema
  type(pvec_vector_desc) :: desc
  type(pvec_vector) :: vec, null_vec, made
  type(c_ptr) :: h
  real(c_double), pointer :: s(:), v(:, :)
  integer(c_int64_t) :: n, i
  integer :: ps, pv, c, st

  call pvec_init()
  call pvec_schema_create(schema)
  call pvec_schema_add_scalar(schema, 's', PVEC_FLOAT64, ps)
  call pvec_schema_add_vector(schema, 'v', PVEC_FLOAT64, 3, pv)
  call check(interop_schema_count(pvec_c_handle(schema)) == 2, 'C sees the schema: 2 properties')
  desc%dim = 2
  desc%n_particles = 70
  desc%placement = PVEC_PLACE_LOCAL
  call pvec_vector_create(desc, schema, vec)
  call pvec_schema_destroy(schema)

  ! The handle is the C pointer itself: C reads the size and writes through pvec_host_ptr.
  call check(c_associated(pvec_c_handle(vec)), 'a live vector has a non-NULL C handle')
  n = interop_fill(pvec_c_handle(vec), ps, pv, 0.5d0)
  call check(n == 70, 'C helper saw 70 particles through pvec_vector_get_size')
  call pvec_host_view(vec, ps, s)
  call pvec_host_view(vec, pv, v)
  do i = 1, n
    call check(s(i) == 0.5d0 + real(i - 1, c_double), 'scalar written by C read in Fortran')
    do c = 1, 3
      call check(v(i, c) == 100d0*(c - 1) + real(i - 1, c_double), &
                 'vector component written by C read in Fortran')
    end do
  end do

  ! After a reallocation the handle stays the same (only views go stale).
  h = pvec_c_handle(vec)
  call pvec_vector_append(vec, 200)
  call check(c_associated(h, pvec_c_handle(vec)), 'the handle survives a reallocation')
  n = interop_fill(pvec_c_handle(vec), ps, pv, 1d0)
  call check(n == 270, 'C helper sees the appended particles')
  call pvec_host_view(vec, ps, s)
  call check(s(270) == 270d0, 'last particle written by C')

  ! A default (NULL) handle reaches C as NULL and is refused there.
  call check(.not. c_associated(pvec_c_handle(null_vec)), 'a default vector has a NULL handle')
  call check(interop_size_status(pvec_c_handle(null_vec)) == PVEC_ERROR_INVALID_HANDLE, &
             'C refuses the NULL handle')
  call check(interop_fill(pvec_c_handle(null_vec), ps, pv, 0d0) == -PVEC_ERROR_INVALID_HANDLE, &
             'interop_fill refuses the NULL handle')

  ! A vector made in C, used and destroyed from Fortran.
  call check(interop_create(5_c_int64_t, h) == PVEC_SUCCESS, 'C created a vector')
  made = pvec_vector_from_c(h)
  call check(c_associated(pvec_c_handle(made), h), 'pvec_vector_from_c keeps the handle')
  call pvec_vector_get_size(made, n)
  call check(n == 5, 'the C-made vector has 5 particles')
  call pvec_vector_get_prop_index(made, 'c_made', c)
  call check(c == 0, 'the C-made vector has its property')
  call pvec_vector_destroy(made)
  call check(.not. c_associated(pvec_c_handle(made)), 'destroyed: NULL handle')
  call check(interop_size_status(h) == PVEC_ERROR_INVALID_HANDLE, 'the old handle is stale in C')
  call pvec_vector_get_size(pvec_vector_from_c(h), n, stat=st)
  call check(st == PVEC_ERROR_INVALID_HANDLE, 'a stale wrapped handle is refused')
  call check(.not. c_associated(pvec_c_handle(pvec_schema_from_c(c_null_ptr))), &
             'pvec_schema_from_c(c_null_ptr) is the NULL schema')

  call pvec_vector_destroy(vec)
  call pvec_finalize()
  print '(a)', 'test_c_interop: OK'
end program test_c_interop
