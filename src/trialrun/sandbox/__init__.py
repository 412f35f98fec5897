"""Sandboxed workspaces: lifecycle, content snapshots, path containment."""

from trialrun.sandbox._paths import resolve_inside, resolve_note
from trialrun.sandbox._snapshot import WorkspaceDiff, diff_snapshots, snapshot_dir
from trialrun.sandbox._spec import SandboxEnvironment, SetupSeed, WorkspaceSpec
from trialrun.sandbox._workspace import Workspace, copy_tree

__all__ = [
    "SandboxEnvironment",
    "SetupSeed",
    "Workspace",
    "WorkspaceDiff",
    "WorkspaceSpec",
    "copy_tree",
    "diff_snapshots",
    "resolve_inside",
    "resolve_note",
    "snapshot_dir",
]
