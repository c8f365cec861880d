!> pvec_distribution -- the vector over MPI ranks: ranks, owners, pvec_map, ghosts (blocking and
!> split-phase), and the figures of the last of these calls (pvec.h sections 7 and 8).
!> Reductions over the ranks are pvec_reductions'; the subdomain query is pvec_vectors'.
module pvec_distribution
  use, intrinsic :: iso_c_binding
  use pvec_capi
  use pvec_base, only: pvec_vector, finish, finish_c, finish_narrow, props_arg, &
                       check_dim_arrays, flags_arg
  implicit none
  private
  public :: pvec_vector_get_rank, pvec_vector_get_nranks, pvec_vector_get_owner_rank
  public :: pvec_map, pvec_ghost_get, pvec_ghost_put, pvec_vector_get_op_stats
  public :: pvec_ghost_get_begin, pvec_ghost_get_end, pvec_ghost_put_begin, pvec_ghost_put_end

  interface pvec_map
    module procedure map_i64, map_i32
  end interface

contains

  !> This process's rank in the vector's communicator (0-based, as MPI's).
  subroutine pvec_vector_get_rank(vec, rank, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer, intent(out) :: rank
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int) :: r, st
    r = -1
    st = c_pvec_vector_get_rank(vec%h, r)
    rank = r
    call finish_c(st, stat, errmsg)
  end subroutine pvec_vector_get_rank

  !> Number of ranks of the vector's communicator.
  subroutine pvec_vector_get_nranks(vec, size, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer, intent(out) :: size
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int) :: s, st
    s = 0
    st = c_pvec_vector_get_nranks(vec%h, s)
    size = s
    call finish_c(st, stat, errmsg)
  end subroutine pvec_vector_get_nranks

  !> Rank (0-based) owning point x(1:dim).
  subroutine pvec_vector_get_owner_rank(vec, x, rank, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    real(c_double), intent(in) :: x(:)
    integer, intent(out) :: rank
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    real(c_double) :: buf(PVEC_MAX_DIM)
    integer(c_int) :: r, st, dim
    dim = check_dim_arrays(vec, 'pvec_vector_get_owner_rank', st, x)
    rank = -1
    if (st /= PVEC_SUCCESS) then
      call finish(st, stat, errmsg)
      return
    end if
    buf = 0
    buf(1:dim) = x(1:dim)
    r = -1
    st = c_pvec_vector_get_owner_rank(vec%h, buf, r)
    rank = r
    call finish_c(st, stat, errmsg)
  end subroutine pvec_vector_get_owner_rank

  !> Send every particle to the rank owning its position (collective; invalidates views).
  !> flags: PVEC_ON_DEVICE, PVEC_MAP_REMOVE_OUTSIDE. n_removed: global count removed.
  subroutine map_i64(vec, flags, n_removed, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer, intent(in), optional :: flags
    integer(c_int64_t), intent(out), optional :: n_removed
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int64_t), target :: nr
    integer(c_int) :: f, st
    f = flags_arg(flags)
    nr = 0
    st = c_pvec_map(vec%h, f, c_loc(nr))
    if (present(n_removed)) n_removed = nr
    call finish_c(st, stat, errmsg)
  end subroutine map_i64

  !> n_removed as a default integer (PVEC_ERROR_OVERFLOW after the map if the count does not fit).
  subroutine map_i32(vec, flags, n_removed, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer, intent(in), optional :: flags
    integer(c_int32_t), intent(out) :: n_removed
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int64_t), target :: nr
    integer(c_int) :: f, st
    f = flags_arg(flags)
    nr = 0
    st = c_pvec_map(vec%h, f, c_loc(nr))
    call finish_narrow(st, nr, n_removed, 'pvec_map', stat, errmsg)
  end subroutine map_i32

  !> Replace the ghosts by copies of the particles within ghost_width of this rank's subdomain
  !> (collective; invalidates views). props absent: all properties.
  subroutine pvec_ghost_get(vec, props, flags, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer, intent(in), optional :: props(:)
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    call ghost_get_call(vec, .false., props, flags, stat, errmsg)
  end subroutine pvec_ghost_get

  !> Send ghost values of the listed properties (absent: all) back to their owners and combine
  !> them with op (PVEC_REDUCE_*). Collective. Note the order: op comes before the optional
  !> props, unlike C, so that `call pvec_ghost_put(vec, PVEC_REDUCE_ADD)` works.
  subroutine pvec_ghost_put(vec, op, props, flags, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer, intent(in) :: op
    integer, intent(in), optional :: props(:)
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    call ghost_put_call(vec, .false., op, props, flags, stat, errmsg)
  end subroutine pvec_ghost_put

  ! ---- Split-phase ghost exchange (docs/overlap.md) ------------------------------------------
  ! pvec_ghost_get / pvec_ghost_put in two calls, so that the program computes while the
  ! messages travel; the result is bitwise the blocking call's. Every rank calls begin
  ! (collective), then end. While one is in flight, pvec_map, the ghost exchanges (and their
  ! begins), pvec_vector_sort, append, remove, resize, reserve, shrink_to_fit, removal by mark,
  ! spawns, ids_init, rebalance, follow, the transfers, sync and neighbour list builds return
  ! PVEC_ERROR_STATE and change nothing; queries, reductions, mark_modified and the writers
  ! work. Other vectors are independent. pvec_vector_destroy in flight completes it first.

  !> First half of pvec_ghost_get (the same arguments; collective): plan, pack and post the
  !> messages. May grow the vector (invalidates views, as pvec_ghost_get does). Until
  !> pvec_ghost_get_end the local rows may be read and written on either mirror (what travels
  !> was packed here); the ghost rows must not be touched, and pvec_vector_get_ghost_size
  !> still gives the previous count. PVEC_ERROR_STATE: an exchange in flight, a spawn open.
  subroutine pvec_ghost_get_begin(vec, props, flags, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer, intent(in), optional :: props(:)
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    call ghost_get_call(vec, .true., props, flags, stat, errmsg)
  end subroutine pvec_ghost_get_begin

  !> Complete pvec_ghost_get_begin and write the ghost rows. Local, but every rank must call
  !> it. PVEC_ERROR_STATE: no pvec_ghost_get_begin in flight; after MPI or CUDA errors the
  !> vector has no ghosts and no plan.
  subroutine pvec_ghost_get_end(vec, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    call finish_c(c_pvec_ghost_get_end(vec%h), stat, errmsg)
  end subroutine pvec_ghost_get_end

  !> First half of pvec_ghost_put (the same arguments and order: op before the optional props;
  !> collective): pack the ghost rows of the listed properties (absent: all) and post them.
  !> Until pvec_ghost_put_end their local rows must not be read or written (they are combined
  !> at end) nor their ghost rows written; every other property's rows are free.
  !> PVEC_ERROR_STATE: an exchange in flight.
  subroutine pvec_ghost_put_begin(vec, op, props, flags, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer, intent(in) :: op
    integer, intent(in), optional :: props(:)
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    call ghost_put_call(vec, .true., op, props, flags, stat, errmsg)
  end subroutine pvec_ghost_put_begin

  !> Complete pvec_ghost_put_begin: combine the values into the local rows. Local, but every
  !> rank must call it. PVEC_ERROR_STATE: no pvec_ghost_put_begin in flight; after MPI or CUDA
  !> errors the listed properties' local rows are unspecified.
  subroutine pvec_ghost_put_end(vec, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    call finish_c(c_pvec_ghost_put_end(vec%h), stat, errmsg)
  end subroutine pvec_ghost_put_end

  !> Figures of the last distribution call on vec (zeros before the first).
  subroutine pvec_vector_get_op_stats(vec, stats, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    type(pvec_op_stats), intent(out) :: stats
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    stats%struct_size = c_sizeof(stats)
    call finish_c(c_pvec_vector_get_op_stats(vec%h, stats), stat, errmsg)
  end subroutine pvec_vector_get_op_stats

  ! pvec_ghost_get (begin false) or pvec_ghost_get_begin, with the wrappers' arguments.
  subroutine ghost_get_call(vec, begin, props, flags, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    logical, intent(in) :: begin
    integer, intent(in), optional :: props(:)
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int), allocatable, target :: buf(:)
    type(c_ptr) :: p
    integer(c_int) :: n, f
    f = flags_arg(flags)
    call props_arg(props, buf, p, n)
    if (begin) then
      call finish_c(c_pvec_ghost_get_begin(vec%h, p, n, f), stat, errmsg)
    else
      call finish_c(c_pvec_ghost_get(vec%h, p, n, f), stat, errmsg)
    end if
  end subroutine ghost_get_call

  ! pvec_ghost_put (begin false) or pvec_ghost_put_begin, with the wrappers' arguments.
  subroutine ghost_put_call(vec, begin, op, props, flags, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    logical, intent(in) :: begin
    integer, intent(in) :: op
    integer, intent(in), optional :: props(:)
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int), allocatable, target :: buf(:)
    type(c_ptr) :: p
    integer(c_int) :: n, f
    f = flags_arg(flags)
    call props_arg(props, buf, p, n)
    if (begin) then
      call finish_c(c_pvec_ghost_put_begin(vec%h, p, n, int(op, c_int), f), stat, errmsg)
    else
      call finish_c(c_pvec_ghost_put(vec%h, p, n, int(op, c_int), f), stat, errmsg)
    end if
  end subroutine ghost_put_call

end module pvec_distribution
