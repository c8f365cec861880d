!> A communicator handed over as a Fortran integer (`use mpi`): the vector lives on exactly that
!> communicator. Run on 2 ranks: MPI_COMM_WORLD gives size 2 and the EVEN split of 101
!> particles (51 + 50); a communicator split per rank gives size 1 and all particles locally.
program test_mpi_comm
  use, intrinsic :: iso_c_binding
  use mpi
  use pvec
  use ftest
  implicit none
  type(pvec_schema) :: s
  type(pvec_vector_desc) :: desc
  type(pvec_vector) :: world_vec, self_vec
  integer :: ierr, rank, nranks, r, sz, self_comm
  integer(c_int64_t) :: n

  call MPI_Init(ierr)   ! the program owns MPI: pvec_init must leave it alone
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call check(nranks == 2, 'run this test on 2 ranks')
  call pvec_init()

  call pvec_schema_create(s)
  call pvec_schema_add_scalar(s, 'w', PVEC_FLOAT64)
  desc%dim = 2
  desc%n_particles = 101
  desc%has_comm = 1
  desc%comm_f = MPI_COMM_WORLD
  call pvec_vector_create(desc, s, world_vec)
  call pvec_vector_get_nranks(world_vec, sz)
  call pvec_vector_get_rank(world_vec, r)
  call check(sz == 2 .and. r == rank, 'vector on MPI_COMM_WORLD')
  call pvec_vector_get_size(world_vec, n)
  call check(n == merge(51, 50, rank == 0), 'EVEN placement of 101 over 2 ranks')

  call MPI_Comm_split(MPI_COMM_WORLD, rank, 0, self_comm, ierr)
  desc = pvec_vector_desc()
  desc%dim = 2
  desc%n_particles = 10
  call pvec_vector_desc_set_comm(desc, self_comm)
  call pvec_vector_create(desc, s, self_vec)
  call pvec_vector_get_nranks(self_vec, sz)
  call pvec_vector_get_rank(self_vec, r)
  call check(sz == 1 .and. r == 0, 'vector on a one-rank communicator')
  call pvec_vector_get_size(self_vec, n)
  call check(n == 10, 'all particles on the only rank')

  call pvec_vector_destroy(self_vec)
  call pvec_vector_destroy(world_vec)
  call pvec_schema_destroy(s)
  call pvec_finalize()
  call MPI_Comm_free(self_comm, ierr)
  call MPI_Finalize(ierr)   ! still ours to finalise: pvec did not initialise MPI
  if (rank == 0) print '(a)', 'test_mpi_comm: OK'
end program test_mpi_comm
