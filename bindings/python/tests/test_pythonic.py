"""The Python conventions of issue 17: a Vector looks up properties like a pandas DataFrame
looks up columns (len counts particles, `in` and iteration go over the keys: "pos" then the
property names); failed lookups are KeyError / IndexError (and pvec.Error); negative indices
never silently mean the positions; errors name the Python method that was called and the
Python keyword to use; statistics are frozen dataclasses like Layout."""

import dataclasses

import numpy as np
import pytest

import pvec

from conftest import make_seed_vector


def test_in_and_iteration_go_over_the_keys(seed_vec):
    vec = seed_vec
    assert list(vec) == ["pos", "scalar", "vector", "tensor"]
    assert list(vec.keys()) == list(vec)
    assert "scalar" in vec and "pos" in vec
    assert "nope" not in vec and "" not in vec and "scalar\0x" not in vec
    assert 0 not in vec and None not in vec  # keys are names, as in a dict
    assert len(vec) == vec.size == 100  # particles, like len(DataFrame) counts rows
    items = dict(vec.items())
    assert list(items) == list(vec)
    assert items["vector"].shape == (2, 100)
    assert [v.name for v in vec.values()] == list(vec)
    assert vec.get("nope") is None and vec.get("scalar").name == "scalar"


def test_missing_names_raise_key_error(seed_vec):
    for call in (lambda: seed_vec["nope"], lambda: seed_vec.host("nope"),
                 lambda: seed_vec.layout("nope"), lambda: seed_vec.prop_index("nope")):
        with pytest.raises(KeyError) as e:
            call()
        assert isinstance(e.value, pvec.Error)
        assert e.value.status == pvec.Status.INVALID_ARGUMENT
        assert "nope" in str(e.value) and not str(e.value).startswith("'")
    with pytest.raises(KeyError):
        seed_vec["nope"] = 1.0


def test_indices_out_of_range_raise_index_error(seed_vec):
    for call in (lambda: seed_vec[3], lambda: seed_vec.host(7), lambda: seed_vec.layout(-2),
                 lambda: seed_vec.remove([100]), lambda: seed_vec.host_to_device([7])):
        with pytest.raises(IndexError) as e:
            call()
        assert isinstance(e.value, pvec.Error)
        assert e.value.status == pvec.Status.OUT_OF_RANGE


def test_negative_subscripts_never_mean_the_positions(seed_vec):
    assert seed_vec[0].name == "scalar"
    for k in (-1, -2, pvec.POS):
        with pytest.raises(IndexError) as e:
            seed_vec[k]
        assert isinstance(e.value, pvec.Error)
        assert "'pos'" in str(e.value)
    with pytest.raises(TypeError):
        seed_vec[1.5]
    # The methods take pvec.POS explicitly (documented), and "pos".
    assert seed_vec.host(pvec.POS).name == seed_vec["pos"].name == "pos"


def test_errors_name_the_python_method_and_keep_the_c_detail(seed_vec):
    with pytest.raises(pvec.Error) as e:
        seed_vec.host(7)
    assert e.value.function == "Vector.host"
    assert e.value.c_function == "pvec_vector_get_layout"
    assert str(e.value).startswith("Vector.host: pvec_vector_get_layout: property 7 out of range")
    assert "PVEC_POS" not in str(e.value) and "'pos'" in str(e.value)
    with pytest.raises(pvec.Error) as e:
        seed_vec.layout(5)
    assert e.value.function == "Vector.layout"
    with pytest.raises(pvec.Error) as e:
        seed_vec.reserve(-1)
    assert (e.value.function, e.value.c_function) == ("Vector.reserve", "pvec_vector_reserve")
    assert e.value.message.startswith("Vector.reserve: pvec_vector_reserve: ")
    with pytest.raises(pvec.Error) as e:
        seed_vec.host_ptr(9)
    assert e.value.function == "Vector.host_ptr"
    with pytest.raises(pvec.Error) as e:
        seed_vec["nope"]
    assert e.value.function == "Vector.__getitem__"
    view = seed_vec.host("scalar")
    seed_vec.reserve(10 * seed_vec.capacity)
    with pytest.raises(pvec.StaleViewError) as e:
        view.numpy()
    assert e.value.function == "PropertyView.numpy"
    assert str(e.value).count("numpy:") <= 1


def test_errors_name_python_keywords_not_c_flags():
    vec = make_seed_vector(periodic=False, n=10)
    try:
        vec.pos[0, 3] = 5.0  # outside the non-periodic box
        with pytest.raises(pvec.Error) as e:
            vec.map()
        assert e.value.status == pvec.Status.PARTICLES_OUTSIDE
        assert "remove_outside=True" in str(e.value)
        assert "PVEC_MAP_REMOVE_OUTSIDE" not in str(e.value)
        with pytest.raises(pvec.Error) as e:
            vec.ghost_get(skip_positions=True)
        assert "PVEC_" not in str(e.value), str(e.value)
        assert "skip_positions=True" in str(e.value) and "reuse_plan=True" in str(e.value)
        assert vec.map(remove_outside=True) == 1
    finally:
        vec.destroy()


def test_statistics_are_frozen_dataclasses_like_layout(seed_vec):
    for obj, cls in ((seed_vec.layout("scalar"), pvec.Layout),
                     (seed_vec.last_op_stats(), pvec.OpStats),
                     (pvec.memory_stats(), pvec.MemoryStats)):
        assert isinstance(obj, cls)
        assert dataclasses.is_dataclass(obj)
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(obj, dataclasses.fields(obj)[0].name, 0)
    stats = seed_vec.last_op_stats()
    assert stats.particles_sent == 0 and stats.transport == pvec.Transport.NONE
    mem = pvec.memory_stats()
    assert mem.live_bytes == mem.host_bytes + mem.pinned_bytes + mem.device_bytes > 0
    assert mem.host_allocs > 0
