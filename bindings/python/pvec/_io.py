"""Output and restart (section 9 of pvec.h; docs/io.md): HDF5 checkpoints that restart on any
number of ranks, and ParaView output. Works on any object with a ``handle`` (a Vector);
:func:`pvec.restart`, which makes a Vector, is in pvec._vector on top of
:func:`restart_handle`."""

import ctypes
import dataclasses
import numbers
import os

import numpy as np

from . import _args, _runtime
from ._schema import PropertyInfo, as_schema
from .capi import MAX_NAME as PVEC_MAX_NAME
from .capi import (METADATA_MAX_VALUES, Error, Flags, MetadataKind, RestartFlags, Status,
                   VTK_RANK_ARRAY, call, vector_desc)

__all__ = ["CheckpointInfo", "checkpoint", "checkpoint_info", "has_hdf5", "restart_handle", "write_vtk"]


def has_hdf5():
    """Whether this libpvec was built with parallel HDF5 (checkpoints available)."""
    flag = ctypes.c_int(0)
    call("pvec_has_hdf5", ctypes.byref(flag))
    return bool(flag.value)


def _prop_list(vec, props):
    """(int array or None, count) of a props argument: None for every property."""
    return vec._props(props)


def _metadata_args(metadata, where):
    """The C arrays of pvec_checkpoint_write's metadata: keys, strings, numbers, counts."""
    items = list((metadata or {}).items())
    n = len(items)
    keys = (ctypes.c_char_p * max(n, 1))()
    strings = (ctypes.c_char_p * max(n, 1))()
    counts = (ctypes.c_int * max(n, 1))()
    values = []
    for k, (key, value) in enumerate(items):
        if not isinstance(key, str):
            raise Error(Status.INVALID_ARGUMENT, "metadata key %r is not a str" % (key,), where)
        keys[k] = key.encode("utf-8")
        if isinstance(value, str):
            strings[k] = value.encode("utf-8")
        elif isinstance(value, numbers.Real) and not isinstance(value, bool):
            values.append(float(value))
            counts[k] = 0
        else:
            try:
                arr = np.asarray(value, dtype=np.float64)
            except (TypeError, ValueError):
                arr = None
            if (arr is None or arr.ndim != 1 or isinstance(value, (bytes, dict))
                    or np.asarray(value).dtype == bool):
                raise Error(Status.INVALID_ARGUMENT,
                            "metadata %r: value must be a str, a number or a 1-D sequence of "
                            "numbers, got %r" % (key, value), where)
            if not 1 <= arr.size <= METADATA_MAX_VALUES:
                raise Error(Status.INVALID_ARGUMENT,
                            "metadata %r: an array holds 1 to %d numbers, this one %d"
                            % (key, METADATA_MAX_VALUES, arr.size), where)
            values.extend(float(x) for x in arr)
            counts[k] = arr.size
    numbers_arr = (ctypes.c_double * max(len(values), 1))(*values)
    return n, keys, strings, numbers_arr, counts


def checkpoint(vec, path, step=0, time=0.0, metadata=None, props=None, device=False):
    """Write vec as one HDF5 file at path (through path.tmp, renamed when complete) with an
    XDMF sidecar. props: the properties saved (names or indices; None: all; []: positions
    only). metadata: a dict of str -> str, number, or 1-D sequence of numbers (1 to
    pvec.capi.METADATA_MAX_VALUES; read back as a list), stored as attributes of /metadata
    (every rank passes the same). device=True writes the device mirror. Collective. Raises
    pvec.Error (NOT_SUPPORTED without parallel HDF5, IO when a file cannot be written)."""
    n, keys, strings, values, counts = _metadata_args(metadata, "checkpoint")
    arr, count = _prop_list(vec, props)
    flags = int(Flags.ON_DEVICE) if device else 0
    call("pvec_checkpoint_write", vec.handle, os.fsencode(path), int(step), float(time), arr,
         count, n, keys, strings, values, counts, flags)


def write_vtk(vec, prefix, step=0, time=0.0, props=None, device=False, rank_array=False):
    """pvec_vtk_write of vec (see :meth:`pvec.Vector.write_vtk`). Collective."""
    flags = (int(Flags.ON_DEVICE) if device else 0) | (VTK_RANK_ARRAY if rank_array else 0)
    arr, count = _prop_list(vec, props)
    call("pvec_vtk_write", vec.handle, os.fsencode(prefix), int(step), float(time), arr, count,
         flags)


def _describe(path):
    _runtime.init()
    desc = vector_desc()
    schema = ctypes.c_void_p()
    step = ctypes.c_int64()
    time = ctypes.c_double()
    call("pvec_checkpoint_describe", os.fsencode(path), ctypes.byref(desc), ctypes.byref(schema),
         ctypes.byref(step), ctypes.byref(time))
    return desc, schema, step.value, time.value


@dataclasses.dataclass(frozen=True)
class CheckpointInfo:
    """What a checkpoint holds (:func:`checkpoint_info`): the step and time stored, the
    geometry a restart will have, the properties, as :class:`pvec.PropertyInfo` tuples
    (index, name, NumPy dtype, shape) in declaration order, and the metadata written with it
    (a dict of str to str, float, or list of floats for an array, in key order)."""

    step: int
    time: float
    dim: int
    pos_dtype: object
    domain: tuple
    periodic: tuple
    ghost_width: float
    properties: tuple
    metadata: dict


def _properties(schema):
    count = ctypes.c_int()
    call("pvec_schema_get_count", schema, ctypes.byref(count))
    out = []
    name = ctypes.create_string_buffer(PVEC_MAX_NAME + 1)
    dtype, rank = ctypes.c_int(), ctypes.c_int()
    extents = (ctypes.c_int64 * 2)()
    for k in range(count.value):
        call("pvec_schema_get_property", schema, k, name, len(name), ctypes.byref(dtype),
             ctypes.byref(rank), extents)
        out.append(PropertyInfo(k, name.value.decode("utf-8"), _runtime.numpy_dtype(dtype.value),
                                tuple(int(e) for e in extents[:rank.value])))
    return tuple(out)


def _metadata(path):
    raw = os.fsencode(path)
    count = ctypes.c_int()
    call("pvec_checkpoint_get_metadata_count", raw, ctypes.byref(count))
    out = {}
    key = ctypes.create_string_buffer(4096)
    kind, length = ctypes.c_int(), ctypes.c_size_t()
    for k in range(count.value):
        call("pvec_checkpoint_get_metadata", raw, k, key, len(key), ctypes.byref(kind),
             ctypes.byref(length), None, 0, None, 0)
        name = key.value.decode("utf-8")
        if kind.value == MetadataKind.STRING:
            text = ctypes.create_string_buffer(length.value + 1)
            call("pvec_checkpoint_get_metadata", raw, k, None, 0, None, None, None, 0, text,
                 len(text))
            out[name] = text.value.decode("utf-8")
        else:
            values = (ctypes.c_double * length.value)()
            call("pvec_checkpoint_get_metadata", raw, k, None, 0, None, None, values,
                 length.value, None, 0)
            out[name] = values[0] if kind.value == MetadataKind.NUMBER else list(values)
    return out


def checkpoint_info(path):
    """What a checkpoint holds, without creating a vector (local; any rank may call it):
    a :class:`CheckpointInfo`. Raises pvec.Error (IO for a missing, damaged or incomplete
    file, NOT_SUPPORTED without parallel HDF5)."""
    desc, schema, step, time = _describe(path)
    try:
        props = _properties(schema)
    finally:
        call("pvec_schema_destroy", schema)
    dim = desc.dim
    return CheckpointInfo(
        step=step, time=time, dim=dim, pos_dtype=_runtime.numpy_dtype(desc.pos_dtype),
        domain=(tuple(desc.domain_lo[:dim]), tuple(desc.domain_hi[:dim])),
        periodic=tuple(bool(b) for b in desc.boundary[:dim]), ghost_width=desc.ghost_width,
        properties=props, metadata=_metadata(path))


def restart_handle(path, backend="auto", pinned=True, comm=None, ghost=None, schema=None,
                   zero_missing=False, skip_extra=False):
    """pvec_checkpoint_restart: the handle (an int) of a new vector made from the checkpoint at
    path, for the caller to own. schema: the properties wanted (a pvec.Schema or a sequence of
    (name, dtype[, shape]); None: the file's). Collective."""
    desc, file_schema, _, _ = _describe(path)
    try:
        if ghost is not None:
            desc.ghost_width = float(ghost)
        _args.set_location(desc, backend, pinned, comm)
        flags = RestartFlags.NONE
        if zero_missing:
            flags |= RestartFlags.ZERO_MISSING
        if skip_extra:
            flags |= RestartFlags.SKIP_EXTRA
        handle = ctypes.c_void_p()
        if schema is None:
            call("pvec_checkpoint_restart", os.fsencode(path), ctypes.byref(desc), file_schema,
                 int(flags), ctypes.byref(handle))
        else:
            wanted, owned = as_schema(schema)
            try:
                call("pvec_checkpoint_restart", os.fsencode(path), ctypes.byref(desc),
                     wanted.handle, int(flags), ctypes.byref(handle))
            finally:
                if owned:
                    wanted.close()
    finally:
        call("pvec_schema_destroy", file_schema)
    return handle.value
