"""`trialrun import tau-bench RESULTS.json -o DIR`: τ-bench's published results as a run."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer

from trialrun.errors import UserError


def add_tau_import(import_app: typer.Typer) -> None:
    @import_app.command("tau-bench")
    def import_tau(
        results: Path = typer.Argument(
            ..., help="A τ-bench results file: a JSON list of {task_id, trial, reward, info, "
            "traj}."),
        out: Path = typer.Option(..., "-o", "--out", help="The run folder to write (new)."),
        model: str | None = typer.Option(
            None, "--model", help="PROVIDER:MODEL of the run (default: from the file name)."),
        domain: str | None = typer.Option(
            None, "--domain", help="airline | retail (default: from the file name)."),
        env: Path | None = typer.Option(
            None, "--env", help="A τ-bench checkout: the environment --rescore replays in."),
        split: str = typer.Option("test", "--split", help="The task split the file ran."),
        rescore: bool = typer.Option(
            False, "--rescore", help="Replay each trial's tool calls in trialrun's "
            "environment and record its reward beside the recorded one."),
        as_json: bool = typer.Option(False, "--json", help="One JSON document on stdout."),
    ) -> None:
        """Turn a τ-bench results file into a run folder: one results line per trial
        (solved: reward 1; passed: the episode ran to its end), its trajectory as the
        transcript."""
        from trialrun.benchmarks import TauRescoreSource, import_tau_results
        from trialrun.core import redact_argv

        if rescore and env is None:
            raise UserError("--rescore needs --env PATH (your τ-bench checkout)")
        if env is not None and not rescore:
            raise UserError("--env is read by --rescore only; add --rescore or drop --env")
        source = TauRescoreSource(env) if env is not None else None
        done = import_tau_results(results, out, model=model, domain=domain, split=split,
                                  rescore_in=source, argv=redact_argv(sys.argv))
        named = done.named
        where = (f"domain {named.naming.domain} (from {named.domain_from})"
                 if named.naming.domain else "no domain (task ids taubench-<id>)")
        if as_json:
            payload = (done.rescore_json() if rescore else
                       {"trials": done.trials, "run_dir": str(done.run_dir),
                        "model": named.naming.model})
            payload.update({"tasks": done.tasks, "model_from": named.model_from,
                            "domain": named.naming.domain})
            print(json.dumps(payload, indent=2))
            return
        print(f"wrote {done.run_dir}: {done.trials} trials of {done.tasks} tasks; model "
              f"{named.naming.model} (from {named.model_from}), {where}")
        print("solve = τ-bench's reward 1 (its pass^k is trialrun's solve^k); pass = the "
              "episode ran to its end")
        if rescore:
            print(f"rescored in {done.rescore_env}: trialrun's reward agrees with the recorded "
                  f"one on {done.agree}/{len(done.rescored)} trials ({len(done.disagreements)} "
                  f"disagree, {len(done.mismatches)} of a mismatched task)")
            for r in done.disagreements:
                print(f"  disagree: task {r.task_id} trial {r.trial}: recorded {r.recorded:g}, "
                      f"trialrun {r.reward:g} ({r.reason})")
            reworded = done.rescore_json()["instruction_reworded"]
            if reworded:
                print(f"  note: {len(reworded)} task(s) reworded since the recording (the "
                      "instruction only; the reward reads the database and the outputs)")
            for item in done.rescore_json()["mismatched_tasks"]:
                print(f"  task mismatch: {item['mismatch']}")
        print(f"next: trialrun summarize {done.run_dir}")
