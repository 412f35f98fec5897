"""What a workspace is built from: the few task attributes the sandbox reads.

A structural type, so the sandbox needs nothing from `trialrun.tasks`: a loaded `Task`
satisfies it as is.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol


class SetupSeed(Protocol):
    """One extra file or folder seeded into the workspace (a task's `setup` item)."""

    @property
    def path(self) -> str:
        """Where it goes, relative to the workspace root."""
        ...

    @property
    def from_(self) -> str:
        """Where it comes from, relative to the task's fixtures/ folder."""
        ...


class SandboxEnvironment(Protocol):
    """The sandbox part of a task's `environment`."""

    @property
    def sandbox(self) -> str:
        """`workspace`, or `none` for an empty directory."""
        ...

    @property
    def fixture_dest(self) -> str | None:
        """The folder inside the workspace the fixture is copied to ("" = the root)."""
        ...

    @property
    def setup(self) -> Sequence[SetupSeed]: ...


class WorkspaceSpec(Protocol):
    """A task as `Workspace.create` sees it."""

    @property
    def task_id(self) -> str: ...

    @property
    def environment(self) -> SandboxEnvironment: ...

    @property
    def fixture_path(self) -> Path | None:
        """The resolved fixture folder, or None when the task has none."""
        ...

    @property
    def fixtures_root(self) -> Path | None:
        """The fixtures/ folder `setup` seeds are taken from."""
        ...
