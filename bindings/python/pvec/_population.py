"""Particles removed and created on one mirror (pvec.h section 4, "Removal by mark, and
particles created by kernels"; docs/python.md): removal by mark, spawns (:class:`Spawner`) and
globally unique particle ids.

:class:`Population` is a base class of :class:`pvec.Vector`, which gives it ``_h`` (the
handle), ``size``, ``backend``, ``prop_index`` and ``layout``. Each of these calls runs on the
host mirror, or on the device mirror with ``on_device=True``, and changes only that mirror:
the other one holds older values of every property afterwards (see :mod:`pvec._coherence`).
"""

import ctypes

import numpy as np

from ._views import _ArrayInterface, _Retention
from .capi import (NO_PROPERTY, POS, Error, Flags, PopulationFlags, Status, api_class, call,
                   error, last_error, lib)
from .capi import Spawner as _SpawnerStruct

_i32_p = ctypes.POINTER(ctypes.c_int32)
_i64_p = ctypes.POINTER(ctypes.c_int64)


def _cupy():
    """The cupy module, or None where it is not installed."""
    try:
        import cupy
    except ImportError:
        return None
    return cupy


def _host_marks(marks, n):
    """marks as a contiguous int32 NumPy array of n entries (nonzero: remove). int32 arrays are
    used as they are; bool, other integer and float arrays become (marks != 0) in int32."""
    if not isinstance(marks, np.ndarray) and hasattr(marks, "__dlpack__") and \
            not hasattr(marks, "__array__") and not hasattr(marks, "__array_interface__"):
        marks = np.from_dlpack(marks)
    arr = np.asarray(marks)
    _check_shape(arr.shape, n)
    if arr.dtype == np.int32:
        return np.ascontiguousarray(arr)
    if arr.dtype.kind not in "biuf":
        raise TypeError("marks must be an array of int32 (or bool, integer, float: nonzero "
                        "removes), got dtype %s" % arr.dtype)
    return (arr != 0).astype(np.int32)


def _check_shape(shape, n):
    if len(shape) != 1 or shape[0] != n:
        raise ValueError("marks must be a 1-D array of one entry per local particle (%d), got "
                         "shape %s" % (n, tuple(shape)))


def _device_marks(marks, n):
    """(address, keep-alive) of marks as n int32 in CUDA device memory: an object with
    __cuda_array_interface__ that already is contiguous int32 is used as it is; anything else
    (other dtypes, DLPack tensors) goes through CuPy."""
    cai = getattr(marks, "__cuda_array_interface__", None)
    if cai is not None:
        _check_shape(cai["shape"], n)
        plain = np.dtype(cai["typestr"]) == np.int32 and cai.get("strides") in (None, (4,))
        if plain and cai.get("mask") is None:
            return int(cai["data"][0] or 0), marks
    cp = _cupy()
    if cp is None:
        raise TypeError("on_device=True with the CUDA backend takes the marks as a contiguous "
                        "int32 device array with __cuda_array_interface__; converting %r "
                        "needs CuPy" % (type(marks).__name__,))
    arr = cp.asarray(marks) if cai is not None or not hasattr(marks, "__dlpack__") else \
        cp.from_dlpack(marks)
    _check_shape(arr.shape, n)
    if arr.dtype != cp.int32:
        if arr.dtype.kind not in "biuf":
            raise TypeError("marks must be an array of int32 (or bool, integer, float: nonzero "
                            "removes), got dtype %s" % arr.dtype)
        arr = (arr != 0).astype(cp.int32)
    arr = cp.ascontiguousarray(arr)
    return int(arr.data.ptr), arr


class Population:
    """The population methods of a Vector (see the module docstring)."""

    def _marks_arg(self, mark, on_device):
        """(mark_prop, marks pointer, keep-alive) of remove_marked's mark."""
        if isinstance(mark, str) or (isinstance(mark, (int, np.integer))
                                     and not isinstance(mark, bool)):
            return self.prop_index(mark), None, None
        n = self.size
        if on_device and self.backend == "cuda":
            address, keep = _device_marks(mark, n)
        else:
            keep = _host_marks(mark, n)
            address = keep.ctypes.data
        return NO_PROPERTY, ctypes.cast(address, _i32_p) if address else None, keep

    @staticmethod
    def _removal_flags(fill_holes, on_device):
        f = int(Flags.ON_DEVICE) if on_device else 0
        if fill_holes:
            f |= int(PopulationFlags.REMOVE_FILL_HOLES)
        return f

    def remove_marked(self, mark, fill_holes=False, on_device=False):
        """Remove the local particles whose mark is nonzero, on the host mirror (on_device=True:
        the device mirror), and return how many were removed (pvec_vector_remove_marked).

        mark: a scalar property (name or index) of any dtype, where nonzero (NaN included)
        removes; or an array of one mark per local particle: for the host mirror (and the
        device mirror of the host backend) anything NumPy reads (int32 used as is; bool,
        integer and float arrays are converted, nonzero removing); for the device mirror of
        the CUDA backend a device array (``__cuda_array_interface__``, or DLPack through
        CuPy). The survivors keep their order, unless fill_holes=True: then the last survivors
        move into the first holes (fewer moves). Only that mirror changes; the other one holds
        older values until copied. Views, ghosts and lists become stale. Local.

        Raises ValueError (an array of another length or shape) or TypeError (an array of
        another kind) before any change; :class:`pvec.Error` INVALID_ARGUMENT (the positions or
        a property with several components as the mark), OutOfRangeError / PropertyKeyError
        (mark), :class:`pvec.StaleMirrorError` (a property is older on that mirror), STATE (a
        spawn is open); the vector is unchanged then."""
        prop, ptr, keep = self._marks_arg(mark, on_device)
        removed = ctypes.c_int64()
        call("pvec_vector_remove_marked", self._h(), prop, ptr,
             self._removal_flags(fill_holes, on_device), ctypes.byref(removed))
        del keep
        return removed.value

    def remove_marked_async(self, mark, fill_holes=False, out=None):
        """:meth:`remove_marked` on the device mirror without waiting
        (pvec_vector_remove_marked_async): the work is ordered on the vector's stream and the
        number removed is written by it to out, a one-element int64 array in device memory
        (a CuPy array; with the host backend a NumPy array), where kernels queued after it on
        the stream can read it. out=None allocates one (CuPy with the CUDA backend, when
        installed; else the count is not written). Returns out. The vector's size follows at
        the next call on the vector. Marks given as an array must stay alive and unchanged
        until the stream passes the removal (the vector keeps a reference until the next
        asynchronous removal)."""
        prop, ptr, keep = self._marks_arg(mark, True)
        cuda = self.backend == "cuda"
        if out is None:
            if not cuda:
                out = np.zeros(1, dtype=np.int64)
            elif _cupy() is not None:
                out = _cupy().zeros(1, dtype=_cupy().int64)
        address = None
        if out is not None:
            address = _count_address(out, cuda)
        call("pvec_vector_remove_marked_async", self._h(), prop, ptr,
             self._removal_flags(fill_holes, True),
             ctypes.cast(address, _i64_p) if address else None)
        self._async_marks = (keep, out)  # alive until the stream passed the removal
        return out

    # ---- spawns -----------------------------------------------------------------------------
    def spawn(self, max_new, on_device=False):
        """Open a spawn of up to max_new particles after the local ones on the host mirror
        (on_device=True: the device mirror) and return its :class:`Spawner`
        (pvec_vector_spawn_begin): slots claimed through its counter become particles at
        :meth:`Spawner.commit`. Use it as a context manager to commit at the end of the block
        (cancel on an exception). While it is open, calls that change the particles raise
        :class:`pvec.Error` STATE. The capacity may grow: take views and pointers after it.
        Local."""
        raw = _SpawnerStruct()
        raw.struct_size = ctypes.sizeof(raw)
        f = int(Flags.ON_DEVICE) if on_device else 0
        call("pvec_vector_spawn_begin", self._h(), int(max_new), f, ctypes.byref(raw))
        return Spawner(self, raw, bool(on_device))

    # ---- ids --------------------------------------------------------------------------------
    def ids_init(self, prop, keep=False, on_device=False):
        """Number the local particles of every rank 0 .. N-1 in rank order into prop (a scalar
        int64 or uint64 property) on the host mirror (on_device=True: the device mirror), and
        start the vector's id counter at N (pvec_vector_ids_init). keep=True keeps the ids
        there (numbered by the caller, or restored by a restart) and starts the counter after
        their largest. From then on :meth:`ids_take` and spawns (:attr:`Spawner.id_first`)
        hand out ids no rank has handed out. Collective."""
        f = int(Flags.ON_DEVICE) if on_device else 0
        if keep:
            f |= int(PopulationFlags.IDS_KEEP)
        call("pvec_vector_ids_init", self._h(), self.prop_index(prop), f)

    def ids_take(self, count):
        """count new globally unique ids for particles this rank creates, as an int64 NumPy
        array (first + k * stride, stride the rank count; pvec_vector_ids_take). Local. Raises
        :class:`pvec.Error` STATE before :meth:`ids_init`."""
        first, stride = ctypes.c_int64(), ctypes.c_int64()
        call("pvec_vector_ids_take", self._h(), int(count), ctypes.byref(first),
             ctypes.byref(stride))
        return first.value + stride.value * np.arange(int(count), dtype=np.int64)


def _count_address(out, cuda):
    """Address of the one int64 of remove_marked_async's out."""
    if cuda:
        cai = getattr(out, "__cuda_array_interface__", None)
        if cai is None or np.dtype(cai["typestr"]) != np.int64 or tuple(cai["shape"]) != (1,):
            raise TypeError("out must be a one-element int64 device array (e.g. "
                            "cupy.zeros(1, cupy.int64))")
        return int(cai["data"][0])
    if not isinstance(out, np.ndarray) or out.dtype != np.int64 or out.shape != (1,) or \
            not out.flags.writeable:
        raise TypeError("out must be a writeable one-element int64 NumPy array (the host "
                        "backend's device mirror is host memory)")
    return out.ctypes.data


class _CudaRows:
    """A device array of a spawn's rows, for CUDA libraries (``__cuda_array_interface__``); keeps
    the buffer it views allocated."""

    def __init__(self, interface, retention):
        self.__cuda_array_interface__ = interface
        self._retention = retention


@api_class
class Spawner:
    """An open spawn (:meth:`Vector.spawn`, pvec_vector_spawn_begin).

    A slot s is claimed by adding 1 to ``counter[0]`` (atomically in kernels: atomicAdd on
    ``counter_ptr``; on the host :meth:`claim` does it); a slot s < limit is row first + s of
    every property, where the new particle is written (:meth:`rows` gives the slots' rows of a
    property). A slot s >= limit must not be written: :meth:`commit` then adds nothing and
    raises, saying how many were asked for.

    Attributes: ``first`` (the row of slot 0: the local count at the start), ``limit`` (the
    slots reserved), ``capacity`` (the component stride), ``id_first`` and ``id_stride`` (slot
    s gets the id id_first + s * id_stride after :meth:`Vector.ids_init`; else id_first = -1),
    ``on_device`` (the mirror of the spawn), ``counter_ptr`` (the address of the claim counter,
    an unsigned 64-bit integer in that mirror's memory), ``counter`` (a NumPy uint64 array of
    length 1 over it when that memory is host memory; a CuPy array over device memory when
    CuPy is installed; else None), ``struct`` (the pvec_spawner, a :class:`pvec.capi.Spawner`,
    to pass by value to a kernel), ``open`` (False after commit or cancel).

    The counter and the arrays of :meth:`rows` are valid until the commit or the cancel.
    As a context manager it commits at the end of the block, and cancels when the block
    raises.
    """

    def __init__(self, vector, raw, on_device):
        self._vector = vector
        self.struct = raw
        self.on_device = on_device
        self.first = raw.first
        self.limit = raw.limit
        self.capacity = raw.capacity
        self.id_first = raw.id_first
        self.id_stride = raw.id_stride
        self.counter_ptr = ctypes.cast(raw.counter, ctypes.c_void_p).value or 0
        self.open = True
        self.counter = None
        if self._host_memory():
            self.counter = np.ctypeslib.as_array(
                ctypes.cast(self.counter_ptr, ctypes.POINTER(ctypes.c_uint64)), shape=(1,))
        elif _cupy() is not None:
            cp = _cupy()
            mem = cp.cuda.UnownedMemory(self.counter_ptr, 8, self)
            self.counter = cp.ndarray((1,), dtype=cp.uint64,
                                      memptr=cp.cuda.MemoryPointer(mem, 0))

    def _host_memory(self):
        return not self.on_device or self._vector.backend == "host"

    def __repr__(self):
        return "<pvec.Spawner first=%d limit=%d %s%s>" % (
            self.first, self.limit, "device" if self.on_device else "host",
            "" if self.open else " (closed)")

    def _check_open(self, what):
        if not self.open:
            raise Error(Status.STATE, "the spawn was committed or cancelled already", what)

    def claim(self, count=1):
        """Claim count consecutive slots from the host (a host-mirror spawn, or any spawn of
        the host backend): returns the row of the first, or -1 when they do not all fit
        (the claim still counts toward what :meth:`commit` reports), like pvec::spawn_claim.
        Not atomic with respect to other threads writing the counter."""
        self._check_open("Spawner.claim")
        if self.counter is None or not isinstance(self.counter, np.ndarray):
            raise TypeError("the claim counter of this spawn is device memory: claim in a "
                            "kernel (atomicAdd on counter_ptr)")
        k = int(self.counter[0])
        self.counter[0] = k + int(count)
        return self.first + k if k + int(count) <= self.limit else -1

    def id_of(self, row):
        """The globally unique id of a claimed row (id_first + (row - first) * id_stride;
        after :meth:`Vector.ids_init`), like pvec::spawn_id."""
        return self.id_first + (int(row) - self.first) * self.id_stride

    def rows(self, prop="pos"):
        """The rows of the spawn's slots [first, first + limit) of a property (name, index or
        "pos") on the spawn's mirror, shaped like a view (components first, slot last): a
        NumPy array for host memory, an object with ``__cuda_array_interface__`` for CUDA
        device memory. Write slot s's new particle at index s of the last axis."""
        self._check_open("Spawner.rows")
        vec = self._vector
        lay = vec.layout(prop)
        device = self.on_device
        base = lay.device_ptr if device else lay.host_ptr
        elem, row = lay.elem_size, lay.stride_bytes
        if lay.prop == POS:
            comp_shape, comp_strides = (lay.ncomp,), (row,)
        elif lay.rank == 0:
            comp_shape, comp_strides = (), ()
        elif lay.rank == 1:
            comp_shape, comp_strides = (lay.extents[0],), (row,)
        else:
            n, m = lay.extents[0], lay.extents[1]
            comp_shape, comp_strides = (n, m), (m * row, row)
        interface = {"version": 3, "shape": comp_shape + (self.limit,),
                     "typestr": np.dtype(lay.numpy_dtype).str,
                     "data": (base + self.first * elem if self.limit > 0 else base, False),
                     "strides": comp_strides + (elem,)}
        retention = _Retention(vec, lay.prop, device)
        if self._host_memory():
            return np.asarray(_ArrayInterface(interface, retention))
        interface.update({"descr": [("", interface["typestr"])], "mask": None,
                          "stream": vec.stream or 1})
        return _CudaRows(interface, retention)

    def commit(self):
        """Close the spawn: the slots claimed become local particles; returns their number
        (pvec_vector_spawn_commit). Waits for the vector's stream; kernels on other streams
        must be complete. When more slots were claimed than reserved, nothing is added and
        :class:`pvec.OutOfRangeError` is raised, its ``requested`` attribute the number
        claimed (reserve that many and run again). The spawn is closed either way."""
        self._check_open("Spawner.commit")
        added = ctypes.c_int64()
        status = lib().pvec_vector_spawn_commit(self._vector._h(), ctypes.byref(added))
        self._close()
        if status != 0:
            exc = error(status, last_error(), "pvec_vector_spawn_commit")
            exc.requested = added.value
            raise exc
        return added.value

    def cancel(self):
        """Close the spawn without adding anything (pvec_vector_spawn_cancel)."""
        self._check_open("Spawner.cancel")
        self._close()
        call("pvec_vector_spawn_cancel", self._vector._h())

    def _close(self):
        self.open = False
        self.counter = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if not self.open:
            return False
        if exc_type is None:
            self.commit()
            return False
        try:
            self.cancel()
        except Error:
            pass  # the block's own exception is the one to report
        return False
