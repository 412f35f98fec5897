"""The options of `trialrun run`, one constant each: the command's signature names them, so
the command reads as its parameters and its help text stays in one place."""

from __future__ import annotations

import typer

from trialrun.cli._benchmarks import BENCH_HELP
from trialrun.cli._history import STORE_HELP

PATHS = typer.Argument(
    None, help="Task files or folders (scanned recursively); optional with --resume."
)
MODEL = typer.Option(
    None, "--model", "-m", help="Model spec (repeat to compare models); default: local."
)
K = typer.Option(None, "-k", help="Trials per task (overrides suite and task k).")
TASK = typer.Option(None, "--task", help="Only task ids matching this glob.")
SUITE = typer.Option(None, "--suite", help="Only tasks of this suite.")
TIER = typer.Option(None, "--tier", help="Only tasks of this tier (T1–T4).")
TAG = typer.Option(None, "--tag", help="Only tasks with this tag.")
CONCURRENCY = typer.Option(
    None, "--concurrency", "-j", help="Trials in flight (default 1 for local, else 4)."
)
OUT = typer.Option(
    None, "--out", help="Where run folders go (default results/; suites: output_dir)."
)
RESUME = typer.Option(
    None, "--resume", help="Run only the missing trials of this run folder."
)
ALLOW_EXTERNAL_LINKS = typer.Option(
    False,
    "--allow-external-links",
    help="Accept fixture symlinks that resolve outside the suite folder.",
)
KEEP_ARTIFACTS = typer.Option(
    False, "--keep-artifacts", help="Keep each trial's workspace under RUN/workspaces/."
)
SKIP_INVALID = typer.Option(
    False, "--skip-invalid", help="Run the valid tasks even when some files are invalid."
)
JUDGE = typer.Option(None, "--judge", help="Judge model spec for judge graders.")
AGENT = typer.Option(
    None,
    "--agent",
    help="The agent instead of the loop: a preset (gemini-cli, claude-code, codex) or"
    " package.module:function.",
)
AGENT_CMD = typer.Option(
    None, "--agent-cmd", help="Your agent as a command run in the workspace."
)
AGENT_API = typer.Option(
    None,
    "--agent-api",
    help="The wire API --agent-cmd speaks: chat, responses, anthropic or gemini"
    " (default: every API's base URL is exported).",
)
BASELINES = typer.Option(
    None, "--baselines", help="Folder of blessed baselines (default ./baselines)."
)
JUNIT = typer.Option(None, "--junit", help="Also write JUnit XML here.")
MARKDOWN = typer.Option(
    None, "--markdown", help="Also write a Markdown summary here (GitHub step summary)."
)
AS_JSON = typer.Option(False, "--json", help="One JSON document on stdout.")
SUITE_CONFIG = typer.Option(
    None, "--config", help="A benchmark suite (TOML): run its models × benchmarks."
)
TEMPERATURE = typer.Option(None, "--temperature", help="Suites: temperature.")
MAX_TOKENS = typer.Option(None, "--max-tokens", help="Suites: max tokens a reply.")
SEED = typer.Option(None, "--seed", help="Suites: dataset shuffle and model seed.")
MAX_SAMPLES = typer.Option(
    None, "--max-samples", help="Suites: records per benchmark."
)
SPLIT = typer.Option(None, "--split", help="Suites: the dataset split.")
USER_MODEL = typer.Option(
    None, "--user-model", help="Suites: the simulated user's model spec (taubench)."
)
ENV = typer.Option(
    None, "--env", help="Suites: a τ-bench checkout for taubench (its dataset)."
)
BENCH = typer.Option(None, "--benchmark", "-b", help=BENCH_HELP)
BACKEND = typer.Option(None, "--backend", help="With --benchmark: direct or agent.")
TRIGGER = typer.Option(
    None, "--trigger", help="Recorded in the history: ci, nightly or local "
    "(default: ci when $CI is set, else local)."
)
STORE = typer.Option(None, "--store", help=STORE_HELP)
SHOW_ALL = typer.Option(
    False, "--all", help="Every task in the end table (default: the 50 worst)."
)
EARLY_STOP = typer.Option(
    False,
    "--early-stop",
    help="Skip a task's remaining trials once its verdict is settled (pass^k/solve^k:"
    " the first unsolved trial; pass@k: the first solved one) and, for a task in the"
    " model's baseline, no outcome of them could change the regression test's answer"
    " (per suite: [run] early_stop in trialrun.toml).",
)
EXECUTOR = typer.Option(
    None,
    "--executor",
    help="Where trials run: local (default; [run] executor in trialrun.toml) or ray.",
)
RAY_ADDRESS = typer.Option(
    None, "--ray-address", help="With --executor ray: an existing cluster (host:port)."
)
PROCESSES = typer.Option(
    None,
    "--processes",
    help="Local executor: spread the trials in flight over N worker processes (or"
    " auto: one per core); for many trials in flight against a fast server"
    " (default 1; [run] processes in trialrun.toml).",
)
