"""The run's manifest from its config and tasks, and the checks a resume makes against it."""

from __future__ import annotations

import hashlib
import platform
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trialrun.core import (
    MASK,
    git_branch,
    git_commit,
    model_endpoint,
    model_label,
    redact,
    redact_argv,
    split_base_url,
)
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


def _checkout(paths: Sequence[Path]) -> Path:
    """The folder whose git checkout the suite is in: the first path's."""
    return next((p if p.is_dir() else p.parent for p in paths), Path.cwd())


def git_sha(paths: Sequence[Path]) -> str | None:
    """The commit of the suite's checkout (None outside git)."""
    return git_commit(_checkout(paths))


def git_branch_of(paths: Sequence[Path]) -> str | None:
    """The branch of the suite's checkout (see `trialrun.core.git_branch`)."""
    return git_branch(_checkout(paths))


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
        "tracked_metrics": list(task.tracked_metrics),
        "source": str(task.source) if task.source else None,
    }


def without_credentials(spec: str) -> str:
    """A model spec as run.json keeps it: the label plus the base URL without userinfo."""
    endpoint = model_endpoint(spec)
    return f"{model_label(spec)}@{endpoint}" if endpoint else model_label(spec)


def new_manifest(
    run_id: str,
    config: RunConfig,
    models: dict[str, str],
    tasks: Sequence[Task],
    paths: list[Path],
) -> Manifest:
    """run.json for a new run; `models` maps each label to its spec. Nothing secret is kept:
    argv and the agent command are redacted, base URLs lose their userinfo."""
    sources = list(dict.fromkeys(Path(t.source) for t in tasks if t.source is not None))
    endpoints = {
        label: {"url": url, "credentials": url != split_base_url(spec.partition(":")[2])[1]}
        for label, spec in models.items()
        if (url := model_endpoint(spec))
    }
    return Manifest(
        run_id=run_id,
        started_at=datetime.now(UTC).isoformat(timespec="seconds"),
        argv=redact_argv(config.argv if config.argv is not None else sys.argv),
        task_files=[{"path": str(p), "sha256": sha256_of(p)} for p in sources],
        models=list(models),
        k=config.k,
        git_sha=git_sha(paths or sources),
        git_branch=git_branch_of(paths or sources),
        trialrun_version=__version__,
        python_version=platform.python_version(),
        tasks=[task_meta(t, config.k) for t in tasks],
        paths=[str(p.resolve()) for p in paths],
        filters=config.filters.as_dict(),
        judge=without_credentials(config.judge) if config.judge else config.judge,
        agent=config.agent,
        agent_cmd=redact(config.agent_cmd) if config.agent_cmd else config.agent_cmd,
        keep_artifacts=config.keep_artifacts,
        extra={
            **({"endpoints": endpoints} if endpoints else {}),
            **({"agent_api": config.agent_api} if config.agent_api else {}),
            **({"allow_external_links": True} if config.allow_external_links else {}),
        },
    )


def resumed_models(manifest: Manifest, given: Sequence[str]) -> list[str]:
    """The model specs a resume runs with: the given ones (same names as run.json's), or
    run.json's names with their recorded base URLs."""
    if given:
        labels = [model_label(spec) for spec in given]
        if labels != manifest.models:
            raise UserError(
                f"--resume: models differ from run.json ({', '.join(manifest.models)}); "
                "pass the same --model flags or none"
            )
        return list(given)
    specs = []
    for label in manifest.models:
        spec = manifest.model_spec(label)
        if spec is None:
            raise UserError(
                f"--resume: model '{label}' was given with credentials, which run.json does "
                "not keep; pass the same --model flags again"
            )
        specs.append(spec)
    return specs


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
    models = resumed_models(manifest, config.models)
    agent_cmd = config.agent_cmd or manifest.agent_cmd
    if agent_cmd and MASK in agent_cmd and not config.agent_cmd:
        raise UserError(
            "--resume: run.json's --agent-cmd had secrets masked; pass --agent-cmd again"
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
        models=models,
        k=manifest.k,
        filters=old_filters,
        judge=config.judge or manifest.judge,
        agent=config.agent or manifest.agent,
        agent_cmd=agent_cmd,
        agent_api=config.agent_api or _str_or_none(manifest.extra.get("agent_api")),
        keep_artifacts=config.keep_artifacts or manifest.keep_artifacts,
        out=config.out,
        resume=config.resume,
        concurrency=config.concurrency,
        executor=config.executor,  # where trials run belongs to the invocation
        ray_address=config.ray_address,
        skip_invalid=config.skip_invalid,
        argv=config.argv,
        fsync=config.fsync,
        handle_sigint=config.handle_sigint,
        baselines=config.baselines,
        allow_external_links=config.allow_external_links
        or manifest.extra.get("allow_external_links") is True,
        project=config.project,  # the invocation's trialrun.toml, as resolved by its caller
        judge_settings=config.judge_settings,
    )


def check_resumed_tasks(manifest: Manifest, tasks: Sequence[Task], warnings: list[str]) -> None:
    """The selected tasks must be the run's; a changed task file is a warning."""
    old_ids = [str(t.get("task_id")) for t in manifest.tasks]
    new_ids = [t.task_id for t in tasks]
    if old_ids and sorted(old_ids) != sorted(new_ids):
        raise UserError(
            "--resume: the selected tasks differ from run.json "
            f"({len(old_ids)} then, {len(new_ids)} now); restore the task files"
        )
    old_k = {t.get("task_id"): t.get("k") for t in manifest.tasks}
    for task in tasks:  # trials past run.json's k would make the run unreadable
        k = effective_k(task, manifest.k)
        if old_k.get(task.task_id) not in (None, k):
            raise UserError(
                f"--resume: task {task.task_id} now has k = {k}, run.json has k = "
                f"{old_k[task.task_id]}; restore {task.source} or start a new run"
            )
    old_hashes = {f.get("path"): f.get("sha256") for f in manifest.task_files}
    for task in tasks:
        source = str(task.source) if task.source else None
        if source and source in old_hashes and sha256_of(Path(source)) != old_hashes[source]:
            warnings.append(f"{task.source}: changed since the run started")


def _str_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None
