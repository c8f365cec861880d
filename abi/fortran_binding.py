#!/usr/bin/env python3
"""The Fortran binding (bindings/fortran/*.f90) against the ABI description.

    python3 abi/fortran_binding.py --check
        Read the binding's text (every .f90 file of bindings/fortran: the bind(C) interfaces,
        parameters and types are in pvec_capi.f90, which abi/gen_fortran.py generates) and
        name every difference from abi/pvec_abi.json: a function of pvec.h without a bind(C)
        interface, an interface with the wrong number of arguments or an argument passed the
        wrong way or with the wrong kind, a constant or enum value that is missing or has
        another value, a struct field missing, extra, out of order or of the wrong kind, and
        an entry defined in two files. (CTest: fortran_abi_interfaces.)

    python3 abi/fortran_binding.py --write-test test_abi_generated.f90 [--header pvec.h]
        Write a Fortran program that compares, for every entry of the description found in
        the binding, the size and offset of every struct field and the value of every
        constant with what C says (the query functions of the generated dumper,
        gen_abi_dump.py), and takes the address of every c_pvec_* interface. Entries missing
        from the binding are not referenced (the program still compiles) but reported as
        failures by name. (CTest: fortran_abi_generated.)

--f90 names the files or directories to read (default: bindings/fortran). The check reads the
Fortran text itself, independently of the generator, so that it also catches a generator that
goes wrong. Conventions of the binding that the check knows: the interface of pvec_<name> is
c_pvec_<name>, bound with bind(C, name='pvec_<name>'); enums and unsigned travel as
integer(c_int), uint64_t as integer(c_int64_t), handles and streams as type(c_ptr); a C
pointer argument is either type(c_ptr), value or a by-reference argument of the pointee's
kind. Standard library only.
"""

import argparse
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import extract_abi  # noqa: E402
import gen_abi_dump  # noqa: E402
import gen_fortran  # noqa: E402

DEFAULT_F90 = os.path.join(extract_abi.ROOT, "bindings", "fortran")

# C names the binding spells otherwise (Fortran ignores case, so the macro PVEC_VERSION_NUMBER
# would clash with the function pvec_version_number). The generator's table: a rename is a
# convention of the binding, not something the check could find out.
RENAMES = gen_fortran.RENAMES
# Fortran parameters named PVEC_* that are not names of pvec.h.
FORTRAN_ONLY = set()

SCALARS = {
    "int": ("integer", "c_int"),
    "unsigned": ("integer", "c_int"),
    "unsigned int": ("integer", "c_int"),
    "int32_t": ("integer", "c_int32_t"),
    "uint32_t": ("integer", "c_int32_t"),
    "int64_t": ("integer", "c_int64_t"),
    "uint64_t": ("integer", "c_int64_t"),
    "size_t": ("integer", "c_size_t"),
    "double": ("real", "c_double"),
    "float": ("real", "c_float"),
    "char": ("character", "c_char"),
}
# Kinds that are the same Fortran kind on every platform gfortran supports.
SAME_KIND = {"c_int32_t": "c_int", "c_int": "c_int"}


# ---- Reading the binding -------------------------------------------------------------------
def logical_lines(text):
    """Statements of free-form source: comments dropped, & continuations joined."""
    out, cur = [], ""
    for raw in text.split("\n"):
        line, quote = [], None
        for ch in raw:
            if quote:
                quote = None if ch == quote else quote
            elif ch in "'\"":
                quote = ch
            elif ch == "!":
                break
            line.append(ch)
        line = "".join(line).rstrip()
        s = line.strip()
        if cur:
            s = s[1:].strip() if s.startswith("&") else s
        if s.endswith("&"):
            cur += s[:-1] + " "
            continue
        s = cur + s
        cur = ""
        if s:
            out.append(s)
    return out


def split_entities(text):
    """'a, b(2) = 1, c' -> [('a', None), ('b', '2'), ('c', None)]."""
    out = []
    for part in extract_abi.split_top(text, ","):
        m = re.match(r"(\w+)\s*(?:\(([^)]*)\))?", part.strip())
        if m:
            out.append((m.group(1).lower(), m.group(2)))
    return out


DECL = re.compile(r"^(integer|real|type|character|logical)\s*\(\s*(?:kind\s*=\s*)?(\w+)\s*\)"
                  r"\s*((?:,[^:]*)?)::\s*(.*)$", re.I)


def parse_f90(text):
    lines = logical_lines(text)
    params, types, interfaces = {}, {}, {}
    i = 0
    in_interface = False
    while i < len(lines):
        s = lines[i]
        low = s.lower()
        if re.match(r"interface\s*$", low):
            in_interface = True
        elif re.match(r"end\s*interface", low):
            in_interface = False
        m = DECL.match(s)
        if m and "parameter" in m.group(3).lower() and not in_interface:
            for part in extract_abi.split_top(m.group(4), ","):
                pm = re.match(r"(\w+)\s*=\s*(.+)$", part.strip())
                if pm:
                    params[pm.group(1).lower()] = (m.group(2).lower(), pm.group(2).strip())
        m = re.match(r"type\s*,\s*bind\s*\(\s*c\s*\)[^:]*::\s*(\w+)", s, re.I)
        if m:
            fields = []
            i += 1
            while not re.match(r"end\s*type", lines[i], re.I):
                d = DECL.match(lines[i])
                if d:
                    for name, dims in split_entities(d.group(4)):
                        fields.append({"name": name, "base": d.group(1).lower(),
                                       "kind": d.group(2).lower(), "dims": dims})
                i += 1
            types[m.group(1).lower()] = fields
        m = re.match(r"(function|subroutine)\s+(\w+)\s*\(([^)]*)\)(.*)$", s, re.I)
        if m and in_interface:
            b = re.search(r"bind\s*\(\s*c\s*,\s*name\s*=\s*['\"](\w+)['\"]", m.group(4), re.I)
            r = re.search(r"result\s*\(\s*(\w+)\s*\)", m.group(4), re.I)
            args = [a.strip().lower() for a in m.group(3).split(",") if a.strip()]
            result = (r.group(1) if r else m.group(2)).lower() if m.group(1).lower() == \
                "function" else None
            decls = {}
            i += 1
            while not re.match(r"end\s*(function|subroutine)", lines[i], re.I):
                d = DECL.match(lines[i])
                if d:
                    attrs = d.group(3).lower()
                    for name, dims in split_entities(d.group(4)):
                        decls[name] = {"base": d.group(1).lower(), "kind": d.group(2).lower(),
                                       "value": bool(re.search(r"\bvalue\b", attrs)),
                                       "dims": dims}
                i += 1
            if b:
                interfaces[b.group(1)] = {"fname": m.group(2).lower(), "args": args,
                                          "decls": decls, "result": result}
        i += 1
    return {"params": params, "types": types, "interfaces": interfaces}


def f90_files(paths):
    """The .f90 files named, a directory standing for the .f90 files directly in it."""
    out = []
    for p in paths:
        if os.path.isdir(p):
            out += sorted(os.path.join(p, n) for n in os.listdir(p) if n.endswith(".f90"))
        else:
            out.append(p)
    return out


def parse_files(paths):
    """parse_f90 of every file, merged; an entry defined in two files is a problem."""
    merged = {"params": {}, "types": {}, "interfaces": {}, "problems": []}
    seen = {}
    for path in f90_files(paths):
        with open(path) as f:
            one = parse_f90(f.read())
        name = os.path.relpath(path, extract_abi.ROOT)
        for section, items in one.items():
            for key, value in items.items():
                if (section, key) in seen:
                    merged["problems"].append("%s %s: defined in %s and in %s" % (
                        section.rstrip("s"), key, seen[(section, key)], name))
                    continue
                seen[(section, key)] = name
                merged[section][key] = value
    return merged


# ---- Comparing ------------------------------------------------------------------------------
def spell(d):
    if d is None:
        return "nothing (a subroutine)"
    text = "%s(%s)" % (d["base"], d["kind"])
    if d.get("value"):
        text += ", value"
    if d.get("dims"):
        text += " (%s)" % d["dims"]
    return text


def c_kind(desc, ctype):
    """(base, kind) of a C type that is not a pointer."""
    t = re.sub(r"\bconst\s*", "", ctype).strip()
    if t in SCALARS:
        return SCALARS[t]
    if t in {e["name"] for e in desc["enums"]}:
        return ("integer", "c_int")
    if t in {h["name"] for h in desc["handles"]}:
        return ("type", "c_ptr")
    if t in {s["name"] for s in desc["structs"]}:
        return ("type", t)
    raise KeyError("no Fortran kind for C type %r (extend SCALARS in abi/fortran_binding.py)"
                   % ctype)


def same(a, b):
    return a[0] == b[0] and SAME_KIND.get(a[1], a[1]) == SAME_KIND.get(b[1], b[1])


def arg_ok(desc, ctype, d):
    """Whether the Fortran dummy d passes the C parameter type ctype; else what would."""
    t = re.sub(r"\bconst\s*", "", ctype).strip()
    if not t.endswith("*"):
        want = c_kind(desc, t)
        ok = d["value"] and same((d["base"], d["kind"]), want) and not d["dims"]
        return ok, "%s(%s), value" % want
    if d["value"]:
        return (d["base"], d["kind"]) == ("type", "c_ptr"), "type(c_ptr), value"
    inner = t[:-1]
    want = ("type", "c_ptr") if inner.endswith("*") or inner == "void" else c_kind(desc, inner)
    ok = same((d["base"], d["kind"]), want)
    return ok, "type(c_ptr), value or %s(%s) by reference" % want


def result_kind(desc, ctype):
    t = re.sub(r"\bconst\s*", "", ctype).strip()
    if t == "void":
        return None
    return ("type", "c_ptr") if t.endswith("*") else c_kind(desc, t)


def fortran_name(cname):
    return RENAMES.get(cname, cname).lower()


def check(desc, f90):
    problems = list(f90.get("problems", []))
    ifs = f90["interfaces"]
    for fn in desc["functions"]:
        name = fn["name"]
        if name not in ifs:
            problems.append("%s: in pvec.h, missing from bindings/fortran (no interface c_%s with "
                            "bind(C, name='%s'))" % (name, name, name))
            continue
        it = ifs[name]
        if it["fname"] != "c_" + name:
            problems.append("%s: bound as %s in bindings/fortran; the binding's name is c_%s" % (
                name, it["fname"], name))
        if len(it["args"]) != len(fn["params"]):
            problems.append("%s: %d parameters in pvec.h, %d in bindings/fortran" % (
                name, len(fn["params"]), len(it["args"])))
            continue
        for k, (p, a) in enumerate(zip(fn["params"], it["args"])):
            d = it["decls"].get(a)
            if d is None:
                problems.append("%s: argument %s has no declaration in bindings/fortran" % (
                    name, a))
                continue
            ok, want = arg_ok(desc, p["type"], d)
            if not ok:
                problems.append("%s: parameter %d (%s %s) is %s in bindings/fortran; wants %s" % (
                    name, k + 1, p["type"], p["name"], spell(d), want))
        want = result_kind(desc, fn["return"])
        have = it["decls"].get(it["result"]) if it["result"] else None
        if (want is None) != (have is None) or (want and not same(
                (have["base"], have["kind"]), want)):
            problems.append("%s: returns %s in pvec.h (%s), %s in bindings/fortran" % (
                name, fn["return"], "%s(%s)" % want if want else "a subroutine", spell(have)))
    for cname, it in ifs.items():
        if cname.startswith("pvec_") and cname not in {f["name"] for f in desc["functions"]}:
            problems.append("%s: bound in bindings/fortran (%s), not in pvec.h" % (
                cname, it["fname"]))

    # Constants and enum values.
    params = f90["params"]
    names = [(c["name"], c["value"]) for c in desc["constants"]]
    names += [(v["name"], v["value"]) for e in desc["enums"] for v in e["values"]]
    for cname, value in names:
        fname = fortran_name(cname)
        if fname not in params:
            problems.append("%s: in pvec.h, missing from bindings/fortran%s" % (
                cname, " (as %s)" % RENAMES[cname] if cname in RENAMES else ""))
            continue
        expr = params[fname][1]
        if value is not None and re.fullmatch(r"-?\d+(_\w+)?", expr) and \
                int(expr.split("_")[0]) != value:
            problems.append("%s: %d in pvec.h, %s in bindings/fortran" % (cname, value, expr))
    known = {fortran_name(n) for n, _ in names} | {n.lower() for n in FORTRAN_ONLY}
    for fname in params:
        if fname.startswith("pvec_") and fname not in known:
            problems.append("%s: a parameter of bindings/fortran, not in pvec.h" % fname.upper())

    # Structs.
    for s in desc["structs"]:
        fields = f90["types"].get(s["name"])
        if fields is None:
            problems.append("struct %s: in pvec.h, missing from bindings/fortran (no type, "
                            "bind(C) :: %s)" % (s["name"], s["name"]))
            continue
        ours = [f["name"] for f in fields]
        theirs = [f["name"] for f in s["fields"]]
        for n in theirs:
            if n not in ours:
                problems.append("%s.%s: in pvec.h, missing from bindings/fortran" % (s["name"], n))
        for n in ours:
            if n not in theirs:
                problems.append("%s.%s: in bindings/fortran, not in pvec.h" % (s["name"], n))
        if set(ours) == set(theirs) and ours != theirs:
            problems.append("%s: field order %s in pvec.h, %s in bindings/fortran" % (
                s["name"], theirs, ours))
        by_name = {f["name"]: f for f in fields}
        for f in s["fields"]:
            d = by_name.get(f["name"])
            if d is None:
                continue
            t = f["type"]
            want = ("type", "c_ptr") if t.endswith("*") else c_kind(desc, t)
            if not same((d["base"], d["kind"]), want):
                problems.append("%s.%s: %s in pvec.h wants %s(%s), bindings/fortran has %s" % (
                    s["name"], f["name"], t, want[0], want[1], spell(d)))
            if ("count" in f) != bool(d["dims"]):
                problems.append("%s.%s: %s in pvec.h, %s in bindings/fortran" % (
                    s["name"], f["name"], "an array[%s]" % ", ".join(f["array"])
                    if "count" in f else "a scalar",
                    "an array (%s)" % d["dims"] if d["dims"] else "a scalar"))
    for tname in f90["types"]:
        if tname.startswith("pvec_") and tname not in {s["name"] for s in desc["structs"]}:
            problems.append("struct %s: a bind(C) type of bindings/fortran, not in pvec.h" % tname)
    return problems


# ---- The generated test ---------------------------------------------------------------------
def write_test(desc, f90):
    params, types, ifs = f90["params"], f90["types"], f90["interfaces"]
    o = []
    w = o.append
    w("! Generated by abi/fortran_binding.py from abi/pvec_abi.json and bindings/fortran: do not "
      "edit.")
    w("! Sizes and offsets of every struct field and every constant, against the C compiler")
    w("! (the generated dumper, abi/gen_abi_dump.py), and an address for every interface.")
    w("program test_abi_generated")
    w("  use, intrinsic :: iso_c_binding")
    w("  use, intrinsic :: iso_fortran_env, only: error_unit")
    w("  use pvec")
    w("  implicit none")
    w("  interface")
    for fn, args in (("struct_size", "s"), ("struct_align", "s"), ("field_offset", "s, f"),
                     ("field_size", "s, f")):
        w("    function abi_%s(%s) result(r) bind(C, name='pvec_abi_%s')" % (fn, args, fn))
        w("      import :: c_int, c_int64_t")
        w("      integer(c_int), value :: %s" % args)
        w("      integer(c_int64_t) :: r")
        w("    end function")
    for fn in ("constant", "enumerator", "enum_size"):
        w("    function abi_%s(i, ok) result(r) bind(C, name='pvec_abi_%s')" % (fn, fn))
        w("      import :: c_int, c_int64_t")
        w("      integer(c_int), value :: i")
        w("      integer(c_int), intent(out) :: ok")
        w("      integer(c_int64_t) :: r")
        w("    end function")
    w("  end interface")
    w("  integer :: nfail = 0, ok")
    present = [(i, s) for i, s in enumerate(desc["structs"]) if s["name"] in types]
    for i, s in present:
        w("  type(%s), target :: s%d" % (s["name"], i))
    w("")
    for i, s in enumerate(desc["structs"]):
        if s["name"] not in types:
            w("  call fail('struct %s: in pvec.h, missing from bindings/fortran')" % s["name"])
            continue
        fnames = {f["name"] for f in types[s["name"]]}
        w("  ! %s" % s["name"])
        w("  call eq('sizeof(%s)', abi_struct_size(%d), int(c_sizeof(s%d), c_int64_t))" % (
            s["name"], i, i))
        for k, f in enumerate(s["fields"]):
            if f["name"] not in fnames:
                w("  call fail('%s.%s: in pvec.h, missing from bindings/fortran')" % (s["name"],
                                                                              f["name"]))
                continue
            w("  call field(%d, %d, '%s.%s', &" % (i, k, s["name"], f["name"]))
            w("             c_loc(s%d%%%s), c_loc(s%d), c_sizeof(s%d%%%s))" % (
                i, f["name"], i, i, f["name"]))
        w("  call eq('%s: fields past the last of the description', &" % s["name"])
        w("          abi_field_offset(%d, %d), -1_c_int64_t)" % (i, len(s["fields"])))
    w("")
    w("  ! Constants and enum values")
    tables = (("constant", [c["name"] for c in desc["constants"]]),
              ("enumerator", gen_abi_dump.enumerators(desc)))
    for table, names in tables:
        for k, cname in enumerate(names):
            fname = fortran_name(cname)
            if fname not in params:
                w("  call fail('%s: in pvec.h, missing from bindings/fortran')" % cname)
                continue
            w("  call eq('%s', abi_%s(%d, ok), &" % (cname, table, k))
            w("          int(%s, c_int64_t))" % RENAMES.get(cname, cname))
        w("  if (abi_%s(%d, ok) /= 0 .or. ok /= 0) call fail('C has more %ss than the "
          "description')" % (table, len(names), table))
    w("  ! Enums travel as integer(c_int)")
    for k, e in enumerate(x for x in desc["enums"] if x["typedef"]):
        w("  call eq('sizeof(%s)', abi_enum_size(%d, ok), int(c_sizeof(0_c_int), c_int64_t))"
          % (e["name"], k))
    w("")
    w("  ! Every function of pvec.h has an interface bound to the exported name")
    for fn in desc["functions"]:
        name = fn["name"]
        if name not in ifs:
            w("  call fail('%s: in pvec.h, missing from bindings/fortran')" % name)
        else:
            w("  if (.not. c_associated(c_funloc(%s))) &\n      call fail('%s: no address')" % (
                ifs[name]["fname"], name))
    w("")
    w("  if (nfail > 0) then")
    w("    write (error_unit, '(i0,a)') nfail, ' differences between bindings/fortran and pvec.h'")
    w("    error stop 1")
    w("  end if")
    w("  print '(a)', 'test_abi_generated: OK'")
    w("")
    w("contains")
    w("")
    w("  subroutine fail(msg)")
    w("    character(*), intent(in) :: msg")
    w("    write (error_unit, '(a)') 'ABI DIFFERENCE: '//msg")
    w("    nfail = nfail + 1")
    w("  end subroutine fail")
    w("")
    w("  subroutine eq(what, c, f)")
    w("    character(*), intent(in) :: what")
    w("    integer(c_int64_t), intent(in) :: c, f")
    w("    character(len=24) :: cs, fs")
    w("    if (c == f) return")
    w("    write (cs, '(i0)') c")
    w("    write (fs, '(i0)') f")
    w("    call fail(what//': '//trim(cs)//' in C, '//trim(fs)//' in bindings/fortran')")
    w("  end subroutine eq")
    w("")
    w("  subroutine field(s, f, name, p, base, size)")
    w("    integer, intent(in) :: s, f")
    w("    character(*), intent(in) :: name")
    w("    type(c_ptr), intent(in) :: p, base")
    w("    integer(c_size_t), intent(in) :: size")
    w("    call eq(name//': offset', abi_field_offset(s, f), &")
    w("            int(transfer(p, 0_c_intptr_t) - transfer(base, 0_c_intptr_t), c_int64_t))")
    w("    call eq(name//': size', abi_field_size(s, f), int(size, c_int64_t))")
    w("  end subroutine field")
    w("end program test_abi_generated")
    return "\n".join(o) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", default=extract_abi.DEFAULT_JSON)
    ap.add_argument("--header", help="with --write-test: fall back to it if the JSON is stale")
    ap.add_argument("--f90", nargs="+", default=[DEFAULT_F90],
                    help="files or directories of the binding (default: bindings/fortran)")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--write-test", metavar="OUT")
    args = ap.parse_args(argv)
    f90 = parse_files(args.f90)
    if args.write_test:
        desc = gen_abi_dump.load_for_build(args.json, args.header)
        with open(args.write_test, "w") as f:
            f.write(write_test(desc, f90))
        return 0
    desc = extract_abi.load(args.json)
    problems = check(desc, f90)
    if problems:
        print("bindings/fortran does not follow pvec.h (as abi/pvec_abi.json describes it):")
        for p in problems:
            print("  " + p)
        return 1
    print("bindings/fortran follows abi/pvec_abi.json: %d interfaces, %d parameters, %d "
          "structs" % (len(desc["functions"]), len(f90["params"]), len(desc["structs"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
