"""`load_tasks(paths)`: every task file under the paths, validated, with every problem.

One bad file never hides another's problems: each file is read and checked on its own,
then ids are checked across all files. Tasks from a file with any problem are left out
of `LoadReport.tasks`; `report_problems_and_exit` decides whether a run may go on.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trialrun.config import ProjectConfig, load_config
from trialrun.errors import UserError
from trialrun.tasks._fixtures import remembered, resolve_fixtures
from trialrun.tasks._grader_items import tool_names_in
from trialrun.tasks._issues import suggest, value_at
from trialrun.tasks._limits import file_size_limit
from trialrun.tasks._model import Task
from trialrun.tasks._native import Checked, check_native
from trialrun.tasks._problems import FieldPath, Problem, SourceError, dotted
from trialrun.tasks._report import LoadReport
from trialrun.tasks._scan import scan, skip_reason_by_name, skip_reason_by_shape
from trialrun.tasks._scribe import check_scribe, is_scribe_shape
from trialrun.tasks._sources import TASK_SUFFIXES, LineMap, read_source
from trialrun.tasks._timeouts import grader_timeout_issues
from trialrun.tools import VAULT_TOOL_NAMES

# a task's line, found only when a message needs it (a duplicate id)
LineOf = Callable[[], int | None]


def _line(lines: LineMap, path: FieldPath) -> int | None:
    for end in range(len(path), -1, -1):
        line = lines.get(path[:end])
        if line is not None:
            return line
    return None


def _real(file: Path, real_dirs: dict[Path, str]) -> str:
    """The file's real path; its folder's is found once per folder, not once per file."""
    if file.is_symlink():
        return os.path.realpath(file)
    folder = real_dirs.get(file.parent)
    if folder is None:
        folder = real_dirs[file.parent] = os.path.realpath(file.parent)
    return os.path.join(folder, file.name)


def _expand(paths: Sequence[Path | str], report: LoadReport) -> list[Path]:
    files: list[Path] = []
    seen: set[str] = set()
    real_dirs: dict[Path, str] = {}
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = scan(path, report.skipped)
            if not found:
                report.problems.append(
                    Problem(path, None, "", f"no task files ({', '.join(TASK_SUFFIXES)}) found")
                )
        elif path.is_file():
            if path.suffix.lower() not in TASK_SUFFIXES:
                report.problems.append(
                    Problem(path, None, "", f"not a task file: expected {', '.join(TASK_SUFFIXES)}")
                )
                continue
            found = [path]
        else:
            report.problems.append(Problem(path, None, "", "no such file or folder"))
            continue
        for file in found:
            key = _real(file, real_dirs)
            if key not in seen:
                seen.add(key)
                files.append(file)
    return files


def _items(data: Any) -> list[tuple[Any, FieldPath]] | str:
    """The task mappings in a parsed file, each with its path; or why there are none."""
    if data is None:
        return "empty file: expected a task (a mapping) or a list of tasks"
    if isinstance(data, list):
        if not data:
            return "empty list: expected at least one task"
        return [(item, (i,)) for i, item in enumerate(data)]
    if isinstance(data, dict):
        rest = set(data) - {"tasks", "$schema"}
        if isinstance(data.get("tasks"), list) and not rest:
            if not data["tasks"]:
                return "'tasks' is empty: expected at least one task"
            return [(item, ("tasks", i)) for i, item in enumerate(data["tasks"])]
        return [(data, ())]
    return f"expected a task (a mapping) or a list of tasks, got {type(data).__name__}"


def _tool_warnings(task: Task, checked: Checked, data: Any) -> list[tuple[FieldPath, str]]:
    packs = task.environment.tools
    if not packs or any(p != "vault" for p in packs):
        return []  # other packs' tools are only known when the run loads them
    known = VAULT_TOOL_NAMES
    refs = [
        ref
        for path, config in checked.graders
        for ref in tool_names_in(config, path, value_at(data, path))
    ]
    for i, fault in enumerate(task.environment.faults):
        refs.append(((*checked.places["faults"], i, "tool"), fault.tool))
    out: list[tuple[FieldPath, str]] = []
    for path, name in refs:
        if name not in known:
            hint = suggest(name, known)
            did = f"; did you mean '{hint}'?" if hint else ""
            out.append(
                (
                    path,
                    f"tool '{name}' is not provided by trialrun's vault pack "
                    f"(a call to it can never happen){did}",
                )
            )
    return out


_INPUTS_READ = ("prompt", "context_files", "messages")


def _input_warnings(task: Task, prefix: FieldPath) -> list[tuple[FieldPath, str]]:
    """Extra inputs are the spec's right, but one spelt like trialrun's own is likely a typo."""
    out: list[tuple[FieldPath, str]] = []
    for key in task.inputs.extra:
        hint = suggest(key, _INPUTS_READ)
        if hint:
            out.append(
                (
                    (*prefix, "inputs", key),
                    f"kept as an extra input for your agent (trialrun reads only "
                    f"{', '.join(_INPUTS_READ)}); did you mean '{hint}'?",
                )
            )
    return out


def agent_issue(name: str, agents: Collection[str]) -> str | None:
    """Why a task's `agent:` names no agent the run knows (None: it does). `agents` are
    the preset names; `package.module:function` (or `file.py:function`) is loaded later."""
    if name in agents or ":" in name:
        return None
    hint = suggest(name, agents)
    did = f"did you mean '{hint}'? " if hint else ""
    return (
        f"'{name}' is not an agent: {did}use a preset ({', '.join(sorted(agents))}) "
        "or package.module:function"
    )


@dataclass(frozen=True, slots=True)
class _Options:
    max_file_bytes: int
    allow_external_links: bool
    agents: Collection[str] | None = None  # the names `agent:` may give; None: unchecked


def _load_file(file: Path, report: LoadReport, options: _Options) -> list[tuple[Task, LineOf]]:
    problems: list[Problem] = []
    warnings: list[Problem] = []
    report.files.append(file)
    try:
        data, lines, shape_issues = read_source(file, options.max_file_bytes)
    except SourceError as exc:
        report.problems.append(Problem(file, exc.line, "", str(exc)))
        report.invalid_files.append(file)
        return []
    reason = skip_reason_by_shape(data)
    if reason:
        report.files.remove(file)
        report.skipped.append((file, reason))
        return []
    items = _items(data)
    if isinstance(items, str):
        report.problems.append(Problem(file, 1, "", items))
        report.invalid_files.append(file)
        return []
    loaded: list[tuple[Task, LineOf]] = []
    for path, message in shape_issues:  # over-long lists (cut short for the checks below)
        problems.append(Problem(file, _line(lines, path), dotted(path), message))
    task_list: FieldPath = () if isinstance(data, list) else ("tasks",)
    if any(path == task_list for path, _ in shape_issues):
        items = items[:0]  # too many tasks in one file: none is checked or loaded
    single = len(items) == 1 and items[0][1] == ()
    for item, prefix in items:
        if is_scribe_shape(item):
            stem = file.stem if single and file.suffix.lower() == ".json" else None
            checked = check_scribe(item, prefix, stem=stem)
            fmt = "scribe"
        else:
            checked = check_native(item, prefix)
            fmt = "native"
        issues = list(checked.issues)
        fixture_path, fixtures_root, found = resolve_fixtures(
            file,
            data,
            checked.places,
            checked.graders,
            allow_external_links=options.allow_external_links,
        )
        issues += found
        task = checked.task
        if task is not None:
            issues += grader_timeout_issues(task, checked.graders)
            named = task.agent
            if named and options.agents is not None and (bad := agent_issue(named, options.agents)):
                issues.append(((*checked.places["task_id"][:-1], "agent"), bad))
        if task is not None:
            task.set_provenance(file, fmt, fixture_path, fixtures_root)
            found_warnings = _tool_warnings(task, checked, data)
            if fmt == "native":
                found_warnings += _input_warnings(task, checked.places["task_id"][:-1])
            for path, message in found_warnings:
                warnings.append(Problem(file, _line(lines, path), dotted(path), message, "warning"))
        for path, message in issues:
            problems.append(Problem(file, _line(lines, path), dotted(path), message))
        if task is not None and not issues:
            place = checked.places["task_id"]
            loaded.append((task, functools.partial(_line, lines, place)))
    problems.sort(key=lambda p: p.line or 0)
    warnings.sort(key=lambda p: p.line or 0)
    report.problems += problems
    report.warnings += warnings
    if problems:
        report.invalid_files.append(file)
    return loaded


def load_tasks(
    paths: Sequence[Path | str],
    *,
    allow_external_links: bool = False,
    max_file_bytes: int | None = None,
    agents: Collection[str] | None = None,
    config: ProjectConfig | None = None,
) -> LoadReport:
    """Load and validate every task file under `paths` (files and folders, recursive).

    `allow_external_links`: accept fixture and setup symlinks that resolve outside the
    suite folder (their targets are copied into workspaces). `max_file_bytes`: the size
    limit for one task file (default: `[tasks] max_file_bytes` in trialrun.toml, else
    10 MB); a bigger file is refused unread. `agents`: the preset names a task's `agent:`
    may give (besides package.module:function); another name is a problem. None: not
    checked here. `config`: the trialrun.toml in force (default: found from the working
    directory, when `max_file_bytes` is not given).
    """
    report = LoadReport()
    if config is None:
        config = load_config() if max_file_bytes is None else ProjectConfig()
    options = _Options(file_size_limit(max_file_bytes, config), allow_external_links, agents)
    per_file: list[tuple[Path, list[tuple[Task, LineOf]]]] = []
    with remembered():
        for file in _expand(paths, report):
            if reason := skip_reason_by_name(file):
                report.skipped.append((file, reason))
                continue
            per_file.append((file, _load_file(file, report, options)))

    first_seen: dict[str, tuple[Path, LineOf]] = {}
    duplicates: set[Path] = set()
    for file, loaded in per_file:
        for task, line in loaded:
            if task.task_id in first_seen:
                other, other_line_of = first_seen[task.task_id]
                other_line = other_line_of()
                where = f"{other}:{other_line}" if other_line else str(other)
                report.problems.append(
                    Problem(
                        file,
                        line(),
                        "task_id" if task.source_format == "native" else "id",
                        f"duplicate task id '{task.task_id}' (also in {where})",
                    )
                )
                duplicates.add(file)
            else:
                first_seen[task.task_id] = (file, line)
    for file in duplicates:
        if file not in report.invalid_files:
            report.invalid_files.append(file)
    invalid = set(report.invalid_files)
    report.tasks = [task for file, loaded in per_file if file not in invalid for task, _ in loaded]
    return report


def report_problems_and_exit(
    report: LoadReport,
    skip_invalid: bool,
    *,
    echo: Callable[[str], None] | None = None,
) -> list[Task]:
    """For `run`: print problems and warnings; refuse (UserError, exit 2) while any selected
    file is invalid, unless `skip_invalid`, which names each skipped file and goes on."""
    say = echo or (lambda line: print(line, file=sys.stderr))
    only = report.problems[0] if len(report.problems) == 1 and not skip_invalid else None
    for problem in report.problems:
        if problem is not only:  # a lone problem is the refusal's own line
            say(str(problem))
    for warning in report.warnings:
        say(str(warning))
    if only is not None:
        raise only.as_error(
            "nothing was run (fix it, or pass --skip-invalid to run the valid tasks)"
        )
    if report.problems:
        files = len(report.invalid_files) or 1
        if not skip_invalid:
            raise UserError(
                f"{len(report.problems)} problem(s) in {files} task file(s); nothing was run "
                "(fix them, or pass --skip-invalid to run the valid tasks)"
            )
        for file in report.invalid_files:
            say(f"{file}: skipped: invalid task file")
    if not report.tasks:
        raise UserError("no valid tasks to run")
    return list(report.tasks)
