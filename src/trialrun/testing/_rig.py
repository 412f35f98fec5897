"""`Rig`: one eval trial run through `trialrun.run`, and what a test asserts on.

The eval becomes a one-task run (a `Task` object, its files seeded as the fixture) in a
run folder of its own, read back through `trialrun.rundir`: the final answer, the tool
calls in order (with results), the transcript, the kept workspace. `rig.run(prompt)`
continues the conversation in the same workspace (the chat so far goes in as prior
messages; tool calls are summarised in them).
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trialrun
from trialrun.rundir import ResultLine, RunDir, Transcript
from trialrun.sandbox import WorkspaceDiff, diff_snapshots, snapshot_dir
from trialrun.testing._spec import EvalSpec

PROVIDER_RETRIES = 3  # an infra error (unreachable, 429, 5xx) is retried this many times


class ProviderError(Exception):
    """The provider failed every attempt: the eval is skipped with this reason."""


def _as_turns(messages: list[dict[str, Any]]) -> list[dict[str, str]]:
    """Chat messages as prior turns (system dropped: the loop adds its own; a tool-call
    turn becomes a line naming its calls; tool results are left out)."""
    turns: list[dict[str, str]] = []
    for m in messages:
        role = m.get("role")
        if role == "user" and isinstance(m.get("content"), str):
            turns.append({"role": "user", "content": m["content"]})
        elif role == "assistant":
            text = m.get("content") if isinstance(m.get("content"), str) else ""
            calls = [c.get("function", c) for c in m.get("tool_calls") or []]
            named = "; ".join(f"called {c.get('name')}({c.get('arguments', '')})" for c in calls)
            turns.append({"role": "assistant", "content": text or named or "(no reply)"})
    return turns


@dataclass(repr=False)
class Rig:
    """The workspace, tool calls, transcript and answer of one eval trial."""

    spec: EvalSpec
    task_id: str
    model: str
    out: Path  # where this trial's run folders go
    seed_dir: Path
    workspace: Path | None = None
    result: str = ""
    tool_calls: list[trialrun.ToolCallRecord] = field(default_factory=list)
    transcript: Transcript | None = None
    line: ResultLine | None = None
    run_dirs: list[Path] = field(default_factory=list)
    _messages: list[dict[str, Any]] = field(default_factory=list)

    # --- running ---
    def start(self) -> str:
        self.seed_dir.mkdir(parents=True, exist_ok=True)
        for name, content in self.spec.files.items():
            target = self.seed_dir / name
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                target.write_bytes(content)
            else:
                target.write_text(content, encoding="utf-8")
        return self._trial(self.spec.prompt, self.seed_dir, [])

    def run(self, prompt: str) -> str:
        """A follow-up turn in the same workspace; returns (and sets) the new answer."""
        if self.workspace is None:
            raise RuntimeError("rig.run() before the first turn")
        fixture = self.out / f"turn-{len(self.run_dirs)}"
        shutil.copytree(self.workspace, fixture, symlinks=True)
        return self._trial(prompt, fixture, _as_turns(self._messages))

    def _task(self, prompt: str, fixture: Path, prior: list[dict[str, str]]) -> Any:
        spec = self.spec
        task = trialrun.Task.model_validate({
            "task_id": self.task_id,
            "suite": "golden",
            "description": f"pytest eval {self.task_id}",
            "inputs": {"prompt": prompt, "messages": prior},
            "environment": {
                "tools": list(spec.tools),
                "budgets": {"max_turns": spec.max_turns, "timeout_s": float(spec.timeout_s)},
            },
            "graders": [{"type": "toolCallBudget", "max": spec.tool_call_budget}],
            "tracked_metrics": ["pass^k"],
            "trials": {"k": 1},
            "policy": "ALWAYS_PASSES" if spec.policy == "USUALLY_FAILS" else spec.policy,
        })
        task.set_provenance(None, fixture_path=fixture, fixtures_root=fixture.parent)
        return task

    def _trial(self, prompt: str, fixture: Path, prior: list[dict[str, str]]) -> str:
        reasons: list[str] = []
        for _attempt in range(1 + PROVIDER_RETRIES):
            out = self.out / f"runs-{len(self.run_dirs)}"
            outcome = trialrun.run(trialrun.RunConfig(
                tasks=[self._task(prompt, fixture, prior)],
                models=[self.model],
                agent=self.spec.agent,
                k=1,
                out=out,
                keep_artifacts=True,
                concurrency=1,
                argv=["pytest", self.task_id],
                handle_sigint=False,
            ))
            self.run_dirs.append(outcome.path)
            (line,) = outcome.results
            if not line.is_infra:
                self._take(RunDir.open(outcome.path), line)
                return self.result
            reasons.append(str((line.error or {}).get("message") or "provider error"))
        raise ProviderError(
            f"provider error on {self.model} after {1 + PROVIDER_RETRIES} attempts: "
            f"{reasons[-1]}"
        )

    def _take(self, run: RunDir, line: ResultLine) -> None:
        transcript = run.transcript_or_empty(line)
        results = transcript.tool_results
        for i, call in enumerate(line.tool_calls):
            self.tool_calls.append(trialrun.ToolCallRecord(
                name=str(call.get("name")),
                arguments=dict(call.get("arguments") or {}),
                ok=bool(call.get("ok")),
                result=results[i] if i < len(results) else "",
            ))
        self.line = line
        self.transcript = transcript
        self._messages = transcript.messages
        self.result = line.final_text or transcript.final_text or ""
        self.workspace = run.workspace_dir(line)

    def __repr__(self) -> str:
        return f"<Rig {self.task_id} on {self.model}: {len(self.tool_calls)} tool call(s)>"

    # --- what tests assert on ---
    def called(self, name: str, **arguments: Any) -> bool:
        """Whether a tool call named `name` had (at least) these arguments."""
        return any(
            c.name == name and all(c.arguments.get(k) == v for k, v in arguments.items())
            for c in self.tool_calls
        )

    def _path(self, path: str) -> Path:
        if self.workspace is None:
            raise RuntimeError("the eval has not run")
        target = (self.workspace / path).resolve()
        if not target.is_relative_to(self.workspace.resolve()):
            raise ValueError(f"{path}: outside the workspace")
        return target

    def read(self, path: str) -> str:
        return self._path(path).read_text(encoding="utf-8")

    def exists(self, path: str) -> bool:
        return self._path(path).exists()

    def diff(self) -> WorkspaceDiff:
        """Created, modified and deleted files against the seeded `files`."""
        return diff_snapshots(snapshot_dir(self.seed_dir), snapshot_dir(self._path(".")))

    @property
    def error(self) -> dict[str, Any] | None:
        """The trial's error ({kind, message}: a timeout, max_turns, …), None when none."""
        return self.line.error if self.line else None

    def describe(self) -> str:
        """What a failing eval prints: model, tool calls in order, final answer."""
        lines = [f"model: {self.model}"]
        if self.spec.agent:
            lines.append(f"agent: {self.spec.agent}")
        if self.error:
            lines.append(f"error: {self.error.get('kind')}: {self.error.get('message')}")
        lines.append(f"tool calls ({len(self.tool_calls)}):")
        for i, call in enumerate(self.tool_calls, 1):
            mark = "ok" if call.ok else "ERROR"
            args = json.dumps(call.arguments, ensure_ascii=False)
            result = call.result.replace("\n", "\\n")
            if len(result) > 200:
                result = result[:200] + "…"
            lines.append(f"  {i}. {call.name}({args}) [{mark}] -> {result}")
        lines.append(f"final answer: {self.result!r}")
        if self.run_dirs:
            lines.append(f"run folder: {self.run_dirs[-1]}")
        return "\n".join(lines)
