"""Vector.reduce and Vector.allreduce (docs/reductions.md) against NumPy on the global particle
set. Run on one rank (python_reduce_np1) and two (python_reduce_np2).

Every rank generates the same global set (same seed) and inserts its share
(placement="local"), so every rank knows the expected result without communicating."""

import numpy as np
import pytest

import pvec

N_GLOBAL = 203
DTYPES = [np.float32, np.float64, np.int32, np.int64, np.uint32, np.uint64]
SHAPES = [(), (3,), (2, 2)]
WIDE = {"f": np.float64, "i": np.int64, "u": np.uint64}


def schema():
    return [("%s_%d" % (np.dtype(t).name, len(s)), t, s) for t in DTYPES for s in SHAPES]


def global_values(dtype, shape, seed):
    """(ncomp..., N_GLOBAL) values of a property over the global set."""
    rng = np.random.default_rng(seed)
    full = tuple(shape) + (N_GLOBAL,)
    kind = np.dtype(dtype).kind
    if kind == "f":
        return (rng.standard_normal(full) * 100).astype(dtype)
    if kind == "i":
        return rng.integers(-1000, 1000, full).astype(dtype)
    return rng.integers(0, 2000, full).astype(dtype)


@pytest.fixture(scope="module")
def filled():
    """A vector with every dtype and shape, this rank's share of the global set, and the
    global values {name: array}; ghosts present (they must not count)."""
    vec = pvec.Vector(dim=2, domain=(0.0, 1.0), periodic=True, ghost=0.1, backend="host",
                      placement="local", schema=schema())
    mine = np.flatnonzero(np.arange(N_GLOBAL) % vec.comm_size == vec.comm_rank)
    vec.resize(len(mine))
    pos = np.random.default_rng(0).random((2, N_GLOBAL))
    vec.pos[...] = pos[:, mine]
    values = {"pos": pos}
    for k, (name, dtype, shape) in enumerate(schema()):
        values[name] = global_values(dtype, shape, seed=k + 1)
        vec[name] = values[name][..., mine]
    vec.ghost_get()  # ghosts after the locals: reductions must leave them out
    assert vec.comm_size == 1 or vec.ghost_size > 0
    vec.host_to_device()
    yield vec, values
    vec.close()


def expected(values, op):
    wide = values.astype(WIDE[values.dtype.kind])
    return {"add": np.sum, "min": np.min, "max": np.max}[op](wide, axis=-1)


@pytest.mark.parametrize("on_device", [False, True], ids=["host", "device"])
@pytest.mark.parametrize("op", ["add", "min", "max"])
def test_reduce_every_dtype_and_shape(filled, op, on_device):
    vec, values = filled
    for name, dtype, shape in schema():
        got = vec.reduce(name, op, on_device=on_device)
        want = expected(values[name], op)
        kind = np.dtype(dtype).kind
        if shape == ():
            assert isinstance(got, np.generic) and np.ndim(got) == 0, (name, type(got))
        else:
            assert isinstance(got, np.ndarray) and got.shape == shape, (name, got)
        assert got.dtype == WIDE[kind], (name, got.dtype)
        if kind == "f" and op == "add":  # summed in double, in an order set by the ranks
            np.testing.assert_allclose(got, want, rtol=1e-12, err_msg=name)
        else:
            np.testing.assert_array_equal(got, want, err_msg=name)


def test_reduce_positions_and_indices(filled):
    vec, values = filled
    got = vec.reduce("pos", "max")
    assert got.shape == (2,) and got.dtype == np.float64
    np.testing.assert_array_equal(got, values["pos"].max(axis=1))
    np.testing.assert_array_equal(vec.reduce(pvec.POS, "min"), values["pos"].min(axis=1))
    name = schema()[4][0]
    np.testing.assert_array_equal(vec.reduce(4, pvec.ReduceOp.MAX),
                                  expected(values[name], "max"))


def test_reduce_changes_nothing(filled):
    vec, _ = filled
    gen, size, ghosts = vec.generation, vec.size, vec.ghost_size
    before = vec.host("float64_1", ghosts=True).numpy().copy()
    vec.reduce("float64_1", "add")
    vec.reduce("float64_1", "max", on_device=True)
    assert (vec.generation, vec.size, vec.ghost_size) == (gen, size, ghosts)
    np.testing.assert_array_equal(vec.host("float64_1", ghosts=True).numpy(), before)


def test_on_device_reads_the_device_mirror():
    with pvec.Vector(dim=2, n=30, backend="host", schema=[("e", np.float64)]) as vec:
        vec["e"] = 2.0
        vec.host_to_device("e")
        vec["e"] = 5.0  # the host mirror only
        n = vec.allreduce(vec.size)
        assert vec.reduce("e", "add", on_device=True) == 2.0 * n
        assert vec.reduce("e", "add") == 5.0 * n


def test_nan_is_never_lost():
    with pvec.Vector(dim=1, n=20, backend="host", schema=[("x", np.float32, 2)]) as vec:
        vec["x"] = 1.0
        if vec.comm_rank == 0 and vec.size > 0:
            vec["x"][0, 0] = np.nan
        nan_somewhere = bool(vec.allreduce(np.int32(vec.comm_rank == 0 and vec.size > 0),
                                           "max"))
        assert nan_somewhere
        for op in ("add", "min", "max"):
            got = vec.reduce("x", op)
            assert np.isnan(got[0]) and not np.isnan(got[1]), (op, got)


def test_empty_vector_gives_the_identities():
    sch = [("f", np.float32), ("i", np.int32), ("u", np.uint64)]
    with pvec.Vector(dim=2, n=0, backend="host", schema=sch) as vec:
        assert vec.reduce("f", "add") == 0.0
        assert vec.reduce("f", "min") == np.inf and vec.reduce("f", "max") == -np.inf
        assert vec.reduce("i", "add") == 0
        assert vec.reduce("i", "min") == np.iinfo(np.int64).max
        assert vec.reduce("i", "max") == np.iinfo(np.int64).min
        assert vec.reduce("u", "min") == np.iinfo(np.uint64).max
        assert vec.reduce("u", "max") == 0


def test_reduce_bad_input_raises_pvec_errors(filled):
    vec, _ = filled
    with pytest.raises(pvec.Error) as e:
        vec.reduce("float64_0", pvec.ReduceOp.REPLACE)
    assert e.value.status == pvec.Status.INVALID_ARGUMENT
    assert e.value.c_function == "pvec_vector_reduce"  # pvec's own message, in Python words
    assert str(e.value).startswith("Vector.reduce: pvec_vector_reduce: ")
    assert "'add', 'min' or 'max'" in str(e.value) and "PVEC_REDUCE" not in str(e.value)
    for op in ("sum", "replace", None, 1.5):
        with pytest.raises(pvec.Error) as e:
            vec.reduce("float64_0", op)
        assert e.value.status == pvec.Status.INVALID_ARGUMENT
        assert "'add', 'min', 'max'" in str(e.value), str(e.value)
    with pytest.raises(pvec.PropertyKeyError):
        vec.reduce("nope")
    with pytest.raises(pvec.OutOfRangeError) as e:
        vec.reduce(len(schema()))
    assert "out of range" in str(e.value)
    with pytest.raises(TypeError):
        vec.reduce(1.5)


# ---- allreduce ---------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_allreduce_in_place_every_dtype(filled, dtype):
    vec, _ = filled
    size, rank = vec.comm_size, vec.comm_rank
    base = np.arange(6, dtype=np.int64).reshape(2, 3)
    for op, want in [("add", base * size + size * (size - 1) // 2),
                     ("min", base), ("max", base + size - 1)]:
        values = (base + rank).astype(dtype)
        out = vec.allreduce(values, op)
        assert out is values  # in place
        assert values.dtype == dtype and values.shape == (2, 3)
        np.testing.assert_array_equal(values, want.astype(dtype))


def test_allreduce_other_inputs(filled):
    vec, _ = filled
    size, rank = vec.comm_size, vec.comm_rank
    total = size * (size - 1) // 2
    got = vec.allreduce([rank, 1.5])
    assert isinstance(got, np.ndarray) and got.dtype == np.float64
    np.testing.assert_array_equal(got, [total, 1.5 * size])
    got = vec.allreduce(rank, "max")
    assert isinstance(got, np.int64) and got == size - 1
    got = vec.allreduce(np.float32(rank + 0.5), "min")
    assert isinstance(got, np.float32) and got == 0.5
    zero_d = np.array(2.0)
    assert vec.allreduce(zero_d) is zero_d and zero_d == 2.0 * size
    empty = np.zeros(0, dtype=np.int32)
    assert vec.allreduce(empty) is empty
    # A strided array is combined in place, through a contiguous copy.
    big = np.arange(10, dtype=np.float64)
    view = big[::2]
    assert vec.allreduce(view, "add") is view
    np.testing.assert_array_equal(big[::2], np.arange(0, 10, 2) * size)
    np.testing.assert_array_equal(big[1::2], np.arange(1, 10, 2))
    nan = np.array([np.nan if rank == 0 else 1.0, 2.0])
    vec.allreduce(nan, "min")
    assert np.isnan(nan[0]) and nan[1] == 2.0


def test_allreduce_bad_input_leaves_values_unchanged(filled):
    vec, _ = filled
    values = np.arange(4, dtype=np.float64)
    with pytest.raises(pvec.Error) as e:
        vec.allreduce(values, pvec.ReduceOp.REPLACE)
    assert e.value.status == pvec.Status.INVALID_ARGUMENT
    assert e.value.c_function == "pvec_vector_allreduce"
    assert str(e.value).startswith("Vector.allreduce: pvec_vector_allreduce: ")
    np.testing.assert_array_equal(values, np.arange(4))
    with pytest.raises(pvec.Error) as e:
        vec.allreduce(values, "prod")
    assert e.value.status == pvec.Status.INVALID_ARGUMENT
    np.testing.assert_array_equal(values, np.arange(4))
    for bad in (np.ones(3, np.float16), np.ones(3, bool), np.ones(3, ">f8"),
                np.ones(3, np.complex128), np.array(["a"])):
        keep = bad.copy()
        with pytest.raises(pvec.Error) as e:
            vec.allreduce(bad)
        assert e.value.status == pvec.Status.INVALID_ARGUMENT
        assert "is not one of pvec's" in str(e.value), str(e.value)
        np.testing.assert_array_equal(bad, keep)
    frozen = np.arange(3.0)
    frozen.flags.writeable = False
    with pytest.raises(pvec.Error) as e:
        vec.allreduce(frozen)
    assert "read-only" in str(e.value) and str(e.value).startswith("Vector.allreduce: ")
    np.testing.assert_array_equal(frozen, np.arange(3.0))


# ---- ranks that disagree (two ranks or more) ---------------------------------------------
def needs_ranks(vec):
    if vec.comm_size < 2:
        pytest.skip("needs two ranks")


def test_ranks_reducing_different_properties_all_fail(filled):
    vec, values = filled
    needs_ranks(vec)
    prop = "float64_0" if vec.comm_rank == 0 else "float64_1"
    with pytest.raises(pvec.Error) as e:
        vec.reduce(prop, "add")
    assert e.value.status == pvec.Status.INVALID_ARGUMENT
    assert e.value.c_function == "pvec_vector_reduce"
    assert "did not all pass the same" in str(e.value)
    op = "min" if vec.comm_rank == 0 else "max"
    with pytest.raises(pvec.Error) as e:
        vec.reduce("int32_0", op)
    assert e.value.status == pvec.Status.INVALID_ARGUMENT
    # The vector still works, collectively.
    np.testing.assert_array_equal(vec.reduce("int32_0", "max"),
                                  expected(values["int32_0"], "max"))


def test_ranks_allreducing_different_things_all_fail(filled):
    vec, _ = filled
    needs_ranks(vec)
    rank = vec.comm_rank
    cases = [
        (np.ones(3 + rank), "add"),                                  # counts
        (np.ones(3, dtype=np.float64 if rank == 0 else np.int64), "add"),  # dtypes
        (np.ones(3), "min" if rank == 0 else "max"),                 # ops
    ]
    for values, op in cases:
        keep = values.copy()
        with pytest.raises(pvec.Error) as e:
            vec.allreduce(values, op)
        assert e.value.status == pvec.Status.INVALID_ARGUMENT
        assert e.value.c_function == "pvec_vector_allreduce"
        assert "did not all pass the same" in str(e.value)
        np.testing.assert_array_equal(values, keep)
    assert vec.allreduce(1) == vec.comm_size

