"""Layouts and zero-copy numpy views: shapes and strides against the C layout formula,
writes seen through pvec_host_ptr, mirrors, the CUDA array interface dict, stale views."""

import gc
import weakref

import numpy as np
import pytest

import pvec
from conftest import make_seed_vector


def raw(ptr, dtype, count):
    """count elements of dtype at address ptr, read through ctypes (not through the view)."""
    ctype = np.ctypeslib.as_ctypes_type(np.dtype(dtype))
    return np.ctypeslib.as_array((ctype * count).from_address(ptr))


# ---- layouts -----------------------------------------------------------------------------
def test_seed_addresses_and_strides(seed_vec):
    vec = seed_vec
    C = vec.capacity
    assert C == 128
    lay = {p: vec.layout(p) for p in ("scalar", "vector", "tensor", "pos")}
    for name, l in lay.items():
        assert l.capacity == C and l.stride_elems == C
        assert l.elem_size == 4 and l.stride_bytes == 4 * C
        assert l.n_local == 100 and l.n_ghost == 0
        assert l.generation == vec.generation
        assert l.host_ptr == vec.host_ptr(name) and l.device_ptr == vec.device_ptr(name)
        assert l.host_ptr % 256 == 0 and l.device_ptr % 256 == 0
        assert l.name == name
    assert (lay["scalar"].rank, lay["scalar"].ncomp, lay["scalar"].shape) == (0, 1, ())
    assert (lay["vector"].rank, lay["vector"].ncomp, lay["vector"].shape) == (1, 2, (2,))
    assert (lay["tensor"].rank, lay["tensor"].ncomp, lay["tensor"].shape) == (2, 4, (2, 2))
    assert (lay["pos"].prop, lay["pos"].ncomp, lay["pos"].shape) == (pvec.POS, 2, (2,))
    assert lay["pos"].dtype == pvec.DType.FLOAT32
    # The seed's printout: component rows 0x200 bytes apart, particles 4 bytes apart.
    v, t = vec.host("vector"), vec.host("tensor")
    assert v.strides == (0x200, 4)
    assert t.strides == (0x400, 0x200, 4)
    vec["tensor"] = 1.0
    a = t.numpy()
    addr = lambda x: x.__array_interface__["data"][0]  # noqa: E731
    assert addr(a[0, 1]) - addr(a[0, 0]) == 0x200
    assert addr(a[1, 0]) - addr(a[0, 0]) == 0x400
    assert addr(a[1, 1]) - addr(a[0, 0]) == 0x600
    assert addr(a[0, 0, 1:]) - addr(a[0, 0]) == 4


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.uint32,
                                   np.uint64])
def test_view_shapes_and_strides_follow_the_layout_law(dtype):
    with pvec.Vector(dim=3, n=70, backend="host", pos_dtype=np.float64,
                     schema=[("s", dtype), ("v", dtype, 3), ("t", dtype, (2, 5))]) as vec:
        C, e = vec.capacity, np.dtype(dtype).itemsize
        assert C == 128
        s, v, t, p = vec.host("s"), vec.host("v"), vec.host("t"), vec.pos
        assert (s.shape, s.strides) == ((70,), (e,))
        assert (v.shape, v.strides) == ((3, 70), (C * e, e))
        assert (t.shape, t.strides) == ((2, 5, 70), (5 * C * e, C * e, e))
        assert (p.shape, p.strides) == ((3, 70), (C * 8, 8))
        assert t.strides_elems == (5 * C, C, 1)
        for view in (s, v, t, p):
            arr = view.numpy()
            assert arr.dtype == view.dtype
            assert arr.shape == view.shape and arr.strides == view.strides
            assert arr.__array_interface__["data"][0] == view.ptr
        # Element (i, (a, b)) of the tensor is base[(a*m + b)*C + i].
        tv = t.numpy()
        tv[...] = np.arange(2 * 5 * 70).reshape(2, 5, 70).astype(dtype)
        flat = raw(t.ptr, dtype, 10 * C)
        for a in range(2):
            for b in range(5):
                for i in (0, 1, 69):
                    assert flat[(a * 5 + b) * C + i] == tv[a, b, i]


def test_writes_through_numpy_are_seen_by_pvec_host_ptr(seed_vec):
    vec = seed_vec
    C = vec.capacity
    vec["vector"].numpy()[1, 50] = 3.5
    vec["scalar"][7] = -2.0
    vec.pos[0, 99] = 0.25
    assert raw(vec.host_ptr("vector"), np.float32, 2 * C)[1 * C + 50] == 3.5
    assert raw(vec.host_ptr("scalar"), np.float32, C)[7] == -2.0
    assert raw(vec.host_ptr(pvec.POS), np.float32, 2 * C)[0 * C + 99] == 0.25
    # And the other way round: raw writes appear in the view.
    raw(vec.host_ptr("tensor"), np.float32, 4 * C)[(1 * 2 + 0) * C + 3] = 9.0
    assert vec["tensor"].numpy()[1, 0, 3] == 9.0


def test_views_by_name_index_and_pos(seed_vec):
    vec = seed_vec
    assert vec[1].name == "vector" and vec["vector"].prop == 1
    assert vec.pos.name == "pos" and vec.pos.prop == pvec.POS
    assert vec.host("pos").shape == (2, 100)
    assert vec.device(2).location == "device"
    assert len(vec["tensor"]) == 2
    vec["scalar"] = 4.0
    np.testing.assert_array_equal(np.asarray(vec["scalar"]), 4.0)
    assert np.asarray(vec["scalar"], dtype=np.float64).dtype == np.float64
    assert "scalar" in repr(vec["scalar"])


def test_asarray_is_zero_copy(seed_vec):
    view = seed_vec["vector"]
    a, b = np.asarray(view), view.array
    assert np.shares_memory(a, b)
    a[0, 0] = 42
    assert b[0, 0] == 42
    assert not view.numpy().flags.c_contiguous  # rows are capacity apart, not size apart


def test_host_to_device_round_trip_on_host_backend(seed_vec):
    vec = seed_vec
    assert vec.backend == "host"
    assert vec.host_ptr("scalar") != vec.device_ptr("scalar")  # two real mirrors
    vec["scalar"] = np.arange(100, dtype=np.float32)
    vec["vector"] = 1.0
    vec.pos[:] = 0.5
    vec.host_to_device(["scalar", pvec.POS])
    np.testing.assert_array_equal(vec.device("scalar").numpy(), np.arange(100))
    np.testing.assert_array_equal(vec.device("pos").numpy(), 0.5)
    np.testing.assert_array_equal(vec.device("vector").numpy(), 0.0)  # not copied
    vec.host_to_device()  # everything
    np.testing.assert_array_equal(vec.device("vector").numpy(), 1.0)
    # Change on the device mirror, then bring back one property only.
    vec.device("scalar").numpy()[:] = -1.0
    vec.device("tensor").numpy()[1, 1] = 8.0
    np.testing.assert_array_equal(vec["scalar"].numpy(), np.arange(100))
    vec.device_to_host("scalar")
    np.testing.assert_array_equal(vec["scalar"].numpy(), -1.0)
    np.testing.assert_array_equal(vec["tensor"].numpy(), 0.0)
    vec.device_to_host([2])
    np.testing.assert_array_equal(vec["tensor"].numpy()[1, 1], 8.0)
    vec.host_to_device([])  # nothing to do


def test_cuda_array_interface_dict(seed_vec):
    vec = seed_vec
    view = vec.device("tensor")
    cai = view._cuda_array_interface_dict()
    C = vec.capacity
    assert cai["version"] == 3
    assert cai["shape"] == (2, 2, 100)
    assert cai["typestr"] == "<f4"
    assert cai["data"] == (vec.device_ptr("tensor"), False)
    assert cai["strides"] == (2 * C * 4, C * 4, 4)
    assert cai["stream"] == 1  # the vector's stream is the legacy default one
    assert cai["mask"] is None
    # Host memory is not offered as CUDA memory, and device memory not as numpy memory.
    assert not hasattr(view, "__cuda_array_interface__")
    assert hasattr(view, "__array_interface__")
    with pvec.Vector(dim=1, backend="host", schema=[("x", np.int64, 3)]) as empty:
        cai = empty.device("x")._cuda_array_interface_dict()
        assert cai["shape"] == (3, 0) and cai["data"] == (0, False)


def test_view_keeps_the_vector_alive():
    vec = make_seed_vector()
    ref = weakref.ref(vec)
    view = vec["scalar"]
    arr = view.numpy()
    del vec
    gc.collect()
    assert ref() is not None
    arr[:] = 5.0
    del view
    gc.collect()
    assert ref() is not None  # arr's base keeps it
    assert arr.sum() == 500.0
    del arr
    gc.collect()
    assert ref() is None


STALE_CHANGES = {
    "append_past_capacity": (None, lambda v: v.append(200)),
    "reserve": (None, lambda v: v.reserve(4096)),
    "remove": (None, lambda v: v.remove([3])),  # reorders
    "shrink_to_fit": (lambda v: v.resize(10), lambda v: v.shrink_to_fit()),
    "resize_up": (None, lambda v: v.resize(1000)),
}


@pytest.mark.parametrize("what", sorted(STALE_CHANGES))
def test_views_go_stale_after_reallocation(what):
    prepare, change = STALE_CHANGES[what]
    vec = make_seed_vector()
    if prepare:
        prepare(vec)
    host, dev, pos = vec["vector"], vec.device("scalar"), vec.pos
    assert not host.is_stale
    gen = vec.generation
    change(vec)
    assert vec.generation != gen
    for view in (host, dev, pos):
        assert view.is_stale
        with pytest.raises(pvec.StaleViewError) as e:
            view.numpy()
        assert "stale" in str(e.value) and "generation" in str(e.value)
        assert isinstance(e.value, pvec.Error)
        with pytest.raises(pvec.StaleViewError):
            np.asarray(view)
        with pytest.raises(pvec.StaleViewError):
            view.array
        with pytest.raises(pvec.StaleViewError):
            view[0]
        with pytest.raises(pvec.StaleViewError):
            view.__array_interface__
        with pytest.raises(pvec.StaleViewError):
            view._cuda_array_interface_dict()
        with pytest.raises(pvec.StaleViewError):
            view.__dlpack__()
    # A fresh view works, at the new address.
    fresh = vec["vector"]
    assert fresh.generation == vec.generation
    fresh.numpy()[:] = 1.0
    vec.destroy()


def test_growth_by_append_moves_the_data():
    vec = make_seed_vector()
    old = vec["scalar"]
    old.numpy()[:] = 3.0
    old_ptr = old.ptr
    vec.append(1000)
    new = vec["scalar"]
    assert new.ptr != old_ptr or new.generation != old.generation
    np.testing.assert_array_equal(new.numpy()[:100], 3.0)
    assert new.shape == (1100,)
    vec.destroy()


def test_ghost_views_include_ghosts(seed_vec):
    assert seed_vec.host("scalar", ghosts=True).shape == (100 + seed_vec.ghost_size,)


def test_device_only_memory_refuses_numpy(monkeypatch, seed_vec):
    # Pretend the device mirror is CUDA memory: numpy must not touch it.
    view = seed_vec.device("scalar")
    monkeypatch.setattr(type(view), "host_accessible", property(lambda self: False))
    assert not hasattr(view, "__array_interface__")
    with pytest.raises(TypeError):
        view.numpy()
    with pytest.raises(TypeError):
        np.asarray(view)
    cai = view.__cuda_array_interface__
    assert cai["data"][0] == seed_vec.device_ptr("scalar")
