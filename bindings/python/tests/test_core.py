"""Library state, schemas, vector creation and queries, growth and removal, errors."""

import ctypes
import weakref

import numpy as np
import pytest

import pvec
from pvec import capi
from conftest import SEED_SCHEMA, make_seed_vector

ALL_DTYPES = [np.float32, np.float64, np.int32, np.int64, np.uint32, np.uint64]


def round64(n):
    return max(64, (n + 63) // 64 * 64)


# ---- library -----------------------------------------------------------------------------
def test_init_is_idempotent_and_library_reports_state():
    pvec.init()
    pvec.init()
    assert pvec.initialized()
    assert pvec.cuda_device_count() >= 0
    assert pvec.status_string(pvec.Status.INVALID_HANDLE)
    assert pvec.status_string(12345)  # never NULL, also for unknown values


def test_dtype_helpers():
    for dt in ALL_DTYPES:
        pd = pvec.to_dtype(dt)
        assert pvec.numpy_dtype(pd) == np.dtype(dt)
        assert pvec.dtype_size(pd) == np.dtype(dt).itemsize
        assert pvec.dtype_name(pd) == np.dtype(dt).name
    assert pvec.to_dtype("float32") == pvec.DType.FLOAT32
    assert pvec.to_dtype("f8") == pvec.DType.FLOAT64
    assert pvec.to_dtype(4) == pvec.DType.INT64
    for bad in (np.float16, np.int8, np.complex64, ">f4", 99):
        with pytest.raises(pvec.Error) as e:
            pvec.to_dtype(bad)
        assert e.value.status == pvec.Status.INVALID_ARGUMENT


# ---- schema ------------------------------------------------------------------------------
def test_schema_declarations_get_consecutive_indices():
    s = pvec.Schema()
    assert len(s) == 0
    assert s.add_scalar("rho", np.float64) == 0
    assert s.add_vector("v", np.float32, 3) == 1
    assert s.add_tensor("t", "int32", 2, 3) == 2
    assert s.add("w", np.uint64, (4,)) == 3
    assert s.add("m", np.int64, (2, 2)) == 4
    assert s.add("k", np.uint32) == 5
    assert len(s) == 6
    assert [(p.index, p.name, p.dtype, p.shape) for p in s.properties] == [
        (0, "rho", np.dtype(np.float64), ()), (1, "v", np.dtype(np.float32), (3,)),
        (2, "t", np.dtype(np.int32), (2, 3)), (3, "w", np.dtype(np.uint64), (4,)),
        (4, "m", np.dtype(np.int64), (2, 2)), (5, "k", np.dtype(np.uint32), ())]
    s.close()


def test_schema_from_list_and_vector_sees_it():
    s = pvec.Schema(SEED_SCHEMA)
    assert len(s) == 3
    with pvec.Vector(dim=2, schema=s, n=3, backend="host") as vec:
        props = vec.properties
        assert [p.name for p in props] == ["scalar", "vector", "tensor"]
        assert [p.shape for p in props] == [(), (2,), (2, 2)]
        assert all(p.dtype == np.dtype(np.float32) for p in props)
    # The vector copied the schema: changing it afterwards is fine.
    s.add_scalar("later", np.int32)
    assert len(s) == 4


@pytest.mark.parametrize("decl", [
    ("scalar", np.float32),            # duplicate
    ("pos", np.float32),               # reserved
    ("", np.float32),                  # empty
    ("x" * (pvec.MAX_NAME + 1), np.float32),
    ("bad_extent", np.float32, 0),
    ("bad_extent2", np.float32, (2, 0)),
    ("bad_rank", np.float32, (1, 2, 3)),
])
def test_schema_rejects_bad_declarations_and_stays_unchanged(decl):
    s = pvec.Schema([("scalar", np.float32)])
    with pytest.raises(pvec.Error) as e:
        s.add(*decl)
    assert e.value.status == pvec.Status.INVALID_ARGUMENT
    assert e.value.message  # pvec_last_error detail
    assert len(s) == 1
    assert len(s.properties) == 1


def test_schema_name_of_max_length_is_accepted():
    s = pvec.Schema()
    s.add_scalar("y" * pvec.MAX_NAME, np.int32)
    assert len(s) == 1


def test_schema_bad_dtype_raises_error():
    with pytest.raises(pvec.Error) as e:
        pvec.Schema().add_scalar("h", np.float16)
    assert e.value.status == pvec.Status.INVALID_ARGUMENT


def test_closed_schema_raises():
    s = pvec.Schema()
    s.close()
    with pytest.raises(pvec.Error) as e:
        len(s)
    assert e.value.status == pvec.Status.INVALID_HANDLE


# ---- vectors -----------------------------------------------------------------------------
def test_seed_vector_queries(seed_vec):
    vec = seed_vec
    assert vec.size == len(vec) == 100
    assert vec.ghost_size == 0
    assert vec.capacity == 128
    assert vec.dim == 2
    assert vec.pos_dtype == np.dtype(np.float32)
    assert vec.domain == ((0.0, 0.0), (1.0, 1.0))
    assert vec.periodic == (True, True)
    assert vec.boundaries == (pvec.Boundary.PERIODIC,) * 2
    assert vec.ghost_width == pytest.approx(0.05)
    assert vec.backend == "host"
    assert vec.prop_count == 3
    assert vec.property_names == ("scalar", "vector", "tensor")
    assert [vec.prop_index(n) for n in ("scalar", "vector", "tensor", "pos")] == [0, 1, 2, -1]
    assert vec.generation >= 0
    assert vec.stream == 0
    assert vec.comm_size >= 1 and 0 <= vec.comm_rank < vec.comm_size
    assert "scalar" in repr(vec)


def test_vector_options_reach_the_library():
    with pvec.Vector(dim=3, domain=((0, -1, 2), (1, 1, 5)), periodic=[True, False, True],
                     ghost=0.25, n=7, placement="local", pos_dtype=np.float64,
                     backend="host", pinned=False) as vec:
        assert vec.dim == 3
        assert vec.domain == ((0.0, -1.0, 2.0), (1.0, 1.0, 5.0))
        assert vec.periodic == (True, False, True)
        assert vec.ghost_width == 0.25
        assert vec.size == 7
        assert vec.pos_dtype == np.dtype(np.float64)
        assert vec.prop_count == 0
        assert vec.pos.shape == (3, 7)


def test_default_vector():
    with pvec.Vector(backend="host") as vec:
        assert vec.dim == 3
        assert vec.size == 0
        assert vec.capacity == 64
        assert vec.pos_dtype == np.dtype(np.float64)
        assert vec.periodic == (False, False, False)


@pytest.mark.parametrize("kwargs", [
    dict(dim=0), dict(dim=pvec.MAX_DIM + 1), dict(domain=(1.0, 0.0)), dict(domain=(0.0, 0.0)),
    dict(ghost=-1.0), dict(n=-5), dict(pos_dtype=np.int32), dict(backend="bogus"),
])
def test_bad_vector_arguments_raise_invalid_argument(kwargs):
    args = dict(dim=2, backend="host")
    args.update(kwargs)
    with pytest.raises(pvec.Error) as e:
        pvec.Vector(**args)
    assert e.value.status == pvec.Status.INVALID_ARGUMENT


def test_cuda_backend_without_device_is_no_device():
    if pvec.cuda_device_count() > 0:
        pytest.skip("this machine has a CUDA device")
    with pytest.raises(pvec.Error) as e:
        pvec.Vector(dim=2, backend="cuda")
    assert e.value.status == pvec.Status.NO_DEVICE
    with pvec.Vector(dim=2, backend="auto") as vec:
        assert vec.backend == "host"


def test_reserve_resize_append_shrink(seed_vec):
    vec = seed_vec
    vec.reserve(1000)
    assert vec.capacity == 1024 and vec.size == 100
    vec.reserve(10)  # never shrinks
    assert vec.capacity == 1024
    vec.resize(10)
    assert vec.size == 10 and vec.capacity == 1024
    assert vec.append(5) == 10
    assert vec.size == 15
    vec.shrink_to_fit()
    assert vec.capacity == 64
    vec.resize(64)
    assert vec.append() == 64
    assert vec.capacity == 128  # geometric growth: max(2*C, needed) rounded to 64
    vec.resize(0)
    vec.shrink_to_fit()
    assert vec.capacity == 64


def test_growth_keeps_data_and_zeroes_new_particles(seed_vec):
    vec = seed_vec
    vec["scalar"] = np.arange(100, dtype=np.float32)
    vec.pos[1] = 0.5
    vec.append(300)
    assert vec.capacity >= 400
    s = vec["scalar"].numpy()
    np.testing.assert_array_equal(s[:100], np.arange(100))
    np.testing.assert_array_equal(s[100:], 0)
    np.testing.assert_array_equal(vec.pos[1][:100], 0.5)
    np.testing.assert_array_equal(vec.pos[1][100:], 0)


def test_remove_keeps_order_of_the_others(seed_vec):
    vec = seed_vec
    vec["scalar"] = np.arange(100, dtype=np.float32)
    vec["vector"] = np.arange(200, dtype=np.float32).reshape(2, 100)
    gone = [0, 97, 3, 50]
    vec.remove(gone)
    keep = np.array([i for i in range(100) if i not in gone], dtype=np.float32)
    assert vec.size == 96
    np.testing.assert_array_equal(vec["scalar"].numpy(), keep)
    np.testing.assert_array_equal(vec["vector"].numpy()[1], keep + 100)
    vec.remove([])
    assert vec.size == 96


def test_errors_carry_status_and_message(seed_vec):
    vec = seed_vec
    cases = [
        (lambda: vec.reserve(-1), pvec.Status.INVALID_ARGUMENT),
        (lambda: vec.resize(-3), pvec.Status.INVALID_ARGUMENT),
        (lambda: vec.append(-1), pvec.Status.INVALID_ARGUMENT),
        (lambda: vec.remove([100]), pvec.Status.OUT_OF_RANGE),
        (lambda: vec.remove([-1]), pvec.Status.OUT_OF_RANGE),
        (lambda: vec.remove([4, 4]), pvec.Status.INVALID_ARGUMENT),
        (lambda: vec.layout(3), pvec.Status.OUT_OF_RANGE),
        (lambda: vec.layout(-2), pvec.Status.OUT_OF_RANGE),
        (lambda: vec.prop_index("nope"), pvec.Status.INVALID_ARGUMENT),
        (lambda: vec.host_ptr(7), pvec.Status.OUT_OF_RANGE),
        (lambda: vec.device_ptr(7), pvec.Status.OUT_OF_RANGE),
        (lambda: vec.host_to_device([7]), pvec.Status.OUT_OF_RANGE),
        (lambda: vec.host_to_device([0, 0]), pvec.Status.INVALID_ARGUMENT),
        (lambda: vec.device_to_host(["scalar", "scalar"]), pvec.Status.INVALID_ARGUMENT),
    ]
    for fn, status in cases:
        gen, size, cap = vec.generation, vec.size, vec.capacity
        with pytest.raises(pvec.Error) as e:
            fn()
        assert e.value.status == status, (e.value, status)
        assert isinstance(e.value.status, pvec.Status)
        assert e.value.message, "pvec_last_error gave no detail"
        assert e.value.function
        assert str(e.value)
        # No partial change on error.
        assert (vec.generation, vec.size, vec.capacity) == (gen, size, cap)


def test_last_error_is_cleared_by_a_successful_call(seed_vec):
    with pytest.raises(pvec.Error):
        seed_vec.reserve(-1)
    assert capi.last_error() != ""
    assert seed_vec.size == 100
    assert capi.last_error() == ""


def test_destroyed_vector_raises_and_views_are_stale():
    vec = make_seed_vector()
    view = vec.host("scalar")
    vec.destroy()
    assert not vec.alive
    with pytest.raises(pvec.Error) as e:
        vec.size
    assert e.value.status == pvec.Status.INVALID_HANDLE
    with pytest.raises(pvec.StaleViewError):
        view.numpy()
    vec.destroy()  # twice is harmless
    assert "destroyed" in repr(vec)


def test_vector_is_released_when_unreferenced():
    before = pvec.memory_stats()
    vec = pvec.Vector(dim=3, n=100000, backend="host",
                      schema=[("a", np.float64, 3)])
    during = pvec.memory_stats()
    live = lambda s: s.live_bytes  # noqa: E731
    # Two mirrors of 3 positions + 3 components, 8 bytes, 100032 particles.
    assert live(during) - live(before) >= 2 * 6 * 8 * 100000
    ref = weakref.ref(vec)
    del vec
    assert ref() is None
    assert live(during) - live(pvec.memory_stats()) >= 2 * 6 * 8 * 100000


def test_raw_capi_calls_work_on_handles(seed_vec):
    api = capi.lib()
    n = ctypes.c_int64()
    capi.check(api.pvec_vector_get_size(seed_vec.handle, ctypes.byref(n)), "pvec_vector_get_size")
    assert n.value == 100
    with pytest.raises(pvec.Error) as e:
        capi.check(api.pvec_vector_get_size(None, ctypes.byref(n)), "pvec_vector_get_size")
    assert e.value.status == pvec.Status.INVALID_HANDLE
    desc = capi.vector_desc()
    assert desc.struct_size == ctypes.sizeof(capi.VectorDesc)
    assert (desc.dim, desc.pos_dtype, desc.ghost_width) == (3, pvec.DType.FLOAT64, 0.0)
    assert list(desc.domain_hi) == [1.0] * 4


def test_async_transfer_on_the_default_stream_then_synchronize(seed_vec):
    vec = seed_vec
    vec["scalar"] = 7.0
    vec.host_to_device("scalar", stream=0)
    vec.synchronize()
    np.testing.assert_array_equal(vec.device("scalar").numpy(), 7.0)
