"""Loading libpvec and calling it: :func:`lib` (one ctypes function per PROTOTYPES entry),
:func:`check` and :func:`call` (a non-zero status becomes :class:`pvec.Error` with
pvec_last_error), and the struct helpers :func:`vector_desc` and :func:`new_layout`.

The shared library is found on first use, in this order:

1. the environment variable ``PVEC_LIBRARY`` (a full path; no fallback if it fails);
2. the path recorded by ``cmake --install`` in ``pvec/_install_config.py``, if present;
3. ``ctypes.util.find_library("pvec")``;
4. the standard names ``libpvec.so.0`` and ``libpvec.so`` (dynamic-loader search path).
"""

import ctypes
import ctypes.util
import os
import threading

from ._cdefs import PROTOTYPES, VERSION_MAJOR, Layout, Status, VectorDesc
from ._errors import Error, error

try:
    from . import _install_config  # written by `cmake --install`; absent in the source tree
except ImportError:
    _install_config = None

_lock = threading.Lock()
_api = None


class _Api:
    """Namespace holding one callable per C function, plus the loaded CDLL and its path."""

    def __init__(self, cdll, path):
        self.cdll = cdll
        self.path = path
        self.missing = []
        for name, (restype, argtypes) in PROTOTYPES.items():
            try:
                fn = getattr(cdll, name)
            except AttributeError:
                self.missing.append(name)
                setattr(self, name, _missing_symbol(name, path))
                continue
            fn.restype = restype
            fn.argtypes = argtypes
            setattr(self, name, fn)


def _missing_symbol(name, path):
    def fn(*_args):
        raise Error(Status.NOT_SUPPORTED, "%s is not exported by %s" % (name, path), name)

    return fn


def _recorded_path():
    return getattr(_install_config, "LIBRARY", None)


def library_candidates():
    """The paths and names tried, in order, to load libpvec (see the module docstring)."""
    env = os.environ.get("PVEC_LIBRARY")
    if env:
        return [env]
    names = []
    recorded = _recorded_path()
    if recorded:
        names.append(recorded)
    found = ctypes.util.find_library("pvec")
    if found:
        names.append(found)
    names += ["libpvec.so.0", "libpvec.so", "libpvec.dylib"]
    return names


def _promote_mpi(path):
    """Makes the MPI library that libpvec loaded (and what it needs) global.

    Open MPI dlopens its components, which expect libmpi's symbols in the global scope; so an
    MPI library loaded with libpvec is promoted there (dlopen with RTLD_NOLOAD | RTLD_GLOBAL).
    libpvec's other libraries stay local: a parallel HDF5 made global would bind the symbols of
    a Python package that bundles its own HDF5 (h5py wheels) to the wrong library, whose first
    call then fails ("Not a datatype"). Where the loaded libraries cannot be listed (no
    /proc/self/maps), libpvec itself is promoted, as before. Raises OSError as ctypes.CDLL.
    """
    noload = getattr(os, "RTLD_NOLOAD", 4)
    try:
        with open("/proc/self/maps") as maps:
            loaded = {line.split()[-1] for line in maps if "/" in line}
    except OSError:
        ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL | noload)
        return
    for p in sorted(loaded):
        name = os.path.basename(p)
        if name.startswith(("libmpi.so", "libmpich.so", "libmpi_ibm.so")):
            ctypes.CDLL(p, mode=ctypes.RTLD_GLOBAL | noload)


def lib():
    """The loaded C library (an object with one attribute per pvec_* function).

    Loads it on first call. Raises :class:`Error` (NOT_SUPPORTED) when no candidate loads,
    or when its major version differs from the binding's.
    """
    global _api
    if _api is not None:
        return _api
    with _lock:
        if _api is not None:
            return _api
        failures = []
        for cand in library_candidates():
            try:
                # RTLD_LOCAL, then libpvec's MPI made global (_promote_mpi): libpvec's other
                # libraries (HDF5) must not take the place of another copy in the process.
                cdll = ctypes.CDLL(cand, mode=ctypes.RTLD_LOCAL)
                _promote_mpi(cand)
            except OSError as exc:
                failures.append("%s: %s" % (cand, exc))
                continue
            api = _Api(cdll, cand)
            if api.pvec_version_number() // 10000 != VERSION_MAJOR:
                failures.append("%s: version %s, the binding needs %d.x" % (
                    cand, api.pvec_version_string().decode(), VERSION_MAJOR))
                continue
            _api = api
            return _api
        raise Error(Status.NOT_SUPPORTED,
                    "cannot load libpvec (set PVEC_LIBRARY to its full path); tried: " +
                    "; ".join(failures), "pvec.capi.lib")


def last_error():
    """pvec_last_error() of this thread, as str."""
    return lib().pvec_last_error().decode("utf-8", "replace")


def check(status, function):
    """Raise :class:`Error` (:class:`OutOfRangeError` for OUT_OF_RANGE) with pvec_last_error
    when status is not SUCCESS."""
    if status != 0:
        raise error(status, last_error(), function)


def call(function, *args):
    """Call the C function named function with args and check its status."""
    check(getattr(lib(), function)(*args), function)


def vector_desc():
    """A VectorDesc filled with the defaults (PVEC_VECTOR_DESC_INIT)."""
    desc = VectorDesc()
    call("pvec_vector_desc_init", ctypes.byref(desc))
    return desc


def new_layout():
    """A Layout with struct_size set, ready for pvec_vector_get_layout."""
    out = Layout()
    out.struct_size = ctypes.sizeof(Layout)
    return out
