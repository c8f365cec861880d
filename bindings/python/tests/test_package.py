"""The package's structure: the modules of pvec/ import each other along a DAG (no cycle, not
even through an import inside a function), and no module is long without saying why.

The import graph is read from the source with ast, so it sees every import statement
wherever it is (module level, function bodies, try blocks), including the ones that never
run in a given test."""

import ast
import os

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = os.path.join(HERE, "..", "pvec")
MAX_LINES = 500


# Modules written at install time, absent from the source tree (imported where present).
GENERATED = {"_install_config": None}


def modules():
    """{module name: path} of pvec/*.py ("__init__" for the package itself), and the
    generated modules (path None: they import nothing)."""
    found = {f[:-3]: os.path.join(PACKAGE, f) for f in sorted(os.listdir(PACKAGE))
             if f.endswith(".py")}
    return dict(GENERATED, **found)


def imported_modules(source, known):
    """[(module, line)]: the package modules (names in `known`) that the Python source
    imports, wherever the import statement is."""
    tree = ast.parse(source)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level == 0:
                parts = (node.module or "").split(".")
                if parts[0] != "pvec":
                    continue
                rest = parts[1:]
            elif node.level == 1:
                rest = node.module.split(".") if node.module else []
            else:
                continue  # above the package
            if rest:
                if rest[0] in known:
                    out.append((rest[0], node.lineno))
                continue
            # `from . import x`: the module x, or a name of the package (__init__)
            for alias in node.names:
                out.append((alias.name if alias.name in known else "__init__", node.lineno))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "pvec":
                    out.append((parts[1] if len(parts) > 1 and parts[1] in known
                                else "__init__", node.lineno))
    return out


def import_graph():
    """{module: {imported module: first line}} of the package."""
    known = modules()
    graph = {}
    for name, path in known.items():
        edges = {}
        if path is None:
            graph[name] = edges
            continue
        with open(path) as f:
            source = f.read()
        for target, line in imported_modules(source, known):
            if target != name:
                edges.setdefault(target, line)
        graph[name] = edges
    return graph


def find_cycle(graph):
    """A list of modules [a, b, ..., a] forming a cycle, or None."""
    state = {}  # absent: unvisited, 1: on the stack, 2: done
    stack = []

    def visit(node):
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def describe(graph, cycle):
    return " -> ".join("%s (line %d)" % (a, graph[a][b]) for a, b in zip(cycle, cycle[1:])) + \
        " -> " + cycle[-1]


def test_the_import_graph_is_read():
    graph = import_graph()
    assert "capi" in graph["__init__"] and "_vector" in graph["__init__"]
    assert "_cdefs" in graph["capi"]
    assert set(graph["_cdefs"]) == set(), "the declarations import nothing of the package"


def test_the_import_graph_has_no_cycle():
    graph = import_graph()
    cycle = find_cycle(graph)
    assert cycle is None, "pvec modules import each other in a cycle: " + describe(graph, cycle)


def test_only_the_package_imports_the_package():
    """No module but __init__ imports the package itself (a cycle through __init__)."""
    graph = import_graph()
    offenders = ["%s (line %d)" % (name, edges["__init__"]) for name, edges in graph.items()
                 if "__init__" in edges and name != "__init__"]
    assert not offenders, "import pvec / from . import <name of __init__> in: " + \
        ", ".join(offenders)


def test_the_reader_sees_every_kind_of_import():
    source = """
import os
from . import a
from .b import x
from pvec.c import y
import pvec.d
from . import nothing_of_ours, e
from .. import f


def later():
    from .g import z  # a lazy import is an import all the same
    try:
        import pvec
    except ImportError:
        pass
"""
    known = {"a", "b", "c", "d", "e", "g", "__init__"}
    assert imported_modules(source, known) == [
        ("a", 3), ("b", 4), ("c", 5), ("d", 6), ("__init__", 7), ("e", 7), ("g", 12),
        ("__init__", 14)]


def test_the_cycle_finder_finds_cycles():
    assert find_cycle({"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b": 1}, "b": {}, "c": {"a": 1, "b": 2}}) is None
    graph = {"x": {"y": 3}, "y": {"x": 7}}
    assert describe(graph, find_cycle(graph)) == "x (line 3) -> y (line 7) -> x"


@pytest.mark.parametrize("name", sorted(n for n, p in modules().items() if p))
def test_long_modules_say_why(name):
    """A module over MAX_LINES lines says at the top, in one line, why it is long."""
    path = modules()[name]
    with open(path) as f:
        lines = f.read().splitlines()
    if len(lines) <= MAX_LINES:
        return
    head = ast.get_docstring(ast.parse("\n".join(lines))) or ""
    first = head.splitlines()[0] if head else ""
    assert "long" in first.lower(), (
        "%s.py has %d lines (over %d): split it along its concepts, or say in the first line "
        "of its docstring why it is long" % (name, len(lines), MAX_LINES))
