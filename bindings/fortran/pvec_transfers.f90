!> pvec_transfers -- copies between the host and device mirrors, blocking or ordered on a
!> CUDA stream (pvec.h section 6).
module pvec_transfers
  use, intrinsic :: iso_c_binding
  use pvec_capi
  use pvec_base, only: pvec_vector, finish_c, props_arg
  implicit none
  private
  public :: pvec_vector_set_stream, pvec_vector_get_stream, pvec_host_to_device
  public :: pvec_device_to_host, pvec_host_to_device_async, pvec_device_to_host_async
  public :: pvec_vector_synchronize

contains

  !> Set the CUDA stream (a cudaStream_t as type(c_ptr); c_null_ptr = default stream).
  subroutine pvec_vector_set_stream(vec, stream, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    type(c_ptr), intent(in) :: stream
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    call finish_c(c_pvec_vector_set_stream(vec%h, stream), stat, errmsg)
  end subroutine pvec_vector_set_stream

  !> The vector's CUDA stream.
  subroutine pvec_vector_get_stream(vec, stream, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    type(c_ptr), intent(out) :: stream
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    stream = c_null_ptr
    call finish_c(c_pvec_vector_get_stream(vec%h, stream), stat, errmsg)
  end subroutine pvec_vector_get_stream

  !> Copy the listed properties (PVEC_POS for positions; absent: all and the positions) from
  !> the host to the device mirror. Blocks.
  subroutine pvec_host_to_device(vec, props, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer, intent(in), optional :: props(:)
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int), allocatable, target :: buf(:)
    type(c_ptr) :: p
    integer(c_int) :: n
    call props_arg(props, buf, p, n)
    call finish_c(c_pvec_host_to_device(vec%h, p, n), stat, errmsg)
  end subroutine pvec_host_to_device

  !> The reverse of pvec_host_to_device.
  subroutine pvec_device_to_host(vec, props, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer, intent(in), optional :: props(:)
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int), allocatable, target :: buf(:)
    type(c_ptr) :: p
    integer(c_int) :: n
    call props_arg(props, buf, p, n)
    call finish_c(c_pvec_device_to_host(vec%h, p, n), stat, errmsg)
  end subroutine pvec_device_to_host

  !> pvec_host_to_device ordered on stream, without waiting.
  subroutine pvec_host_to_device_async(vec, stream, props, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    type(c_ptr), intent(in) :: stream
    integer, intent(in), optional :: props(:)
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int), allocatable, target :: buf(:)
    type(c_ptr) :: p
    integer(c_int) :: n
    call props_arg(props, buf, p, n)
    call finish_c(c_pvec_host_to_device_async(vec%h, p, n, stream), stat, errmsg)
  end subroutine pvec_host_to_device_async

  !> pvec_device_to_host ordered on stream, without waiting.
  subroutine pvec_device_to_host_async(vec, stream, props, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    type(c_ptr), intent(in) :: stream
    integer, intent(in), optional :: props(:)
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int), allocatable, target :: buf(:)
    type(c_ptr) :: p
    integer(c_int) :: n
    call props_arg(props, buf, p, n)
    call finish_c(c_pvec_device_to_host_async(vec%h, p, n, stream), stat, errmsg)
  end subroutine pvec_device_to_host_async

  !> Wait for all work pvec ordered on the vector's stream.
  subroutine pvec_vector_synchronize(vec, stat, errmsg)
    type(pvec_vector), intent(in) :: vec
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    call finish_c(c_pvec_vector_synchronize(vec%h), stat, errmsg)
  end subroutine pvec_vector_synchronize
end module pvec_transfers
