!> Output and restart from Fortran (module pvec_io, docs/fortran.md "Output and restart"), run
!> on 1 and 2 ranks. 2D unit box, 37 particles placed EVEN, each value a function of the
!> particle's global id, so every value read back is known. VTK: every property, a list (with
!> the rank array) and the positions alone, checked in the text of each .pvtp and the .pvd.
!> Metadata: built with each kind, read back by index and key, wrong kinds and missing keys
!> refused. Checkpoints (when pvec_has_hdf5, else each call must be NOT_SUPPORTED): a property
!> list and metadata of every kind, described (step, time, geometry, schema, metadata exact),
!> restarted with the described schema and with the full schema (PVEC_RESTART_ZERO_MISSING:
!> the unsaved property is zero; without the flag: INVALID_ARGUMENT). Bad input returns a
!> status and a message. The files are removed at the end.
program test_io
  use, intrinsic :: iso_c_binding
  use mpi
  use pvec
  use ftest
  implicit none
  integer(c_int64_t), parameter :: np = 37
  type(pvec_schema) :: s, full, got, small
  type(pvec_vector_desc) :: desc, d2
  type(pvec_vector) :: vec, back
  type(pvec_metadata) :: meta, m2, dup
  real(c_double), pointer :: x(:, :), rho(:), scr(:, :)
  real(c_float), pointer :: vel(:, :)
  integer(c_int64_t), pointer :: id(:)
  integer :: p_id, p_rho, p_vel, p_scr, ierr, rank, nranks, st, k, dt, rk, cnt
  integer :: none(0)
  integer(c_int64_t) :: n, i, first, step, total, ext(2)
  real(c_double) :: t, r, big(PVEC_METADATA_MAX_VALUES), over(PVEC_METADATA_MAX_VALUES + 1)
  real(c_double), allocatable :: arr(:)
  character(:), allocatable :: text, pname, dir, ckpt, longkey
  character(len=300) :: msg
  character(len=8) :: tag
  logical :: have

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call pvec_init()
  ! One folder per rank count: the np1 and np2 tests may run at the same time.
  write (tag, '(i0)') nranks
  dir = 'fortran_io_np'//trim(tag)
  if (rank == 0) call execute_command_line('rm -rf '//dir)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)

  ! ---- A vector whose values follow from the global id ----------------------------------------
  call pvec_schema_create(full)
  call pvec_schema_add_scalar(full, 'id', PVEC_INT64, p_id)
  call pvec_schema_add_scalar(full, 'rho', PVEC_FLOAT64, p_rho)
  call pvec_schema_add_vector(full, 'vel', PVEC_FLOAT32, 3, p_vel)
  call pvec_schema_add_vector(full, 'scratch', PVEC_FLOAT64, 2, p_scr)
  desc%dim = 2
  desc%domain_lo(1:2) = 0
  desc%domain_hi(1:2) = 1
  desc%n_particles = np
  desc%backend = PVEC_BACKEND_HOST
  call pvec_vector_desc_set_comm(desc, MPI_COMM_WORLD)
  call pvec_vector_create(desc, full, vec)
  first = rank * (np / nranks) + min(int(rank, c_int64_t), mod(np, int(nranks, c_int64_t)))
  call pvec_vector_get_size(vec, n)
  call pvec_host_view(vec, PVEC_POS, x)
  call pvec_host_view(vec, p_id, id)
  call pvec_host_view(vec, p_rho, rho)
  call pvec_host_view(vec, p_vel, vel)
  call pvec_host_view(vec, p_scr, scr)
  do i = 1, n
    id(i) = first + i - 1
    x(i, :) = pos_of(id(i))
    rho(i) = 1.5d0 * id(i) + 0.25d0
    vel(i, :) = vel_of(id(i))
    scr(i, :) = [3d0 * id(i), 7d0]
  end do

  ! ---- VTK: every property, a list, the positions alone ---------------------------------------
  call pvec_vtk_write(vec, dir//'/vtk/run', 1, 0.5d0)
  call pvec_vtk_write(vec, dir//'/vtk/run', 2_c_int64_t, 1.0d0, props=[p_vel, p_rho], &
                      flags=PVEC_VTK_RANK_ARRAY)
  call pvec_vtk_write(vec, dir//'/vtk/run', 3, 1.5d0, props=none, stat=st)
  call check_status(st, PVEC_SUCCESS, 'vtk: the positions alone')
  if (rank == 0) then
    call check(pvtp_arrays(dir//'/vtk/run_000001.pvtp') == 'id,rho,vel,scratch', &
               'vtk step 1: every property, in declaration order')
    call check(pvtp_arrays(dir//'/vtk/run_000002.pvtp') == 'rho,vel,rank', &
               'vtk step 2: the listed properties in declaration order, then rank')
    call check(pvtp_arrays(dir//'/vtk/run_000003.pvtp') == '', 'vtk step 3: no point array')
    call check(count_text(dir//'/vtk/run.pvd', '<DataSet ') == 3, 'vtk: 3 steps in the .pvd')
    do k = 0, nranks - 1
      write (tag, '(i4.4)') k
      call check(exists(dir//'/vtk/run_000002/run_'//trim(tag)//'.vtp'), 'vtk: piece of rank')
    end do
  end if
  msg = 'untouched'
  call pvec_vtk_write(vec, dir//'/vtk/run', 4, 2d0, props=[p_rho, 42], stat=st, errmsg=msg)
  call check_status(st, PVEC_ERROR_OUT_OF_RANGE, 'vtk: property index out of range')
  call check(msg /= 'untouched' .and. msg == pvec_last_error(), 'vtk: errmsg is the message')
  call pvec_vtk_write(vec, dir//'/vtk/run', -1, 2d0, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'vtk: negative step')
  call pvec_vtk_write(vec, dir//'/vtk/run', 4, 2d0, props=[p_rho, p_rho], stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'vtk: a property listed twice')
  call pvec_vtk_write(vec, '', 4, 2d0, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'vtk: empty prefix')
  if (rank == 0) call check(.not. exists(dir//'/vtk/run_000004.pvtp'), 'vtk: refused: no file')

  ! ---- Metadata built in Fortran --------------------------------------------------------------
  longkey = 'long_'//repeat('x', 295)               ! longer than the first key buffer
  over = 0
  do k = 1, size(big)
    big(k) = k * 0.125d0 - 3d0
  end do
  call check(pvec_metadata_count(meta) == 0, 'metadata starts empty')
  call pvec_metadata_add(meta, 'run', 'demo run   ')   ! trailing blanks dropped
  call pvec_metadata_add(meta, 'dt  ', 0.005d0)
  call pvec_metadata_add(meta, 'gravity', [0d0, -9.81d0])
  call pvec_metadata_add(meta, 'one', [2.5d0])          ! an array of one value stays an array
  call pvec_metadata_add(meta, 'Note', repeat('abc', 100))
  call pvec_metadata_add(meta, longkey, 1d300)
  call pvec_metadata_add(meta, 'big', big)
  call check(pvec_metadata_count(meta) == 7, 'metadata: 7 attributes')
  call check(pvec_metadata_key(meta, 2) == 'dt' .and. len(pvec_metadata_key(meta, 2)) == 2, &
             'metadata: key 2 in insertion order, trimmed')
  call check(pvec_metadata_key(meta, 0) == '' .and. pvec_metadata_key(meta, 8) == '', &
             'metadata: key outside 1..count is empty')
  call check(pvec_metadata_kind(meta, 1) == PVEC_METADATA_STRING .and. &
             pvec_metadata_kind(meta, 2) == PVEC_METADATA_NUMBER .and. &
             pvec_metadata_kind(meta, 'one') == PVEC_METADATA_ARRAY .and. &
             pvec_metadata_kind(meta, 'nope') == -1 .and. pvec_metadata_kind(meta, 9) == -1, &
             'metadata: kinds by index and key')
  call check_metadata(meta, 'built')
  ! Refused additions change nothing.
  msg = 'untouched'
  call pvec_metadata_add(meta, 'empty', none_real(), stat=st, errmsg=msg)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'metadata: an empty array')
  call check(index(msg, 'empty') > 0, 'metadata: the message names the key')
  call pvec_metadata_add(meta, 'over', over, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'metadata: too many values')
  call check(pvec_metadata_count(meta) == 7, 'metadata: refused additions add nothing')
  ! Wrong kinds and missing keys: a status and a message, the value untouched.
  r = -1
  call pvec_metadata_get(meta, 'gravity', r, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'get: an array into a number')
  call check(index(pvec_last_error(), 'gravity') > 0 .and. r == -1, 'get: message, no write')
  call pvec_metadata_get(meta, 'one', r, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'get: an array of one into a number')
  arr = [4d0]
  call pvec_metadata_get(meta, 'dt', arr, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'get: a number into an array')
  call check(size(arr) == 1 .and. arr(1) == 4d0, 'get: array untouched')
  text = 'keep'
  call pvec_metadata_get(meta, 'dt', text, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'get: a number into a string')
  call check(text == 'keep', 'get: string untouched')
  call pvec_metadata_get(meta, 'run', r, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'get: a string into a number')
  msg = 'untouched'
  call pvec_metadata_get(meta, 'nope', r, stat=st, errmsg=msg)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'get: a missing key')
  call check(index(msg, "'nope'") > 0, 'get: the message names the missing key')
  call pvec_metadata_get(meta, 'dt', r, stat=st)
  call check_status(st, PVEC_SUCCESS, 'get: a success after failures')
  ! Assignment copies.
  m2 = meta
  call check_metadata(m2, 'copy')

  ! ---- Checkpoints ----------------------------------------------------------------------------
  ckpt = dir//'/ckpt/c.h5'
  call pvec_has_hdf5(have)
  if (.not. have) then
    call pvec_checkpoint_write(vec, ckpt, 100, 0.25d0, meta=meta, stat=st)
    call check_status(st, PVEC_ERROR_NOT_SUPPORTED, 'no HDF5: write')
    call check(len(pvec_last_error()) > 0, 'no HDF5: a message')
    step = -5
    call pvec_checkpoint_describe(ckpt, d2, got, step=step, meta=m2, stat=st)
    call check_status(st, PVEC_ERROR_NOT_SUPPORTED, 'no HDF5: describe')
    call check(.not. c_associated(pvec_c_handle(got)), 'no HDF5: no schema')
    call check(step == -5 .and. pvec_metadata_count(m2) == 7, 'no HDF5: outputs left alone')
    call pvec_checkpoint_restart(ckpt, desc, full, back, stat=st)
    call check_status(st, PVEC_ERROR_NOT_SUPPORTED, 'no HDF5: restart')
    if (rank == 0) print '(a)', 'test_io: built without parallel HDF5: checkpoints skipped'
  else
    ! Saved: id, rho and vel (scratch is not), with every kind of metadata.
    call pvec_checkpoint_write(vec, ckpt, 100, 0.25d0, props=[p_vel, p_id, p_rho], meta=meta)
    if (rank == 0) call check(exists(ckpt), 'checkpoint written')
    ! Described: geometry, step, time, schema, metadata.
    call pvec_vector_desc_set_comm(d2, MPI_COMM_WORLD)
    d2%backend = PVEC_BACKEND_HOST
    d2%ghost_width = 0.125d0
    call pvec_checkpoint_describe(ckpt, d2, got, step=step, time=t, meta=m2)
    call check(step == 100 .and. t == 0.25d0, 'describe: step and time')
    call check(d2%dim == 2 .and. d2%pos_dtype == PVEC_FLOAT64 .and. &
               all(d2%domain_lo(1:2) == 0d0) .and. all(d2%domain_hi(1:2) == 1d0) .and. &
               all(d2%boundary(1:2) == PVEC_NON_PERIODIC), 'describe: geometry')
    call check(d2%backend == PVEC_BACKEND_HOST .and. d2%has_comm == 1, &
               'describe: the caller''s fields are kept')
    call pvec_schema_get_count(got, cnt)
    call check(cnt == 3, 'describe: 3 properties saved')
    call pvec_schema_get_property(got, 0, pname, dt, rk, ext)
    call check(pname == 'id' .and. dt == PVEC_INT64 .and. rk == 0, 'describe: id')
    call pvec_schema_get_property(got, 1, pname, dt, rk, ext)
    call check(pname == 'rho' .and. dt == PVEC_FLOAT64 .and. rk == 0, 'describe: rho')
    call pvec_schema_get_property(got, 2, pname, dt, rk, ext)
    call check(pname == 'vel' .and. dt == PVEC_FLOAT32 .and. rk == 1 .and. ext(1) == 3, &
               'describe: vel')
    call check(pvec_metadata_count(m2) == 7, 'describe: 7 attributes')
    ! Read back in bytewise key order: uppercase first.
    call check(pvec_metadata_key(m2, 1) == 'Note' .and. pvec_metadata_key(m2, 2) == 'big' .and. &
               pvec_metadata_key(m2, 3) == 'dt' .and. pvec_metadata_key(m2, 4) == 'gravity' &
               .and. pvec_metadata_key(m2, 5) == longkey .and. &
               pvec_metadata_key(m2, 6) == 'one' .and. pvec_metadata_key(m2, 7) == 'run', &
               'describe: keys in bytewise order')
    call check_metadata(m2, 'described')
    ! Only the metadata: optional outputs left out.
    call pvec_checkpoint_describe(ckpt, d2, small, meta=m2)
    call check(pvec_metadata_count(m2) == 7, 'describe: meta alone')
    call pvec_schema_destroy(small)

    ! Restart with the described schema: the three saved properties.
    call pvec_checkpoint_restart(ckpt, d2, got, back)
    call check_vector(back, .false., 'restart, described schema')
    call pvec_vector_destroy(back)
    ! The full schema: scratch only with PVEC_RESTART_ZERO_MISSING, then zero.
    msg = 'untouched'
    call pvec_checkpoint_restart(ckpt, desc, full, back, stat=st, errmsg=msg)
    call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'restart: a property the file lacks')
    call check(index(msg, 'scratch') > 0, 'restart: the message names the property')
    call check(.not. c_associated(pvec_c_handle(back)), 'restart: refused: no vector')
    call pvec_checkpoint_restart(ckpt, desc, full, back, flags=PVEC_RESTART_ZERO_MISSING)
    call check_vector(back, .true., 'restart, full schema, ZERO_MISSING')
    call pvec_vector_destroy(back)
    ! A smaller schema reads with PVEC_RESTART_SKIP_EXTRA only.
    call pvec_schema_create(small)
    call pvec_schema_add_scalar(small, 'rho', PVEC_FLOAT64)
    call pvec_checkpoint_restart(ckpt, desc, small, back, stat=st)
    call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'restart: properties not asked for')
    call pvec_checkpoint_restart(ckpt, desc, small, back, PVEC_RESTART_SKIP_EXTRA, stat=st)
    call check_status(st, PVEC_SUCCESS, 'restart: SKIP_EXTRA')
    call pvec_vector_get_size(back, n)
    total = n
    call pvec_vector_allreduce(back, total, PVEC_REDUCE_ADD)
    call check(total == np, 'restart SKIP_EXTRA: every particle')
    call pvec_vector_destroy(back)
    call pvec_schema_destroy(small)
    call pvec_schema_destroy(got)

    ! Bad input: a status and a message, never a stop.
    dup = meta
    call pvec_metadata_add(dup, 'dt', 1d0)
    msg = 'untouched'
    call pvec_checkpoint_write(vec, dir//'/ckpt/dup.h5', 1, 0d0, meta=dup, stat=st, errmsg=msg)
    call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'write: a repeated key')
    call check(index(msg, 'dt') > 0, 'write: the message names the key')
    call pvec_checkpoint_write(vec, dir//'/ckpt/bad.h5', 1, 0d0, props=[p_rho, 42], stat=st)
    call check_status(st, PVEC_ERROR_OUT_OF_RANGE, 'write: a property index out of range')
    call pvec_checkpoint_write(vec, dir//'/ckpt/bad.h5', 1, 0d0, props=[p_rho], flags=1024, &
                               stat=st)
    call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'write: unknown flags')
    call pvec_checkpoint_write(vec, '', 1, 0d0, stat=st)
    call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'write: empty path')
    if (rank == 0) call check(.not. exists(dir//'/ckpt/dup.h5') .and. &
                              .not. exists(dir//'/ckpt/bad.h5'), 'write: refused: no file')
    step = -5
    call pvec_checkpoint_describe(dir//'/ckpt/missing.h5', d2, got, step=step, meta=m2, stat=st)
    call check_status(st, PVEC_ERROR_IO, 'describe: no such file')
    call check(.not. c_associated(pvec_c_handle(got)), 'describe: refused: no schema')
    call check(step == -5 .and. pvec_metadata_count(m2) == 7 .and. d2%dim == 2, &
               'describe: refused: the outputs are left as they were')
    call pvec_checkpoint_restart(dir//'/ckpt/missing.h5', desc, full, back, stat=st)
    call check_status(st, PVEC_ERROR_IO, 'restart: no such file')
    call pvec_checkpoint_restart(ckpt, desc, full, back, flags=PVEC_ON_DEVICE, stat=st)
    call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'restart: unknown flags')
    ! Positions only (zero-size list) and an integer(c_int64_t) step.
    call pvec_checkpoint_write(vec, dir//'/ckpt/pos.h5', 7_c_int64_t, 0d0, props=none)
    call pvec_checkpoint_describe(dir//'/ckpt/pos.h5', d2, got, step=step, meta=m2)
    call pvec_schema_get_count(got, cnt)
    call check(cnt == 0 .and. step == 7 .and. pvec_metadata_count(m2) == 0, &
               'positions only, no metadata')
    call pvec_schema_destroy(got)
  end if

  call pvec_vector_destroy(vec)
  call pvec_schema_destroy(full)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    call execute_command_line('rm -rf '//dir)
    call check(.not. exists(dir//'/vtk/run.pvd'), 'files removed')
  end if
  call pvec_finalize()
  call MPI_Finalize(ierr)
  if (rank == 0) print '(a)', 'test_io: OK'

contains

  pure function pos_of(gid) result(p)
    integer(c_int64_t), intent(in) :: gid
    real(c_double) :: p(2)
    p = [modulo(real(gid, c_double) * 0.618034d0, 1d0), real(gid, c_double) / np]
  end function pos_of

  pure function vel_of(gid) result(v)
    integer(c_int64_t), intent(in) :: gid
    real(c_float) :: v(3)
    v = [real(gid, c_float), -real(gid, c_float), 0.5 * real(gid, c_float)]
  end function vel_of

  function none_real() result(r)
    real(c_double), allocatable :: r(:)
    allocate (r(0))
  end function none_real

  !> Every value of the metadata added above, exactly.
  subroutine check_metadata(m, what)
    type(pvec_metadata), intent(in) :: m
    character(*), intent(in) :: what
    real(c_double) :: v
    real(c_double), allocatable :: a(:)
    character(:), allocatable :: s
    call pvec_metadata_get(m, 'run', s)
    call check(s == 'demo run' .and. len(s) == 8, what//': run')
    call pvec_metadata_get(m, 'Note', s)
    call check(s == repeat('abc', 100), what//': Note')
    call pvec_metadata_get(m, 'dt', v)
    call check(v == 0.005d0, what//': dt')
    call pvec_metadata_get(m, longkey, v)
    call check(v == 1d300, what//': the long key')
    call pvec_metadata_get(m, 'gravity', a)
    call check(size(a) == 2, what//': gravity has 2 values')
    call check(all(a == [0d0, -9.81d0]), what//': gravity')
    call pvec_metadata_get(m, 'one', a)
    call check(size(a) == 1, what//': one is an array of 1')
    call check(a(1) == 2.5d0, what//': one')
    call pvec_metadata_get(m, 'big', a)
    call check(size(a) == PVEC_METADATA_MAX_VALUES, what//': big has the most values')
    call check(all(a == big), what//': big')
    call check(pvec_metadata_kind(m, 'run') == PVEC_METADATA_STRING .and. &
               pvec_metadata_kind(m, 'dt') == PVEC_METADATA_NUMBER .and. &
               pvec_metadata_kind(m, 'one') == PVEC_METADATA_ARRAY .and. &
               pvec_metadata_kind(m, 'gravity') == PVEC_METADATA_ARRAY, what//': kinds')
  end subroutine check_metadata

  !> A restarted vector: every particle once (count and id sum over the ranks), in its own
  !> rank's subdomain after the map, each value as written; scratch, if present, zero.
  subroutine check_vector(v, has_scratch, what)
    type(pvec_vector), intent(in) :: v
    logical, intent(in) :: has_scratch
    character(*), intent(in) :: what
    real(c_double), pointer :: vx(:, :), vr(:), vs(:, :)
    real(c_float), pointer :: vv(:, :)
    integer(c_int64_t), pointer :: vid(:)
    integer(c_int64_t) :: m, j, sums(2)
    integer :: pc, q, owner
    call pvec_vector_get_size(v, m)
    call pvec_vector_get_prop_count(v, pc)
    call check(pc == merge(4, 3, has_scratch), what//': property count')
    call pvec_vector_get_prop_index(v, 'id', q)
    call pvec_host_view(v, q, vid)
    call pvec_vector_get_prop_index(v, 'rho', q)
    call pvec_host_view(v, q, vr)
    call pvec_vector_get_prop_index(v, 'vel', q)
    call pvec_host_view(v, q, vv)
    call pvec_host_view(v, PVEC_POS, vx)
    sums = [m, 0_c_int64_t]
    do j = 1, m
      sums(2) = sums(2) + vid(j)
      call check(all(vx(j, :) == pos_of(vid(j))), what//': position')
      call check(vr(j) == 1.5d0 * vid(j) + 0.25d0, what//': rho')
      call check(all(vv(j, :) == vel_of(vid(j))), what//': vel')
      call pvec_vector_get_owner_rank(v, vx(j, :), owner)
      call check(owner == rank, what//': on its owner')
    end do
    if (has_scratch) then
      call pvec_vector_get_prop_index(v, 'scratch', q)
      call pvec_host_view(v, q, vs)
      call check(all(vs(1:m, :) == 0d0), what//': scratch is zero')
    end if
    call pvec_vector_allreduce(v, sums, PVEC_REDUCE_ADD)
    call check(sums(1) == np .and. sums(2) == np * (np - 1) / 2, what//': every particle once')
  end subroutine check_vector

  logical function exists(path)
    character(*), intent(in) :: path
    inquire (file=path, exist=exists)
  end function exists

  !> The names of the point arrays of a .pvtp (its PPointData), comma-separated.
  function pvtp_arrays(path) result(names)
    character(*), intent(in) :: path
    character(:), allocatable :: names
    character(len=1000) :: line
    integer :: u, ios, a, b
    logical :: inside
    names = ''
    inside = .false.
    open (newunit=u, file=path, status='old', action='read', iostat=ios)
    call check(ios == 0, 'cannot open '//path)
    do
      read (u, '(a)', iostat=ios) line
      if (ios /= 0) exit
      if (index(line, '<PPointData') > 0) inside = .true.
      if (index(line, '</PPointData>') > 0) inside = .false.
      if (.not. inside .or. index(line, '<PDataArray') == 0) cycle
      a = index(line, 'Name="') + 6
      b = a + index(line(a:), '"') - 2
      if (len(names) > 0) names = names//','
      names = names//line(a:b)
    end do
    close (u)
  end function pvtp_arrays

  !> How many lines of a file contain what.
  integer function count_text(path, what)
    character(*), intent(in) :: path, what
    character(len=1000) :: line
    integer :: u, ios
    count_text = 0
    open (newunit=u, file=path, status='old', action='read', iostat=ios)
    call check(ios == 0, 'cannot open '//path)
    do
      read (u, '(a)', iostat=ios) line
      if (ios /= 0) exit
      if (index(line, what) > 0) count_text = count_text + 1
    end do
    close (u)
  end function count_text
end program test_io
