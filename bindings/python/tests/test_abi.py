"""The ctypes declarations of pvec/_cdefs.py match the C ABI: every function (arity and ctypes
types), enum value, constant and struct field (names, types, offsets and sizes).

The reference is the ABI description abi/pvec_abi.json (parsed from include/pvec.h; the test
abi_description keeps it current) and, for what only a compiler knows, the output of the C
dumper generated from it (PVEC_ABI_DUMP, built by abi/CMakeLists.txt). Every failure names
the entry that differs, e.g. "pvec_layout.foo: in pvec.h, missing from _cdefs.py".
"""

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
ABI_JSON = os.path.join(SOURCE_DIR, "abi", "pvec_abi.json")

# Where each enum of pvec.h lives in _cdefs.py, and the prefix its value names lose there
# (PVEC_ERROR_INVALID_HANDLE is Status.INVALID_HANDLE). An anonymous enum is named by its
# first value, as in the description.
ENUMS = {
    "pvec_status": (capi.Status, r"PVEC_(ERROR_)?"),
    "pvec_option_source": (capi.OptionSource, r"PVEC_OPTION_"),
    "pvec_dtype": (capi.DType, r"PVEC_"),
    "pvec_boundary": (capi.Boundary, r"PVEC_"),
    "pvec_backend": (capi.Backend, r"PVEC_BACKEND_"),
    "pvec_host_memory": (capi.HostMemory, r"PVEC_HOST_"),
    "pvec_placement": (capi.Placement, r"PVEC_PLACE_"),
    "enum PVEC_ON_DEVICE": (capi.Flags, r"PVEC_"),
    "pvec_reduce_op": (capi.ReduceOp, r"PVEC_REDUCE_"),
    "pvec_transport": (capi.Transport, r"PVEC_TRANSPORT_"),
    "enum PVEC_CELLS_GHOSTS": (capi.NeighborFlags, r"PVEC_"),
    "pvec_metadata_kind": (capi.MetadataKind, r"PVEC_METADATA_"),
    "enum PVEC_RESTART_ZERO_MISSING": (capi.RestartFlags, r"PVEC_RESTART_"),
    "enum PVEC_REMOVE_FILL_HOLES": (capi.PopulationFlags, r"PVEC_"),
    "enum PVEC_ROWS_LOCAL": (capi.RowFlags, r"PVEC_ROWS_"),
    "enum PVEC_MIRROR_HOST_LOCAL": (capi.Mirror, r"PVEC_MIRROR_"),
}
# Members of the Python enums that are not values of the header.
PYTHON_ONLY_MEMBERS = {capi.Flags: {"NONE"},  # Python's empty set of flags
                       capi.NeighborFlags: {"NONE"}, capi.RestartFlags: {"NONE"},
                       capi.PopulationFlags: {"NONE"}, capi.RowFlags: {"NONE"}}

STRUCTS = {
    "pvec_option_info": capi.OptionInfo,
    "pvec_vector_desc": capi.VectorDesc,
    "pvec_spawner": capi.Spawner,
    "pvec_layout": capi.Layout,
    "pvec_memory_stats": capi.MemoryStats,
    "pvec_op_stats": capi.OpStats,
    "pvec_cell_list_info": capi.CellListInfo,
    "pvec_verlet_info": capi.VerletInfo,
    "pvec_verlet_options": capi.VerletOptions,
}

# C scalar types of pvec.h -> (ctypes type, how _cdefs.py may spell it).
CTYPES = {
    "int": (ctypes.c_int, "ctypes.c_int"),
    "unsigned": (ctypes.c_uint, "ctypes.c_uint"),
    "unsigned int": (ctypes.c_uint, "ctypes.c_uint"),
    "unsigned long long": (ctypes.c_ulonglong, "ctypes.c_ulonglong"),
    "int32_t": (ctypes.c_int32, "ctypes.c_int32"),
    "uint32_t": (ctypes.c_uint32, "ctypes.c_uint32"),
    "int64_t": (ctypes.c_int64, "ctypes.c_int64"),
    "uint64_t": (ctypes.c_uint64, "ctypes.c_uint64"),
    "size_t": (ctypes.c_size_t, "ctypes.c_size_t"),
    "double": (ctypes.c_double, "ctypes.c_double"),
    "float": (ctypes.c_float, "ctypes.c_float"),
    "char*": (ctypes.c_char_p, "ctypes.c_char_p"),
    "void*": (ctypes.c_void_p, "ctypes.c_void_p"),
}


@pytest.fixture(scope="module")
def abi():
    with open(ABI_JSON) as f:
        return json.load(f)


@pytest.fixture(scope="module")
def abi_dump():
    exe = os.environ.get("PVEC_ABI_DUMP")
    if not exe:
        pytest.skip("PVEC_ABI_DUMP not set (run through CTest)")
    return json.loads(subprocess.check_output([exe]).decode())


def expected_ctype(abi, ctype):
    """(ctypes type, spelling) that _cdefs.py must use for the C type (const ignored)."""
    t = re.sub(r"\bconst\s*", "", ctype).strip()
    if t in CTYPES:
        return CTYPES[t]
    if t in STRUCTS:
        return STRUCTS[t], STRUCTS[t].__name__
    if t in {e["name"] for e in abi["enums"] if e["typedef"]}:
        return ctypes.c_int, "ctypes.c_int"  # enums are int-sized (checked against C below)
    if t in {h["name"] for h in abi["handles"]}:
        return ctypes.c_void_p, "ctypes.c_void_p"
    if t.endswith("*"):
        inner, spelled = expected_ctype(abi, t[:-1])
        return ctypes.POINTER(inner), "ctypes.POINTER(%s)" % spelled
    raise KeyError("no ctypes type for the C type %r (extend CTYPES in test_abi.py)" % ctype)


def spelled(t):
    if isinstance(t, type) and issubclass(t, ctypes._Pointer):
        return "POINTER(%s)" % spelled(t._type_)
    if isinstance(t, type) and issubclass(t, ctypes.Array):
        return "%s * %d" % (spelled(t._type_), t._length_)
    return getattr(t, "__name__", repr(t))


def same_ctype(a, b):
    if isinstance(a, type) and issubclass(a, ctypes.Array):
        return (isinstance(b, type) and issubclass(b, ctypes.Array)
                and a._length_ == b._length_ and same_ctype(a._type_, b._type_))
    if isinstance(a, type) and issubclass(a, ctypes._Pointer):
        return (isinstance(b, type) and issubclass(b, ctypes._Pointer)
                and same_ctype(a._type_, b._type_))
    return a is b


def report(problems):
    if problems:
        pytest.fail("_cdefs.py does not follow pvec.h:\n  " + "\n  ".join(problems),
                    pytrace=False)


# ---- Functions ----------------------------------------------------------------------------
def test_every_header_function_is_bound(abi):
    funcs = {f["name"]: f for f in abi["functions"]}
    assert len(funcs) > 50, "the ABI description has too few functions"
    problems = []
    for name, f in funcs.items():
        if name not in capi.PROTOTYPES:
            ret = expected_ctype(abi, f["return"])[1]
            args = ", ".join(expected_ctype(abi, p["type"])[1] for p in f["params"])
            problems.append("%s: in pvec.h, missing from _cdefs.py PROTOTYPES (e.g. \"%s\": "
                            "(%s, [%s]),)" % (name, name, ret, args))
            continue
        restype, argtypes = capi.PROTOTYPES[name]
        if len(argtypes) != len(f["params"]):
            problems.append("%s: %d parameters in pvec.h, %d in _cdefs.py" % (
                name, len(f["params"]), len(argtypes)))
            continue
        want, text = expected_ctype(abi, f["return"])
        if not same_ctype(restype, want):
            problems.append("%s: returns %s in pvec.h (%s), %s in _cdefs.py" % (
                name, f["return"], text, spelled(restype)))
        for i, (p, have) in enumerate(zip(f["params"], argtypes)):
            want, text = expected_ctype(abi, p["type"])
            if not same_ctype(have, want):
                problems.append("%s: parameter %d (%s %s) wants %s, _cdefs.py has %s" % (
                    name, i + 1, p["type"], p["name"], text, spelled(have)))
    for name in capi.PROTOTYPES:
        if name not in funcs:
            problems.append("%s: in _cdefs.py PROTOTYPES, not in pvec.h" % name)
    report(problems)


def test_every_function_is_exported_by_the_library():
    api = capi.lib()
    assert api.missing == [], "libpvec lacks: %s" % api.missing
    for name in capi.PROTOTYPES:
        fn = getattr(api, name)
        assert fn.argtypes == capi.PROTOTYPES[name][1]


# ---- Enums and constants ------------------------------------------------------------------
def test_enums_match_header(abi):
    problems = []
    for e in abi["enums"]:
        if e["name"] not in ENUMS:
            problems.append("enum %s: in pvec.h, missing from _cdefs.py (add an IntEnum and its "
                            "row in test_abi.ENUMS)" % e["name"])
            continue
        cls, prefix = ENUMS[e["name"]]
        theirs = {re.sub("^" + prefix, "", v["name"]): v for v in e["values"]}
        ours = {m.name: m.value for m in cls
                if m.name not in PYTHON_ONLY_MEMBERS.get(cls, set())}
        for short, v in theirs.items():
            if short not in ours:
                problems.append("%s: in pvec.h, missing from _cdefs.py (%s.%s)" % (
                    v["name"], cls.__name__, short))
            elif ours[short] != v["value"]:
                problems.append("%s: %d in pvec.h, %s.%s = %d in _cdefs.py" % (
                    v["name"], v["value"], cls.__name__, short, ours[short]))
        for short in ours:
            if short not in theirs:
                problems.append("%s.%s: in _cdefs.py, not in pvec.h's %s" % (
                    cls.__name__, short, e["name"]))
    report(problems)


def test_constants_match_header(abi, abi_dump):
    problems = []
    for c in abi["constants"]:
        short = re.sub(r"^PVEC_", "", c["name"])
        value = c["value"] if c["value"] is not None else abi_dump["constants"][c["name"]]
        if not hasattr(capi, short):
            problems.append("%s: in pvec.h, missing from _cdefs.py (%s)" % (c["name"], short))
        elif getattr(capi, short) != value:
            problems.append("%s: %d in pvec.h, %s = %r in _cdefs.py" % (
                c["name"], value, short, getattr(capi, short)))
    report(problems)
    # The package re-exports the limits under the same names.
    assert (pvec.MAX_RANK, pvec.MAX_NAME, pvec.MAX_DIM, pvec.POS) == (
        capi.MAX_RANK, capi.MAX_NAME, capi.MAX_DIM, capi.POS)


def test_c_constants_from_compiler(abi, abi_dump):
    """The values the compiler gives agree with the description and with _cdefs.py."""
    c = abi_dump["constants"]
    assert c["PVEC_VERSION_NUMBER"] == capi.VERSION_NUMBER
    assert c["PVEC_POS"] == pvec.POS
    assert c["PVEC_MAX_DIM"] == pvec.MAX_DIM
    problems = []
    for const in abi["constants"]:
        if const["value"] is not None and c.get(const["name"]) != const["value"]:
            problems.append("%s: %s in abi/pvec_abi.json, %s from the C compiler" % (
                const["name"], const["value"], c.get(const["name"])))
    for e in abi["enums"]:
        for v in e["values"]:
            if abi_dump["enumerators"].get(v["name"]) != v["value"]:
                problems.append("%s: %s in abi/pvec_abi.json, %s from the C compiler" % (
                    v["name"], v["value"], abi_dump["enumerators"].get(v["name"])))
    for name, size in abi_dump["enum_sizes"].items():
        if size != ctypes.sizeof(ctypes.c_int):
            problems.append("sizeof(%s) is %d in C; _cdefs.py passes it as ctypes.c_int (%d)" % (
                name, size, ctypes.sizeof(ctypes.c_int)))
    assert abi_dump["enum_sizes"]["pvec_status"] == ctypes.sizeof(ctypes.c_int)
    report(problems)


def test_versions_agree():
    assert pvec.version_number() == capi.VERSION_NUMBER
    assert pvec.version() == "%d.%d.%d" % (capi.VERSION_MAJOR, capi.VERSION_MINOR,
                                            capi.VERSION_PATCH)
    assert pvec.__version__ == pvec.version()
    with open(os.path.join(HERE, "..", "pyproject.toml")) as f:
        assert re.search(r'^version\s*=\s*"%s"' % re.escape(pvec.__version__), f.read(), re.M)


# ---- Structs ------------------------------------------------------------------------------
def test_every_struct_is_declared(abi):
    problems = ["struct %s: in pvec.h, missing from _cdefs.py (add a ctypes.Structure and its "
                "row in test_abi.STRUCTS)" % s["name"]
                for s in abi["structs"] if s["name"] not in STRUCTS]
    problems += ["struct %s: in _cdefs.py (test_abi.STRUCTS), not in pvec.h" % name
                 for name in STRUCTS if name not in {s["name"] for s in abi["structs"]}]
    report(problems)


@pytest.mark.parametrize("cname,cls", sorted(STRUCTS.items()))
def test_struct_layout_matches_c(abi, abi_dump, cname, cls):
    struct = {s["name"]: s for s in abi["structs"]}.get(cname)
    if struct is None:
        pytest.fail("struct %s: in _cdefs.py (%s), not in pvec.h" % (cname, cls.__name__))
    problems = []
    theirs = [f["name"] for f in struct["fields"]]
    ours = [name for name, _ in cls._fields_]
    for name in theirs:
        if name not in ours:
            problems.append("%s.%s: in pvec.h, missing from _cdefs.py (%s._fields_)" % (
                cname, name, cls.__name__))
    for name in ours:
        if name not in theirs:
            problems.append("%s.%s: in _cdefs.py (%s._fields_), not in pvec.h" % (
                cname, name, cls.__name__))
    if not problems and ours != theirs:
        problems.append("%s: field order %s in pvec.h, %s in _cdefs.py" % (cname, theirs, ours))
    types = dict(cls._fields_)
    for f in struct["fields"]:
        if f["name"] not in types:
            continue
        want, text = expected_ctype(abi, f["type"])
        if "count" in f:
            want, text = want * f["count"], "%s * %d" % (text, f["count"])
        if not same_ctype(types[f["name"]], want):
            problems.append("%s.%s: %s in pvec.h wants %s, _cdefs.py has %s" % (
                cname, f["name"], f["type"] + "".join("[%s]" % d for d in f.get("array", [])),
                text, spelled(types[f["name"]])))
    ref = abi_dump["structs"][cname]
    if ctypes.sizeof(cls) != ref["size"]:
        problems.append("sizeof(%s): %d in C, %d in _cdefs.py" % (cname, ref["size"],
                                                                ctypes.sizeof(cls)))
    if ctypes.alignment(cls) != ref["align"]:
        problems.append("alignment of %s: %d in C, %d in _cdefs.py" % (
            cname, ref["align"], ctypes.alignment(cls)))
    for name, (offset, size) in ref["fields"].items():
        if name not in types:
            continue
        field = getattr(cls, name)
        if (field.offset, field.size) != (offset, size):
            problems.append("%s.%s: offset %d size %d in C, offset %d size %d in _cdefs.py" % (
                cname, name, offset, size, field.offset, field.size))
    report(problems)
