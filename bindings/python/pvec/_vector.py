"""Vector: a distributed particle vector (pvec_vector_t) with Pythonic accessors: creation,
queries, layouts and views, dict-like lookup of properties, size changes, transfers,
neighbour search and output. What it does over its communicator (map, ghosts, reductions)
is its base class pvec._distribution.Distributed; removal by mark, spawns and ids are
pvec._population.Population's; mirror coherence is pvec._coherence.Coherence's; its lifetime
is pvec._handle.Handle's.
"""

import ctypes

import numpy as np

from . import _args, _cuda, _io, _runtime
from ._coherence import Coherence
from ._handle import Handle
from ._neighbors import CellList, VerletList
from ._distribution import Distributed
from ._population import Population
from ._records import Layout
from ._schema import PropertyInfo, as_schema
from ._views import PropertyView
from .capi import (POS, Backend, Boundary, Error, Flags, NeighborFlags, OutOfRangeError,
                   PropertyKeyError, Status, api, api_class, call, error, last_error, lib,
                   new_layout, vector_desc)


@api_class
class Vector(Handle, Distributed, Population, Coherence):
    """A particle vector: positions plus the properties of a schema, on a host mirror and a
    device mirror with the same layout (component stride = capacity, a multiple of 64).

    Vector(dim=3, domain=(0.0, 1.0), periodic=False, ghost=0.0, schema=None, n=0,
           pos_dtype=np.float64, backend="auto", pinned=True, comm=None, placement="even")

    - domain: (lo, hi), each a number (same for every dimension) or dim numbers.
    - periodic: a bool for every dimension, or dim bools.
    - ghost: the ghost (halo) width.
    - schema: a :class:`Schema`, or a list of (name, dtype[, shape]) tuples.
    - n: initial particles (zero), a global count split evenly over the ranks
      (placement="even") or this rank's count (placement="local").
    - backend: "auto" (CUDA when usable), "host" or "cuda" (Error NO_DEVICE without one).
    - pinned: page-locked host mirror (CUDA backend); False for pageable memory.
    - comm: None (MPI_COMM_WORLD), an mpi4py communicator or an int Fortran handle.

    Creation and destruction are collective over the communicator. Calls :func:`pvec.init`
    first if needed. Use as a context manager, or call :meth:`close` (or ``destroy``), to
    destroy it at a point every rank reaches; otherwise it is destroyed when collected (or by
    finalize). Once destroyed, every method raises :class:`pvec.Error` (INVALID_HANDLE; STATE
    after pvec.finalize()).

    Lookup works like the columns of a pandas DataFrame: ``vec["rho"]`` is the host view of
    a property, ``"rho" in vec`` asks whether the vector has it, iteration and
    :meth:`keys` give "pos" then the property names, :meth:`items`/:meth:`values`/:meth:`get`
    work as for a dict, and ``len(vec)`` is the number of local particles (like the rows of
    a DataFrame). A missing name raises a KeyError, an index out of range an IndexError
    (both also :class:`pvec.Error`).
    """

    _what = "vector"
    _destroy_fn = "pvec_vector_destroy"

    def __init__(self, dim=3, domain=(0.0, 1.0), periodic=False, ghost=0.0, schema=None, n=0,
                 pos_dtype=np.float64, backend="auto", pinned=True, comm=None,
                 placement="even"):
        _runtime.init()
        desc = vector_desc()
        desc.dim = int(dim)
        desc.pos_dtype = int(_runtime.to_dtype(pos_dtype))
        ndim = max(1, min(int(dim), len(desc.domain_lo)))
        lo, hi = domain
        for d, (a, b) in enumerate(zip(_args.per_dim(lo, ndim, "domain lo", float),
                                       _args.per_dim(hi, ndim, "domain hi", float))):
            desc.domain_lo[d] = a
            desc.domain_hi[d] = b
        for d, p in enumerate(_args.per_dim(periodic, ndim, "periodic", bool)):
            desc.boundary[d] = int(Boundary.PERIODIC if p else Boundary.NON_PERIODIC)
        desc.ghost_width = float(ghost)
        desc.n_particles = int(n)
        desc.placement = int(_args.lookup(_args.PLACEMENTS, placement, "placement"))
        _args.set_location(desc, backend, pinned, comm)
        sch, owned = as_schema(schema)
        try:
            handle = ctypes.c_void_p()
            call("pvec_vector_create", ctypes.byref(desc), sch.handle, ctypes.byref(handle))
        finally:
            if owned:
                sch.close()
        self._adopt(handle.value)

    # ---- lifetime (pvec._handle.Handle: alive, handle, destroy, with, collection) -----------
    def close(self):
        """Destroy the vector and free both mirrors (collective). Views become stale; arrays
        exported from them stay readable. Harmless when already destroyed. Same as destroy()
        and the end of a with block."""
        Handle.close(self)

    def _get(self, function, ctype):
        out = ctype()
        call(function, self._h(), ctypes.byref(out))
        return out.value

    # ---- queries ----------------------------------------------------------------------------
    @property
    def size(self):
        """Local (owned) particles."""
        return self._get("pvec_vector_get_size", ctypes.c_int64)

    def __len__(self):
        return self.size

    @property
    def ghost_size(self):
        """Ghost particles, stored after the local ones."""
        return self._get("pvec_vector_get_ghost_size", ctypes.c_int64)

    @property
    def capacity(self):
        """Capacity C: the component stride, in elements, of every property."""
        return self._get("pvec_vector_get_capacity", ctypes.c_int64)

    @property
    def generation(self):
        """Incremented by every reallocation or reordering; views compare against it."""
        return self._get("pvec_vector_get_generation", ctypes.c_uint64)

    @property
    def dim(self):
        return self._get("pvec_vector_get_dim", ctypes.c_int)

    @property
    def pos_dtype(self):
        """numpy dtype of the positions."""
        return _runtime.numpy_dtype(self._get("pvec_vector_get_pos_dtype", ctypes.c_int))

    @property
    def domain(self):
        """(lo, hi) tuples of the domain box."""
        lo = (ctypes.c_double * 4)()
        hi = (ctypes.c_double * 4)()
        call("pvec_vector_get_domain", self._h(), lo, hi)
        d = self.dim
        return tuple(lo[:d]), tuple(hi[:d])

    @property
    def boundaries(self):
        """Boundary per dimension."""
        bc = (ctypes.c_int * 4)()
        call("pvec_vector_get_boundaries", self._h(), bc)
        return tuple(Boundary(b) for b in bc[:self.dim])

    @property
    def periodic(self):
        """Whether each dimension is periodic."""
        return tuple(b == Boundary.PERIODIC for b in self.boundaries)

    @property
    def ghost_width(self):
        return self._get("pvec_vector_get_ghost_width", ctypes.c_double)

    @property
    def backend(self):
        """"host" or "cuda": where the device mirror lives."""
        return Backend(self._get("pvec_vector_get_backend", ctypes.c_int)).name.lower()

    @property
    def prop_count(self):
        """Number of properties (positions not counted)."""
        return self._get("pvec_vector_get_prop_count", ctypes.c_int)

    @property
    def properties(self):
        """PropertyInfo of every property, in index order."""
        out = []
        for i in range(self.prop_count):
            lay = self.layout(i)
            out.append(PropertyInfo(i, lay.name, lay.numpy_dtype, lay.shape))
        return tuple(out)

    @property
    def property_names(self):
        return tuple(p.name for p in self.properties)

    def prop_index(self, prop):
        """Index of a property given by name ("pos" gives POS = -1) or index (returned as is;
        the C calls check its range: an IndexError). pvec.POS names the positions wherever
        a method takes a property; other negative indices are out of range. A missing name
        raises :class:`pvec.PropertyKeyError` (a KeyError)."""
        if isinstance(prop, str):
            return self._get_index(prop)
        if isinstance(prop, (int, np.integer)) and not isinstance(prop, bool):
            return int(prop)
        raise TypeError("a property is a name (str) or an index (int), got %r" % (prop,))

    def _get_index(self, name):
        out = ctypes.c_int()
        status = lib().pvec_vector_get_prop_index(self._h(), name.encode("utf-8"), ctypes.byref(out))
        if status != 0:
            cls = PropertyKeyError if status == Status.INVALID_ARGUMENT else Error
            raise cls(status, last_error(), "pvec_vector_get_prop_index")
        return out.value

    def layout(self, prop):
        """:class:`Layout` (pvec_vector_get_layout) of a property (name or index) or "pos"."""
        raw = new_layout()
        call("pvec_vector_get_layout", self._h(), self.prop_index(prop), ctypes.byref(raw))
        return Layout.of(raw)

    def host_ptr(self, prop):
        """pvec_host_ptr as an int: element (i, c) at ptr + (c*capacity + i)*elem_size."""
        return self._ptr("pvec_host_ptr", prop)

    def device_ptr(self, prop):
        """pvec_device_ptr as an int (a host address with the host backend)."""
        return self._ptr("pvec_device_ptr", prop)

    def _ptr(self, function, prop):
        index = self.prop_index(prop)
        ptr = getattr(lib(), function)(self._h(), index)
        if not ptr:
            message = last_error()
            # The getter reports NULL only; pvec_vector_get_layout gives the status of the same fault.
            status = lib().pvec_vector_get_layout(self._h(), index, ctypes.byref(new_layout()))
            raise error(status or Status.INTERNAL, message, function)
        return ptr

    # ---- views ------------------------------------------------------------------------------
    def host(self, prop="pos", ghosts=False):
        """Zero-copy :class:`PropertyView` of a property (name or index, "pos") on the host
        mirror: local particles, plus the ghosts when ghosts=True."""
        return PropertyView(self, prop, "host", ghosts)

    def device(self, prop="pos", ghosts=False):
        """Zero-copy :class:`PropertyView` of a property on the device mirror (CUDA memory,
        or a host address with the host backend)."""
        return PropertyView(self, prop, "device", ghosts)

    @property
    def pos(self):
        """Host view of the positions, shape (dim, size)."""
        return self.host(POS)

    def _subscript(self, key):
        """A key of vec[key]: a name, or a property index 0..prop_count-1. Negative indices
        are refused rather than counted from the end or taken as the positions (PVEC_POS is
        -1 in C): the positions are vec["pos"]."""
        if isinstance(key, str):
            return key
        if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
            if key < 0:
                raise OutOfRangeError(
                    Status.OUT_OF_RANGE,
                    "property index %d: vec[...] takes a name or an index 0..%d, and no "
                    "negative index; the positions are vec['pos'] (or vec.pos)" % (
                        key, self.prop_count - 1), "Vector")
            return int(key)
        raise TypeError("a property is a name (str) or an index (int), got %r" % (key,))

    def __getitem__(self, key):
        return self.host(self._subscript(key))

    def __setitem__(self, key, value):
        self.host(self._subscript(key))[...] = value

    def __contains__(self, key):
        """Whether key is "pos" or the name of a property (any other object: False)."""
        if not isinstance(key, str) or "\0" in key:
            return False
        try:
            name = key.encode("utf-8")
        except UnicodeEncodeError:
            return False
        out = ctypes.c_int()
        return lib().pvec_vector_get_prop_index(self._h(), name, ctypes.byref(out)) == 0

    def keys(self):
        """"pos", then the property names in index order: what iteration gives."""
        return ("pos",) + self.property_names

    def __iter__(self):
        return iter(self.keys())

    def values(self):
        """Host views of the positions and of every property, in the order of keys()."""
        return [self.host(k) for k in self.keys()]

    def items(self):
        """(name, host view) pairs, in the order of keys()."""
        return [(k, self.host(k)) for k in self.keys()]

    def get(self, key, default=None):
        """vec[key], or default when the vector has no such property."""
        try:
            return self[key]
        except (PropertyKeyError, OutOfRangeError):
            return default

    # ---- number of particles ----------------------------------------------------------------
    def reserve(self, n):
        """Make the capacity >= n (exactly n rounded up to 64 when it grows)."""
        call("pvec_vector_reserve", self._h(), int(n))

    def resize(self, n):
        """Set the local size to n; new particles are zero on both mirrors."""
        call("pvec_vector_resize", self._h(), int(n))

    def append(self, k=1):
        """Append k zero particles (capacity grows geometrically). Returns the first index."""
        first = ctypes.c_int64()
        call("pvec_vector_append", self._h(), int(k), ctypes.byref(first))
        return first.value

    def remove(self, indices):
        """Remove the local particles listed (any order); the others keep their order."""
        idx = np.ascontiguousarray(np.asarray(indices, dtype=np.int64).ravel())
        call("pvec_vector_remove", self._h(), idx.ctypes.data_as(ctypes.POINTER(ctypes.c_int64)),
             idx.size)

    def shrink_to_fit(self):
        """Reduce the capacity to the local size rounded up to 64."""
        call("pvec_vector_shrink_to_fit", self._h())

    # ---- transfers --------------------------------------------------------------------------
    def _props(self, props):
        """(int array or None, count) for the C calls; props None means all (NULL)."""
        if props is None:
            return None, 0
        if isinstance(props, (str, int, np.integer)):
            props = [props]
        idx = [self.prop_index(p) for p in props]
        return (ctypes.c_int * max(len(idx), 1))(*idx), len(idx)

    @property
    def stream(self):
        """CUDA stream (an int, the cudaStream_t's address; 0 = legacy default) on which
        pvec orders this vector's own device work (growth copies, zero fill, removal, map,
        ghost exchange, blocking transfers). Set it with an int or a CuPy/PyTorch/Numba
        stream object (``vec.stream = cupy.cuda.Stream()``); keep that object alive while
        the vector uses it. Device views export it as their CAI/DLPack stream."""
        return self._get("pvec_vector_get_stream", ctypes.c_void_p) or 0

    @stream.setter
    def stream(self, stream):
        call("pvec_vector_set_stream", self._h(), _cuda.stream_handle(stream))

    def host_to_device(self, props=None, stream=None):
        """Copy properties (names/indices/"pos"; None: all and the positions) from host to
        device mirror. Blocks, unless a stream is given (then ordered on it, returning at
        once: do not touch the data before the stream reaches the copy)."""
        self._transfer("pvec_host_to_device", props, stream)

    def device_to_host(self, props=None, stream=None):
        """The reverse of :meth:`host_to_device`."""
        self._transfer("pvec_device_to_host", props, stream)

    def _transfer(self, function, props, stream):
        arr, count = self._props(props)
        if arr is not None and count == 0:
            return
        if stream is None:
            call(function, self._h(), arr, count)
        else:
            call(function + "_async", self._h(), arr, count, _cuda.stream_handle(stream))

    def synchronize(self):
        """Wait until pvec's work on the vector's stream is done."""
        call("pvec_vector_synchronize", self._h())

    # ---- neighbour search (section 10 of pvec.h; docs/python.md) --------------------------
    def cell_list(self, cutoff, cells_per_cutoff=1, ghosts=False, on_device=False):
        """A :class:`pvec.CellList` of this vector's rows for cutoff (cells at least
        cutoff / cells_per_cutoff wide, cells_per_cutoff in 1..8): local rows, plus the ghosts
        with ghosts=True; built on the device mirror with on_device=True. Local. Raises
        :class:`pvec.Error` INVALID_ARGUMENT (cutoff not positive and finite or above the ghost
        width, cells_per_cutoff out of range, a NaN or infinite position), NOT_SUPPORTED
        (dim 4)."""
        return CellList(self, cutoff, cells_per_cutoff, ghosts, on_device)

    def verlet_list(self, cutoff, skin, half=False, on_device=False, cells_per_cutoff=1,
                    key=None, skip=None, source=None):
        """A :class:`pvec.VerletList` of the local particles over local and ghost rows: the
        pairs closer than cutoff + skin (at most the ghost width); half=True holds each pair
        once; key (an integer id property) orders each particle's neighbours by it; skip (an
        integer property) leaves out pairs of two particles both nonzero in it. Local. Raises
        :class:`pvec.Error` INVALID_ARGUMENT (cutoff not positive, skin negative, cutoff +
        skin above the ghost width, a NaN position, key or skip not a scalar, ...),
        DTYPE_MISMATCH (key or skip not an integer property), STATE (a half list whose ghosts
        do not come from the last valid ghost plan; key or skip not current on the ghost
        rows). source: another vector with the same subdomains (:meth:`follow`) whose rows
        (local and ghost) are the neighbours (a full list; key is its property)."""
        return VerletList(self, cutoff, skin, half, on_device, cells_per_cutoff, key, skip,
                          source)

    def sort(self, cell_width, morton=False, on_device=False, both_mirrors=False,
             halo_first=False):
        """Reorder the local particles (every property and the positions, stably) by cells of
        width cell_width on the host mirror (on_device=True: the device mirror); morton=True
        orders the cells along a Z-order curve; halo_first=True puts the cells within a ghost
        width of the subdomain's faces first, grouped by face (PVEC_SORT_HALO_FIRST: ghost_get
        and ghost_put then read a few runs of rows; not with morton); both_mirrors=True
        permutes the other mirror too. Returns True when rows moved: views and lists are then stale and the ghost plan
        is forgotten (the next ghost_get builds one); False when already in cell order
        (nothing invalidated). Local, not collective. Raises :class:`pvec.Error`
        INVALID_ARGUMENT (cell_width not positive and finite, a NaN position), NOT_SUPPORTED;
        the vector is unchanged then."""
        f = NeighborFlags(0)
        if morton:
            f |= NeighborFlags.SORT_MORTON
        if both_mirrors:
            f |= NeighborFlags.SORT_BOTH_MIRRORS
        if halo_first:
            f |= NeighborFlags.SORT_HALO_FIRST
        if on_device:
            f |= int(Flags.ON_DEVICE)
        moved = ctypes.c_int()
        call("pvec_vector_sort", self._h(), float(cell_width), int(f), ctypes.byref(moved))
        return bool(moved.value)

    # ---- misc -------------------------------------------------------------------------------
    def __repr__(self):
        if not self.alive:
            return "<pvec.Vector (destroyed)>"
        return "<pvec.Vector dim=%d size=%d ghosts=%d capacity=%d backend=%s props=%s>" % (
            self.dim, self.size, self.ghost_size, self.capacity, self.backend,
            list(self.property_names))

    # ---- output and restart (section 9 of pvec.h; docs/io.md) ----------------------------
    def write_vtk(self, prefix, step=0, time=0.0, props=None, device=False, rank_array=False):
        """Write this step for ParaView: <prefix>_<step>/<name>_<rank>.vtp per rank, the index
        <prefix>_<step>.pvtp and the series <prefix>.pvd (which keeps its earlier entries).
        props: the properties drawn (names or indices; None: all; []: positions only).
        device=True writes the device mirror (through a staging copy; the host mirror is not
        touched); rank_array=True adds an Int32 point array "rank". Collective."""
        _io.write_vtk(self, prefix, step, time, props, device, rank_array)

    def checkpoint(self, path, step=0, time=0.0, metadata=None, props=None, device=False):
        """Write an HDF5 checkpoint at path (see :func:`pvec.checkpoint`). Collective."""
        _io.checkpoint(self, path, step=step, time=time, metadata=metadata, props=props,
                       device=device)


@api("pvec.restart")
def restart(path, backend="auto", pinned=True, comm=None, ghost=None, schema=None,
            zero_missing=False, skip_extra=False):
    """A new :class:`Vector` from the checkpoint at path, on this run's ranks (any number): the
    file's dimension, domain and boundaries; ghost width the file's unless given; particles
    distributed by map. schema: the properties wanted (a Schema or (name, dtype[, shape])
    tuples; None: the file's); they must be the file's unless zero_missing=True (properties
    the file lacks start as zeros) or skip_extra=True (properties of the file not wanted are
    not read). backend, pinned and comm as for Vector(). Collective."""
    handle = _io.restart_handle(path, backend, pinned, comm, ghost, schema, zero_missing,
                                skip_extra)
    vec = Vector.__new__(Vector)
    vec._adopt(handle)
    return vec
