"""Two shape rules of issue 29, checked on the source: no function of 80 lines or more, and
imports at module level except in the CLI and where a package is loaded late on purpose."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import trialrun

SRC = Path(trialrun.__file__).parent
MAX_LINES = 80  # a function is shorter than this, decorators and docstring included

# Packages a function may import late, anywhere outside cli/: each an optional extra or a
# cost every run would pay for a feature few runs use.
LATE_PACKAGES: dict[str, str] = {
    "llama_cpp": "the `local` extra",
    "numpy": "comes with llama_cpp (the `local` extra)",
    "ray": "the `ray` extra",
    "mcp": "the `mcp` extra",
    "openjarvis": "the `openjarvis` extra",
    "pypdf": "the `openjarvis` extra",
    "datasets": "the `benchmarks` extra (about a second to import)",
    "h2": "the `http2` extra",
    "httpx": "loads rich, click and pygments (~95 ms, ~8 MiB): on the first request only",
    "alembic": "~250 ms, only when a store's schema is upgraded",
    "ruamel": "the round-trip parser, only where line numbers or comments are kept",
    "yaml": "libyaml's C parser, with the first task file parsed",
    "rich": "the console, only when a table is printed",
}

# Modules that may import trialrun's own packages late: the pytest plugin is imported by
# every pytest session of a project that installs trialrun; the history (SQLAlchemy,
# about half a second) loads only once a run is recorded; and the history, imported
# where no run happens, loads the runner only to measure (import trialrun.history: 523
# modules, 577 with the runner).
LATE_INTERNAL: dict[str, str] = {
    "testing/__init__.py": "the pytest plugin's package: the rig loads on first use",
    "testing/_plugin.py": "the pytest plugin: evals and task files load once collected",
    "testing/_session.py": "the pytest plugin's session record: the history at the end",
    "testing/_tasks.py": "the pytest plugin's task items: the history when one runs",
    "workflow/_record.py": "the history, when a finished run is recorded",
    "history/_checkin.py": "the runner, when check-in measures evals (not for a record)",
    "history/_verify.py": "the runner, when triage re-runs a test (not for a record)",
    "workflow/_after_run.py": "the history, when a --trigger is checked",
}


def _sources() -> Iterator[tuple[str, ast.Module]]:
    for path in sorted(SRC.rglob("*.py")):
        yield path.relative_to(SRC).as_posix(), ast.parse(path.read_text(encoding="utf-8"))


def _functions(tree: ast.AST) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node


def _length(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    first = min([fn.lineno, *(d.lineno for d in fn.decorator_list)])
    return (fn.end_lineno or fn.lineno) - first + 1


def long_functions() -> list[str]:
    return sorted(
        f"{rel}:{fn.lineno} {fn.name} ({_length(fn)} lines)"
        for rel, tree in _sources()
        for fn in _functions(tree)
        if _length(fn) >= MAX_LINES
    )


def _imported_root(node: ast.Import | ast.ImportFrom) -> str:
    if isinstance(node, ast.ImportFrom):
        return (node.module or "").split(".")[0] if node.level == 0 else "trialrun"
    return node.names[0].name.split(".")[0]


def late_imports() -> list[str]:
    wrong: set[str] = set()
    for rel, tree in _sources():
        if rel.startswith("cli/"):
            continue
        for fn in _functions(tree):
            for node in ast.walk(fn):
                if not isinstance(node, ast.Import | ast.ImportFrom):
                    continue
                root = _imported_root(node)
                if root in LATE_PACKAGES or (root == "trialrun" and rel in LATE_INTERNAL):
                    continue
                wrong.add(f"{rel}:{node.lineno} in {fn.name}: {ast.unparse(node)}")
    return sorted(wrong)


def test_every_function_is_shorter_than_80_lines() -> None:
    """Split along a real seam (a helper named for what it does), not by cutting."""
    assert long_functions() == []


def test_imports_sit_at_module_level_outside_the_cli() -> None:
    """A late import outside cli/ is an optional extra or a named import cost."""
    assert late_imports() == []


def test_the_shape_checks_see_a_long_function_and_a_late_import() -> None:
    """The checks themselves: a synthetic module breaks both rules and is caught."""
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_LINES))
    tree = ast.parse(f"def long():\n    import json\n{body}\n")
    (fn,) = _functions(tree)
    assert _length(fn) == MAX_LINES + 2
    imports = [n for n in ast.walk(fn) if isinstance(n, ast.Import)]
    assert [_imported_root(n) for n in imports] == ["json"]
    assert "json" not in LATE_PACKAGES
