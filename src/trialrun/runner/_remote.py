"""Trials run away from the driver (Ray tasks, the run's worker processes): the job every
worker needs, what a worker builds from it, and the driver's side of writing what comes
back. The driver stays the run folder's only writer: a worker hands back the results line
and its transcript, the driver's `TrialSink` appends both, transcript first."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from trialrun.agents import AgentSettings, ConversingAgent, ToolLoopAgent, make_agent
from trialrun.errors import UserError
from trialrun.judge import JudgeModel, JudgeSettings
from trialrun.models import ProviderSettings, create_model
from trialrun.rundir import ResultLine, Transcript, transcript_line
from trialrun.tools import ToolSettings
from trialrun.version import __version__

if TYPE_CHECKING:
    from trialrun.agents import Agent
    from trialrun.models import Model
    from trialrun.runner._plan import TrialSpec
    from trialrun.runner._trial import RunContext

T = TypeVar("T")

# what a worker and its driver exchange; bumped whenever that changes, so a worker node
# with another trialrun installed is one clear error, not a confusing failure
PROTOCOL = 6
MISMATCH_FIX = "install the same trialrun on the driver and on every worker node"


def protocol_mismatch(theirs: object) -> UserError:
    return UserError(
        f"a worker runs trialrun {__version__} (worker protocol {PROTOCOL}), the driver's "
        f"protocol is {theirs}; {MISMATCH_FIX}"
    )


@dataclass(slots=True)
class WorkerJob:
    """What every worker needs besides the trial: how to build models, judge and agent."""

    model_specs: dict[str, str]  # label -> spec (labels are what results lines name)
    judge_spec: str | None = None
    agent: str | None = None
    agent_cmd: str | None = None
    agent_api: str | None = None  # the wire API --agent-cmd speaks
    agent_timeout_s: float | None = None
    address: str | None = None  # Ray: the cluster's address (None: a local one)
    k_of: dict[str, int] = field(default_factory=dict)  # task id -> its k in this run
    infra_trials: int = 0  # re-runs of a trial ending in an infra error ([retries])
    task_agents: dict[str, str] = field(default_factory=dict)  # task id → its own agent
    judge_settings: JudgeSettings = field(default_factory=JudgeSettings)  # the driver's
    tool_settings: ToolSettings = field(default_factory=ToolSettings)  # the driver's [tools]
    # the driver's trialrun.toml, its part for models and agents: a worker reads no file
    providers: ProviderSettings = field(default_factory=ProviderSettings)
    agent_settings: AgentSettings = field(default_factory=AgentSettings)
    protocol: int = PROTOCOL  # the driver's

    def check_protocol(self) -> None:
        """On the worker: refuse a job from a driver of another protocol."""
        if getattr(self, "protocol", None) != PROTOCOL:
            raise protocol_mismatch(getattr(self, "protocol", "older"))


def check_returned(line: object, transcript: object) -> None:
    """On the driver: what a worker handed back has this version's shape (a worker with
    an older trialrun returns other types)."""
    if not isinstance(line, ResultLine) or not isinstance(transcript, bytes | None):
        raise UserError(
            f"a worker handed back {type(line).__name__} and {type(transcript).__name__}, "
            f"not this trialrun's results line and transcript; {MISMATCH_FIX}"
        )


class WorkerKit:
    """A worker's models, judge and agent, each built once, on first use (a `local`
    model loads once per worker process)."""

    def __init__(self, job: WorkerJob) -> None:
        self.job = job
        self._made: dict[str, Any] = {}

    def _once(self, key: str, make: Callable[[], T]) -> T:
        if key not in self._made:
            self._made[key] = make()
        made: T = self._made[key]
        return made

    def model(self, label: str) -> Model | None:
        spec = self.job.model_specs.get(label)
        if spec is None or (self.byo and label.startswith("agent:")):
            return None
        providers = self.job.providers
        return self._once(f"model:{spec}", lambda: create_model(spec, settings=providers))

    def judge(self) -> JudgeModel | None:
        spec, settings, providers = self.job.judge_spec, self.job.judge_settings, self.job.providers
        if not spec:
            return None
        return self._once(
            f"judge:{spec}",
            lambda: JudgeModel(create_model(spec, flag="--judge", settings=providers), settings),
        )

    def agent(self) -> Agent:
        job = self.job
        return self._once(
            "agent",
            lambda: (
                ConversingAgent(
                    make_agent(
                        job.agent,
                        job.agent_cmd,
                        timeout_s=job.agent_timeout_s,
                        agent_api=getattr(job, "agent_api", None),
                        settings=job.agent_settings,
                    ),
                    job.providers,
                )
                if self.byo
                else ToolLoopAgent(providers=job.providers)
            ),
        )

    def task_agents(self) -> dict[str, Agent]:
        """task id → its own agent (a task file's `agent:`), each spec built once."""

        job = self.job
        own: dict[str, str] = getattr(job, "task_agents", {})
        def build(spec: str) -> Agent:
            agent = make_agent(
                spec, None, timeout_s=job.agent_timeout_s, settings=job.agent_settings
            )
            return ConversingAgent(agent, job.providers)

        return {
            task_id: self._once(f"agent:{spec}", functools.partial(build, spec))
            for task_id, spec in own.items()
        }

    @property
    def byo(self) -> bool:
        return bool(self.job.agent or self.job.agent_cmd)

    async def aclose(self) -> None:
        for made in self._made.values():
            close = getattr(made, "aclose", None)
            if callable(close):
                with contextlib.suppress(Exception):  # closing must not hide results
                    await close()


class CapturedTranscripts:
    """Stands in for the RunDir on a worker: each transcript is encoded and kept under a
    token (returned where the file offset would be) for the driver to write."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or Path(".")  # the run folder (`--keep-artifacts` moves into it)
        self._kept: dict[int, bytes] = {}
        self._next = 0

    def append_transcript(self, model_slug: str, transcript: Transcript) -> tuple[str, int]:
        self._next += 1
        self._kept[self._next] = transcript_line(transcript)
        return "", self._next

    def take(self, line: ResultLine) -> bytes | None:
        """The transcript of `line` (kept under its token), removed from the worker."""
        return self._kept.pop(line.extra.get("transcript_offset", -1), None)


def infra_line(spec: TrialSpec, ctx: RunContext, message: str) -> tuple[ResultLine, bytes]:
    """The results line (and transcript) of a trial no worker could run."""
    error = {"kind": "infra", "message": message}
    prep = ctx.prep[spec.task.task_id]
    line = ResultLine(
        task_id=spec.task.task_id,
        model=spec.model,
        trial=spec.trial,
        passed=None,
        solve=None,
        provider=spec.model.partition(":")[0],
        error=error,
        extra={**prep.meta, "user_message": spec.task.inputs.prompt},
    )
    transcript = Transcript(
        task_id=spec.task.task_id, model=spec.model, trial=spec.trial, messages=[], error=error
    )
    return line, transcript_line(transcript)
