"""Neighbour search from Python on the host mirror: Verlet lists and cell lists equal a NumPy
brute force (1D/2D/3D, periodic and open, float32/float64), a half list plus
ghost_put(op="add") counts every pair once, sort keeps every particle's values, stale lists
raise StaleViewError, bad input raises pvec.Error with the C message, arrays outlive builds
and the list itself."""

import gc

import numpy as np
import pytest

import pvec

GHOST = 0.25


def make_box(dim=3, periodic=True, pos_dtype=np.float64, n=300, seed=1):
    v = pvec.Vector(dim=dim, domain=(0.0, 1.0), periodic=periodic, ghost=GHOST, n=n,
                    placement="local", pos_dtype=pos_dtype,
                    schema=[("id", np.int64), ("acc", np.float64)], backend="host")
    rng = np.random.default_rng(seed)
    v.pos[...] = rng.random((dim, n))
    v["id"] = np.arange(n)
    v.map()
    v.ghost_get()
    return v


def within(v, r):
    """Boolean matrix (local x all rows): row j closer than r to local i, j != i, computed in
    the position dtype as pvec computes it."""
    x = np.asarray(v.host("pos", ghosts=True))
    n = v.size
    d = x[:, :n, None] - x[:, None, :]
    r2 = np.sum(d * d, axis=0)
    close = r2 < x.dtype.type(r) * x.dtype.type(r)
    close[np.arange(n), np.arange(n)] = False
    return close


BOXES = [(dim, periodic, t) for dim in (1, 2, 3) for periodic in (True, False)
         for t in (np.float64, np.float32)]


@pytest.fixture
def box():
    v = make_box()
    yield v
    v.destroy()


@pytest.mark.parametrize("dim,periodic,dtype", BOXES)
def test_full_list_equals_brute_force(dim, periodic, dtype):
    with make_box(dim, periodic, dtype, n={1: 60, 2: 200, 3: 300}[dim]) as v:
        rc, skin = 0.15, 0.05
        for span in (1, 2):
            with v.verlet_list(rc, skin, cells_per_cutoff=span) as nl:
                assert not nl.half and nl.n == v.size
                assert (nl.cutoff, nl.skin) == (rc, skin)
                off, nbr = nl.offsets, nl.neighbors
                assert off.dtype == np.int64 and nbr.dtype == np.int32
                assert off.shape == (v.size + 1,) and off[-1] == nl.n_pairs == nbr.size
                close = within(v, rc + skin)
                for i in range(v.size):
                    got = np.sort(nbr[off[i]:off[i + 1]])
                    np.testing.assert_array_equal(got, np.flatnonzero(close[i]),
                                                  err_msg="particle %d" % i)


@pytest.mark.parametrize("dim,periodic,dtype", BOXES[::2])
def test_half_list_counts_each_pair_once(dim, periodic, dtype):
    with make_box(dim, periodic, dtype, n={1: 60, 2: 200, 3: 300}[dim]) as v:
        full = v.verlet_list(0.15, 0.05)
        half = v.verlet_list(0.15, 0.05, half=True)
        assert half.half
        off, nbr = half.offsets, half.neighbors
        n = v.size
        i = np.repeat(np.arange(n), np.diff(off))
        local = nbr < n
        pairs = set(zip(np.minimum(i[local], nbr[local]), np.maximum(i[local], nbr[local])))
        assert len(pairs) == local.sum(), "a local pair listed twice"
        acc = np.zeros(n + v.ghost_size)
        np.add.at(acc, i, 1.0)
        np.add.at(acc, nbr, 1.0)
        v.host("acc", ghosts=True)[...] = acc
        v.ghost_put(["acc"], op="add")
        np.testing.assert_array_equal(v["acc"], np.diff(full.offsets))
        # Deterministic: a rebuild gives the same arrays.
        half.build()
        np.testing.assert_array_equal(half.neighbors, nbr)
        full.destroy()
        half.destroy()


@pytest.mark.parametrize("dim,periodic", [(1, True), (2, False), (3, True)])
def test_cell_list_holds_every_row_in_its_cell(dim, periodic):
    with make_box(dim, periodic, n=150) as v:
        for ghosts in (False, True):
            cl = v.cell_list(0.12, cells_per_cutoff=2, ghosts=ghosts)
            total = v.size + (v.ghost_size if ghosts else 0)
            assert cl.dim == dim and cl.span == 2 and cl.n_local == v.size
            assert cl.n_entries == total and len(cl.dims) == dim
            assert cl.ncells == int(np.prod(cl.dims))
            co, cp, lo = cl.cell_offsets, cl.cell_particles, cl.local_offsets
            assert co.shape == lo.shape == (cl.ncells + 1,) and co[-1] == total
            np.testing.assert_array_equal(np.sort(cp), np.arange(total))
            x = np.asarray(v.host("pos", ghosts=True))
            for c in range(cl.ncells):
                rows = cp[co[c]:co[c + 1]]
                nloc = lo[c + 1] - lo[c]
                assert np.all(rows[:nloc] < v.size) and np.all(rows[nloc:] >= v.size)
                for j in rows:
                    assert cl.cell_of(x[:, j]) == c
            cl.destroy()


def test_sort_keeps_values_and_puts_rows_in_cell_order(box):
    before = {int(k): tuple(p) for k, p in zip(box["id"], box.pos.numpy().T)}
    assert box.sort(0.1) is True
    assert box.sort(0.1) is False  # in cell order already: nothing moves
    after = {int(k): tuple(p) for k, p in zip(box["id"], box.pos.numpy().T)}
    assert after == before
    box.ghost_get()
    cl = box.cell_list(0.1)
    assert cl.sorted
    lo, cp = cl.local_offsets, cl.cell_particles
    np.testing.assert_array_equal(cp[:box.size], np.arange(box.size))  # no indirection
    assert lo[-1] == box.size
    box.host_to_device()
    assert box.sort(0.1, morton=True, both_mirrors=True) is True
    ids = box["id"].numpy().copy()
    assert set(ids.tolist()) == set(before)
    box.device_to_host()  # the device mirror was permuted the same way
    np.testing.assert_array_equal(box["id"], ids)


def test_sort_halo_first(box):
    before = {int(k): tuple(p) for k, p in zip(box["id"], box.pos.numpy().T)}
    def ghost_rows():
        box.ghost_get()
        x = np.asarray(box.host("pos", ghosts=True))
        return sorted(map(tuple, x[:, box.size:].T))

    ghosts = ghost_rows()
    assert box.sort(0.1, halo_first=True) is True
    assert box.sort(0.1, halo_first=True) is False  # in halo-first order already
    after = {int(k): tuple(p) for k, p in zip(box["id"], box.pos.numpy().T)}
    assert after == before
    # The particles within one ghost width of the lower x face come first.
    lo, _ = box.subdomain()
    x0 = box.pos.numpy()[0] - lo[0]
    near, far = np.nonzero(x0 < box.ghost_width)[0], np.nonzero(x0 >= box.ghost_width + 0.25)[0]
    if len(near) and len(far):
        assert near.max() < far.min()
    assert ghost_rows() == ghosts  # the same ghosts from the reordered rows
    cl = box.cell_list(0.1)
    assert not cl.sorted  # row-major cells need the indirection after a halo-first sort
    with pytest.raises(pvec.Error) as e:
        box.sort(0.1, halo_first=True, morton=True)
    assert e.value.status == pvec.Status.INVALID_ARGUMENT
    assert "halo_first=True" in str(e.value) and "morton=True" in str(e.value)


def test_stale_lists_raise(box):
    nl = box.verlet_list(0.1, 0.02)
    cl = box.cell_list(0.1, ghosts=True)
    box.ghost_get(reuse_plan=True)  # same rows: still current
    assert not nl.is_stale and not cl.is_stale
    nl.neighbors
    for change in (lambda: box.map(), lambda: box.sort(0.05), lambda: box.append(1)):
        box.ghost_get()
        nl.build()
        cl.build()
        change()
        assert nl.is_stale and cl.is_stale
        with pytest.raises(pvec.StaleViewError, match=r"VerletList.neighbors: .*stale.*build"):
            nl.neighbors
        with pytest.raises(pvec.StaleViewError, match=r"CellList.cell_offsets: "):
            cl.cell_offsets
        with pytest.raises(pvec.StaleViewError):
            cl.dims
        assert nl.check()  # a stale list asks for a rebuild
    box.ghost_get()
    nl.build()
    assert not nl.is_stale and nl.n == box.size


def test_check_is_true_when_a_particle_moved_more_than_half_the_skin(box):
    skin = 0.04
    nl = box.verlet_list(0.1, skin)
    assert nl.check() is False
    x0 = box.pos[0, 0]
    box.pos[0, 0] = x0 + 0.4 * skin
    assert nl.check() is False
    box.pos[0, 0] = x0 + 0.6 * skin
    assert nl.check() is True


@pytest.mark.parametrize("call,status,text", [
    (lambda v: v.cell_list(0.0), pvec.Status.INVALID_ARGUMENT, "Vector.cell_list: "),
    (lambda v: v.cell_list(-1.0), pvec.Status.INVALID_ARGUMENT, "cutoff"),
    (lambda v: v.cell_list(float("nan")), pvec.Status.INVALID_ARGUMENT, "cutoff"),
    (lambda v: v.cell_list(0.3), pvec.Status.INVALID_ARGUMENT, "ghost width"),
    (lambda v: v.cell_list(0.1, cells_per_cutoff=9), pvec.Status.INVALID_ARGUMENT, "[1, 8]"),
    (lambda v: v.verlet_list(0.2, 0.1), pvec.Status.INVALID_ARGUMENT, "ghost width"),
    (lambda v: v.verlet_list(0.1, -0.01), pvec.Status.INVALID_ARGUMENT, "Vector.verlet_list: "),
    (lambda v: v.sort(0.0), pvec.Status.INVALID_ARGUMENT, "Vector.sort: "),
    (lambda v: v.sort(float("inf")), pvec.Status.INVALID_ARGUMENT, "cell width"),
])
def test_bad_input_raises_with_the_message(box, call, status, text):
    gen = box.generation
    with pytest.raises(pvec.Error) as info:
        call(box)
    assert info.value.status == status
    assert text in str(info.value)
    assert box.generation == gen  # nothing changed


def test_nan_position_is_refused(box):
    box.pos[1, 3] = np.nan
    for make in (lambda: box.cell_list(0.1), lambda: box.verlet_list(0.1, 0.02),
                 lambda: box.sort(0.1)):
        with pytest.raises(pvec.Error) as info:
            make()
        assert info.value.status == pvec.Status.INVALID_ARGUMENT


def test_zero_particles_give_empty_lists():
    with pvec.Vector(dim=2, periodic=True, ghost=GHOST, n=0, backend="host") as v:
        v.ghost_get()
        nl = v.verlet_list(0.1, 0.05)
        assert nl.n == 0 and nl.n_pairs == 0
        np.testing.assert_array_equal(nl.offsets, [0])
        assert nl.neighbors.size == 0
        cl = v.cell_list(0.1, ghosts=True)
        assert cl.n_entries == 0 and cl.cell_offsets[-1] == 0
        assert v.sort(0.1) is False


def test_destroyed_lists_and_vectors():
    v = make_box(n=50)
    nl = v.verlet_list(0.1, 0.02)
    nl.destroy()
    assert not nl.alive
    with pytest.raises(pvec.Error) as info:
        nl.neighbors
    assert info.value.status == pvec.Status.INVALID_HANDLE
    cl = v.cell_list(0.1)
    v.destroy()
    with pytest.raises(pvec.Error) as info:
        cl.build()
    assert info.value.status == pvec.Status.INVALID_HANDLE
    assert "CellList.build: " in str(info.value)
    cl.destroy()


def test_arrays_are_read_only_and_outlive_builds_and_the_list(box):
    nl = box.verlet_list(0.1, 0.02)
    nbr = nl.neighbors
    want = nbr.copy()
    assert not nbr.flags.writeable
    with pytest.raises(ValueError):
        nbr[0] = 1
    box.pos[0, :] = 0.5  # moves some particles: the rebuilt list differs
    nl.build()
    np.testing.assert_array_equal(nbr, want)  # the old array keeps its build's values
    nl.destroy()
    gc.collect()
    np.testing.assert_array_equal(nbr, want)  # and its memory
    before = pvec.memory_stats()
    del nbr
    gc.collect()
    assert pvec.memory_stats().host_bytes <= before.host_bytes


def test_repr_and_attributes(box):
    nl = box.verlet_list(0.1, 0.02, half=True)
    assert "half" in repr(nl)
    cl = box.cell_list(0.2)
    assert cl.origin == tuple(s - GHOST for s in box.subdomain()[0])
    assert all(w >= 0.2 for w in cl.width)
    assert np.allclose(np.array(cl.width) * np.array(cl.inv_width), 1.0)
    assert not cl.on_device and not nl.on_device
    box.map()
    assert "stale" in repr(cl)


def test_key_order_and_pair_filter():
    """key= orders each particle's neighbours by id; skip= leaves out pairs of two flagged
    particles; both need their ghost rows current (STATE otherwise, naming the property)."""
    n = 300
    v = pvec.Vector(dim=3, domain=(0.0, 1.0), periodic=True, ghost=GHOST, n=n,
                    placement="local", schema=[("id", np.int64), ("wall", np.int32),
                                               ("acc", np.float64)], backend="host")
    with v:
        rng = np.random.default_rng(3)
        v.pos[...] = rng.random((3, n))
        v["id"] = rng.permutation(n) * 7 * v.comm_size + v.comm_rank  # unique over the ranks
        v["wall"] = (np.arange(n) % 3 == 0).astype(np.int32)
        v.map()
        v.ghost_get(["acc"])
        with pytest.raises(pvec.Error) as e:
            v.verlet_list(0.15, 0.05, key="id")
        assert e.value.status == pvec.Status.STATE and "'id'" in str(e.value)
        v.ghost_get(["id", "wall"], reuse_plan=True)
        ids = np.asarray(v.host("id", ghosts=True))
        wall = np.asarray(v.host("wall", ghosts=True))
        close = within(v, 0.2)
        with v.verlet_list(0.15, 0.05, key="id", skip="wall") as nl:
            off, nbr = nl.offsets, nl.neighbors
            for i in range(v.size):
                row = nbr[off[i]:off[i + 1]]
                assert np.all(np.diff(ids[row]) > 0), "particle %d: not in id order" % i
                want = np.flatnonzero(close[i] & ~((wall[i] != 0) & (wall != 0)))
                np.testing.assert_array_equal(np.sort(row), want, err_msg="particle %d" % i)
        with pytest.raises(pvec.Error) as e:
            v.verlet_list(0.15, 0.05, key="acc")
        assert e.value.status == pvec.Status.DTYPE_MISMATCH
        with pytest.raises(IndexError):
            v.verlet_list(0.15, 0.05, skip=17)
