!> Removal by mark, spawns, particle ids and mirror coherence from Fortran (modules
!> pvec_population and pvec_coherence): a removal by property and by array, both orders; a spawn
!> whose slots Fortran claims by writing the counter (c_f_pointer) and whose rows it writes
!> through the host views; an overflowing spawn (nothing added); ids; and a host map followed by
!> a device call, refused with PVEC_ERROR_STALE_MIRROR until the device mirror is current.
program test_population
  use, intrinsic :: iso_c_binding
  use pvec
  use ftest
  implicit none
  type(pvec_schema) :: schema
  type(pvec_vector_desc) :: desc
  type(pvec_vector) :: vec
  type(pvec_spawner) :: sp
  integer(c_int32_t), pointer :: m(:)
  real(c_double), pointer :: f(:), x(:, :)
  integer(c_int64_t), pointer :: id(:)
  integer(c_long_long), pointer :: counter
  integer :: pm, pf, pid, st, state, i4
  integer :: no_props(0)
  integer(c_int64_t) :: n, nr, k, row, first, stride
  real(c_double) :: total
  character(len=200) :: msg
  integer :: i

  call pvec_init()
  call pvec_schema_create(schema)
  call pvec_schema_add_scalar(schema, 'm', PVEC_INT32, pm)
  call pvec_schema_add_scalar(schema, 'f', PVEC_FLOAT64, pf)
  call pvec_schema_add_scalar(schema, 'id', PVEC_INT64, pid)
  desc%dim = 2
  desc%domain_lo(1:2) = 0
  desc%domain_hi(1:2) = 1
  desc%boundary(1:2) = PVEC_PERIODIC
  desc%backend = PVEC_BACKEND_HOST
  desc%placement = PVEC_PLACE_LOCAL
  desc%n_particles = 10
  call pvec_vector_create(desc, schema, vec)
  call fill()

  ! ---- Removal by property: the survivors keep their order ----------------------------------
  m(2) = 1
  m(5) = -3
  call pvec_vector_remove_marked(vec, pm, n_removed=nr)
  call pvec_vector_get_size(vec, n)
  call check(nr == 2 .and. n == 8, 'remove by property: count')
  call pvec_host_view(vec, pf, f)
  call check(all(f(1:8) == [1, 3, 4, 6, 7, 8, 9, 10]), 'remove by property: order')

  ! ---- Removal by a logical array, filling the holes; the count as a default integer --------
  call pvec_vector_remove_marked(vec, [.true., .false., .true., (.false., i=1, 5)], &
                                 PVEC_REMOVE_FILL_HOLES, i4)
  call check(i4 == 2, 'remove by logical marks: count')
  call pvec_host_view(vec, pf, f)
  call check(all(f(1:6) == [9, 3, 10, 6, 7, 8]), 'remove filling the holes')
  ! An integer array; none marked.
  call pvec_vector_remove_marked(vec, [(0_c_int32_t, i=1, 6)], n_removed=nr)
  call check(nr == 0, 'remove nothing')

  ! ---- Refusals: the vector unchanged ---------------------------------------------------------
  msg = ''
  call pvec_vector_remove_marked(vec, [1_c_int32_t, 1_c_int32_t], stat=st, errmsg=msg)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'marks of the wrong size')
  call check(index(msg, 'one mark each') > 0, 'marks of the wrong size: message')
  call pvec_vector_remove_marked(vec, PVEC_POS, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'the positions as mark')
  call pvec_vector_remove_marked(vec, 42, stat=st)
  call check_status(st, PVEC_ERROR_OUT_OF_RANGE, 'a mark property out of range')
  call pvec_vector_get_size(vec, n)
  call pvec_host_view(vec, pf, f)
  call check(n == 6 .and. all(f(1:6) == [9, 3, 10, 6, 7, 8]), 'refusals change nothing')

  ! ---- Ids ------------------------------------------------------------------------------------
  call pvec_vector_ids_take(vec, 1, first, stat=st)
  call check_status(st, PVEC_ERROR_STATE, 'ids_take before ids_init')
  call pvec_vector_ids_init(vec, pid)
  call pvec_host_view(vec, pid, id)
  call check(all(id(1:6) == [0, 1, 2, 3, 4, 5]), 'ids_init numbers 0..N-1')
  call pvec_vector_ids_take(vec, 3, first, stride)
  call check(first == 6 .and. stride == 1, 'ids_take: first and stride')
  call pvec_vector_ids_init(vec, pf, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'ids_init of a float property')

  ! ---- A spawn claimed from Fortran: the counter through c_f_pointer, rows through views ------
  call pvec_vector_spawn_begin(vec, 4, sp)
  call check(sp%first == 6 .and. sp%limit == 4 .and. sp%id_first == 9 .and. &
             sp%id_stride == 1, 'spawn_begin: the spawner')
  call pvec_vector_get_capacity(vec, n)
  call check(sp%capacity == n, 'spawner capacity')
  call c_f_pointer(sp%counter, counter)
  call check(counter == 0, 'claim counter starts at 0')
  call pvec_host_view(vec, pf, f)  ! views taken after spawn_begin (the capacity may grow)
  call pvec_host_view(vec, pid, id)
  call pvec_host_view(vec, PVEC_POS, x)
  call check(all(f(7:10) == 0), 'reserved rows are zero')
  do i = 1, 3
    k = counter
    counter = counter + 1
    row = sp%first + k + 1  ! 1-based
    f(row) = 100 + k
    id(row) = pvec_spawn_id(sp, row)
    x(row, :) = 0.5d0
  end do
  call pvec_vector_resize(vec, 2, stat=st)
  call check_status(st, PVEC_ERROR_STATE, 'resize while a spawn is open')
  row = pvec_spawn_claim(sp)  ! the fourth slot, left zero
  call check(row == 10, 'pvec_spawn_claim: row')
  call pvec_vector_spawn_commit(vec, n_added=nr)
  call pvec_vector_get_size(vec, n)
  call check(nr == 4 .and. n == 10, 'spawn_commit: count')
  call pvec_host_view(vec, pf, f)
  call pvec_host_view(vec, pid, id)
  call check(all(f(7:10) == [100, 101, 102, 0]), 'spawned rows')
  call check(all(id(7:9) == [9, 10, 11]), 'spawned ids')

  ! ---- Overflow: nothing added, n_added the number asked for ----------------------------------
  call pvec_vector_spawn_begin(vec, 2_c_int64_t, sp)
  call c_f_pointer(sp%counter, counter)
  counter = 5
  call check(pvec_spawn_claim(sp) == -1, 'a claim past the reservation')
  msg = ''
  call pvec_vector_spawn_commit(vec, i4, stat=st, errmsg=msg)
  call check_status(st, PVEC_ERROR_OUT_OF_RANGE, 'overflowing spawn')
  call check(i4 == 6 .and. index(msg, '6') > 0, 'overflowing spawn: the number asked for')
  call pvec_vector_get_size(vec, n)
  call check(n == 10, 'overflowing spawn adds nothing')
  call pvec_vector_spawn_commit(vec, stat=st)
  call check_status(st, PVEC_ERROR_STATE, 'the failed commit closed the spawn')
  ! A cancel adds nothing either.
  call pvec_vector_spawn_begin(vec, 3, sp, stat=st)
  call check_status(st, PVEC_SUCCESS, 'spawn after the overflow')
  row = pvec_spawn_claim(sp, 2)
  call pvec_vector_spawn_cancel(vec)
  call pvec_vector_spawn_cancel(vec, stat=st)
  call check_status(st, PVEC_ERROR_STATE, 'cancel without a spawn')
  call pvec_vector_get_size(vec, n)
  call check(n == 10, 'cancel adds nothing')

  ! ---- Mirror coherence -----------------------------------------------------------------------
  call pvec_host_to_device(vec)
  call pvec_vector_get_mirror_state(vec, pf, state)
  call check(state == 15, 'both mirrors current after a copy')
  call pvec_map(vec)  ! on the host: the device mirror is older now
  call pvec_vector_get_mirror_state(vec, PVEC_POS, state)
  call check(iand(state, PVEC_MIRROR_HOST_LOCAL) /= 0 .and. &
             iand(state, PVEC_MIRROR_DEVICE_LOCAL) == 0, 'state after a host map')
  msg = ''
  call pvec_map(vec, PVEC_ON_DEVICE, stat=st, errmsg=msg)
  call check_status(st, PVEC_ERROR_STALE_MIRROR, 'a device map after a host map')
  call check(index(msg, 'newer') > 0, 'stale mirror: message')
  call pvec_vector_remove_marked(vec, pm, PVEC_ON_DEVICE, stat=st)
  call check_status(st, PVEC_ERROR_STALE_MIRROR, 'a device removal after a host map')
  call pvec_vector_get_size(vec, n)
  call check(n == 10, 'the refused calls change nothing')
  call pvec_host_to_device(vec)
  call pvec_map(vec, PVEC_ON_DEVICE, stat=st)
  call check_status(st, PVEC_SUCCESS, 'a device map after host_to_device')

  ! Writes declared by the caller, copies of what is older, automatic synchronisation.
  call pvec_vector_mark_modified(vec, [pf], PVEC_ON_DEVICE)
  call pvec_vector_get_mirror_state(vec, pf, state)
  call check(state == ior(PVEC_MIRROR_DEVICE_LOCAL, PVEC_MIRROR_DEVICE_GHOST), &
             'mark_modified on the device')
  call pvec_vector_reduce(vec, pf, PVEC_REDUCE_ADD, total, stat=st)
  call check_status(st, PVEC_ERROR_STALE_MIRROR, 'a host reduction of a device-written property')
  call pvec_vector_sync(vec, [pf], PVEC_ROWS_LOCAL)
  call pvec_vector_get_mirror_state(vec, pf, state)
  call check(iand(state, ior(PVEC_MIRROR_HOST_LOCAL, PVEC_MIRROR_DEVICE_LOCAL)) == 3 .and. &
             iand(state, PVEC_MIRROR_HOST_GHOST) == 0, 'sync of the local rows only')
  call pvec_vector_sync(vec)
  call pvec_vector_get_mirror_state(vec, pf, state)
  call check(state == 15, 'sync of everything')
  call pvec_vector_mark_modified(vec, flags=PVEC_ON_DEVICE)  ! every property
  call pvec_vector_set_auto_sync(vec, .true.)
  call pvec_vector_reduce(vec, pf, PVEC_REDUCE_ADD, total, stat=st)
  call check_status(st, PVEC_SUCCESS, 'a host reduction with automatic synchronisation')
  call pvec_vector_set_auto_sync(vec, .false.)
  ! A zero-size list declares nothing. (A variable, not the literal [integer ::]: gfortran 12
  ! passes that as an absent argument.)
  call pvec_vector_mark_modified(vec, no_props)
  call pvec_vector_get_mirror_state(vec, PVEC_POS, state)
  call check(iand(state, PVEC_MIRROR_HOST_LOCAL) == 0, 'an empty list declares nothing')
  call pvec_vector_get_mirror_state(vec, 42, state, stat=st)
  call check_status(st, PVEC_ERROR_OUT_OF_RANGE, 'mirror state of no property')

  call pvec_vector_destroy(vec)
  call pvec_schema_destroy(schema)
  call pvec_finalize()
  print '(a)', 'test_population: OK'

contains

  !> f = 1..n, m = 0, positions inside the box.
  subroutine fill()
    call pvec_vector_get_size(vec, n)
    call pvec_host_view(vec, pm, m)
    call pvec_host_view(vec, pf, f)
    call pvec_host_view(vec, PVEC_POS, x)
    m(1:n) = 0
    do i = 1, int(n)
      f(i) = i
      x(i, :) = (i - 0.5d0) / n
    end do
  end subroutine fill
end program test_population
