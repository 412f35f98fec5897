"""Issue 29: a user error is relabelled through its fields (`err.at(place=..., source=...)`),
never by editing its text. No module under src/trialrun takes the text of one of its own
errors (a UserError or ToolError, or a subclass) and edits it: `.replace`, `.removeprefix`,
`.removesuffix`, a regex `.sub`, or a slice, applied to `str(exc)`, `exc.args[0]`,
`exc.problem`, `exc.describe()`, an f-string holding `exc`, or a name or call built from
one of those in the same function."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

import trialrun

SRC = Path(trialrun.__file__).parent
ROOTS = {"UserError", "ToolError"}
EDITS = {"replace", "removeprefix", "removesuffix", "sub", "subn"}


def _error_names(trees: dict[Path, ast.Module]) -> set[str]:
    """UserError, ToolError and every class under src/trialrun that derives from them."""
    names = set(ROOTS)
    classes = [n for tree in trees.values() for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]
    grew = True
    while grew:
        grew = False
        for cls in classes:
            bases = {b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in cls.bases}
            if cls.name not in names and bases & names:
                names.add(cls.name)
                grew = True
    return names


def _caught(handler: ast.ExceptHandler, errors: set[str]) -> bool:
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(
        (k.id if isinstance(k, ast.Name) else getattr(k, "attr", "")) in errors
        for k in kinds
        if k is not None
    )


class _Surgery(ast.NodeVisitor):
    """Within one function: the names that hold a caught error's text, and the edits."""

    def __init__(self, errors: set[str]) -> None:
        self.errors = errors
        self.caught: set[str] = set()  # `except UserError as exc`: exc
        self.texts: set[str] = set()  # names assigned from an error's text
        self.found: list[int] = []

    def _is_text(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Name):
            return node.id in self.texts
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id == "str":
                return any(isinstance(a, ast.Name) and a.id in self.caught for a in node.args)
            if isinstance(func, ast.Attribute) and func.attr == "describe":
                return isinstance(func.value, ast.Name) and func.value.id in self.caught
            return any(self._is_text(a) for a in node.args)  # redact(str(exc)), …
        if isinstance(node, ast.Attribute):  # exc.problem, exc.args
            return isinstance(node.value, ast.Name) and node.value.id in self.caught
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
            return self._is_text(node.value)  # exc.args[0]
        if isinstance(node, ast.JoinedStr):
            return any(
                isinstance(v, ast.FormattedValue)
                and (self._is_text(v.value)
                     or isinstance(v.value, ast.Name) and v.value.id in self.caught)
                for v in node.values
            )  # fmt: skip
        return False

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name and _caught(node, self.errors):
            self.caught.add(node.name)
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        self.generic_visit(node)
        if self._is_text(node.value):
            self.texts.update(t.id for t in node.targets if isinstance(t, ast.Name))

    def visit_Call(self, node: ast.Call) -> None:
        self.generic_visit(node)
        func = node.func
        if not (isinstance(func, ast.Attribute) and func.attr in EDITS):
            return
        if any(self._is_text(part) for part in (func.value, *node.args)):
            self.found.append(node.lineno)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        self.generic_visit(node)
        if isinstance(node.slice, ast.Slice) and self._is_text(node.value):
            self.found.append(node.lineno)


def surgery(tree: ast.Module, errors: set[str]) -> Iterator[int]:
    """The lines of `tree` where an error's text is edited."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            visitor = _Surgery(errors)
            visitor.caught.update(  # `def relabel(exc: UserError)`: exc, as if caught
                a.arg for a in node.args.args + node.args.kwonlyargs
                if isinstance(a.annotation, ast.Name) and a.annotation.id in errors
            )  # fmt: skip
            for statement in node.body:
                visitor.visit(statement)
            yield from visitor.found


def _trees(root: Path) -> dict[Path, ast.Module]:
    return {p: ast.parse(p.read_text(encoding="utf-8")) for p in sorted(root.rglob("*.py"))}


def offenders(root: Path) -> list[str]:
    trees = _trees(root)
    errors = _error_names(trees)
    return sorted(
        f"{path.relative_to(root)}:{line}"
        for path, tree in trees.items()
        for line in set(surgery(tree, errors))
    )


def test_no_module_edits_an_errors_text_to_relabel_it() -> None:
    assert offenders(SRC) == []


def _handler(*lines: str) -> ast.Module:
    body = "".join(f"        {line}\n" for line in lines)
    return ast.parse(f"def f(spec, flag, other):\n    try:\n        g()\n"
                     f"    except UserError as exc:\n{body}")  # fmt: skip


@pytest.mark.parametrize(
    "lines",
    [
        # the shapes issue 29 found, as they were written
        ["message = redact(str(exc))", "message = _FLAG.sub(lambda _m: flag, message)"],
        ["shown = str(exc).replace('the vault', 'the workspace')"],
        ["raise ToolError(f\"x: {str(exc).replace('the vault', 'the workspace')}\")"],
        ["message = str(exc).removeprefix(f'--agent {spec}: ')"],
        ["message = str(exc)", "return '--judge' + message[len('--model'):]"],
        ["text = exc.args[0].replace('a', 'b')"],
        ["text = exc.problem.removesuffix('!')"],
    ],
)
def test_the_check_sees_each_shape_of_text_surgery(lines: list[str]) -> None:
    assert list(surgery(_handler(*lines), ROOTS)), lines


def test_the_check_sees_an_error_handed_to_a_helper() -> None:
    tree = ast.parse("def _as_judge_flag(exc: UserError) -> str:\n    message = str(exc)\n"
                     "    return '--judge' + message[len('--model') :]\n")  # fmt: skip
    assert list(surgery(tree, ROOTS)) == [3]


@pytest.mark.parametrize(
    "line",
    [
        "raise exc.at('--judge') from None",  # the relabel issue 29 asks for
        "raise ToolError(f'shell_exec: working_dir: {exc}') from None",  # a prefix: no edit
        "why = ' '.join(str(other).split())[:200]",  # not a caught user error
    ],
)
def test_the_check_leaves_relabelling_by_fields_alone(line: str) -> None:
    assert list(surgery(_handler(line), ROOTS)) == []
