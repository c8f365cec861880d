"""CellList and VerletList: the neighbour search of pvec.h section 10 (docs/python.md).

A list describes the rows of its vector when it was built: local particles [0, size), ghosts
after them; every index in its arrays is such a row (0-based). map, sort (when rows moved),
ghost_get without reuse_plan, append, remove, resize, reserve and shrink_to_fit make it stale:
reading it then raises :class:`pvec.StaleViewError` until :meth:`build` runs again.

Arrays: host lists (and device lists of the host backend) give read-only NumPy arrays on the
list's own memory (no copy); device lists of the CUDA backend give a :class:`ListArray`, which
CuPy, PyTorch and Numba take through ``__cuda_array_interface__`` or ``__dlpack__``. Either
keeps the memory it views allocated while it lives: a rebuild or destroy() while such arrays
exist moves the list to fresh memory (or defers the free) instead of freeing theirs, so an old
array keeps reading the values of its build and never freed memory. Fetch the arrays again
after build() to see the new list.
"""

import ctypes
import weakref

import numpy as np

from . import _dlpack, _runtime
from ._handle import Handle
from .capi import (CellListInfo, Error, Flags, NeighborFlags, StaleViewError, Status,
                   VerletInfo, VerletOptions, api_class, call, last_error, lib)


class _Memory:
    """One C list handle and the arrays exported from it. The handle is destroyed once the
    owner let go of it (release) and no exported array is alive any more."""

    def __init__(self, handle, destroy):
        self.handle = handle
        self._destroy = destroy
        self._exports = 0
        self._released = False

    def export(self, carrier):
        self._exports += 1
        weakref.finalize(carrier, self._unexport)

    def _unexport(self):
        self._exports -= 1
        self._maybe_free()

    @property
    def exported(self):
        return self._exports > 0

    def release(self):
        self._released = True
        self._maybe_free()

    def _maybe_free(self):
        if self._released and self._exports == 0 and self.handle is not None:
            handle, self.handle = self.handle, None
            if not _runtime.is_finalized():  # pvec_finalize destroyed it already
                getattr(lib(), self._destroy)(handle)


class _Carrier:
    """Base object of an exported NumPy array: holds the _Memory (and through the registered
    finalizer keeps the C arrays allocated) while the array lives."""

    def __init__(self, interface, memory):
        self.__array_interface__ = interface
        self._memory = memory


@api_class
class ListArray:
    """A read-only 1-D array of a device list on CUDA memory (int32 or int64), for CUDA
    libraries: ``cupy.asarray(a)`` (``__cuda_array_interface__``), ``torch.from_dlpack(a)`` or
    ``cupy.from_dlpack(a)`` (``__dlpack__``). Keeps the memory it views allocated while it
    lives. ``ptr``, ``shape``, ``dtype`` and ``device_id`` describe it."""

    def __init__(self, memory, ptr, size, dtype, owner, name):
        self._memory = memory
        memory.export(self)
        self._owner = owner  # the list: its vector's stream and device
        self.ptr = ptr if size > 0 else 0
        self.shape = (int(size),)
        self.dtype = np.dtype(dtype)
        self.name = name
        self.strides = (self.dtype.itemsize,)

    def __len__(self):
        return self.shape[0]

    def __repr__(self):
        return "<pvec.ListArray %s shape=%s dtype=%s ptr=0x%x (CUDA)>" % (
            self.name, self.shape, self.dtype, self.ptr)

    def __array__(self, dtype=None, copy=None):
        raise TypeError("%s is CUDA device memory; use a CUDA library (CuPy, PyTorch, Numba) "
                        "through __cuda_array_interface__ or __dlpack__, or build the list on "
                        "the host mirror (on_device=False)" % self.name)

    @property
    def device_id(self):
        return self._owner._device_id()

    def _stream_int(self):
        stream = self._owner._vector.stream
        return stream if stream else 1

    @property
    def __cuda_array_interface__(self):
        return {"version": 3, "shape": self.shape, "typestr": self.dtype.str,
                "data": (self.ptr, True), "strides": None, "descr": [("", self.dtype.str)],
                "mask": None, "stream": self._stream_int()}

    def __dlpack_device__(self):
        return (_dlpack.kDLCUDA, self.device_id)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        device = self.__dlpack_device__()
        if dl_device is not None and tuple(int(x) for x in dl_device) != device:
            raise BufferError("%s is on device %s, %s was requested; pvec exports without "
                              "moving data" % (self.name, device, tuple(dl_device)))
        if copy:
            raise BufferError("__dlpack__: pvec cannot copy device memory (copy=True)")
        if stream != -1:
            consumer = 1 if stream is None else int(stream)
            if consumer == 0:
                raise ValueError("__dlpack__: stream 0 is ambiguous; use 1 (legacy default) "
                                 "or 2")
            if consumer != self._stream_int():
                self._owner._vector.synchronize()
        return _dlpack.export(self, self.ptr, self.shape, (1,), self.dtype, device,
                              _dlpack.wants_versioned(max_version), readonly=True)


class _List(Handle):
    """What CellList and VerletList share: the handle's lifetime (pvec._handle.Handle, with the
    free deferred by _Memory while exported arrays live), build, the info struct, arrays.
    A subclass sets _args (the create arguments after the vector) and calls _List.__init__."""

    _what = "list"
    _get_fn = _destroy_fn = _build_fn = _create_fn = None
    _info_cls = None
    _memory = None

    def __init__(self, vector):
        self._vector = vector
        handle = self._create()
        self._memory = _Memory(handle, self._destroy_fn)
        self._adopt(handle)

    def _create(self):
        out = ctypes.c_void_p()
        call(self._create_fn, self._vector._h(), *self._args, ctypes.byref(out))
        return out.value

    # ---- lifetime ---------------------------------------------------------------------------
    def _release(self, handle):
        # The _Memory frees the handle once no exported array reads it any more.
        memory, self._memory = self._memory, None
        if memory is not None:
            memory.release()

    def close(self):
        """Free the list (local). Arrays fetched from it stay readable until collected.
        Harmless when already destroyed. Same as destroy() and the end of a with block."""
        Handle.close(self)

    def build(self):
        """Rebuild from the vector's rows as they are now (same parameters). Local. On error
        the list stays stale. Arrays fetched before keep the old values."""
        handle = self._h()
        if self._memory.exported:
            # Someone still reads the old arrays: build a new list in fresh memory and let
            # the old one go when they do.
            handle = self._create()
            old, self._memory = self._memory, _Memory(handle, self._destroy_fn)
            self._adopt(handle)
            old.release()
        else:
            call(self._build_fn, handle)

    # ---- state ------------------------------------------------------------------------------
    def _info(self):
        info = self._info_cls()
        info.struct_size = ctypes.sizeof(self._info_cls)
        status = getattr(lib(), self._get_fn)(self._h(), ctypes.byref(info))
        if status == Status.STATE:
            raise StaleViewError(last_error(), self._get_fn)
        if status != 0:
            raise Error(status, last_error(), self._get_fn)
        return info

    @property
    def is_stale(self):
        """True when the vector's rows changed since the build (reading would raise
        StaleViewError); False for a current list."""
        try:
            self._info()
        except StaleViewError:
            return True
        return False

    @property
    def on_device(self):
        """The arrays are CUDA memory (built with on_device=True on the CUDA backend; a
        device-mirror list of the host backend is host memory: False)."""
        return bool(self._info().on_device)

    @property
    def cutoff(self):
        return self._info().cutoff

    def _device_id(self):
        dev = ctypes.c_int(-1)
        call("pvec_vector_get_device", self._vector._h(), ctypes.byref(dev))
        return max(dev.value, 0)

    def _array(self, info, field, size, dtype):
        """Zero-copy array of info.<field> (size elements of dtype)."""
        ptr = ctypes.cast(getattr(info, field), ctypes.c_void_p).value or 0
        if info.on_device:
            return ListArray(self._memory, ptr, size, dtype, self, field)
        if size == 0 or not ptr:
            return np.empty(0, dtype=dtype)
        carrier = _Carrier({"version": 3, "shape": (int(size),),
                            "typestr": np.dtype(dtype).str, "data": (ptr, True)}, self._memory)
        self._memory.export(carrier)
        return np.asarray(carrier)


def _flags(on_device, extra=0):
    return int((Flags.ON_DEVICE if on_device else Flags.NONE) | extra)


@api_class
class CellList(_List):
    """A cell list of a vector's rows (pvec_cell_list_create): vec.cell_list(cutoff, ...).

    Cells form a grid over the rank's subdomain widened by the ghost width, at least
    cutoff / cells_per_cutoff wide. Cell (c0, c1, c2) is c = (c0*dims[1] + c1)*dims[2] + c2;
    its rows are cell_particles[cell_offsets[c]:cell_offsets[c+1]], locals first, and the
    first local_offsets[c+1] - local_offsets[c] of them are local. Neighbours within the
    cutoff of a particle of cell c are in the cells within +-span of c.

    Attributes (read from the current list; StaleViewError when stale): dim, span, sorted,
    on_device, cutoff, origin, width, inv_width, dims (tuples of dim values), ncells, n_local,
    n_entries; arrays cell_offsets (ncells + 1, int32), cell_particles (n_entries, int32),
    local_offsets (ncells + 1, int32).
    """

    _what = "cell list"
    _get_fn, _destroy_fn, _build_fn, _create_fn = (
        "pvec_cell_list_get_info", "pvec_cell_list_destroy", "pvec_cell_list_build",
        "pvec_cell_list_create")
    _info_cls = CellListInfo

    def __init__(self, vector, cutoff, cells_per_cutoff=1, ghosts=False, on_device=False):
        self._args = (float(cutoff), int(cells_per_cutoff),
                      _flags(on_device, NeighborFlags.CELLS_GHOSTS if ghosts else 0))
        _List.__init__(self, vector)

    @property
    def dim(self):
        return self._info().dim

    @property
    def span(self):
        """Neighbour cells lie within +-span cells per dimension."""
        return self._info().span

    @property
    def sorted(self):
        """True when the local rows are in cell order: the locals of cell c are exactly rows
        local_offsets[c]:local_offsets[c+1] (after vec.sort, until the rows change)."""
        return bool(self._info().sorted)

    def _per_dim(self, field):
        info = self._info()
        return tuple(getattr(info, field)[:info.dim])

    @property
    def origin(self):
        """Lower corner of cell (0, ..., 0)."""
        return self._per_dim("origin")

    @property
    def width(self):
        return self._per_dim("width")

    @property
    def inv_width(self):
        return self._per_dim("inv_width")

    @property
    def dims(self):
        """Cells per dimension."""
        return self._per_dim("dims")

    @property
    def ncells(self):
        return self._info().ncells

    @property
    def n_local(self):
        return self._info().n_local

    @property
    def n_entries(self):
        """Rows in the list: n_local, or n_local + ghosts (ghosts=True)."""
        return self._info().n_entries

    @property
    def cell_offsets(self):
        info = self._info()
        return self._array(info, "cell_offsets", info.ncells + 1, np.int32)

    @property
    def cell_particles(self):
        info = self._info()
        return self._array(info, "cell_particles", info.n_entries, np.int32)

    @property
    def local_offsets(self):
        info = self._info()
        return self._array(info, "local_offsets", info.ncells + 1, np.int32)

    def cell_of(self, x):
        """Cell index of position x (dim coordinates), as pvec computes it: coordinates
        floor((x - origin) * inv_width) clamped to [0, dims)."""
        info = self._info()
        c = 0
        for d in range(info.dim):
            f = (float(x[d]) - info.origin[d]) * info.inv_width[d]
            k = int(f) if f >= 0 else 0
            c = c * info.dims[d] + min(k, info.dims[d] - 1)
        return c

    def __repr__(self):
        if not self.alive:
            return "<pvec.CellList (destroyed)>"
        if self.is_stale:
            return "<pvec.CellList (stale)>"
        info = self._info()
        return "<pvec.CellList dim=%d dims=%s cutoff=%g entries=%d%s>" % (
            info.dim, tuple(info.dims[:info.dim]), info.cutoff, info.n_entries,
            " on device" if info.on_device else "")


@api_class
class VerletList(_List):
    """A Verlet list (pvec_verlet_create): vec.verlet_list(cutoff, skin, ...).

    The neighbours of local particle i are neighbors[offsets[i]:offsets[i+1]] (rows, local or
    ghost), every row closer than cutoff + skin at the build. A full list holds (i, j) and
    (j, i); a half list (half=True) each pair once (pvec.h section 10 says which rank holds a
    pair with a ghost, so that ghost_put(op="add") completes the sums).

    key (a scalar integer property, name or index: a global id) orders each particle's
    neighbours by ascending key, so that sums over a full list are bitwise the same on any
    decomposition; skip (a scalar integer property) leaves out the pairs of two particles that
    both hold a nonzero value (pvec_verlet_create_with). Both must be current on the ghost
    rows (a ghost_get that brought them), else :class:`pvec.Error` STATE. source (another
    :class:`pvec.Vector` of the same subdomains, see :meth:`pvec.Vector.follow`) lists the
    neighbours among its rows instead (a full list; key is then its property).

    Attributes (StaleViewError when stale): half, on_device, cutoff, skin, n, n_pairs; arrays
    offsets (n + 1, int64), neighbors (n_pairs, int32). :meth:`check` (collective) says
    whether to rebuild.
    """

    _what = "Verlet list"
    _get_fn, _destroy_fn, _build_fn, _create_fn = (
        "pvec_verlet_get_info", "pvec_verlet_destroy", "pvec_verlet_build", "pvec_verlet_create")
    _info_cls = VerletInfo

    def __init__(self, vector, cutoff, skin, half=False, on_device=False, cells_per_cutoff=1,
                 key=None, skip=None, source=None):
        self._args = (float(cutoff), float(skin), int(cells_per_cutoff),
                      _flags(on_device, NeighborFlags.VERLET_HALF if half else 0))
        self._options = None
        self._source = source  # kept alive while the list reads its rows
        if key is not None or skip is not None or source is not None:
            o = VerletOptions()
            call("pvec_verlet_options_init", ctypes.byref(o))
            o.cutoff, o.skin, o.cells_per_cutoff, o.flags = self._args
            if key is not None:
                o.key_prop = (source if source is not None else vector).prop_index(key)
            if skip is not None:
                o.skip_prop = vector.prop_index(skip)
            if source is not None:
                o.source = source._h()
            self._options = o
        _List.__init__(self, vector)

    def _create(self):
        if self._options is None:
            return _List._create(self)
        out = ctypes.c_void_p()
        call("pvec_verlet_create_with", self._vector._h(), ctypes.byref(self._options),
             ctypes.byref(out))
        return out.value

    def check(self):
        """True when some local particle on some rank moved more than skin/2 since the build,
        or the list is stale: then rebuild (map, ghost_get, build). Collective: the same answer
        on every rank. Reads the positions on the mirror the list was built on."""
        flag = ctypes.c_int()
        call("pvec_verlet_check", self._h(), ctypes.byref(flag))
        return bool(flag.value)

    @property
    def half(self):
        return bool(self._info().half)

    @property
    def skin(self):
        return self._info().skin

    @property
    def n(self):
        """Local particles with a list (the vector's size at the build)."""
        return self._info().n

    @property
    def n_pairs(self):
        """Entries of neighbors: offsets[n]."""
        return self._info().n_pairs

    @property
    def offsets(self):
        info = self._info()
        return self._array(info, "offsets", info.n + 1, np.int64)

    @property
    def neighbors(self):
        info = self._info()
        return self._array(info, "neighbors", info.n_pairs, np.int32)

    def __repr__(self):
        if not self.alive:
            return "<pvec.VerletList (destroyed)>"
        if self.is_stale:
            return "<pvec.VerletList (stale)>"
        info = self._info()
        return "<pvec.VerletList %s n=%d pairs=%d cutoff=%g skin=%g%s>" % (
            "half" if info.half else "full", info.n, info.n_pairs, info.cutoff, info.skin,
            " on device" if info.on_device else "")
