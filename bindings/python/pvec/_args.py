"""Python arguments as C values: the names a method takes for an enum ("host", "even", "add",
"local"), per-dimension values, communicators, and the fields of a pvec_vector_desc that a new
Vector and a restart both fill from them."""

import numpy as np

from .capi import Backend, Error, HostMemory, Placement, ReduceOp, RowFlags, Status

BACKENDS = {"auto": Backend.AUTO, "host": Backend.HOST, "cuda": Backend.CUDA}
PLACEMENTS = {"even": Placement.EVEN, "local": Placement.LOCAL}
#: ghost_put's combinations (pvec_reduce_op).
OPS = {"add": ReduceOp.ADD, "min": ReduceOp.MIN, "max": ReduceOp.MAX,
       "replace": ReduceOp.REPLACE}
#: What reduce and allreduce compute. A pvec.ReduceOp (or int) goes to pvec as it is: pvec
#: refuses ReduceOp.REPLACE with its own message.
REDUCE_OPS = {"add": ReduceOp.ADD, "min": ReduceOp.MIN, "max": ReduceOp.MAX}
#: The row sets of mark_modified and sync ("all": both).
ROWS = {"all": RowFlags.NONE, "local": RowFlags.LOCAL, "ghost": RowFlags.GHOST}


def lookup(table, value, what, function="Vector"):
    """table[value] for a name (any case); an int (or IntEnum) is returned as an int for C to
    check. Raises Error INVALID_ARGUMENT for an unknown name."""
    if isinstance(value, str):
        try:
            return table[value.lower()]
        except KeyError:
            raise Error(Status.INVALID_ARGUMENT, "%s must be one of %s, got %r" % (
                what, ", ".join(repr(k) for k in table), value), function)
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return int(value)
    raise Error(Status.INVALID_ARGUMENT, "%s must be one of %s, got %r" % (
        what, ", ".join(repr(k) for k in table), value), function)


def per_dim(value, dim, what, convert):
    """dim values: value repeated (a scalar), or its dim entries, each converted."""
    if np.ndim(value) == 0:
        return [convert(value)] * dim
    values = [convert(v) for v in value]
    if len(values) != dim:
        raise Error(Status.INVALID_ARGUMENT, "%s has %d values, dim is %d" % (
            what, len(values), dim), "Vector")
    return values


def comm_handle(comm):
    """Fortran handle of a communicator: an mpi4py Comm (py2f) or an int."""
    if hasattr(comm, "py2f"):
        return int(comm.py2f())
    if isinstance(comm, (int, np.integer)) and not isinstance(comm, bool):
        return int(comm)
    raise TypeError("comm must be an mpi4py communicator or an int Fortran handle, got %r" % (
        comm,))


def set_location(desc, backend, pinned, comm):
    """Fill the fields of desc (a capi.VectorDesc) that say where a vector lives: backend,
    host memory, communicator."""
    desc.backend = int(lookup(BACKENDS, backend, "backend"))
    desc.host_memory = int(HostMemory.PINNED if pinned else HostMemory.PAGEABLE)
    if comm is not None:
        desc.has_comm = 1
        desc.comm_f = comm_handle(comm)
