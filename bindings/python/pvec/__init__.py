"""pvec: distributed particle vectors whose properties CUDA kernels read and write directly.

Pure-Python binding of libpvec's C ABI (include/pvec.h) through ctypes. See docs/python.md.

    import numpy as np, pvec
    vec = pvec.Vector(dim=2, domain=(0.0, 1.0), periodic=True, ghost=0.05, n=100,
                      pos_dtype=np.float32,
                      schema=[("scalar", np.float32), ("vector", np.float32, 2),
                              ("tensor", np.float32, (2, 2))])
    vec.pos[0] = np.random.rand(100)        # zero-copy numpy views, shape (dim, size)
    vec.host_to_device(["scalar", "vector"])
    d = vec.device("vector")                # __cuda_array_interface__ / __dlpack__

The C functions themselves, structs and enums are in :mod:`pvec.capi`.
"""

from . import capi
from .capi import (MAX_DIM, MAX_NAME, MAX_RANK, POS, Backend, Boundary, DType, Error,
                   Flags, HostMemory, Mirror, NeighborFlags, OptionSource, OutOfRangeError,
                   Placement, PopulationFlags, PropertyKeyError, ReduceOp, RowFlags,
                   StaleMirrorError, StaleViewError, Status, Transport)
from ._runtime import (MemoryStats, cuda_device_count, dtype_name, dtype_size, finalize, init,
                       initialized, memory_stats, numpy_dtype, status_string, to_dtype,
                       version, version_number)
from ._io import CheckpointInfo, checkpoint, checkpoint_info, has_hdf5
from ._options import Option, options, options_text, set_option
from ._records import Layout, MirrorState, OpStats
from ._population import Spawner
from ._schema import PropertyInfo, Schema
from ._vector import Vector, restart
from ._views import PropertyView
from ._neighbors import CellList, ListArray, VerletList

__version__ = "0.1.0"

__all__ = [
    "MAX_DIM", "MAX_NAME", "MAX_RANK", "POS", "Backend", "Boundary", "DType", "Error",
    "Flags", "HostMemory", "Layout", "MemoryStats", "OpStats", "OutOfRangeError", "Placement",
    "PropertyKeyError", "PropertyInfo", "PropertyView", "ReduceOp",
    "Schema", "StaleViewError", "Status", "Transport", "Vector", "capi", "cuda_device_count",
    "dtype_name", "dtype_size", "finalize", "init", "initialized", "memory_stats",
    "numpy_dtype", "status_string", "to_dtype", "version", "version_number",
    "CheckpointInfo", "checkpoint", "checkpoint_info", "has_hdf5", "restart",
    "CellList", "ListArray", "NeighborFlags", "VerletList",
    "Option", "OptionSource", "options", "options_text", "set_option",
    "Mirror", "MirrorState", "PopulationFlags", "RowFlags", "Spawner", "StaleMirrorError",
]
