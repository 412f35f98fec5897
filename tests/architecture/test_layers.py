"""The house rules of the package graph, checked on the source itself.

Every import counts: at module top, inside functions and under TYPE_CHECKING. A unit is
a subpackage of `trialrun` (`trialrun.tools.vault` belongs to `tools`) or a top-level
module (`errors`, `config`, …); the package root is the public API.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
from collections import defaultdict
from pathlib import Path

import pytest

import trialrun

SRC = Path(trialrun.__file__).parent
ROOT = "trialrun"  # the package root: the public API, above every unit but the CLI

# lowest first; a unit may import units of lower layers only
LAYERS: list[set[str]] = [
    {"errors", "version", "lazy"},  # lazy: the PEP 562 names-on-first-use of a package
    {"config_keys"},  # the table of trialrun.toml keys: the loader and the reference read it
    {"config"},
    {"core"},
    {"rundir"},
    {"metrics"},
    {"models"},
    {"sandbox"},
    {"tools"},
    {"judge"},
    {"graders"},
    {"tasks"},
    {"agents"},
    {"tracking", "runner"},  # neither imports the other: early stop is a StopRule handed in
    {"analysis", "reports", "history", "benchmarks", "replay"},
    {"workflow"},  # a run with its stop rule and after-run steps; bless, compare, gate, report
    {ROOT},
    {"cli", "testing"},
    {"__main__"},
]
LAYER_OF = {unit: i for i, layer in enumerate(LAYERS) for unit in layer}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _unit(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ROOT


def _imports() -> list[tuple[str, str, list[str]]]:
    """(importing module, imported module, names) for every trialrun import in src."""
    out = []
    for path in sorted(SRC.rglob("*.py")):
        module = _module_name(path)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                if node.module.split(".")[0] == ROOT:
                    out.append((module, node.module, [a.name for a in node.names]))
            elif isinstance(node, ast.Import):
                out.extend(
                    (module, a.name, []) for a in node.names if a.name.split(".")[0] == ROOT
                )
    return out


IMPORTS = _imports()


def test_every_unit_has_a_layer() -> None:
    units = {_unit(_module_name(p)) for p in SRC.rglob("*.py")}
    assert units - set(LAYER_OF) == set(), "add new packages to LAYERS"


def test_imports_only_point_down_the_layers() -> None:
    wrong = sorted(
        f"{src} -> {dst}"
        for src, dst, _ in IMPORTS
        if _unit(src) != _unit(dst) and LAYER_OF[_unit(dst)] >= LAYER_OF[_unit(src)]
    )
    assert wrong == []


def test_no_package_cycles() -> None:
    graph: dict[str, set[str]] = defaultdict(set)
    for src, dst, _ in IMPORTS:
        if _unit(src) != _unit(dst):
            graph[_unit(src)].add(_unit(dst))

    def reaches(start: str, goal: str) -> bool:
        seen, todo = set(), [start]
        while todo:
            node = todo.pop()
            if node == goal:
                return True
            if node not in seen:
                seen.add(node)
                todo.extend(graph[node])
        return False

    cycles = sorted(f"{a} <-> {b}" for a in list(graph) for b in graph[a] if reaches(b, a))
    assert cycles == []


def test_other_packages_are_used_through_their_public_face() -> None:
    private = []
    for src, dst, names in IMPORTS:
        unit = _unit(dst)
        if _unit(src) == unit:
            continue
        inner = dst.split(".")[2:]  # anything below the package face
        if inner or any(
            n.startswith("_") and not n.startswith("__") for n in names
        ):
            private.append(f"{src} -> {dst} {names}")
    assert private == []


@pytest.mark.parametrize(
    "module",
    sorted(
        m.name
        for m in pkgutil.walk_packages([str(SRC)], prefix="trialrun.")
        if not m.name.endswith(".__main__")
    ),
)
def test_every_module_imports(module: str) -> None:
    importlib.import_module(module)


def test_the_public_api_is_complete() -> None:
    for name in trialrun.__all__:
        assert getattr(trialrun, name) is not None
