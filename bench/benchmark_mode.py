"""Records per second of benchmark mode: a SuperGPQA-layout dataset of N records, a
scripted model (no model time), the direct backend, through `run_suite` — dataset load,
one task per record, the trialrun runner and run folder, scoring, per-record lines and
the summary. Also times the dataset load alone (plain JSONL and through Hugging Face
`datasets`). Each figure min/median/max over --repeats repetitions (at least 3), with the
load at each. Usage: python bench/benchmark_mode.py [--records 500] [--workers 4]
[--repeats 3]. The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from _repeat import Series, add_repeats_arg, load_now

from trialrun.benchmarks import BENCHMARKS, BenchmarkDataset, run_suite


def write_data(folder: Path, n: int) -> Path:
    rows = [
        {
            "uuid": f"r{i}",
            "question": f"Question {i}?",
            "options": ["alpha", "beta", "gamma", "delta"],
            "answer_letter": "ABCD"[i % 4],
            "discipline": ["Science", "History", "Law"][i % 3],
        }
        for i in range(n)
    ]
    path = folder / "sg.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    (folder / "model.yaml").write_text(json.dumps({"default": [{"content": "The answer is B."}]}))
    return path


def one_repetition(records: int, workers: int) -> tuple[float, float, float, object]:
    """One pass: (suite seconds, plain load seconds, datasets load seconds, accuracy)."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        data = write_data(folder, records)
        bench = BENCHMARKS.get("supergpqa")()
        started = time.perf_counter()
        BenchmarkDataset(bench, str(data)).load(seed=1)
        plain_s = time.perf_counter() - started
        started = time.perf_counter()
        BenchmarkDataset(bench, str(data), use_datasets=True).load(seed=1)
        hf_s = time.perf_counter() - started
        suite = folder / "suite.toml"
        suite.write_text(
            f'[meta]\nname = "bench"\n[run]\nmax_workers = {workers}\n'
            f'output_dir = "{folder / "out"}"\n'
            '[[models]]\nname = "model.yaml"\nprovider = "scripted"\n'
            '[[benchmarks]]\nname = "supergpqa"\ndataset = "sg.jsonl"\n'
        )
        started = time.perf_counter()
        (outcome,) = run_suite(suite, echo=lambda _line: None)
        run_s = time.perf_counter() - started
    return run_s, plain_s, hf_s, outcome.summary["accuracy"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=500)
    parser.add_argument("--workers", type=int, default=4)
    add_repeats_arg(parser)
    args = parser.parse_args()
    suite_s = Series("whole suite", "s")
    per_s = Series("records per second", "records/s")
    plain = Series("dataset load, plain JSONL", "ms")
    hf = Series("dataset load, via datasets", "s")
    accuracy: list[object] = []
    for _ in range(max(args.repeats, 3)):
        load = load_now()
        run_s, plain_s, hf_s, acc = one_repetition(args.records, args.workers)
        suite_s.add(run_s, load)
        per_s.add(args.records / run_s, load)
        plain.add(plain_s * 1000, load)
        hf.add(hf_s, load)
        accuracy.append(acc)
    print(f"benchmark mode: {args.records} records, {args.workers} in flight")
    for series in (suite_s, per_s, plain, hf):
        print(f"  {series.line()}")
    print(json.dumps({
        "records": args.records,
        "workers": args.workers,
        "suite_seconds": suite_s.as_json(),
        "records_per_second": per_s.as_json(),
        "load_plain_jsonl_ms": plain.as_json(),
        "load_hf_datasets_seconds": hf.as_json(),
        "accuracy": accuracy,
    }))


if __name__ == "__main__":
    main()
