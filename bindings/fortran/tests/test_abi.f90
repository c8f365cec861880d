!> The binding agrees with the library: the defaults of pvec_vector_desc, the library version,
!> strings, memory statistics before pvec_init. Struct sizes and field offsets, constants and
!> one bind(C) interface per exported function are checked against the ABI description
!> (abi/pvec_abi.json) by the generated test fortran_abi_generated and by
!> fortran_abi_interfaces (see abi/README.md).
program test_abi
  use, intrinsic :: iso_c_binding
  use pvec
  use ftest
  implicit none
  type(pvec_vector_desc), target :: desc, cdesc
  type(pvec_memory_stats), target :: ms
  integer :: st
  character(len=8) :: num

  ! ---- Defaults of pvec_vector_desc = PVEC_VECTOR_DESC_INIT --------------------------------------
  call pvec_vector_desc_init(cdesc)
  call check(cdesc%struct_size == c_sizeof(cdesc), 'desc_init struct_size')
  call check(desc%dim == cdesc%dim .and. desc%pos_dtype == cdesc%pos_dtype, 'desc dim/dtype')
  call check(all(desc%domain_lo == cdesc%domain_lo) .and. &
             all(desc%domain_hi == cdesc%domain_hi), 'desc default box')
  call check(all(desc%boundary == cdesc%boundary), 'desc default boundary')
  call check(desc%ghost_width == cdesc%ghost_width .and. &
             desc%n_particles == cdesc%n_particles, 'desc ghost width / count')
  call check(desc%placement == cdesc%placement .and. desc%backend == cdesc%backend .and. &
             desc%host_memory == cdesc%host_memory, 'desc enums')
  call check(desc%has_comm == cdesc%has_comm .and. desc%comm_f == cdesc%comm_f, 'desc comm')
  call pvec_vector_desc_set_comm(desc, 7)
  call check(desc%has_comm == 1 .and. desc%comm_f == 7, 'pvec_vector_desc_set_comm')

  ! ---- Versions and strings ----------------------------------------------------------------------
  call check(pvec_version_number() == PVEC_BINDING_VERSION_NUMBER, &
             'library version differs from the binding')
  write (num, '(i0,".",i0,".",i0)') PVEC_VERSION_MAJOR, PVEC_VERSION_MINOR, PVEC_VERSION_PATCH
  call check(pvec_version_string() == trim(num), 'version string: '//pvec_version_string())
  call check(pvec_status_string(PVEC_ERROR_INVALID_HANDLE) == 'invalid handle', &
             'status string: '//pvec_status_string(PVEC_ERROR_INVALID_HANDLE))
  call check(len(pvec_status_string(999)) > 0, 'status string of an unknown status')
  call check(pvec_dtype_name(PVEC_FLOAT32) == 'float32', 'dtype name')
  call check(pvec_dtype_name(77) == 'unknown', 'unknown dtype name')
  call check(pvec_dtype_size(PVEC_FLOAT64) == 8 .and. pvec_dtype_size(PVEC_UINT32) == 4 .and. &
             pvec_dtype_size(0) == 0, 'dtype sizes')

  ! ---- State before pvec_init --------------------------------------------------------------------
  call pvec_memory_get_stats(ms, stat=st)
  call check_status(st, PVEC_SUCCESS, 'memory stats')
  call check(ms%host_bytes >= 0 .and. ms%device_bytes >= 0, 'memory stats values')

  print '(a)', 'test_abi: OK'

end program test_abi
