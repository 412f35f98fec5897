"""Benchmark `taubench`: every task of the chosen domains runs as a trialrun task, an
episode of k trials: the domain's policy as the agent's system prompt, the domain's
tools over the trial's own database, a simulated user (`user_model`, else the model
under test) playing the task's instruction who speaks first and ends the conversation
with τ-bench's stop signal, and the `taubench` grader's reward.

Suite entry: `name = "taubench"`, `dataset = "<τ-bench checkout>"` (or `--env PATH`),
`split = "airline"` / `"airline,retail"` / `"retail:train"`, `trials = 3`,
`user_model = "SPEC"` (or `--user-model`), `max_samples` (the first N tasks of each
domain, in published order, so task ids stay τ-bench's).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from trialrun.benchmarks._tasks import task_id_for
from trialrun.benchmarks._types import Benchmark, Record, ScoreResult, benchmark
from trialrun.benchmarks.taubench._domain import TauDomain, load_domain
from trialrun.benchmarks.taubench._layout import CLONE_HINT
from trialrun.benchmarks.taubench._selection import parse_selection
from trialrun.benchmarks.taubench._types import STOP_SIGNAL, TauTask
from trialrun.errors import UserError
from trialrun.tasks import Task

if TYPE_CHECKING:
    from trialrun.benchmarks._suite import PairRun

NAME = "taubench"
# what the user model answers first (τ-bench's user sees the same greeting)
GREETING = "Hi! How can I help you today?"
MAX_AGENT_TURNS = 30  # τ-bench's max_num_steps
MAX_USER_TURNS = 30
PERSONA = "a customer contacting the {domain} company's customer service by chat"
USER_RULES = (
    "Instruction (only you know it; the agent does not):\n{instruction}\n\n"
    "Rules: write one short message at a time, as this customer would; do not give away "
    "the whole instruction at once, only what the agent needs at each step; never make "
    "up information the instruction does not give (say you do not know or remember); "
    "when the instruction's goal is met, or you are transferred to a human agent, reply "
    "with {stop} alone to end the conversation."
)


def checkout_of(pair: PairRun) -> Path:
    """The pair's τ-bench checkout (`dataset`, relative to the suite file), or one line."""
    if not pair.dataset:
        raise UserError(
            f"{NAME} × {pair.model_name}: no τ-bench checkout; set dataset = \"PATH\" in its "
            f"[[benchmarks]] entry or pass --env PATH ({CLONE_HINT})"
        )
    path = Path(pair.dataset).expanduser()
    return path if path.is_absolute() else (pair.base / path)


def _record(domain: TauDomain, task: TauTask) -> Record:
    record_id = f"{domain.name}-{domain.split}-{task.task_id}"
    return Record(
        record_id=record_id,
        problem=task.instruction,
        reference={"actions": len(task.actions), "outputs": list(task.outputs)},
        subject=domain.name,
        metadata={"user_id": task.user_id, "task_index": task.task_id},
        task_id=task_id_for(NAME, record_id),
    )


def _task(
    domain: TauDomain, task: TauTask, record: Record, pair: PairRun, checkout: Path
) -> Task:
    source = {"checkout": str(checkout.resolve()), "domain": domain.name, "split": domain.split}
    user: dict[str, Any] = {
        "persona": PERSONA.format(domain=domain.name),
        "scenario": USER_RULES.format(instruction=task.instruction, stop=STOP_SIGNAL),
        "stop": STOP_SIGNAL,
        "max_turns": MAX_USER_TURNS,
        "opens": True,
    }
    if pair.user_model:
        user["model"] = pair.user_model
    return Task.model_validate(
        {
            "task_id": record.task_id,
            "suite": TauBench.suite,
            "description": f"τ-bench {domain.name} {domain.split} task {task.task_id}",
            "inputs": {
                "prompt": GREETING,
                "system_prompt": domain.policy,
                "user": user,
                "benchmark": NAME,
                "record_id": record.record_id,
                "generation": {
                    "temperature": pair.temperature,
                    "max_tokens": pair.max_tokens,
                    "seed": pair.seed,
                },
            },
            "graders": [{"type": NAME, **source, "task_index": task.task_id}],
            "tracked_metrics": ["solve_rate"],
            "tags": [NAME, domain.name],
            "trials": {"k": pair.trials},
            "environment": {
                "tools": [{NAME: source}],
                "budgets": {"max_turns": MAX_AGENT_TURNS},
            },
        }
    )


@benchmark(NAME)
class TauBench(Benchmark):
    description = "τ-bench: a simulated customer, a policy and a database (airline, retail)"
    default_backend = "agent"
    episodic = True

    def episodes(self, pair: PairRun) -> tuple[list[Record], list[Task]]:
        checkout = checkout_of(pair)
        records: list[Record] = []
        tasks: list[Task] = []
        for choice in parse_selection(pair.split, f"{NAME} × {pair.model_name}"):
            domain = load_domain(checkout, choice.domain, choice.split)
            chosen = domain.tasks[: pair.max_samples] if pair.max_samples else domain.tasks
            for tau_task in chosen:
                record = _record(domain, tau_task)
                records.append(record)
                tasks.append(_task(domain, tau_task, record, pair, checkout))
        return records, tasks

    async def score(self, record: Record, answer: str, judge: Any) -> ScoreResult:
        raise NotImplementedError("taubench episodes are scored by the taubench grader")
