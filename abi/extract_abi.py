#!/usr/bin/env python3
"""Machine-readable description of the C ABI of include/pvec.h (see abi/README.md).

    python3 abi/extract_abi.py --write        regenerate abi/pvec_abi.json from the header
    python3 abi/extract_abi.py --check        fail, naming each entry, if the JSON is stale
    python3 abi/extract_abi.py --check --dump build/abi/pvec_abi_dump
                                              also compare the values the JSON computed with
                                              those of the compiler (the generated C dumper)
    python3 abi/extract_abi.py                print the description of the header

The parser reads the comment-stripped header, follows its #if/#ifdef blocks as a C compiler
on Linux without MPI would, and understands exactly the declarations pvec.h uses:
object-like #defines, enums (typedef'd or anonymous), structs, opaque handle typedefs and
PVEC_API function prototypes. Anything else at file scope is an error, so that a new kind of
declaration is noticed instead of being skipped. Standard library only (python3.11).
"""

import argparse
import ast
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_HEADER = os.path.join(ROOT, "include", "pvec.h")
DEFAULT_JSON = os.path.join(HERE, "pvec_abi.json")
REGENERATE = "python3 abi/extract_abi.py --write"

# Macros that are part of the header's machinery, not of the ABI.
MACHINERY = {"PVEC_H", "PVEC_API"}
# What the header's #if conditions see: a GNU C compiler, not C++, no MPI, not Windows.
PREDEFINED = {"__GNUC__"}


class ParseError(Exception):
    pass


# ---- Text -----------------------------------------------------------------------------------
def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def preprocess(text):
    """(code without preprocessor lines, [(name, value)] of the object-like #defines seen)."""
    text = text.replace("\\\n", " ")
    defined = set(PREDEFINED)
    defines = []
    out = []
    stack = []  # (this branch active, some branch taken, parent active)

    def active():
        return all(s[0] for s in stack)

    def cond(expr):
        expr = re.sub(r"defined\s*\(\s*(\w+)\s*\)", lambda m: str(int(m.group(1) in defined)),
                      expr)
        expr = re.sub(r"defined\s+(\w+)", lambda m: str(int(m.group(1) in defined)), expr)
        expr = expr.replace("&&", " and ").replace("||", " or ")
        expr = re.sub(r"!(?!=)", " not ", expr)
        expr = re.sub(r"\b[A-Za-z_]\w*\b",
                      lambda m: m.group(0) if m.group(0) in ("and", "or", "not") else "0", expr)
        return bool(eval(expr, {"__builtins__": {}}))  # only 0/1 and/or/not remain

    for line in text.split("\n"):
        m = re.match(r"\s*#\s*(\w+)\s*(.*)$", line)
        if not m:
            if active():
                out.append(line)
            continue
        kw, rest = m.group(1), m.group(2).strip()
        if kw in ("ifdef", "ifndef"):
            on = (rest in defined) == (kw == "ifdef")
            stack.append([on, on])
        elif kw == "if":
            on = active() and cond(rest)
            stack.append([on, on])
        elif kw == "elif":
            on = not stack[-1][1] and cond(rest)
            stack[-1] = [on, stack[-1][1] or on]
        elif kw == "else":
            stack[-1] = [not stack[-1][1], True]
        elif kw == "endif":
            stack.pop()
        elif kw == "define" and active():
            d = re.match(r"(\w+)(\(?)\s*(.*)$", rest)
            name, func, value = d.group(1), d.group(2), d.group(3).strip()
            defined.add(name)
            if func:
                raise ParseError("function-like macro %s: not supported by the ABI description"
                                 % name)
            if name not in MACHINERY:
                defines.append((name, re.sub(r"\s+", " ", value)))
        elif kw in ("include", "error", "pragma", "undef"):
            pass
        elif active():
            raise ParseError("unknown preprocessor line: " + line.strip())
    if stack:
        raise ParseError("unbalanced #if/#endif")
    return "\n".join(out), defines


def split_top(text, sep=";"):
    """Split at sep outside braces and parentheses."""
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "{(":
            depth += 1
        elif ch in "})":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    tail = "".join(cur).strip()
    if tail:
        parts.append(tail)
    return [p for p in parts if p]


def norm_type(text):
    """'const  char *' -> 'const char*'."""
    text = re.sub(r"\s+", " ", text.strip())
    text = re.sub(r"\s*\*\s*", "*", text)
    return text


# ---- Values ---------------------------------------------------------------------------------
def evaluate(expr, names):
    """Integer value of a C constant expression of literals, names, + - * / << >> | & ~ and
    parentheses; None when it needs the compiler (sizeof, casts)."""
    if re.search(r"\bsizeof\b|[{}\"']", expr):
        return None
    py = re.sub(r"\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]*\b", r"\1", expr)

    def name(m):
        if m.group(0) not in names or names[m.group(0)] is None:
            raise KeyError(m.group(0))
        return "(%d)" % names[m.group(0)]

    try:
        py = re.sub(r"\b[A-Za-z_]\w*\b", name, py)
        tree = ast.parse(py.replace("/", "//"), mode="eval")
    except (KeyError, SyntaxError):
        return None
    allowed = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Constant, ast.operator,
               ast.unaryop)
    if not all(isinstance(n, allowed) for n in ast.walk(tree)):
        return None
    return int(eval(compile(tree, "<c>", "eval"), {"__builtins__": {}}))


# ---- Declarations ---------------------------------------------------------------------------
def parse_enum(body, names):
    values, nxt = [], 0
    for item in split_top(body, ","):
        m = re.match(r"(\w+)\s*(?:=\s*(.+))?$", item.strip(), re.S)
        if not m:
            raise ParseError("enumerator: " + item)
        expr = re.sub(r"\s+", " ", m.group(2).strip()) if m.group(2) else None
        value = nxt if expr is None else evaluate(expr, names)
        if value is None:
            raise ParseError("enumerator %s: cannot evaluate %r" % (m.group(1), expr))
        entry = {"name": m.group(1), "value": value}
        if expr is not None and expr != str(value):
            entry["expr"] = expr
        values.append(entry)
        names[m.group(1)] = value
        nxt = value + 1
    return values


def parse_decl(text, names):
    """'const char* name[N]' -> {"name", "type", ["array", "count"]}."""
    m = re.match(r"(.*?)\b(\w+)\s*((?:\[[^\]]*\]\s*)*)$", text.strip(), re.S)
    if not m or not m.group(1).strip():
        raise ParseError("declaration: " + text)
    out = {"name": m.group(2), "type": norm_type(m.group(1))}
    dims = re.findall(r"\[([^\]]*)\]", m.group(3))
    if dims:
        out["array"] = [d.strip() for d in dims]
        counts = [evaluate(d, names) for d in dims]
        if None in counts:
            raise ParseError("array size of %s: %s" % (out["name"], dims))
        total = 1
        for c in counts:
            total *= c
        out["count"] = total
    return out


def describe(header_text):
    code, defines = preprocess(strip_comments(header_text))
    code = re.sub(r"\bPVEC_API\b", "", code)
    names = {}
    desc = {"constants": [], "initializers": [], "enums": [], "handles": [], "structs": [],
            "functions": []}
    for name, value in defines:
        if value.startswith("{"):
            desc["initializers"].append({"name": name, "expr": value})
            continue
        v = evaluate(value, names)
        names[name] = v
        entry = {"name": name, "value": v}
        if value != str(v):
            entry["expr"] = value
        desc["constants"].append(entry)

    for stmt in split_top(code):
        s = re.sub(r"\s+", " ", stmt).strip()
        m = re.match(r"(typedef )?enum (\w+ )?\{(.*)\}\s*(\w*)$", s)
        if m:
            tag = (m.group(4) or (m.group(2) or "").strip()) or None
            values = parse_enum(m.group(3), names)
            if tag is None:
                tag = "enum " + values[0]["name"]  # anonymous: named by its first value
            desc["enums"].append({"name": tag, "typedef": bool(m.group(1) and m.group(4)),
                                  "values": values})
            continue
        m = re.match(r"typedef struct (\w+) \{(.*)\}\s*(\w+)$", s)
        if m:
            fields = [parse_decl(f, names) for f in split_top(m.group(2))]
            desc["structs"].append({"name": m.group(3), "fields": fields})
            continue
        m = re.match(r"typedef struct (\w+) ?\* ?(\w+)$", s)
        if m:
            desc["handles"].append({"name": m.group(2), "type": "struct %s*" % m.group(1)})
            continue
        m = re.match(r"(.+?)\b(pvec_\w+) ?\((.*)\)$", s)
        if m and not re.search(r"\b(static|inline|typedef)\b", m.group(1)):
            params = m.group(3).strip()
            plist = [] if params in ("", "void") else [parse_decl(p, names)
                                                       for p in split_top(params, ",")]
            desc["functions"].append({"name": m.group(2), "return": norm_type(m.group(1)),
                                      "params": plist})
            continue
        if s in ('extern "C" {', "}"):
            continue
        raise ParseError("unrecognised declaration at file scope: " + s[:120])
    return desc


# ---- JSON -----------------------------------------------------------------------------------
def dumps(desc):
    """One entry per line, so that a diff of the file shows which entries changed."""
    lines = ["{", ' "_comment": "The C ABI of include/pvec.h. Generated by abi/extract_abi.py;'
             ' do not edit. Regenerate: %s",' % REGENERATE]
    keys = list(desc)
    for i, key in enumerate(keys):
        lines.append(" %s: [" % json.dumps(key))
        items = desc[key]
        for j, item in enumerate(items):
            lines.append("  " + json.dumps(item) + ("," if j + 1 < len(items) else ""))
        lines.append(" ]" + ("," if i + 1 < len(keys) else ""))
    lines.append("}")
    return "\n".join(lines) + "\n"


def load(path):
    with open(path) as f:
        desc = json.load(f)
    desc.pop("_comment", None)
    return desc


def c_signature(f):
    params = ", ".join("%s %s" % (p["type"], p["name"]) for p in f["params"]) or "void"
    return "%s %s(%s)" % (f["return"], f["name"], params)


def entry_differences(kind, a, b, new_name, old_name):
    """What differs inside one entry: its fields, enumerators or parameters, by name."""
    name = a["name"]
    if kind == "function":
        head = "function %s: %d parameters in %s, %d in %s" % (
            name, len(a["params"]), new_name, len(b["params"]), old_name)
        if len(a["params"]) == len(b["params"]):
            head = "function %s: the signature differs" % name
        return ["%s\n    %s: %s\n    %s: %s" % (head, new_name, c_signature(a), old_name,
                                               c_signature(b))]
    sub = {"struct": "fields", "enum": "values"}.get(kind)
    out = []
    if sub:
        x = {e["name"]: e for e in a[sub]}
        y = {e["name"]: e for e in b[sub]}
        for n in x:
            if n not in y:
                out.append("%s %s: %s in %s, missing from %s" % (kind, name, n, new_name,
                                                                 old_name))
            elif x[n] != y[n]:
                out.append("%s %s: %s is %s in %s, %s in %s" % (
                    kind, name, n, json.dumps(x[n]), new_name, json.dumps(y[n]), old_name))
        for n in y:
            if n not in x:
                out.append("%s %s: %s in %s, not in %s" % (kind, name, n, old_name, new_name))
        if not out and list(x) != list(y):
            out.append("%s %s: the order of its %s differs" % (kind, name, sub))
        rest_a = {k: v for k, v in a.items() if k != sub}
        rest_b = {k: v for k, v in b.items() if k != sub}
        if rest_a == rest_b:
            return out
    return out + ["%s %s differs:\n    %s: %s\n    %s: %s" % (
        kind, name, new_name, json.dumps(a), old_name, json.dumps(b))]


def differences(new, old, new_name="pvec.h", old_name="abi/pvec_abi.json"):
    """Named differences between two descriptions ([] when equal)."""
    out = []
    for section in sorted(set(new) | set(old)):
        before = len(out)
        a = {e["name"]: e for e in new.get(section, [])}
        b = {e["name"]: e for e in old.get(section, [])}
        kind = section.rstrip("s")
        for name in a:
            if name not in b:
                out.append("%s %s: in %s, missing from %s" % (kind, name, new_name, old_name))
            elif a[name] != b[name]:
                out += entry_differences(kind, a[name], b[name], new_name, old_name)
        for name in b:
            if name not in a:
                out.append("%s %s: in %s, not in %s" % (kind, name, old_name, new_name))
        if len(out) == before and list(a) != list(b):
            out.append("%s: the order differs between %s and %s" % (section, new_name, old_name))
    return out


def dump_differences(desc, dump):
    """Values the description computed vs those the compiler gave the dumper."""
    out = []
    for c in desc["constants"]:
        got = dump["constants"].get(c["name"])
        if got is None:
            out.append("constant %s: missing from the dumper output" % c["name"])
        elif c["value"] is not None and got != c["value"]:
            out.append("constant %s: %s in abi/pvec_abi.json, %s from the C compiler" % (
                c["name"], c["value"], got))
    for e in desc["enums"]:
        for v in e["values"]:
            got = dump["enumerators"].get(v["name"])
            if got != v["value"]:
                out.append("enumerator %s: %s in abi/pvec_abi.json, %s from the C compiler" % (
                    v["name"], v["value"], got))
    for s in desc["structs"]:
        fields = dump["structs"].get(s["name"], {}).get("fields", {})
        if list(fields) != [f["name"] for f in s["fields"]]:
            out.append("struct %s: fields %s in abi/pvec_abi.json, %s in the dumper" % (
                s["name"], [f["name"] for f in s["fields"]], list(fields)))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--header", default=DEFAULT_HEADER)
    ap.add_argument("--json", default=DEFAULT_JSON)
    ap.add_argument("--write", action="store_true", help="write the JSON")
    ap.add_argument("--check", action="store_true", help="fail if the JSON is stale")
    ap.add_argument("--dump", help="with --check: the generated dumper to compare values with")
    args = ap.parse_args(argv)
    with open(args.header) as f:
        desc = describe(f.read())
    if args.write:
        with open(args.json, "w") as f:
            f.write(dumps(desc))
        print("wrote %s: %s" % (args.json, ", ".join(
            "%d %s" % (len(v), k) for k, v in desc.items())))
        return 0
    if not args.check:
        sys.stdout.write(dumps(desc))
        return 0
    problems = differences(desc, load(args.json))
    if args.dump:
        dump = json.loads(subprocess.check_output([args.dump]).decode())
        problems += dump_differences(load(args.json), dump)
    if problems:
        print("abi/pvec_abi.json does not describe %s:" % args.header)
        for p in problems:
            print("  " + p)
        print("If the header change is intended, regenerate with:\n  %s\nthen make the "
              "bindings follow (the python_binding and fortran_abi* tests name what differs)."
              % REGENERATE)
        return 1
    print("abi/pvec_abi.json describes %s: %s" % (os.path.relpath(args.header, ROOT), ", ".join(
        "%d %s" % (len(v), k) for k, v in desc.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
