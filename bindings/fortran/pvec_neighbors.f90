!> pvec_neighbors -- neighbour search (pvec.h section 10; docs/fortran.md). Local calls, except
!> pvec_verlet_check (collective). A list is stale after pvec_map, pvec_vector_sort (when rows
!> moved), pvec_ghost_get without PVEC_GHOST_REUSE_PLAN and any change of the particles: the
!> _get and _arrays calls then give PVEC_ERROR_STATE until the list is rebuilt. Arrays obtained
!> from a list are valid until it is rebuilt or destroyed. Rows in the arrays are 0-based C
!> values: Fortran particle index = row + 1.
!>
!> The structs (bind(C) types of pvec_capi): pvec_cell_list_info (pvec_cell_list_get_info):
!> origin(d+1), width(d+1), inv_width(d+1), dims(d+1) are C's [d]. Its three arrays are C
!> pointers: in host memory (on_device == 0: built on the host mirror, or on the device mirror
!> of the host backend) pvec_cell_list_arrays maps them to Fortran arrays; with on_device /= 0
!> they are CUDA addresses for CUDA Fortran / OpenACC. They hold 0-based C values: cell c
!> (0-based, c = (c0*dims(2) + c1)*dims(3) + c2) is cell_offsets(c+1) of the Fortran array, and
!> a row r in cell_particles is Fortran particle r + 1. pvec_verlet_info (pvec_verlet_get_info):
!> offsets int64, n + 1 entries; neighbors int32, n_pairs entries, 0-based rows (local or
!> ghost); see pvec_verlet_arrays for the loop.
module pvec_neighbors
  use, intrinsic :: iso_c_binding
  use pvec_capi
  use pvec_base, only: flags_arg, pvec_vector, pvec_cell_list, pvec_verlet, finish_c, finish_f
  implicit none
  private
  public :: pvec_cell_list_create, pvec_cell_list_build, pvec_cell_list_get_info
  public :: pvec_cell_list_destroy, pvec_cell_list_arrays, pvec_vector_sort
  public :: pvec_verlet_create, pvec_verlet_build, pvec_verlet_get_info, pvec_verlet_check
  public :: pvec_verlet_destroy, pvec_verlet_arrays

contains

  !> Build a cell list of vec's rows for cutoff (cells at least cutoff / cells_per_cutoff wide,
  !> cells_per_cutoff in 1..8, default 1). flags: PVEC_ON_DEVICE, PVEC_CELLS_GHOSTS (include the
  !> ghosts). Errors: PVEC_ERROR_INVALID_ARGUMENT (cutoff not positive and finite or above the
  !> ghost width, cells_per_cutoff out of range, unknown flags, a NaN position),
  !> PVEC_ERROR_NOT_SUPPORTED (dim 4), PVEC_ERROR_INVALID_HANDLE, OUT_OF_MEMORY, CUDA.
  subroutine pvec_cell_list_create(vec, cutoff, list, cells_per_cutoff, flags, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    real(c_double), intent(in) :: cutoff
    type(pvec_cell_list), intent(out) :: list
    integer, intent(in), optional :: cells_per_cutoff, flags
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int) :: k, f
    type(c_ptr) :: h
    k = 1
    if (present(cells_per_cutoff)) k = int(cells_per_cutoff, c_int)
    f = flags_arg(flags)
    h = c_null_ptr
    list%h = c_null_ptr
    k = c_pvec_cell_list_create(vec%h, cutoff, k, f, h)
    if (k == PVEC_SUCCESS) list%h = h
    call finish_c(k, stat, errmsg)
  end subroutine pvec_cell_list_create

  !> Rebuild the list from the vector's rows as they are now (same cutoff and flags).
  subroutine pvec_cell_list_build(list, stat, errmsg)
    type(pvec_cell_list), intent(in) :: list
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    call finish_c(c_pvec_cell_list_build(list%h), stat, errmsg)
  end subroutine pvec_cell_list_build

  !> The list's geometry and array pointers. PVEC_ERROR_STATE when stale.
  subroutine pvec_cell_list_get_info(list, info, stat, errmsg)
    type(pvec_cell_list), intent(in) :: list
    type(pvec_cell_list_info), intent(out) :: info
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    info%struct_size = c_sizeof(info)
    call finish_c(c_pvec_cell_list_get_info(list%h, info), stat, errmsg)
  end subroutine pvec_cell_list_get_info

  !> Free the list; list becomes the NULL handle.
  subroutine pvec_cell_list_destroy(list, stat, errmsg)
    type(pvec_cell_list), intent(inout) :: list
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int) :: st
    st = c_pvec_cell_list_destroy(list%h)
    if (st == PVEC_SUCCESS) list%h = c_null_ptr
    call finish_c(st, stat, errmsg)
  end subroutine pvec_cell_list_destroy

  !> The arrays of a cell list built on the host mirror, as Fortran pointers (no copy):
  !> cell_offsets(1:ncells+1), cell_particles(1:n_entries), local_offsets(1:ncells+1), holding
  !> C's 0-based values. The rows of 0-based cell c are
  !>   do e = cell_offsets(c+1) + 1, cell_offsets(c+2);  i = cell_particles(e) + 1
  !> A list whose arrays are CUDA memory (info%on_device /= 0: built with PVEC_ON_DEVICE on the
  !> CUDA backend) gives PVEC_ERROR_INVALID_ARGUMENT: use the type(c_ptr) fields of
  !> pvec_cell_list_get_info in CUDA Fortran or OpenACC. A stale list gives STATE.
  subroutine pvec_cell_list_arrays(list, cell_offsets, cell_particles, local_offsets, info, &
                                   stat, errmsg)
    type(pvec_cell_list), intent(in) :: list
    integer(c_int32_t), pointer, intent(out) :: cell_offsets(:), cell_particles(:)
    integer(c_int32_t), pointer, intent(out), optional :: local_offsets(:)
    type(pvec_cell_list_info), intent(out), optional :: info
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    type(pvec_cell_list_info) :: i
    integer(c_int) :: st
    integer(c_int32_t), pointer, save :: none(:) => null()
    cell_offsets => null()
    cell_particles => null()
    if (present(local_offsets)) local_offsets => null()
    i%struct_size = c_sizeof(i)
    st = c_pvec_cell_list_get_info(list%h, i)
    if (present(info)) info = i
    if (st /= PVEC_SUCCESS) then
      call finish_c(st, stat, errmsg)
      return
    end if
    if (i%on_device /= 0) then
      call finish_f(PVEC_ERROR_INVALID_ARGUMENT, 'pvec_cell_list_arrays: the arrays are CUDA '// &
                    'memory: use the device pointers of pvec_cell_list_get_info', &
                    stat, errmsg)
      return
    end if
    call c_f_pointer(i%cell_offsets, cell_offsets, [i%ncells + 1])
    if (i%n_entries > 0) then
      call c_f_pointer(i%cell_particles, cell_particles, [i%n_entries])
    else  ! no rows: the C pointer may be NULL
      if (.not. associated(none)) allocate (none(0))
      cell_particles => none
    end if
    if (present(local_offsets)) call c_f_pointer(i%local_offsets, local_offsets, [i%ncells + 1])
    call finish_c(st, stat, errmsg)
  end subroutine pvec_cell_list_arrays

  !> Reorder the local particles by cells of width cell_width (every property and the
  !> positions, stably) on the host mirror (flags PVEC_ON_DEVICE: the device mirror);
  !> PVEC_SORT_MORTON: Z-order of cells; PVEC_SORT_HALO_FIRST: the cells within a ghost width
  !> of the subdomain's faces first, grouped by face (not with Morton); PVEC_SORT_BOTH_MIRRORS:
  !> permute the other mirror too.
  !> moved = .true. when rows moved (views and lists are then stale, the ghost plan is
  !> forgotten), .false. when already in cell order. Local. Errors: PVEC_ERROR_INVALID_ARGUMENT
  !> (cell_width not positive and finite, unknown flags, a NaN position), NOT_SUPPORTED; the
  !> vector is unchanged then.
  subroutine pvec_vector_sort(vec, cell_width, flags, moved, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    real(c_double), intent(in) :: cell_width
    integer, intent(in), optional :: flags
    logical, intent(out), optional :: moved
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int), target :: m
    integer(c_int) :: f, st
    f = flags_arg(flags)
    m = 0
    st = c_pvec_vector_sort(vec%h, cell_width, f, c_loc(m))
    if (present(moved)) moved = m /= 0
    call finish_c(st, stat, errmsg)
  end subroutine pvec_vector_sort

  !> Build a Verlet list of the local particles over local and ghost rows: the pairs closer
  !> than cutoff + skin (at most the ghost width), from cells_per_cutoff (default 1) cells per
  !> cutoff + skin. flags: PVEC_ON_DEVICE, PVEC_VERLET_HALF (each pair once). Errors:
  !> PVEC_ERROR_INVALID_ARGUMENT (cutoff not positive, skin negative, cutoff + skin above the
  !> ghost width, unknown flags, a NaN position), STATE (a half list whose ghosts do not come from
  !> the last valid ghost plan), NOT_SUPPORTED, INVALID_HANDLE, OUT_OF_MEMORY, CUDA.
  !> key_prop, skip_prop (0-based property indices, as in C; pvec_verlet_create_with): each
  !> particle's neighbours in ascending key (a scalar integer id), and pairs of two particles
  !> flagged nonzero in skip_prop left out. Both must be current on the ghost rows (STATE); a
  !> property that is no scalar integer: OUT_OF_RANGE, DTYPE_MISMATCH or INVALID_ARGUMENT.
  !> source: list the neighbours in another vector of the same boxes (pvec_vector_follow),
  !> rows of source; a full list, key_prop then a property of source, no skip_prop.
  subroutine pvec_verlet_create(vec, cutoff, skin, list, cells_per_cutoff, flags, key_prop, &
                                skip_prop, source, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    type(pvec_vector), intent(in), optional :: source
    real(c_double), intent(in) :: cutoff, skin
    type(pvec_verlet), intent(out) :: list
    integer, intent(in), optional :: cells_per_cutoff, flags, key_prop, skip_prop
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int) :: k, f
    type(c_ptr) :: h
    type(pvec_verlet_options) :: o
    k = 1
    if (present(cells_per_cutoff)) k = int(cells_per_cutoff, c_int)
    f = flags_arg(flags)
    h = c_null_ptr
    list%h = c_null_ptr
    if (present(key_prop) .or. present(skip_prop) .or. present(source)) then
      o%struct_size = c_sizeof(o)
      o%cutoff = cutoff
      o%skin = skin
      o%cells_per_cutoff = k
      o%flags = f
      if (present(key_prop)) o%key_prop = int(key_prop, c_int)
      if (present(skip_prop)) o%skip_prop = int(skip_prop, c_int)
      if (present(source)) o%source = source%h
      k = c_pvec_verlet_create_with(vec%h, o, h)
    else
      k = c_pvec_verlet_create(vec%h, cutoff, skin, k, f, h)
    end if
    if (k == PVEC_SUCCESS) list%h = h
    call finish_c(k, stat, errmsg)
  end subroutine pvec_verlet_create

  !> Rebuild from the rows as they are now; the positions become check's new reference.
  subroutine pvec_verlet_build(list, stat, errmsg)
    type(pvec_verlet), intent(in) :: list
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    call finish_c(c_pvec_verlet_build(list%h), stat, errmsg)
  end subroutine pvec_verlet_build

  !> The list's sizes and array pointers. PVEC_ERROR_STATE when stale.
  subroutine pvec_verlet_get_info(list, info, stat, errmsg)
    type(pvec_verlet), intent(in) :: list
    type(pvec_verlet_info), intent(out) :: info
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    info%struct_size = c_sizeof(info)
    call finish_c(c_pvec_verlet_get_info(list%h, info), stat, errmsg)
  end subroutine pvec_verlet_get_info

  !> rebuild = .true. when some local particle on some rank moved more than skin / 2 since the
  !> build, or the list is stale. Collective: the same answer on every rank.
  subroutine pvec_verlet_check(list, rebuild, stat, errmsg)
    type(pvec_verlet), intent(in) :: list
    logical, intent(out) :: rebuild
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int) :: r, st
    r = 0
    st = c_pvec_verlet_check(list%h, r)
    rebuild = r /= 0
    call finish_c(st, stat, errmsg)
  end subroutine pvec_verlet_check

  !> Free the list; list becomes the NULL handle.
  subroutine pvec_verlet_destroy(list, stat, errmsg)
    type(pvec_verlet), intent(inout) :: list
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int) :: st
    st = c_pvec_verlet_destroy(list%h)
    if (st == PVEC_SUCCESS) list%h = c_null_ptr
    call finish_c(st, stat, errmsg)
  end subroutine pvec_verlet_destroy

  !> The arrays of a Verlet list built on the host mirror, as Fortran pointers (no copy):
  !> offsets(1:n+1) (int64) and neighbors(1:n_pairs) (int32), holding C's 0-based values.
  !> The neighbours of (1-based) local particle i:
  !>   do e = offsets(i) + 1, offsets(i+1);  j = neighbors(e) + 1;  ...  end do
  !> (j > n_local: a ghost). A list whose arrays are CUDA memory (info%on_device /= 0: built
  !> with PVEC_ON_DEVICE on the CUDA backend) gives PVEC_ERROR_INVALID_ARGUMENT: use the
  !> type(c_ptr) fields of pvec_verlet_get_info. A stale list gives STATE.
  subroutine pvec_verlet_arrays(list, offsets, neighbors, info, stat, errmsg)
    type(pvec_verlet), intent(in) :: list
    integer(c_int64_t), pointer, intent(out) :: offsets(:)
    integer(c_int32_t), pointer, intent(out) :: neighbors(:)
    type(pvec_verlet_info), intent(out), optional :: info
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    type(pvec_verlet_info) :: i
    integer(c_int) :: st
    integer(c_int32_t), pointer, save :: none(:) => null()
    offsets => null()
    neighbors => null()
    i%struct_size = c_sizeof(i)
    st = c_pvec_verlet_get_info(list%h, i)
    if (present(info)) info = i
    if (st /= PVEC_SUCCESS) then
      call finish_c(st, stat, errmsg)
      return
    end if
    if (i%on_device /= 0) then
      call finish_f(PVEC_ERROR_INVALID_ARGUMENT, 'pvec_verlet_arrays: the arrays are CUDA '// &
                    'memory: use the device pointers of pvec_verlet_get_info', &
                    stat, errmsg)
      return
    end if
    call c_f_pointer(i%offsets, offsets, [i%n + 1])
    if (i%n_pairs > 0) then
      call c_f_pointer(i%neighbors, neighbors, [i%n_pairs])
    else  ! no pairs: the C pointer may be NULL
      if (.not. associated(none)) allocate (none(0))
      neighbors => none
    end if
    call finish_c(st, stat, errmsg)
  end subroutine pvec_verlet_arrays
end module pvec_neighbors
