"""Records per second of benchmark mode: a SuperGPQA-layout dataset of N records, a
scripted model (no model time), the direct backend, through `run_suite` — dataset load,
one task per record, the trialrun runner and run folder, scoring, per-record lines and
the summary. Also times the dataset load alone (plain JSONL and through Hugging Face
`datasets`). Usage: python bench/benchmark_mode.py [--records 500] [--workers 4]
The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=500)
    parser.add_argument("--workers", type=int, default=4)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        data = write_data(folder, args.records)
        bench = BENCHMARKS.get("supergpqa")()
        started = time.perf_counter()
        BenchmarkDataset(bench, str(data)).load(seed=1)
        plain_s = time.perf_counter() - started
        started = time.perf_counter()
        BenchmarkDataset(bench, str(data), use_datasets=True).load(seed=1)
        hf_s = time.perf_counter() - started
        suite = folder / "suite.toml"
        suite.write_text(
            f'[meta]\nname = "bench"\n[run]\nmax_workers = {args.workers}\n'
            f'output_dir = "{folder / "out"}"\n'
            '[[models]]\nname = "model.yaml"\nprovider = "scripted"\n'
            '[[benchmarks]]\nname = "supergpqa"\ndataset = "sg.jsonl"\n'
        )
        started = time.perf_counter()
        (outcome,) = run_suite(suite, echo=lambda _line: None)
        run_s = time.perf_counter() - started
    figures = {
        "records": args.records,
        "workers": args.workers,
        "suite_seconds": round(run_s, 3),
        "records_per_second": round(args.records / run_s, 1),
        "load_plain_jsonl_seconds": round(plain_s, 4),
        "load_hf_datasets_seconds": round(hf_s, 3),
        "accuracy": outcome.summary["accuracy"],
    }
    print(f"benchmark mode: {args.records} records in {run_s:.2f}s "
          f"({figures['records_per_second']} records/s, {args.workers} in flight)")
    print(f"dataset load: plain JSONL {plain_s * 1000:.1f} ms, via datasets {hf_s:.2f} s")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
