"""Output and restart through the binding (issue 20), with readers that know nothing of pvec:
VTK's own vtkXMLPPolyDataReader opens the .pvtp (count, array names, values) and h5py opens
the checkpoint (names, dtypes, shapes, attributes). Each is skipped with a message when its
module is missing (CI installs python3-vtk9 and python3-h5py). Run on one rank and on two.
"""

import os

import numpy as np
import pytest

import pvec

N_GLOBAL = 60
SCHEMA = [("id", np.int64), ("mass", np.float32), ("vel", np.float64, 3),
          ("stress", np.float64, (2, 3)), ("tag", np.uint32), ("count", np.int32),
          ("big", np.uint64)]


def make_vector(tmp_name):
    vec = pvec.Vector(dim=2, domain=(0.0, 1.0), periodic=(True, False), ghost=0.1,
                      backend="host", placement="local", schema=SCHEMA)
    r, p = vec.comm_rank, vec.comm_size
    mine = np.arange(N_GLOBAL)[np.arange(N_GLOBAL) % p == r]
    vec.resize(len(mine))
    rng = np.random.default_rng(3)
    x = rng.random((N_GLOBAL, 2)) * 0.99
    vec.pos[0][:] = x[mine, 0]
    vec.pos[1][:] = x[mine, 1]
    vec["id"][:] = mine
    vec["mass"][:] = mine * 0.5
    for c in range(3):
        vec["vel"][c][:] = mine + 100 * c
    for a in range(2):
        for b in range(3):
            vec["stress"][a, b][:] = mine * 10 + a * 3 + b
    vec["tag"][:] = mine + 7
    vec["count"][:] = -mine
    vec["big"][:] = mine.astype(np.uint64) + (1 << 40)
    vec.map()
    vec.ghost_get()
    return vec, x


def shared_dir(vec, name):
    # The same folder on every rank: the test's working directory and the rank count.
    d = os.path.abspath("io_py_%s_np%d" % (name, vec.comm_size))
    os.makedirs(d, exist_ok=True)
    return d


def test_vtk_reader_opens_the_series():
    vtk = pytest.importorskip("vtk", reason="python3-vtk9 not installed: VTK reader test skipped")
    from vtk.util.numpy_support import vtk_to_numpy

    vec, x = make_vector("vtk")
    d = shared_dir(vec, "vtk")
    prefix = os.path.join(d, "run")
    vec.write_vtk(prefix, step=0, time=0.0, rank_array=True)
    vec.write_vtk(prefix, step=5, time=0.25)
    reader = vtk.vtkXMLPPolyDataReader()
    reader.SetFileName(prefix + "_000005.pvtp")
    reader.Update()
    out = reader.GetOutput()
    assert out.GetNumberOfPoints() == N_GLOBAL  # ghosts not written
    assert out.GetNumberOfVerts() == N_GLOBAL
    pd = out.GetPointData()
    names = sorted(pd.GetArrayName(k) for k in range(pd.GetNumberOfArrays()))
    assert names == sorted(n for n, *_ in SCHEMA)
    ids = vtk_to_numpy(pd.GetArray("id"))
    assert sorted(ids.tolist()) == list(range(N_GLOBAL))
    assert pd.GetArray("id").GetDataType() == vtk.VTK_LONG_LONG or \
        pd.GetArray("id").GetDataType() == vtk.VTK_LONG
    pts = vtk_to_numpy(out.GetPoints().GetData())
    assert pts.shape == (N_GLOBAL, 3)
    np.testing.assert_array_equal(pts[:, :2], x[ids])
    assert np.all(pts[:, 2] == 0)
    np.testing.assert_array_equal(vtk_to_numpy(pd.GetArray("mass")),
                                  (ids * 0.5).astype(np.float32))
    vel = vtk_to_numpy(pd.GetArray("vel"))
    np.testing.assert_array_equal(vel, np.stack([ids, ids + 100, ids + 200], axis=1))
    stress = vtk_to_numpy(pd.GetArray("stress"))
    assert stress.shape == (N_GLOBAL, 6)
    np.testing.assert_array_equal(stress[:, 4], ids * 10 + 1 * 3 + 1)  # entry (1,1) at 1*3+1
    np.testing.assert_array_equal(vtk_to_numpy(pd.GetArray("count")), -ids)
    np.testing.assert_array_equal(vtk_to_numpy(pd.GetArray("big")),
                                  ids.astype(np.uint64) + (1 << 40))
    # The first step carries the rank array; the series lists both steps in order.
    reader0 = vtk.vtkXMLPPolyDataReader()
    reader0.SetFileName(prefix + "_000000.pvtp")
    reader0.Update()
    ranks = vtk_to_numpy(reader0.GetOutput().GetPointData().GetArray("rank"))
    assert set(ranks.tolist()) <= set(range(vec.comm_size))
    series = vtk.vtkPVDReader() if hasattr(vtk, "vtkPVDReader") else None
    text = open(prefix + ".pvd").read()
    assert text.index("run_000000.pvtp") < text.index("run_000005.pvtp")
    del series
    vec.destroy()


def test_libpvec_hdf5_stays_out_of_the_global_scope():
    """libpvec's HDF5 must not bind another HDF5's users: a pip h5py bundles its own, and with
    libpvec's in the global scope its first call failed ("Not a datatype"). Its MPI must be
    global (Open MPI's components look libmpi's symbols up there)."""
    import ctypes
    pvec.capi.lib()
    everything = ctypes.CDLL(None)
    maps = open("/proc/self/maps").read()
    if pvec.has_hdf5():
        assert not hasattr(everything, "H5Tcopy"), "libpvec's HDF5 was loaded into the global scope"
    if "/libmpi.so" in maps:
        assert hasattr(everything, "MPI_Init"), "libpvec's MPI is not in the global scope"


def test_checkpoint_h5py_and_restart():
    if not pvec.has_hdf5():
        pytest.skip("libpvec built without parallel HDF5: checkpoint test skipped")
    vec, x = make_vector("h5")
    d = shared_dir(vec, "h5")
    path = os.path.join(d, "ckpt.h5")
    vec.checkpoint(path, step=7, time=1.25,
                   metadata={"run": "py", "dt": 0.01, "g": (0.0, -9.81), "one": np.array([3.0])})
    info = pvec.checkpoint_info(path)
    assert isinstance(info, pvec.CheckpointInfo)
    assert info.step == 7 and info.time == 1.25 and info.dim == 2
    assert info.periodic == (True, False)
    assert info.metadata == {"dt": 0.01, "g": [0.0, -9.81], "one": [3.0], "run": "py"}
    assert list(info.metadata) == ["dt", "g", "one", "run"]
    assert [(p.name, p.dtype, p.shape) for p in info.properties] == [
        (s[0], np.dtype(s[1]), () if len(s) == 2 else
         ((s[2],) if isinstance(s[2], int) else tuple(s[2]))) for s in SCHEMA]
    r = pvec.restart(path, backend="host")
    assert r.comm_size == vec.comm_size
    ids = np.array(r["id"][:])
    np.testing.assert_array_equal(np.array(r["vel"][1][:]), ids + 100)
    np.testing.assert_array_equal(np.array(r.pos[0][:]), x[ids, 0])
    np.testing.assert_array_equal(np.array(r["big"][:]), ids.astype(np.uint64) + (1 << 40))
    r.destroy()
    vec.destroy()
    assert os.path.exists(os.path.join(d, "ckpt.xmf"))

    h5py = pytest.importorskip("h5py", reason="python3-h5py not installed: h5py test skipped")
    with h5py.File(path, "r") as f:
        assert f.attrs["format"] == "pvec-checkpoint"
        assert int(f.attrs["complete"]) == 1
        assert int(f.attrs["n_global"]) == N_GLOBAL
        assert list(f.attrs["domain_hi"]) == [1.0, 1.0]
        assert list(f.attrs["boundary"]) == [1, 0]
        assert [s for s in f.attrs["property_names"]] == [n for n, *_ in SCHEMA]
        assert f["positions"].shape == (N_GLOBAL, 2)
        assert f["positions"].dtype == np.float64
        assert f["properties/mass"].dtype == np.float32 and f["properties/mass"].shape == (N_GLOBAL,)
        assert f["properties/vel"].shape == (N_GLOBAL, 3)
        assert f["properties/stress"].shape == (N_GLOBAL, 2, 3)
        assert f["properties/tag"].dtype == np.uint32
        assert f["properties/big"].dtype == np.uint64
        assert f["rank_counts"][:].sum() == N_GLOBAL
        assert f["metadata"].attrs["run"] == "py"
        assert f["metadata"].attrs["dt"] == 0.01
        assert list(f["metadata"].attrs["g"]) == [0.0, -9.81]
        ids = f["properties/id"][:]
        np.testing.assert_array_equal(f["properties/stress"][:, 1, 2], ids * 10 + 5)
        np.testing.assert_array_equal(f["positions"][:], x[ids])


def test_restart_errors_name_the_problem():
    if not pvec.has_hdf5():
        pytest.skip("libpvec built without parallel HDF5")
    with pytest.raises(pvec.Error) as e:
        pvec.restart("no_such_checkpoint.h5", backend="host")
    assert e.value.status == pvec.Status.IO
    assert "no_such_checkpoint.h5" in str(e.value)


def test_chosen_properties_are_written_and_restart_fills_the_rest():
    if not pvec.has_hdf5():
        pytest.skip("libpvec built without parallel HDF5")
    vec, x = make_vector("part")
    d = shared_dir(vec, "part")
    path = os.path.join(d, "part.h5")
    vec.checkpoint(path, step=1, props=["vel", "id"])
    info = pvec.checkpoint_info(path)
    assert [p.name for p in info.properties] == ["id", "vel"]  # declaration order
    with pytest.raises(pvec.Error) as e:
        pvec.restart(path, backend="host", schema=SCHEMA)
    assert e.value.status == pvec.Status.INVALID_ARGUMENT and "mass" in str(e.value)
    r = pvec.restart(path, backend="host", schema=SCHEMA, zero_missing=True)
    ids = np.array(r["id"][:])
    np.testing.assert_array_equal(np.array(r["vel"][2][:]), ids + 200)
    assert not np.array(r["mass"][:]).any() and not np.array(r["stress"][1, 2][:]).any()
    r.destroy()
    # Only "id" wanted from a file that has "vel" too.
    with pytest.raises(pvec.Error):
        pvec.restart(path, backend="host", schema=[("id", np.int64)])
    r = pvec.restart(path, backend="host", schema=[("id", np.int64)], skip_extra=True)
    assert r.prop_count == 1 and r.allreduce([float(r.size)])[0] == N_GLOBAL
    r.destroy()
    vec.checkpoint(path, props=[])  # the positions only
    assert pvec.checkpoint_info(path).properties == ()
    for bad in ({"k": [[1.0, 2.0]]}, {"k": []}, {"k": None}, {"k": True}, {1: 2.0},
                {"k": np.zeros(pvec.capi.METADATA_MAX_VALUES + 1)}):
        with pytest.raises(pvec.Error) as e:
            vec.checkpoint(path, metadata=bad)
        assert e.value.status == pvec.Status.INVALID_ARGUMENT
    with pytest.raises(pvec.Error) as e:
        vec.checkpoint(path, props=["vel", "vel"])
    assert e.value.status == pvec.Status.INVALID_ARGUMENT
    with pytest.raises(KeyError):
        vec.checkpoint(path, props=["no such"])
    vec.destroy()


def test_vtk_writes_the_chosen_properties():
    vec, x = make_vector("vtkpart")
    d = shared_dir(vec, "vtkpart")
    prefix = os.path.join(d, "few")
    vec.write_vtk(prefix, step=2, props=["mass"], rank_array=True)
    with open(prefix + "_000002.pvtp") as f:
        text = f.read()
    assert 'Name="mass"' in text and 'Name="rank"' in text and 'Name="vel"' not in text
    vec.write_vtk(prefix, step=3, props=[])
    with open(prefix + "_000003.pvtp") as f:
        assert "<PDataArray type=\"Float64\" Name=\"Points\"" in f.read()
    vec.destroy()
