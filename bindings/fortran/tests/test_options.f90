!> Run-time options from Fortran (docs/options.md): the count, each option's description by
!> 1-based index, the text, setting one before and after pvec_init and back to its default,
!> and refused names, values and indices with their status and message.
program test_options
  use, intrinsic :: iso_c_binding
  use pvec
  use ftest
  implicit none
  type(pvec_option_info) :: info
  character(len=:), allocatable :: text, name
  character(len=300) :: msg
  integer :: n, k, st, staged, lines

  ! ---- Before pvec_init: every option described ---------------------------------------------------
  call pvec_options_get_count(n)
  call check(n >= 6, 'at least the six options of docs/options.md')
  staged = 0
  do k = 1, n
    call pvec_options_get_info(k, info)
    name = pvec_c_string(info%name)
    call check(len(name) > 5, 'option name')
    call check(name(1:5) == 'PVEC_', 'option names start with PVEC_: '//name)
    call check(len(pvec_c_string(info%accepts)) > 0, name//': accepts')
    call check(len(pvec_c_string(info%default_value)) > 0, name//': default')
    call check(len(pvec_c_string(info%meaning)) > 0, name//': meaning')
    call check(info%source == PVEC_OPTION_DEFAULT .or. info%source == PVEC_OPTION_ENVIRONMENT, &
               name//': source before any set')
    if (name == 'PVEC_STAGED_TRANSFER') staged = k
  end do
  call check(staged > 0, 'PVEC_STAGED_TRANSFER is an option')

  ! Indices are 1 .. count.
  call pvec_options_get_info(0, info, stat=st, errmsg=msg)
  call check_status(st, PVEC_ERROR_OUT_OF_RANGE, 'index 0')
  call check(msg == pvec_last_error() .and. len_trim(msg) > 0, 'errmsg of index 0')
  call pvec_options_get_info(n + 1, info, stat=st)
  call check_status(st, PVEC_ERROR_OUT_OF_RANGE, 'index count + 1')

  ! One line per option.
  call pvec_options_get_text(text)
  lines = 0
  do k = 1, len(text)
    if (text(k:k) == new_line('a')) lines = lines + 1
  end do
  call check(lines == n, 'one line per option')
  call check(index(text, 'PVEC_STAGED_TRANSFER=') > 0, 'the text names the options')

  ! ---- Set before pvec_init: wins over the environment ---------------------------------------------
  call pvec_options_set('PVEC_STAGED_TRANSFER', '0')
  call pvec_init()
  call pvec_options_get_info(staged, info)
  call check(info%value == 0 .and. info%source == PVEC_OPTION_SET, 'set before pvec_init kept')
  call pvec_options_get_text(text)
  call check(index(text, 'PVEC_STAGED_TRANSFER=0 (set by pvec_options_set') > 0, &
             'the text shows the value set: '//text)

  ! Trailing blanks are removed from name and value.
  call pvec_options_set('PVEC_STAGED_TRANSFER   ', '2  ')
  call pvec_options_get_info(staged, info)
  call check(info%value == 2 .and. info%source == PVEC_OPTION_SET, 'set to 2')

  ! Back to the default: value absent, or blank.
  call pvec_options_set('PVEC_STAGED_TRANSFER')
  call pvec_options_get_info(staged, info)
  call check(info%source == PVEC_OPTION_DEFAULT .and. info%value == -1, 'reset: default auto')
  call pvec_options_set('PVEC_STAGED_TRANSFER', '1')
  call pvec_options_set('PVEC_STAGED_TRANSFER', '', stat=st)
  call check_status(st, PVEC_SUCCESS, 'blank value')
  call pvec_options_get_info(staged, info)
  call check(info%source == PVEC_OPTION_DEFAULT .and. info%value == -1, 'blank: default auto')

  ! ---- Refused: nothing changes ----------------------------------------------------------------
  msg = ''
  call pvec_options_set('PVEC_NO_SUCH_OPTION', '1', st, msg)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'unknown option')
  call check(index(msg, 'PVEC_STAGED_TRANSFER') > 0, 'the message lists the options: '//trim(msg))
  call pvec_options_set('PVEC_STAGED_TRANSFER', '7', st, msg)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'value the option does not take')
  call check(msg == pvec_last_error(), 'errmsg of a refused value')
  call pvec_options_get_info(staged, info)
  call check(info%source == PVEC_OPTION_DEFAULT .and. info%value == -1, 'refused: unchanged')

  call pvec_finalize()
  print '(a)', 'test_options: OK'
end program test_options
