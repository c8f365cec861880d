!> The binding agrees with pvec.h: struct sizes and every field offset, every constant, the
!> defaults of pvec_vector_desc, the library version, and one bind(C) interface per exported
!> function (taking their addresses makes the link fail if a name is wrong).
program test_abi
  use, intrinsic :: iso_c_binding
  use pvec
  use ftest
  implicit none
  type(pvec_vector_desc), target :: desc, cdesc
  type(pvec_layout), target :: lay
  type(pvec_memory_stats), target :: ms
  type(pvec_op_stats), target :: ops
  integer(c_int64_t), allocatable :: f_offsets(:)
  integer(c_int64_t), allocatable :: f_constants(:)
  type(c_funptr) :: fns(57)
  integer :: i, ok, st
  character(len=8) :: num

  ! ---- Sizes and offsets -------------------------------------------------------------------------
  call check(c_sizeof(desc) == pvec_ftest_sizeof(0), 'sizeof(pvec_vector_desc)')
  call check(c_sizeof(lay) == pvec_ftest_sizeof(1), 'sizeof(pvec_layout)')
  call check(c_sizeof(ms) == pvec_ftest_sizeof(2), 'sizeof(pvec_memory_stats)')
  call check(c_sizeof(ops) == pvec_ftest_sizeof(3), 'sizeof(pvec_op_stats)')

  f_offsets = [off(c_loc(desc%struct_size)), off(c_loc(desc%dim)), off(c_loc(desc%pos_dtype)), &
               off(c_loc(desc%domain_lo)), off(c_loc(desc%domain_hi)), &
               off(c_loc(desc%boundary)), off(c_loc(desc%ghost_width)), &
               off(c_loc(desc%n_particles)), off(c_loc(desc%placement)), &
               off(c_loc(desc%backend)), off(c_loc(desc%host_memory)), &
               off(c_loc(desc%has_comm)), off(c_loc(desc%comm_f))]
  call compare_offsets(0, f_offsets, 'pvec_vector_desc')
  f_offsets = [offl(c_loc(lay%struct_size)), offl(c_loc(lay%prop)), offl(c_loc(lay%name)), &
               offl(c_loc(lay%dtype)), offl(c_loc(lay%elem_size)), offl(c_loc(lay%rank)), &
               offl(c_loc(lay%extents)), offl(c_loc(lay%ncomp)), offl(c_loc(lay%capacity)), &
               offl(c_loc(lay%stride_elems)), offl(c_loc(lay%stride_bytes)), &
               offl(c_loc(lay%n_local)), offl(c_loc(lay%n_ghost)), &
               offl(c_loc(lay%generation)), offl(c_loc(lay%host_ptr)), &
               offl(c_loc(lay%device_ptr))]
  call compare_offsets(1, f_offsets, 'pvec_layout')
  f_offsets = [offm(c_loc(ms%struct_size)), offm(c_loc(ms%host_bytes)), &
               offm(c_loc(ms%pinned_bytes)), offm(c_loc(ms%device_bytes)), &
               offm(c_loc(ms%host_allocs)), offm(c_loc(ms%pinned_allocs)), &
               offm(c_loc(ms%device_allocs))]
  call compare_offsets(2, f_offsets, 'pvec_memory_stats')
  f_offsets = [offo(c_loc(ops%struct_size)), offo(c_loc(ops%compute_seconds)), &
               offo(c_loc(ops%exchange_seconds)), offo(c_loc(ops%bytes_sent)), &
               offo(c_loc(ops%bytes_received)), offo(c_loc(ops%particles_sent)), &
               offo(c_loc(ops%particles_received)), offo(c_loc(ops%particles_self)), &
               offo(c_loc(ops%transport))]
  call compare_offsets(3, f_offsets, 'pvec_op_stats')

  ! ---- Constants, in the order of pvec_ftest_constant --------------------------------------------
  f_constants = [integer(c_int64_t) :: PVEC_VERSION_MAJOR, PVEC_VERSION_MINOR, &
                 PVEC_VERSION_PATCH, PVEC_BINDING_VERSION_NUMBER, &
                 PVEC_SUCCESS, PVEC_ERROR_INVALID_ARGUMENT, PVEC_ERROR_INVALID_HANDLE, &
                 PVEC_ERROR_OUT_OF_RANGE, PVEC_ERROR_OVERFLOW, PVEC_ERROR_OUT_OF_MEMORY, &
                 PVEC_ERROR_NO_DEVICE, PVEC_ERROR_CUDA, PVEC_ERROR_MPI, PVEC_ERROR_STATE, &
                 PVEC_ERROR_PARTICLES_OUTSIDE, PVEC_ERROR_DTYPE_MISMATCH, &
                 PVEC_ERROR_NOT_SUPPORTED, PVEC_ERROR_INTERNAL, PVEC_FLOAT32, PVEC_FLOAT64, &
                 PVEC_INT32, PVEC_INT64, PVEC_UINT32, PVEC_UINT64, PVEC_MAX_RANK, &
                 PVEC_MAX_NAME, PVEC_MAX_DIM, PVEC_POS, PVEC_NON_PERIODIC, PVEC_PERIODIC, &
                 PVEC_BACKEND_AUTO, PVEC_BACKEND_HOST, PVEC_BACKEND_CUDA, PVEC_HOST_PINNED, &
                 PVEC_HOST_PAGEABLE, PVEC_PLACE_EVEN, PVEC_PLACE_LOCAL, PVEC_ON_DEVICE, &
                 PVEC_MAP_REMOVE_OUTSIDE, PVEC_GHOST_SKIP_POSITIONS, PVEC_GHOST_REUSE_PLAN, &
                 PVEC_REDUCE_ADD, PVEC_REDUCE_MIN, PVEC_REDUCE_MAX, PVEC_REDUCE_REPLACE, &
                 PVEC_TRANSPORT_NONE, PVEC_TRANSPORT_MPI, PVEC_TRANSPORT_MPI_STAGED, &
                 PVEC_TRANSPORT_CUDA_IPC]
  do i = 1, size(f_constants)
    write (num, '(i0)') i
    call check(pvec_ftest_constant(i - 1, ok) == f_constants(i) .and. ok /= 0, &
               'constant number '//trim(num)//' differs from pvec.h')
  end do
  call check(pvec_ftest_constant(size(f_constants), ok) == 0 .and. ok == 0, &
             'pvec.h has more constants than the Fortran list')

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
  call pvec_memory_stats_get(ms, stat=st)
  call check_status(st, PVEC_SUCCESS, 'memory stats')
  call check(ms%host_bytes >= 0 .and. ms%device_bytes >= 0, 'memory stats values')

  ! ---- Every function of pvec.h has an interface bound to the exported name ----------------------
  fns = [c_funloc(c_pvec_version_number), c_funloc(c_pvec_version_string), &
         c_funloc(c_pvec_status_string), c_funloc(c_pvec_last_error), c_funloc(c_pvec_init), &
         c_funloc(c_pvec_finalize), c_funloc(c_pvec_initialized), &
         c_funloc(c_pvec_cuda_device_count), c_funloc(c_pvec_dtype_size), &
         c_funloc(c_pvec_dtype_name), c_funloc(c_pvec_schema_create), &
         c_funloc(c_pvec_schema_destroy), c_funloc(c_pvec_schema_add), &
         c_funloc(c_pvec_schema_add_scalar), c_funloc(c_pvec_schema_add_vector), &
         c_funloc(c_pvec_schema_add_tensor), c_funloc(c_pvec_schema_count), &
         c_funloc(c_pvec_vector_desc_init), c_funloc(c_pvec_vector_create), &
         c_funloc(c_pvec_vector_destroy), c_funloc(c_pvec_size), c_funloc(c_pvec_ghost_size), &
         c_funloc(c_pvec_capacity), c_funloc(c_pvec_dim), c_funloc(c_pvec_pos_dtype), &
         c_funloc(c_pvec_domain), c_funloc(c_pvec_boundaries), c_funloc(c_pvec_ghost_width), &
         c_funloc(c_pvec_prop_count), c_funloc(c_pvec_prop_index), &
         c_funloc(c_pvec_vector_backend), c_funloc(c_pvec_vector_device), &
         c_funloc(c_pvec_generation), &
         c_funloc(c_pvec_reserve), c_funloc(c_pvec_resize), c_funloc(c_pvec_append), &
         c_funloc(c_pvec_remove), c_funloc(c_pvec_shrink_to_fit), c_funloc(c_pvec_layout_get), &
         c_funloc(c_pvec_host_ptr), c_funloc(c_pvec_device_ptr), c_funloc(c_pvec_set_stream), &
         c_funloc(c_pvec_get_stream), c_funloc(c_pvec_host_to_device), &
         c_funloc(c_pvec_device_to_host), c_funloc(c_pvec_host_to_device_async), &
         c_funloc(c_pvec_device_to_host_async), c_funloc(c_pvec_synchronize), &
         c_funloc(c_pvec_comm_rank), c_funloc(c_pvec_comm_size), c_funloc(c_pvec_subdomain), &
         c_funloc(c_pvec_owner_rank), c_funloc(c_pvec_map), c_funloc(c_pvec_ghost_get), &
         c_funloc(c_pvec_ghost_put), c_funloc(c_pvec_memory_stats_get), &
         c_funloc(c_pvec_last_op_stats)]
  do i = 1, size(fns)
    call check(c_associated(fns(i)), 'function address')
  end do
  print '(a)', 'test_abi: OK'

contains

  function off(p) result(r)
    type(c_ptr), intent(in) :: p
    integer(c_int64_t) :: r
    r = int(addr(p) - addr(c_loc(desc)), c_int64_t)
  end function off
  function offl(p) result(r)
    type(c_ptr), intent(in) :: p
    integer(c_int64_t) :: r
    r = int(addr(p) - addr(c_loc(lay)), c_int64_t)
  end function offl
  function offm(p) result(r)
    type(c_ptr), intent(in) :: p
    integer(c_int64_t) :: r
    r = int(addr(p) - addr(c_loc(ms)), c_int64_t)
  end function offm

  function offo(p) result(r)
    type(c_ptr), intent(in) :: p
    integer(c_int64_t) :: r
    r = int(addr(p) - addr(c_loc(ops)), c_int64_t)
  end function offo

  subroutine compare_offsets(which, f, name)
    integer, intent(in) :: which
    integer(c_int64_t), intent(in) :: f(:)
    character(*), intent(in) :: name
    integer :: k
    character(len=8) :: kk
    do k = 1, size(f)
      write (kk, '(i0)') k
      call check(pvec_ftest_offsetof(which, k - 1) == f(k), &
                 name//': offset of field '//trim(kk)//' differs from C')
    end do
    call check(pvec_ftest_offsetof(which, size(f)) == -1, name//': C has more fields')
  end subroutine compare_offsets
end program test_abi
