!> Neighbour search from Fortran (pvec.h section 10): a full Verlet list of 300 particles in a
!> periodic 3D box has, for every particle, exactly the neighbours a brute force over local and
!> ghost rows finds (counts, and every listed row within range, none twice); the half list holds
!> each local pair once; the cell list holds every row once; pvec_vector_sort reports whether rows
!> moved and makes lists stale (PVEC_ERROR_STATE with the message); the rebuild check follows
!> skin/2; a device-mirror list of the host backend equals the host one; bad input gives the
!> documented status and message.
program test_neighbors
  use, intrinsic :: iso_c_binding
  use pvec
  use ftest
  implicit none
  type(pvec_schema) :: s
  type(pvec_vector_desc) :: desc
  type(pvec_vector) :: vec
  type(pvec_verlet) :: full, half, dev, keyed
  type(pvec_cell_list) :: cells
  type(pvec_verlet_info) :: vi
  type(pvec_cell_list_info) :: ci
  real(c_double), pointer :: x(:, :)
  integer(c_int64_t), pointer :: off(:), hoff(:), koff(:), ids(:)
  integer(c_int32_t), pointer :: nbr(:), hnbr(:), co(:), cp(:), lo(:), knbr(:)
  integer(c_int32_t), allocatable :: seen(:)
  integer(c_int64_t) :: n, ng, i, j, e, want, local_full, local_half
  integer(c_int64_t), parameter :: np = 300
  real(c_double), parameter :: rc = 0.15d0, skin = 0.05d0, ghost = 0.25d0
  real(c_double) :: r2, x0
  logical :: moved, rebuild
  integer :: st, d
  integer(c_int64_t) :: seed
  character(len=400) :: msg

  call pvec_init()
  call pvec_schema_create(s)
  call pvec_schema_add_scalar(s, 'id', PVEC_INT64)
  desc%dim = 3
  desc%boundary(1:3) = PVEC_PERIODIC
  desc%ghost_width = ghost
  desc%n_particles = np
  desc%backend = PVEC_BACKEND_HOST
  call pvec_vector_create(desc, s, vec)
  call pvec_schema_destroy(s)

  call pvec_host_view(vec, PVEC_POS, x)
  seed = 12345
  do i = 1, np
    do d = 1, 3
      seed = modulo(seed * 1103515245_c_int64_t + 12345_c_int64_t, 2147483648_c_int64_t)
      x(i, d) = real(seed, c_double) / 2147483648.0d0
    end do
  end do
  call pvec_map(vec)
  call pvec_ghost_get(vec)
  call pvec_vector_get_size(vec, n)
  call pvec_vector_get_ghost_size(vec, ng)
  call pvec_host_view(vec, PVEC_POS, x)
  call check(ng > 0, 'a periodic box has ghosts')

  ! ---- Full list against a brute force over local and ghost rows (1-based: row + 1) ----------
  call pvec_verlet_create(vec, rc, skin, full)
  call pvec_verlet_arrays(full, off, nbr, info=vi)
  call check(vi%half == 0 .and. vi%n == n .and. size(off) == n + 1, 'full list sizes')
  call check(off(n + 1) == vi%n_pairs .and. size(nbr) == vi%n_pairs, 'offsets end at n_pairs')
  allocate (seen(n + ng))
  seen = 0
  local_full = 0
  do i = 1, n
    want = 0
    do j = 1, n + ng
      if (j /= i .and. dist2(i, j) < (rc + skin)**2) want = want + 1
    end do
    call check(off(i + 1) - off(i) == want, 'neighbour count of particle '//itoa(i))
    do e = off(i) + 1, off(i + 1)
      j = nbr(e) + 1
      call check(j >= 1 .and. j <= n + ng .and. j /= i, 'row in range')
      call check(dist2(i, j) < (rc + skin)**2, 'listed neighbour within cutoff + skin')
      call check(seen(j) /= int(i, c_int32_t), 'neighbour listed twice')
      seen(j) = int(i, c_int32_t)
      if (j <= n) local_full = local_full + 1
    end do
  end do

  ! ---- Half list: each local pair once ------------------------------------------------------------
  call pvec_verlet_create(vec, rc, skin, half, flags=PVEC_VERLET_HALF)
  call pvec_verlet_arrays(half, hoff, hnbr, info=vi)
  call check(vi%half /= 0, 'half flag')
  local_half = 0
  do i = 1, n
    do e = hoff(i) + 1, hoff(i + 1)
      if (hnbr(e) + 1 <= n) local_half = local_half + 1
    end do
  end do
  call check(local_full == 2 * local_half, 'half list holds each local pair once')

  ! ---- Key order: ids that fall with the row, brought to the ghosts; neighbours by ascending id ---
  call pvec_host_view(vec, 0, ids)
  do i = 1, n
    ids(i) = 1000 - i
  end do
  call pvec_ghost_get(vec, [0], flags=PVEC_GHOST_REUSE_PLAN)
  call pvec_host_view(vec, 0, ids)
  call pvec_verlet_create(vec, rc, skin, keyed, key_prop=0)
  call pvec_verlet_arrays(keyed, koff, knbr)
  call check(all(koff == off), 'a key-ordered list has the same counts')
  do i = 1, n
    do e = koff(i) + 2, koff(i + 1)
      call check(ids(knbr(e - 1) + 1) < ids(knbr(e) + 1), 'neighbours in ascending id')
    end do
  end do
  call pvec_verlet_destroy(keyed)
  call pvec_verlet_create(vec, rc, skin, keyed, key_prop=PVEC_POS, stat=st)
  call check(st == PVEC_ERROR_INVALID_ARGUMENT, 'positions are no key')

  ! ---- Cell list with ghosts: every row once, locals first in each cell ---------------------------
  call pvec_cell_list_create(vec, 0.2d0, cells, cells_per_cutoff=2, flags=PVEC_CELLS_GHOSTS)
  call pvec_cell_list_arrays(cells, co, cp, lo, info=ci)
  call check(ci%dim == 3 .and. ci%span == 2 .and. ci%n_entries == n + ng, 'cell list sizes')
  call check(ci%ncells == product(ci%dims) .and. size(co) == ci%ncells + 1, 'cell count')
  call check(co(ci%ncells + 1) == n + ng .and. lo(ci%ncells + 1) == n, 'cell list totals')
  seen = 0
  do e = 1, ci%n_entries
    seen(cp(e) + 1) = seen(cp(e) + 1) + 1
  end do
  call check(all(seen == 1), 'every row in exactly one cell')
  do i = 1, ci%ncells  ! 1-based i is C's cell i-1
    do e = co(i) + 1, co(i) + (lo(i + 1) - lo(i))
      call check(cp(e) < n, 'the locals of a cell come first')
    end do
  end do

  ! ---- Rebuild check ------------------------------------------------------------------------------
  call pvec_verlet_check(full, rebuild)
  call check(.not. rebuild, 'no rebuild right after the build')
  x0 = x(1, 1)
  x(1, 1) = x0 + 0.4d0 * skin
  call pvec_verlet_check(full, rebuild)
  call check(.not. rebuild, 'moved less than skin/2')
  x(1, 1) = x0 + 0.6d0 * skin
  call pvec_verlet_check(full, rebuild)
  call check(rebuild, 'moved more than skin/2')
  x(1, 1) = x0

  ! ---- Sort makes lists stale ---------------------------------------------------------------------
  call pvec_vector_sort(vec, 0.1d0, moved=moved)
  call check(moved, 'random rows move')
  call pvec_vector_sort(vec, 0.1d0, moved=moved)
  call check(.not. moved, 'rows in cell order stay')
  msg = ''
  call pvec_verlet_get_info(full, vi, stat=st, errmsg=msg)
  call check_status(st, PVEC_ERROR_STATE, 'stale list')
  call check(index(msg, 'stale') > 0, 'stale message: '//trim(msg))
  call pvec_cell_list_arrays(cells, co, cp, stat=st)
  call check_status(st, PVEC_ERROR_STATE, 'stale cell list arrays')
  call check(.not. associated(co), 'no arrays from a stale list')
  call pvec_ghost_get(vec)
  call pvec_verlet_build(full)
  call pvec_cell_list_build(cells)
  call pvec_cell_list_get_info(cells, ci)
  call check(ci%sorted /= 0, 'a sorted vector gives a sorted cell list')
  call pvec_vector_sort(vec, 0.1d0, flags=PVEC_SORT_HALO_FIRST, moved=moved)
  call check(moved, 'row-major rows move to the halo-first order')
  call pvec_vector_sort(vec, 0.1d0, flags=PVEC_SORT_HALO_FIRST, moved=moved)
  call check(.not. moved, 'rows in halo-first order stay')
  call pvec_ghost_get(vec)
  call pvec_verlet_build(full)
  call pvec_cell_list_build(cells)

  ! ---- A device list of the host backend is host memory: Fortran arrays, the same counts -----------
  call pvec_host_to_device(vec)
  call pvec_verlet_create(vec, rc, skin, dev, flags=PVEC_ON_DEVICE)
  call pvec_verlet_get_info(dev, vi)
  call check(vi%on_device == 0, 'host backend: device-mirror arrays are host memory')
  call pvec_verlet_arrays(dev, hoff, hnbr)
  call pvec_verlet_arrays(full, off, nbr)
  call check(all(hoff == off), 'device-mirror list equals the host-mirror list')
  call pvec_verlet_destroy(dev)

  ! ---- Bad input: status and message, nothing created ---------------------------------------------
  msg = ''
  call pvec_verlet_create(vec, 0.2d0, 0.1d0, dev, stat=st, errmsg=msg)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'cutoff + skin above the ghost width')
  call check(index(msg, 'ghost width') > 0, 'message names the ghost width: '//trim(msg))
  call check(.not. c_associated(pvec_c_handle(dev)), 'no list on failure')
  call pvec_cell_list_create(vec, -1.0d0, cells, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'negative cutoff')
  call pvec_cell_list_create(vec, 0.1d0, cells, cells_per_cutoff=9, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'cells_per_cutoff 9')
  call pvec_vector_sort(vec, 0.0d0, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'zero cell width')
  call pvec_vector_sort(vec, 0.1d0, flags=ior(PVEC_SORT_HALO_FIRST, PVEC_SORT_MORTON), stat=st)
  call check_status(st, PVEC_ERROR_INVALID_ARGUMENT, 'halo-first with Morton')
  call pvec_verlet_build(dev, stat=st)
  call check_status(st, PVEC_ERROR_INVALID_HANDLE, 'NULL list')

  call pvec_verlet_destroy(full)
  call pvec_verlet_destroy(half)
  call pvec_vector_destroy(vec)
  call pvec_finalize()
  print '(a)', 'test_neighbors: OK'

contains

  real(c_double) function dist2(a, b)
    integer(c_int64_t), intent(in) :: a, b
    dist2 = sum((x(b, :) - x(a, :))**2)
  end function dist2

  function itoa(k) result(r)
    integer(c_int64_t), intent(in) :: k
    character(len=:), allocatable :: r
    character(len=24) :: buf
    write (buf, '(i0)') k
    r = trim(buf)
  end function itoa

end program test_neighbors
