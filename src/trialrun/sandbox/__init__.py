"""Sandboxed workspaces: lifecycle, content snapshots, path containment, contained commands."""

from trialrun.sandbox._image import WorkspaceImage, WorkspaceImages, workspace_key
from trialrun.sandbox._jail import CommandOutcome, jail_available, run_contained
from trialrun.sandbox._paths import resolve_inside, resolve_note
from trialrun.sandbox._snapshot import WorkspaceDiff, diff_snapshots, snapshot_dir
from trialrun.sandbox._spec import SandboxEnvironment, SetupSeed, WorkspaceSpec
from trialrun.sandbox._workspace import Workspace, copy_tree, remove_tree

__all__ = [
    "CommandOutcome",
    "SandboxEnvironment",
    "SetupSeed",
    "Workspace",
    "WorkspaceDiff",
    "WorkspaceImage",
    "WorkspaceImages",
    "WorkspaceSpec",
    "copy_tree",
    "diff_snapshots",
    "jail_available",
    "remove_tree",
    "resolve_inside",
    "resolve_note",
    "run_contained",
    "snapshot_dir",
    "workspace_key",
]
