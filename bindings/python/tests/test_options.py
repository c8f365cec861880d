"""Run-time options from Python (docs/options.md): pvec.options(), pvec.options_text(),
pvec.set_option(). Runs on one rank (in python_binding) and on two (python_options_np2),
where an option set alike on every rank changes how a vector's messages travel. What needs a
fresh pvec (before pvec.init, the environment) runs in a subprocess."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import pvec

NAMES = ["PVEC_DEVICE", "PVEC_IPC", "PVEC_SHM", "PVEC_MPI_CUDA_AWARE", "PVEC_STAGED_TRANSFER",
         "PVEC_IO_PREAD"]


@pytest.fixture(autouse=True)
def restore_options():
    """Every test leaves the options as it found them (they are process-wide)."""
    before = pvec.options()
    yield
    for o in before:
        pvec.set_option(o.name, None if o.source == pvec.OptionSource.DEFAULT else o.value)


def by_name():
    return {o.name: o for o in pvec.options()}


def test_options_are_named_records():
    opts = pvec.options()
    assert isinstance(opts, list) and [o.name for o in opts] == NAMES
    for o in opts:
        assert isinstance(o, pvec.Option)
        assert set(vars(o)) == {"name", "accepts", "default", "meaning", "source", "value"}
        assert all(isinstance(getattr(o, f), str) and getattr(o, f)
                   for f in ("name", "accepts", "default", "meaning", "value"))
        assert isinstance(o.source, pvec.OptionSource)
        if o.source == pvec.OptionSource.DEFAULT:
            assert o.value == o.default, o
        with pytest.raises(Exception):
            o.value = "0"  # frozen
    ipc = by_name()["PVEC_IPC"]
    assert (ipc.accepts, ipc.default) == ("0 or 1", "1")
    assert by_name()["PVEC_STAGED_TRANSFER"].accepts == "auto, 0, 1 or 2"


def test_the_records_follow_the_environment():
    for o in pvec.options():
        env = os.environ.get(o.name, "")
        if o.source == pvec.OptionSource.ENVIRONMENT:
            assert env == o.value, o
        elif o.source == pvec.OptionSource.DEFAULT:
            assert env == ""


def test_set_option_and_back_to_the_default():
    pvec.set_option("PVEC_STAGED_TRANSFER", "2")
    o = by_name()["PVEC_STAGED_TRANSFER"]
    assert (o.value, o.source) == ("2", pvec.OptionSource.SET)
    pvec.set_option("PVEC_STAGED_TRANSFER", "auto")
    assert by_name()["PVEC_STAGED_TRANSFER"].value == "auto"
    pvec.set_option("PVEC_STAGED_TRANSFER", 1)  # an int
    assert by_name()["PVEC_STAGED_TRANSFER"].value == "1"
    pvec.set_option("PVEC_IO_PREAD", False)     # a bool: "0"
    assert by_name()["PVEC_IO_PREAD"].value == "0"
    pvec.set_option("PVEC_IO_PREAD", True)
    assert by_name()["PVEC_IO_PREAD"].value == "1"
    for reset in (None, ""):
        pvec.set_option("PVEC_STAGED_TRANSFER", "0")
        pvec.set_option("PVEC_STAGED_TRANSFER", reset)
        o = by_name()["PVEC_STAGED_TRANSFER"]
        assert (o.value, o.source) == ("auto", pvec.OptionSource.DEFAULT)


def test_options_text_says_what_is_in_use():
    pvec.set_option("PVEC_IO_PREAD", "0")
    text = pvec.options_text()
    lines = text.splitlines()
    assert [line.split("=")[0] for line in lines] == NAMES
    line = [line for line in lines if line.startswith("PVEC_IO_PREAD=")][0]
    assert line.startswith("PVEC_IO_PREAD=0 (set by pvec_options_set; default 1): "), line
    assert by_name()["PVEC_IO_PREAD"].meaning in line


@pytest.mark.parametrize("name,value,says", [
    ("PVEC_NOPE", "1", 'no option "PVEC_NOPE"; the options are PVEC_DEVICE, PVEC_IPC'),
    ("pvec_ipc", "1", 'no option "pvec_ipc"'),
    ("PVEC_IPC", "2", 'PVEC_IPC="2": expected 0 or 1'),
    ("PVEC_IPC", "yes", 'PVEC_IPC="yes": expected 0 or 1'),
    ("PVEC_IPC", -1, 'PVEC_IPC="-1": expected 0 or 1'),
    ("PVEC_IPC", 1.0, 'PVEC_IPC="1.0": expected 0 or 1'),
    ("PVEC_IPC", "auto", 'PVEC_IPC="auto": expected 0 or 1'),
    ("PVEC_STAGED_TRANSFER", " 1", "expected auto, 0, 1 or 2"),
    (None, "1", 'no option "(NULL)"'),
])
def test_bad_input_raises_pvec_message_and_changes_nothing(name, value, says):
    pvec.set_option("PVEC_IPC", "0")
    before = pvec.options()
    with pytest.raises(pvec.Error) as e:
        pvec.set_option(name, value)
    assert e.value.status == pvec.Status.INVALID_ARGUMENT
    assert e.value.c_function == "pvec_options_set"
    assert str(e.value).startswith("pvec.set_option: pvec_options_set: "), str(e.value)
    assert says in str(e.value), str(e.value)
    assert pvec.options() == before


def test_nul_characters_are_refused_before_c_would_cut_them():
    before = pvec.options()
    for name, value in [("PVEC_IPC\0junk", "0"), ("PVEC_IPC", "0\0")]:
        with pytest.raises(pvec.Error) as e:
            pvec.set_option(name, value)
        assert e.value.status == pvec.Status.INVALID_ARGUMENT
        assert str(e.value).startswith("pvec.set_option: ") and "NUL" in str(e.value)
    assert pvec.options() == before


def test_shm_set_on_every_rank_changes_the_transport():
    """PVEC_SHM is agreed when a vector is created: off, host messages between ranks go
    through MPI; back on, through shared memory (ranks on one node)."""
    def transport():
        with pvec.Vector(dim=2, n=200, backend="host", periodic=True, ghost=0.1) as vec:
            vec.pos[...] = np.random.default_rng(vec.comm_rank).random((2, vec.size))
            vec.map()
            return vec.comm_size, vec.last_op_stats().transport

    pvec.set_option("PVEC_SHM", "0")
    size, off = transport()
    pvec.set_option("PVEC_SHM", None)
    _, on = transport()
    if size == 1:
        assert off == on == pvec.Transport.NONE
    else:
        assert off == pvec.Transport.MPI
        assert on in (pvec.Transport.SHARED_MEMORY, pvec.Transport.MPI)  # MPI: several nodes


FRESH = textwrap.dedent("""
    import pvec
    assert not pvec.initialized()
    opts = {o.name: o for o in pvec.options()}
    # Before pvec.init the environment is not read yet: defaults.
    assert all(o.source == pvec.OptionSource.DEFAULT for o in opts.values()), opts
    pvec.set_option("PVEC_SHM", "0")  # set before init: wins over the environment
    pvec.init()
    opts = {o.name: o for o in pvec.options()}
    assert (opts["PVEC_SHM"].value, opts["PVEC_SHM"].source) == ("0", pvec.OptionSource.SET)
    assert (opts["PVEC_IPC"].value, opts["PVEC_IPC"].source) == (
        "0", pvec.OptionSource.ENVIRONMENT)
    assert (opts["PVEC_STAGED_TRANSFER"].value, opts["PVEC_STAGED_TRANSFER"].source) == (
        "auto", pvec.OptionSource.DEFAULT)
    assert "PVEC_IPC=0 (environment; default 1)" in pvec.options_text()
    pvec.finalize()
    # Local and callable at any time: also after finalize.
    assert len(pvec.options()) == 6
    print("script ok")
""")

MALFORMED = textwrap.dedent("""
    import pvec
    try:
        pvec.init()
    except pvec.Error as e:
        assert e.status == pvec.Status.INVALID_ARGUMENT, e
        assert 'PVEC_SHM="maybe": expected 0 or 1' in str(e), e
        assert str(e).startswith("pvec.init: pvec_init: "), e
    else:
        raise AssertionError("pvec.init accepted PVEC_SHM=maybe")
    assert not pvec.initialized()
    print("script ok")
""")


def run_fresh(code, **env):
    full = dict(os.environ)
    for name in NAMES:
        full.pop(name, None)
    full.update(env)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, env=full)
    assert proc.returncode == 0 and "script ok" in proc.stdout, (
        "return code %d\nstdout:\n%s\nstderr:\n%s" % (proc.returncode, proc.stdout,
                                                      proc.stderr))


def only_one_rank():
    # A subprocess of an mpiexec rank would start its own MPI job inside it.
    if any(v in os.environ for v in ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE")):
        pytest.skip("runs a fresh interpreter: not under mpiexec")


def test_before_init_and_from_the_environment():
    only_one_rank()
    run_fresh(FRESH, PVEC_IPC="0", PVEC_SHM="1")


def test_malformed_environment_fails_init_naming_it():
    only_one_rank()
    run_fresh(MALFORMED, PVEC_SHM="maybe")
