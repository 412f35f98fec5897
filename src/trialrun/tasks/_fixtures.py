"""Fixture lookup: `fixtures/NAME` beside the task file, then in its parent folder.

Fixture files may be symlinks pointing anywhere: containment applies to the agent's tool
calls, never to loading a task, so lookups here follow links.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from trialrun.graders import GraderConfig
from trialrun.tasks._issues import Issue, has_child
from trialrun.tasks._problems import FieldPath


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
        if candidate.is_dir():
            return candidate
    return None


def _get(data: Any, path: FieldPath) -> Any:
    for part in path:
        if has_child(data, part):
            data = data[part]
        else:
            return None
    return data


def _bad_workspace_path(target: str) -> str | None:
    """Why a setup `path` cannot be a file inside the workspace (None when it can)."""
    from pathlib import PurePosixPath, PureWindowsPath

    if not target.strip() or target.strip() in (".", "./"):
        return "setup path is empty; name a file relative to the workspace root"
    if "\x00" in target:
        return "setup path contains a NUL byte"
    posix = PurePosixPath(target.replace("\\", "/"))
    if (
        posix.is_absolute()
        or PureWindowsPath(target).is_absolute()
        or PureWindowsPath(target).drive
    ):
        return f"setup path {target!r} is absolute; make it relative to the workspace root"
    if ".." in posix.parts:
        return f"setup path {target!r} leaves the workspace ('..'); make it relative to its root"
    return None


def resolve_fixtures(
    task_file: Path,
    data: Any,
    places: dict[str, FieldPath],
    graders: list[tuple[FieldPath, GraderConfig]],
) -> tuple[Path | None, Path | None, list[Issue]]:
    """Find a task's fixture folder and check every file it names: setup seeds and
    `fileUnchanged` fixtures. Works on the raw file data (`places` says where the fixture
    and setup keys are), so these problems show even when others do too.
    Returns (fixture_path, fixtures_root, issues)."""
    issues: list[Issue] = []
    name = _get(data, places["fixture"])
    name = name if isinstance(name, str) and name else None
    roots = [r for r in fixtures_folders(task_file) if r.is_dir()]
    fixture_path: Path | None = None
    fixtures_root: Path | None = roots[0] if roots else None
    if name:
        fixture_path = find_fixture(task_file, name)
        if fixture_path is None:
            tried = " or ".join(str(r / name) for r in fixtures_folders(task_file))
            issues.append(
                (places["fixture"], f"fixture folder '{name}' not found (looked for {tried})")
            )
        else:
            fixtures_root = fixture_path.parent
            roots = [fixtures_root]
    setup = _get(data, places["setup"])
    for i, seed in enumerate(setup if isinstance(setup, list) else []):
        target = seed.get("path") if isinstance(seed, dict) else None
        if isinstance(target, str) and (problem := _bad_workspace_path(target)):
            issues.append(((*places["setup"], i, "path"), problem))
        source = seed.get("from") if isinstance(seed, dict) else None
        if not isinstance(source, str):
            continue
        if not any((root / source).exists() for root in roots):
            where = " or ".join(str(r) for r in roots) or "no fixtures/ folder by the task file"
            issues.append(
                ((*places["setup"], i, "from"), f"setup file '{source}' not found (in {where})")
            )
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
