"""`trialrun validate SUITE.toml`: a suite config checked completely, no dataset loaded.

Every section and key (types and limits), each model's engine/provider, each benchmark's
name (trialrun's, OpenJarvis's, or a task folder), backend, tools (through the tool
registry: a pack added later counts at once) and judge, the judge settings; every
problem one line naming the file, the place and the fix. A template (`{{placeholders}}`)
gets one line saying so and is not checked further.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trialrun.benchmarks._catalogue import find_benchmark
from trialrun.benchmarks._datasets import local_split_problem
from trialrun.benchmarks._specs import model_spec
from trialrun.benchmarks._suite import (
    ARRAYS,
    TABLES,
    Suite,
    _check_fields,
    _entry_label,
    _judge_spec,
    _warn_unknown,
    expand,
    unknown_benchmark_problem,
)
from trialrun.benchmarks._suite_toml import parse_suite_toml
from trialrun.benchmarks._types import BENCHMARKS
from trialrun.benchmarks.backends import BACKENDS, canonical_backend
from trialrun.benchmarks.openjarvis import caveat
from trialrun.errors import UserError
from trialrun.tools import TOOL_PACKS

_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}")


@dataclass(slots=True)
class SuiteCheck:
    """What `validate` found in one suite file. `template`: its placeholders (then it is
    not checked); `problems` and `warnings`: one line each."""

    path: Path
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    template: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def template_line(self) -> str:
        shown = ", ".join("{{" + name + "}}" for name in self.template[:5])
        more = f" and {len(self.template) - 5} more" if len(self.template) > 5 else ""
        return (
            f"{self.path}: a template ({shown}{more}); fill in its placeholders, then "
            "validate the suite file it makes"
        )


def _attempt(check: SuiteCheck, call: Any, *args: Any, **kwargs: Any) -> Any:
    """`call(...)`, its UserError kept as a problem line (None then)."""
    try:
        return call(*args, **kwargs)
    except UserError as exc:
        check.problems.append(str(exc))
        return None


def check_suite_file(path: Path) -> SuiteCheck:
    """Check one suite file completely; never loads a dataset or calls a model."""
    check = SuiteCheck(path)
    try:
        raw = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        check.problems.append(f"{path}: cannot read it as UTF-8 text ({exc}); fix the file")
        return check
    placeholders = list(dict.fromkeys(_PLACEHOLDER.findall(raw)))
    if placeholders:
        check.template = placeholders
        return check
    data = _attempt(check, parse_suite_toml, path, raw)
    if data is None:
        return check
    suite = _sections(check, data)
    _check_models(check, suite)
    _check_judge(check, suite)
    for index, bench in enumerate(suite.benchmarks):
        _check_benchmark(check, suite, index, bench)
    if check.ok:  # what only the whole suite shows (two pairs writing the same files)
        _attempt(check, expand, suite)
    return check


def _sections(check: SuiteCheck, data: dict[str, Any]) -> Suite:
    path = check.path
    tables: dict[str, dict[str, Any]] = {}
    for section in TABLES:
        table = data.get(section, {})
        if not isinstance(table, dict):
            check.problems.append(f"{path}: [{section}]: must be a table ([{section}] with keys)")
            table = {}
        unknown: dict[str, int] = {}
        _each_field(check, section, f"[{section}]", table, unknown)
        _warn_unknown(path, section, unknown, check.warnings)
        tables[section] = table
    arrays: dict[str, list[dict[str, Any]]] = {}
    for section in ARRAYS:
        entries = data.get(section, [])
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            check.problems.append(
                f"{path}: [[{section}]]: must be an array of tables ([[{section}]])"
            )
            entries = []
        elif not entries:
            check.problems.append(
                f"{path}: [[{section}]]: none listed; add at least one [[{section}]] entry "
                'with name = "…"'
            )
        unknown = {}
        kept = []
        for index, entry in enumerate(entries):
            where = _entry_label(section, index, entry)
            if "name" not in entry:
                check.problems.append(f'{path}: {where}: name: required; add name = "…"')
                continue
            if _each_field(check, section, where, entry, unknown):
                kept.append(entry)
        _warn_unknown(path, section, unknown, check.warnings)
        arrays[section] = kept
    for key in data:
        if key not in (*TABLES, *ARRAYS):
            check.warnings.append(f"{path}: [{key}]: not a suite section trialrun uses, ignored")
    return Suite(
        path, tables["meta"], tables["defaults"], tables["judge"], tables["run"],
        arrays["models"], arrays["benchmarks"],
    )


def _each_field(
    check: SuiteCheck, section: str, where: str, table: dict[str, Any], unknown: dict[str, int]
) -> bool:
    """Each key on its own, so one file's every bad value is named (True: all good)."""
    good = True
    for key, value in table.items():
        try:
            _check_fields(check.path, section, where, {key: value}, unknown)
        except UserError as exc:
            check.problems.append(str(exc))
            good = False
    return good


def _check_models(check: SuiteCheck, suite: Suite) -> None:
    for index, model in enumerate(suite.models):
        where = f"{suite.path}: {_entry_label('models', index, model)}"
        _attempt(
            check, model_spec, model["name"], where=where, base=suite.base,
            engine=model.get("engine"), provider=model.get("provider"),
            base_url=model.get("base_url"),
        )


def _check_judge(check: SuiteCheck, suite: Suite) -> None:
    if suite.judge.get("model"):
        _attempt(check, _judge_spec, suite, {}, "[judge]")
    elif suite.judge.get("provider") or suite.judge.get("base_url"):
        check.problems.append(
            f'{suite.path}: [judge]: model: required with provider/base_url; add model = "…"'
        )


def _check_benchmark(check: SuiteCheck, suite: Suite, index: int, bench: dict[str, Any]) -> None:
    where = _entry_label("benchmarks", index, bench)
    at = f"{suite.path}: {where}"
    name = bench["name"]
    note = caveat(name) if BENCHMARKS.get(name) is None else None
    if note:
        check.warnings.append(f"{at}: {note}")
    if find_benchmark(name) is None:
        folder = Path(name).expanduser()
        if not (folder if folder.is_absolute() else suite.base / folder).is_dir():
            check.problems.append(f"{at}: name: {unknown_benchmark_problem(name)}")
    given = bench.get("backend")
    if given and canonical_backend(given) is None:
        check.problems.append(
            f"{at}: backend: unknown backend '{given}'; use one of "
            f"{', '.join([*BACKENDS, 'jarvis-direct', 'jarvis-agent'])}"
        )
    for tool in bench.get("tools") or []:
        if TOOL_PACKS.get(tool) is None:
            hint = TOOL_PACKS.suggest(tool)
            did = f"did you mean '{hint}'? " if hint else ""
            check.problems.append(
                f"{at}: tools: unknown tool '{tool}'; {did}drop it or use one of "
                f"{', '.join(TOOL_PACKS.names())}"
            )
    if bench.get("judge_model"):
        _attempt(check, _judge_spec, suite, bench, where)
    split, dataset = bench.get("split"), bench.get("dataset")
    problem = (
        local_split_problem(dataset, split, suite.base)
        if split is not None and isinstance(dataset, str)
        else None
    )
    if problem:
        check.problems.append(f"{at}: split {split!r}: {problem}; drop it, or name one it has")
