"""The lifetime of an object that owns one C handle (a vector, a cell list, a Verlet list, a
schema): one base class, so that every such object closes the same way.

- The handle is given up exactly once: by :meth:`Handle.close` (also ``destroy``, the end of a
  ``with`` block, or collection), whichever comes first; later calls do nothing. Taking it is
  atomic (one ``dict.pop``), so two threads, or ``close`` racing ``__del__``, never both free it.
- After :func:`pvec.finalize` pvec has destroyed every handle itself: closing then frees nothing,
  and any use raises :class:`pvec.Error` (STATE).
- Using a closed object raises :class:`pvec.Error` (INVALID_HANDLE) saying which object and
  how it was closed, never a C call on a freed handle.
- ``__del__`` never raises and never calls C when pvec is finalized or the interpreter is
  tearing the package down; an object whose constructor failed owns nothing and frees nothing.
"""

from . import _runtime
from .capi import Error, Status, call


class Handle:
    """Base class of the objects that own a C handle. A subclass sets ``_what`` (the noun of its
    messages, "vector") and ``_destroy_fn`` (the C function that frees the handle), calls
    :meth:`_adopt` with the new handle, and reads it through :meth:`_h`, which raises once the
    object is closed. :meth:`_release` frees the handle; a subclass whose handle has other
    owners (a list's exported arrays) overrides it."""

    _what = "object"
    _destroy_fn = None
    _handle = None  # class default: an object whose constructor failed owns nothing

    def _adopt(self, handle):
        """Own handle (an int): from now on this object frees it."""
        self._handle = handle

    def _take(self):
        """The handle, given up by this object (None when it holds none): atomic."""
        return self.__dict__.pop("_handle", None)

    def _release(self, handle):
        """Free handle (pvec is not finalized)."""
        call(self._destroy_fn, handle)

    def _h(self):
        """The live handle; raises pvec.Error when the object is closed or pvec finalized."""
        handle = self._handle
        if handle is None:
            raise Error(Status.INVALID_HANDLE, "the %s was destroyed (destroy(), close() or the "
                        "end of its with block) and cannot be used any more" % self._what,
                        type(self).__name__)
        if _runtime.is_finalized():
            raise Error(Status.STATE, "pvec was finalized: pvec.finalize() destroyed the %s"
                        % self._what, type(self).__name__)
        return handle

    @property
    def alive(self):
        """False once destroyed (close()/destroy(), the end of a with block, or
        pvec.finalize())."""
        return self._handle is not None and not _runtime.is_finalized()

    @property
    def handle(self):
        """The C handle as an int, for direct calls through pvec.capi."""
        return self._h()

    def close(self):
        """Destroy the C object now. Harmless when already closed, and after pvec.finalize()
        (which destroyed it)."""
        handle = self._take()
        if handle is not None and not _runtime.is_finalized():
            self._release(handle)

    def destroy(self):
        """Same as :meth:`close`."""
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if self.__dict__.get("_handle") is None:
            return
        try:
            self.close()
        except Exception:  # nothing to report to at collection; never raise from __del__
            pass
