!> Growth and removal from Fortran: capacity rules, the generation changing whenever views go
!> stale, data kept in re-fetched views, 1-based indices in pvec_vector_append and pvec_vector_remove, and
!> refused calls changing nothing.
program test_growth
  use, intrinsic :: iso_c_binding
  use pvec
  use ftest
  implicit none
  type(pvec_schema) :: s
  type(pvec_vector_desc) :: desc
  type(pvec_vector) :: vec
  real(c_double), pointer :: v(:, :)
  integer(c_int64_t), pointer :: id(:)
  integer(c_int64_t) :: n, cap, gen0, gen1, first, i
  integer :: st, first32

  call pvec_init()
  call pvec_schema_create(s)
  call pvec_schema_add_vector(s, 'v', PVEC_FLOAT64, 2)
  call pvec_schema_add_scalar(s, 'id', PVEC_INT64)
  desc%dim = 2
  desc%n_particles = 100
  call pvec_vector_create(desc, s, vec)
  call pvec_schema_destroy(s)

  call fill(100_c_int64_t)
  call pvec_vector_get_generation(vec, gen0)

  ! Append past the capacity: geometric growth, new generation, old values kept, new ones zero.
  call pvec_vector_append(vec, 50_c_int64_t, first)
  call check(first == 101, 'first appended particle is 101 (1-based)')
  call pvec_vector_get_size(vec, n)
  call pvec_vector_get_capacity(vec, cap)
  call check(n == 150 .and. cap == 256, 'append 50 to 100/128 gives 150/256')
  call pvec_vector_get_generation(vec, gen1)
  call check(gen1 /= gen0, 'reallocation changes the generation')
  call pvec_host_view(vec, 0, v)   ! re-fetch: the old pointer is stale
  call pvec_host_view(vec, 1, id)
  call check(size(v, 1) == 256, 're-fetched view has the new capacity')
  call check_values(100_c_int64_t)
  call check(all(v(101:150, :) == 0) .and. all(id(101:150) == 0), 'appended particles are zero')

  ! Append within the capacity: no reallocation, same generation. Default-integer sizes work.
  call pvec_vector_append(vec, 6, first32)
  call check(first32 == 151, 'first32')
  call pvec_vector_get_generation(vec, gen0)
  call check(gen0 == gen1, 'append without reallocation keeps the generation')

  ! reserve: exact request rounded up to 64.
  call pvec_vector_reserve(vec, 1000)
  call pvec_vector_get_capacity(vec, cap)
  call check(cap == 1024, 'reserve 1000 gives 1024')
  call pvec_vector_get_generation(vec, gen1)
  call check(gen1 /= gen0, 'reserve reallocated')
  call pvec_host_view(vec, 0, v)
  call pvec_host_view(vec, 1, id)
  call check_values(100_c_int64_t)

  ! resize down, then shrink_to_fit.
  call pvec_vector_resize(vec, 10_c_int64_t)
  call pvec_vector_get_size(vec, n)
  call check(n == 10, 'resize to 10')
  call pvec_vector_shrink_to_fit(vec)
  call pvec_vector_get_capacity(vec, cap)
  call check(cap == 64, 'shrink_to_fit to 64')
  call pvec_host_view(vec, 0, v)
  call pvec_host_view(vec, 1, id)
  call check_values(10_c_int64_t)

  ! remove with 1-based indices, any order; the rest keep their order.
  call pvec_vector_get_generation(vec, gen0)
  call pvec_vector_remove(vec, [5, 2])
  call pvec_vector_get_size(vec, n)
  call check(n == 8, 'removed two')
  call pvec_vector_get_generation(vec, gen1)
  call check(gen1 /= gen0, 'remove reorders: new generation')
  call pvec_host_view(vec, 1, id)
  call check(all(id(1:8) == [1, 3, 4, 6, 7, 8, 9, 10]), 'order kept after remove')
  call pvec_vector_remove(vec, [integer(c_int64_t) ::])   ! nothing to remove
  call pvec_vector_get_size(vec, n)
  call check(n == 8, 'empty remove')

  ! Refusals change nothing.
  call pvec_vector_get_generation(vec, gen0)
  call pvec_vector_reserve(vec, -1, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'reserve -1')
  call pvec_vector_resize(vec, -5_c_int64_t, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'resize -5')
  call pvec_vector_append(vec, -1, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'append -1')
  call pvec_vector_remove(vec, [0], stat=st)
  call check_status(st, PVEC_ERROR_OUT_OF_RANGE, 'remove index 0 (1-based)')
  call pvec_vector_remove(vec, [9], stat=st)
  call check_status(st, PVEC_ERROR_OUT_OF_RANGE, 'remove index 9 of 8')
  call pvec_vector_remove(vec, [3, 3], stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'remove a duplicate')
  call pvec_vector_get_size(vec, n)
  call pvec_vector_get_generation(vec, gen1)
  call check(n == 8 .and. gen1 == gen0, 'refused calls changed nothing')
  call check(all(id(1:8) == [1, 3, 4, 6, 7, 8, 9, 10]), 'values unchanged by refusals')

  call pvec_vector_destroy(vec)
  call check(.not. c_associated(vec%h), 'destroyed vector handle is NULL')
  call pvec_finalize()
  print '(a)', 'test_growth: OK'

contains

  subroutine fill(count)
    integer(c_int64_t), intent(in) :: count
    call pvec_host_view(vec, 0, v)
    call pvec_host_view(vec, 1, id)
    do i = 1, count
      v(i, 1) = real(i, c_double)
      v(i, 2) = -real(i, c_double)
      id(i) = i
    end do
  end subroutine fill

  subroutine check_values(count)
    integer(c_int64_t), intent(in) :: count
    do i = 1, count
      call check(v(i, 1) == real(i, c_double) .and. v(i, 2) == -real(i, c_double) .and. &
                 id(i) == i, 'values kept across reallocation')
      call check(c_read(vec, 0, i, 2_c_int64_t) == -real(i, c_double), 'C sees the same values')
    end do
  end subroutine check_values
end program test_growth
