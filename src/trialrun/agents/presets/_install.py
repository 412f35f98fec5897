"""Where a preset's binary comes from: PATH, else trialrun's own install folder, filled by
`trialrun agents install NAME` (npm, at the pinned version unless `--version` says)."""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from trialrun.agents.presets._types import AgentPreset
from trialrun.errors import UserError

AGENTS_DIR_ENV = "TRIALRUN_AGENTS_DIR"


def agents_dir() -> Path:
    """trialrun's install folder for agent CLIs ($TRIALRUN_AGENTS_DIR, else
    ~/.cache/trialrun/agents): one npm prefix per NAME-VERSION."""
    configured = os.environ.get(AGENTS_DIR_ENV, "").strip()
    return Path(configured) if configured else Path.home() / ".cache" / "trialrun" / "agents"


def install_prefix(preset: AgentPreset, version: str | None = None) -> Path:
    return agents_dir() / f"{preset.name}-{version or preset.version}"


@dataclass(frozen=True, slots=True)
class Found:
    binary: str  # full path
    source: str  # "PATH" or the install prefix
    prefix: Path | None  # the install prefix (the jail shows it read-only), None on PATH


def _installed(preset: AgentPreset) -> list[Path]:
    """The preset's installs in trialrun's folder: the pinned version first."""
    folder = agents_dir()
    pinned = install_prefix(preset)
    others = sorted(folder.glob(f"{preset.name}-*"), reverse=True) if folder.is_dir() else []
    return [pinned, *(p for p in others if p != pinned)]


def find_binary(preset: AgentPreset) -> Found | None:
    on_path = shutil.which(preset.binary)
    if on_path is not None:
        return Found(on_path, "PATH", None)
    for prefix in _installed(preset):
        binary = prefix / "bin" / preset.binary
        if os.access(binary, os.X_OK):
            return Found(str(binary), str(prefix), prefix)
    return None


def require_binary(preset: AgentPreset) -> Found:
    """The binary, or one clear line with the install command (exit code 2)."""
    found = find_binary(preset)
    if found is None:
        raise UserError(
            f"{preset.name} is not installed: run `trialrun agents install {preset.name}` "
            f"(npm {preset.package}@{preset.version}), or put `{preset.binary}` on PATH"
        )
    return found


def npm_install(
    preset: AgentPreset, version: str | None = None, prefix: Path | None = None
) -> Path:
    """`npm install -g PACKAGE@VERSION` into a trialrun-owned prefix; returns the binary."""
    npm = shutil.which("npm")
    if npm is None:
        raise UserError(
            f"trialrun agents install {preset.name}: npm is not installed; install Node.js "
            "and npm (e.g. apt-get install nodejs npm), then run it again"
        )
    target = prefix or install_prefix(preset, version)
    target.mkdir(parents=True, exist_ok=True)
    spec = f"{preset.package}@{version or preset.version}"
    done = subprocess.run(
        [npm, "install", "-g", "--no-fund", "--no-audit", "--prefix", str(target), spec],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        tail = " ".join(done.stderr.strip().splitlines()[-2:])[-400:]
        raise UserError(f"npm install {spec} failed (exit {done.returncode}): {tail}")
    binary = target / "bin" / preset.binary
    if not binary.exists():
        raise UserError(f"npm installed {spec} but {binary} is missing; check the package name")
    return binary
