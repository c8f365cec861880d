"""DLPack export: numpy.from_dlpack on host views, legacy and versioned capsules inspected
through ctypes, deleter and capsule-destructor ownership rules."""

import ctypes
import gc
import weakref

import numpy as np
import pytest

from pvec import _dlpack
from conftest import make_seed_vector

_GetName = ctypes.PYFUNCTYPE(ctypes.c_char_p, ctypes.py_object)(
    ("PyCapsule_GetName", ctypes.pythonapi))
_GetPointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi))
_SetName = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_SetName", ctypes.pythonapi))


def consume(capsule, versioned):
    """Do what a DLPack consumer does: read the struct, rename the capsule, return the
    struct (the caller calls its deleter when done)."""
    name = _dlpack.NAME_VERSIONED if versioned else _dlpack.NAME_LEGACY
    assert _GetName(capsule) == name
    ptr = _GetPointer(capsule, name)
    cls = _dlpack.DLManagedTensorVersioned if versioned else _dlpack.DLManagedTensor
    managed = cls.from_address(ptr)
    assert _SetName(capsule, _dlpack.NAME_VERSIONED_USED if versioned else
                    _dlpack.NAME_LEGACY_USED) == 0
    return ptr, managed


def check_tensor(t, view, device_type):
    assert t.data == view.ptr
    assert (t.device.device_type, t.device.device_id) == (device_type, 0)
    assert t.ndim == len(view.shape)
    assert (t.dtype.code, t.dtype.bits, t.dtype.lanes) == (_dlpack.kDLFloat, 32, 1)
    assert tuple(t.shape[i] for i in range(t.ndim)) == view.shape
    C = view.capacity
    assert tuple(t.strides[i] for i in range(t.ndim)) == (2 * C, C, 1)  # elements, not bytes
    assert t.byte_offset == 0


@pytest.mark.parametrize("versioned", [False, True])
def test_capsule_contents_and_consumer_protocol(seed_vec, versioned):
    view = seed_vec["tensor"]
    before = _dlpack.live_count()
    capsule = view.__dlpack__(max_version=(1, 0) if versioned else None)
    assert _dlpack.live_count() == before + 1
    ptr, managed = consume(capsule, versioned)
    check_tensor(managed.dl_tensor, view, _dlpack.kDLCPU)
    if versioned:
        assert (managed.version.major, managed.version.minor) == (1, 0)
        assert managed.flags == 0  # writable, not a copy
    # The consumer's capsule is renamed, so dropping it must not free anything...
    del capsule
    gc.collect()
    assert _dlpack.live_count() == before + 1
    # ...the deleter does.
    managed.deleter(ptr)
    assert _dlpack.live_count() == before


def test_old_consumers_get_the_legacy_capsule(seed_vec):
    view = seed_vec["scalar"]
    assert _GetName(view.__dlpack__()) == b"dltensor"
    assert _GetName(view.__dlpack__(max_version=(0, 8))) == b"dltensor"
    assert _GetName(view.__dlpack__(max_version=(1, 3))) == b"dltensor_versioned"
    assert _GetName(view.__dlpack__(max_version=(2, 0))) == b"dltensor_versioned"


def test_unconsumed_capsule_releases_the_vector():
    vec = make_seed_vector()
    ref = weakref.ref(vec)
    before = _dlpack.live_count()
    capsule = vec["scalar"].__dlpack__(max_version=(1, 0))
    del vec
    gc.collect()
    assert ref() is not None  # the exported tensor keeps it alive
    del capsule  # never consumed: its destructor runs the deleter
    gc.collect()
    assert _dlpack.live_count() == before
    assert ref() is None


def test_numpy_from_dlpack_on_host_views(seed_vec):
    vec = seed_vec
    vec["vector"] = np.arange(200, dtype=np.float32).reshape(2, 100)
    for view in (vec["vector"], vec.device("vector"), vec.pos):
        assert view.__dlpack_device__() == (_dlpack.kDLCPU, 0)
        arr = np.from_dlpack(view)
        assert arr.shape == view.shape and arr.strides == view.strides
        assert arr.__array_interface__["data"][0] == view.ptr
    arr = np.from_dlpack(vec["vector"])
    np.testing.assert_array_equal(arr, np.arange(200).reshape(2, 100))
    C = vec.capacity
    raw = np.ctypeslib.as_array((ctypes.c_float * (2 * C)).from_address(vec.host_ptr(1)))
    raw[C + 6] = 13.0  # same memory: pvec's writes show in the array
    assert arr[1, 6] == 13.0
    # numpy < 2 marks every DLPack import read-only; numpy >= 2 honours the versioned flags.
    arr = np.from_dlpack(vec["vector"], **_versioned_kwargs())
    if arr.flags.writeable:
        arr[1, 5] = -7.0  # writes reach pvec's memory
        assert raw[C + 5] == -7.0


def _versioned_kwargs():
    return {} if np.lib.NumpyVersion(np.__version__) < "2.0.0" else {"copy": False}


def test_numpy_array_from_dlpack_keeps_the_vector_alive():
    vec = make_seed_vector()
    ref = weakref.ref(vec)
    before = _dlpack.live_count()
    arr = np.from_dlpack(vec["scalar"])
    del vec
    gc.collect()
    assert ref() is not None
    assert arr.sum() == 0.0
    del arr
    gc.collect()
    assert ref() is None
    assert _dlpack.live_count() == before


def test_dlpack_arguments(seed_vec):
    view = seed_vec["vector"]
    with pytest.raises(BufferError):
        view.__dlpack__(dl_device=(_dlpack.kDLCUDA, 0))
    with pytest.raises(ValueError):
        view.__dlpack__(stream=5)  # CPU memory has no stream
    assert _GetName(view.__dlpack__(dl_device=(_dlpack.kDLCPU, 0), stream=None, copy=False))
    view.numpy()[0, 0] = 11.0
    copy = view.__dlpack__(max_version=(1, 0), copy=True)
    ptr, managed = consume(copy, True)
    assert managed.flags & _dlpack.FLAG_IS_COPIED
    assert managed.dl_tensor.data != view.ptr
    first = ctypes.c_float.from_address(managed.dl_tensor.data).value
    assert first == 11.0
    managed.deleter(ptr)
