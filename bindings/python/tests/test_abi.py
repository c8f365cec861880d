"""The ctypes declarations match include/pvec.h: every function, enum value, constant and
struct field (offsets and sizes from a C program compiled against the header)."""

import ctypes
import json
import os
import re
import subprocess

import pytest

import pvec
from pvec import capi

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.environ.get("PVEC_SOURCE_DIR", os.path.join(HERE, "..", "..", ".."))
HEADER = os.path.join(SOURCE_DIR, "include", "pvec.h")


@pytest.fixture(scope="module")
def header():
    with open(HEADER) as f:
        text = f.read()
    # Drop comments so that prose cannot look like declarations.
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def header_functions(header):
    """{name: number of parameters} of every PVEC_API function."""
    out = {}
    for m in re.finditer(r"PVEC_API\s+[^;{]*?\b(pvec_\w+)\s*\(([^)]*)\)\s*;", header):
        params = m.group(2).strip()
        out[m.group(1)] = 0 if params in ("", "void") else params.count(",") + 1
    return out


def test_every_header_function_is_bound(header):
    funcs = header_functions(header)
    assert len(funcs) > 50, "header parse found too few functions"
    assert sorted(set(funcs) - set(capi.PROTOTYPES)) == []
    assert sorted(set(capi.PROTOTYPES) - set(funcs)) == []
    for name, count in funcs.items():
        assert len(capi.PROTOTYPES[name][1]) == count, name


def test_every_function_is_exported_by_the_library():
    api = capi.lib()
    assert api.missing == [], "libpvec lacks: %s" % api.missing
    for name in capi.PROTOTYPES:
        fn = getattr(api, name)
        assert fn.argtypes == capi.PROTOTYPES[name][1]


def enum_values(header, prefix):
    values = {}
    for m in re.finditer(r"\b(%s\w*)\s*=\s*([^,}\n]+)" % prefix, header):
        expr = m.group(2).strip().replace("u", "")
        values[m.group(1)] = eval(expr, {})  # "1 << 2" and plain ints only
    return values


@pytest.mark.parametrize("enum_cls,prefix", [
    (pvec.Status, "PVEC_SUCCESS|PVEC_ERROR_"),
    (pvec.DType, "PVEC_(?=FLOAT|INT|UINT)"),
    (pvec.Boundary, "PVEC_(?=NON_PERIODIC|PERIODIC)"),
    (pvec.Backend, "PVEC_BACKEND_"),
    (pvec.HostMemory, "PVEC_HOST_(?=PINNED|PAGEABLE)"),
    (pvec.Placement, "PVEC_PLACE_"),
    (pvec.ReduceOp, "PVEC_REDUCE_"),
    (pvec.Flags, "PVEC_(?=ON_DEVICE|MAP_|GHOST_)"),
    (pvec.Transport, "PVEC_TRANSPORT_"),
])
def test_enums_match_header(header, enum_cls, prefix):
    found = enum_values(header, "(?:%s)" % prefix)
    assert found, prefix
    # Flags.NONE is Python's empty set of flags, not a name of the header.
    ours = {m.name: m.value for m in enum_cls if not (enum_cls is pvec.Flags and m.name == "NONE")}
    theirs = {}
    for name, value in found.items():
        short = re.sub(r"^PVEC_(ERROR_|BACKEND_|PLACE_|REDUCE_|TRANSPORT_)?", "", name)
        if enum_cls is pvec.HostMemory:
            short = short.replace("HOST_", "")
        theirs[short] = value
    assert ours == theirs


def test_constants_match_header(header):
    def define(name):
        return int(re.search(r"#define\s+%s\s+\(?(-?\d+)\)?" % name, header).group(1))

    assert capi.VERSION_MAJOR == define("PVEC_VERSION_MAJOR")
    assert capi.VERSION_MINOR == define("PVEC_VERSION_MINOR")
    assert capi.VERSION_PATCH == define("PVEC_VERSION_PATCH")
    assert pvec.MAX_RANK == define("PVEC_MAX_RANK")
    assert pvec.MAX_NAME == define("PVEC_MAX_NAME")
    assert pvec.MAX_DIM == define("PVEC_MAX_DIM")
    assert pvec.POS == define("PVEC_POS")


def test_versions_agree():
    assert pvec.version_number() == capi.VERSION_NUMBER
    assert pvec.version() == "%d.%d.%d" % (capi.VERSION_MAJOR, capi.VERSION_MINOR,
                                            capi.VERSION_PATCH)
    assert pvec.__version__ == pvec.version()
    with open(os.path.join(HERE, "..", "pyproject.toml")) as f:
        assert re.search(r'^version\s*=\s*"%s"' % re.escape(pvec.__version__), f.read(), re.M)


@pytest.fixture(scope="module")
def abi_dump():
    exe = os.environ.get("PVEC_ABI_DUMP")
    if not exe:
        pytest.skip("PVEC_ABI_DUMP not set (run through CTest)")
    return json.loads(subprocess.check_output([exe]).decode())


@pytest.mark.parametrize("cname,cls", [("pvec_vector_desc", capi.VectorDesc),
                                       ("pvec_layout", capi.Layout),
                                       ("pvec_memory_stats", capi.MemoryStats),
                                       ("pvec_op_stats", capi.OpStats)])
def test_struct_layout_matches_c(abi_dump, cname, cls):
    ref = abi_dump[cname]
    assert ctypes.sizeof(cls) == ref["size"]
    ours = [name for name, _ in cls._fields_]
    assert ours == list(ref["fields"]), "field order"
    for name, (offset, size) in ref["fields"].items():
        field = getattr(cls, name)
        assert (field.offset, field.size) == (offset, size), name


def test_c_constants_from_compiler(abi_dump):
    c = abi_dump["constants"]
    assert c["PVEC_VERSION_NUMBER"] == capi.VERSION_NUMBER
    assert c["PVEC_POS"] == pvec.POS
    assert c["PVEC_MAX_DIM"] == pvec.MAX_DIM
    assert abi_dump["enum_sizes"]["pvec_status"] == ctypes.sizeof(ctypes.c_int)
