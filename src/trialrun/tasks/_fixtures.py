"""Fixture lookup: `fixtures/NAME` beside the task file, then in its parent folder.

Everything a task copies into a workspace (its fixture folder, `setup` seeds) must stay
inside the suite folder, the folder holding that `fixtures/`: a fixture name or seed path
can't be absolute or climb with `..`, and a symlink whose target resolves outside the
suite folder is refused at load time (the copy follows links, so the agent would read the
target) unless the run allows it (`allow_external_links`, `--allow-external-links`).

A thousand tasks share a handful of fixture folders: within one loading (`remembered`)
each folder is looked up and walked for links once.
"""

from __future__ import annotations

import contextlib
import difflib
import functools
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from trialrun.graders import GraderConfig
from trialrun.tasks._issues import Issue, value_at
from trialrun.tasks._paths import fixtures_path_problem, workspace_path_problem
from trialrun.tasks._problems import FieldPath

MAX_LINKS_SHOWN = 5


def fixtures_folders(task_file: Path) -> list[Path]:
    """Candidate `fixtures/` folders for a task file, nearest first (existing or not)."""
    out: list[Path] = []
    for base in (task_file.parent, task_file.parent.parent):
        candidate = base / "fixtures"
        if candidate not in out:
            out.append(candidate)
    return out


def find_fixture(task_file: Path, name: str) -> Path | None:
    for root in fixtures_folders(task_file):
        candidate = root / name
        if _is_dir(candidate):
            return candidate
    return None


_REMEMBER = [0]  # > 0 while a loading remembers folder lookups


@contextlib.contextmanager
def remembered() -> Iterator[None]:
    """Within this block each folder is checked and walked once (one loading's lifetime)."""
    _REMEMBER[0] += 1
    try:
        yield
    finally:
        _REMEMBER[0] -= 1
        if not _REMEMBER[0]:
            _is_dir_cached.cache_clear()
            _outside_links_cached.cache_clear()


def _is_dir(path: Path) -> bool:
    return _is_dir_cached(path) if _REMEMBER[0] else path.is_dir()


@functools.lru_cache(maxsize=4096)
def _is_dir_cached(path: Path) -> bool:
    return path.is_dir()


@functools.lru_cache(maxsize=4096)
def _outside_links_cached(start: Path, suite: Path) -> tuple[tuple[Path, str], ...]:
    return tuple(outside_links(start, suite))


def _inside(root: str, path: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def outside_links(start: Path, suite: Path) -> list[tuple[Path, str]]:
    """(path under `start`, real target) of every symlink reachable from `start` (itself
    included, links to folders inside the suite followed, loops cut) whose target
    resolves outside `suite`."""
    suite_real = os.path.realpath(suite)
    real = os.path.realpath(start)
    if not _inside(suite_real, real):
        return [(start, real)]
    found: list[tuple[Path, str]] = []
    seen: set[tuple[int, int]] = set()
    stack: list[tuple[Path, str]] = [(start, real)] if os.path.isdir(real) else []
    while stack:
        shown, folder = stack.pop()
        try:
            info = os.stat(folder)
            if (info.st_dev, info.st_ino) in seen:
                continue
            seen.add((info.st_dev, info.st_ino))
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            continue  # unreadable: the copy reports it
        for entry in entries:
            here = shown / entry.name
            if entry.is_symlink():
                target = os.path.realpath(entry.path)
                if not _inside(suite_real, target):
                    found.append((here, target))
                elif os.path.isdir(target):
                    stack.append((here, target))
            elif entry.is_dir(follow_symlinks=False):
                stack.append((here, entry.path))
    return found


def _link_issues(place: FieldPath, start: Path, fixtures_root: Path, what: str) -> list[Issue]:
    suite = fixtures_root.parent
    if _REMEMBER[0]:
        found = list(_outside_links_cached(start, suite))
    else:
        found = outside_links(start, suite)
    issues: list[Issue] = []
    for shown, target in found[:MAX_LINKS_SHOWN]:
        try:
            rel = shown.relative_to(fixtures_root).as_posix()
        except ValueError:
            rel = str(shown)
        issues.append(
            (
                place,
                f"{what} links outside the suite folder {suite}: fixtures/{rel} -> {target} "
                "(the copy would put that target in the workspace); refused unless "
                "allow_external_links is set (CLI: --allow-external-links)",
            )
        )
    if len(found) > MAX_LINKS_SHOWN:
        issues.append((place, f"... and {len(found) - MAX_LINKS_SHOWN} more such links"))
    return issues


def _fixture_name(data: Any, places: dict[str, FieldPath]) -> tuple[str | None, FieldPath]:
    """The fixture the raw task names (`fixture`, else the spec's `reset.from`), and where."""
    name = value_at(data, places["fixture"])
    if isinstance(name, str) and name:
        return name, places["fixture"]
    if "reset" in places:
        place = (*places["reset"], "from")
        named = value_at(data, place)
        if isinstance(named, str) and named:
            return named, place
    return None, places["fixture"]


def _missing_fixture(task_file: Path, name: str) -> str:
    """Where a fixture was looked for, and the nearest folder that is there."""
    folders = fixtures_folders(task_file)
    tried = " or ".join(str(r / name) for r in folders)
    present = sorted({c.name for r in folders if _is_dir(r) for c in r.iterdir() if c.is_dir()})
    near = difflib.get_close_matches(name, present, n=1)
    hint = f"; did you mean '{near[0]}'?" if near else (
        f"; the fixtures there: {', '.join(present[:10])}" if present else
        "; make the folder fixtures/NAME beside the task file (its files are copied into each "
        "trial's workspace)")
    return f"fixture folder '{name}' not found (looked for {tried}){hint}"


def resolve_fixtures(
    task_file: Path,
    data: Any,
    places: dict[str, FieldPath],
    graders: list[tuple[FieldPath, GraderConfig]],
    *,
    allow_external_links: bool = False,
) -> tuple[Path | None, Path | None, list[Issue]]:
    """Find a task's fixture folder and check every file it names: setup seeds and
    `fileUnchanged` fixtures, and (unless allowed) that no symlink among them leads outside
    the suite folder. Works on the raw file data (`places` says where the fixture and setup
    keys are), so these problems show even when others do too.
    Returns (fixture_path, fixtures_root, issues)."""
    issues: list[Issue] = []
    name, place = _fixture_name(data, places)
    if name is not None and fixtures_path_problem(name, "fixture"):
        name = None  # the task model reports it; never look it up
    roots = [r for r in fixtures_folders(task_file) if _is_dir(r)]
    fixture_path: Path | None = None
    fixtures_root: Path | None = roots[0] if roots else None
    if name:
        fixture_path = find_fixture(task_file, name)
        if fixture_path is None:
            issues.append((place, _missing_fixture(task_file, name)))
        else:
            fixtures_root = fixture_path.parent
            for _ in Path(name).parts[1:]:  # a nested name: fixtures/group/fx
                fixtures_root = fixtures_root.parent
            roots = [fixtures_root]
            if not allow_external_links:
                issues += _link_issues(place, fixture_path, fixtures_root, f"fixture '{name}'")
    setup = value_at(data, places["setup"])
    for i, seed in enumerate(setup if isinstance(setup, list) else []):
        target = seed.get("path") if isinstance(seed, dict) else None
        if isinstance(target, str) and (
            problem := workspace_path_problem(target, "setup path", allow_root=False)
        ):
            issues.append(((*places["setup"], i, "path"), problem))
        source = seed.get("from") if isinstance(seed, dict) else None
        if not isinstance(source, str):
            continue
        where: FieldPath = (*places["setup"], i, "from")
        if problem := fixtures_path_problem(source, "setup file"):
            issues.append((where, problem))
            continue
        found = next((root for root in roots if (root / source).exists()), None)
        if found is None:
            shown = " or ".join(str(r) for r in roots) or "no fixtures/ folder by the task file"
            issues.append((where, f"setup file '{source}' not found (in {shown})"))
        elif not allow_external_links:
            issues += _link_issues(where, found / source, found, f"setup file '{source}'")
    for path, config in graders:
        if config.type != "fileUnchanged":
            continue
        rel = getattr(config, "fixture", None)
        if not isinstance(rel, str):
            continue
        if not name:
            issues.append(
                (
                    (*path, "fixture"),
                    "fileUnchanged needs the task's fixture folder (set the task's fixture)",
                )
            )
        elif fixture_path is not None and not (
            (fixture_path / rel).is_file() or (fixture_path / f"{rel}.md").is_file()
        ):
            issues.append(((*path, "fixture"), f"fixture file '{rel}' not found in {fixture_path}"))
    return fixture_path, fixtures_root, issues
