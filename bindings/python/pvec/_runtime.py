"""Library start and end, version queries, dtype conversion and diagnostics."""

import atexit
import ctypes
import threading
from dataclasses import dataclass

import numpy as np

from . import capi
from .capi import DType, Error, Status, api, call, lib

_lock = threading.Lock()
_started = False
_finalized = False
_atexit_registered = False

_NUMPY_OF = {
    DType.FLOAT32: np.dtype(np.float32),
    DType.FLOAT64: np.dtype(np.float64),
    DType.INT32: np.dtype(np.int32),
    DType.INT64: np.dtype(np.int64),
    DType.UINT32: np.dtype(np.uint32),
    DType.UINT64: np.dtype(np.uint64),
}
_PVEC_OF = {v: k for k, v in _NUMPY_OF.items()}


@api("pvec.to_dtype")
def to_dtype(dtype):
    """The :class:`DType` of dtype: a DType, its int value, a name ("float32") or anything
    numpy.dtype() accepts (np.float32, "f4", ...). Raises Error(INVALID_ARGUMENT) for a type
    pvec does not store (only 4- and 8-byte ints, uints and floats, native byte order)."""
    if isinstance(dtype, DType):
        return dtype
    if isinstance(dtype, int) and not isinstance(dtype, bool):
        try:
            return DType(dtype)
        except ValueError:
            raise Error(Status.INVALID_ARGUMENT, "unknown pvec dtype %d" % dtype, "to_dtype")
    if isinstance(dtype, str) and dtype.upper() in DType.__members__:
        return DType[dtype.upper()]
    try:
        np_dtype = np.dtype(dtype)
    except TypeError:
        np_dtype = None
    if np_dtype is None or np_dtype not in _PVEC_OF:
        shown = (np_dtype.str if not np_dtype.isnative else np_dtype.name) \
            if np_dtype is not None else repr(dtype)
        raise Error(Status.INVALID_ARGUMENT,
                    "dtype %s is not one of pvec's: float32, float64, int32, int64, uint32, "
                    "uint64 (native byte order)" % shown, "to_dtype")
    return _PVEC_OF[np_dtype]


def numpy_dtype(dtype):
    """The numpy dtype of a pvec dtype (anything :func:`to_dtype` accepts)."""
    return _NUMPY_OF[to_dtype(dtype)]


def version():
    """Version string of the loaded library, "MAJOR.MINOR.PATCH"."""
    return lib().pvec_version_string().decode()


def version_number():
    """MAJOR*10000 + MINOR*100 + PATCH of the loaded library."""
    return lib().pvec_version_number()


def status_string(status):
    """pvec_status_string: a short description of a status value."""
    return lib().pvec_status_string(int(status)).decode()


def dtype_size(dtype):
    """Bytes per element of a pvec dtype."""
    return lib().pvec_dtype_size(int(to_dtype(dtype)))


def dtype_name(dtype):
    """pvec_dtype_name of a pvec dtype ("float32")."""
    return lib().pvec_dtype_name(int(to_dtype(dtype))).decode()


@api("pvec.init")
def init():
    """Start pvec (pvec_init): initialises MPI unless the program (mpi4py, say) already did,
    and picks the CUDA device. Harmless when already started. Registers :func:`finalize` to
    run at interpreter exit. Called automatically by the first Vector. Raises Error(STATE)
    after :func:`finalize`: pvec cannot be restarted in the same process."""
    global _started, _atexit_registered
    with _lock:
        if _finalized:
            raise Error(Status.STATE, "pvec.init: pvec was finalized in this process and "
                        "cannot be started again", "pvec.init")
        if _started:
            return
        call("pvec_init", None, None)
        _started = True
        if not _atexit_registered:
            atexit.register(_finalize_at_exit)
            _atexit_registered = True


@api("pvec.finalize")
def finalize():
    """End pvec (pvec_finalize, collective): destroys every vector and schema still alive
    and finalises MPI if pvec initialised it. Vectors and views still referenced from Python
    become unusable (their methods raise Error). Does nothing if pvec was not started."""
    global _started, _finalized
    with _lock:
        if not _started or _finalized:
            return
        _finalized = True
        _started = False
        call("pvec_finalize")


def _finalize_at_exit():
    try:
        finalize()
    except Error:  # nothing useful can be done at exit; MPI may already be gone
        pass


def is_finalized():
    """True once :func:`finalize` ran in this process."""
    return _finalized


def initialized():
    """pvec_initialized: True between pvec_init and pvec_finalize."""
    flag = ctypes.c_int()
    call("pvec_initialized", ctypes.byref(flag))
    return bool(flag.value)


def cuda_device_count():
    """Number of CUDA devices pvec can use (0 without CUDA support or devices)."""
    count = ctypes.c_int()
    call("pvec_cuda_device_count", ctypes.byref(count))
    return count.value


@dataclass(frozen=True)
class MemoryStats:
    """pvec_memory_stats: process-wide accounting of pvec's allocations, as Python values.
    Bytes are live now (retained buffers that NumPy arrays or DLPack tensors still hold
    included); allocs count the allocations made so far."""

    host_bytes: int
    pinned_bytes: int
    device_bytes: int
    host_allocs: int
    pinned_allocs: int
    device_allocs: int

    @property
    def live_bytes(self):
        """host_bytes + pinned_bytes + device_bytes."""
        return self.host_bytes + self.pinned_bytes + self.device_bytes


@api("pvec.memory_stats")
def memory_stats():
    """:class:`MemoryStats` (pvec_memory_get_stats): host/pinned/device bytes (live) and
    allocs (so far)."""
    stats = capi.MemoryStats()
    stats.struct_size = ctypes.sizeof(capi.MemoryStats)
    call("pvec_memory_get_stats", ctypes.byref(stats))
    return MemoryStats(**{name: getattr(stats, name) for name, _ in capi.MemoryStats._fields_
                          if name != "struct_size"})
