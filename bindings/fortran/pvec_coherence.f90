!> pvec_coherence -- mirror coherence (pvec.h section 6, "Mirror coherence"): which mirror holds
!> the newest values of each property, the caller's declarations of its own writes, the copies
!> that make a mirror current, and automatic synchronisation.
!>
!> pvec knows which mirror each of its operations wrote (pvec_map, pvec_ghost_get,
!> pvec_ghost_put, sorts, pvec_vector_remove_marked and spawn commits write the mirror they run
!> on; a transfer makes both equal). An operation that would read a property on the older
!> mirror returns PVEC_ERROR_STALE_MIRROR and changes nothing, unless automatic
!> synchronisation is on. Writes through views (pvec_host_view, device pointers) are invisible
!> to pvec until declared with pvec_vector_mark_modified.
!>
!> Row sets (flags): PVEC_ROWS_LOCAL (the local particles' rows), PVEC_ROWS_GHOST (the ghosts'
!> rows); neither: both. Or-ed with PVEC_ON_DEVICE for the device mirror.
module pvec_coherence
  use, intrinsic :: iso_c_binding
  use pvec_capi
  use pvec_base, only: flags_arg, pvec_vector, finish_c, props_arg
  implicit none
  private
  public :: pvec_vector_mark_modified, pvec_vector_sync, pvec_vector_get_mirror_state
  public :: pvec_vector_set_auto_sync

contains

  !> call pvec_vector_mark_modified(vec [, props] [, flags] [, stat] [, errmsg])
  !> Declare that your code wrote the listed properties (PVEC_POS: the positions; absent: every
  !> property and the positions; a zero-size list: none) on the host mirror (flags
  !> PVEC_ON_DEVICE: the device mirror), in the row sets of flags: that mirror now holds their
  !> newest values, and reading the other mirror before a copy is refused. Like Kokkos
  !> DualView's modify. Local; invalidates nothing. Errors: INVALID_ARGUMENT (a repeated index,
  !> unknown flag), OUT_OF_RANGE.
  subroutine pvec_vector_mark_modified(vec, props, flags, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer, intent(in), optional :: props(:)
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int), allocatable, target :: buf(:)
    type(c_ptr) :: p
    integer(c_int) :: n, f
    f = flags_arg(flags)
    call props_arg(props, buf, p, n)
    call finish_c(c_pvec_vector_mark_modified(vec%h, p, n, f), stat, errmsg)
  end subroutine pvec_vector_mark_modified

  !> call pvec_vector_sync(vec [, props] [, flags] [, stat] [, errmsg])
  !> Make the listed properties (absent: all and the positions) current on the host mirror
  !> (flags PVEC_ON_DEVICE: the device mirror): copy, of the row sets in flags, only those
  !> older there than on the other mirror. Nothing is copied when they are current. Like Kokkos
  !> DualView's sync. Local; blocks until the copies are done; invalidates nothing. Errors:
  !> those of pvec_host_to_device.
  subroutine pvec_vector_sync(vec, props, flags, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer, intent(in), optional :: props(:)
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int), allocatable, target :: buf(:)
    type(c_ptr) :: p
    integer(c_int) :: n, f
    f = flags_arg(flags)
    call props_arg(props, buf, p, n)
    call finish_c(c_pvec_vector_sync(vec%h, p, n, f), stat, errmsg)
  end subroutine pvec_vector_sync

  !> call pvec_vector_get_mirror_state(vec, prop, state [, stat] [, errmsg])
  !> Which mirror holds the newest values of property prop (PVEC_POS: the positions): state
  !> receives PVEC_MIRROR_* bits (PVEC_MIRROR_HOST_LOCAL, _DEVICE_LOCAL, _HOST_GHOST,
  !> _DEVICE_GHOST; both of a row set when the mirrors are equal); test them with iand. Local.
  !> Errors: OUT_OF_RANGE.
  subroutine pvec_vector_get_mirror_state(vec, prop, state, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer, intent(in) :: prop
    integer, intent(out) :: state
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int) :: s, st
    s = 0
    st = c_pvec_vector_get_mirror_state(vec%h, int(prop, c_int), s)
    state = s
    call finish_c(st, stat, errmsg)
  end subroutine pvec_vector_get_mirror_state

  !> call pvec_vector_set_auto_sync(vec, on [, stat] [, errmsg])
  !> on = .true.: an operation that would read a property on the older mirror first copies the
  !> newer rows over (a blocking copy) instead of returning PVEC_ERROR_STALE_MIRROR. Off by
  !> default. Local.
  subroutine pvec_vector_set_auto_sync(vec, on, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    logical, intent(in) :: on
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    call finish_c(c_pvec_vector_set_auto_sync(vec%h, merge(1_c_int, 0_c_int, on)), stat, errmsg)
  end subroutine pvec_vector_set_auto_sync
end module pvec_coherence
