!> Load balance from Fortran (module pvec_balance, docs/fortran.md "Load balance"), run on 1 and
!> 2 ranks. 2D unit box, 400 particles placed EVEN, all of them in the corner [0, 0.1)^2 on every
!> rank, mapped: one rank holds everything. Checks: pvec_vector_get_imbalance of the counts and
!> of a unit weight (host and device mirror) is the rank count; pvec_vector_rebalance with
!> threshold 1 brings it to <= 1.05 (1 on one rank), keeps the global count and the ids, and
!> leaves every particle in its rank's subdomain; below the threshold it changes nothing (same
!> generation and subdomain); a weighted rebalance (a quarter of the corner costing 3) balances
!> the weight. Refusals, each with a status on every rank and the results untouched: a threshold
!> of 0.5, NaN or infinity, an int32 weight, the positions as weight, a property that does not
!> exist, unknown flags, a negative or NaN weight on the last rank only, a NULL handle. A
!> vector that follows vec (pvec_vector_follow) shares its subdomain through a rebalance.
program test_balance
  use, intrinsic :: iso_c_binding
  use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_quiet_nan, ieee_positive_inf
  use mpi
  use pvec
  use ftest
  implicit none
  integer(c_int64_t), parameter :: np = 400
  type(pvec_schema) :: s
  type(pvec_vector_desc) :: desc
  type(pvec_vector) :: vec, nothing, tracer
  real(c_double), pointer :: x(:, :), cost(:)
  integer(c_int64_t), pointer :: id(:)
  integer(c_int32_t), pointer :: icost(:)
  integer :: p_id, p_cost, p_icost, ierr, rank, nranks, st, last
  integer(c_int64_t) :: n, i, first, gen, gen2
  real(c_double) :: ci, wi, c2, w2, b, a, lo(2), hi(2), lo2(2), hi2(2), nan, inf
  character(len=300) :: msg
  character(len=12) :: tag

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call pvec_init()
  last = nranks - 1
  nan = ieee_value(nan, ieee_quiet_nan)
  inf = ieee_value(inf, ieee_positive_inf)

  call pvec_schema_create(s)
  call pvec_schema_add_scalar(s, 'id', PVEC_INT64, p_id)
  call pvec_schema_add_scalar(s, 'cost', PVEC_FLOAT64, p_cost)
  call pvec_schema_add_scalar(s, 'icost', PVEC_INT32, p_icost)
  desc%dim = 2
  desc%domain_lo(1:2) = 0
  desc%domain_hi(1:2) = 1
  desc%n_particles = np
  desc%backend = PVEC_BACKEND_HOST
  call pvec_vector_desc_set_comm(desc, MPI_COMM_WORLD)
  call pvec_vector_create(desc, s, vec)
  call pvec_schema_destroy(s)

  ! EVEN placement: rank r holds ids first .. first + n - 1, every one of them in the corner.
  first = rank * (np / nranks) + min(int(rank, c_int64_t), mod(np, int(nranks, c_int64_t)))
  call pvec_vector_get_size(vec, n)
  call pvec_host_view(vec, PVEC_POS, x)
  call pvec_host_view(vec, p_id, id)
  call pvec_host_view(vec, p_cost, cost)
  call pvec_host_view(vec, p_icost, icost)
  do i = 1, n
    id(i) = first + i - 1
    x(i, 1) = 0.1d0 * (real(id(i), c_double) + 0.5d0) / np
    x(i, 2) = 0.1d0 * modulo(real(id(i), c_double) * 0.618034d0, 1d0)
    cost(i) = 1
    icost(i) = 1
  end do
  call pvec_map(vec)
  call check_placed('map')

  ! ---- The imbalance: one rank holds everything -----------------------------------------------
  ci = -1
  call pvec_vector_get_imbalance(vec, ci)
  if (nranks == 1) then
    call check(ci == 1, 'one rank: count imbalance 1')
  else
    call check(ci > 1.5d0, 'two ranks, all in one corner: count imbalance > 1.5')
    call check(abs(ci - nranks) < 1d-12, 'one rank holds everything: the rank count')
  end if
  c2 = -1
  w2 = -1
  call pvec_vector_get_imbalance(vec, c2, w2, weight=p_cost)
  call check(c2 == ci .and. abs(w2 - ci) < 1d-12, 'unit weights: weight imbalance = count''s')
  wi = -1
  call pvec_vector_get_imbalance(vec, c2, wi)
  call check(c2 == ci .and. wi == ci, 'no weight: the counts twice')
  wi = -1
  call pvec_vector_get_imbalance(vec, c2, wi, PVEC_NO_WEIGHT, 0, st)
  call check_status(st, PVEC_SUCCESS, 'PVEC_NO_WEIGHT, positional arguments')
  call check(wi == ci, 'PVEC_NO_WEIGHT: the counts twice')
  call pvec_host_to_device(vec)
  w2 = -1
  call pvec_vector_get_imbalance(vec, c2, w2, weight=p_cost, flags=PVEC_ON_DEVICE)
  call check(c2 == ci .and. abs(w2 - ci) < 1d-12, 'device mirror: the same imbalance')

  ! ---- Rebalance the counts -------------------------------------------------------------------
  b = -1
  a = -1
  call pvec_vector_rebalance(vec, threshold=1d0, before=b, after=a)
  call check(b == ci, 'rebalance: before is the imbalance measured first')
  if (nranks == 1) then
    call check(b == 1 .and. a == 1, 'one rank: nothing to rebalance')
  else
    call check(a <= 1.05d0, 'rebalance: after <= 1.05')
  end if
  call pvec_vector_get_imbalance(vec, c2)
  call check(abs(c2 - a) < 1d-12, 'rebalance: after is what get_imbalance now measures')
  call check_placed('rebalance')

  ! Below the threshold: nothing changes, before == after.
  call pvec_vector_get_generation(vec, gen)
  call pvec_vector_get_subdomain(vec, lo, hi)
  b = -1
  a = -1
  call pvec_vector_rebalance(vec, threshold=1.5d0, before=b, after=a)
  call check(abs(b - c2) < 1d-12 .and. a == b, 'below the threshold: before == after')
  call pvec_vector_get_generation(vec, gen2)
  call pvec_vector_get_subdomain(vec, lo2, hi2)
  call check(gen2 == gen .and. all(lo2 == lo) .and. all(hi2 == hi), &
             'below the threshold: the vector and its subdomain unchanged')
  ! The default threshold is 1: again balanced (deterministic: the same boxes or better).
  a = -1
  call pvec_vector_rebalance(vec, after=a)
  call check(a >= 1 .and. a <= 1.05d0, 'default threshold: balanced')
  call check_placed('rebalance, default threshold')

  ! ---- Rebalance a weight: the lower left quarter of the corner costs 3 ------------------------
  call pvec_vector_get_size(vec, n)
  call pvec_host_view(vec, PVEC_POS, x)
  call pvec_host_view(vec, p_cost, cost)
  do i = 1, n
    cost(i) = merge(3d0, 1d0, x(i, 1) < 0.05d0 .and. x(i, 2) < 0.05d0)
  end do
  b = -1
  a = -1
  call pvec_vector_rebalance(vec, weight=p_cost, threshold=1d0, before=b, after=a)
  if (nranks == 1) then
    call check(b == 1 .and. a == 1, 'one rank: weight imbalance 1')
  else
    ! Whichever way the count is split, one side holds the heavy quarter: 4/3.
    call check(b > 1.2d0, 'weighted: the count-balanced boxes are uneven in weight')
    call check(a <= 1.05d0, 'weighted rebalance: after <= 1.05')
  end if
  w2 = -1
  call pvec_vector_get_imbalance(vec, c2, w2, weight=p_cost)
  call check(abs(w2 - a) < 1d-12, 'weighted rebalance: after is the weight imbalance')
  call check_placed('weighted rebalance')

  ! ---- Refusals: a status on every rank, nothing written, nothing changed ---------------------
  call pvec_vector_get_generation(vec, gen)
  msg = 'untouched'
  b = -1
  a = -1
  call pvec_vector_rebalance(vec, threshold=0.5d0, before=b, after=a, stat=st, errmsg=msg)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'threshold 0.5')
  call check(b == -1 .and. a == -1, 'threshold 0.5: before and after untouched')
  call check(msg /= 'untouched' .and. msg == pvec_last_error(), 'threshold 0.5: errmsg')
  call check(index(msg, 'threshold') > 0, 'threshold 0.5: the message names the threshold')
  call pvec_vector_rebalance(vec, threshold=nan, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'threshold NaN')
  call pvec_vector_rebalance(vec, threshold=inf, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'threshold infinite')

  ci = -1
  wi = -1
  call pvec_vector_get_imbalance(vec, ci, wi, weight=p_icost, stat=st)
  call check_status(st, PVEC_ERROR_DTYPE_MISMATCH, 'get_imbalance: int32 weight')
  call check(ci == -1 .and. wi == -1, 'int32 weight: results untouched')
  call pvec_vector_rebalance(vec, weight=p_icost, before=b, after=a, stat=st)
  call check_status(st, PVEC_ERROR_DTYPE_MISMATCH, 'rebalance: int32 weight')
  call check(b == -1 .and. a == -1, 'rebalance, int32 weight: untouched')
  call pvec_vector_get_imbalance(vec, ci, weight=PVEC_POS, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'the positions as weight')
  call pvec_vector_get_imbalance(vec, ci, weight=42, stat=st)
  call check_status(st, PVEC_ERROR_OUT_OF_RANGE, 'a property that does not exist')
  call pvec_vector_rebalance(vec, flags=PVEC_MAP_REMOVE_OUTSIDE, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'rebalance: unknown flags')
  call pvec_vector_get_imbalance(vec, ci, flags=PVEC_MAP_REMOVE_OUTSIDE, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'get_imbalance: unknown flags')
  call check(ci == -1, 'refusals: count_imbalance untouched')

  ! A negative, then a NaN weight on the last rank only: every rank refuses, naming that rank.
  call pvec_vector_get_size(vec, n)
  call pvec_host_view(vec, p_cost, cost)
  if (rank == last) call check(n > 0, 'the last rank holds particles after the rebalance')
  write (tag, '(i0)') last
  if (rank == last) cost(1) = -1
  msg = 'untouched'
  call pvec_vector_get_imbalance(vec, ci, wi, weight=p_cost, stat=st, errmsg=msg)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'a negative weight on the last rank')
  call check(index(msg, 'rank '//trim(tag)) > 0, 'negative weight: the message names the rank')
  call check(ci == -1 .and. wi == -1, 'negative weight: results untouched')
  call pvec_vector_rebalance(vec, weight=p_cost, before=b, after=a, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'rebalance: a negative weight')
  call check(b == -1 .and. a == -1, 'rebalance, negative weight: untouched')
  if (rank == last) cost(1) = nan
  call pvec_vector_rebalance(vec, weight=p_cost, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'rebalance: a NaN weight')
  call pvec_vector_get_generation(vec, gen2)
  call check(gen2 == gen, 'refused rebalances change nothing')
  if (rank == last) cost(1) = 1
  call pvec_vector_get_imbalance(vec, ci, wi, weight=p_cost, stat=st)
  call check_status(st, PVEC_SUCCESS, 'the weight repaired')

  call pvec_vector_get_imbalance(nothing, ci, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_HANDLE, 'get_imbalance: NULL handle')
  call pvec_vector_rebalance(nothing, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_HANDLE, 'rebalance: NULL handle')

  ! A second vector that follows vec: its subdomain is vec's, also after vec's rebalance; its
  ! own rebalance is refused (STATE); unfollowed, it may rebalance.
  desc%n_particles = 0
  call pvec_schema_create(s)
  call pvec_vector_create(desc, s, tracer)
  call pvec_schema_destroy(s)
  call pvec_vector_follow(tracer, vec)
  call pvec_vector_rebalance(vec, threshold=1d0)
  call pvec_vector_get_subdomain(vec, lo, hi)
  call pvec_vector_get_subdomain(tracer, lo2, hi2)
  call check(all(lo == lo2) .and. all(hi == hi2), 'follow: the same subdomain')
  call pvec_vector_rebalance(tracer, stat=st)
  call check_status(st, PVEC_ERROR_STATE, 'follow: a follower cannot rebalance')
  call pvec_vector_follow(tracer, tracer, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'follow: not itself')
  call pvec_vector_unfollow(tracer)
  call pvec_vector_rebalance(tracer, stat=st)
  call check_status(st, PVEC_SUCCESS, 'unfollowed: may rebalance')
  call pvec_vector_destroy(tracer)

  call pvec_vector_destroy(vec)
  call pvec_finalize()
  call MPI_Finalize(ierr)
  if (rank == 0) print '(a)', 'test_balance: OK'

contains

  !> The global count and the id checksum are those placed, every local particle lies in this
  !> rank's subdomain and is owned by this rank.
  subroutine check_placed(what)
    character(*), intent(in) :: what
    integer(c_int64_t) :: k, total, idsum
    real(c_double) :: sl(2), sh(2), p(2)
    integer :: owner
    call pvec_vector_get_size(vec, n)
    call pvec_host_view(vec, PVEC_POS, x)   ! map and rebalance invalidate views
    call pvec_host_view(vec, p_id, id)
    total = n
    idsum = sum(id(1:n))
    call pvec_vector_allreduce(vec, total, PVEC_REDUCE_ADD)
    call pvec_vector_allreduce(vec, idsum, PVEC_REDUCE_ADD)
    call check(total == np, what//': the global count unchanged')
    call check(idsum == np * (np - 1) / 2, what//': the ids unchanged')
    call pvec_vector_get_subdomain(vec, sl, sh)
    do k = 1, n
      call check(all(x(k, :) >= sl) .and. all(x(k, :) < sh), what//': particle in subdomain')
      p = x(k, :)
      call pvec_vector_get_owner_rank(vec, p, owner)
      call check(owner == rank, what//': owned by this rank')
    end do
  end subroutine check_placed
end program test_balance
