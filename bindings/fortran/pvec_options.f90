!> pvec_options -- the run-time options (pvec.h "Run-time options", docs/options.md): how many
!> there are, each one's description and value in use, all of them as text, and setting one.
!> Local calls, callable at any time (before pvec_init too).
module pvec_options
  use, intrinsic :: iso_c_binding
  use pvec_capi
  use pvec_base, only: finish_c, c_str, pvec_c_string
  implicit none
  private
  public :: pvec_options_get_count, pvec_options_get_info, pvec_options_get_text
  public :: pvec_options_set

contains

  !> Number of run-time options.
  subroutine pvec_options_get_count(count, stat, errmsg)
    integer, intent(out) :: count
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int) :: c, st
    c = 0
    st = c_pvec_options_get_count(c)
    count = c
    call finish_c(st, stat, errmsg)
  end subroutine pvec_options_get_count

  !> Option number index, 1-based (1 .. count, unlike C's 0 .. count-1), and its value in use:
  !> info%name, %accepts, %default_value and %meaning are C strings (read them with
  !> pvec_c_string), info%value the value in use (-1 for "auto"), info%source one of
  !> PVEC_OPTION_DEFAULT, PVEC_OPTION_ENVIRONMENT, PVEC_OPTION_SET. PVEC_ERROR_OUT_OF_RANGE for an
  !> index outside 1 .. count.
  subroutine pvec_options_get_info(index, info, stat, errmsg)
    integer, intent(in) :: index
    type(pvec_option_info), intent(out) :: info
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    info%struct_size = c_sizeof(info)
    call finish_c(c_pvec_options_get_info(int(index - 1, c_int), info), stat, errmsg)
  end subroutine pvec_options_get_info

  !> Every option in use, one line each ("PVEC_IPC=1 (environment; default 1): meaning"), the
  !> lines separated by new_line('a'): print it to record what a run used.
  subroutine pvec_options_get_text(text, stat, errmsg)
    character(len=:), allocatable, intent(out) :: text
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    type(c_ptr) :: p
    integer(c_int) :: st
    p = c_null_ptr
    st = c_pvec_options_get_text(p)
    text = pvec_c_string(p)
    call finish_c(st, stat, errmsg)
  end subroutine pvec_options_get_text

  !> Set option name (e.g. 'PVEC_STAGED_TRANSFER') to value, as the environment variable takes
  !> it ('0', '1', 'auto', a device ordinal); value absent or blank: back to the default.
  !> Takes effect as docs/options.md says (PVEC_IPC and PVEC_SHM for vectors created afterwards,
  !> PVEC_DEVICE at pvec_init). Local: set it alike on every rank. PVEC_ERROR_INVALID_ARGUMENT
  !> for an unknown name or a value the option does not take; nothing changes then.
  subroutine pvec_options_set(name, value, stat, errmsg)
    character(*), intent(in) :: name
    character(*), intent(in), optional :: value
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    if (present(value)) then
      call finish_c(c_pvec_options_set(c_str(name), c_str(value)), stat, errmsg)
    else
      call finish_c(c_pvec_options_set(c_str(name), c_str('')), stat, errmsg)
    end if
  end subroutine pvec_options_set
end module pvec_options
