!> pvec_balance -- load balance (pvec.h section 11, docs/balance.md): how evenly the particles,
!> or the work they cost, are spread over the vector's ranks (pvec_vector_get_imbalance), and a
!> decomposition that follows them (pvec_vector_rebalance). Both are collective: every rank
!> calls them with the same arguments, and an error on one rank is an error on every rank.
!>
!> An imbalance is the largest rank's share over the mean: 1 is perfect balance, the rank count
!> the worst (one rank holds everything); 1 when there is no particle, or no weight, anywhere.
!> Ghosts do not count. A weight is the index (0-based, as in C) of a scalar float32 or float64
!> property holding each particle's cost, finite and >= 0; weight absent (or PVEC_NO_WEIGHT)
!> counts particles instead.
!>
!> Argument order: unlike C, the required count_imbalance of pvec_vector_get_imbalance comes
!> before the optional weight_imbalance, weight and flags; pvec_vector_rebalance follows C, with
!> every argument but vec optional. The results are real(c_double) and are written only on
!> success, as in C.
module pvec_balance
  use, intrinsic :: iso_c_binding
  use pvec_capi
  use pvec_base, only: flags_arg, pvec_vector, finish_c
  implicit none
  private
  public :: pvec_vector_get_imbalance, pvec_vector_rebalance, pvec_vector_follow, &
            pvec_vector_unfollow

contains

  !> call pvec_vector_get_imbalance(vec, count_imbalance [, weight_imbalance] [, weight]
  !> [, flags] [, stat] [, errmsg]): count_imbalance = the largest local particle count over the
  !> mean local count; weight_imbalance = the same of each rank's sum of property weight (absent
  !> or PVEC_NO_WEIGHT: the counts again). flags: PVEC_ON_DEVICE (read the weights on the device
  !> mirror; only the sums reach the host). Collective: every rank passes the same weight and
  !> flags. Changes nothing, invalidates nothing; on error neither result is written.
  !> Errors: INVALID_HANDLE; OUT_OF_RANGE (weight is not a property, PVEC_NO_WEIGHT or
  !> PVEC_POS); INVALID_ARGUMENT (weight is PVEC_POS or not a scalar; a weight negative, NaN or
  !> infinite on some rank: every rank returns it, the message naming the lowest such rank;
  !> unknown flags); DTYPE_MISMATCH (the weight is not float32 or float64); CUDA; MPI.
  subroutine pvec_vector_get_imbalance(vec, count_imbalance, weight_imbalance, weight, flags, &
                                       stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    real(c_double), intent(inout) :: count_imbalance
    real(c_double), intent(inout), optional :: weight_imbalance
    integer, intent(in), optional :: weight
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    real(c_double), target :: c, w
    integer(c_int) :: wp, f, st
    wp = PVEC_NO_WEIGHT
    if (present(weight)) wp = int(weight, c_int)
    f = flags_arg(flags)
    c = 1
    w = 1
    st = c_pvec_vector_get_imbalance(vec%h, wp, f, c_loc(c), c_loc(w))
    if (st == PVEC_SUCCESS) then
      count_imbalance = c
      if (present(weight_imbalance)) weight_imbalance = w
    end if
    call finish_c(st, stat, errmsg)
  end subroutine pvec_vector_get_imbalance

  !> call pvec_vector_rebalance(vec [, weight] [, threshold] [, flags] [, before] [, after]
  !> [, stat] [, errmsg]): when the imbalance (of the sums of property weight; absent or
  !> PVEC_NO_WEIGHT: of the counts) exceeds threshold (real(c_double), finite, >= 1; absent: 1,
  !> which rebalances whenever anything is uneven), replace the decomposition by a rectilinear
  !> grid of one box per rank whose cut planes split the weight evenly, and map the particles to
  !> it (one pvec_map). pvec_vector_get_subdomain, pvec_vector_get_owner_rank, ghosts, cell and
  !> Verlet lists and the output keep their meaning. Deterministic: the same particles and
  !> weights give the same boxes. before: the imbalance measured first; after: the one of the new
  !> boxes (equal to before when nothing was done); both real(c_double), written only on
  !> success. flags: PVEC_ON_DEVICE (read the positions and weights on the device mirror, and
  !> map there). Collective: every rank passes the same weight, threshold and flags. When it
  !> rebalances it invalidates what pvec_map invalidates (views, pointers, ghosts, lists);
  !> otherwise it changes nothing. Errors: those of pvec_vector_get_imbalance; INVALID_ARGUMENT
  !> (threshold below 1 or not finite); those of pvec_map (PARTICLES_OUTSIDE: the decomposition
  !> and the particles stay as they were).
  subroutine pvec_vector_rebalance(vec, weight, threshold, flags, before, after, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer, intent(in), optional :: weight
    real(c_double), intent(in), optional :: threshold
    integer, intent(in), optional :: flags
    real(c_double), intent(inout), optional :: before, after
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    real(c_double) :: t
    real(c_double), target :: b, a
    integer(c_int) :: wp, f, st
    wp = PVEC_NO_WEIGHT
    if (present(weight)) wp = int(weight, c_int)
    t = 1
    if (present(threshold)) t = threshold
    f = flags_arg(flags)
    b = 1
    a = 1
    st = c_pvec_vector_rebalance(vec%h, wp, t, f, c_loc(b), c_loc(a))
    if (st == PVEC_SUCCESS) then
      if (present(before)) before = b
      if (present(after)) after = a
    end if
    call finish_c(st, stat, errmsg)
  end subroutine pvec_vector_rebalance

  !> call pvec_vector_follow(vec, leader [, flags] [, stat] [, errmsg])
  !> vec takes leader's boxes now and at every later pvec_vector_rebalance of leader, which maps
  !> vec too (pvec_vector_follow in pvec.h): fluid and wall particles near each other on one
  !> rank, and Verlet lists between them (pvec_verlet_options%source). flags: PVEC_ON_DEVICE
  !> (map the device mirror). Collective. Errors: INVALID_ARGUMENT (another dimension, domain,
  !> boundary or set of ranks; vec itself), STATE (vec is followed; leader follows another),
  !> those of pvec_map.
  subroutine pvec_vector_follow(vec, leader, flags, stat, errmsg)
    type(pvec_vector), intent(in) :: vec, leader
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int) :: f
    f = flags_arg(flags)
    call finish_c(c_pvec_vector_follow(vec%h, leader%h, f), stat, errmsg)
  end subroutine pvec_vector_follow

  !> call pvec_vector_unfollow(vec [, stat] [, errmsg]): stop following; the boxes stay.
  !> Collective.
  subroutine pvec_vector_unfollow(vec, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    call finish_c(c_pvec_vector_follow(vec%h, c_null_ptr, 0_c_int), stat, errmsg)
  end subroutine pvec_vector_unfollow
end module pvec_balance
