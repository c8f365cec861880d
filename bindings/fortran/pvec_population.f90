!> pvec_population -- particles removed and created on one mirror (pvec.h section 4, "Removal by
!> mark, and particles created by kernels"): removal by mark, spawns (type(pvec_spawner)) and
!> globally unique particle ids. Each call runs on the host mirror, or on the device mirror
!> with flags PVEC_ON_DEVICE, and changes only that mirror: the other one holds older values of
!> every property afterwards (module pvec_coherence).
!>
!> Rows are 1-based as everywhere in the binding: a spawn's slot s (0-based, as the claim
!> counter counts) is row spawner%first + s + 1 of the views. Counts returned (n_removed,
!> n_added) are integer(c_int64_t) or default integers; ids are integer(c_int64_t).
module pvec_population
  use, intrinsic :: iso_c_binding
  use pvec_capi
  use pvec_base, only: flags_arg, pvec_vector, fortran_error, finish, finish_c, &
                       finish_narrow, itoa
  implicit none
  private
  public :: pvec_vector_remove_marked, pvec_vector_remove_marked_async
  public :: pvec_vector_spawn_begin, pvec_vector_spawn_commit, pvec_vector_spawn_cancel
  public :: pvec_spawn_claim, pvec_spawn_id
  public :: pvec_vector_ids_init, pvec_vector_ids_take

  !> call pvec_vector_remove_marked(vec, mark [, flags] [, n_removed] [, stat] [, errmsg])
  !> mark: the index of a scalar property (any dtype; nonzero removes); or an array of one mark
  !> per local particle, integer(c_int32_t) (nonzero removes) or logical (.true. removes), in
  !> host memory (the host mirror, or the device mirror of the host backend); or a type(c_ptr)
  !> to n_local int32 marks in the memory of the mirror the call runs on (device memory with
  !> PVEC_ON_DEVICE and the CUDA backend: CUDA Fortran, OpenACC host_data, C). n_removed:
  !> integer(c_int64_t) or default integer.
  interface pvec_vector_remove_marked
    module procedure remove_prop, remove_prop_n32, remove_i32, remove_i32_n32
    module procedure remove_logical, remove_logical_n32, remove_ptr, remove_ptr_n32
  end interface
  !> call pvec_vector_spawn_begin(vec, max_new, spawner [, flags] [, stat] [, errmsg]):
  !> max_new integer(c_int64_t) or default integer.
  interface pvec_vector_spawn_begin
    module procedure spawn_begin_i64, spawn_begin_i32
  end interface
  !> call pvec_vector_spawn_commit(vec [, n_added] [, stat] [, errmsg]): n_added
  !> integer(c_int64_t) or default integer.
  interface pvec_vector_spawn_commit
    module procedure spawn_commit_i64, spawn_commit_i32
  end interface
  !> call pvec_vector_ids_take(vec, count, first [, stride] [, stat] [, errmsg]): count
  !> integer(c_int64_t) or default integer.
  interface pvec_vector_ids_take
    module procedure ids_take_i64, ids_take_i32
  end interface

contains

  ! ---- Removal by mark ---------------------------------------------------------------------------

  !> The body of every pvec_vector_remove_marked: C's call, then the count.
  subroutine remove_c(vec, prop, marks, flags, nr, st)
    type(pvec_vector), intent(in) :: vec
    integer(c_int), intent(in) :: prop
    type(c_ptr), intent(in) :: marks
    integer, intent(in), optional :: flags
    integer(c_int64_t), intent(out) :: nr
    integer(c_int), intent(out) :: st
    integer(c_int64_t), target :: n
    integer(c_int) :: f
    f = flags_arg(flags)
    n = 0
    st = c_pvec_vector_remove_marked(vec%h, prop, marks, f, c_loc(n))
    nr = n
  end subroutine remove_c

  !> The body of the host-array forms: checks that marks holds one mark per local particle
  !> (else st = INVALID_ARGUMENT with fortran_error saying so), then C's call. End with finish.
  subroutine remove_host(vec, marks, flags, nr, st)
    type(pvec_vector), intent(in) :: vec
    integer(c_int32_t), intent(in) :: marks(:)
    integer, intent(in), optional :: flags
    integer(c_int64_t), intent(out) :: nr
    integer(c_int), intent(out) :: st
    integer(c_int32_t), allocatable, target :: buf(:)
    integer(c_int64_t) :: n
    if (allocated(fortran_error)) deallocate (fortran_error)
    nr = 0
    n = 0
    st = c_pvec_vector_get_size(vec%h, n)
    if (st /= PVEC_SUCCESS) return
    if (size(marks, kind=c_int64_t) /= n) then
      st = PVEC_ERROR_INVALID_ARGUMENT
      fortran_error = 'pvec_vector_remove_marked: marks has '//itoa(size(marks, kind=c_int64_t))// &
                      ' entries, there are '//itoa(n)//' local particles (one mark each)'
      return
    end if
    allocate (buf(max(1, size(marks))))  ! a valid address also for no particle
    buf(1:size(marks)) = marks
    call remove_c(vec, PVEC_NO_PROPERTY, c_loc(buf), flags, nr, st)
  end subroutine remove_host

  !> Remove the local particles whose scalar property mark_prop is nonzero (NaN included), on
  !> the host mirror (flags PVEC_ON_DEVICE: the device mirror). The survivors keep their order,
  !> unless flags has PVEC_REMOVE_FILL_HOLES: then the last survivors fill the first holes.
  !> Only that mirror changes. Drops the ghosts; invalidates views (take them again). Local.
  !> Errors: INVALID_ARGUMENT (PVEC_POS or a property with several components), OUT_OF_RANGE,
  !> STALE_MIRROR (a property is older on that mirror), STATE (a spawn is open), ...
  subroutine remove_prop(vec, mark_prop, flags, n_removed, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer, intent(in) :: mark_prop
    integer, intent(in), optional :: flags
    integer(c_int64_t), intent(out), optional :: n_removed
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int64_t) :: nr
    integer(c_int) :: st
    call remove_c(vec, int(mark_prop, c_int), c_null_ptr, flags, nr, st)
    if (present(n_removed)) n_removed = nr
    call finish_c(st, stat, errmsg)
  end subroutine remove_prop

  subroutine remove_prop_n32(vec, mark_prop, flags, n_removed, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer, intent(in) :: mark_prop
    integer, intent(in), optional :: flags
    integer(c_int32_t), intent(out) :: n_removed
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int64_t) :: nr
    integer(c_int) :: st
    call remove_c(vec, int(mark_prop, c_int), c_null_ptr, flags, nr, st)
    call finish_narrow(st, nr, n_removed, 'pvec_vector_remove_marked', stat, errmsg)
  end subroutine remove_prop_n32

  !> Marks as an integer array in host memory, one per local particle (nonzero removes);
  !> INVALID_ARGUMENT, removing nothing, when size(marks) is not the local count.
  subroutine remove_i32(vec, marks, flags, n_removed, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer(c_int32_t), intent(in) :: marks(:)
    integer, intent(in), optional :: flags
    integer(c_int64_t), intent(out), optional :: n_removed
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int64_t) :: nr
    integer(c_int) :: st
    call remove_host(vec, marks, flags, nr, st)
    if (present(n_removed)) n_removed = nr
    call finish(st, stat, errmsg)
  end subroutine remove_i32

  subroutine remove_i32_n32(vec, marks, flags, n_removed, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer(c_int32_t), intent(in) :: marks(:)
    integer, intent(in), optional :: flags
    integer(c_int32_t), intent(out) :: n_removed
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int64_t) :: nr
    integer(c_int) :: st
    call remove_host(vec, marks, flags, nr, st)
    n_removed = 0
    if (st /= PVEC_SUCCESS) then
      call finish(st, stat, errmsg)
    else
      call finish_narrow(st, nr, n_removed, 'pvec_vector_remove_marked', stat, errmsg)
    end if
  end subroutine remove_i32_n32

  !> Marks as a logical array in host memory (.true. removes).
  subroutine remove_logical(vec, marks, flags, n_removed, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    logical, intent(in) :: marks(:)
    integer, intent(in), optional :: flags
    integer(c_int64_t), intent(out), optional :: n_removed
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    call remove_i32(vec, merge(1_c_int32_t, 0_c_int32_t, marks), flags, n_removed, stat, errmsg)
  end subroutine remove_logical

  subroutine remove_logical_n32(vec, marks, flags, n_removed, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    logical, intent(in) :: marks(:)
    integer, intent(in), optional :: flags
    integer(c_int32_t), intent(out) :: n_removed
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    call remove_i32_n32(vec, merge(1_c_int32_t, 0_c_int32_t, marks), flags, n_removed, stat, &
                        errmsg)
  end subroutine remove_logical_n32

  !> Marks given by address: n_local int32 in the memory of the mirror the call runs on (a
  !> device array with PVEC_ON_DEVICE and the CUDA backend). C checks what it can (INVALID_ARGUMENT
  !> for memory the device cannot read); the length is the caller's responsibility.
  subroutine remove_ptr(vec, marks, flags, n_removed, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    type(c_ptr), intent(in) :: marks
    integer, intent(in), optional :: flags
    integer(c_int64_t), intent(out), optional :: n_removed
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int64_t) :: nr
    integer(c_int) :: st
    call remove_c(vec, PVEC_NO_PROPERTY, marks, flags, nr, st)
    if (present(n_removed)) n_removed = nr
    call finish_c(st, stat, errmsg)
  end subroutine remove_ptr

  subroutine remove_ptr_n32(vec, marks, flags, n_removed, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    type(c_ptr), intent(in) :: marks
    integer, intent(in), optional :: flags
    integer(c_int32_t), intent(out) :: n_removed
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int64_t) :: nr
    integer(c_int) :: st
    call remove_c(vec, PVEC_NO_PROPERTY, marks, flags, nr, st)
    call finish_narrow(st, nr, n_removed, 'pvec_vector_remove_marked', stat, errmsg)
  end subroutine remove_ptr_n32

  !> call pvec_vector_remove_marked_async(vec, mark_prop [, flags] [, n_removed_dev] [, marks]
  !> [, stat] [, errmsg]): pvec_vector_remove_marked on the device mirror (PVEC_ON_DEVICE is
  !> added to flags) without waiting: ordered on the vector's stream, the count written by that
  !> work to n_removed_dev (the address of one int64 in device memory; absent: not written).
  !> mark_prop = PVEC_NO_PROPERTY takes the marks from marks (the address of n_local int32 in
  !> device memory, readable until the stream passes the removal). The size follows at the
  !> next call on the vector. With the host backend it runs at once (the addresses are host
  !> memory then). Local.
  subroutine pvec_vector_remove_marked_async(vec, mark_prop, flags, n_removed_dev, marks, stat, &
                                             errmsg)
    type(pvec_vector), intent(in) :: vec
    integer, intent(in) :: mark_prop
    integer, intent(in), optional :: flags
    type(c_ptr), intent(in), optional :: n_removed_dev, marks
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    type(c_ptr) :: pm, pn
    integer(c_int) :: f
    f = PVEC_ON_DEVICE
    if (present(flags)) f = ior(f, int(flags, c_int))
    pm = c_null_ptr
    if (present(marks)) pm = marks
    pn = c_null_ptr
    if (present(n_removed_dev)) pn = n_removed_dev
    call finish_c(c_pvec_vector_remove_marked_async(vec%h, int(mark_prop, c_int), pm, f, pn), &
                  stat, errmsg)
  end subroutine pvec_vector_remove_marked_async

  ! ---- Spawns ------------------------------------------------------------------------------------

  !> Open a spawn: room for up to max_new particles after the local ones on the host mirror
  !> (flags PVEC_ON_DEVICE: the device mirror), rows zero there, claim counter 0; spawner
  !> receives what kernels need (pass it by value to a bind(C) kernel or C function; its
  !> counter is the claim counter's address, in that mirror's memory). The capacity may grow:
  !> take views and pointers after this call; they stay valid until the commit. While the
  !> spawn is open, calls that change the particles return PVEC_ERROR_STATE. Local.
  !> Errors: INVALID_ARGUMENT (max_new < 0), STATE (a spawn is open), STALE_MIRROR, OVERFLOW,
  !> OUT_OF_MEMORY, CUDA.
  subroutine spawn_begin_i64(vec, max_new, spawner, flags, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer(c_int64_t), intent(in) :: max_new
    type(pvec_spawner), intent(out) :: spawner
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int) :: f
    f = flags_arg(flags)
    spawner%struct_size = c_sizeof(spawner)
    call finish_c(c_pvec_vector_spawn_begin(vec%h, max_new, f, spawner), stat, errmsg)
  end subroutine spawn_begin_i64

  subroutine spawn_begin_i32(vec, max_new, spawner, flags, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer(c_int32_t), intent(in) :: max_new
    type(pvec_spawner), intent(out) :: spawner
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    call spawn_begin_i64(vec, int(max_new, c_int64_t), spawner, flags, stat, errmsg)
  end subroutine spawn_begin_i32

  !> Close the spawn: the slots claimed become local particles; n_added receives their number.
  !> Waits for the vector's stream first. When more slots were claimed than reserved, nothing
  !> is added, n_added receives the number claimed and the status is PVEC_ERROR_OUT_OF_RANGE
  !> (reserve that many and run again). Either way the spawn is closed. Local.
  !> Errors: STATE (no spawn open), OUT_OF_RANGE, CUDA.
  subroutine spawn_commit_i64(vec, n_added, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer(c_int64_t), intent(out), optional :: n_added
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int64_t), target :: n
    integer(c_int) :: st
    n = 0
    st = c_pvec_vector_spawn_commit(vec%h, c_loc(n))
    if (present(n_added)) n_added = n
    call finish_c(st, stat, errmsg)
  end subroutine spawn_commit_i64

  !> n_added as a default integer (also the number claimed after OUT_OF_RANGE, when it fits).
  subroutine spawn_commit_i32(vec, n_added, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer(c_int32_t), intent(out) :: n_added
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int64_t), target :: n
    integer(c_int) :: st
    n = 0
    st = c_pvec_vector_spawn_commit(vec%h, c_loc(n))
    if (st == PVEC_ERROR_OUT_OF_RANGE) then
      n_added = int(min(n, int(huge(n_added), c_int64_t)), c_int32_t)
      call finish_c(st, stat, errmsg)
      return
    end if
    call finish_narrow(st, n, n_added, 'pvec_vector_spawn_commit', stat, errmsg)
  end subroutine spawn_commit_i32

  !> Close the spawn without adding anything. Local. Errors: STATE (no spawn open).
  subroutine pvec_vector_spawn_cancel(vec, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    call finish_c(c_pvec_vector_spawn_cancel(vec%h), stat, errmsg)
  end subroutine pvec_vector_spawn_cancel

  !> Claim count (default 1) consecutive slots of a spawn whose counter is host memory (a host
  !> mirror spawn, or any spawn of the host backend), from Fortran: the 1-based row of the
  !> first, or -1 when they do not all fit the reservation (the claim still counts toward what
  !> the commit reports), like pvec::spawn_claim. Not atomic: one thread claims at a time.
  function pvec_spawn_claim(spawner, count) result(row)
    type(pvec_spawner), intent(in) :: spawner
    integer, intent(in), optional :: count
    integer(c_int64_t) :: row
    integer(c_long_long), pointer :: counter
    integer(c_long_long) :: k, n
    n = 1
    if (present(count)) n = count
    call c_f_pointer(spawner%counter, counter)
    k = counter
    counter = k + n
    row = -1
    if (k + n <= spawner%limit) row = spawner%first + k + 1
  end function pvec_spawn_claim

  !> The globally unique id of a claimed 1-based row (after pvec_vector_ids_init), like
  !> pvec::spawn_id: spawner%id_first + (row - 1 - spawner%first) * spawner%id_stride.
  pure function pvec_spawn_id(spawner, row) result(id)
    type(pvec_spawner), intent(in) :: spawner
    integer(c_int64_t), intent(in) :: row
    integer(c_int64_t) :: id
    id = spawner%id_first + (row - 1 - spawner%first) * spawner%id_stride
  end function pvec_spawn_id

  ! ---- Ids ---------------------------------------------------------------------------------------

  !> Number the local particles of every rank 0 .. N-1 in rank order into id_prop (a scalar
  !> int64 or uint64 property) on the host mirror (flags PVEC_ON_DEVICE: the device mirror),
  !> and start the id counter at N; with PVEC_IDS_KEEP keep the ids there and start after their
  !> largest. From then on pvec_vector_ids_take and spawns hand out ids no rank has handed out.
  !> Collective. Errors: INVALID_ARGUMENT (not a scalar int64/uint64; a negative id with
  !> PVEC_IDS_KEEP), OUT_OF_RANGE, STALE_MIRROR, STATE (a spawn is open), MPI.
  subroutine pvec_vector_ids_init(vec, id_prop, flags, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer, intent(in) :: id_prop
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int) :: f
    f = flags_arg(flags)
    call finish_c(c_pvec_vector_ids_init(vec%h, int(id_prop, c_int), f), stat, errmsg)
  end subroutine pvec_vector_ids_init

  !> Take count new ids for particles this rank creates: first + k * stride for k = 0 ..
  !> count-1 (stride is the rank count). Local. Errors: INVALID_ARGUMENT (count < 0), STATE
  !> (pvec_vector_ids_init not called), OVERFLOW.
  subroutine ids_take_i64(vec, count, first, stride, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer(c_int64_t), intent(in) :: count
    integer(c_int64_t), intent(out) :: first
    integer(c_int64_t), intent(out), optional :: stride
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int64_t) :: f, s
    integer(c_int) :: st
    f = -1
    s = 0
    st = c_pvec_vector_ids_take(vec%h, count, f, s)
    first = f
    if (present(stride)) stride = s
    call finish_c(st, stat, errmsg)
  end subroutine ids_take_i64

  subroutine ids_take_i32(vec, count, first, stride, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer(c_int32_t), intent(in) :: count
    integer(c_int64_t), intent(out) :: first
    integer(c_int64_t), intent(out), optional :: stride
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    call ids_take_i64(vec, int(count, c_int64_t), first, stride, stat, errmsg)
  end subroutine ids_take_i32
end module pvec_population
