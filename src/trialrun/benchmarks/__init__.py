"""Benchmark mode: models × benchmarks suites from one TOML file, dataset providers,
research scorers (supergpqa, gaia, frames, wildchat), τ-bench's environments (taubench)
and run-all.

Every dataset record runs as a trialrun task (k = 1, or the suite's `trials`) whose
grader is the benchmark's scorer, so the runner, run folder, metrics, baselines, gates
and reports apply. OpenJarvis's catalogue resolves the names trialrun does not ship
(`trialrun.benchmarks.openjarvis`). A new benchmark is one file and a registration
(`@benchmark("name")`, or the `trialrun.benchmarks` entry point group).
"""

from trialrun.benchmarks import (
    _grader,  # noqa: F401  (registers the scorer graders)
    taubench,  # noqa: F401  (its grader and tool pack)
)
from trialrun.benchmarks._catalogue import (
    BenchmarkListing,
    dataset_for,
    find_benchmark,
    known_names,
    origin_of,
)
from trialrun.benchmarks._catalogue import listings as benchmark_listings
from trialrun.benchmarks._datasets import BenchmarkDataset, DatasetProvider, hf_rows, plain_rows
from trialrun.benchmarks._eval_runner import EvalRunner, single_pair
from trialrun.benchmarks._judging import LLMJudgeScorer
from trialrun.benchmarks._records import (
    is_records_file,
    read_records,
    record_line,
    summarize_records,
)
from trialrun.benchmarks._runner import (
    PairOutcome,
    local_copies,
    pair_line,
    run_all,
    run_benchmark,
    run_pairs,
    run_suite,
)
from trialrun.benchmarks._specs import model_slug, model_spec
from trialrun.benchmarks._suite import (
    Overrides,
    PairRun,
    Suite,
    expand,
    is_suite_file,
    load_suite,
    suite_line,
)
from trialrun.benchmarks._suite_check import SuiteCheck, check_suite_file
from trialrun.benchmarks._types import (
    BENCHMARKS,
    Benchmark,
    DatasetSource,
    InferenceBackend,
    Record,
    Scorer,
    ScoreResult,
    benchmark,
)
from trialrun.benchmarks.backends import ALIASES, BACKENDS, ModelBackend, canonical_backend
from trialrun.benchmarks.openjarvis import (
    OpenJarvisBenchmark,
    OpenJarvisDataset,
)
from trialrun.benchmarks.openjarvis import installed as openjarvis_installed
from trialrun.benchmarks.taubench_results import (
    ImportResult as TauImportResult,
)
from trialrun.benchmarks.taubench_results import (
    RescoreSource as TauRescoreSource,
)
from trialrun.benchmarks.taubench_results import (
    import_results as import_tau_results,
)

__all__ = [
    "SuiteCheck",
    "check_suite_file",
    "BenchmarkListing",
    "OpenJarvisBenchmark",
    "OpenJarvisDataset",
    "benchmark_listings",
    "dataset_for",
    "find_benchmark",
    "known_names",
    "openjarvis_installed",
    "origin_of",
    "ALIASES",
    "BACKENDS",
    "BENCHMARKS",
    "Benchmark",
    "BenchmarkDataset",
    "DatasetProvider",
    "DatasetSource",
    "EvalRunner",
    "InferenceBackend",
    "LLMJudgeScorer",
    "ModelBackend",
    "Overrides",
    "PairOutcome",
    "PairRun",
    "Record",
    "ScoreResult",
    "Scorer",
    "Suite",
    "TauImportResult",
    "TauRescoreSource",
    "benchmark",
    "canonical_backend",
    "expand",
    "hf_rows",
    "import_tau_results",
    "is_records_file",
    "is_suite_file",
    "local_copies",
    "load_suite",
    "model_slug",
    "model_spec",
    "pair_line",
    "plain_rows",
    "read_records",
    "record_line",
    "run_all",
    "run_benchmark",
    "run_pairs",
    "run_suite",
    "single_pair",
    "suite_line",
    "summarize_records",
]
