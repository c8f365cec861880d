"""Output and restart (section 9 of pvec.h; docs/io.md): HDF5 checkpoints that restart on any
number of ranks, and ParaView output. Works on any object with a ``handle`` (a Vector);
:func:`pvec.restart`, which makes a Vector, is in pvec._vector on top of
:func:`restart_handle`."""

import ctypes
import dataclasses
import os

from . import _args, _runtime
from ._schema import PropertyInfo
from .capi import MAX_NAME as PVEC_MAX_NAME
from .capi import Error, Flags, Status, VTK_RANK_ARRAY, call, vector_desc

__all__ = ["CheckpointInfo", "checkpoint", "checkpoint_info", "has_hdf5", "restart_handle", "write_vtk"]


def has_hdf5():
    """Whether this libpvec was built with parallel HDF5 (checkpoints available)."""
    flag = ctypes.c_int(0)
    call("pvec_has_hdf5", ctypes.byref(flag))
    return bool(flag.value)


def checkpoint(vec, path, step=0, time=0.0, metadata=None, device=False):
    """Write vec as one HDF5 file at path (through path.tmp, renamed when complete) with an
    XDMF sidecar. metadata: a dict of str -> str or number, stored as attributes of
    /metadata (every rank passes the same). device=True writes the device mirror. Collective.
    Raises pvec.Error (NOT_SUPPORTED without parallel HDF5, IO when a file cannot be written)."""
    items = list((metadata or {}).items())
    n = len(items)
    keys = (ctypes.c_char_p * max(n, 1))()
    strings = (ctypes.c_char_p * max(n, 1))()
    numbers = (ctypes.c_double * max(n, 1))()
    for k, (key, value) in enumerate(items):
        if not isinstance(key, str):
            raise Error(Status.INVALID_ARGUMENT, "metadata key %r is not a str" % (key,),
                        "checkpoint")
        keys[k] = key.encode("utf-8")
        if isinstance(value, str):
            strings[k] = value.encode("utf-8")
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            numbers[k] = float(value)
        else:
            raise Error(Status.INVALID_ARGUMENT,
                        "metadata %r: value must be a str or a number, got %r" % (key, value),
                        "checkpoint")
    flags = int(Flags.ON_DEVICE) if device else 0
    call("pvec_checkpoint_write", vec.handle, os.fsencode(path), int(step), float(time), n,
         keys, strings, numbers, flags)


def write_vtk(vec, prefix, step=0, time=0.0, device=False, rank_array=False):
    """pvec_vtk_write of vec (see :meth:`pvec.Vector.write_vtk`). Collective."""
    flags = (int(Flags.ON_DEVICE) if device else 0) | (VTK_RANK_ARRAY if rank_array else 0)
    call("pvec_vtk_write", vec.handle, os.fsencode(prefix), int(step), float(time), flags)


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
    (a dict of str to str or float, in key order)."""

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
    is_string, number, length = ctypes.c_int(), ctypes.c_double(), ctypes.c_size_t()
    for k in range(count.value):
        call("pvec_checkpoint_get_metadata", raw, k, key, len(key), ctypes.byref(is_string),
             ctypes.byref(number), None, 0, ctypes.byref(length))
        name = key.value.decode("utf-8")
        if is_string.value:
            text = ctypes.create_string_buffer(length.value + 1)
            call("pvec_checkpoint_get_metadata", raw, k, None, 0, None, None, text, len(text),
                 None)
            out[name] = text.value.decode("utf-8")
        else:
            out[name] = number.value
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


def restart_handle(path, backend="auto", pinned=True, comm=None, ghost=None):
    """pvec_checkpoint_restart: the handle (an int) of a new vector made from the checkpoint at
    path, for the caller to own. Collective."""
    desc, schema, _, _ = _describe(path)
    try:
        if ghost is not None:
            desc.ghost_width = float(ghost)
        _args.set_location(desc, backend, pinned, comm)
        handle = ctypes.c_void_p()
        call("pvec_checkpoint_restart", os.fsencode(path), ctypes.byref(desc), schema, 0,
             ctypes.byref(handle))
    finally:
        call("pvec_schema_destroy", schema)
    return handle.value
