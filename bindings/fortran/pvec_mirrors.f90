!> pvec_mirrors -- where a property's data is: its layout and the addresses of its host and
!> device mirrors (pvec.h section 5), and view_setup, the checks behind every pvec_host_view
!> (whose specifics, one per kind and rank, are generated: pvec_views.f90).
module pvec_mirrors
  use, intrinsic :: iso_c_binding
  use pvec_capi
  use pvec_base, only: pvec_vector, fortran_error, finish_c, finish_f, itoa, &
                       pvec_c_string
  implicit none
  private
  public :: pvec_vector_get_layout, pvec_host_ptr, pvec_device_ptr
  ! For pvec_views (module pvec does not re-export it):
  public :: view_setup

contains

  !> Everything about property prop (or PVEC_POS): dtype, shape, capacity, strides, sizes,
  !> generation and both pointers.
  subroutine pvec_vector_get_layout(vec, prop, layout, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer(c_int), intent(in) :: prop
    type(pvec_layout), intent(out) :: layout
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    layout%struct_size = c_sizeof(layout)
    call finish_c(c_pvec_vector_get_layout(vec%h, prop, layout), stat, errmsg)
  end subroutine pvec_vector_get_layout

  !> Host mirror of property prop (or PVEC_POS): element (i, c) at index c*C + i (0-based).
  !> c_null_ptr on failure (with stat present).
  function pvec_host_ptr(vec, prop, stat, errmsg) result(p)
    type(pvec_vector), intent(in) :: vec
    integer(c_int), intent(in) :: prop
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    type(c_ptr) :: p
    p = c_pvec_host_ptr(vec%h, prop)
    call finish_pointer(vec, prop, p, stat, errmsg)
  end function pvec_host_ptr

  !> Device mirror of property prop (or PVEC_POS), same layout as the host mirror: hand it to
  !> CUDA Fortran (c_devptr), OpenACC (deviceptr) or C. With the host backend it is a second
  !> host allocation. c_null_ptr on failure (with stat present).
  function pvec_device_ptr(vec, prop, stat, errmsg) result(p)
    type(pvec_vector), intent(in) :: vec
    integer(c_int), intent(in) :: prop
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    type(c_ptr) :: p
    p = c_pvec_device_ptr(vec%h, prop)
    call finish_pointer(vec, prop, p, stat, errmsg)
  end function pvec_device_ptr

  !> The pointer getters report failure by NULL only: a layout query on the same arguments
  !> fails the same way and gives the status; the getter's own message is kept.
  subroutine finish_pointer(vec, prop, p, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer(c_int), intent(in) :: prop
    type(c_ptr), intent(in) :: p
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    type(pvec_layout) :: lay
    character(len=:), allocatable :: msg
    integer(c_int) :: st
    if (c_associated(p)) then
      call finish_c(PVEC_SUCCESS, stat, errmsg)
      return
    end if
    msg = pvec_c_string(c_pvec_last_error())
    lay%struct_size = c_sizeof(lay)
    st = c_pvec_vector_get_layout(vec%h, prop, lay)
    if (st == PVEC_SUCCESS) st = PVEC_ERROR_INTERNAL
    call finish_f(st, msg, stat, errmsg)
  end subroutine finish_pointer

  !> Common part of every pvec_host_view: layout query, dtype and rank checks, shape. dtypes:
  !> the dtypes the view's kind reads (kind_name); view_rank: 1 .. PVEC_MAX_RANK + 1.
  subroutine view_setup(vec, prop, view_rank, dtypes, kind_name, p, shp, st)
    type(pvec_vector), intent(in) :: vec
    integer(c_int), intent(in) :: prop, view_rank, dtypes(:)
    character(*), intent(in) :: kind_name
    type(c_ptr), intent(out) :: p
    integer(c_int64_t), intent(out) :: shp(PVEC_MAX_RANK + 1)
    integer(c_int), intent(out) :: st
    type(pvec_layout) :: lay
    character(len=:), allocatable :: what
    p = c_null_ptr
    shp = 0
    if (allocated(fortran_error)) deallocate (fortran_error)
    lay%struct_size = c_sizeof(lay)
    st = c_pvec_vector_get_layout(vec%h, prop, lay)
    if (st /= PVEC_SUCCESS) return
    what = "pvec_host_view: property "//itoa(int(prop, c_int64_t))//" ('"// &
           pvec_c_string(lay%name)//"')"
    if (all(lay%dtype /= dtypes)) then
      st = PVEC_ERROR_DTYPE_MISMATCH
      fortran_error = what//' has dtype '//pvec_c_string(c_pvec_dtype_name(lay%dtype))// &
                      ', the view is '//kind_name
      return
    end if
    select case (view_rank)
    case (1)
      if (lay%rank /= 0) then
        st = PVEC_ERROR_INVALID_ARGUMENT
        fortran_error = what//' has '//itoa(lay%ncomp)// &
                        ' components: use a rank-2 view v(capacity, ncomp)'
        return
      end if
      shp = [lay%capacity, 1_c_int64_t, 1_c_int64_t]
    case (2)
      shp = [lay%capacity, lay%ncomp, 1_c_int64_t]
    case default
      if (lay%rank /= 2) then
        st = PVEC_ERROR_INVALID_ARGUMENT
        fortran_error = what//' is not a tensor: a rank-3 view needs tensor[n][m]'
        return
      end if
      shp = [lay%capacity, lay%extents(2), lay%extents(1)]
    end select
    p = lay%host_ptr
  end subroutine view_setup
end module pvec_mirrors
