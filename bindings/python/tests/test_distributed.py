"""Distribution through the binding: decomposition, map, ghost_get, ghost_put, checked against
a brute-force reference, and their split-phase forms (ghost_get_begin/end, ghost_put_begin/end)
against the blocking calls. Run on one rank (python_distributed_np1) and two
(python_distributed_np2).

Every rank generates the same global particle set (same seed) and inserts its share
(placement="local"), so every rank knows the whole set without communicating. Checks that
need the other ranks' subdomains use mpi4py and are skipped without it on several ranks.
"""

import itertools
import os

import numpy as np
import pytest

import pvec

DIM = 2
LO, HI = np.zeros(DIM), np.ones(DIM)
L = HI - LO
WIDTH = 0.1
N_GLOBAL = 400


def make_vector(periodic=True, ghost=WIDTH, **kw):
    args = dict(dim=DIM, domain=(0.0, 1.0), periodic=periodic, ghost=ghost, backend="host",
                pos_dtype=np.float64, placement="local",
                schema=[("id", np.int64), ("val", np.float64), ("vec", np.float64, 2),
                        ("w", np.float64)])
    args.update(kw)
    return pvec.Vector(**args)


def global_particles(seed=1):
    rng = np.random.default_rng(seed)
    return rng.random((N_GLOBAL, DIM))


def fill_my_share(vec, x):
    """Insert the particles i with i % size == rank; id = i, val = 10*i, vec = (i, -i)."""
    mine = np.arange(N_GLOBAL)[np.arange(N_GLOBAL) % vec.comm_size == vec.comm_rank]
    vec.resize(len(mine))
    vec.pos[...] = x[mine].T
    vec["id"] = mine
    vec["val"] = 10.0 * mine
    vec["vec"] = [mine, -mine]
    return mine


def all_subdomains(vec):
    """Subdomain (lo, hi) of every rank, via mpi4py when there are several ranks."""
    if vec.comm_size == 1:
        return [vec.subdomain()]
    pytest.importorskip("mpi4py", reason="several ranks and no mpi4py to gather subdomains")
    from mpi4py import MPI
    return MPI.COMM_WORLD.allgather(vec.subdomain())


def images(x, periodic):
    """All periodic images (shift, x + shift) of point x."""
    shifts = [(-L[d], 0.0, L[d]) if periodic else (0.0,) for d in range(DIM)]
    for s in itertools.product(*shifts):
        yield np.array(s), x + np.array(s)


def in_box(q, lo, hi, w=0.0):
    return all(lo[d] - w <= q[d] < hi[d] + w for d in range(DIM))


def expected_ghosts(x, owner, rank, box, periodic):
    """{(id, rounded image position)} of the ghosts rank must receive."""
    lo, hi = box
    out = set()
    for i in range(N_GLOBAL):
        for s, q in images(x[i], periodic):
            if not in_box(q, lo, hi, WIDTH):
                continue
            if not s.any() and owner[i] == rank:
                continue  # a local particle, not a ghost
            out.add((i, tuple(np.round(q, 9))))
    return out


def local_ids(vec):
    return vec["id"].numpy().copy()


# ---- decomposition -----------------------------------------------------------------------
def test_subdomains_tile_the_domain():
    with make_vector() as vec:
        lo, hi = vec.subdomain()
        assert all(0.0 <= a < b <= 1.0 for a, b in zip(lo, hi))
        center = [(a + b) / 2 for a, b in zip(lo, hi)]
        assert vec.owner_rank(center) == vec.comm_rank
        boxes = all_subdomains(vec)
        assert sum(np.prod(np.subtract(h, lo_)) for lo_, h in boxes) == pytest.approx(1.0)
        rng = np.random.default_rng(7)
        for p in rng.random((50, DIM)):
            r = vec.owner_rank(p)
            assert 0 <= r < vec.comm_size
            assert in_box(p, *boxes[r])


def test_owner_rank_wraps_periodic_and_rejects_outside():
    with make_vector(periodic=True) as vec:
        assert vec.owner_rank([1.25, 0.5]) == vec.owner_rank([0.25, 0.5])
    with make_vector(periodic=False) as vec:
        with pytest.raises(pvec.Error) as e:
            vec.owner_rank([1.5, 0.5])
        assert e.value.status == pvec.Status.INVALID_ARGUMENT
        with pytest.raises(pvec.Error):
            vec.owner_rank([float("nan"), 0.5])


# ---- map ---------------------------------------------------------------------------------
@pytest.mark.parametrize("on_device", [False, True])
def test_map_sends_every_particle_to_its_owner(on_device):
    x = global_particles()
    with make_vector() as vec:
        mine = fill_my_share(vec, x)
        assert vec.last_op_stats().particles_sent == 0  # zeros before the first call
        gen = vec.generation
        if on_device:
            vec.host_to_device()
        assert vec.map(on_device=on_device) == 0
        if on_device:
            vec.device_to_host()
        assert vec.generation != gen
        owner = np.array([vec.owner_rank(p) for p in x])
        expect = np.flatnonzero(owner == vec.comm_rank)
        ids = local_ids(vec)
        np.testing.assert_array_equal(np.sort(ids), expect)  # conserved, each on its owner
        # Every property travelled with its particle.
        pos = vec.pos.numpy()
        np.testing.assert_array_equal(pos.T, x[ids])
        np.testing.assert_array_equal(vec["val"].numpy(), 10.0 * ids)
        np.testing.assert_array_equal(vec["vec"].numpy(), [ids, -ids])
        lo, hi = vec.subdomain()
        assert all(in_box(p, lo, hi) for p in pos.T)
        # The figures of this map: the particles that left this rank.
        stats = vec.last_op_stats()
        assert stats.compute_seconds >= 0 and stats.exchange_seconds >= 0
        assert stats.particles_sent == np.sum(owner[mine] != vec.comm_rank)
        # How the messages went: none at one rank; host data between ranks of one node
        # through shared memory unless PVEC_SHM=0, else MPI; device data between ranks of one
        # node through CUDA IPC unless PVEC_IPC=0, else staged through the host.
        assert isinstance(stats.transport, pvec.Transport)
        if vec.comm_size == 1:
            assert stats.transport == pvec.Transport.NONE
        elif not on_device or vec.backend != "cuda":
            if os.environ.get("PVEC_SHM") == "0":
                assert stats.transport == pvec.Transport.MPI
            else:  # (MPI where the ranks are on several nodes)
                assert stats.transport in (pvec.Transport.SHARED_MEMORY, pvec.Transport.MPI)
        else:
            assert stats.transport in (pvec.Transport.CUDA_IPC, pvec.Transport.MPI_STAGED,
                                          pvec.Transport.MPI)


def test_map_wraps_periodic_coordinates():
    with make_vector(periodic=True) as vec:
        if vec.comm_rank == 0:
            vec.resize(2)
            vec.pos[...] = [[1.25, -0.25], [0.5, 0.75]]
            vec["id"] = [0, 1]
        else:
            vec.resize(0)
        vec.map()
        pos, ids = vec.pos.numpy(), local_ids(vec)
        for k, i in enumerate(ids):
            want = [[0.25, 0.5], [0.75, 0.75]][i]
            np.testing.assert_allclose(pos[:, k], want, atol=1e-12)


def test_map_outside_non_periodic_fails_untouched_or_removes():
    with make_vector(periodic=False) as vec:
        vec.resize(3)
        vec.pos[...] = [[0.5, 1.5, np.nan], [0.5, 0.5, 0.5]]
        vec["id"] = [0, 1, 2]
        gen, before = vec.generation, vec.pos.numpy().copy()
        with pytest.raises(pvec.Error) as e:
            vec.map()
        assert e.value.status == pvec.Status.PARTICLES_OUTSIDE
        assert e.value.message
        assert vec.generation == gen and vec.size == 3
        np.testing.assert_array_equal(vec.pos.numpy(), before)
        removed = vec.map(remove_outside=True)
        assert removed == 2 * vec.comm_size  # a global count
        assert vec.comm_size > 1 or list(local_ids(vec)) == [0]


# ---- ghosts ------------------------------------------------------------------------------
@pytest.mark.parametrize("periodic", [True, False])
def test_ghost_get_matches_brute_force(periodic):
    x = global_particles(seed=3)
    with make_vector(periodic=periodic) as vec:
        fill_my_share(vec, x)
        vec.map()
        vec.ghost_get()
        n, g = vec.size, vec.ghost_size
        assert vec.host("id", ghosts=True).shape == (n + g,)
        owner = np.array([vec.owner_rank(p) for p in x])
        want = expected_ghosts(x, owner, vec.comm_rank, vec.subdomain(), periodic)
        ids = vec.host("id", ghosts=True).numpy()[n:]
        pos = vec.host("pos", ghosts=True).numpy()[:, n:]
        got = {(int(i), tuple(np.round(pos[:, k], 9))) for k, i in enumerate(ids)}
        assert len(got) == g  # no duplicates
        assert got == want
        # Properties travelled with the ghosts.
        np.testing.assert_array_equal(vec.host("val", ghosts=True).numpy()[n:], 10.0 * ids)
        np.testing.assert_array_equal(vec.host("vec", ghosts=True).numpy()[:, n:],
                                      [ids, -ids])
        if not periodic and vec.comm_size == 1:
            assert g == 0


def test_ghost_get_selected_props_and_plan_reuse():
    x = global_particles(seed=4)
    with make_vector() as vec:
        fill_my_share(vec, x)
        vec.map()
        vec.ghost_get(["id", "val"])
        n, g = vec.size, vec.ghost_size
        ids = vec.host("id", ghosts=True).numpy()[n:].copy()
        np.testing.assert_array_equal(vec.host("val", ghosts=True).numpy()[n:], 10.0 * ids)
        # New values for the owners; the same particles travel with the saved plan.
        vec["val"] = -1.0 * vec["id"].numpy()
        vec.ghost_get(["val"], reuse_plan=True, skip_positions=True)
        assert vec.ghost_size == g
        np.testing.assert_array_equal(vec.host("id", ghosts=True).numpy()[n:], ids)
        np.testing.assert_array_equal(vec.host("val", ghosts=True).numpy()[n:], -1.0 * ids)


@pytest.mark.parametrize("op,ghost_value,expect", [
    ("add", 1.0, lambda copies, base: base + copies),
    ("max", 5.0, lambda copies, base: np.where(copies > 0, np.maximum(base, 5.0), base)),
    ("min", -5.0, lambda copies, base: np.where(copies > 0, np.minimum(base, -5.0), base)),
    ("replace", 7.0, lambda copies, base: np.where(copies > 0, 7.0, base)),
])
def test_ghost_put_combines_into_owners(op, ghost_value, expect):
    x = global_particles(seed=5)
    with make_vector() as vec:
        fill_my_share(vec, x)
        vec.map()
        vec.ghost_get()
        boxes = all_subdomains(vec)
        owner = np.array([vec.owner_rank(p) for p in x])
        copies = np.zeros(N_GLOBAL)
        for r, box in enumerate(boxes):
            for i, _ in expected_ghosts(x, owner, r, box, True):
                copies[i] += 1
        n = vec.size
        ids = local_ids(vec)
        w = vec.host("w", ghosts=True).numpy()
        w[:n] = 0.5
        w[n:] = ghost_value
        vec.ghost_put(["w"], op=op)
        got = vec["w"].numpy()
        np.testing.assert_allclose(got, expect(copies[ids], np.full(n, 0.5)))
        # The ghosts keep their values.
        np.testing.assert_array_equal(vec.host("w", ghosts=True).numpy()[n:], ghost_value)


def test_ghost_put_without_ghost_get_is_invalid():
    with make_vector() as vec:
        with pytest.raises(pvec.Error) as e:
            vec.ghost_put(["w"])
        assert e.value.status == pvec.Status.INVALID_ARGUMENT
        with pytest.raises(pvec.Error) as e:
            vec.ghost_get(reuse_plan=True)
        assert e.value.status == pvec.Status.INVALID_ARGUMENT


# ---- split-phase ghost exchange (docs/overlap.md) ---------------------------------------
def twins(seed):
    """Two vectors with the same particles, mapped: one for the blocking calls, one for the
    split ones."""
    x = global_particles(seed=seed)
    a, b = make_vector(), make_vector()
    for vec in (a, b):
        fill_my_share(vec, x)
        vec.map()
    return a, b


def assert_same_rows(a, b):
    """Local and ghost rows of every property and the positions are equal."""
    assert (a.size, a.ghost_size) == (b.size, b.ghost_size)
    for prop in ("pos", "id", "val", "vec", "w"):
        np.testing.assert_array_equal(a.host(prop, ghosts=True).numpy(),
                                      b.host(prop, ghosts=True).numpy(), err_msg=prop)


def test_split_ghost_get_equals_blocking():
    a, b = twins(seed=6)
    with a, b:
        # A new plan, every property. w is 0 when the ghosts leave and changes after.
        a.ghost_get()
        a["w"] = 2.0 * a["val"].numpy()
        b.ghost_get_begin()
        assert b.ghost_size == 0  # the previous count until end
        b["w"] = 2.0 * b["val"].numpy()  # local rows are free meanwhile
        b.ghost_get_end()
        assert a.ghost_size > 0
        assert_same_rows(a, b)
        n = b.size
        np.testing.assert_array_equal(b.host("w", ghosts=True).numpy()[n:], 0.0)  # of begin
        # Listed properties with the plan replayed and the positions left out.
        for vec in (a, b):
            vec["val"] = -3.0 * vec["id"].numpy()
        a.ghost_get(["val", "w"], reuse_plan=True, skip_positions=True)
        b.ghost_get_begin(["val", "w"], reuse_plan=True, skip_positions=True)
        b.ghost_get_end()
        assert_same_rows(a, b)
        ids = b.host("id", ghosts=True).numpy()[n:]
        np.testing.assert_array_equal(b.host("val", ghosts=True).numpy()[n:], -3.0 * ids)
        np.testing.assert_array_equal(b.host("w", ghosts=True).numpy()[n:], 20.0 * ids)
        # Other vectors are independent: both in flight at once, ended in the other order.
        a.ghost_get_begin()
        b.ghost_get_begin()
        b.ghost_get_end()
        a.ghost_get_end()
        assert_same_rows(a, b)


@pytest.mark.parametrize("op", ["add", "min", "max", "replace"])
def test_split_ghost_put_equals_blocking(op):
    a, b = twins(seed=8)
    with a, b:
        for vec in (a, b):
            vec.ghost_get()
            n = vec.size
            w = vec.host("w", ghosts=True).numpy()
            w[:n] = 0.5
            w[n:] = 1.0 + np.arange(vec.ghost_size) % 5
        a.ghost_put(["w"], op=op)
        b.ghost_put_begin(["w"], op=op)
        b["val"] = 1.0  # another property's rows are free meanwhile
        b.ghost_put_end()
        a["val"] = 1.0
        assert_same_rows(a, b)
        # Every property (props=None), with the op as a ReduceOp.
        a.ghost_put(op=pvec.ReduceOp.MAX)
        b.ghost_put_begin(op=pvec.ReduceOp.MAX)
        b.ghost_put_end()
        assert_same_rows(a, b)


def test_split_phase_refuses_calls_in_flight_and_a_second_end():
    with make_vector() as vec:
        fill_my_share(vec, global_particles(seed=9))
        vec.map()
        with pytest.raises(pvec.Error) as e:
            vec.ghost_get_end()  # no begin
        assert e.value.status == pvec.Status.STATE
        vec.ghost_get_begin()
        size = vec.size
        for refused in (vec.map, vec.ghost_get, vec.ghost_get_begin, vec.ghost_put_begin,
                        vec.ghost_put_end, lambda: vec.resize(size + 1)):
            with pytest.raises(pvec.Error) as e:
                refused()
            assert e.value.status == pvec.Status.STATE
            assert e.value.message
        assert vec.size == size  # nothing changed; queries work
        vec.ghost_get_end()
        with pytest.raises(pvec.Error) as e:
            vec.ghost_get_end()  # a second end
        assert e.value.status == pvec.Status.STATE
        vec.ghost_put_begin(["w"])
        with pytest.raises(pvec.Error) as e:
            vec.map()
        assert e.value.status == pvec.Status.STATE
        with pytest.raises(pvec.Error) as e:
            vec.ghost_get_end()  # the other kind is in flight
        assert e.value.status == pvec.Status.STATE
        vec.ghost_put_end()
        with pytest.raises(pvec.Error) as e:
            vec.ghost_put_end()
        assert e.value.status == pvec.Status.STATE
        vec.map()  # nothing in flight: runs again


def test_map_and_ghost_get_make_views_stale():
    with make_vector() as vec:
        fill_my_share(vec, global_particles())
        view = vec["val"]
        vec.map()
        with pytest.raises(pvec.StaleViewError):
            view.numpy()
        view = vec["val"]
        vec.ghost_get()
        if vec.generation != view.generation:
            with pytest.raises(pvec.StaleViewError):
                view.numpy()
        else:  # ghosts fitted in the capacity: the view is valid (its shape excludes them)
            assert view.numpy().shape == (vec.size,)
