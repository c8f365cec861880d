!> Every size and particle-index argument of the wrappers takes a default integer and an
!> integer(c_int64_t), in and out, in every combination: this program must compile, and each
!> call must give the same result with either kind.
program test_int_kinds
  use, intrinsic :: iso_c_binding
  use pvec
  use ftest
  implicit none
  type(pvec_schema) :: schema
  type(pvec_vector_desc) :: desc
  type(pvec_vector) :: vec
  integer :: i4, f4, st, p, n4, m4
  integer(c_int64_t) :: i8, f8, n8, m8
  integer, allocatable :: idx4(:)
  integer(c_int64_t), allocatable :: idx8(:)

  call pvec_init()

  ! Creation counts: extents of pvec_schema_add, n (and m) of add_vector / add_tensor.
  call pvec_schema_create(schema)
  n4 = 2; m4 = 3; n8 = 2; m8 = 3
  call pvec_schema_add(schema, 'a0', PVEC_FLOAT64, index=p)
  call check(p == 0, 'schema_add without extents')
  call pvec_schema_add(schema, 'a1', PVEC_FLOAT64, [n4, m4], p)
  call check(p == 1, 'schema_add default-integer extents')
  call pvec_schema_add(schema, 'a2', PVEC_FLOAT64, [n8, m8], p)
  call check(p == 2, 'schema_add c_int64_t extents')
  call pvec_schema_add(schema, 'a3', PVEC_FLOAT64, [4_c_int64_t], p, st)
  call check_status(st, PVEC_SUCCESS, 'schema_add c_int64_t extents with stat')
  call pvec_schema_add_vector(schema, 'v4', PVEC_FLOAT64, n4, p)
  call pvec_schema_add_vector(schema, 'v8', PVEC_FLOAT64, n8, p)
  call pvec_schema_add_vector(schema, 'v8s', PVEC_FLOAT64, 3_c_int64_t, p, st)
  call check_status(st, PVEC_SUCCESS, 'add_vector c_int64_t with stat')
  call pvec_schema_add_tensor(schema, 't44', PVEC_FLOAT64, n4, m4, p)
  call pvec_schema_add_tensor(schema, 't48', PVEC_FLOAT64, n4, m8, p)
  call pvec_schema_add_tensor(schema, 't84', PVEC_FLOAT64, n8, m4, p)
  call pvec_schema_add_tensor(schema, 't88', PVEC_FLOAT64, n8, m8, p)
  call check(p == 10, 'every add took its property')
  call pvec_schema_get_count(schema, i4)
  call check(i4 == 11, '11 properties')

  desc%dim = 2
  desc%placement = PVEC_PLACE_LOCAL
  desc%n_particles = 10            ! a default integer assigned to the c_int64_t field
  call pvec_vector_create(desc, schema, vec)
  call pvec_schema_destroy(schema)
  call shape_is('t48', 2, 3)
  call shape_is('t84', 2, 3)
  call shape_is('a2', 2, 3)

  ! Sizes that come back, into either kind.
  call pvec_vector_get_size(vec, i4)
  call pvec_vector_get_size(vec, i8)
  call check(i4 == 10 .and. i8 == 10, 'pvec_vector_get_size into both kinds')
  call pvec_vector_get_size(vec, i4, st)
  call check(st == PVEC_SUCCESS .and. i4 == 10, 'pvec_vector_get_size default integer with stat')
  call pvec_vector_get_ghost_size(vec, i4)
  call pvec_vector_get_ghost_size(vec, i8)
  call check(i4 == 0 .and. i8 == 0, 'pvec_vector_get_ghost_size into both kinds')
  call pvec_vector_get_capacity(vec, i4)
  call pvec_vector_get_capacity(vec, i8)
  call check(i4 == 64 .and. i8 == 64, 'pvec_vector_get_capacity into both kinds')

  ! reserve / resize with either kind.
  call pvec_vector_reserve(vec, 100)
  call pvec_vector_reserve(vec, 200_c_int64_t)
  call pvec_vector_get_capacity(vec, i8)
  call check(i8 >= 200, 'reserve with both kinds')
  call pvec_vector_resize(vec, 12)
  call pvec_vector_resize(vec, 14_c_int64_t, st)
  call check_status(st, PVEC_SUCCESS, 'resize c_int64_t with stat')
  call pvec_vector_get_size(vec, i4)
  call check(i4 == 14, 'resize with both kinds')

  ! append: k of either kind, first absent or of either kind.
  call pvec_vector_append(vec, 1)                        ! 15
  call pvec_vector_append(vec, 1_c_int64_t)              ! 16
  call pvec_vector_append(vec, 2, f4)                    ! 17, 18
  call check(f4 == 17, 'append(default, default)')
  call pvec_vector_append(vec, 2, f8)                    ! 19, 20
  call check(f8 == 19, 'append(default, c_int64_t)')
  call pvec_vector_append(vec, 2_c_int64_t, f4)          ! 21, 22
  call check(f4 == 21, 'append(c_int64_t, default)')
  call pvec_vector_append(vec, 2_c_int64_t, f8)          ! 23, 24
  call check(f8 == 23, 'append(c_int64_t, c_int64_t)')
  i4 = 1; i8 = 1
  call pvec_vector_append(vec, i4, f8, st)               ! 25
  call check(st == PVEC_SUCCESS .and. f8 == 25, 'append(default, c_int64_t, stat)')
  call pvec_vector_append(vec, i8, f4, st)               ! 26
  call check(st == PVEC_SUCCESS .and. f4 == 26, 'append(c_int64_t, default, stat)')
  call pvec_vector_append(vec, i4, first=f4, stat=st)    ! 27
  call check(st == PVEC_SUCCESS .and. f4 == 27, 'append by keyword, default kinds')
  call pvec_vector_append(vec, k=i8, first=f4)           ! 28
  call check(f4 == 28, 'append by keyword, mixed kinds')
  call pvec_vector_append(vec, i4, stat=st)              ! 29
  call pvec_vector_append(vec, i8, stat=st)              ! 30
  call pvec_vector_get_size(vec, n8)
  call check(n8 == 30, 'append counts')
  call pvec_vector_append(vec, -1, f8, st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'append(-1) refused with a c_int64_t first')

  ! remove: indices of either kind.
  idx4 = [1, 2]
  idx8 = [1_c_int64_t, 2_c_int64_t]
  call pvec_vector_remove(vec, idx4)
  call pvec_vector_remove(vec, idx8)
  call pvec_vector_remove(vec, [1])
  call pvec_vector_remove(vec, [1_c_int64_t], st)
  call check_status(st, PVEC_SUCCESS, 'remove c_int64_t with stat')
  call pvec_vector_get_size(vec, i4)
  call check(i4 == 24, 'remove with both kinds')

  ! map's n_removed into either kind.
  call pvec_map(vec, n_removed=i4)
  call pvec_map(vec, 0, i8)
  call pvec_map(vec, PVEC_MAP_REMOVE_OUTSIDE, i4, st)
  call check(st == PVEC_SUCCESS .and. i4 == 0 .and. i8 == 0, 'map n_removed into both kinds')

  call pvec_vector_destroy(vec)
  call pvec_finalize()
  print '(a)', 'test_int_kinds: OK'

contains

  subroutine shape_is(name, n, m)
    character(*), intent(in) :: name
    integer, intent(in) :: n, m
    type(pvec_layout) :: lay
    integer :: prop
    call pvec_vector_get_prop_index(vec, name, prop)
    call pvec_vector_get_layout(vec, prop, lay)
    call check(lay%rank == 2 .and. lay%extents(1) == n .and. lay%extents(2) == m, &
               name//': shape')
  end subroutine shape_is
end program test_int_kinds
