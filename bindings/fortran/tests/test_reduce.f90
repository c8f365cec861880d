!> Reductions from Fortran (docs/reductions.md), run on 1 and 2 ranks. 2D unit box, 101
!> particles placed EVEN, each property a function of the particle's global id, so every
!> result is known: pvec_vector_reduce of a float64 scalar, a float32 vector[3], an int32
!> scalar, a uint64 scalar, a float64 tensor[2][2] and the positions (scalar and array results,
!> host and device mirror), NaN, no particles; pvec_vector_allreduce of scalars and arrays of
!> each kind, empty and strided arrays; refused calls return the same status on every rank.
program test_reduce
  use, intrinsic :: iso_c_binding
  use, intrinsic :: ieee_arithmetic, only: ieee_is_nan, ieee_value, ieee_quiet_nan
  use mpi
  use pvec
  use ftest
  implicit none
  integer(c_int64_t), parameter :: np = 101
  type(pvec_schema) :: s
  type(pvec_vector_desc) :: desc
  type(pvec_vector) :: vec
  real(c_double), pointer :: x(:, :), m(:), t(:, :, :)
  real(c_float), pointer :: v(:, :)
  integer(c_int32_t), pointer :: k(:)
  integer(c_int64_t), pointer :: u(:)
  integer :: p_m, p_v, p_k, p_u, p_t, ierr, rank, nranks, st, a, b
  integer(c_int64_t) :: n, i, id, first, ksum, usum, ir, ir2(2), imin(1)
  real(c_double) :: r, r2(2), r3(3), r4(4), big(6), xs(2), xa(2), xb(2)
  real(c_double) :: e, d(6), none(0)
  real(c_float) :: f2(2)
  integer(c_int32_t) :: j2(2)
  integer(c_int64_t) :: l
  character(len=300) :: msg

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call pvec_init()

  call pvec_schema_create(s)
  call pvec_schema_add_scalar(s, 'm', PVEC_FLOAT64, p_m)
  call pvec_schema_add_vector(s, 'v', PVEC_FLOAT32, 3, p_v)
  call pvec_schema_add_scalar(s, 'k', PVEC_INT32, p_k)
  call pvec_schema_add_scalar(s, 'u', PVEC_UINT64, p_u)
  call pvec_schema_add_tensor(s, 't', PVEC_FLOAT64, 2, 2, p_t)
  desc%dim = 2
  desc%domain_lo(1:2) = 0
  desc%domain_hi(1:2) = 1
  desc%n_particles = np
  desc%backend = PVEC_BACKEND_HOST
  call pvec_vector_desc_set_comm(desc, MPI_COMM_WORLD)
  call pvec_vector_create(desc, s, vec)
  call pvec_schema_destroy(s)

  ! EVEN placement: rank r holds ids first .. first + n - 1.
  first = rank * (np / nranks) + min(int(rank, c_int64_t), mod(np, int(nranks, c_int64_t)))
  call pvec_vector_get_size(vec, n)
  call pvec_host_view(vec, PVEC_POS, x)
  call pvec_host_view(vec, p_m, m)
  call pvec_host_view(vec, p_v, v)
  call pvec_host_view(vec, p_k, k)
  call pvec_host_view(vec, p_u, u)
  call pvec_host_view(vec, p_t, t)
  do i = 1, n
    id = first + i - 1
    x(i, 1) = modulo(real(id, c_double) * 0.618034d0, 1.0d0)
    x(i, 2) = real(id, c_double) / np
    m(i) = real(id, c_double)
    v(i, :) = [real(id, c_float), -real(id, c_float), 0.5 * real(id, c_float)]
    k(i) = int(mod(id, 7_c_int64_t), c_int32_t)
    u(i) = id * id
    do a = 0, 1
      do b = 0, 1
        t(i, b + 1, a + 1) = real(id * (a * 2 + b + 1), c_double)   ! entry (a,b)
      end do
    end do
  end do
  ! References over all ids.
  ksum = 0
  usum = 0
  xa = huge(1d0)
  xb = -huge(1d0)
  xs = 0
  do id = 0, np - 1
    ksum = ksum + mod(id, 7_c_int64_t)
    usum = usum + id * id
    xa = min(xa, [modulo(real(id, c_double) * 0.618034d0, 1.0d0), real(id, c_double) / np])
    xb = max(xb, [modulo(real(id, c_double) * 0.618034d0, 1.0d0), real(id, c_double) / np])
    xs = xs + [modulo(real(id, c_double) * 0.618034d0, 1.0d0), real(id, c_double) / np]
  end do

  ! ---- pvec_vector_reduce on the host mirror ------------------------------------------------------
  call pvec_vector_reduce(vec, p_m, PVEC_REDUCE_ADD, r)
  call check(r == real(np * (np - 1) / 2, c_double), 'sum of a float64 scalar')
  call pvec_vector_reduce(vec, p_m, PVEC_REDUCE_MIN, r)
  call check(r == 0, 'min of a float64 scalar')
  call pvec_vector_reduce(vec, p_m, PVEC_REDUCE_MAX, r)
  call check(r == real(np - 1, c_double), 'max of a float64 scalar')
  call pvec_vector_reduce(vec, p_v, PVEC_REDUCE_ADD, r3)
  call check(all(r3 == [1d0, -1d0, 0.5d0] * real(np * (np - 1) / 2, c_double)), &
             'sum of a float32 vector[3], per component')
  call pvec_vector_reduce(vec, p_v, PVEC_REDUCE_MAX, r3)
  call check(all(r3 == [real(np - 1, c_double), 0d0, 0.5d0 * (np - 1)]), 'max per component')
  call pvec_vector_reduce(vec, p_k, PVEC_REDUCE_ADD, ir)
  call check(ir == ksum, 'sum of an int32 scalar, in int64')
  call pvec_vector_reduce(vec, p_k, PVEC_REDUCE_MAX, imin)
  call check(imin(1) == 6, 'max of an int32 scalar, array result')
  call pvec_vector_reduce(vec, p_u, PVEC_REDUCE_ADD, ir)
  call check(ir == usum, 'sum of a uint64 scalar')
  call pvec_vector_reduce(vec, p_t, PVEC_REDUCE_ADD, r4)
  do a = 0, 1
    do b = 0, 1
      call check(r4(a * 2 + b + 1) == real(np * (np - 1) / 2 * (a * 2 + b + 1), c_double), &
                 'tensor entry (a,b) is result(a*m + b + 1)')
    end do
  end do
  call pvec_vector_reduce(vec, PVEC_POS, PVEC_REDUCE_MIN, r2)
  call check(all(r2 == xa), 'min of the positions')
  call pvec_vector_reduce(vec, PVEC_POS, PVEC_REDUCE_MAX, r2)
  call check(all(r2 == xb), 'max of the positions')
  call pvec_vector_reduce(vec, PVEC_POS, PVEC_REDUCE_ADD, r2)
  call check(all(abs(r2 - xs) < 1d-9), 'sum of the positions')
  ! A longer result array: the first ncomp entries are written, the others kept.
  big = -7
  call pvec_vector_reduce(vec, p_v, PVEC_REDUCE_MIN, big, stat=st)
  call check_status(st, PVEC_SUCCESS, 'longer result')
  call check(all(big(1:3) == [0d0, -real(np - 1, c_double), 0d0]) .and. all(big(4:) == -7), &
             'longer result: ncomp values written')

  ! ---- On the device mirror (the host backend's second allocation) ------------------------------
  call pvec_host_to_device(vec)
  call pvec_vector_reduce(vec, p_m, PVEC_REDUCE_ADD, r, flags=PVEC_ON_DEVICE)
  call check(r == real(np * (np - 1) / 2, c_double), 'sum on the device mirror')
  m(1:n) = 0   ! the host mirror changes, the device mirror does not
  call pvec_vector_reduce(vec, p_m, PVEC_REDUCE_ADD, r, PVEC_ON_DEVICE)
  call check(r == real(np * (np - 1) / 2, c_double), 'PVEC_ON_DEVICE reads the device mirror')
  call pvec_vector_reduce(vec, p_m, PVEC_REDUCE_ADD, r)
  call check(r == 0, 'without it the host mirror')

  ! ---- NaN on one rank makes every rank's result NaN ---------------------------------------------
  if (rank == 0 .and. n > 0) m(1) = ieee_value(1d0, ieee_quiet_nan)
  call pvec_vector_reduce(vec, p_m, PVEC_REDUCE_MAX, r)
  call check(ieee_is_nan(r), 'NaN on rank 0: max is NaN on every rank')
  call pvec_vector_reduce(vec, p_m, PVEC_REDUCE_MIN, r)
  call check(ieee_is_nan(r), 'NaN on rank 0: min is NaN on every rank')

  ! ---- Refused, alike on every rank, result untouched ---------------------------------------------
  r = -3
  call pvec_vector_reduce(vec, p_k, PVEC_REDUCE_ADD, r, stat=st, errmsg=msg)
  call check_status(st, PVEC_ERROR_DTYPE_MISMATCH, 'real result of an int32 property')
  call check(r == -3 .and. msg == pvec_last_error() .and. &
             index(msg, 'integer(c_int64_t)') > 0, 'dtype mismatch message: '//trim(msg))
  call pvec_vector_reduce(vec, p_m, PVEC_REDUCE_ADD, ir, stat=st)
  call check_status(st, PVEC_ERROR_DTYPE_MISMATCH, 'integer result of a float64 property')
  r2 = -3
  call pvec_vector_reduce(vec, p_v, PVEC_REDUCE_ADD, r2, stat=st, errmsg=msg)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'result shorter than ncomp')
  call check(all(r2 == -3) .and. index(msg, '3 components') > 0, 'short result: '//trim(msg))
  call pvec_vector_reduce(vec, p_v, PVEC_REDUCE_ADD, r, stat=st, errmsg=msg)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'scalar result of a vector[3]')
  call check(index(msg, 'result(3)') > 0, 'scalar result message: '//trim(msg))
  call pvec_vector_reduce(vec, p_m, PVEC_REDUCE_REPLACE, r, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'op REPLACE')
  call pvec_vector_reduce(vec, 99, PVEC_REDUCE_ADD, r, stat=st)
  call check_status(st, PVEC_ERROR_OUT_OF_RANGE, 'no property 99')
  call pvec_vector_reduce(pvec_vector(), p_m, PVEC_REDUCE_ADD, r, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_HANDLE, 'NULL vector')

  ! ---- pvec_vector_allreduce ----------------------------------------------------------------------
  e = rank + 1
  call pvec_vector_allreduce(vec, e, PVEC_REDUCE_ADD)
  call check(e == nranks * (nranks + 1) / 2, 'float64 scalar sum')
  f2 = [real(rank, c_float), -real(rank, c_float)]
  call pvec_vector_allreduce(vec, f2, PVEC_REDUCE_MIN)
  call check(all(f2 == [0.0, -real(nranks - 1)]), 'float32 array min')
  j2 = [rank + 1, 1]
  call pvec_vector_allreduce(vec, j2, PVEC_REDUCE_MAX)
  call check(all(j2 == [nranks, 1]), 'int32 array max')
  l = 2_c_int64_t**40 + rank
  call pvec_vector_allreduce(vec, l, PVEC_REDUCE_ADD)
  call check(l == nranks * 2_c_int64_t**40 + nranks * (nranks - 1) / 2, 'int64 scalar sum')
  ir2 = [int(rank, c_int64_t), 5_c_int64_t]
  call pvec_vector_allreduce(vec, ir2, PVEC_REDUCE_ADD, stat=st)
  call check_status(st, PVEC_SUCCESS, 'int64 array')
  call check(all(ir2 == [int(nranks * (nranks - 1) / 2, c_int64_t), 5_c_int64_t * nranks]), &
             'int64 array sum')
  call pvec_vector_allreduce(vec, none, PVEC_REDUCE_ADD, stat=st)
  call check_status(st, PVEC_SUCCESS, 'empty array')
  ! A strided section: copied in and out around the call.
  d = [1d0, -1d0, 2d0, -1d0, 3d0, -1d0] * (rank + 1)
  call pvec_vector_allreduce(vec, d(1:5:2), PVEC_REDUCE_ADD)
  call check(all(d(1:5:2) == [1d0, 2d0, 3d0] * (nranks * (nranks + 1) / 2)) .and. &
             all(d(2:6:2) == -(rank + 1)), 'strided section: only its entries combined')
  ! Refused: unchanged.
  e = 5
  call pvec_vector_allreduce(vec, e, PVEC_REDUCE_REPLACE, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'allreduce op REPLACE')
  call check(e == 5, 'refused allreduce leaves values unchanged')
  if (nranks > 1) then
    ! Ranks disagreeing on the count: every rank refuses, none hangs.
    r3 = 1
    if (rank == 0) then
      call pvec_vector_allreduce(vec, r3(1:2), PVEC_REDUCE_ADD, stat=st)
    else
      call pvec_vector_allreduce(vec, r3, PVEC_REDUCE_ADD, stat=st)
    end if
    call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'ranks disagreeing on the count')
    call check(all(r3 == 1), 'disagreement: values unchanged')
    ! A wrong result on one rank only: that rank refuses, the others get the result.
    if (rank == 0) then
      call pvec_vector_reduce(vec, p_v, PVEC_REDUCE_ADD, r2, stat=st)
      call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'short result on rank 0 only')
    else
      call pvec_vector_reduce(vec, p_v, PVEC_REDUCE_ADD, r3, stat=st)
      call check_status(st, PVEC_SUCCESS, 'the other ranks still reduce')
    end if
  end if

  ! ---- No particle anywhere: 0, +inf, -inf ----------------------------------------------------
  call pvec_vector_resize(vec, 0)
  call pvec_vector_reduce(vec, p_m, PVEC_REDUCE_ADD, r)
  call check(r == 0, 'empty sum')
  call pvec_vector_reduce(vec, p_m, PVEC_REDUCE_MIN, r)
  call check(r > huge(r), 'empty min is +inf')
  call pvec_vector_reduce(vec, p_m, PVEC_REDUCE_MAX, r)
  call check(r < -huge(r), 'empty max is -inf')
  call pvec_vector_reduce(vec, p_k, PVEC_REDUCE_MIN, ir)
  call check(ir == huge(ir), 'empty int min is the largest int64')

  call pvec_vector_destroy(vec)
  call pvec_finalize()
  call MPI_Finalize(ierr)
  if (rank == 0) print '(a)', 'test_reduce: OK'
end program test_reduce
