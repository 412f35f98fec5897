"""Workspace-state graders: files present, absent, containing, lacking, matching;
frontmatter values (typed); files unchanged from the fixture.

Paths are relative to the workspace root; a note path may omit `.md`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import Field, StrictBool, ValidationInfo, field_validator

from trialrun.graders._types import GraderConfig, TrialView, Verdict, grader
from trialrun.graders._values import (
    FixturePath,
    WorkspacePath,
    as_list,
    check_patterns,
    check_values,
    regex_flags,
    snippet,
    typed_equal,
)
from trialrun.graders.output import contains_details, find_any, regex_details
from trialrun.sandbox import resolve_note
from trialrun.tools import FrontmatterError, ToolError, parse_frontmatter, plain, type_name


class _NoWorkspace(Exception):
    pass


class _PathConfig(GraderConfig):
    path: WorkspacePath


def _find(trial: TrialView, user_path: str) -> Path | None:
    """The file the path names (as given, then with .md), or None when absent."""
    if trial.workspace is None:
        raise _NoWorkspace
    try:
        path = resolve_note(trial.workspace, user_path, must_exist=False)
    except ToolError as exc:
        raise ValueError(f"path {user_path!r}: {exc}") from None
    return path if os.path.lexists(path) else None


def _undetermined(config: GraderConfig) -> Verdict:
    return Verdict(config.label, None, {"error": "no workspace to check (sandbox: none)"})


def _read(trial: TrialView, config: _PathConfig) -> tuple[str | None, dict[str, Any]]:
    """(text, details); text None when the file is missing or a folder."""
    path = _find(trial, config.path)
    details: dict[str, Any] = {"path": config.path}
    if path is None:
        details["found"] = False
        details["reason"] = f"file {config.path!r} not found"
        return None, details
    if path.is_dir():
        details["reason"] = f"{config.path!r} is a folder, not a file"
        return None, details
    details["resolved"] = os.path.relpath(path, os.path.realpath(trial.workspace or ".")).replace(
        os.sep, "/"
    )
    return path.read_bytes().decode("utf-8", errors="replace"), details


C = TypeVar("C", bound=GraderConfig)


def _guard(fn: Callable[[C, TrialView], Verdict]) -> Callable[[C, TrialView], Verdict]:
    """Turn the sandbox-none case into an undetermined verdict."""

    def wrapped(config: C, trial: TrialView) -> Verdict:
        try:
            return fn(config, trial)
        except _NoWorkspace:
            return _undetermined(config)

    wrapped.__name__ = fn.__name__
    wrapped.__doc__ = fn.__doc__
    return wrapped


# --- existence ---


class FileExistsConfig(_PathConfig):
    type: Literal["fileExists"] = "fileExists"


class FileAbsentConfig(_PathConfig):
    type: Literal["fileAbsent"] = "fileAbsent"


@grader("fileExists", FileExistsConfig)
@_guard
def file_exists(config: FileExistsConfig, trial: TrialView) -> Verdict:
    path = _find(trial, config.path)
    details: dict[str, Any] = {"path": config.path, "exists": path is not None}
    if path is not None:
        details["kind"] = "folder" if path.is_dir() else "file"
    return Verdict(config.label, path is not None, details)


@grader("fileAbsent", FileAbsentConfig)
@_guard
def file_absent(config: FileAbsentConfig, trial: TrialView) -> Verdict:
    path = _find(trial, config.path)
    details: dict[str, Any] = {"path": config.path, "exists": path is not None}
    if path is not None and trial.workspace is not None:
        details["found"] = os.path.relpath(path, os.path.realpath(trial.workspace))
    return Verdict(config.label, path is None, details)


# --- content ---


class _TextConfig(_PathConfig):
    value: str | list[str]
    caseSensitive: StrictBool = True

    @field_validator("value")
    @classmethod
    def _values(cls, value: str | list[str]) -> str | list[str]:
        return check_values(value)


class FileContainsConfig(_TextConfig):
    type: Literal["fileContains"] = "fileContains"


class FileLacksConfig(_TextConfig):
    type: Literal["fileLacks"] = "fileLacks"


class FileMatchesConfig(_PathConfig):
    type: Literal["fileMatches"] = "fileMatches"
    flags: str = ""
    value: str | list[str]

    @field_validator("flags")
    @classmethod
    def _flags(cls, flags: str) -> str:
        regex_flags(flags)
        return flags

    @field_validator("value")
    @classmethod
    def _patterns(cls, value: str | list[str], info: ValidationInfo) -> str | list[str]:
        return check_patterns(value, info)


@grader("fileContains", FileContainsConfig)
@_guard
def file_contains(config: FileContainsConfig, trial: TrialView) -> Verdict:
    text, details = _read(trial, config)
    if text is None:
        return Verdict(config.label, False, details)
    passed, more = contains_details(text, as_list(config.value), config.caseSensitive)
    return Verdict(config.label, passed, {**details, **more})


@grader("fileLacks", FileLacksConfig)
@_guard
def file_lacks(config: FileLacksConfig, trial: TrialView) -> Verdict:
    text, details = _read(trial, config)
    if text is None:
        details["reason"] += " (use fileAbsent to check that a file is gone)"
        return Verdict(config.label, False, details)
    values = as_list(config.value)
    details["must_not_contain"] = values
    details["case_sensitive"] = config.caseSensitive
    present = [v for v in values if find_any(text, [v], config.caseSensitive)[0] is not None]
    if present:
        details["present"] = present
        _, at = find_any(text, [present[0]], config.caseSensitive)
        lo = max(0, at - 80)
        details["context"] = text[lo : at + len(present[0]) + 80]
    return Verdict(config.label, not present, details)


@grader("fileMatches", FileMatchesConfig)
@_guard
def file_matches(config: FileMatchesConfig, trial: TrialView) -> Verdict:
    text, details = _read(trial, config)
    if text is None:
        return Verdict(config.label, False, details)
    passed, more = regex_details(text, as_list(config.value), config.flags)
    return Verdict(config.label, passed, {**details, **more})


# --- frontmatter ---


class FrontmatterEqualsConfig(_PathConfig):
    type: Literal["frontmatterEquals"] = "frontmatterEquals"
    key: str = Field(min_length=1)
    value: Any


@grader("frontmatterEquals", FrontmatterEqualsConfig)
@_guard
def frontmatter_equals(config: FrontmatterEqualsConfig, trial: TrialView) -> Verdict:
    text, details = _read(trial, config)
    details.update(
        key=config.key, expected=plain(config.value), expected_type=type_name(config.value)
    )
    if text is None:
        return Verdict(config.label, False, details)
    try:
        data = parse_frontmatter(text)
    except FrontmatterError as exc:
        details["reason"] = str(exc)
        details["text"] = snippet(text)
        return Verdict(config.label, False, details)
    if data is None:
        details["reason"] = "the note has no YAML frontmatter"
        details["text"] = snippet(text)
        return Verdict(config.label, False, details)
    if config.key not in data:
        details["reason"] = f"key {config.key!r} not in the frontmatter"
        details["keys"] = [str(k) for k in data]
        return Verdict(config.label, False, details)
    found = data[config.key]
    details.update(found=plain(found), found_type=type_name(found))
    passed = typed_equal(found, config.value)
    if not passed:
        same_text = str(plain(found)) == str(plain(config.value))
        details["reason"] = (
            f"same text, different type: found {type_name(found)}, "
            f"expected {type_name(config.value)}"
            if same_text
            else "value differs"
        )
    return Verdict(config.label, passed, details)


# --- unchanged ---


class FileUnchangedConfig(_PathConfig):
    type: Literal["fileUnchanged"] = "fileUnchanged"
    fixture: FixturePath


def _fixture_file(fixture_dir: Path, name: str) -> Path | None:
    # The fixture is the task author's, loaded as-is: symlinks in it may point anywhere.
    base = fixture_dir / name.lstrip("/")
    for candidate in (base, base.with_name(base.name + ".md")):
        if candidate.is_file():
            return candidate
    return None


@grader("fileUnchanged", FileUnchangedConfig)
@_guard
def file_unchanged(config: FileUnchangedConfig, trial: TrialView) -> Verdict:
    details: dict[str, Any] = {"path": config.path, "fixture": config.fixture}
    if trial.fixture_dir is None:
        details["error"] = "the task has no fixture folder to compare with"
        return Verdict(config.label, None, details)
    original = _fixture_file(Path(trial.fixture_dir), config.fixture)
    if original is None:
        details["error"] = f"fixture file {config.fixture!r} not found in {trial.fixture_dir}"
        return Verdict(config.label, None, details)
    path = _find(trial, config.path)
    if path is None or path.is_dir():
        details["reason"] = f"file {config.path!r} not found in the workspace"
        return Verdict(config.label, False, details)
    want, got = original.read_bytes(), path.read_bytes()
    if want == got:
        return Verdict(config.label, True, details)
    details.update(expected_bytes=len(want), found_bytes=len(got))
    want_lines = want.decode("utf-8", "replace").splitlines()
    got_lines = got.decode("utf-8", "replace").splitlines()
    for i, (a, b) in enumerate(zip(want_lines, got_lines, strict=False)):
        if a != b:
            details.update(first_difference_line=i + 1, expected_line=a[:300], found_line=b[:300])
            break
    else:
        details["first_difference_line"] = min(len(want_lines), len(got_lines)) + 1
    return Verdict(config.label, False, details)
