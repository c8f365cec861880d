"""DLPack export through ctypes: builds DLManagedTensor / DLManagedTensorVersioned structs and
wraps them in PyCapsules, with no compiled code.

Ownership: every exported struct (with its shape and strides arrays and a reference to the
object that owns the memory) is kept in ``_live`` under the struct's address until its
deleter runs. The deleter is called either by the consumer (after it renamed the capsule to
"used_dltensor[_versioned]") or by the capsule's destructor when the capsule was never
consumed. Either way the entry is dropped, which releases the owner (the pvec Vector).

Struct layouts follow dlpack.h (DLPack 1.x); strides are in elements, not bytes.
"""

import ctypes

import numpy as np

# ---- dlpack.h -----------------------------------------------------------------------------
kDLCPU = 1
kDLCUDA = 2
kDLCUDAHost = 3

kDLInt = 0
kDLUInt = 1
kDLFloat = 2

FLAG_READ_ONLY = 1 << 0
FLAG_IS_COPIED = 1 << 1

#: The DLPack version written into versioned capsules (the layout is that of 1.0).
DLPACK_VERSION = (1, 0)

NAME_LEGACY = b"dltensor"
NAME_VERSIONED = b"dltensor_versioned"
NAME_LEGACY_USED = b"used_dltensor"
NAME_VERSIONED_USED = b"used_dltensor_versioned"


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


# void (*deleter)(struct DLManagedTensor* self); the same signature for the versioned struct.
DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", DELETER)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [
        ("version", DLPackVersion),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", DELETER),
        ("flags", ctypes.c_uint64),
        ("dl_tensor", DLTensor),
    ]


# ---- Python C API through ctypes ----------------------------------------------------------
# Own prototypes (not ctypes.pythonapi.X.argtypes = ...) so that nobody else's use of
# pythonapi is affected. Capsules are passed as void* so that no reference count changes,
# which matters in the destructor, where the capsule's count is already 0.
CAPSULE_DESTRUCTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_PyCapsule_New = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p,
                                   ctypes.c_void_p)(("PyCapsule_New", ctypes.pythonapi))
_PyCapsule_IsValid = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_IsValid", ctypes.pythonapi))
_PyCapsule_GetPointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi))

_live = {}


def live_count():
    """Number of exported tensors whose deleter has not run yet (for tests)."""
    return len(_live)


def _release(address):
    entry = _live.pop(address, None)
    del entry  # drops the struct, its arrays and the owner reference


def _deleter(address):
    try:
        _release(address)
    except Exception:  # pragma: no cover - interpreter shutdown
        pass


def _capsule_destructor(capsule):
    # Only a capsule nobody consumed still carries the original name; a consumer renames it
    # and becomes responsible for calling the deleter. Note: if a capsule dies while a Python
    # exception is pending (a consumer failing after taking it), ctypes cannot run this
    # callback cleanly; the entry then stays in _live (a leak, not a crash).
    try:
        for name in (NAME_LEGACY, NAME_VERSIONED):
            if _PyCapsule_IsValid(capsule, name):
                _release(_PyCapsule_GetPointer(capsule, name))
                return
    except Exception:  # pragma: no cover - interpreter shutdown
        pass


_DELETER_FN = DELETER(_deleter)
_CAPSULE_DESTRUCTOR_FN = CAPSULE_DESTRUCTOR(_capsule_destructor)
_CAPSULE_DESTRUCTOR_PTR = ctypes.cast(_CAPSULE_DESTRUCTOR_FN, ctypes.c_void_p).value


def dl_dtype(dtype):
    """DLDataType of a numpy dtype (ints, uints and floats only)."""
    dtype = np.dtype(dtype)
    codes = {"i": kDLInt, "u": kDLUInt, "f": kDLFloat}
    if dtype.kind not in codes or not dtype.isnative:
        raise BufferError("DLPack export of dtype %s is not supported" % dtype)
    return DLDataType(codes[dtype.kind], dtype.itemsize * 8, 1)


def export(owner, data, shape, strides_elems, dtype, device, versioned, readonly=False,
           copied=False):
    """Return a PyCapsule holding a DLPack tensor that views memory at address data.

    owner is kept alive until the deleter runs. shape and strides_elems are sequences of
    equal length (strides in elements). device is (device_type, device_id). versioned
    selects DLManagedTensorVersioned ("dltensor_versioned") over the legacy
    DLManagedTensor ("dltensor").
    """
    ndim = len(shape)
    shape_arr = (ctypes.c_int64 * max(ndim, 1))(*shape)
    strides_arr = (ctypes.c_int64 * max(ndim, 1))(*strides_elems)
    managed = DLManagedTensorVersioned() if versioned else DLManagedTensor()
    tensor = managed.dl_tensor  # a view into managed's own buffer
    tensor.data = data
    tensor.device = DLDevice(device[0], device[1])
    tensor.ndim = ndim
    tensor.dtype = dl_dtype(dtype)
    tensor.shape = ctypes.cast(shape_arr, ctypes.POINTER(ctypes.c_int64))
    tensor.strides = ctypes.cast(strides_arr, ctypes.POINTER(ctypes.c_int64))
    tensor.byte_offset = 0
    managed.manager_ctx = None
    managed.deleter = _DELETER_FN
    if versioned:
        managed.version = DLPackVersion(*DLPACK_VERSION)
        managed.flags = (FLAG_READ_ONLY if readonly else 0) | (FLAG_IS_COPIED if copied else 0)
    address = ctypes.addressof(managed)
    _live[address] = (managed, shape_arr, strides_arr, owner)
    try:
        return _PyCapsule_New(address, NAME_VERSIONED if versioned else NAME_LEGACY,
                              _CAPSULE_DESTRUCTOR_PTR)
    except BaseException:
        _release(address)
        raise


def wants_versioned(max_version):
    """Whether a consumer passing max_version accepts a versioned capsule (major >= 1)."""
    if max_version is None:
        return False
    try:
        major = int(max_version[0])
    except (TypeError, ValueError, IndexError):
        raise TypeError("max_version must be a (major, minor) tuple, got %r" % (max_version,))
    return major >= DLPACK_VERSION[0]
