"""The C ABI of include/pvec.h through ctypes, for direct calls: ``pvec.capi``.

It gathers, under one name, what the package's lower modules define:

- :mod:`pvec._cdefs`: the constants, enums (IntEnum), structs (OptionInfo, VectorDesc, Spawner,
  Layout, MemoryStats, OpStats, CellListInfo, VerletInfo, VerletOptions, field for field) and
  ``PROTOTYPES``, a prototype for every exported function;
- :mod:`pvec._library`: :func:`lib` (the loaded library, one ctypes function per C function),
  :func:`check` / :func:`call` (a non-zero status raises :class:`Error` with
  pvec_last_error), :func:`last_error`, :func:`vector_desc`, :func:`new_layout`, and how the
  library is found (:func:`library_candidates`);
- :mod:`pvec._errors`: :class:`Error` and its subclasses, and the decorators that make errors
  name the Python method called.

The Pythonic layer (pvec.Vector, ...) calls C only through these.
"""

from ._cdefs import *  # noqa: F401,F403 (every constant, enum, struct, and PROTOTYPES)
from ._cdefs import __all__ as _cdefs_all
from ._errors import (Error, OutOfRangeError, PropertyKeyError, StaleMirrorError, StaleViewError,
                      api, api_class, error, python_words)
from ._library import (call, check, last_error, lib, library_candidates, new_layout,
                       vector_desc)

__all__ = list(_cdefs_all) + [
    "Error", "OutOfRangeError", "PropertyKeyError", "StaleMirrorError", "StaleViewError", "api",
    "api_class",
    "error", "python_words", "call", "check", "last_error", "lib", "library_candidates",
    "new_layout", "vector_desc"]
