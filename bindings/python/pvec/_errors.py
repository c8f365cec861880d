"""pvec's exceptions, and the decorators that make an error name the Python method the user
called (``Vector.layout: pvec_vector_get_layout: ... [OUT_OF_RANGE]``)."""

import functools
import threading

from ._cdefs import Status

class Error(Exception):
    """A pvec call failed.

    Attributes: ``status`` (a :class:`Status`, or the raw int for an unknown value),
    ``message`` (the text: the Python method called, then the detail of pvec_last_error or
    a binding message), ``function`` (the Python method the user called, e.g.
    ``"Vector.layout"``; the C function for a direct call through :func:`check`) and
    ``c_function`` (the C function that failed, or None when the binding refused the call).
    """

    def __init__(self, status, message="", function=None):
        try:
            status = Status(status)
        except ValueError:
            pass
        self.status = status
        self.message = message
        self.function = function
        self.c_function = function if function and function.startswith("pvec_") else None
        super().__init__(self._text())

    def _text(self):
        name = self.status.name if isinstance(self.status, Status) else str(int(self.status))
        text = self.message or (self.function + " failed" if self.function else
                                "pvec call failed")
        return "%s [%s]" % (text, name)

    __str__ = Exception.__str__  # KeyError would quote the text

    def _called_as(self, name):
        """Name the Python method the user called, keep the C detail, and say Python
        keywords where the C text names flags."""
        if self.function == name:
            return
        message = self.message
        old = self.function
        if old and not old.startswith("pvec_") and message.startswith(old + ": "):
            message = message[len(old) + 2:]  # a binding's own prefix: replaced
        message = python_words(message)
        self.message = "%s: %s" % (name, message) if message else name + " failed"
        self.function = name
        self.args = (self._text(),)


class StaleViewError(Error):
    """A view was used after its vector reallocated or reordered its buffers (the
    generation changed), or after the vector was destroyed. Fetch a new view."""

    def __init__(self, message, function=None):
        super().__init__(Status.STATE, message, function)


class PropertyKeyError(Error, KeyError):
    """No property of that name (a :class:`KeyError`; status INVALID_ARGUMENT)."""


class OutOfRangeError(Error, IndexError):
    """A property index or particle index out of range (an :class:`IndexError`; status
    OUT_OF_RANGE)."""


class StaleMirrorError(Error):
    """An operation would read a property on a mirror holding older values than the other
    mirror (status STALE_MIRROR); nothing was changed. Copy the newer side first
    (``host_to_device``, ``device_to_host`` or ``sync``), declare this side current
    (``mark_modified``), or set ``vec.auto_sync = True``."""


_STATUS_CLASSES = {Status.OUT_OF_RANGE: OutOfRangeError, Status.STALE_MIRROR: StaleMirrorError}


def error(status, message="", function=None):
    """The :class:`Error` (or its subclass for the status) of a failed call."""
    cls = _STATUS_CLASSES.get(status, Error)
    return cls(status, message, function)


# C spellings in pvec_last_error texts and what a Python caller writes instead.
_PYTHON_WORDS = [
    ("PVEC_MAP_REMOVE_OUTSIDE", "remove_outside=True"),
    ("PVEC_GHOST_SKIP_POSITIONS", "skip_positions=True"),
    ("PVEC_GHOST_REUSE_PLAN", "reuse_plan=True"),
    ("PVEC_ON_DEVICE", "on_device=True"),
    ("PVEC_CELLS_GHOSTS", "ghosts=True"),
    ("PVEC_SORT_MORTON", "morton=True"),
    ("PVEC_SORT_BOTH_MIRRORS", "both_mirrors=True"),
    ("PVEC_SORT_HALO_FIRST", "halo_first=True"),
    ("PVEC_VERLET_HALF", "half=True"),
    ("PVEC_REMOVE_FILL_HOLES", "fill_holes=True"),
    ("PVEC_IDS_KEEP", "keep=True"),
    ("(pvec_host_to_device or pvec_vector_sync)", "(host_to_device() or sync())"),
    ("(pvec_device_to_host or pvec_vector_sync)", "(device_to_host() or sync())"),
    ("current (pvec_vector_mark_modified)", "current (mark_modified())"),
    ("turn on pvec_vector_set_auto_sync", "set auto_sync = True"),
    ("with pvec_vector_spawn_begin and run", "with spawn() and run"),
    ("call pvec_verlet_build", "call .build()"),
    ("call pvec_cell_list_build", "call .build()"),
    ("PVEC_POS = -1 for positions", "'pos' (pvec.POS) for the positions"),
    ("PVEC_REDUCE_ADD, PVEC_REDUCE_MIN or PVEC_REDUCE_MAX", "op='add', 'min' or 'max'"),
]


def python_words(text):
    """text with pvec.h's flag names replaced by the Python keywords that set them."""
    for c_word, py_word in _PYTHON_WORDS:
        text = text.replace(c_word, py_word)
    return text


_entry = threading.local()


def api(name):
    """Decorator of a public Python function or method: errors raised while it runs name it
    (``name``: "Vector.layout"), whatever internal call failed. Only the outermost call
    made by the user names itself: Vector.host calling Vector.layout reports Vector.host."""

    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            if getattr(_entry, "name", None) is not None:
                return fn(*args, **kwargs)
            _entry.name = name
            try:
                return fn(*args, **kwargs)
            except Error as exc:
                exc._called_as(name)
                raise
            finally:
                _entry.name = None

        return wrapper

    return decorate


_API_DUNDERS = {"__init__", "__getitem__", "__setitem__", "__contains__", "__iter__",
                "__len__", "__enter__", "__exit__", "__array__", "__dlpack__",
                "__dlpack_device__", "__array_interface__", "__cuda_array_interface__"}


def api_class(cls):
    """Class decorator: :func:`api` on every public method and property of cls, inherited ones
    included (and the protocol methods in _API_DUNDERS), named "Class.method"."""
    members = {}
    for klass in reversed(cls.__mro__[:-1]):  # a subclass's definition wins over its base's
        members.update(vars(klass))
    for attr, value in members.items():
        if attr.startswith("_") and attr not in _API_DUNDERS or \
                isinstance(value, (staticmethod, classmethod)):
            continue
        name = "%s.%s" % (cls.__name__, attr)
        if attr == "__init__":
            name = cls.__name__
        if isinstance(value, property):
            setattr(cls, attr, property(
                api(name)(value.fget) if value.fget else None,
                api(name)(value.fset) if value.fset else None,
                value.fdel, value.__doc__))
        elif callable(value) and not isinstance(value, type):
            setattr(cls, attr, api(name)(value))
    return cls
