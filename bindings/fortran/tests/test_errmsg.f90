!> errmsg= beside stat=, as in Fortran's ALLOCATE: on failure errmsg receives pvec_last_error()
!> (blank-padded or truncated to its length, as by assignment), on success it is untouched.
program test_errmsg
  use, intrinsic :: iso_c_binding
  use pvec
  use ftest
  implicit none
  character(len=*), parameter :: keep = 'untouched'
  type(pvec_schema) :: schema
  type(pvec_vector_desc) :: desc
  type(pvec_vector) :: vec, bad
  type(pvec_layout) :: lay
  type(pvec_memory_stats) :: ms
  type(pvec_op_stats) :: ops
  type(pvec_option_info) :: oinfo
  type(c_ptr) :: p
  character(len=200) :: msg
  character(len=12) :: short
  character(len=:), allocatable :: dl
  real(c_double), pointer :: v1(:)
  real(c_float), pointer :: f1(:)
  real(c_double) :: lo(4), hi(4), w
  integer :: st, i4, prop, bc(4)
  integer(c_int64_t) :: i8
  logical :: flag

  msg = keep
  call pvec_init(stat=st, errmsg=msg)
  call check(st == PVEC_SUCCESS .and. msg == keep, 'init: success untouched')

  ! Success: errmsg untouched.
  msg = keep
  call pvec_schema_create(schema, st, msg)
  call check(st == PVEC_SUCCESS .and. msg == keep, 'success leaves errmsg untouched')
  call pvec_schema_add_scalar(schema, 's', PVEC_FLOAT64, prop, stat=st, errmsg=msg)
  call check(st == PVEC_SUCCESS .and. msg == keep, 'success leaves errmsg untouched (add)')

  ! Failure: errmsg = pvec_last_error(), padded.
  call pvec_schema_add_scalar(schema, 's', PVEC_FLOAT64, stat=st, errmsg=msg)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'duplicate name')
  call check(len_trim(msg) > 0 .and. msg == pvec_last_error(), &
             'errmsg is pvec_last_error(): '//trim(msg))
  call check(index(msg, '"s"') > 0, 'errmsg names the property: '//trim(msg))

  ! A short variable receives the start of the message, as by assignment.
  short = keep
  call pvec_schema_add_scalar(schema, 's', PVEC_FLOAT64, stat=st, errmsg=short)
  dl = pvec_last_error()
  call check(st /= PVEC_SUCCESS .and. len(dl) > len(short), 'a message longer than short')
  call check(short == dl(1:len(short)), 'errmsg truncated to its length')
  ! A deferred-length allocatable that is allocated is used at its current length.
  dl = repeat('x', 30)
  call pvec_schema_add_scalar(schema, 's', PVEC_FLOAT64, stat=st, errmsg=dl)
  msg = pvec_last_error()
  call check(len(dl) == 30 .and. dl == msg(1:30), 'allocated deferred-length errmsg')

  desc%dim = 2
  desc%n_particles = 10
  desc%placement = PVEC_PLACE_LOCAL
  msg = keep
  call pvec_vector_create(desc, schema, vec, st, msg)
  call check(st == PVEC_SUCCESS .and. msg == keep, 'create: success untouched')
  call pvec_schema_destroy(schema, st, msg)
  call check(st == PVEC_SUCCESS .and. msg == keep, 'schema_destroy: success untouched')

  ! Failures found by the binding itself (dtype mismatch of a view).
  call pvec_host_view(vec, prop, f1, st, msg)
  call check_status(st, PVEC_ERROR_DTYPE_MISMATCH, 'view of the wrong kind')
  call check(msg == pvec_last_error() .and. index(msg, 'real(c_float)') > 0, &
             'binding-side message in errmsg: '//trim(msg))
  msg = keep
  call pvec_host_view(vec, prop, v1, st, msg)
  call check(st == PVEC_SUCCESS .and. msg == keep, 'view: success untouched')
  call pvec_vector_remove(vec, [100], st, msg)
  call check_status(st, PVEC_ERROR_OUT_OF_RANGE, 'remove out of range')
  call check(msg == pvec_last_error(), 'remove: errmsg')
  call pvec_vector_append(vec, -1, i8, stat=st, errmsg=msg)
  call check(st /= PVEC_SUCCESS .and. msg == pvec_last_error(), 'append: errmsg')
  p = pvec_host_ptr(vec, 99, st, msg)
  call check(st /= PVEC_SUCCESS .and. msg == pvec_last_error() .and. len_trim(msg) > 0, &
             'pvec_host_ptr: errmsg')
  msg = keep
  p = pvec_device_ptr(vec, prop, stat=st, errmsg=msg)
  call check(st == PVEC_SUCCESS .and. msg == keep, 'pvec_device_ptr: success untouched')

  ! Every wrapper with stat= takes errmsg=: each fails on a NULL vector and fills errmsg.
  msg = keep
  call pvec_vector_get_size(bad, i8, st, msg)
  call got()
  call pvec_vector_get_size(bad, i4, st, msg)
  call got()
  call pvec_vector_get_ghost_size(bad, i8, st, msg)
  call got()
  call pvec_vector_get_capacity(bad, i4, st, msg)
  call got()
  call pvec_vector_get_dim(bad, i4, st, msg)
  call got()
  call pvec_vector_get_pos_dtype(bad, i4, st, msg)
  call got()
  call pvec_vector_get_domain(bad, lo, hi, st, msg)
  call got()
  call pvec_vector_get_subdomain(bad, lo, hi, st, msg)
  call got()
  call pvec_vector_get_boundaries(bad, bc, st, msg)
  call got()
  call pvec_vector_get_ghost_width(bad, w, st, msg)
  call got()
  call pvec_vector_get_prop_count(bad, i4, st, msg)
  call got()
  call pvec_vector_get_prop_index(bad, 's', i4, st, msg)
  call got()
  call pvec_vector_get_backend(bad, i4, st, msg)
  call got()
  call pvec_vector_get_device(bad, i4, st, msg)
  call got()
  call pvec_vector_get_generation(bad, i8, st, msg)
  call got()
  call pvec_vector_reserve(bad, 10, st, msg)
  call got()
  call pvec_vector_resize(bad, 10_c_int64_t, st, msg)
  call got()
  call pvec_vector_append(bad, 1, i4, st, msg)
  call got()
  call pvec_vector_append(bad, 1_c_int64_t, stat=st, errmsg=msg)
  call got()
  call pvec_vector_remove(bad, [1_c_int64_t], st, msg)
  call got()
  call pvec_vector_shrink_to_fit(bad, st, msg)
  call got()
  call pvec_vector_get_layout(bad, 0, lay, st, msg)
  call got()
  call pvec_host_view(bad, 0, v1, st, msg)
  call got()
  call pvec_vector_set_stream(bad, c_null_ptr, st, msg)
  call got()
  call pvec_vector_get_stream(bad, p, st, msg)
  call got()
  call pvec_host_to_device(bad, stat=st, errmsg=msg)
  call got()
  call pvec_device_to_host(bad, [0], st, msg)
  call got()
  call pvec_host_to_device_async(bad, c_null_ptr, stat=st, errmsg=msg)
  call got()
  call pvec_device_to_host_async(bad, c_null_ptr, stat=st, errmsg=msg)
  call got()
  call pvec_vector_synchronize(bad, st, msg)
  call got()
  call pvec_vector_get_rank(bad, i4, st, msg)
  call got()
  call pvec_vector_get_nranks(bad, i4, st, msg)
  call got()
  call pvec_vector_get_owner_rank(bad, lo, i4, st, msg)
  call got()
  call pvec_map(bad, stat=st, errmsg=msg)
  call got()
  call pvec_map(bad, 0, i4, st, msg)
  call got()
  call pvec_ghost_get(bad, stat=st, errmsg=msg)
  call got()
  call pvec_ghost_put(bad, PVEC_REDUCE_ADD, stat=st, errmsg=msg)
  call got()
  call pvec_ghost_get_begin(bad, stat=st, errmsg=msg)
  call got()
  call pvec_ghost_get_end(bad, st, msg)
  call got()
  call pvec_ghost_put_begin(bad, PVEC_REDUCE_ADD, stat=st, errmsg=msg)
  call got()
  call pvec_ghost_put_end(bad, st, msg)
  call got()
  call pvec_vector_get_op_stats(bad, ops, st, msg)
  call got()
  call pvec_vector_reduce(bad, 0, PVEC_REDUCE_ADD, w, stat=st, errmsg=msg)
  call got()
  call pvec_vector_allreduce(bad, w, PVEC_REDUCE_ADD, st, msg)
  call got()
  call pvec_vector_destroy(bad, st, msg)
  call got()
  call pvec_schema_get_count(pvec_schema(), i4, st, msg)
  call got()
  call pvec_schema_add(pvec_schema(), 'x', PVEC_FLOAT64, stat=st, errmsg=msg)
  call got()
  call pvec_schema_add(pvec_schema(), 'x', PVEC_FLOAT64, [2_c_int64_t], stat=st, errmsg=msg)
  call got()
  call pvec_schema_add_vector(pvec_schema(), 'x', PVEC_FLOAT64, 2, stat=st, errmsg=msg)
  call got()
  call pvec_schema_add_tensor(pvec_schema(), 'x', PVEC_FLOAT64, 2, 2_c_int64_t, stat=st, &
                              errmsg=msg)
  call got()
  call pvec_schema_destroy(schema, st, msg)   ! already destroyed: stale
  call got()
  call pvec_options_get_info(0, oinfo, st, msg)
  call got()
  call pvec_options_set('PVEC_NO_SUCH_OPTION', stat=st, errmsg=msg)
  call got()

  ! Successes of the remaining ones leave errmsg alone.
  msg = keep
  call pvec_initialized(flag, st, msg)
  call pvec_cuda_device_count(i4, st, msg)
  call pvec_vector_desc_init(desc, st, msg)
  call pvec_memory_get_stats(ms, st, msg)
  call pvec_options_get_count(i4, st, msg)
  call pvec_options_get_info(1, oinfo, st, msg)
  call pvec_options_get_text(dl, st, msg)
  call pvec_options_set('PVEC_STAGED_TRANSFER', 'auto', st, msg)
  call pvec_vector_destroy(vec, st, msg)
  call check(msg == keep, 'successes leave errmsg untouched')
  call pvec_finalize(st, msg)
  call check(st == PVEC_SUCCESS .and. msg == keep, 'finalize: untouched')
  print '(a)', 'test_errmsg: OK'

contains

  !> The last call failed and errmsg holds pvec_last_error(); reset for the next one.
  subroutine got()
    integer, save :: n = 0
    character(len=8) :: k
    n = n + 1
    write (k, '(i0)') n
    call check(st /= PVEC_SUCCESS, 'NULL-handle call '//trim(k)//' failed')
    call check(msg /= keep .and. len_trim(msg) > 0 .and. msg == pvec_last_error(), &
               'NULL-handle call '//trim(k)//': errmsg is pvec_last_error(): '//trim(msg))
    msg = keep
    st = PVEC_SUCCESS
  end subroutine got
end program test_errmsg
