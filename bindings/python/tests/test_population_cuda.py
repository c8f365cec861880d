"""The removal and spawn calls of test_population.py on the CUDA backend, driven from Python:
CuPy arrays as marks and counters, and kernels compiled with CuPy (RawModule) and with
numba.cuda that create particles (one atomicAdd claim per thread) and mark them for removal.
Skipped without a GPU and CuPy (or Numba). Run with test_population.py by
python_population_np1 and python_population_np2."""

import numpy as np
import pytest

import pvec
from test_population import make


def _cuda_or_skip():
    if pvec.cuda_device_count() == 0:
        pytest.skip("no CUDA device")
    return pytest.importorskip("cupy")


def test_cuda_remove_and_spawn_with_cupy():
    cp = _cuda_or_skip()
    vec = make(6, backend="cuda")
    vec.host_to_device()
    marks = cp.asarray([False, True, False, False, True, False])
    assert vec.remove_marked(marks, on_device=True) == 2
    out = vec.remove_marked_async(cp.asarray([1, 0, 0, 0], dtype=cp.int32))
    assert int(out[0]) == 1 and vec.size == 3
    with vec.spawn(2, on_device=True) as sp:
        assert isinstance(sp.counter, cp.ndarray)
        sp.counter[0] = 1
    assert vec.size == 4
    vec.device_to_host()
    np.testing.assert_array_equal(vec["k"][0], [2, 3, 5, 0])
    with pytest.raises(ValueError):
        vec.remove_marked(cp.zeros(2, dtype=cp.int32), on_device=True)
    vec.destroy()


# A kernel that creates particles (one claim per thread, the documented atomicAdd on the
# counter; beyond the reservation nothing is written) and one that marks particles by value.
_KERNELS = r'''
extern "C" __global__ void create(unsigned long long* counter, unsigned long long limit,
                                  double* x, double* y, float* k0, float* k1, double* f,
                                  double cx, double cy, int n_new) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n_new) return;
  const unsigned long long s = atomicAdd(counter, 1ull);
  if (s >= limit) return;
  x[s] = cx;
  y[s] = cy;
  k0[s] = 1000.0f + t;
  k1[s] = -1000.0f - t;
  f[s] = 0.5 * t;
}
extern "C" __global__ void mark(const double* f, int* m, long long n) {
  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) m[i] = f[i] >= 2.0;
}
'''


def _created_then_marked(vec, cp, create, mark, n_new):
    """Runs the create kernel (or create(sp) in Python) in a device spawn of n_new, then the
    mark kernel over the vector and a removal by that mark; checks counts and values."""
    n0 = vec.size
    lo, hi = vec.subdomain()
    cx, cy = (lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2
    with vec.spawn(n_new, on_device=True) as sp:
        create(sp, cx, cy)
        cp.cuda.get_current_stream().synchronize()  # commit waits for pvec's stream only
    assert vec.size == n0 + n_new
    vec.device_to_host()
    f_host = np.array(vec["f"])
    new_k0 = np.sort(np.array(vec["k"][0][n0:]))
    np.testing.assert_array_equal(new_k0, 1000.0 + np.arange(n_new, dtype=np.float32))
    np.testing.assert_array_equal(np.array(vec["k"][1][n0:]), -np.array(vec["k"][0][n0:]))
    np.testing.assert_array_equal(np.array(vec.pos[0][n0:]), np.full(n_new, cx))
    expected_removed = int((f_host >= 2.0).sum())
    survivors = sorted(zip(f_host[f_host < 2.0], np.array(vec["k"][0])[f_host < 2.0]))

    mark(vec)
    cp.cuda.get_current_stream().synchronize()
    assert vec.remove_marked("m", on_device=True) == expected_removed
    vec.device_to_host()
    assert vec.size == n0 + n_new - expected_removed
    left = sorted(zip(np.array(vec["f"]), np.array(vec["k"][0])))
    assert left == survivors


def test_cuda_kernels_create_and_mark_with_cupy():
    cp = _cuda_or_skip()
    mod = cp.RawModule(code=_KERNELS)
    create_k, mark_k = mod.get_function("create"), mod.get_function("mark")
    n_new = 200

    def create(sp, cx, cy):
        pos, k, f = (cp.asarray(sp.rows(p)) for p in ("pos", "k", "f"))
        create_k(((n_new + 63) // 64,), (64,),
                 (sp.counter, cp.uint64(sp.limit), pos[0], pos[1], k[0], k[1], f,
                  cp.float64(cx), cp.float64(cy), cp.int32(n_new)))

    def mark(vec):
        f, m = cp.asarray(vec.device("f")), cp.asarray(vec.device("m"))
        mark_k(((vec.size + 63) // 64,), (64,), (f, m, cp.int64(vec.size)))

    vec = make(6, backend="cuda")
    vec.host_to_device()
    _created_then_marked(vec, cp, create, mark, n_new)
    # a kernel asking for more than was reserved: nothing added, the number it needed reported
    with pytest.raises(pvec.OutOfRangeError) as err:
        with vec.spawn(10, on_device=True) as sp:
            create(sp, 0.5, 0.5)  # n_new = 200 claims
            cp.cuda.get_current_stream().synchronize()
    assert err.value.requested == n_new
    vec.destroy()


def test_cuda_kernels_create_and_mark_with_numba():
    cp = _cuda_or_skip()
    numba = pytest.importorskip("numba")
    numba_cuda = pytest.importorskip("numba.cuda")
    if not numba_cuda.is_available():
        pytest.skip("numba sees no CUDA device")
    n_new = 150

    @numba_cuda.jit
    def create_k(counter, limit, pos, k, f, cx, cy, n):
        t = numba_cuda.grid(1)
        if t < n:
            s = numba_cuda.atomic.add(counter, 0, numba.uint64(1))
            if s < limit:
                pos[0, s] = cx
                pos[1, s] = cy
                k[0, s] = 1000.0 + t
                k[1, s] = -1000.0 - t
                f[s] = 0.5 * t

    @numba_cuda.jit
    def mark_k(f, m):
        i = numba_cuda.grid(1)
        if i < f.shape[0]:
            m[i] = 1 if f[i] >= 2.0 else 0

    def create(sp, cx, cy):
        pos, k, f = (numba_cuda.as_cuda_array(sp.rows(p)) for p in ("pos", "k", "f"))
        counter = numba_cuda.as_cuda_array(sp.counter)
        try:
            create_k[(n_new + 63) // 64, 64](counter, np.uint64(sp.limit), pos, k, f, cx, cy,
                                             n_new)
        except AttributeError as e:  # as in test_gpu.py: a numba older than the NumPy
            if "numpy" in str(e):  # the spawn is cancelled on the way out
                pytest.skip("this numba cannot compile kernels with this NumPy: %s" % e)
            raise
        numba_cuda.synchronize()

    def mark(vec):
        f, m = (numba_cuda.as_cuda_array(vec.device(p)) for p in ("f", "m"))
        mark_k[(vec.size + 63) // 64, 64](f, m)
        numba_cuda.synchronize()

    vec = make(6, backend="cuda")
    vec.host_to_device()
    _created_then_marked(vec, cp, create, mark, n_new)
    vec.destroy()
