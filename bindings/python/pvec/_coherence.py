"""Mirror coherence (pvec.h section 6, "Mirror coherence"; docs/python.md): which mirror holds
the newest values of each property, the caller's declarations of its own writes, the copies
that make a mirror current, and automatic synchronisation.

pvec knows which mirror each of its own operations wrote (map, ghost_get, ghost_put, sort,
remove_marked and spawn commits write the mirror they run on; a transfer makes both equal). An
operation that would read a property on the older mirror raises
:class:`pvec.StaleMirrorError` and changes nothing, unless :attr:`Coherence.auto_sync` is on.
Writes through views are invisible to pvec until declared with
:meth:`Coherence.mark_modified`.

:class:`Coherence` is a base class of :class:`pvec.Vector`, which gives it ``_h``,
``_props`` and ``prop_index``.
"""

import ctypes

from . import _args
from ._records import MirrorState
from .capi import Flags, call


class Coherence:
    """The mirror-coherence methods of a Vector (see the module docstring)."""

    _auto_sync = False

    def _rows_flags(self, on_device, rows):
        f = int(_args.lookup(_args.ROWS, rows, "rows"))
        if on_device:
            f |= int(Flags.ON_DEVICE)
        return f

    def mark_modified(self, props=None, on_device=False, rows="all"):
        """Declare that your code wrote the listed properties (names, indices or "pos"; None:
        every property and the positions) on the host mirror (on_device=True: the device
        mirror), in the rows "local", "ghost" or "all": that mirror now holds their newest
        values, and reading the other mirror before a copy raises
        :class:`pvec.StaleMirrorError` (pvec_vector_mark_modified; like Kokkos DualView's
        modify). Local; invalidates nothing."""
        f = self._rows_flags(on_device, rows)
        arr, count = self._props(props)
        if arr is not None and count == 0:
            return
        call("pvec_vector_mark_modified", self._h(), arr, count, f)

    def sync(self, props=None, on_device=False, rows="all"):
        """Make the listed properties (None: all and the positions) current on the host
        mirror (on_device=True: the device mirror): copy, of the rows "local", "ghost" or
        "all", only those older there than on the other mirror (pvec_vector_sync; like Kokkos
        DualView's sync). Nothing is copied when they are current. Local; blocks until the
        copies are done; invalidates nothing."""
        f = self._rows_flags(on_device, rows)
        arr, count = self._props(props)
        if arr is not None and count == 0:
            return
        call("pvec_vector_sync", self._h(), arr, count, f)

    def mirror_state(self, prop="pos"):
        """:class:`pvec.MirrorState` of a property (name, index or "pos"): which mirror holds
        its newest values, for the local rows and for the ghost rows (both mirrors when they
        are equal) (pvec_vector_get_mirror_state). Local."""
        bits = ctypes.c_uint()
        call("pvec_vector_get_mirror_state", self._h(), self.prop_index(prop),
             ctypes.byref(bits))
        return MirrorState.of(bits.value)

    @property
    def auto_sync(self):
        """Automatic synchronisation: when True, an operation that would read a property on
        the older mirror first copies the newer rows over (a blocking copy) instead of
        raising :class:`pvec.StaleMirrorError` (pvec_vector_set_auto_sync). False by default.
        Reading gives the value last set through this object."""
        return self._auto_sync

    @auto_sync.setter
    def auto_sync(self, on):
        call("pvec_vector_set_auto_sync", self._h(), 1 if on else 0)
        self._auto_sync = bool(on)
