"""Schema: the properties a particle carries, declared at run time."""

import collections
import ctypes

from . import _runtime
from ._handle import Handle
from .capi import Error, Status, api_class, call

#: One declared property: index, name, numpy dtype and shape (() scalar, (n,) vector[n],
#: (n, m) tensor[n][m]).
PropertyInfo = collections.namedtuple("PropertyInfo", "index name dtype shape")


def _shape(shape):
    if shape is None:
        return ()
    if isinstance(shape, int):
        return (shape,)
    return tuple(int(s) for s in shape)


@api_class
class Schema(Handle):
    """A list of property declarations (a pvec_schema_t). A Vector copies it at creation,
    so a schema can be reused and changed afterwards without affecting existing vectors.

    ``Schema([("rho", np.float32), ("v", np.float32, 2), ("t", np.float32, (2, 2))])``
    declares the properties in order; each tuple is ``(name, dtype[, shape])``.
    Invalid declarations raise :class:`pvec.Error` (INVALID_ARGUMENT) and leave the schema
    unchanged. Its lifetime is :class:`pvec._handle.Handle`'s: ``close()`` or a ``with`` block
    frees it (also done when collected).
    """

    _what = "schema"
    _destroy_fn = "pvec_schema_destroy"

    def __init__(self, properties=()):
        handle = ctypes.c_void_p()
        call("pvec_schema_create", ctypes.byref(handle))
        self._adopt(handle.value)
        self._props = []
        for decl in properties:
            self.add(*decl)

    # ---- declarations ----------------------------------------------------------------------
    def add(self, name, dtype, shape=()):
        """Declare a property of shape () (scalar), (n,) or n (vector[n]), or (n, m)
        (tensor[n][m]). Returns its index."""
        shape = _shape(shape)
        dt = _runtime.to_dtype(dtype)
        extents = (ctypes.c_int64 * max(len(shape), 1))(*shape) if shape else None
        index = ctypes.c_int()
        call("pvec_schema_add", self._h(), _encode(name), int(dt), len(shape), extents,
             ctypes.byref(index))
        return self._record(index.value, name, dt, shape)

    def add_scalar(self, name, dtype):
        """Declare a scalar property (pvec_schema_add_scalar). Returns its index."""
        dt = _runtime.to_dtype(dtype)
        index = ctypes.c_int()
        call("pvec_schema_add_scalar", self._h(), _encode(name), int(dt), ctypes.byref(index))
        return self._record(index.value, name, dt, ())

    def add_vector(self, name, dtype, n):
        """Declare a vector[n] property (pvec_schema_add_vector). Returns its index."""
        dt = _runtime.to_dtype(dtype)
        index = ctypes.c_int()
        call("pvec_schema_add_vector", self._h(), _encode(name), int(dt), int(n),
             ctypes.byref(index))
        return self._record(index.value, name, dt, (int(n),))

    def add_tensor(self, name, dtype, n, m):
        """Declare a tensor[n][m] property (pvec_schema_add_tensor); entry (a, b) is
        component a*m + b. Returns its index."""
        dt = _runtime.to_dtype(dtype)
        index = ctypes.c_int()
        call("pvec_schema_add_tensor", self._h(), _encode(name), int(dt), int(n), int(m),
             ctypes.byref(index))
        return self._record(index.value, name, dt, (int(n), int(m)))

    # ---- queries ---------------------------------------------------------------------------
    def __len__(self):
        count = ctypes.c_int()
        call("pvec_schema_get_count", self._h(), ctypes.byref(count))
        return count.value

    @property
    def properties(self):
        """The declared properties, as PropertyInfo tuples in index order."""
        return tuple(self._props)

    def __repr__(self):
        return "Schema(%r)" % [(p.name, p.dtype.name, p.shape) for p in self._props]

    def _record(self, index, name, dt, shape):
        self._props.append(PropertyInfo(index, name, _runtime.numpy_dtype(dt), shape))
        return index


def _encode(name):
    if not isinstance(name, str):
        raise Error(Status.INVALID_ARGUMENT, "property name must be a str, got %r" % (name,),
                    "Schema.add")
    return name.encode("utf-8")


def as_schema(schema):
    """A Schema from a Schema, a sequence of (name, dtype[, shape]) tuples, or None."""
    if isinstance(schema, Schema):
        return schema, False
    return Schema(schema or ()), True

