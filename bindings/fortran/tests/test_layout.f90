!> The layout law seen from Fortran: every view is a pointer into the host mirror whose leading
!> dimension is the capacity; writing v(i, c) is visible to C at base[(c-1)*C + (i-1)] and the
!> other way round; tensor[n][m] entry (a,b) is v(i, b+1, a+1); unsigned dtypes map to signed
!> kinds of the same size; wrong kinds and ranks are refused.
program test_layout
  use, intrinsic :: iso_c_binding
  use pvec
  use ftest
  implicit none
  type(pvec_schema) :: s
  type(pvec_vector_desc) :: desc
  type(pvec_vector) :: vec
  type(pvec_layout) :: lay
  real(c_float), pointer :: a(:), g(:, :, :), gflat(:, :)
  real(c_double), pointer :: b(:, :), h(:, :, :), x(:, :), wrong(:)
  integer(c_int32_t), pointer :: c(:, :, :), e(:, :), i32view(:)
  integer(c_int64_t), pointer :: d(:), f(:, :, :)
  integer(c_int64_t), parameter :: np = 100, cap = 128
  integer(c_int64_t) :: i, k, n, m, ia, ib
  real(c_double) :: lo(3), hi(3), short(2), gw
  integer :: bc(3), st, prop, dim, dt, cnt

  call pvec_init()
  call pvec_schema_create(s)
  call pvec_schema_add_scalar(s, 'a', PVEC_FLOAT32)
  call pvec_schema_add_vector(s, 'b', PVEC_FLOAT64, 3)
  call pvec_schema_add_tensor(s, 'c', PVEC_INT32, 2, 3)
  call pvec_schema_add_scalar(s, 'd', PVEC_INT64)
  call pvec_schema_add_vector(s, 'e', PVEC_UINT32, 2)
  call pvec_schema_add_tensor(s, 'f', PVEC_UINT64, 2, 2)
  call pvec_schema_add_tensor(s, 'g', PVEC_FLOAT32, 3, 2)
  call pvec_schema_add_tensor(s, 'h', PVEC_FLOAT64, 2, 2)
  desc%dim = 3
  desc%domain_lo(1:3) = [-1d0, 0d0, 2d0]
  desc%domain_hi(1:3) = [1d0, 4d0, 3d0]
  desc%boundary(1:3) = [PVEC_PERIODIC, PVEC_NON_PERIODIC, PVEC_PERIODIC]
  desc%ghost_width = 0.125d0
  desc%n_particles = np
  call pvec_vector_create(desc, s, vec)
  call pvec_schema_destroy(s)

  ! ---- Queries -----------------------------------------------------------------------------------
  call pvec_vector_get_size(vec, n)
  call check(n == np, 'size')
  call pvec_vector_get_capacity(vec, n)
  call check(n == cap, '100 particles give capacity 128')
  call pvec_vector_get_dim(vec, dim)
  call check(dim == 3, 'dim')
  call pvec_vector_get_pos_dtype(vec, dt)
  call check(dt == PVEC_FLOAT64, 'pos dtype')
  call pvec_vector_get_domain(vec, lo, hi)
  call check(all(lo == [-1d0, 0d0, 2d0]) .and. all(hi == [1d0, 4d0, 3d0]), 'domain')
  call pvec_vector_get_domain(vec, hi=hi)
  call check(all(hi == [1d0, 4d0, 3d0]), 'domain, hi only')
  call pvec_vector_get_domain(vec, short, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'domain into 2 values for dim 3')
  call check(index(pvec_last_error(), 'dim') > 0, 'short array message')
  call pvec_vector_get_boundaries(vec, bc)
  call check(all(bc == [PVEC_PERIODIC, PVEC_NON_PERIODIC, PVEC_PERIODIC]), 'boundaries')
  call pvec_vector_get_ghost_width(vec, gw)
  call check(gw == 0.125d0, 'ghost width')
  call pvec_vector_get_prop_count(vec, cnt)
  call check(cnt == 8, 'prop count')
  call pvec_vector_get_prop_index(vec, 'e', prop)
  call check(prop == 4, 'prop index of e')
  call pvec_vector_get_prop_index(vec, 'pos', prop)
  call check(prop == PVEC_POS, 'prop index of pos')
  call pvec_vector_get_prop_index(vec, 'nope', prop, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'unknown property name')

  ! ---- pvec_vector_get_layout ---------------------------------------------------------------------------
  call expect_layout(0, PVEC_FLOAT32, 0, [1_c_int64_t, 1_c_int64_t], 'a')
  call expect_layout(1, PVEC_FLOAT64, 1, [3_c_int64_t, 1_c_int64_t], 'b')
  call expect_layout(2, PVEC_INT32, 2, [2_c_int64_t, 3_c_int64_t], 'c')
  call expect_layout(5, PVEC_UINT64, 2, [2_c_int64_t, 2_c_int64_t], 'f')
  call expect_layout(PVEC_POS, PVEC_FLOAT64, 1, [3_c_int64_t, 1_c_int64_t], 'pos')

  ! ---- Scalars: v(i) = base[i-1] -----------------------------------------------------------------
  call pvec_host_view(vec, 0, a)
  call check(size(a) == cap, 'scalar view has capacity elements')
  call check(addr(c_loc(a(1))) == addr(pvec_host_ptr(vec, 0)), 'view starts at host_ptr')
  do i = 1, np
    a(i) = real(i, c_float) * 0.5
  end do
  do i = 1, np
    call check(c_read(vec, 0, i, 1_c_int64_t) == real(i, c_double) * 0.5d0, 'scalar f32 F->C')
  end do
  call pvec_host_view(vec, 3, d)
  do i = 1, np
    call c_write(vec, 3, i, 1_c_int64_t, real(1000 + i, c_double))
  end do
  call check(all(d(1:np) == [(1000 + i, i=1, np)]), 'scalar i64 C->F')

  ! ---- vector[n]: v(i, c+1) = base[c*C + i-1] ----------------------------------------------------
  call pvec_host_view(vec, 1, b)
  call check(size(b, 1) == cap .and. size(b, 2) == 3, 'vector view shape (C, 3)')
  call check(addr(c_loc(b(1, 2))) - addr(c_loc(b(1, 1))) == cap * 8, 'component stride = C')
  call check(addr(c_loc(b(2, 1))) - addr(c_loc(b(1, 1))) == 8, 'particle stride = 1')
  do k = 1, 3
    call check(modulo(addr(c_loc(b(1, k))), 256_c_intptr_t) == 0, 'rows 256-byte aligned')
    do i = 1, np
      b(i, k) = real(i * 10 + k, c_double)
    end do
  end do
  do k = 1, 3
    do i = 1, np
      call check(c_read(vec, 1, i, k) == real(i * 10 + k, c_double), 'vector F->C')
    end do
  end do
  call pvec_host_view(vec, 4, e)   ! uint32 through integer(c_int32_t)
  call check(size(e, 2) == 2, 'uint32 vector view shape')
  e(7, 2) = -1
  call check(c_read(vec, 4, 7_c_int64_t, 2_c_int64_t) == 4294967295d0, &
             'uint32 holds the bit pattern of int32 -1')
  call c_write(vec, 4, 3_c_int64_t, 1_c_int64_t, 2147483648d0)
  call check(e(3, 1) == -huge(e(3, 1)) - 1, 'uint32 2^31 reads as int32 minimum')

  ! ---- tensor[n][m]: v(i, b+1, a+1) = base[(a*m + b)*C + i-1] ------------------------------------
  call pvec_host_view(vec, 2, c)
  n = 2
  m = 3
  call check(size(c, 1) == cap .and. size(c, 2) == m .and. size(c, 3) == n, &
             'tensor[2][3] view is (C, 3, 2)')
  do ia = 0, n - 1
    do ib = 0, m - 1
      do i = 1, np
        c(i, ib + 1, ia + 1) = int(i * 100 + ia * 10 + ib, c_int32_t)
      end do
    end do
  end do
  do ia = 0, n - 1
    do ib = 0, m - 1
      do i = 1, np
        call check(c_read(vec, 2, i, ia * m + ib + 1) == real(i * 100 + ia * 10 + ib, c_double), &
                   'tensor entry (a,b) is component a*m+b')
      end do
    end do
  end do
  call check(addr(c_loc(c(1, 2, 1))) - addr(c_loc(c(1, 1, 1))) == cap * 4, 'entry (0,1) is +C')
  call check(addr(c_loc(c(1, 1, 2))) - addr(c_loc(c(1, 1, 1))) == m * cap * 4, &
             'entry (1,0) is +m*C')
  call pvec_host_view(vec, 6, g)   ! tensor[3][2] f32, written from C
  call check(size(g, 2) == 2 .and. size(g, 3) == 3, 'tensor[3][2] view is (C, 2, 3)')
  do ia = 0, 2
    do ib = 0, 1
      call c_write(vec, 6, 5_c_int64_t, ia * 2 + ib + 1, real(ia * 10 + ib, c_double))
    end do
  end do
  call check(g(5, 1, 1) == 0 .and. g(5, 2, 1) == 1 .and. g(5, 1, 2) == 10 .and. &
             g(5, 2, 3) == 21, 'tensor C->F')
  call pvec_host_view(vec, 6, gflat)   ! any property as (C, ncomp)
  call check(size(gflat, 2) == 6, 'flat tensor view (C, n*m)')
  call check(gflat(5, 2 * 2 + 1 + 1) == g(5, 2, 3), 'flat component a*m+b+1 = (i, b+1, a+1)')
  call pvec_host_view(vec, 5, f)
  f(1, 2, 2) = 42   ! uint64 entry (1,1)
  call check(c_read(vec, 5, 1_c_int64_t, 4_c_int64_t) == 42d0, 'uint64 tensor via int64')
  call pvec_host_view(vec, 7, h)
  call check(size(h, 2) == 2 .and. size(h, 3) == 2, 'f64 tensor view')

  ! ---- Positions: x(i, d+1) = pos[d*C + i-1] -----------------------------------------------------
  call pvec_host_view(vec, PVEC_POS, x)
  call check(size(x, 1) == cap .and. size(x, 2) == 3, 'positions view is (C, dim)')
  do k = 1, 3
    do i = 1, np
      x(i, k) = real(i, c_double) / 1000 + k
    end do
  end do
  do k = 1, 3
    do i = 1, np
      call check(c_read(vec, PVEC_POS, i, k) == real(i, c_double) / 1000 + k, 'positions F->C')
    end do
  end do

  ! ---- Refusals: the view stays disassociated and stat says why ----------------------------------
  call pvec_host_view(vec, 0, wrong, stat=st)
  call check_status(st, PVEC_ERROR_DTYPE_MISMATCH, 'f64 view of a float32 property')
  call check(.not. associated(wrong), 'refused view is disassociated')
  call check(index(pvec_last_error(), 'float32') > 0 .and. &
             index(pvec_last_error(), 'real(c_double)') > 0, 'mismatch message: '// &
             pvec_last_error())
  call pvec_host_view(vec, 3, i32view, stat=st)
  call check_status(st, PVEC_ERROR_DTYPE_MISMATCH, 'int32 view of an int64 property')
  call pvec_host_view(vec, 1, wrong, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'rank-1 view of a vector')
  call pvec_host_view(vec, 1, h, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'rank-3 view of a vector')
  call check(.not. associated(h), 'refused rank-3 view is disassociated')
  call pvec_host_view(vec, 99, b, stat=st)
  call check_status(st, PVEC_ERROR_OUT_OF_RANGE, 'view of property 99')
  call check(index(pvec_last_error(), '99') > 0, 'out-of-range message names the index')
  call check(.not. c_associated(pvec_host_ptr(vec, 99, stat=st)), 'host_ptr of property 99')
  call check_status(st, PVEC_ERROR_OUT_OF_RANGE, 'host_ptr of property 99')
  call pvec_host_view(vec, 1, b, stat=st)
  call check_status(st, PVEC_SUCCESS, 'a good view after refusals')
  call check(len(pvec_last_error()) == 0, 'success clears the Fortran-side message')

  call pvec_vector_destroy(vec)
  call pvec_finalize()
  print '(a)', 'test_layout: OK'

contains

  subroutine expect_layout(p, dtype, rank, ext, name)
    integer, intent(in) :: p, dtype, rank
    integer(c_int64_t), intent(in) :: ext(2)
    character(*), intent(in) :: name
    call pvec_vector_get_layout(vec, p, lay)
    call check(lay%prop == p .and. lay%dtype == dtype .and. lay%rank == rank, name//': kind')
    call check(all(lay%extents == ext) .and. lay%ncomp == product(ext), name//': shape')
    call check(lay%elem_size == pvec_dtype_size(dtype), name//': elem_size')
    call check(lay%capacity == cap .and. lay%stride_elems == cap .and. &
               lay%stride_bytes == cap * pvec_dtype_size(dtype), name//': strides')
    call check(lay%n_local == np .and. lay%n_ghost == 0, name//': sizes')
    call check(pvec_c_string(lay%name) == name, name//': name '//pvec_c_string(lay%name))
    call check(addr(lay%host_ptr) == addr(pvec_host_ptr(vec, p)), name//': host_ptr')
    call check(addr(lay%device_ptr) == addr(pvec_device_ptr(vec, p)), name//': device_ptr')
  end subroutine expect_layout
end program test_layout
