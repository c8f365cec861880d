"""Vector.imbalance and Vector.rebalance (docs/balance.md). Run on one rank (python_balance_np1)
and two (python_balance_np2)."""

import numpy as np
import pytest

import pvec


def test_imbalance_of_counts_and_weights():
    """Vector.imbalance against the counts and weight sums of every rank (allreduce gathers
    them); refusals for a negative weight (on every rank) and a property of another kind."""
    vec = pvec.Vector(dim=2, domain=(0.0, 1.0), backend="host", placement="local",
                      schema=[("w", np.float64), ("n", np.int32), ("v", np.float32, 3)])
    r, p = vec.comm_rank, vec.comm_size
    vec.resize(10 + 7 * r)
    vec["w"][:] = np.arange(vec.size) % 5
    counts = np.zeros(p)
    counts[r] = vec.size
    sums = np.zeros(p)
    sums[r] = np.asarray(vec["w"][:]).sum()
    counts, sums = vec.allreduce(counts), vec.allreduce(sums)
    c, w = vec.imbalance()
    assert c == w == counts.max() * p / counts.sum()
    c, w = vec.imbalance("w")
    assert c == counts.max() * p / counts.sum()
    assert w == sums.max() * p / sums.sum()
    if r == p - 1:
        vec["w"][0] = -1.0
    with pytest.raises(pvec.Error) as e:
        vec.imbalance("w")
    assert e.value.status == pvec.Status.INVALID_ARGUMENT and "rank %d" % (p - 1) in str(e.value)
    with pytest.raises(pvec.Error) as e:
        vec.imbalance("n")
    assert e.value.status == pvec.Status.DTYPE_MISMATCH
    with pytest.raises(pvec.Error) as e:
        vec.imbalance("v")
    assert e.value.status == pvec.Status.INVALID_ARGUMENT
    vec.destroy()


def test_rebalance_follows_the_particles():
    """Every particle in a corner: the rebalance splits them evenly, keeps every id, and each
    particle ends in its rank's subdomain; refusals for a bad threshold or weight."""
    vec = pvec.Vector(dim=2, domain=(0.0, 1.0), periodic=(True, False), ghost=0.05,
                      backend="host", placement="local", schema=[("id", np.int64),
                                                                 ("w", np.float64)])
    r, p = vec.comm_rank, vec.comm_size
    n = 500
    vec.resize(n)
    rng = np.random.default_rng(r)
    vec.pos[0][:] = rng.random(n) * 0.1
    vec.pos[1][:] = rng.random(n) * 0.1
    vec["id"][:] = np.arange(n) + r * n
    vec["w"][:] = 1.0
    vec.map()
    uneven = vec.imbalance()[0]
    before, after = vec.rebalance()
    assert before == uneven
    assert after == vec.imbalance()[0]
    if p > 1:
        assert before > 1.5 and after <= 1.05
    ids = np.asarray(vec["id"][:])
    total = vec.allreduce(np.array([ids.size, ids.sum()], dtype=np.int64))
    assert total[0] == n * p and total[1] == (n * p) * (n * p - 1) // 2
    lo, hi = vec.subdomain()
    x0, x1 = np.asarray(vec.pos[0][:]), np.asarray(vec.pos[1][:])
    assert ((x0 >= lo[0]) & (x0 < hi[0]) & (x1 >= lo[1]) & (x1 <= hi[1])).all()
    # Balanced now: a threshold above the imbalance changes nothing.
    assert vec.rebalance(threshold=2.0) == (after, after)
    for bad in (0.5, float("nan")):
        with pytest.raises(pvec.Error) as e:
            vec.rebalance(threshold=bad)
        assert e.value.status == pvec.Status.INVALID_ARGUMENT
    with pytest.raises(pvec.Error) as e:
        vec.rebalance(weight="id")
    assert e.value.status == pvec.Status.DTYPE_MISMATCH
    vec.destroy()


def test_follow_and_neighbours_in_another_vector():
    """walls.follow(fluid): the walls take the fluid's subdomains at its rebalance; a list of
    the fluid's wall neighbours (source=walls, key="id") equals a brute force over the walls
    of the rank's rows; a follower's own rebalance is refused (STATE)."""
    kw = dict(dim=2, domain=(0.0, 1.0), periodic=(True, False), ghost=0.15, backend="host",
              placement="local", schema=[("id", np.int64)])
    fluid, walls = pvec.Vector(**kw), pvec.Vector(**kw)
    r, p = fluid.comm_rank, fluid.comm_size
    rng = np.random.default_rng(11 + r)
    fluid.resize(400)
    fluid.pos[0][:] = rng.random(400) * 0.3
    fluid.pos[1][:] = rng.random(400)
    fluid["id"][:] = np.arange(400) + 400 * r
    walls.resize(200)
    walls.pos[...] = rng.random((2, 200))
    walls["id"][:] = np.arange(200) * p + r
    fluid.map()
    walls.follow(fluid)
    fluid.rebalance()
    assert fluid.subdomain() == walls.subdomain()
    assert all(fluid.allreduce(np.array([float(fluid.subdomain() == walls.subdomain())]),
                               op="min") == 1.0)
    with pytest.raises(pvec.Error) as e:
        walls.rebalance()
    assert e.value.status == pvec.Status.STATE
    walls.ghost_get(["id"])
    rc, skin = 0.1, 0.02
    with fluid.verlet_list(rc, skin, key="id", source=walls) as nl:
        off, nbr = nl.offsets, nl.neighbors
        xf = np.asarray(fluid.host("pos"))
        xw = np.asarray(walls.host("pos", ghosts=True))
        ids = np.asarray(walls.host("id", ghosts=True))
        for i in range(fluid.size):
            d = xw - xf[:, i:i + 1]
            want = np.flatnonzero(np.sum(d * d, axis=0) < (rc + skin) ** 2)
            got = nbr[off[i]:off[i + 1]]
            np.testing.assert_array_equal(np.sort(got), want)
            assert np.all(np.diff(ids[got]) > 0)
    walls.follow(None)
    walls.destroy()
    fluid.destroy()
