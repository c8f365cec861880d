!> Distribution from Fortran (pvec_map / pvec_ghost_get / pvec_ghost_put, implemented by the
!> library's dist layer): run on 1 and 2 ranks. 2D periodic unit box, 200 particles placed
!> EVEN with deterministic positions from their global id. Checks: map conserves the global
!> count and the id checksum and puts every particle in its rank's subdomain; ghost_get brings
!> ghosts that lie within the ghost width of the subdomain; ghost_put(ADD) of 1 from every
!> ghost adds up to the global ghost count; the split phase (pvec_ghost_get_begin/_end,
!> pvec_ghost_put_begin/_end) gives the blocking calls' rows, refuses pvec_map in flight and an
!> end without its begin with PVEC_ERROR_STATE.
program test_dist
  use, intrinsic :: iso_c_binding
  use mpi
  use pvec
  use ftest
  implicit none
  type(pvec_schema) :: s
  type(pvec_vector_desc) :: desc
  type(pvec_vector) :: vec
  type(pvec_op_stats) :: ops
  real(c_double), pointer :: x(:, :), w(:)
  real(c_double), allocatable :: xg(:, :), wg(:), wl(:)
  integer(c_int64_t), allocatable :: idg(:)
  integer(c_int64_t), pointer :: id(:)
  integer(c_int64_t) :: n, ng, i, first_id, total, idsum, n_removed, gtotal, wsum
  real(c_double) :: lo(2), hi(2), width, p(2)
  integer :: ierr, rank, nranks, owner, st
  integer(c_int64_t), parameter :: np = 200

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call pvec_init()

  call pvec_schema_create(s)
  call pvec_schema_add_scalar(s, 'id', PVEC_INT64)
  call pvec_schema_add_scalar(s, 'w', PVEC_FLOAT64)
  desc%dim = 2
  desc%domain_lo(1:2) = 0
  desc%domain_hi(1:2) = 1
  desc%boundary(1:2) = PVEC_PERIODIC
  desc%ghost_width = 0.05d0
  desc%n_particles = np
  call pvec_vector_desc_set_comm(desc, MPI_COMM_WORLD)
  call pvec_vector_create(desc, s, vec)
  call pvec_schema_destroy(s)

  ! Global ids: EVEN placement gives lower ranks the remainder, so rank r starts at r*(np/R) +
  ! min(r, mod(np, R)).
  first_id = rank * (np / nranks) + min(int(rank, c_int64_t), mod(np, int(nranks, c_int64_t)))
  call pvec_vector_get_size(vec, n)
  call pvec_host_view(vec, PVEC_POS, x)
  call pvec_host_view(vec, 0, id)
  do i = 1, n
    id(i) = first_id + i - 1
    ! Scattered positions, some outside [0,1) so that the periodic wrap is exercised.
    x(i, 1) = modulo(real(id(i), c_double) * 0.618034d0, 1.2d0) - 0.1d0
    x(i, 2) = modulo(real(id(i), c_double) * 0.414214d0, 1.0d0)
  end do

  call pvec_map(vec, n_removed=n_removed)
  call check(n_removed == 0, 'nothing removed in a periodic box')
  call pvec_vector_get_size(vec, n)
  call pvec_host_view(vec, PVEC_POS, x)   ! map invalidates views
  call pvec_host_view(vec, 0, id)
  call MPI_Allreduce(n, total, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Allreduce(sum(id(1:n)), idsum, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(total == np, 'map conserves the global count')
  call check(idsum == np * (np - 1) / 2, 'map conserves the ids')
  call pvec_vector_get_subdomain(vec, lo, hi)
  do i = 1, n
    call check(all(x(i, :) >= lo) .and. all(x(i, :) < hi), 'particle inside its subdomain')
    p = x(i, :)
    call pvec_vector_get_owner_rank(vec, p, owner)
    call check(owner == rank, 'owner_rank agrees with map')
  end do

  call pvec_ghost_get(vec)
  call pvec_vector_get_size(vec, n)
  call pvec_vector_get_ghost_size(vec, ng)
  call pvec_vector_get_ghost_width(vec, width)
  call pvec_host_view(vec, PVEC_POS, x)
  call pvec_host_view(vec, 1, w)
  do i = n + 1, n + ng
    call check(all(x(i, :) >= lo - width - 1d-12) .and. all(x(i, :) <= hi + width + 1d-12), &
               'ghost within the ghost width of the subdomain')
  end do
  w(1:n) = 0
  w(n + 1:n + ng) = 1
  call pvec_ghost_put(vec, PVEC_REDUCE_ADD, [1])
  call MPI_Allreduce(ng, gtotal, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Allreduce(nint(sum(w(1:n)), c_int64_t), wsum, 1, MPI_INTEGER8, MPI_SUM, &
                     MPI_COMM_WORLD, ierr)
  call check(gtotal > 0, 'a 0.05 halo in a periodic box has ghosts')
  call check(wsum == gtotal, 'ghost_put(ADD) returns one unit per ghost')

  ! Figures of the last operation (ghost_put) are there and sane.
  call pvec_vector_get_op_stats(vec, ops)
  call check(ops%compute_seconds >= 0 .and. ops%exchange_seconds >= 0, 'op stats times')
  call check(ops%bytes_sent >= 0 .and. ops%bytes_received >= 0 .and. &
             ops%particles_sent >= 0 .and. ops%particles_received >= 0, 'op stats counts')
  call check(ops%particles_self >= 0 .and. ops%particles_self <= ops%particles_sent, &
             'own periodic images are among the entries sent')
  if (ops%particles_sent > ops%particles_self) &
    call check(ops%bytes_sent > 0, 'entries for other ranks carry bytes')
  if (ops%particles_sent == ops%particles_self) &
    call check(ops%bytes_sent == 0, 'own periodic images travel in no message')
  call check(ops%transport >= PVEC_TRANSPORT_NONE .and. ops%transport <= PVEC_TRANSPORT_SHARED_MEMORY, &
             'op stats transport is a PVEC_TRANSPORT_* value')

  ! Split phase (pvec_ghost_get_begin/_end, pvec_ghost_put_begin/_end): bitwise the blocking
  ! calls. The blocking result is saved, the ghost rows overwritten, and the split call must
  ! bring the same rows back.
  call pvec_ghost_get_end(vec, stat=st)
  call check_status(st, PVEC_ERROR_STATE, 'pvec_ghost_get_end without a begin')
  call pvec_ghost_put_end(vec, stat=st)
  call check_status(st, PVEC_ERROR_STATE, 'pvec_ghost_put_end without a begin')
  call pvec_ghost_get(vec)
  call pvec_vector_get_ghost_size(vec, ng)
  call pvec_host_view(vec, PVEC_POS, x)
  call pvec_host_view(vec, 0, id)
  call pvec_host_view(vec, 1, w)
  xg = x(n + 1:n + ng, :)
  idg = id(n + 1:n + ng)
  wg = w(n + 1:n + ng)
  x(n + 1:n + ng, :) = -7
  id(n + 1:n + ng) = -7
  w(n + 1:n + ng) = -7
  call pvec_ghost_get_begin(vec)
  call pvec_map(vec, stat=st)
  call check_status(st, PVEC_ERROR_STATE, 'pvec_map while a ghost_get is in flight')
  call pvec_ghost_get(vec, stat=st)
  call check_status(st, PVEC_ERROR_STATE, 'pvec_ghost_get while a ghost_get is in flight')
  call pvec_ghost_put_end(vec, stat=st)
  call check_status(st, PVEC_ERROR_STATE, 'pvec_ghost_put_end while a ghost_get is in flight')
  call pvec_ghost_get_end(vec)
  call pvec_ghost_get_end(vec, stat=st)
  call check_status(st, PVEC_ERROR_STATE, 'a second pvec_ghost_get_end')
  call pvec_vector_get_size(vec, i)
  call check(i == n, 'split ghost_get keeps the local count')
  call pvec_vector_get_ghost_size(vec, i)
  call check(i == ng, 'split ghost_get: the blocking ghost count')
  call pvec_host_view(vec, PVEC_POS, x)
  call pvec_host_view(vec, 0, id)
  call pvec_host_view(vec, 1, w)
  call check(all(x(n + 1:n + ng, :) == xg) .and. all(id(n + 1:n + ng) == idg) .and. &
             all(w(n + 1:n + ng) == wg), 'split ghost_get: the blocking ghost rows')
  ! The listed property with the plan replayed and the positions left out.
  w(1:n) = real(id(1:n), c_double) + 0.25d0
  call pvec_ghost_get(vec, [1], ior(PVEC_GHOST_REUSE_PLAN, PVEC_GHOST_SKIP_POSITIONS))
  wg = w(n + 1:n + ng)
  w(n + 1:n + ng) = -7
  call pvec_ghost_get_begin(vec, [1], ior(PVEC_GHOST_REUSE_PLAN, PVEC_GHOST_SKIP_POSITIONS))
  call pvec_ghost_get_end(vec)
  call pvec_host_view(vec, 1, w)
  call check(all(w(n + 1:n + ng) == wg), 'split ghost_get with a replayed plan')
  ! ghost_put(ADD): the blocking result saved, the local rows reset, the split one compared.
  w(1:n) = 0.5d0
  w(n + 1:n + ng) = 1
  call pvec_ghost_put(vec, PVEC_REDUCE_ADD, [1])
  wl = w(1:n)
  w(1:n) = 0.5d0
  call pvec_ghost_put_begin(vec, PVEC_REDUCE_ADD, [1])
  call pvec_map(vec, stat=st)
  call check_status(st, PVEC_ERROR_STATE, 'pvec_map while a ghost_put is in flight')
  call pvec_ghost_get_end(vec, stat=st)
  call check_status(st, PVEC_ERROR_STATE, 'pvec_ghost_get_end while a ghost_put is in flight')
  call pvec_ghost_put_end(vec)
  call pvec_ghost_put_end(vec, stat=st)
  call check_status(st, PVEC_ERROR_STATE, 'a second pvec_ghost_put_end')
  call check(all(w(1:n) == wl), 'split ghost_put: the blocking local rows')
  call check(all(w(n + 1:n + ng) == 1), 'split ghost_put leaves the ghost values')
  call pvec_map(vec)  ! nothing in flight: runs again

  call pvec_vector_destroy(vec)
  call pvec_finalize()
  call MPI_Finalize(ierr)
  if (rank == 0) print '(a)', 'test_dist: OK'
end program test_dist
