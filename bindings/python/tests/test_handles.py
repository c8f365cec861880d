"""One lifetime for every object that owns a C handle (pvec._handle.Handle): Vector, CellList,
VerletList and Schema close exactly once, work as context managers, raise a clear pvec.Error
once closed, and are collected safely after pvec.finalize() and at interpreter exit. What
finalizes pvec runs in a subprocess (pvec cannot be restarted in a process)."""

import gc
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import pvec
from pvec._handle import Handle


def make_vector(**kw):
    args = dict(dim=2, n=50, periodic=True, ghost=0.2, backend="host",
                schema=[("m", np.float64)])
    args.update(kw)
    vec = pvec.Vector(**args)
    vec.pos[...] = np.random.default_rng(1).random((2, vec.size))
    vec.ghost_get()
    return vec


# Each kind of owner: (name, factory(vec) -> object, a use that needs the handle).
OWNERS = [
    ("Vector", lambda vec: make_vector(), lambda obj: obj.size),
    ("CellList", lambda vec: vec.cell_list(0.2), lambda obj: obj.ncells),
    ("VerletList", lambda vec: vec.verlet_list(0.15, 0.05), lambda obj: obj.neighbors),
    ("Schema", lambda vec: pvec.Schema([("a", np.float32)]), lambda obj: len(obj)),
]


@pytest.fixture
def vec():
    v = make_vector()
    yield v
    v.close()


@pytest.mark.parametrize("name,make,use", OWNERS, ids=[o[0] for o in OWNERS])
def test_every_owner_shares_the_helper(vec, name, make, use):
    obj = make(vec)
    assert isinstance(obj, Handle) and type(obj).__name__ == name
    assert obj.alive and isinstance(obj.handle, int)
    use(obj)
    obj.close()


@pytest.mark.parametrize("name,make,use", OWNERS, ids=[o[0] for o in OWNERS])
def test_close_twice_and_use_after_close(vec, name, make, use):
    obj = make(vec)
    obj.close()
    assert not obj.alive
    obj.close()    # harmless
    obj.destroy()  # the same, also harmless
    for access in (lambda: use(obj), lambda: obj.handle):
        with pytest.raises(pvec.Error) as e:
            access()
        assert e.value.status == pvec.Status.INVALID_HANDLE
        text = str(e.value)
        assert text.startswith(name + ".") and "was destroyed" in text, text
        assert "close()" in text and "with block" in text, text
        assert e.value.c_function is None  # refused by the binding: no C call on a freed handle


@pytest.mark.parametrize("name,make,use", OWNERS, ids=[o[0] for o in OWNERS])
def test_with_statement_closes(vec, name, make, use):
    with make(vec) as obj:
        use(obj)
        assert obj.alive
    assert not obj.alive
    with pytest.raises(pvec.Error):
        use(obj)
    # An exception inside the block still closes, and is not swallowed.
    with pytest.raises(ZeroDivisionError):
        with make(vec) as obj:
            1 / 0
    assert not obj.alive


def test_the_handle_is_released_exactly_once():
    released = []

    class Counted(pvec.Vector):
        def _release(self, handle):
            released.append(handle)
            super()._release(handle)

    vec = Counted(dim=2, n=10, backend="host")
    handle = vec.handle
    with vec:
        pass
    vec.close()
    vec.destroy()
    vec.__del__()
    del vec
    gc.collect()
    assert released == [handle]
    # Collection alone releases it once too.
    vec = Counted(dim=2, n=10, backend="host")
    handle = vec.handle
    del vec
    gc.collect()
    assert released[1:] == [handle]


def test_a_failed_constructor_owns_nothing():
    before = pvec.memory_stats().live_bytes
    with pytest.raises(pvec.Error):
        pvec.Vector(dim=2, backend="host", placement="nowhere")
    with pytest.raises(pvec.Error):
        pvec.Vector(dim=9, backend="host")
    gc.collect()
    assert pvec.memory_stats().live_bytes == before


def test_lists_of_a_destroyed_vector_fail_cleanly(vec):
    other = make_vector()
    cl = other.cell_list(0.2)
    nl = other.verlet_list(0.15, 0.05)
    other.close()
    for obj in (cl, nl):
        with pytest.raises(pvec.Error) as e:
            obj.build()
        assert e.value.status == pvec.Status.INVALID_HANDLE
        obj.close()  # harmless: pvec destroyed the lists with their vector
        assert not obj.alive


def test_list_arrays_outlive_close(vec):
    nl = vec.verlet_list(0.15, 0.05)
    nbr = nl.neighbors
    want = nbr.copy()
    nl.close()
    np.testing.assert_array_equal(nbr, want)  # the memory is freed with the last array


FINALIZE_SCRIPT = textwrap.dedent("""
    import gc, sys
    import numpy as np
    import pvec

    problems = []
    sys.unraisablehook = lambda u: problems.append(repr(u.exc_value))

    def objects():
        vec = pvec.Vector(dim=2, n=40, periodic=True, ghost=0.2, backend="host",
                          schema=[("m", np.float64)])
        vec.pos[...] = np.random.default_rng(2).random((2, vec.size))
        vec.ghost_get()
        return [vec, vec.cell_list(0.2), vec.verlet_list(0.15, 0.05),
                pvec.Schema([("a", np.float32)])]

    kept = objects()
    closed = objects()
    for obj in closed:
        obj.close()
    arrays = [kept[2].neighbors, kept[0]["m"].numpy()]
    dropped = objects()
    pvec.finalize()

    for obj in kept:
        assert not obj.alive, obj
        try:
            obj.handle
        except pvec.Error as e:
            assert e.status == pvec.Status.STATE and "finalize" in str(e), e
        else:
            raise AssertionError("no error using %r after finalize" % (obj,))
        obj.close()  # harmless: finalize destroyed it
        obj.close()
    for obj in closed:
        assert not obj.alive
    assert arrays[0].size > 0 and arrays[1].shape == (40,)
    del kept, closed, dropped, obj, arrays
    gc.collect()
    assert not problems, problems
    assert pvec.memory_stats().live_bytes == 0, pvec.memory_stats()
    print("script ok")
""")

EXIT_SCRIPT = textwrap.dedent("""
    import numpy as np
    import pvec

    # Left for the interpreter: pvec's atexit finalize, then module teardown collects them.
    vec = pvec.Vector(dim=2, n=40, periodic=True, ghost=0.2, backend="host",
                      schema=[("m", np.float64)])
    vec.ghost_get()
    cl, nl = vec.cell_list(0.2), vec.verlet_list(0.15, 0.05)
    schema = pvec.Schema([("a", np.float32)])
    arrays = [nl.neighbors, vec["m"].numpy()]
    cycle = [vec, cl]
    cycle.append(cycle)  # only the cycle collector at exit reaches these
    print("script ok")
""")


def run_script(code):
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, env=dict(os.environ))
    assert proc.returncode == 0 and "script ok" in proc.stdout, (
        "return code %d\nstdout:\n%s\nstderr:\n%s" % (proc.returncode, proc.stdout,
                                                      proc.stderr))
    return proc


def test_gc_after_finalize():
    proc = run_script(FINALIZE_SCRIPT)
    assert "Exception ignored" not in proc.stderr, proc.stderr


def test_objects_left_at_interpreter_exit():
    proc = run_script(EXIT_SCRIPT)
    assert proc.stderr.strip() == "", proc.stderr
