"""CUDA backend: device views read and written by CuPy (CAI and DLPack), PyTorch (DLPack) and
Numba (CAI), checked on the host mirror after device_to_host. Skipped without a CUDA device
(and each library's tests without that library)."""

import numpy as np
import pytest

import pvec
from pvec import _dlpack
from conftest import make_seed_vector

pytestmark = pytest.mark.skipif(pvec.cuda_device_count() == 0,
                                reason="no CUDA device visible to pvec (or built without CUDA)")


@pytest.fixture
def vec():
    v = make_seed_vector(backend="cuda", n=100)
    assert v.backend == "cuda"
    s = np.arange(100, dtype=np.float32)
    v["scalar"] = s
    v["vector"] = [s, -s]
    v["tensor"] = [[s, 2 * s], [3 * s, 4 * s]]
    v.host_to_device()
    yield v
    v.destroy()


def expected(v, name):
    return v[name].numpy().copy()


def test_device_views_are_cuda_memory(vec):
    d = vec.device("vector")
    assert not d.host_accessible
    assert d.ptr == vec.device_ptr("vector") != vec.host_ptr("vector")
    assert not hasattr(d, "__array_interface__")
    with pytest.raises(TypeError):
        np.asarray(d)
    cai = d.__cuda_array_interface__
    C = vec.capacity
    assert cai["version"] == 3 and cai["shape"] == (2, 100)
    assert cai["strides"] == (4 * C, 4) and cai["typestr"] == "<f4"
    assert cai["data"] == (vec.device_ptr("vector"), False)
    assert cai["stream"] == 1
    dev_type, dev_id = d.__dlpack_device__()
    assert dev_type == _dlpack.kDLCUDA and dev_id >= 0
    # Host views of the CUDA backend stay host memory (pinned).
    assert vec["vector"].__dlpack_device__() == (_dlpack.kDLCPU, 0)
    np.testing.assert_array_equal(np.from_dlpack(vec["vector"]), expected(vec, "vector"))


def test_stale_device_view(vec):
    d = vec.device("scalar")
    vec.append(1000)
    with pytest.raises(pvec.StaleViewError):
        d.__cuda_array_interface__
    with pytest.raises(pvec.StaleViewError):
        d.__dlpack__()


# ---- CuPy ---------------------------------------------------------------------------------
def test_cupy_reads_and_writes_through_cai(vec):
    cp = pytest.importorskip("cupy")
    assert vec.device("scalar").device_id == cp.cuda.runtime.getDevice()
    for name in ("scalar", "vector", "tensor"):
        a = cp.asarray(vec.device(name))
        assert a.data.ptr == vec.device_ptr(name)
        assert a.strides == vec.device(name).strides
        np.testing.assert_array_equal(cp.asnumpy(a), expected(vec, name))
    t = cp.asarray(vec.device("tensor"))
    t[1, 0] += 0.5  # writes pvec's device memory
    t[0, 1, 7] = -1.0
    cp.cuda.runtime.deviceSynchronize()
    vec.device_to_host("tensor")
    host = vec["tensor"].numpy()
    s = np.arange(100, dtype=np.float32)
    np.testing.assert_array_equal(host[1, 0], 3 * s + 0.5)
    assert host[0, 1, 7] == -1.0


def test_cupy_from_dlpack(vec):
    cp = pytest.importorskip("cupy")
    v = cp.from_dlpack(vec.device("vector"))
    assert v.data.ptr == vec.device_ptr("vector")
    np.testing.assert_array_equal(cp.asnumpy(v), expected(vec, "vector"))
    v *= 2
    cp.cuda.runtime.deviceSynchronize()
    vec.device_to_host(["vector"])
    s = np.arange(100, dtype=np.float32)
    np.testing.assert_array_equal(vec["vector"].numpy(), [2 * s, -2 * s])


def test_async_transfers_on_a_cupy_stream(vec):
    cp = pytest.importorskip("cupy")
    stream = cp.cuda.Stream(non_blocking=True)
    vec["scalar"] = 9.0
    vec.host_to_device("scalar", stream=stream)
    stream.synchronize()
    np.testing.assert_array_equal(cp.asnumpy(cp.asarray(vec.device("scalar"))), 9.0)
    vec.stream = stream
    assert vec.stream == stream.ptr
    assert vec.device("scalar").__cuda_array_interface__["stream"] == stream.ptr
    vec.stream = 0


# ---- PyTorch ------------------------------------------------------------------------------
def test_torch_from_dlpack_reads_and_writes(vec):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch sees no CUDA device")
    t = torch.from_dlpack(vec.device("tensor"))
    C = vec.capacity
    assert t.device.type == "cuda"
    assert tuple(t.shape) == (2, 2, 100) and t.stride() == (2 * C, C, 1)
    assert t.data_ptr() == vec.device_ptr("tensor")
    np.testing.assert_array_equal(t.cpu().numpy(), expected(vec, "tensor"))
    t.mul_(3)
    torch.cuda.synchronize()
    vec.device_to_host("tensor")
    s = np.arange(100, dtype=np.float32)
    np.testing.assert_array_equal(vec["tensor"].numpy(), [[3 * s, 6 * s], [9 * s, 12 * s]])
    p = torch.from_dlpack(vec.device("pos"))
    assert tuple(p.shape) == (2, 100)


# ---- Numba --------------------------------------------------------------------------------
def _numba_cuda():
    numba_cuda = pytest.importorskip("numba.cuda")
    if not numba_cuda.is_available():
        pytest.skip("numba sees no CUDA device")
    return numba_cuda


def test_numba_reads_and_writes_through_cai(vec):
    numba_cuda = _numba_cuda()
    a = numba_cuda.as_cuda_array(vec.device("vector"))
    assert a.shape == (2, 100) and a.strides == vec.device("vector").strides
    np.testing.assert_array_equal(a.copy_to_host(), expected(vec, "vector"))
    # Writes without a numba kernel: one component row is contiguous, so copy_to_device
    # (a plain memcpy into pvec's memory) works on it, as on the scalar.
    a[1].copy_to_device(np.full(100, 7.0, dtype=np.float32))
    sc = numba_cuda.as_cuda_array(vec.device("scalar"))
    sc.copy_to_device(np.full(100, 4.0, dtype=np.float32))
    numba_cuda.synchronize()
    vec.device_to_host(["vector", "scalar"])
    s = np.arange(100, dtype=np.float32)
    np.testing.assert_array_equal(vec["vector"].numpy(), [s, np.full(100, 7.0)])
    np.testing.assert_array_equal(vec["scalar"].numpy(), 4.0)


def test_numba_kernel_writes_through_cai(vec):
    numba_cuda = _numba_cuda()

    @numba_cuda.jit
    def add_component(arr, c, value):
        i = numba_cuda.grid(1)
        if i < arr.shape[1]:
            arr[c, i] += value

    a = numba_cuda.as_cuda_array(vec.device("vector"))
    try:
        add_component[1, 128](a, 1, 100.0)
    except AttributeError as e:
        # numba releases that predate the installed NumPy fail inside their own typing
        # (e.g. NumPy 2 removed np.row_stack): nothing pvec can change.
        if "numpy" in str(e):
            pytest.skip("this numba cannot compile kernels with this NumPy: %s" % e)
        raise
    numba_cuda.synchronize()
    vec.device_to_host(["vector"])
    s = np.arange(100, dtype=np.float32)
    np.testing.assert_array_equal(vec["vector"].numpy(), [s, 100.0 - s])


# ---- Neighbour search on the device mirror ----------------------------------------------------
@pytest.fixture
def box():
    v = pvec.Vector(dim=3, domain=(0.0, 1.0), periodic=True, ghost=0.25, n=400,
                    placement="local", schema=[("id", np.int64)], backend="cuda")
    v.pos[...] = np.random.default_rng(5).random((3, 400))
    v.host_to_device()
    v.map(on_device=True)
    v.ghost_get(on_device=True)
    v.device_to_host()
    yield v
    v.destroy()


def _device_vs_host(box, make):
    """(device list, host list) built by make(on_device)."""
    return make(True), make(False)


def test_device_verlet_list_is_cuda_memory_and_equals_the_host_list(box):
    dev, host = _device_vs_host(box, lambda d: box.verlet_list(0.15, 0.05, on_device=d))
    assert dev.on_device and not host.on_device
    nbr = dev.neighbors
    assert isinstance(nbr, pvec.ListArray)
    cai = nbr.__cuda_array_interface__
    assert cai["shape"] == (dev.n_pairs,) and cai["typestr"] == "<i4"
    assert cai["data"][1] is True  # read-only
    assert dev.offsets.__cuda_array_interface__["typestr"] == "<i8"
    assert nbr.__dlpack_device__()[0] == _dlpack.kDLCUDA
    with pytest.raises(TypeError, match="CUDA device memory"):
        np.asarray(nbr)
    cp = pytest.importorskip("cupy")
    off_d, nbr_d = cp.asnumpy(cp.asarray(dev.offsets)), cp.asnumpy(cp.from_dlpack(nbr))
    np.testing.assert_array_equal(off_d, host.offsets)
    for i in range(box.size):  # same sets (the order within a row is deterministic too)
        np.testing.assert_array_equal(np.sort(nbr_d[off_d[i]:off_d[i + 1]]),
                                      np.sort(host.neighbors[off_d[i]:off_d[i + 1]]))


def test_device_cell_list_and_sort(box):
    cl = box.cell_list(0.2, ghosts=True, on_device=True)
    assert cl.on_device and isinstance(cl.cell_particles, pvec.ListArray)
    assert cl.dims == box.cell_list(0.2, ghosts=True).dims
    assert box.sort(0.2, on_device=True) is True
    assert cl.is_stale
    with pytest.raises(pvec.StaleViewError):
        cl.cell_offsets
    box.ghost_get(on_device=True)
    cl.build()
    assert cl.sorted
    cp = pytest.importorskip("cupy")
    rows = cp.asnumpy(cp.asarray(cl.cell_particles))
    off = cp.asnumpy(cp.asarray(cl.cell_offsets))
    loc = cp.asnumpy(cp.asarray(cl.local_offsets))
    # Sorted: the locals of cell c (first in the cell, before its ghosts) are exactly rows
    # local_offsets[c] .. local_offsets[c+1]-1.
    for c in range(len(off) - 1):
        k = loc[c + 1] - loc[c]
        np.testing.assert_array_equal(rows[off[c]:off[c] + k], np.arange(loc[c], loc[c + 1]))
    assert loc[-1] == box.size


def test_device_check_reads_device_positions(box):
    nl = box.verlet_list(0.1, 0.04, on_device=True)
    assert nl.check() is False
    box.pos[0, 0] += 0.03  # host only: the device list does not see it
    assert nl.check() is False
    box.host_to_device(["pos"])
    assert nl.check() is True
