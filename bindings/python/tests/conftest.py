"""Shared fixtures of the pvec Python tests.

Run by CTest with PYTHONPATH=bindings/python and PVEC_LIBRARY=<built libpvec>. When
PVEC_PYTEST_SKIP_EXIT is set, a session in which every test was skipped exits with that code
(CTest's SKIP_RETURN_CODE), so a GPU suite on a machine without a GPU shows as skipped.
"""

import os
import sys

import numpy as np
import pytest

import pvec

SEED_SCHEMA = [("scalar", np.float32), ("vector", np.float32, 2), ("tensor", np.float32, (2, 2))]


def make_seed_vector(backend="host", n=100, **kw):
    """The vector of the seed: 2D, float positions, periodic unit box, ghost 0.05, properties
    float, float[2], float[2][2]."""
    args = dict(dim=2, domain=(0.0, 1.0), periodic=True, ghost=0.05, n=n,
                pos_dtype=np.float32, schema=SEED_SCHEMA, backend=backend)
    args.update(kw)
    return pvec.Vector(**args)


@pytest.fixture
def seed_vec():
    vec = make_seed_vector()
    yield vec
    vec.destroy()


@pytest.fixture(scope="session", autouse=True)
def _started():
    pvec.init()
    yield


def world_size():
    """Ranks of the mpiexec job this process is part of (1 without mpiexec)."""
    for var in ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"):
        if var in os.environ:
            return int(os.environ[var])
    return 1


def pytest_runtest_logreport(report):
    # With several ranks, a rank that fails a test skips collective calls the others still
    # make, and the job would hang until the CTest timeout. Print the failure and leave with
    # a non-zero status instead: mpiexec then ends the whole job.
    if report.failed and world_size() > 1:
        rank = os.environ.get("OMPI_COMM_WORLD_RANK", os.environ.get("PMI_RANK", "?"))
        sys.stderr.write("\n[rank %s] FAILED %s (%s)\n%s\n" % (
            rank, report.nodeid, report.when, report.longreprtext))
        sys.stderr.flush()
        sys.stdout.flush()
        os._exit(1)


def pytest_sessionfinish(session, exitstatus):
    code = os.environ.get("PVEC_PYTEST_SKIP_EXIT")
    if not code or exitstatus != 0:
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None:
        return
    stats = reporter.stats
    ran = sum(len(stats.get(k, [])) for k in ("passed", "failed", "error", "xfailed",
                                              "xpassed"))
    if ran == 0 and len(stats.get("skipped", [])) > 0:
        session.exitstatus = int(code)
