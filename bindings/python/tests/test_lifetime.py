"""Memory handed out by pvec outlives the vector: NumPy arrays from views and DLPack imports
stay readable (with the values they had) after destroy, after a `with` block, after
pvec.finalize() and after a reallocation by growth, until they are released. The risky part
runs in a subprocess, so that a crash shows as a return code instead of ending pytest."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import pvec

from conftest import make_seed_vector

# Large enough that the C library returns freed buffers to the system (a crash, not stale
# values, when an array outlives its memory).
N = 1 << 18

PRELUDE = textwrap.dedent("""
    import gc, sys
    import numpy as np
    import pvec
    N = %d

    def make(**kw):
        vec = pvec.Vector(dim=2, n=N, backend="host",
                          schema=[("s", np.float64), ("v", np.float32, 3)], **kw)
        vec["s"] = np.arange(N, dtype=np.float64)
        vec["v"] = np.arange(3 * N, dtype=np.float32).reshape(3, N)
        vec.host_to_device()
        return vec

    def exports(vec):
        return [np.from_dlpack(vec.host("s")), vec.host("s").numpy(), np.asarray(vec["s"]),
                np.from_dlpack(vec.device("v")), vec.device("v").numpy(), vec["v"][1]]

    def check(arrays):
        s = np.arange(N, dtype=np.float64)
        v = np.arange(3 * N, dtype=np.float32).reshape(3, N)
        for a, want in zip(arrays, [s, s, s, v, v, v[1]]):
            assert np.array_equal(a, want), (a[:4], want[:4])
            assert float(a.sum()) == float(want.sum())

    def live():
        return pvec.memory_stats().live_bytes
""" % N)


def _live():
    return pvec.memory_stats().live_bytes


def run_script(body):
    code = PRELUDE + textwrap.dedent(body) + "\nprint('script ok')\n"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, env=dict(os.environ))
    assert proc.returncode == 0 and "script ok" in proc.stdout, (
        "return code %d\nstdout:\n%s\nstderr:\n%s" % (proc.returncode, proc.stdout,
                                                      proc.stderr))


def test_exports_stay_readable_after_destroy():
    run_script("""
        vec = make()
        arrays = exports(vec)
        vec.destroy()
        check(arrays)
        arrays[1][:] = -1.0  # still writable memory, no longer the vector's
        before = live()
        del arrays
        gc.collect()
        assert live() < before, (live(), before)
        assert live() == 0, live()
    """)


def test_exports_stay_readable_after_a_with_block():
    run_script("""
        with make() as vec:
            arrays = exports(vec)
            d = np.from_dlpack(vec.host("s"))
        check(arrays)
        assert d.sum() == np.arange(N, dtype=np.float64).sum()
        del arrays, d
        gc.collect()
        assert live() == 0, live()
    """)


def test_exports_stay_readable_after_finalize():
    run_script("""
        vec = make()
        arrays = exports(vec)
        pvec.finalize()
        check(arrays)
        del arrays
        gc.collect()
        assert live() == 0, live()
    """)


def test_exports_keep_the_old_values_after_growth():
    run_script("""
        vec = make()
        arrays = exports(vec)
        vec.append(vec.capacity)  # past the capacity: new buffers
        vec["s"] = 7.0            # the vector's new memory, not the exported one
        vec.shrink_to_fit()
        check(arrays)
        assert (vec["s"].numpy() == 7.0).all()
        del arrays
        gc.collect()
        vec.destroy()
        assert live() == 0, live()
    """)


def test_unconsumed_capsule_and_array_base_release_their_retention():
    vec = make_seed_vector(n=1000)
    cap = vec.capacity
    block = 4 * cap  # one float32 scalar buffer
    vec["scalar"] = 3.0
    arr = vec["scalar"].numpy()
    capsule = vec.host("scalar").__dlpack__()
    vec.destroy()
    live = _live()
    assert (arr == 3.0).all()
    del capsule  # never consumed: its destructor releases the buffer
    del arr
    import gc
    gc.collect()
    assert _live() <= live - block


def test_views_keep_no_memory_until_exported():
    vec = make_seed_vector(n=1000)
    view = vec.host("scalar")
    assert view._retention is None
    vec.append(vec.capacity)  # growth: the never-exported view pins nothing
    with pytest.raises(pvec.StaleViewError):
        view.numpy()
    vec.destroy()
