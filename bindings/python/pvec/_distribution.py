"""What a vector does over its communicator (pvec.h section 7; docs/distribution.md):
the decomposition (rank, subdomain, owner), map, ghost_get, ghost_put and their figures
(last_op_stats).

:class:`Distributed` is a base class of :class:`pvec.Vector`, which gives it ``_h`` (the
handle), ``_get``, ``_props``, ``dim``, ``prop_index`` and ``layout``.
"""

import ctypes

from . import _args, capi
from ._records import OpStats, struct
from .capi import Flags, call


class Distributed:
    """The collective and decomposition methods of a Vector (see the module docstring)."""

    # ---- decomposition ----------------------------------------------------------------------
    @property
    def comm_rank(self):
        return self._get("pvec_vector_get_rank", ctypes.c_int)

    @property
    def comm_size(self):
        return self._get("pvec_vector_get_nranks", ctypes.c_int)

    def subdomain(self):
        """(lo, hi) of the box this rank owns."""
        lo = (ctypes.c_double * 4)()
        hi = (ctypes.c_double * 4)()
        call("pvec_vector_get_subdomain", self._h(), lo, hi)
        d = self.dim
        return tuple(lo[:d]), tuple(hi[:d])

    def owner_rank(self, x):
        """Rank owning point x (dim coordinates)."""
        pt = (ctypes.c_double * 4)(*[float(v) for v in x])
        out = ctypes.c_int()
        call("pvec_vector_get_owner_rank", self._h(), pt, ctypes.byref(out))
        return out.value

    # ---- moving particles ---------------------------------------------------------------------
    def map(self, on_device=False, remove_outside=False, flags=None):
        """Send every particle to the rank owning its position (collective). Returns the
        global number of particles removed (remove_outside=True), else 0."""
        f = Flags(flags or 0)
        if on_device:
            f |= Flags.ON_DEVICE
        if remove_outside:
            f |= Flags.MAP_REMOVE_OUTSIDE
        removed = ctypes.c_int64()
        call("pvec_map", self._h(), int(f), ctypes.byref(removed))
        return removed.value

    def ghost_get(self, props=None, on_device=False, reuse_plan=False, skip_positions=False,
                  flags=None):
        """Replace the ghosts by copies of the particles within the ghost width of this
        rank's subdomain (collective). props: the properties that travel (None: all)."""
        f = Flags(flags or 0)
        if on_device:
            f |= Flags.ON_DEVICE
        if reuse_plan:
            f |= Flags.GHOST_REUSE_PLAN
        if skip_positions:
            f |= Flags.GHOST_SKIP_POSITIONS
        arr, count = self._props(props)
        call("pvec_ghost_get", self._h(), arr, count, int(f))

    def ghost_put(self, props=None, op="add", on_device=False, flags=None):
        """Send ghost values back to their owners and combine them with op ("add", "min",
        "max", "replace" or a ReduceOp) (collective)."""
        f = Flags(flags or 0)
        if on_device:
            f |= Flags.ON_DEVICE
        arr, count = self._props(props)
        call("pvec_ghost_put", self._h(), arr, count, int(_args.lookup(_args.OPS, op, "op")),
             int(f))

    # ---- figures ------------------------------------------------------------------------------
    def last_op_stats(self):
        """:class:`OpStats` (pvec_vector_get_op_stats) of the last map, ghost_get or ghost_put on
        this vector: compute_seconds and exchange_seconds (wall time), bytes_sent/received,
        particles_sent/received, particles_self (own periodic images, in no message) and
        transport (a pvec.Transport); zeros before the first."""
        raw = struct(capi.OpStats)
        call("pvec_vector_get_op_stats", self._h(), ctypes.byref(raw))
        return OpStats.of(raw)
