"""The run's manifest from its config and tasks, and the checks a resume makes against it."""

from __future__ import annotations

import hashlib
import platform
import subprocess
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trialrun.errors import UserError
from trialrun.rundir import Manifest
from trialrun.runner._config import RunConfig
from trialrun.runner._plan import Filters, effective_k
from trialrun.version import __version__

if TYPE_CHECKING:
    from trialrun.tasks import Task


def sha256_of(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def git_sha(paths: Sequence[Path]) -> str | None:
    """The commit of the suite's checkout (None outside git)."""
    folder = next((p if p.is_dir() else p.parent for p in paths), Path.cwd())
    try:
        out = subprocess.run(
            ["git", "-C", str(folder), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def task_meta(task: Task, k: int | None) -> dict[str, Any]:
    return {
        "task_id": task.task_id,
        "suite": task.suite,
        "tier": task.tier,
        "tags": list(task.tags),
        "policy": task.policy,
        "k": effective_k(task, k),
        "metric": task.metric,
        "gates": task.gates.model_dump(),
        "source": str(task.source) if task.source else None,
    }


def new_manifest(
    run_id: str,
    config: RunConfig,
    models: list[str],
    tasks: Sequence[Task],
    paths: list[Path],
) -> Manifest:
    sources = list(dict.fromkeys(Path(t.source) for t in tasks if t.source is not None))
    return Manifest(
        run_id=run_id,
        started_at=datetime.now(UTC).isoformat(timespec="seconds"),
        argv=list(config.argv if config.argv is not None else sys.argv),
        task_files=[{"path": str(p), "sha256": sha256_of(p)} for p in sources],
        models=models,
        k=config.k,
        git_sha=git_sha(paths or sources),
        trialrun_version=__version__,
        python_version=platform.python_version(),
        tasks=[task_meta(t, config.k) for t in tasks],
        paths=[str(p.resolve()) for p in paths],
        filters=config.filters.as_dict(),
        judge=config.judge,
        agent=config.agent,
        agent_cmd=config.agent_cmd,
        keep_artifacts=config.keep_artifacts,
    )


def resumed_config(manifest: Manifest, config: RunConfig, paths: list[Path]) -> RunConfig:
    """The config a resume runs with: run.json's, where a given value must agree with it."""
    where = "run.json"
    old_paths = [Path(p) for p in manifest.paths]
    if paths and [str(p.resolve()) for p in paths] != [str(p) for p in old_paths]:
        raise UserError(
            f"--resume: task paths differ from {where} "
            f"({', '.join(map(str, old_paths)) or 'none'}); pass the same paths or none"
        )
    if not manifest.models:
        raise UserError(
            f"--resume: {where} lists no models; the run manifest is damaged (restore it, "
            "or start a new run)"
        )
    if config.models and list(config.models) != manifest.models:
        raise UserError(
            f"--resume: models differ from {where} ({', '.join(manifest.models)}); "
            "pass the same --model flags or none"
        )
    if config.k is not None and config.k != manifest.k:
        raise UserError(
            f"--resume: k={config.k} differs from {where} (k={manifest.k}); "
            "pass the same -k or none"
        )
    old_filters = Filters(**manifest.filters)
    given = config.filters.as_dict()
    if any(given.values()) and given != old_filters.as_dict():
        raise UserError(
            f"--resume: task filters differ from {where} ({old_filters.as_dict()}); "
            "pass the same --task/--suite/--tier/--tag or none"
        )
    tasks = config.tasks if config.tasks else old_paths
    return RunConfig(
        tasks=tasks,
        models=list(manifest.models),
        k=manifest.k,
        filters=old_filters,
        judge=config.judge or manifest.judge,
        agent=config.agent or manifest.agent,
        agent_cmd=config.agent_cmd or manifest.agent_cmd,
        keep_artifacts=config.keep_artifacts or manifest.keep_artifacts,
        out=config.out,
        resume=config.resume,
        concurrency=config.concurrency,
        skip_invalid=config.skip_invalid,
        argv=config.argv,
        fsync=config.fsync,
        handle_sigint=config.handle_sigint,
    )


def check_resumed_tasks(manifest: Manifest, tasks: Sequence[Task], warnings: list[str]) -> None:
    """The selected tasks must be the run's; a changed task file is a warning."""
    old_ids = [t.get("task_id") for t in manifest.tasks]
    new_ids = [t.task_id for t in tasks]
    if old_ids and sorted(old_ids) != sorted(new_ids):
        raise UserError(
            "--resume: the selected tasks differ from run.json "
            f"({len(old_ids)} then, {len(new_ids)} now); restore the task files"
        )
    old_hashes = {f.get("path"): f.get("sha256") for f in manifest.task_files}
    for task in tasks:
        source = str(task.source) if task.source else None
        if source in old_hashes and sha256_of(Path(source)) != old_hashes[source]:
            warnings.append(f"{task.source}: changed since the run started")
