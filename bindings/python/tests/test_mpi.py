"""Communicators: MPI_COMM_WORLD by default, mpi4py communicators and int Fortran handles.
Run under mpiexec -n 2 by CTest (python_mpi_np2); also valid on one rank."""

import os

import numpy as np
import pytest

import pvec


def world_size():
    # Set by Open MPI and MPICH launchers; 1 when started without mpiexec.
    for var in ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"):
        if var in os.environ:
            return int(os.environ[var])
    return 1


def test_default_communicator_is_world():
    with pvec.Vector(dim=2, backend="host") as vec:
        assert vec.comm_size == world_size()
        assert 0 <= vec.comm_rank < vec.comm_size


def test_even_placement_splits_the_global_count():
    n = 101
    with pvec.Vector(dim=2, n=n, backend="host") as vec:
        size, rank = vec.comm_size, vec.comm_rank
        expect = n // size + (1 if rank < n % size else 0)  # lower ranks take the remainder
        assert vec.size == expect


def test_local_placement_takes_each_ranks_count():
    with pvec.Vector(dim=2, backend="host") as probe:
        rank = probe.comm_rank
    with pvec.Vector(dim=2, n=rank + 3, placement="local", backend="host") as vec:
        assert vec.size == rank + 3


def test_bad_communicator_type_is_rejected():
    with pytest.raises(TypeError):
        pvec.Vector(dim=2, backend="host", comm="world")


@pytest.fixture(scope="module")
def MPI():
    mpi4py = pytest.importorskip("mpi4py", reason="mpi4py is not installed")
    del mpi4py
    from mpi4py import MPI
    return MPI


def test_mpi4py_world_and_its_fortran_handle(MPI):
    world = MPI.COMM_WORLD
    for comm in (world, world.py2f()):
        with pvec.Vector(dim=2, n=10, backend="host", comm=comm) as vec:
            assert vec.comm_size == world.Get_size()
            assert vec.comm_rank == world.Get_rank()
            assert world.allreduce(vec.size) == 10


def test_mpi4py_self_and_split_communicators(MPI):
    world = MPI.COMM_WORLD
    with pvec.Vector(dim=2, n=7, backend="host", comm=MPI.COMM_SELF) as vec:
        assert (vec.comm_size, vec.comm_rank, vec.size) == (1, 0, 7)
    # Every rank alone in its own colour: a vector per rank, created collectively on each.
    sub = world.Split(color=world.Get_rank(), key=0)
    try:
        with pvec.Vector(dim=2, n=5, backend="host", comm=sub) as vec:
            assert (vec.comm_size, vec.comm_rank, vec.size) == (1, 0, 5)
    finally:
        sub.Free()
    # Reversed ranks: pvec reports ranks of the communicator it was given.
    rev = world.Split(color=0, key=world.Get_size() - world.Get_rank())
    try:
        with pvec.Vector(dim=2, backend="host", comm=rev) as vec:
            assert vec.comm_rank == rev.Get_rank() == world.Get_size() - 1 - world.Get_rank()
    finally:
        rev.Free()


def test_vector_on_a_subcommunicator_spans_its_ranks(MPI):
    world = MPI.COMM_WORLD
    if world.Get_size() < 2:
        pytest.skip("needs two ranks")
    sub = world.Split(color=0, key=world.Get_rank())
    try:
        with pvec.Vector(dim=2, n=64, backend="host", comm=sub,
                         schema=[("r", np.int32)]) as vec:
            vec["r"] = vec.comm_rank
            assert sub.allreduce(vec.size) == 64
            assert np.all(vec["r"].numpy() == sub.Get_rank())
    finally:
        sub.Free()
