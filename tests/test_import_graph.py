"""No import cycle among ragspine's modules, lazy function-level imports included.

import-linter's layer contract (pyproject.toml) keeps packages in order but says nothing inside a
package, and it cannot see a cycle hidden in a function body that runs only later. This test
reads every module under src/ragspine with ``ast``, takes each ``ragspine`` import wherever it
appears except under ``if TYPE_CHECKING:`` (never run), and fails naming the cycle's path.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
ROOT_PACKAGE = "ragspine"

Graph = dict[str, set[str]]


def module_name(path: Path, src: Path = SRC) -> str:
    parts = list(path.relative_to(src).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(nodes: Iterable[ast.AST]) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement in ``nodes``, skipping the bodies of ``if TYPE_CHECKING:``."""
    for node in nodes:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            yield from _import_nodes(node.orelse)
        else:
            yield from _import_nodes(ast.iter_child_nodes(node))


def _absolute(node: ast.ImportFrom, importer: str, is_package: bool) -> str:
    if node.level == 0:
        return node.module or ""
    base = importer.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def imported_modules(
    source: str, importer: str, known: set[str], *, is_package: bool = False
) -> set[str]:
    """The modules of ``known`` that ``source`` imports at run time.

    ``from pkg import name`` is an import of ``pkg.name`` when that is a module, else of ``pkg``.
    """
    found: set[str] = set()
    for node in _import_nodes([ast.parse(source)]):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
            continue
        target = _absolute(node, importer, is_package)
        for alias in node.names:
            submodule = f"{target}.{alias.name}"
            found.add(submodule if submodule in known else target)
    return {name for name in found if name in known and name != importer}


def build_graph(src: Path = SRC, package: str = ROOT_PACKAGE) -> Graph:
    paths = {module_name(p, src): p for p in sorted((src / package).rglob("*.py"))}
    known = set(paths)
    return {
        name: imported_modules(
            path.read_text(encoding="utf-8"), name, known, is_package=path.stem == "__init__"
        )
        for name, path in paths.items()
    }


def find_cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """One cycle per strongly connected group of modules, as a path ending where it began."""
    cycles: list[list[str]] = []
    done: set[str] = set()
    for start in sorted(graph):
        if start in done:
            continue
        stack: list[str] = []
        on_stack: set[str] = set()
        cycle = _first_cycle(graph, start, stack, on_stack, done)
        if cycle:
            cycles.append(cycle)
            # Report each tangle once: every module on this cycle is accounted for.
            done.update(cycle)
    return cycles


def _first_cycle(
    graph: Mapping[str, set[str]],
    node: str,
    stack: list[str],
    on_stack: set[str],
    done: set[str],
) -> list[str] | None:
    stack.append(node)
    on_stack.add(node)
    for target in sorted(graph.get(node, ())):
        if target in on_stack:
            return [*stack[stack.index(target) :], target]
        if target not in done:
            cycle = _first_cycle(graph, target, stack, on_stack, done)
            if cycle:
                return cycle
    stack.pop()
    on_stack.discard(node)
    done.add(node)
    return None


def test_the_package_has_no_import_cycle() -> None:
    cycles = find_cycles(build_graph())
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_the_graph_sees_the_package_and_its_imports() -> None:
    graph = build_graph()
    assert "ragspine.storage.chunks" in graph["ragspine.storage.ingest_store"]
    assert "ragspine.storage.chunks" in graph["ragspine.retrieval.chunking"]
    assert graph["ragspine.errors"] == set()


def test_function_level_imports_count_and_type_checking_ones_do_not() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "from pkg import a\n"
        "if TYPE_CHECKING:\n"
        "    from pkg import b\n"
        "else:\n"
        "    import pkg.c\n"
        "def later():\n"
        "    from pkg.d import thing\n"
        "    from . import e\n"
    )
    known = {"pkg", "pkg.a", "pkg.b", "pkg.c", "pkg.d", "pkg.e", "pkg.mod"}
    found = imported_modules(source, "pkg.mod", known)
    assert found == {"pkg.a", "pkg.c", "pkg.d", "pkg.e"}


def test_a_cycle_is_reported_as_its_path() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert find_cycles(graph) == [["a", "b", "c", "a"]]
    assert find_cycles({"x": {"y"}, "y": set()}) == []
