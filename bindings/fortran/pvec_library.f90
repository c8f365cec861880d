!> pvec_library -- the library as a whole: versions, start and end, CUDA devices, dtypes,
!> and the accounting of its memory (pvec.h sections 1, 2, 3 and 8).
module pvec_library
  use, intrinsic :: iso_c_binding
  use pvec_capi
  use pvec_base, only: finish_c, pvec_c_string
  implicit none
  private
  public :: pvec_version_number, pvec_version_string
  public :: pvec_init, pvec_finalize, pvec_initialized, pvec_cuda_device_count
  public :: pvec_dtype_size, pvec_dtype_name, pvec_memory_get_stats

contains

  !> Version number of the loaded library (MAJOR*10000 + MINOR*100 + PATCH).
  function pvec_version_number() result(r)
    integer :: r
    r = c_pvec_version_number()
  end function pvec_version_number

  !> Version of the loaded library as "MAJOR.MINOR.PATCH".
  function pvec_version_string() result(r)
    character(len=:), allocatable :: r
    r = pvec_c_string(c_pvec_version_string())
  end function pvec_version_string

  !> Start pvec (and MPI, if the program has not initialised it). Call once, before any vector.
  subroutine pvec_init(stat, errmsg)
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    call finish_c(c_pvec_init(c_null_ptr, c_null_ptr), stat, errmsg)
  end subroutine pvec_init

  !> End pvec: destroys every vector and schema left, finalises MPI if pvec_init started it.
  !> Collective.
  subroutine pvec_finalize(stat, errmsg)
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    call finish_c(c_pvec_finalize(), stat, errmsg)
  end subroutine pvec_finalize

  !> flag = .true. between pvec_init and pvec_finalize.
  subroutine pvec_initialized(flag, stat, errmsg)
    logical, intent(out) :: flag
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int) :: f, st
    f = 0
    st = c_pvec_initialized(f)
    flag = f /= 0
    call finish_c(st, stat, errmsg)
  end subroutine pvec_initialized

  !> Number of usable CUDA devices (0 without CUDA).
  subroutine pvec_cuda_device_count(count, stat, errmsg)
    integer, intent(out) :: count
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int) :: c, st
    c = 0
    st = c_pvec_cuda_device_count(c)
    count = c
    call finish_c(st, stat, errmsg)
  end subroutine pvec_cuda_device_count

  !> Size in bytes of one element of dtype (0 for an unknown dtype).
  function pvec_dtype_size(dtype) result(r)
    integer(c_int), intent(in) :: dtype
    integer :: r
    r = int(c_pvec_dtype_size(dtype))
  end function pvec_dtype_size

  !> Name of dtype ("float32"; "unknown" for an unknown dtype).
  function pvec_dtype_name(dtype) result(r)
    integer(c_int), intent(in) :: dtype
    character(len=:), allocatable :: r
    r = pvec_c_string(c_pvec_dtype_name(dtype))
  end function pvec_dtype_name

  !> Process-wide accounting of pvec's allocations.
  subroutine pvec_memory_get_stats(stats, stat, errmsg)
    type(pvec_memory_stats), intent(out) :: stats
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    stats%struct_size = c_sizeof(stats)
    call finish_c(c_pvec_memory_get_stats(stats), stat, errmsg)
  end subroutine pvec_memory_get_stats
end module pvec_library
