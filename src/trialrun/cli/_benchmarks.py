"""Benchmark mode on the command line: `run suite.toml` / `run --config suite.toml`,
`run-all`, `list --benchmarks` and `summarize FILE.jsonl` of per-record results.
Thin: the work lives in `trialrun.benchmarks`."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, NoReturn

import typer


def _fail(message: str, code: int = 2) -> NoReturn:
    print(f"trialrun: {message}", file=sys.stderr)
    raise SystemExit(code)


def suite_of(config: Path | None, paths: list[Path] | None) -> Path | None:
    """The suite file to run: `--config FILE`, or a lone `.toml` path shaped like a suite."""
    if config is not None:
        if paths:
            _fail("--config: pass either a suite config or task paths, not both")
        if not config.is_file():
            _fail(f"--config {config}: no such file; pass a suite .toml file")
        return config
    if paths and len(paths) == 1:
        from trialrun.benchmarks import is_suite_file

        if is_suite_file(paths[0]):
            return paths[0]
    return None


def _echo_err(line: str) -> None:
    from rich.console import Console
    from rich.markup import escape

    Console(stderr=True).print(escape(line), highlight=False, soft_wrap=True)


def _echo(line: str) -> None:
    if line.startswith(("warning:", "error:")):
        _echo_err(line)
    else:
        print(line, flush=True)


def _run(call: Any, as_json: bool) -> NoReturn:
    """Run `call(echo)`; print the per-pair lines (or one JSON document); exit."""
    from trialrun import UserError

    lines: list[str] = []
    echo = lines.append if as_json else _echo
    try:
        outcomes = call(echo)
    except UserError as exc:
        _fail(exc.describe(), exc.exit_code)
    interrupted = any(o.interrupted for o in outcomes)
    if as_json:
        doc = {
            "runs": [
                {
                    **o.summary,
                    "records_file": str(o.pair.records_path),
                    "summary_file": str(o.pair.summary_path),
                    "resumed": o.resumed,
                }
                for o in outcomes
            ],
            "messages": [line for line in lines if not line.startswith("warning:")],
            "warnings": [line[len("warning: ") :] for line in lines if line.startswith("warning:")],
            "interrupted": interrupted,
        }
        sys.stdout.write(json.dumps(doc, indent=2, ensure_ascii=False, default=str) + "\n")
    elif interrupted:
        _echo_err("interrupted: finished records are kept; run the same command to resume")
    raise SystemExit(130 if interrupted else 0)


def run_suite_command(
    suite: Path,
    *,
    models: list[str],
    out: Path | None,
    concurrency: int | None,
    as_json: bool,
    trials: int | None = None,
    **generation: Any,
) -> NoReturn:
    from trialrun.benchmarks import Overrides, run_suite

    overrides = Overrides(
        models=models, output_dir=out, max_workers=concurrency, trials=trials, **generation
    )
    argv = ["trialrun", *sys.argv[1:]]
    _run(lambda echo: run_suite(suite, overrides, echo, argv=argv), as_json)


BENCH_HELP = (
    "Run one benchmark for the -m model(s), no suite file (a path given: its local dataset)."
)


def run_benchmark_command(
    bench: str | None,
    backend: str | None,
    paths: list[Path] | None,
    *,
    models: list[str],
    out: Path | None,
    concurrency: int | None,
    judge: str | None,
    as_json: bool,
    trials: int | None = None,
    **generation: Any,
) -> NoReturn:
    """`run --benchmark NAME -m MODEL [--backend B] [--max-samples N] [DATASET]`: one
    benchmark, as the seed's `run -b NAME -m MODEL`, through the suite path (preflight,
    per-record files, summaries)."""
    from trialrun.benchmarks import Overrides, Suite, expand, run_pairs, suite_line

    if bench is None:
        _fail("--backend: only with --benchmark NAME (a suite names its backends itself)")
    if not models:
        _fail(f"--benchmark {bench}: give the model to run with -m SPEC")
    if paths and len(paths) > 1:
        _fail(f"--benchmark {bench}: give at most one path (the benchmark's local dataset)")
    entry: dict[str, Any] = {"name": bench}
    if backend is not None:
        entry["backend"] = backend
    if paths:
        entry["dataset"] = str(paths[0])
    suite = Suite(
        path=Path("--benchmark"),
        meta={"name": bench},
        defaults={},
        judge={"model": judge} if judge else {},
        run={},
        models=[{"name": m} for m in models],
        benchmarks=[entry],
    )
    overrides = Overrides(
        output_dir=out, max_workers=concurrency, trials=trials, **generation
    )
    argv = ["trialrun", *sys.argv[1:]]

    def call(echo: Any) -> Any:
        pairs = expand(suite, overrides)
        echo(suite_line(suite, pairs))
        return run_pairs(pairs, echo, argv=argv)

    _run(call, as_json)


def summarize_records_command(path: Path, as_json: bool) -> None:
    """`summarize FILE.jsonl` for a per-record file: print its summary and exit; any
    other path: return (the run-folder summarize goes on)."""
    from trialrun import UserError
    from trialrun.benchmarks import is_records_file, read_records, summarize_records

    if not is_records_file(path):
        return
    try:
        summary = summarize_records(read_records(path))
    except UserError as exc:
        _fail(exc.describe(), exc.exit_code)
    if as_json:
        sys.stdout.write(json.dumps(summary, indent=2, ensure_ascii=False) + "\n")
        raise SystemExit(0)
    print(f"{summary['benchmark']} × {summary['model']} ({summary['backend']})")
    if summary["accuracy"] is None:
        print("accuracy: no scored records")
    else:
        low, high = summary["accuracy_ci95"]
        print(
            f"accuracy: {summary['accuracy']:.1%} ({summary['correct']}/"
            f"{summary['scored_samples']} scored; 95% CI {low:.1%}–{high:.1%})"
        )
    print(
        f"records: {summary['total_samples']}, errors: {summary['errors']}, "
        f"undetermined: {summary['undetermined']}"
    )
    hat = summary["hat_k"]
    if hat["k"] > 1:
        shown = [
            "–" if v is None else f"{v:.1%}" for v in (hat["pass_hat_k"], hat["solve_hat_k"])
        ]
        print(
            f"k={hat['k']} over {hat['records']} record(s): solve^k {shown[1]}, pass^k "
            f"(completed) {shown[0]} ({hat['records_short']} with fewer trials)"
        )
    if summary["mean_latency_seconds"] is not None:
        print(f"mean latency: {summary['mean_latency_seconds']:.3f}s")
    print(f"total cost: ${summary['total_cost_usd']:.4f}")
    for subject, row in summary["per_subject"].items():
        acc = "–" if row["accuracy"] is None else f"{row['accuracy']:.1%}"
        print(
            f"  {subject}: {acc} ({row['correct']}/{row['scored']} scored, {row['total']} in all)"
        )
    raise SystemExit(0)


def list_benchmarks(as_json: bool) -> NoReturn:
    """`list --benchmarks` (and `list` with no paths): one line per benchmark with where
    it comes from (trialrun, openjarvis), then the backends."""
    from dataclasses import asdict

    from trialrun.benchmarks import ALIASES, BACKENDS, benchmark_listings, openjarvis_installed

    rows = benchmark_listings()
    backends = {name: [a for a, target in ALIASES.items() if target == name] for name in BACKENDS}
    if as_json:
        doc = {
            "benchmarks": [asdict(row) for row in rows],
            "backends": backends,
            "openjarvis": openjarvis_installed(),
        }
        sys.stdout.write(json.dumps(doc, indent=2) + "\n")
        raise SystemExit(0)
    for row in rows:
        source = f"{row.dataset} ({row.split})" if row.dataset else "its provider's dataset"
        print(f"{row.name}\t[{row.origin}]\t{source}\t{row.backend}\t{row.description}")
    if not openjarvis_installed():
        print("(OpenJarvis's benchmarks too: pip install 'trialrun[openjarvis]')")
    for name, aliases in backends.items():
        also = f" (also {', '.join(aliases)})" if aliases else ""
        print(f"backend {name}{also}")
    raise SystemExit(0)


def named_copies(given: list[str]) -> dict[str, str]:
    """`--dataset NAME=PATH` values as {NAME: PATH}."""
    from trialrun import UserError

    copies: dict[str, str] = {}
    for item in given:
        name, sep, path = item.partition("=")
        if not sep or not name.strip() or not path.strip():
            raise UserError(f"--dataset {item}: expected NAME=PATH, e.g. supergpqa=data/sg.jsonl")
        copies[name.strip()] = path.strip()
    return copies


def register(app: typer.Typer) -> None:
    """Add `run-all` (the suite forms of run, list and summarize live with those)."""

    @app.command("run-all")
    def run_all_command(
        model: list[str] = typer.Option(..., "--model", "-m", help="Model spec (repeatable)."),
        max_samples: int = typer.Option(
            None, "--max-samples", help="Records per benchmark (default: all)."
        ),
        judge: str = typer.Option(None, "--judge", help="Judge model spec for judged scorers."),
        out: Path = typer.Option(
            Path("results"), "--output-dir", "--out", help="Where results go (default results/)."
        ),
        engine: str = typer.Option(
            None, "--engine", "-e", help="Every model's engine (ollama, vllm, llamacpp, cloud, …)."
        ),
        dataset: list[str] = typer.Option(
            None, "--dataset", help="A benchmark's local copy: NAME=PATH (repeatable)."
        ),
        data_dir: Path = typer.Option(
            None, "--data-dir", help="A folder of local copies (NAME.jsonl/.csv/.parquet or NAME/)."
        ),
        concurrency: int = typer.Option(None, "--concurrency", "-j", help="Trials in flight."),
        temperature: float = typer.Option(None, "--temperature", help="Sampling temperature."),
        max_tokens: int = typer.Option(None, "--max-tokens", help="Max tokens a reply."),
        seed: int = typer.Option(None, "--seed", help="Dataset shuffle and model seed."),
        split: str = typer.Option(None, "--split", help="The dataset split."),
        as_json: bool = typer.Option(False, "--json", help="One JSON document on stdout."),
    ) -> None:
        """Run every built-in benchmark for the given models, on its default dataset or a
        local copy (--dataset, --data-dir)."""
        from trialrun.benchmarks import Overrides, local_copies, run_all

        overrides = Overrides(
            temperature=temperature,
            max_tokens=max_tokens,
            seed=seed,
            split=split,
            max_workers=concurrency,
        )
        argv = ["trialrun", *sys.argv[1:]]

        def call(echo: Any) -> Any:
            datasets = local_copies(data_dir) if data_dir is not None else {}
            datasets.update(named_copies(dataset or []))
            return run_all(
                list(model),
                max_samples=max_samples,
                judge=judge,
                output_dir=out,
                overrides=overrides,
                echo=echo,
                argv=argv,
                engine=engine,
                datasets=datasets,
            )

        _run(call, as_json)
