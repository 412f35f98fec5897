"""Where every executor hands a finished trial: the driver, the run folder's only writer.

A trial comes back as its results line and, from a worker, its transcript (a local trial
has written its transcript already). The sink writes the transcript, then the line (after
the stop rule has seen it: it may mark the line `settled_after`), then tells the hooks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from trialrun.rundir import ResultLine
    from trialrun.runner._config import RunHooks
    from trialrun.runner._plan import TrialSpec
    from trialrun.runner._stop_rule import StopRule
    from trialrun.runner._trial import RunContext


@dataclass(slots=True)
class TrialSink:
    """The run's writer of finished trials, and its stop rule's answer before each one."""

    ctx: RunContext
    stop_rule: StopRule
    hooks: RunHooks

    def skips(self, spec: TrialSpec) -> bool:
        """Whether early stop has settled this trial's task: it is not run."""
        return self.stop_rule.is_settled(spec.task.task_id, spec.model)

    def write(self, spec: TrialSpec, line: ResultLine, transcript: bytes | None) -> None:
        """Write a finished trial: its transcript (unless written already: None), then its
        results line; then the hooks."""
        ctx = self.ctx
        if transcript is not None:
            slug = ctx.model_slugs.get(spec.model) or spec.model
            rel, offset = ctx.rundir.append_transcript_line(slug, transcript)
            line.transcript = rel
            line.extra["transcript_offset"] = offset
        self.stop_rule.record(spec.task, line)
        ctx.rundir.append(line, sync=False)
        if ctx.io_pool is not None:
            ctx.rundir.sync_soon(ctx.io_pool)
        else:
            ctx.rundir.sync()
        if self.hooks.trial:
            self.hooks.trial(line)
