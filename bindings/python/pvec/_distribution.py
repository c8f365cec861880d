"""What a vector does over its communicator (pvec.h section 7; docs/distribution.md,
docs/reductions.md): the decomposition (rank, subdomain, owner), map, ghost_get, ghost_put
and their split-phase forms (docs/overlap.md), their figures (last_op_stats), the reductions
reduce and allreduce, and the load imbalance (pvec.h section 11, docs/balance.md).

:class:`Distributed` is a base class of :class:`pvec.Vector`, which gives it ``_h`` (the
handle), ``_get``, ``_props``, ``dim``, ``prop_index`` and ``layout``.
"""

import ctypes

import numpy as np

from . import _args, _runtime, capi
from ._records import OpStats, struct
from .capi import NO_WEIGHT, Error, Flags, Status, call

# The type pvec_vector_reduce writes for a property of each NumPy kind.
_REDUCED = {"f": np.float64, "i": np.int64, "u": np.uint64}


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

    def _ghost_exchange(self, fn, props, on_device, flags, reuse_plan=False,
                        skip_positions=False, op=None):
        # pvec_ghost_get(_begin) (op None) or pvec_ghost_put(_begin): the flags and the list.
        f = Flags(flags or 0)
        if on_device:
            f |= Flags.ON_DEVICE
        if reuse_plan:
            f |= Flags.GHOST_REUSE_PLAN
        if skip_positions:
            f |= Flags.GHOST_SKIP_POSITIONS
        arr, count = self._props(props)
        if op is None:
            call(fn, self._h(), arr, count, int(f))
        else:
            call(fn, self._h(), arr, count, int(_args.lookup(_args.OPS, op, "op")), int(f))

    def ghost_get(self, props=None, on_device=False, reuse_plan=False, skip_positions=False,
                  flags=None):
        """Replace the ghosts by copies of the particles within the ghost width of this
        rank's subdomain (collective). props: the properties that travel (None: all)."""
        self._ghost_exchange("pvec_ghost_get", props, on_device, flags, reuse_plan,
                             skip_positions)

    def imbalance(self, weight=None, on_device=False):
        """(count, weight): the largest rank's local particle count over the mean, and the same
        of each rank's sum of the scalar float property weight (a name or index; None: the
        counts again), read on the device mirror with on_device=True. 1.0 is perfect balance.
        Negative, NaN or infinite weights raise pvec.Error (INVALID_ARGUMENT) on every rank.
        Collective (pvec_vector_get_imbalance)."""
        prop = NO_WEIGHT if weight is None else self.prop_index(weight)
        count, wsum = ctypes.c_double(), ctypes.c_double()
        call("pvec_vector_get_imbalance", self._h(), prop,
             int(Flags.ON_DEVICE) if on_device else 0, ctypes.byref(count), ctypes.byref(wsum))
        return count.value, wsum.value

    def rebalance(self, weight=None, threshold=1.0, on_device=False):
        """When the imbalance (of the scalar float property weight's sums, or of the counts
        with weight=None) exceeds threshold (>= 1), move the subdomain boundaries to follow
        the particles and map them there (one map; ghosts, plans and lists must be rebuilt).
        Returns (before, after): the imbalance measured before and after (equal when nothing
        was done). on_device=True reads the device mirror and maps there. Collective
        (pvec_vector_rebalance, docs/balance.md)."""
        prop = NO_WEIGHT if weight is None else self.prop_index(weight)
        before, after = ctypes.c_double(), ctypes.c_double()
        call("pvec_vector_rebalance", self._h(), prop, float(threshold),
             int(Flags.ON_DEVICE) if on_device else 0, ctypes.byref(before), ctypes.byref(after))
        return before.value, after.value

    def follow(self, leader, on_device=False):
        """Take leader's subdomains now and at every later :meth:`rebalance` of leader, which
        maps this vector too (pvec_vector_follow): particles of both near each other live on
        one rank, and ``leader.verlet_list(..., source=self)`` lists neighbours between them.
        leader=None stops following (the boxes stay). on_device=True maps the device mirror.
        Collective. Raises :class:`pvec.Error` INVALID_ARGUMENT (another domain, dimension,
        boundary or set of ranks), STATE (this vector is followed; leader follows another)."""
        handle = None if leader is None else leader._h()
        call("pvec_vector_follow", self._h(), handle, int(Flags.ON_DEVICE) if on_device else 0)

    def ghost_put(self, props=None, op="add", on_device=False, flags=None):
        """Send ghost values back to their owners and combine them with op ("add", "min",
        "max", "replace" or a ReduceOp) (collective)."""
        self._ghost_exchange("pvec_ghost_put", props, on_device, flags, op=op)

    # ---- split-phase ghost exchange (docs/overlap.md) -----------------------------------------
    # ghost_get / ghost_put in two calls, so that the program computes while the messages
    # travel; the result is bitwise the blocking call's. Every rank calls begin (collective),
    # then end. While one is in flight, map, ghost_get, ghost_put (and their begins), sort,
    # append, remove, resize, reserve, shrink_to_fit, remove_marked, spawns, ids_init,
    # rebalance, follow, the transfers, sync and neighbour list builds raise pvec.Error
    # (Status.STATE) and change nothing; queries, reductions, mark_modified and the writers
    # work. Other vectors are independent. Closing the vector in flight completes it first.
    def ghost_get_begin(self, props=None, on_device=False, reuse_plan=False,
                        skip_positions=False, flags=None):
        """First half of :meth:`ghost_get` (same arguments; collective): plan, pack and post
        the messages. It may grow the vector (views become stale, as with ghost_get). Until
        :meth:`ghost_get_end` the local rows may be read and written on either mirror (what
        travels was packed here); the ghost rows must not be touched, and ghost_size is still
        the previous count. Raises :class:`pvec.Error` as ghost_get does, and STATE (an
        exchange already in flight, a spawn open)."""
        self._ghost_exchange("pvec_ghost_get_begin", props, on_device, flags, reuse_plan,
                             skip_positions)

    def ghost_get_end(self):
        """Complete :meth:`ghost_get_begin` and write the ghost rows. Local, but every rank
        must call it. Raises :class:`pvec.Error` STATE (no ghost_get_begin in flight), MPI,
        CUDA (then the vector has no ghosts and no plan)."""
        call("pvec_ghost_get_end", self._h())

    def ghost_put_begin(self, props=None, op="add", on_device=False, flags=None):
        """First half of :meth:`ghost_put` (same arguments; collective): pack the ghost rows
        of the listed properties (None: every property) and post them. Until
        :meth:`ghost_put_end` their local rows must not be read or written (they are combined
        at end) nor their ghost rows written; every other property's rows are free. Raises
        :class:`pvec.Error` as ghost_put does, and STATE (an exchange already in flight)."""
        self._ghost_exchange("pvec_ghost_put_begin", props, on_device, flags, op=op)

    def ghost_put_end(self):
        """Complete :meth:`ghost_put_begin`: combine the values into the local rows. Local,
        but every rank must call it. Raises :class:`pvec.Error` STATE (no ghost_put_begin in
        flight), MPI, CUDA (then the listed properties' local rows are unspecified)."""
        call("pvec_ghost_put_end", self._h())

    # ---- reductions (docs/reductions.md) ------------------------------------------------------
    def reduce(self, prop, op="add", on_device=False):
        """Sum (op="add"), minimum ("min") or maximum ("max") of each component of a property
        (name, index, or "pos") over the local particles of every rank; ghosts are not
        counted (pvec_vector_reduce). Collective: every rank passes the same prop and op.

        Returns one value per component, shaped like the property: a NumPy scalar for a
        scalar property, an array of shape (n,) for vector[n], (n, m) for tensor[n][m],
        (dim,) for the positions. The type is float64 for float properties (float32 summed in
        double), int64 for int32/int64 and uint64 for uint32/uint64. A NaN on any rank makes
        that component NaN, for min and max too. With no particle on any rank: 0 for "add",
        +inf (the type's largest value) for "min", -inf (its smallest) for "max". The same
        result on every rank. on_device=True reads the device mirror where it is (one
        reduction per component there; only the results come back).

        op may also be a :class:`pvec.ReduceOp` (ADD, MIN, MAX). Raises :class:`pvec.Error`,
        with pvec's message where pvec detects it, and nothing changes: INVALID_ARGUMENT (an
        op name other than "add", "min", "max", refused before any call; ReduceOp.REPLACE;
        ranks passing a different prop or op: then on every rank), OUT_OF_RANGE / KeyError
        (prop)."""
        index = self.prop_index(prop)
        code = int(_args.lookup(_args.REDUCE_OPS, op, "op"))
        layout = self.layout(index)
        result = np.zeros(layout.ncomp, dtype=_REDUCED[np.dtype(layout.numpy_dtype).kind])
        flags = int(Flags.ON_DEVICE) if on_device else 0
        call("pvec_vector_reduce", self._h(), index, code, flags, result.ctypes.data)
        if layout.shape == ():
            return result[0]
        return result.reshape(layout.shape)

    def allreduce(self, values, op="add"):
        """Combine values over the vector's communicator: the sum (op="add"), minimum ("min")
        or maximum ("max") of each entry over the ranks (pvec_vector_allreduce), the same on
        every rank; an energy sum, a time step's minimum, a flag's maximum, without MPI in
        the program. Collective: every rank passes the same shape, dtype and op.

        values: a NumPy array (any shape) of float32, float64, int32, int64, uint32 or uint64,
        combined in place and returned (the same object); it must be writeable. Anything else
        NumPy turns into such an array (a list, a number: int64 or float64) is combined in a
        new array, which is returned (a NumPy scalar for a number). Sums of 32-bit types are
        computed in the type: pass 64-bit values for large sums. A NaN in an entry on any
        rank makes that entry NaN everywhere.

        Raises :class:`pvec.Error` INVALID_ARGUMENT and leaves values unchanged: another
        dtype, a read-only array or an op name other than "add", "min", "max" (refused before
        any call); ReduceOp.REPLACE, ranks passing different counts, dtypes or ops (pvec's
        message; the last on every rank)."""
        code = int(_args.lookup(_args.REDUCE_OPS, op, "op"))
        in_place = isinstance(values, np.ndarray)
        array = values if in_place else np.array(values)
        dtype = _runtime.to_dtype(array.dtype)
        if not array.flags.writeable:
            raise Error(Status.INVALID_ARGUMENT, "values is a read-only array: allreduce "
                        "combines in place (pass a writeable array, or a copy)", "Vector")
        work = array if array.flags.c_contiguous else np.ascontiguousarray(array)
        call("pvec_vector_allreduce", self._h(), work.ctypes.data, work.size, int(dtype), code)
        if work is not array:
            array[...] = work
        if not in_place and array.ndim == 0:
            return array[()]
        return array

    # ---- figures ------------------------------------------------------------------------------
    def last_op_stats(self):
        """:class:`OpStats` (pvec_vector_get_op_stats) of the last map, ghost_get or ghost_put on
        this vector: compute_seconds and exchange_seconds (wall time), bytes_sent/received,
        particles_sent/received, particles_self (own periodic images, in no message) and
        transport (a pvec.Transport); zeros before the first."""
        raw = struct(capi.OpStats)
        call("pvec_vector_get_op_stats", self._h(), ctypes.byref(raw))
        return OpStats.of(raw)
