!> Longer than 500 lines because the metadata type and the checkpoint calls that read its
!> private parts share one module (Fortran opens a type's private components to its module only).
!> pvec_io -- output and restart (pvec.h section 9, docs/io.md): ParaView files (VTK XML
!> PolyData, no dependency) and HDF5 checkpoints with the caller's metadata, described and
!> restarted on any number of ranks. Checkpoints need a build with parallel HDF5
!> (pvec_has_hdf5); without it the checkpoint calls return PVEC_ERROR_NOT_SUPPORTED.
!>
!> Property lists are as for pvec_host_to_device: props absent writes every property, a list
!> writes the listed ones (in declaration order whatever the list's order; PVEC_POS may be
!> listed), a zero-size list the positions alone (pass a zero-size variable, not the literal
!> [integer ::], which gfortran 12 passes as absent). The positions are always written.
!>
!> A checkpoint's metadata is a type(pvec_metadata): attributes added with pvec_metadata_add
!> (a string, one real(c_double) number, or an array of 1 to PVEC_METADATA_MAX_VALUES
!> real(c_double) values), written with pvec_checkpoint_write, read back by
!> pvec_checkpoint_describe and queried with pvec_metadata_count, _key, _kind and _get.
module pvec_io
  use, intrinsic :: iso_c_binding
  use pvec_capi
  use pvec_base, only: pvec_vector, pvec_schema, finish, finish_c, finish_f, itoa, c_str, &
                       props_arg, flags_arg
  implicit none
  private
  public :: pvec_metadata
  public :: pvec_has_hdf5, pvec_vtk_write, pvec_checkpoint_write, pvec_checkpoint_describe
  public :: pvec_checkpoint_restart
  public :: pvec_metadata_add, pvec_metadata_count, pvec_metadata_key, pvec_metadata_kind
  public :: pvec_metadata_get

  !> One attribute of a pvec_metadata.
  type :: metadata_attr
    character(:), allocatable :: key
    integer :: kind = -1                       ! PVEC_METADATA_NUMBER, _STRING or _ARRAY
    character(:), allocatable :: text          ! a string's value
    real(c_double), allocatable :: values(:)   ! a number's (1) or an array's (1 or more) values
  end type metadata_attr

  !> The caller's metadata of a checkpoint: attributes, each a key with a string, a number or
  !> an array of numbers, in the order they were added (pvec_metadata_add) or, when read back
  !> by pvec_checkpoint_describe, in the order of their keys (bytewise, as C). No fixed limits;
  !> a default-initialised one is empty, and assignment copies it. The components are private:
  !> read it with pvec_metadata_count, pvec_metadata_key, pvec_metadata_kind and
  !> pvec_metadata_get.
  type :: pvec_metadata
    private
    integer :: n = 0
    type(metadata_attr), allocatable :: attrs(:)
  end type pvec_metadata

  !> call pvec_vtk_write(vec, prefix, step, time [, props] [, flags] [, stat] [, errmsg]):
  !> write the local particles of every rank as step `step` (>= 0, a default integer or an
  !> integer(c_int64_t)) at time `time` (real(c_double), finite) of the ParaView series
  !> <prefix>.pvd: <prefix>_<step>.pvtp and one piece <prefix>_<step>/<name>_<rank>.vtp per
  !> rank (docs/io.md), creating the missing folders of prefix. props: the properties written
  !> (absent: all; zero-size: the positions alone). flags: PVEC_ON_DEVICE (write the device
  !> mirror), PVEC_VTK_RANK_ARRAY (add an Int32 point array "rank"). Collective; changes no
  !> particle. Errors: INVALID_HANDLE; INVALID_ARGUMENT (prefix empty, step < 0, time not
  !> finite, unknown flags, a property listed twice, "rank" listed with PVEC_VTK_RANK_ARRAY);
  !> OUT_OF_RANGE (a listed index); OUT_OF_MEMORY; CUDA; IO (a file or folder could not be
  !> written: the message names it). An error on any rank is an error on every rank (the
  !> others return PVEC_ERROR_MPI naming the failing rank).
  interface pvec_vtk_write
    module procedure vtk_write_i64, vtk_write_i32
  end interface

  !> call pvec_checkpoint_write(vec, path, step, time [, props] [, meta] [, flags] [, stat]
  !> [, errmsg]): write a checkpoint, one HDF5 file at path (written as <path>.tmp and renamed
  !> when complete; missing folders created) with every rank's local particles, the listed
  !> properties (absent: all; zero-size: the positions alone), step (a default integer or an
  !> integer(c_int64_t)), time (real(c_double), finite) and the attributes of meta (absent:
  !> none), plus an XDMF sidecar for ParaView. flags: PVEC_ON_DEVICE. Every rank passes the
  !> same step, time, properties and metadata. Collective. Errors: INVALID_HANDLE;
  !> INVALID_ARGUMENT (path empty, time not finite, a property listed twice, a metadata key
  !> empty or repeated, unknown flags); OUT_OF_RANGE (a listed index); OUT_OF_MEMORY; CUDA;
  !> IO (a folder cannot be made, the file would not fit, HDF5 fails: the message names the
  !> file); NOT_SUPPORTED (built without parallel HDF5). An error on any rank is an error on
  !> every rank (the others return PVEC_ERROR_MPI), and a failed write leaves the previous file
  !> at path as it was.
  interface pvec_checkpoint_write
    module procedure checkpoint_write_i64, checkpoint_write_i32
  end interface

  !> call pvec_metadata_add(meta, key, value [, stat] [, errmsg]): append the attribute key
  !> (trailing blanks removed) holding value: a character(*) string (trailing blanks removed,
  !> as every string the binding takes; kind PVEC_METADATA_STRING), one real(c_double) number
  !> (PVEC_METADATA_NUMBER) or a 1-D real(c_double) array of 1 to PVEC_METADATA_MAX_VALUES
  !> values (PVEC_METADATA_ARRAY, also for one value: an array stays an array, a number stays
  !> a number, in the file and when read back). Local. Errors: INVALID_ARGUMENT for an array
  !> of no value or of more than PVEC_METADATA_MAX_VALUES (C cannot store either); meta is
  !> then unchanged. Keys are not checked here: an empty or repeated key is refused by
  !> pvec_checkpoint_write (INVALID_ARGUMENT naming it).
  interface pvec_metadata_add
    module procedure meta_add_text, meta_add_number, meta_add_array
  end interface

  !> pvec_metadata_kind(meta, i) / pvec_metadata_kind(meta, key): the kind of attribute i
  !> (1 .. pvec_metadata_count(meta)) or of the (first) attribute named key:
  !> PVEC_METADATA_NUMBER, PVEC_METADATA_STRING or PVEC_METADATA_ARRAY; -1 when there is no
  !> such attribute (so pvec_metadata_kind(meta, key) >= 0 tests whether key is present).
  interface pvec_metadata_kind
    module procedure meta_kind_index, meta_kind_key
  end interface

  !> call pvec_metadata_get(meta, key, value [, stat] [, errmsg]): the value of the (first)
  !> attribute named key (trailing blanks removed), into a value of its kind:
  !>   character(:), allocatable :: value      a PVEC_METADATA_STRING
  !>   real(c_double) :: value                 a PVEC_METADATA_NUMBER
  !>   real(c_double), allocatable :: value(:) a PVEC_METADATA_ARRAY (allocated to its length)
  !> value is written only on success. Local. Errors: INVALID_ARGUMENT when there is no such
  !> key, or when the attribute is of another kind than value (a number is not read into an
  !> array, nor an array of one value into a number); the message says which.
  interface pvec_metadata_get
    module procedure meta_get_text, meta_get_number, meta_get_array
  end interface

contains

  ! ---- What the build offers --------------------------------------------------------------------

  !> flag = .true. when this build writes and reads HDF5 checkpoints (built against a parallel
  !> HDF5); otherwise pvec_checkpoint_write, pvec_checkpoint_describe and
  !> pvec_checkpoint_restart return PVEC_ERROR_NOT_SUPPORTED. Local; callable at any time.
  subroutine pvec_has_hdf5(flag, stat, errmsg)
    logical, intent(out) :: flag
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int) :: f, st
    f = 0
    st = c_pvec_has_hdf5(f)
    flag = f /= 0
    call finish_c(st, stat, errmsg)
  end subroutine pvec_has_hdf5

  ! ---- ParaView files ---------------------------------------------------------------------------

  subroutine vtk_write_i64(vec, prefix, step, time, props, flags, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    character(*), intent(in) :: prefix
    integer(c_int64_t), intent(in) :: step
    real(c_double), intent(in) :: time
    integer, intent(in), optional :: props(:)
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int), allocatable, target :: buf(:)
    type(c_ptr) :: p
    integer(c_int) :: n, f
    f = flags_arg(flags)
    call props_arg(props, buf, p, n)
    call finish_c(c_pvec_vtk_write(vec%h, c_str(prefix), step, time, p, n, f), stat, errmsg)
  end subroutine vtk_write_i64

  subroutine vtk_write_i32(vec, prefix, step, time, props, flags, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    character(*), intent(in) :: prefix
    integer(c_int32_t), intent(in) :: step
    real(c_double), intent(in) :: time
    integer, intent(in), optional :: props(:)
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    call vtk_write_i64(vec, prefix, int(step, c_int64_t), time, props, flags, stat, errmsg)
  end subroutine vtk_write_i32

  ! ---- Checkpoints ------------------------------------------------------------------------------

  subroutine checkpoint_write_i64(vec, path, step, time, props, meta, flags, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    character(*), intent(in) :: path
    integer(c_int64_t), intent(in) :: step
    real(c_double), intent(in) :: time
    integer, intent(in), optional :: props(:)
    type(pvec_metadata), intent(in), optional :: meta
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int), allocatable, target :: buf(:), counts(:)
    type(c_ptr), allocatable, target :: keys(:), strings(:)
    character(kind=c_char), allocatable, target :: chars(:)
    real(c_double), allocatable, target :: numbers(:)
    type(c_ptr) :: p, pk, ps, pn, pc
    integer(c_int) :: n, f, na
    integer :: k, nchars, nnum, at, an
    f = flags_arg(flags)
    call props_arg(props, buf, p, n)
    na = 0
    pk = c_null_ptr
    ps = c_null_ptr
    pn = c_null_ptr
    pc = c_null_ptr
    if (present(meta)) na = int(meta%n, c_int)
    if (na > 0) then
      ! C's arrays: keys and strings point into chars (every text NUL-terminated, sized before
      ! any address is taken, so that none moves), the numbers one attribute after another.
      nchars = 0
      nnum = 0
      do k = 1, na
        associate (a => meta%attrs(k))
          nchars = nchars + len(a%key) + 1
          if (a%kind == PVEC_METADATA_STRING) then
            nchars = nchars + len(a%text) + 1
          else
            nnum = nnum + size(a%values)
          end if
        end associate
      end do
      allocate (keys(na), strings(na), counts(na), chars(nchars), numbers(max(1, nnum)))
      at = 1
      an = 0
      do k = 1, na
        associate (a => meta%attrs(k))
          keys(k) = put_text(a%key)
          strings(k) = c_null_ptr
          counts(k) = 0
          select case (a%kind)
          case (PVEC_METADATA_STRING)
            strings(k) = put_text(a%text)
          case (PVEC_METADATA_ARRAY)
            counts(k) = int(size(a%values), c_int)
          end select
          if (a%kind /= PVEC_METADATA_STRING) then
            numbers(an + 1:an + size(a%values)) = a%values
            an = an + size(a%values)
          end if
        end associate
      end do
      pk = c_loc(keys)
      ps = c_loc(strings)
      pn = c_loc(numbers)
      pc = c_loc(counts)
    end if
    call finish_c(c_pvec_checkpoint_write(vec%h, c_str(path), step, time, p, n, na, pk, ps, pn, &
                                          pc, f), stat, errmsg)

  contains

    !> Copies s and its NUL into chars at position at; its address.
    function put_text(s) result(r)
      character(*), intent(in) :: s
      type(c_ptr) :: r
      integer :: i
      do i = 1, len(s)
        chars(at + i - 1) = s(i:i)
      end do
      chars(at + len(s)) = c_null_char
      r = c_loc(chars(at))
      at = at + len(s) + 1
    end function put_text
  end subroutine checkpoint_write_i64

  subroutine checkpoint_write_i32(vec, path, step, time, props, meta, flags, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    character(*), intent(in) :: path
    integer(c_int32_t), intent(in) :: step
    real(c_double), intent(in) :: time
    integer, intent(in), optional :: props(:)
    type(pvec_metadata), intent(in), optional :: meta
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    call checkpoint_write_i64(vec, path, int(step, c_int64_t), time, props, meta, flags, stat, &
                              errmsg)
  end subroutine checkpoint_write_i32

  !> Read what the checkpoint at path holds, to restart from it without knowing it beforehand:
  !> desc receives the file's dim, pos_dtype, domain_lo, domain_hi, boundary and ghost_width
  !> (its other fields -- backend, communicator, ... -- are left as they are), schema a new
  !> schema with the file's properties in declaration order (inspect it with
  !> pvec_schema_get_count / pvec_schema_get_property, pass it to pvec_checkpoint_restart, and
  !> destroy it with pvec_schema_destroy), step (integer(c_int64_t)) and time (real(c_double))
  !> what was stored, meta the caller's attributes in the order of their keys (bytewise).
  !> Local (every rank may call it). On error no argument but schema (then the NULL handle)
  !> changes and no schema is left behind. Errors: INVALID_ARGUMENT (path empty); IO (no such
  !> file, not a complete pvec checkpoint, a damaged header or metadata attribute: the message
  !> names the file and the field); OUT_OF_MEMORY; NOT_SUPPORTED (built without parallel HDF5).
  subroutine pvec_checkpoint_describe(path, desc, schema, step, time, meta, stat, errmsg)
    character(*), intent(in) :: path
    type(pvec_vector_desc), intent(inout) :: desc
    type(pvec_schema), intent(out) :: schema
    integer(c_int64_t), intent(inout), optional :: step
    real(c_double), intent(inout), optional :: time
    type(pvec_metadata), intent(inout), optional :: meta
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    type(pvec_vector_desc) :: d
    type(pvec_metadata) :: m
    type(c_ptr) :: h
    integer(c_int64_t) :: s
    real(c_double) :: t
    integer(c_int) :: st
    character(kind=c_char, len=:), allocatable :: cpath
    cpath = c_str(path)
    d = desc
    d%struct_size = c_sizeof(d)
    h = c_null_ptr
    s = 0
    t = 0
    st = c_pvec_checkpoint_describe(cpath, d, h, s, t)
    if (st == PVEC_SUCCESS .and. present(meta)) then
      st = read_metadata(cpath, m)
      if (st /= PVEC_SUCCESS) then
        ! Keep the metadata call's status and message: only then drop the new schema.
        if (c_pvec_schema_destroy(h) == PVEC_SUCCESS) h = c_null_ptr
        call finish(st, stat, errmsg)
        return
      end if
    end if
    if (st == PVEC_SUCCESS) then
      d%struct_size = desc%struct_size
      desc = d
      schema%h = h
      if (present(step)) step = s
      if (present(time)) time = t
      if (present(meta)) call move_metadata(m, meta)
    end if
    call finish_c(st, stat, errmsg)
  end subroutine pvec_checkpoint_describe

  !> The metadata of the checkpoint cpath (NUL-terminated) into m, in C's order; a status.
  function read_metadata(cpath, m) result(st)
    character(kind=c_char, len=*), intent(in) :: cpath
    type(pvec_metadata), intent(inout) :: m
    integer(c_int) :: st
    integer(c_int) :: count, i
    integer(c_int), target :: kind
    integer(c_size_t), target :: length
    integer(c_size_t) :: key_size
    character(kind=c_char), allocatable, target :: key(:), text(:)
    real(c_double), allocatable, target :: vals(:)
    type(metadata_attr) :: a
    count = 0
    st = c_pvec_checkpoint_get_metadata_count(cpath, count)
    if (st /= PVEC_SUCCESS) return
    do i = 0, count - 1
      ! The key's length is not reported: a key buffer too small is the only INVALID_ARGUMENT
      ! this call can give (no other buffer is passed), so grow it until the key fits.
      key_size = 256
      do
        if (allocated(key)) deallocate (key)
        allocate (key(key_size))
        st = c_pvec_checkpoint_get_metadata(cpath, i, c_loc(key), key_size, c_loc(kind), &
                                            c_loc(length), c_null_ptr, 0_c_size_t, c_null_ptr, &
                                            0_c_size_t)
        if (st /= PVEC_ERROR_INVALID_ARGUMENT .or. key_size >= 2_c_size_t**24) exit
        key_size = key_size * 16
      end do
      if (st /= PVEC_SUCCESS) return
      a%key = from_c(key)
      a%kind = int(kind)
      if (kind == PVEC_METADATA_STRING) then
        allocate (text(length + 1))
        st = c_pvec_checkpoint_get_metadata(cpath, i, c_null_ptr, 0_c_size_t, c_null_ptr, &
                                            c_null_ptr, c_null_ptr, 0_c_size_t, c_loc(text), &
                                            size(text, kind=c_size_t))
        if (st /= PVEC_SUCCESS) return
        a%text = from_c(text)
        deallocate (text)
        if (allocated(a%values)) deallocate (a%values)
      else
        allocate (vals(max(1_c_size_t, length)))
        st = c_pvec_checkpoint_get_metadata(cpath, i, c_null_ptr, 0_c_size_t, c_null_ptr, &
                                            c_null_ptr, c_loc(vals), size(vals, kind=c_size_t), &
                                            c_null_ptr, 0_c_size_t)
        if (st /= PVEC_SUCCESS) return
        if (allocated(a%text)) deallocate (a%text)
        call move_alloc(vals, a%values)
      end if
      call append_attr(m, a)
    end do
  end function read_metadata

  !> Create a vector from the checkpoint at path, on any number of ranks: desc and schema are
  !> what pvec_vector_create takes (n_particles and placement are ignored) and must match the
  !> file (properties by name, dtype and shape, in any order; dim, position dtype, domain,
  !> boundaries); ghost_width, backend, host memory and communicator are the caller's. The
  !> particles end on the rank owning their position, with their values bitwise as written,
  !> on both mirrors. vec receives the new vector (destroy it with pvec_vector_destroy); it is
  !> the NULL handle on error. flags: PVEC_RESTART_ZERO_MISSING (properties of schema that the
  !> file lacks start with every component 0, instead of an error), PVEC_RESTART_SKIP_EXTRA
  !> (properties of the file that schema lacks are not read, instead of an error). Unlike C,
  !> vec comes before the optional flags. Collective. Errors: INVALID_HANDLE (schema);
  !> INVALID_ARGUMENT (path empty, unknown flags, the first mismatch between file and request,
  !> named: a missing or extra property, dim, domain, boundary, position dtype, shape);
  !> DTYPE_MISMATCH (a property's dtype, named); IO (a missing, truncated, damaged or
  !> incomplete file, rows that fail their checksum); those of pvec_vector_create and
  !> pvec_map; NOT_SUPPORTED (built without parallel HDF5).
  subroutine pvec_checkpoint_restart(path, desc, schema, vec, flags, stat, errmsg)
    character(*), intent(in) :: path
    type(pvec_vector_desc), intent(in) :: desc
    type(pvec_schema), intent(in) :: schema
    type(pvec_vector), intent(out) :: vec
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    type(pvec_vector_desc) :: d
    integer(c_int) :: f
    f = flags_arg(flags)
    d = desc
    d%struct_size = c_sizeof(d)
    call finish_c(c_pvec_checkpoint_restart(c_str(path), d, schema%h, f, vec%h), stat, errmsg)
  end subroutine pvec_checkpoint_restart

  ! ---- Metadata ---------------------------------------------------------------------------------

  subroutine meta_add_text(meta, key, value, stat, errmsg)
    type(pvec_metadata), intent(inout) :: meta
    character(*), intent(in) :: key, value
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    type(metadata_attr) :: a
    a%key = trim(key)
    a%kind = PVEC_METADATA_STRING
    a%text = trim(value)
    call append_attr(meta, a)
    call finish_c(PVEC_SUCCESS, stat, errmsg)
  end subroutine meta_add_text

  subroutine meta_add_number(meta, key, value, stat, errmsg)
    type(pvec_metadata), intent(inout) :: meta
    character(*), intent(in) :: key
    real(c_double), intent(in) :: value
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    type(metadata_attr) :: a
    a%key = trim(key)
    a%kind = PVEC_METADATA_NUMBER
    a%values = [value]
    call append_attr(meta, a)
    call finish_c(PVEC_SUCCESS, stat, errmsg)
  end subroutine meta_add_number

  subroutine meta_add_array(meta, key, value, stat, errmsg)
    type(pvec_metadata), intent(inout) :: meta
    character(*), intent(in) :: key
    real(c_double), intent(in) :: value(:)
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    type(metadata_attr) :: a
    if (size(value) < 1 .or. size(value) > PVEC_METADATA_MAX_VALUES) then
      call finish_f(PVEC_ERROR_INVALID_ARGUMENT, "pvec_metadata_add: the array of '"// &
                    trim(key)//"' holds "//itoa(size(value, kind=c_int64_t))// &
                    ' values; an array attribute holds 1 to '// &
                    itoa(int(PVEC_METADATA_MAX_VALUES, c_int64_t)), stat, errmsg)
      return
    end if
    a%key = trim(key)
    a%kind = PVEC_METADATA_ARRAY
    a%values = value
    call append_attr(meta, a)
    call finish_c(PVEC_SUCCESS, stat, errmsg)
  end subroutine meta_add_array

  !> Number of attributes of meta.
  pure function pvec_metadata_count(meta) result(r)
    type(pvec_metadata), intent(in) :: meta
    integer :: r
    r = meta%n
  end function pvec_metadata_count

  !> Key of attribute i of meta (1 .. pvec_metadata_count(meta)); "" for any other i.
  pure function pvec_metadata_key(meta, i) result(r)
    type(pvec_metadata), intent(in) :: meta
    integer, intent(in) :: i
    character(:), allocatable :: r
    if (i < 1 .or. i > meta%n) then
      r = ''
    else
      r = meta%attrs(i)%key
    end if
  end function pvec_metadata_key

  pure function meta_kind_index(meta, i) result(r)
    type(pvec_metadata), intent(in) :: meta
    integer, intent(in) :: i
    integer :: r
    r = -1
    if (i >= 1 .and. i <= meta%n) r = meta%attrs(i)%kind
  end function meta_kind_index

  pure function meta_kind_key(meta, key) result(r)
    type(pvec_metadata), intent(in) :: meta
    character(*), intent(in) :: key
    integer :: r
    r = meta_kind_index(meta, find(meta, key))
  end function meta_kind_key

  subroutine meta_get_text(meta, key, value, stat, errmsg)
    type(pvec_metadata), intent(in) :: meta
    character(*), intent(in) :: key
    character(:), allocatable, intent(inout) :: value
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer :: i
    i = lookup(meta, key, PVEC_METADATA_STRING, 'a string', stat, errmsg)
    if (i == 0) return
    value = meta%attrs(i)%text
    call finish_c(PVEC_SUCCESS, stat, errmsg)
  end subroutine meta_get_text

  subroutine meta_get_number(meta, key, value, stat, errmsg)
    type(pvec_metadata), intent(in) :: meta
    character(*), intent(in) :: key
    real(c_double), intent(inout) :: value
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer :: i
    i = lookup(meta, key, PVEC_METADATA_NUMBER, 'a real(c_double) scalar', stat, errmsg)
    if (i == 0) return
    value = meta%attrs(i)%values(1)
    call finish_c(PVEC_SUCCESS, stat, errmsg)
  end subroutine meta_get_number

  subroutine meta_get_array(meta, key, value, stat, errmsg)
    type(pvec_metadata), intent(in) :: meta
    character(*), intent(in) :: key
    real(c_double), allocatable, intent(inout) :: value(:)
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer :: i
    i = lookup(meta, key, PVEC_METADATA_ARRAY, 'a real(c_double) array', stat, errmsg)
    if (i == 0) return
    value = meta%attrs(i)%values
    call finish_c(PVEC_SUCCESS, stat, errmsg)
  end subroutine meta_get_array

  !> Index of the attribute key of the wanted kind, or 0 after reporting why there is none
  !> (given: what the caller's value argument is).
  function lookup(meta, key, want, given, stat, errmsg) result(i)
    type(pvec_metadata), intent(in) :: meta
    character(*), intent(in) :: key, given
    integer, intent(in) :: want
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer :: i
    character(:), allocatable :: what
    i = find(meta, key)
    if (i == 0) then
      call finish_f(PVEC_ERROR_INVALID_ARGUMENT, "pvec_metadata_get: no attribute '"// &
                    trim(key)//"' (the metadata has "//itoa(int(meta%n, c_int64_t))// &
                    ' attributes)', stat, errmsg)
      return
    end if
    if (meta%attrs(i)%kind == want) return
    select case (meta%attrs(i)%kind)
    case (PVEC_METADATA_STRING)
      what = 'a string: read it into a character(:), allocatable :: value'
    case (PVEC_METADATA_NUMBER)
      what = 'a number: read it into a real(c_double) :: value'
    case default
      what = 'an array of '//itoa(size(meta%attrs(i)%values, kind=c_int64_t))// &
             ' values: read it into a real(c_double), allocatable :: value(:)'
    end select
    call finish_f(PVEC_ERROR_INVALID_ARGUMENT, "pvec_metadata_get: attribute '"//trim(key)// &
                  "' is "//what//' (value is '//given//')', stat, errmsg)
    i = 0
  end function lookup

  !> Index of the first attribute named key (trailing blanks removed), 0 if none.
  pure function find(meta, key) result(i)
    type(pvec_metadata), intent(in) :: meta
    character(*), intent(in) :: key
    integer :: i
    do i = 1, meta%n
      if (meta%attrs(i)%key == trim(key) .and. len(meta%attrs(i)%key) == len_trim(key)) return
    end do
    i = 0
  end function find

  !> Appends a copy of a to meta (capacity doubling).
  subroutine append_attr(meta, a)
    type(pvec_metadata), intent(inout) :: meta
    type(metadata_attr), intent(in) :: a
    type(metadata_attr), allocatable :: grown(:)
    integer :: k
    if (.not. allocated(meta%attrs)) allocate (meta%attrs(4))
    if (meta%n == size(meta%attrs)) then
      allocate (grown(2 * size(meta%attrs)))
      do k = 1, meta%n
        call move_attr(meta%attrs(k), grown(k))
      end do
      call move_alloc(grown, meta%attrs)
    end if
    meta%n = meta%n + 1
    meta%attrs(meta%n)%key = a%key
    meta%attrs(meta%n)%kind = a%kind
    if (allocated(a%text)) meta%attrs(meta%n)%text = a%text
    if (allocated(a%values)) meta%attrs(meta%n)%values = a%values
  end subroutine append_attr

  !> Moves the allocations of attribute from into to (from is left empty).
  subroutine move_attr(from, to)
    type(metadata_attr), intent(inout) :: from, to
    call move_alloc(from%key, to%key)
    to%kind = from%kind
    if (allocated(from%text)) call move_alloc(from%text, to%text)
    if (allocated(from%values)) call move_alloc(from%values, to%values)
  end subroutine move_attr

  !> Moves every attribute of from into to (to's own are dropped).
  subroutine move_metadata(from, to)
    type(pvec_metadata), intent(inout) :: from, to
    to%n = from%n
    if (allocated(to%attrs)) deallocate (to%attrs)
    if (allocated(from%attrs)) call move_alloc(from%attrs, to%attrs)
    from%n = 0
  end subroutine move_metadata

  !> Fortran string of a NUL-terminated character array (up to the first NUL).
  pure function from_c(chars) result(r)
    character(kind=c_char), intent(in) :: chars(:)
    character(:), allocatable :: r
    integer :: n, i
    n = 0
    do while (n < size(chars))
      if (chars(n + 1) == c_null_char) exit
      n = n + 1
    end do
    allocate (character(n) :: r)
    do i = 1, n
      r(i:i) = chars(i)
    end do
  end function from_c
end module pvec_io
