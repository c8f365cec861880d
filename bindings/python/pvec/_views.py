"""PropertyView: a zero-copy view of one property (or the positions) on one mirror, checked
against the vector's generation at every use.

Shapes put the particle index last, so that it is the contiguous axis, as in memory (C is the
capacity, e the element size, size the particles viewed):

    scalar          (size,)          strides (e,)
    vector[n]       (n, size)        strides (C*e, e)
    tensor[n][m]    (n, m, size)     strides (m*C*e, C*e, e)
    positions       (dim, size)      strides (C*e, e)
"""

import ctypes
import numpy as np

from . import _dlpack
from .capi import POS, StaleViewError, api_class, call, lib


class _Retention:
    """One pvec_vector_retain: keeps the buffer of one mirror of one property allocated (its
    values as they were, once the vector reallocates or is destroyed) until collected. Held
    by a view from its first export on, so every NumPy array and DLPack tensor made from the
    view (which keep the view alive) can outlive the vector, a `with` block, pvec.finalize()
    or a reallocation without reading freed memory."""

    __slots__ = ("_handle",)

    def __init__(self, vector, prop, device_mirror):
        self._handle = None
        handle = ctypes.c_void_p()
        call("pvec_vector_retain", vector._h(), prop, 1 if device_mirror else 0, ctypes.byref(handle))
        self._handle = handle.value

    def release(self):
        handle, self._handle = self._handle, None
        if handle:
            lib().pvec_retention_release(handle)  # allowed at any time, also after pvec_finalize

    def __del__(self):
        try:
            self.release()
        except Exception:  # pragma: no cover - interpreter shutdown
            pass


class _ArrayInterface:
    """Carrier of an __array_interface__ dict; numpy keeps it as the array's base, and it
    keeps the owner (the view, and through it the Vector) alive."""

    def __init__(self, interface, owner):
        self.__array_interface__ = interface
        self._owner = owner


@api_class
class PropertyView:
    """Zero-copy view of one property of a Vector on its host or device mirror.

    Obtained from ``vec.host(prop)``, ``vec.device(prop)``, ``vec[prop]`` or ``vec.pos``.
    The view records the vector's generation: any use after a reallocation or reordering
    (append past capacity, reserve, resize, remove, shrink_to_fit, map, ghost_get) or after
    the vector is destroyed raises :class:`pvec.StaleViewError`. numpy arrays obtained from
    the view (``.array``, ``np.asarray(view)``) and DLPack tensors are NOT checked: after
    such a call they still read the memory they were made on (pvec keeps it allocated until
    they are collected: it holds the old values and pvec no longer writes it); re-fetch them
    to see the vector's data.

    Protocols: host-accessible memory (host views; device views of the host backend) offers
    ``__array_interface__``/``__array__`` (numpy), and ``__dlpack__`` as kDLCPU. Device views
    of the CUDA backend offer ``__cuda_array_interface__`` (v3) and ``__dlpack__`` as kDLCUDA.
    """

    def __init__(self, vector, prop, location, ghosts=False):
        if location not in ("host", "device"):
            raise ValueError("location must be 'host' or 'device'")
        layout = vector.layout(prop)
        self._vector = vector
        self.location = location
        self.prop = layout.prop
        self.name = layout.name
        self.generation = layout.generation
        self.dtype = layout.numpy_dtype
        self.capacity = layout.capacity
        self.ncomp = layout.ncomp
        self.size = layout.n_local + (layout.n_ghost if ghosts else 0)
        self.ptr = layout.host_ptr if location == "host" else layout.device_ptr
        self.backend = vector.backend
        elem = layout.elem_size
        row = layout.stride_bytes
        if layout.prop == POS:
            comp_shape, comp_strides = (layout.ncomp,), (row,)
        elif layout.rank == 0:
            comp_shape, comp_strides = (), ()
        elif layout.rank == 1:
            comp_shape, comp_strides = (layout.extents[0],), (row,)
        else:
            n, m = layout.extents[0], layout.extents[1]
            comp_shape, comp_strides = (n, m), (m * row, row)
        self.shape = comp_shape + (self.size,)
        self.strides = comp_strides + (elem,)
        self._device_id = None
        self._retention = None  # taken at the first export (see _retain)

    # ---- description ------------------------------------------------------------------------
    @property
    def ndim(self):
        return len(self.shape)

    @property
    def host_accessible(self):
        """True when the memory can be read by the CPU (host views, and device views of the
        host backend, whose device mirror is a second host allocation)."""
        return self.location == "host" or self.backend == "host"

    @property
    def is_stale(self):
        """True when using the view would raise StaleViewError."""
        try:
            self._check("is_stale")
        except StaleViewError:
            return True
        return False

    @property
    def strides_elems(self):
        """Strides in elements (as DLPack wants them)."""
        return tuple(s // self.dtype.itemsize for s in self.strides)

    def __len__(self):
        return self.shape[0]

    def __repr__(self):
        state = "stale" if self.is_stale else "generation %d" % self.generation
        return "<pvec.PropertyView %r %s shape=%s dtype=%s ptr=0x%x (%s)>" % (
            self.name, self.location, self.shape, self.dtype, self.ptr, state)

    # ---- checks -----------------------------------------------------------------------------
    def _check(self, what):
        vec = self._vector
        if not vec.alive:
            raise StaleViewError("%s: view of %r used after its vector was destroyed" % (
                what, self.name), what)
        gen = vec.generation
        if gen != self.generation:
            raise StaleViewError(
                "%s: view of %r is stale: it was taken at generation %d and the vector is now "
                "at generation %d (it reallocated or reordered its buffers: append past the "
                "capacity, reserve, resize, remove, shrink_to_fit, map or ghost_get); take a "
                "new view with vec.%s(%r)" % (what, self.name, self.generation, gen,
                                                self.location, self.name), what)

    def _require_host(self, what):
        if not self.host_accessible:
            raise TypeError("%s: view of %r is CUDA device memory; use a CUDA library (CuPy, "
                            "PyTorch, Numba) through __cuda_array_interface__ or __dlpack__, "
                            "or copy with device_to_host and use vec.host(...)" % (
                                what, self.name))

    def _retain(self):
        """Keep the viewed buffer allocated as long as this view lives: called, after _check,
        by everything that hands the memory out (every export keeps the view alive)."""
        if self._retention is None:
            self._retention = _Retention(self._vector, self.prop, self.location == "device")

    # ---- numpy ------------------------------------------------------------------------------
    def _numpy_interface(self):
        self._retain()
        return {
            "version": 3,
            "shape": self.shape,
            "typestr": self.dtype.str,
            "data": (self.ptr, False),
            "strides": self.strides,
        }

    @property
    def __array_interface__(self):
        # AttributeError (not TypeError) for device memory, so numpy falls back to __array__
        # and reports our message.
        if not self.host_accessible:
            raise AttributeError("__array_interface__")
        self._check("__array_interface__")
        return self._numpy_interface()

    def __array__(self, dtype=None, copy=None):
        self._check("__array__")
        self._require_host("__array__")
        arr = np.asarray(_ArrayInterface(self._numpy_interface(), self))
        if dtype is not None and np.dtype(dtype) != arr.dtype:
            if copy is False:
                raise ValueError("a dtype conversion needs a copy")
            return arr.astype(dtype)
        return arr.copy() if copy else arr

    def numpy(self):
        """The view as a numpy array on the same memory (no copy), checked now. The array is
        not checked later: do not keep it across calls that change the generation."""
        self._check("numpy")
        self._require_host("numpy")
        return np.asarray(_ArrayInterface(self._numpy_interface(), self))

    @property
    def array(self):
        """Same as :meth:`numpy`."""
        return self.numpy()

    def __getitem__(self, index):
        return self.numpy()[index]

    def __setitem__(self, index, value):
        self.numpy()[index] = value

    # ---- CUDA array interface ---------------------------------------------------------------
    def _stream_int(self):
        # CAI v3 and DLPack: 1 is the legacy default stream (0 is ambiguous, disallowed).
        stream = self._vector.stream
        return stream if stream else 1

    def _cuda_array_interface_dict(self):
        """The CAI v3 dict, whatever the backend (the property refuses host memory)."""
        self._check("__cuda_array_interface__")
        self._retain()
        return {
            "version": 3,
            "shape": self.shape,
            "typestr": self.dtype.str,
            "data": (self.ptr if self.size > 0 else 0, False),
            "strides": self.strides,
            "descr": [("", self.dtype.str)],
            "mask": None,
            # The data are valid once the vector's stream reached this point; a consumer
            # synchronises on it (v3 semantics).
            "stream": self._stream_int(),
        }

    @property
    def __cuda_array_interface__(self):
        if self.host_accessible:
            raise AttributeError("__cuda_array_interface__ (view of host memory: use numpy)")
        return self._cuda_array_interface_dict()

    # ---- DLPack -----------------------------------------------------------------------------
    @property
    def device_id(self):
        """CUDA device ordinal of a CUDA device view; 0 for host memory."""
        if self.host_accessible:
            return 0
        if self._device_id is None:
            dev = ctypes.c_int(-1)
            call("pvec_vector_get_device", self._vector._h(), ctypes.byref(dev))
            self._device_id = dev.value if dev.value >= 0 else 0
        return self._device_id

    def __dlpack_device__(self):
        if self.host_accessible:
            return (_dlpack.kDLCPU, 0)
        return (_dlpack.kDLCUDA, self.device_id)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        self._check("__dlpack__")
        device = self.__dlpack_device__()
        if dl_device is not None and tuple(int(x) for x in dl_device) != device:
            raise BufferError("view of %r is on device %s, %s was requested; pvec exports "
                              "without moving data" % (self.name, device, tuple(dl_device)))
        versioned = _dlpack.wants_versioned(max_version)
        if device[0] == _dlpack.kDLCPU:
            if stream is not None and stream != -1:
                raise ValueError("__dlpack__: stream must be None for CPU memory")
            if copy:
                data = np.array(self.numpy(), copy=True)
                return _dlpack.export(data, data.ctypes.data, data.shape,
                                      tuple(s // data.itemsize for s in data.strides),
                                      data.dtype, device, versioned, copied=True)
        else:
            if copy:
                raise BufferError("__dlpack__: pvec cannot copy device memory (copy=True)")
            self._sync_for(stream)
        self._retain()
        return _dlpack.export(self, self.ptr, self.shape, self.strides_elems, self.dtype,
                              device, versioned)

    def _sync_for(self, stream):
        # The consumer will use the data on `stream` (None: legacy default). pvec's work on
        # the vector's stream must be complete first; -1 means the consumer takes care.
        if stream == -1:
            return
        consumer = 1 if stream is None else int(stream)
        if consumer == 0:
            raise ValueError("__dlpack__: stream 0 is ambiguous; use 1 (legacy default) or 2")
        if consumer != self._stream_int():
            self._vector.synchronize()
