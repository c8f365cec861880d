"""The per-vector C structs as frozen dataclasses of Python values: :class:`Layout`
(pvec_layout) and :class:`OpStats` (pvec_op_stats), each built from its ctypes struct, and
:class:`MirrorState` (the bits of pvec_vector_get_mirror_state)."""

import ctypes
from dataclasses import dataclass
from typing import NamedTuple

from . import _runtime
from .capi import POS, DType, Mirror, Transport


@dataclass(frozen=True)
class Layout:
    """pvec_layout of one property, as Python values. ``shape`` is the property's shape
    (() scalar, (n,) vector, (n, m) tensor; (dim,) for the positions); element (particle i,
    component c) is at ``ptr + c*stride_bytes + i*elem_size``."""

    prop: int
    name: str
    dtype: DType
    elem_size: int
    rank: int
    extents: tuple
    shape: tuple
    ncomp: int
    capacity: int
    stride_elems: int
    stride_bytes: int
    n_local: int
    n_ghost: int
    generation: int
    host_ptr: int
    device_ptr: int

    @property
    def numpy_dtype(self):
        return _runtime.numpy_dtype(self.dtype)

    @classmethod
    def of(cls, raw):
        """The Layout of a filled capi.Layout."""
        extents = tuple(raw.extents)
        shape = extents[:raw.rank] if raw.prop != POS else (raw.ncomp,)
        return cls(raw.prop, raw.name.decode("utf-8") if raw.name else "", DType(raw.dtype),
                   raw.elem_size, raw.rank, extents, shape, raw.ncomp, raw.capacity,
                   raw.stride_elems, raw.stride_bytes, raw.n_local, raw.n_ghost,
                   raw.generation, raw.host_ptr or 0, raw.device_ptr or 0)


@dataclass(frozen=True)
class OpStats:
    """pvec_op_stats of the last map, ghost_get or ghost_put on a vector, as Python values
    (zeros before the first): wall time of the on-processor work and of the messages, bytes
    and particles (ghost entries) sent and received, of those the own periodic images (in no
    message), and how the messages travelled."""

    compute_seconds: float
    exchange_seconds: float
    bytes_sent: int
    bytes_received: int
    particles_sent: int
    particles_received: int
    particles_self: int
    transport: Transport

    @classmethod
    def of(cls, raw):
        """The OpStats of a filled capi.OpStats."""
        values = {name: getattr(raw, name) for name, _ in type(raw)._fields_
                  if name != "struct_size"}
        values["transport"] = Transport(values["transport"])
        return cls(**values)


def struct(cls):
    """An instance of the ctypes struct cls with struct_size set (all of it)."""
    out = cls()
    out.struct_size = ctypes.sizeof(cls)
    return out


class MirrorState(NamedTuple):
    """Which mirror holds the newest values of one property (pvec_vector_get_mirror_state):
    for the local particles' rows and for the ghosts' rows, True on the side (or both sides,
    when they are equal) holding them."""

    host_local: bool
    device_local: bool
    host_ghost: bool
    device_ghost: bool

    @classmethod
    def of(cls, bits):
        """The MirrorState of PVEC_MIRROR_* bits."""
        return cls(bool(bits & Mirror.HOST_LOCAL), bool(bits & Mirror.DEVICE_LOCAL),
                   bool(bits & Mirror.HOST_GHOST), bool(bits & Mirror.DEVICE_GHOST))

    @property
    def bits(self):
        """The PVEC_MIRROR_* bits, as a :class:`pvec.capi.Mirror`."""
        return Mirror((Mirror.HOST_LOCAL if self.host_local else 0)
                      | (Mirror.DEVICE_LOCAL if self.device_local else 0)
                      | (Mirror.HOST_GHOST if self.host_ghost else 0)
                      | (Mirror.DEVICE_GHOST if self.device_ghost else 0))
