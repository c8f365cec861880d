"""Vector.remove_marked, spawns (Vector.spawn, pvec.Spawner), particle ids and mirror coherence
(mark_modified, sync, mirror_state, auto_sync, pvec.StaleMirrorError). Run on one rank
(python_population_np1) and two (python_population_np2). With the host backend the device
mirror is a second host allocation, so the on_device=True paths run everywhere; the CUDA
tests are in test_population_cuda.py."""

import numpy as np
import pytest

import pvec

SCHEMA = [("m", np.int32), ("f", np.float64), ("k", np.float32, 2), ("id", np.int64)]


def make(n=10, backend="host", **kw):
    """n local particles on every rank, each rank's own: k = (i, -i), f = i + 100 * rank,
    positions inside this rank's subdomain."""
    vec = pvec.Vector(dim=2, domain=(0.0, 1.0), periodic=True, ghost=0.05, backend=backend,
                      placement="local", schema=SCHEMA, **kw)
    vec.resize(n)
    lo, hi = vec.subdomain()
    for d in range(2):
        vec.pos[d][:] = lo[d] + (hi[d] - lo[d]) * (np.arange(n) + 0.5) / max(n, 1)
    vec["k"][0][:] = np.arange(n)
    vec["k"][1][:] = -np.arange(n)
    vec["f"][:] = np.arange(n) + 100.0 * vec.comm_rank
    return vec


def snapshot(vec):
    return {k: np.array(vec.host(k)) for k in vec.keys()}


def assert_unchanged(vec, before):
    after = snapshot(vec)
    assert after.keys() == before.keys()
    for k in before:
        np.testing.assert_array_equal(after[k], before[k], err_msg=k)


# ---- removal by mark ---------------------------------------------------------------------------
def test_remove_by_property_keeps_the_order():
    vec = make(10)
    vec["m"][:] = [0, 1, 0, 1, 0, 0, 7, 0, 0, -1]
    assert vec.remove_marked("m") == 4
    assert vec.size == 6
    np.testing.assert_array_equal(vec["k"][0], [0, 2, 4, 5, 7, 8])
    np.testing.assert_array_equal(vec["k"][1], [0, -2, -4, -5, -7, -8])
    np.testing.assert_array_equal(vec["m"], 0)
    # Any dtype marks: nonzero (NaN included) removes; an index works as a name does.
    vec["f"][:] = [0.0, np.nan, 0.0, 0.5, 0.0, 0.0]
    assert vec.remove_marked(vec.prop_index("f")) == 2
    np.testing.assert_array_equal(vec["k"][0], [0, 4, 7, 8])
    assert vec.remove_marked("m") == 0 and vec.size == 4
    vec.destroy()


def test_remove_filling_the_holes():
    """The survivors after the new end move, in order, into the holes before it."""
    vec = make(10)
    vec["m"][:] = 0
    vec["m"][[1, 3]] = 1
    assert vec.remove_marked("m", fill_holes=True) == 2
    np.testing.assert_array_equal(vec["k"][0], [0, 8, 2, 9, 4, 5, 6, 7])
    np.testing.assert_array_equal(vec["k"][1], [0, -8, -2, -9, -4, -5, -6, -7])
    marks = np.zeros(8, dtype=bool)
    marks[[0, 7]] = True  # row 7 is removed itself: only row 6 fills the hole at 0
    assert vec.remove_marked(marks, fill_holes=True) == 2
    np.testing.assert_array_equal(vec["k"][0], [6, 8, 2, 9, 4, 5])
    vec.destroy()


@pytest.mark.parametrize("kind", ["int32", "bool", "int64", "uint8", "float", "list"])
def test_remove_by_array(kind):
    vec = make(8)
    marks = np.array([1, 0, 0, 3, 0, 0, 0, 1])
    if kind == "list":
        arr = marks.tolist()
    elif kind == "float":
        arr = np.where(marks != 0, np.nan, 0.0)
    elif kind == "int64":
        arr = marks.astype(np.int64) << 32  # nonzero only above the low 32 bits
    else:
        arr = marks.astype(kind)
    assert vec.remove_marked(arr) == 3
    np.testing.assert_array_equal(vec["k"][0], [1, 2, 4, 5, 6])
    vec.destroy()


def test_remove_refusals_leave_the_vector_unchanged():
    vec = make(6)
    vec["m"][:] = 1
    before = snapshot(vec)
    with pytest.raises(ValueError, match="one entry per local particle"):
        vec.remove_marked(np.ones(5, dtype=np.int32))
    with pytest.raises(ValueError):
        vec.remove_marked(np.ones((2, 3), dtype=np.int32))
    with pytest.raises(ValueError):
        vec.remove_marked(np.int32(1) == 1)  # a 0-d array, not a property
    with pytest.raises(TypeError):
        vec.remove_marked(np.array(["a"] * 6))
    with pytest.raises(pvec.PropertyKeyError):
        vec.remove_marked("nope")
    with pytest.raises(pvec.OutOfRangeError):
        vec.remove_marked(17)
    for prop in ("k", "pos"):  # several components; the positions
        with pytest.raises(pvec.Error) as e:
            vec.remove_marked(prop)
        assert e.value.status == pvec.Status.INVALID_ARGUMENT
    assert_unchanged(vec, before)
    vec.destroy()


def test_remove_on_the_device_mirror():
    """on_device=True removes on the device mirror only: the host mirror is then older, and
    reading it is refused until copied."""
    vec = make(6)
    vec["m"][:] = [0, 0, 1, 0, 1, 0]
    vec.host_to_device()
    assert vec.remove_marked("m", on_device=True) == 2
    np.testing.assert_array_equal(vec.device("k")[0], [0, 1, 3, 5])
    state = vec.mirror_state("k")
    assert state.device_local and not state.host_local
    with pytest.raises(pvec.StaleMirrorError):
        vec.remove_marked("m")
    vec.device_to_host()
    np.testing.assert_array_equal(vec["k"][0], [0, 1, 3, 5])
    # An array of marks for the device mirror (host memory with the host backend).
    assert vec.remove_marked(np.array([True, False, False, True]), on_device=True) == 2
    vec.device_to_host()
    np.testing.assert_array_equal(vec["k"][0], [1, 3])
    vec.destroy()


def test_remove_async():
    """With the host backend the asynchronous removal runs at once; the count lands in out."""
    vec = make(5)
    vec.host_to_device()
    out = vec.remove_marked_async(np.array([0, 1, 1, 0, 0], dtype=np.int32))
    assert isinstance(out, np.ndarray) and out.dtype == np.int64 and out[0] == 2
    assert vec.size == 3
    mine = np.full(1, -1, dtype=np.int64)
    assert vec.remove_marked_async(np.array([1, 0, 0]), fill_holes=True, out=mine) is mine
    assert mine[0] == 1 and vec.size == 2
    vec.device_to_host()
    np.testing.assert_array_equal(vec["k"][0], [4, 3])
    with pytest.raises(TypeError):
        vec.remove_marked_async(np.zeros(2), out=np.zeros(1, dtype=np.int32))
    vec.destroy()


# ---- spawns ------------------------------------------------------------------------------------
def test_spawn_on_the_host_mirror():
    """Slots claimed from Python through the counter, rows written through the spawn's host
    arrays, then committed."""
    vec = make(4)
    sp = vec.spawn(5)
    assert (sp.first, sp.limit, sp.open, sp.on_device) == (4, 5, True, False)
    assert sp.capacity == vec.capacity and sp.id_first == -1 and sp.id_stride == 0
    assert isinstance(sp.counter, np.ndarray) and sp.counter.dtype == np.uint64
    assert sp.counter.shape == (1,) and sp.counter[0] == 0
    k, f, pos = sp.rows("k"), sp.rows("f"), sp.rows("pos")
    assert k.shape == (2, 5) and f.shape == (5,) and pos.shape == (2, 5)
    np.testing.assert_array_equal(k, 0)  # the reserved rows start as zeros
    lo, hi = vec.subdomain()
    for j in range(3):
        s = int(sp.counter[0])
        sp.counter[0] += 1
        k[:, s] = (10 + s, -10 - s)
        f[s] = 0.5 * s
        pos[:, s] = [(a + b) / 2 for a, b in zip(lo, hi)]
    assert sp.claim() == 4 + 3  # the row of the claimed slot
    assert sp.commit() == 4
    assert not sp.open and vec.size == 8
    np.testing.assert_array_equal(vec["k"][0], [0, 1, 2, 3, 10, 11, 12, 0])
    np.testing.assert_array_equal(vec["k"][1], [0, -1, -2, -3, -10, -11, -12, 0])
    np.testing.assert_array_equal(vec["f"][4:], [0.0, 0.5, 1.0, 0.0])
    with pytest.raises(pvec.Error) as e:
        sp.commit()  # closed already
    assert e.value.status == pvec.Status.STATE
    vec.destroy()


def test_spawn_overflow_adds_nothing():
    vec = make(3)
    before = snapshot(vec)
    sp = vec.spawn(2)
    sp.counter[0] = 5  # more slots asked for than reserved
    with pytest.raises(pvec.OutOfRangeError) as e:
        sp.commit()
    assert e.value.status == pvec.Status.OUT_OF_RANGE and e.value.requested == 5
    assert "5" in str(e.value) and not sp.open
    assert_unchanged(vec, before)
    assert vec.spawn(1).commit() == 0  # the failed commit closed the spawn
    vec.destroy()


def test_spawn_as_a_context_manager():
    vec = make(2)
    with vec.spawn(3) as sp:
        for _ in range(2):
            sp.rows("k")[0][sp.claim() - sp.first] = 42
    assert vec.size == 4 and not sp.open
    np.testing.assert_array_equal(vec["k"][0], [0, 1, 42, 42])
    # An exception in the block cancels: nothing added, the exception goes through.
    with pytest.raises(KeyError):
        with vec.spawn(3) as sp:
            sp.claim()
            raise KeyError("inside")
    assert vec.size == 4 and not sp.open
    # While a spawn is open, calls that change the particles are refused.
    with vec.spawn(1) as sp:
        for call in (lambda: vec.resize(1), lambda: vec.spawn(1), lambda: vec.remove_marked("m")):
            with pytest.raises(pvec.Error) as e:
                call()
            assert e.value.status == pvec.Status.STATE
    assert vec.size == 4
    # A cancel, then a context manager whose block closed the spawn itself.
    sp = vec.spawn(2)
    sp.claim()
    sp.cancel()
    assert vec.size == 4
    with vec.spawn(2) as sp:
        sp.claim()
        assert sp.commit() == 1
    assert vec.size == 5
    vec.destroy()


def test_spawn_on_the_device_mirror():
    """A device spawn (the host backend's device mirror is host memory, so Python claims
    there too); the host mirror is older afterwards."""
    vec = make(3)
    vec.host_to_device()
    with vec.spawn(2, on_device=True) as sp:
        assert sp.on_device and isinstance(sp.counter, np.ndarray)
        row = sp.claim(2)
        assert row == 3
        sp.rows("k")[0][:] = [7, 8]
    assert vec.size == 5
    np.testing.assert_array_equal(vec.device("k")[0], [0, 1, 2, 7, 8])
    assert vec.mirror_state("k") == pvec.MirrorState(False, True, True, True)
    with pytest.raises(pvec.StaleMirrorError):
        vec.spawn(1)
    vec.sync()
    np.testing.assert_array_equal(vec["k"][0], [0, 1, 2, 7, 8])
    vec.destroy()


# ---- ids ---------------------------------------------------------------------------------------
def test_ids_are_unique():
    vec = make(6)
    r, p = vec.comm_rank, vec.comm_size
    with pytest.raises(pvec.Error) as e:
        vec.ids_take(1)
    assert e.value.status == pvec.Status.STATE
    vec.ids_init("id")
    n_total = int(vec.allreduce(np.int64(vec.size)))
    ids = np.array(vec["id"])
    np.testing.assert_array_equal(ids, np.arange(vec.size) + r * 6)  # rank order
    taken = vec.ids_take(4)
    np.testing.assert_array_equal(taken, n_total + r + p * np.arange(4))
    assert vec.ids_take(0).size == 0
    with vec.spawn(3) as sp:
        assert sp.id_stride == p and sp.id_first == n_total + r + p * 4
        for _ in range(3):
            row = sp.claim()
            sp.rows("id")[row - sp.first] = sp.id_of(row)
    # Every id of every rank (the particles' and the ones taken) is unique: a histogram
    # summed over the ranks has no entry above 1.
    mine = np.concatenate([np.array(vec["id"]), taken])
    top = n_total + p * 8
    hist = vec.allreduce(np.bincount(mine, minlength=top).astype(np.int64))
    assert hist.max() == 1 and hist.sum() == p * (6 + 4 + 3)
    # keep=True keeps ids numbered by the caller and continues after the largest.
    vec["id"][:] = 1000 + np.arange(vec.size) * p + r
    vec.ids_init("id", keep=True)
    largest = 1000 + (vec.size - 1) * p + p - 1
    assert vec.ids_take(1)[0] == largest + 1 + r
    for bad in ("f", "k"):  # not a scalar int64/uint64
        with pytest.raises(pvec.Error) as e:
            vec.ids_init(bad)
        assert e.value.status == pvec.Status.INVALID_ARGUMENT
    vec.destroy()


# ---- mirror coherence --------------------------------------------------------------------------
def test_stale_mirror_is_refused_until_copied():
    """A host map, then a device operation: refused on every rank (nothing changed); after
    host_to_device it runs."""
    vec = make(6)
    vec.map()
    before = snapshot(vec)
    assert vec.mirror_state("pos") == pvec.MirrorState(True, False, True, True)
    with pytest.raises(pvec.StaleMirrorError) as e:
        vec.map(on_device=True)
    assert e.value.status == pvec.Status.STALE_MIRROR == 15
    assert isinstance(e.value, pvec.Error)
    assert "host_to_device()" in str(e.value) and "auto_sync" in str(e.value)
    with pytest.raises(pvec.StaleMirrorError):
        vec.reduce("f", on_device=True)
    with pytest.raises(pvec.StaleMirrorError):
        vec.device_to_host()  # would copy older values over newer ones
    assert_unchanged(vec, before)
    vec.host_to_device()
    assert vec.mirror_state("pos") == pvec.MirrorState(True, True, True, True)
    vec.map(on_device=True)
    assert vec.reduce("f", on_device=True) == vec.allreduce(before["f"].sum())
    vec.destroy()


def test_mark_modified_sync_and_state():
    vec = make(4)
    assert vec.mirror_state("f") == pvec.MirrorState(True, True, True, True)
    assert vec.mirror_state("f").bits == pvec.Mirror(15)
    vec.device("f")[:] = 9.0
    vec.mark_modified(["f"], on_device=True)  # the local and the ghost rows
    assert vec.mirror_state("f") == pvec.MirrorState(False, True, False, True)
    assert vec.mirror_state("k") == pvec.MirrorState(True, True, True, True)  # not listed
    with pytest.raises(pvec.StaleMirrorError):
        vec.reduce("f")
    vec.sync(["f"], rows="ghost")  # only the ghost rows: the local ones stay older
    assert vec.mirror_state("f") == pvec.MirrorState(False, True, True, True)
    vec.sync("f", rows="local")
    assert vec.mirror_state("f") == pvec.MirrorState(True, True, True, True)
    np.testing.assert_array_equal(vec["f"], 9.0)
    vec.sync()  # nothing older anywhere: nothing copied
    # Host writes of every property, the local rows only.
    vec.mark_modified(rows="local")
    state = vec.mirror_state("k")
    assert state.host_local and not state.device_local and state.device_ghost
    vec.sync(on_device=True)
    assert vec.mirror_state("pos") == pvec.MirrorState(True, True, True, True)
    vec.mark_modified([])  # an empty list: nothing declared
    assert vec.mirror_state("pos") == pvec.MirrorState(True, True, True, True)
    with pytest.raises(pvec.Error) as e:
        vec.mark_modified("f", rows="sideways")
    assert e.value.status == pvec.Status.INVALID_ARGUMENT
    with pytest.raises(pvec.OutOfRangeError):
        vec.mirror_state(99)
    with pytest.raises(pvec.PropertyKeyError):
        vec.sync("nope")
    vec.destroy()


def test_auto_sync_copies_instead_of_refusing():
    vec = make(5)
    assert vec.auto_sync is False
    vec.device("f")[:] = 2.0
    vec.mark_modified("f", on_device=True)
    vec.auto_sync = True
    assert vec.auto_sync is True
    assert vec.reduce("f") == 2.0 * int(vec.allreduce(np.int64(vec.size)))
    # The reduction read the local rows: those were copied; the ghost rows were not read.
    assert vec.mirror_state("f") == pvec.MirrorState(True, True, False, True)
    vec.auto_sync = False
    assert vec.auto_sync is False
    vec.mark_modified("f", on_device=True)
    with pytest.raises(pvec.StaleMirrorError):
        vec.reduce("f")
    vec.destroy()
    with pytest.raises(pvec.Error) as e:
        vec.auto_sync = True
    assert e.value.status == pvec.Status.INVALID_HANDLE
