"""The TOML suite config: `[meta]`, `[defaults]`, `[judge]`, `[run]`, `[[models]]`,
`[[benchmarks]]`, parsed and checked at the edge, then expanded to one run per model ×
benchmark (precedence: benchmark > model > defaults > built-in).

Every error names the file, the section, the entry and the field. Keys trialrun has no
use for (`num_gpus` on a model, `engine` under `[judge]`) are accepted with one warning
per section and key.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trialrun.benchmarks._catalogue import find_benchmark, known_names
from trialrun.benchmarks._datasets import local_split_problem
from trialrun.benchmarks._pair import PairRun as PairRun  # re-exported: the suite's pairs
from trialrun.benchmarks._specs import model_spec
from trialrun.benchmarks._suite_toml import read_suite_toml
from trialrun.benchmarks.backends import BACKENDS, canonical_backend
from trialrun.benchmarks.openjarvis import OPENJARVIS_NAMES, caveat, installed, missing_line
from trialrun.errors import UserError
from trialrun.tools import TOOL_PACKS

BUILTIN_TEMPERATURE = 0.0
BUILTIN_MAX_TOKENS = 2048
DEFAULT_OUTPUT_DIR = "results/"
DEFAULT_SEED = 42

_NUMBER = (int, float)
# section → {key: (types, description)}
SECTIONS: dict[str, dict[str, tuple[tuple[type, ...], str]]] = {
    "meta": {"name": ((str,), "a string"), "description": ((str,), "a string")},
    "defaults": {
        "temperature": (_NUMBER, "a number"),
        "max_tokens": ((int,), "an integer"),
    },
    "judge": {
        "model": ((str,), "a string"),
        "provider": ((str,), "a string"),
        "base_url": ((str,), "a string"),
        "temperature": (_NUMBER, "a number"),
        "max_tokens": ((int,), "an integer"),
    },
    "run": {
        "max_workers": ((int,), "an integer"),
        "output_dir": ((str,), "a string"),
        "seed": ((int,), "an integer"),
        "trials": ((int,), "an integer"),
    },
    "models": {
        "name": ((str,), "a string"),
        "engine": ((str,), "a string"),
        "provider": ((str,), "a string"),
        "temperature": (_NUMBER, "a number"),
        "max_tokens": ((int,), "an integer"),
        "base_url": ((str,), "a string"),
    },
    "benchmarks": {
        "name": ((str,), "a string"),
        "backend": ((str,), "a string"),
        "max_samples": ((int,), "an integer"),
        "split": ((str,), "a string"),
        "agent": ((str,), "a string"),
        "tools": ((list,), "a list of tool names"),
        "judge_model": ((str,), "a string"),
        "temperature": (_NUMBER, "a number"),
        "max_tokens": ((int,), "an integer"),
        "dataset": ((str,), "a string"),
        "trials": ((int,), "an integer"),
        "user_model": ((str,), "a model spec"),
        "subset": ((str,), "a string"),
    },
}
TABLES = ("meta", "defaults", "judge", "run")
ARRAYS = ("models", "benchmarks")
_SUITE_HEADER = re.compile(r"^[ \t]*(?:\[meta\]|\[\[(?:models|benchmarks)\]\])", re.MULTILINE)


@dataclass(slots=True)
class Suite:
    """A parsed suite file; the sections keep their (checked) raw values."""

    path: Path
    meta: dict[str, Any]
    defaults: dict[str, Any]
    judge: dict[str, Any]
    run: dict[str, Any]
    models: list[dict[str, Any]]
    benchmarks: list[dict[str, Any]]
    warnings: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return str(self.meta.get("name") or self.path.stem)

    @property
    def base(self) -> Path:
        return self.path.parent

    def output_dir(self) -> Path:
        """`[run] output_dir`, else `results/`; a relative one is under the working
        directory, as OpenJarvis has it (and as `trialrun run --out`), never beside the
        suite file."""
        given = self.run.get("output_dir")
        return Path(str(given)).expanduser() if given else Path(DEFAULT_OUTPUT_DIR)


@dataclass(slots=True)
class Overrides:
    """Command-line values that win over the file (`run --temperature …`, `run-all -m`)."""

    models: list[str] = field(default_factory=list)
    temperature: float | None = None
    max_tokens: int | None = None
    seed: int | None = None
    max_samples: int | None = None
    split: str | None = None
    output_dir: Path | None = None
    max_workers: int | None = None
    trials: int | None = None  # -k: trials per record
    user_model: str | None = None  # --user-model: the simulated user's model spec
    env: str | None = None  # --env PATH: an episodic benchmark's environment (its dataset)


def is_suite_file(path: Path) -> bool:
    """A `.toml` file shaped like a suite config (`[meta]`, `[[models]]`, `[[benchmarks]]`).
    One TOML cannot read is a suite when it has a suite's table headers (`load_suite`
    then names its problem), else not (the task loader does)."""
    if path.suffix.lower() != ".toml" or not path.is_file():
        return False
    try:
        data = read_suite_toml(path)
    except UserError:
        try:
            return bool(_SUITE_HEADER.search(path.read_text(encoding="utf-8", errors="replace")))
        except OSError:
            return False
    return "task_id" not in data and bool(set(data) & {"meta", "models", "benchmarks"})


def _entry_label(section: str, index: int, entry: dict[str, Any]) -> str:
    name = entry.get("name")
    shown = f" ({name})" if isinstance(name, str) and name else ""
    return f"[[{section}]] #{index + 1}{shown}"


def _check_fields(
    path: Path, section: str, where: str, table: dict[str, Any], unknown: dict[str, int]
) -> None:
    spec = SECTIONS[section]
    for key, value in table.items():
        if key not in spec:
            unknown[key] = unknown.get(key, 0) + 1
            continue
        types, what = spec[key]
        fits = not isinstance(value, bool) and isinstance(value, types)
        if not fits:  # (a flag, not a narrowing: `value` stays Any for the checks below)
            raise UserError(f"{path}: {where}: {key}: must be {what}, got {value!r}")
        if key == "tools" and not all(isinstance(t, str) for t in value):
            raise UserError(f"{path}: {where}: tools: must be a list of tool names, got {value!r}")
        if key in ("max_tokens", "max_workers", "max_samples", "trials") and value < 1:
            raise UserError(f"{path}: {where}: {key}: must be at least 1, got {value}")
        if key == "temperature" and not 0 <= value <= 2:
            raise UserError(f"{path}: {where}: temperature: must be between 0 and 2, got {value}")
        if key in ("name",) and not value.strip():
            raise UserError(f"{path}: {where}: name: must not be empty")


def _warn_unknown(path: Path, section: str, unknown: dict[str, int], warnings: list[str]) -> None:
    shown = f"[[{section}]]" if section in ARRAYS else f"[{section}]"
    for key, count in unknown.items():
        times = f" (in {count} entries)" if count > 1 else ""
        warnings.append(f"{path}: {shown}: '{key}' is not used by trialrun, ignored{times}")


def load_suite(path: Path | str) -> Suite:
    """Parse and check a suite file; UserError names file, section, entry and field."""
    path = Path(path)
    data = read_suite_toml(path)
    warnings: list[str] = []
    tables: dict[str, dict[str, Any]] = {}
    for section in TABLES:
        table = data.get(section, {})
        if not isinstance(table, dict):
            raise UserError(f"{path}: [{section}]: must be a table ([{section}] with keys)")
        unknown: dict[str, int] = {}
        _check_fields(path, section, f"[{section}]", table, unknown)
        _warn_unknown(path, section, unknown, warnings)
        tables[section] = table
    arrays: dict[str, list[dict[str, Any]]] = {}
    for section in ARRAYS:
        entries = data.get(section, [])
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            raise UserError(f"{path}: [[{section}]]: must be an array of tables ([[{section}]])")
        if not entries:
            what = "model" if section == "models" else "benchmark"
            raise UserError(
                f"{path}: [[{section}]]: no {section} listed; add at least one "
                f'[[{section}]] entry with name = "…" (the {what} to run)'
            )
        unknown = {}
        for index, entry in enumerate(entries):
            where = _entry_label(section, index, entry)
            if "name" not in entry:
                raise UserError(f'{path}: {where}: name: required; add name = "…"')
            _check_fields(path, section, where, entry, unknown)
        _warn_unknown(path, section, unknown, warnings)
        arrays[section] = entries
    for key in data:
        if key not in (*TABLES, *ARRAYS):
            warnings.append(f"{path}: [{key}]: not a suite section trialrun uses, ignored")
    return Suite(
        path=path,
        meta=tables["meta"],
        defaults=tables["defaults"],
        judge=tables["judge"],
        run=tables["run"],
        models=arrays["models"],
        benchmarks=arrays["benchmarks"],
        warnings=warnings,
    )


def _float_or_none(value: Any) -> float | None:
    return None if value is None else float(value)


def _pick(*values: Any) -> Any:
    return next((v for v in values if v is not None), None)


def _judge_spec(suite: Suite, entry: dict[str, Any], where: str) -> str | None:
    judge = suite.judge
    name = entry.get("judge_model")
    if name:
        return model_spec(
            name,
            where=f"{suite.path}: {where}: judge_model",
            base=suite.base,
            provider=None if ":" in name else judge.get("provider"),
            base_url=judge.get("base_url"),
        )
    if judge.get("model"):
        return model_spec(
            judge["model"],
            where=f"{suite.path}: [judge]",
            base=suite.base,
            provider=judge.get("provider"),
            base_url=judge.get("base_url"),
        )
    return None


def _benchmark_kind(suite: Suite, where: str, name: str) -> Path | None:
    """None for a known benchmark (trialrun's or OpenJarvis's); the folder for a folder
    of task files."""
    if find_benchmark(name) is not None:
        return None
    folder = Path(name).expanduser()
    folder = folder if folder.is_absolute() else suite.base / folder
    if folder.is_dir():
        return folder
    raise UserError(f"{suite.path}: {where}: name: {unknown_benchmark_problem(name)}")


def unknown_benchmark_problem(name: str) -> str:
    """Why `name` names no benchmark, and the fix (install OpenJarvis, or a known name)."""
    if name in OPENJARVIS_NAMES and not installed():
        return missing_line(name)
    known = known_names()
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    did = f"did you mean '{close[0]}'? " if close else ""
    return (
        f"unknown benchmark '{name}'; {did}known: {', '.join(known)} (or a folder of task files)"
    )


def _check_tools(suite: Suite, where: str, tools: list[str]) -> None:
    for name in tools:
        if name not in TOOL_PACKS:
            raise UserError(
                f"{suite.path}: {where}: tools: unknown tool '{name}'; known: "
                f"{', '.join(TOOL_PACKS.names())}"
            )


def _check_split(suite: Suite, where: str, bench: dict[str, Any], over: Overrides) -> None:
    split = _pick(over.split, bench.get("split"))
    dataset = bench.get("dataset")
    if split is None or not isinstance(dataset, str):
        return
    if problem := local_split_problem(dataset, split, suite.base):
        flag = "--split" if over.split is not None else f"{suite.path}: {where}: split"
        raise UserError(f"{flag} {split!r}: {problem}; drop it, or name a split the dataset has")


def check_overrides(over: Overrides) -> None:
    """Command-line values: the same limits as the file's."""
    if over.temperature is not None and not 0 <= over.temperature <= 2:
        raise UserError(f"--temperature {over.temperature:g}: must be between 0 and 2")
    for flag, value in (
        ("--max-tokens", over.max_tokens),
        ("--max-samples", over.max_samples),
        ("--concurrency", over.max_workers),
        ("-k", over.trials),
    ):
        if value is not None and value < 1:
            raise UserError(f"{flag} {value}: must be at least 1")
    if over.split is not None and not over.split.strip():
        raise UserError("--split: empty; name a split, e.g. --split test")
    if over.trials is not None and over.trials < 1:
        raise UserError(f"-k {over.trials}: must be at least 1")


def _user_model(spec: str | None, base: Path) -> str | None:
    """A user model spec; a `scripted:`/`local:` file relative to `base` made absolute."""
    if not spec:
        return None
    provider, sep, rest = spec.partition(":")
    if sep and provider in ("scripted", "local") and rest:
        path = Path(rest).expanduser()
        if not path.is_absolute():
            return f"{provider}:{(base / path).resolve()}"
    return spec


@dataclass(slots=True)
class _BenchPlan:
    """One benchmark entry, checked once and shared by every model."""

    bench: dict[str, Any]
    folder: Path | None
    backend: str
    tools: list[str]
    agent: str | None
    notes: list[str]
    judge: str | None


def expand(suite: Suite, overrides: Overrides | None = None) -> list[PairRun]:
    """One PairRun per model × benchmark, in file order (models outer)."""
    over = overrides or Overrides()
    check_overrides(over)
    models = suite.models
    if over.models:
        models = [{"name": m} for m in over.models]
    out_dir = over.output_dir or suite.output_dir()
    seed = _pick(over.seed, suite.run.get("seed"), DEFAULT_SEED)
    plans = [_plan_benchmark(suite, index, bench, over)
             for index, bench in enumerate(suite.benchmarks)]  # fmt: skip
    pairs: list[PairRun] = []
    for m_index, model in enumerate(models):
        m_where = _entry_label("models", m_index, model)
        spec = model_spec(
            model["name"],
            where=f"{suite.path}: {m_where}",
            base=suite.base,
            engine=model.get("engine"),
            provider=model.get("provider"),
            base_url=model.get("base_url"),
        )
        pairs.extend(_pair(suite, over, model, spec, plan, seed, out_dir) for plan in plans)
    _check_unique(suite, pairs)
    return pairs


def _plan_benchmark(
    suite: Suite, index: int, bench: dict[str, Any], over: Overrides
) -> _BenchPlan:
    """A benchmark entry's backend, tools, agent, judge and notes; a bad entry is refused."""
    where = _entry_label("benchmarks", index, bench)
    folder = _benchmark_kind(suite, where, bench["name"])
    given = bench.get("backend")
    backend = canonical_backend(given) if given else None
    if given and backend is None:
        raise UserError(
            f"{suite.path}: {where}: backend: unknown backend '{given}'; known: "
            f"{', '.join([*BACKENDS, 'jarvis-direct', 'jarvis-agent'])}"
        )
    if backend is None:
        factory = find_benchmark(bench["name"])
        backend = factory().default_backend if factory is not None else "agent"
    tools = list(bench.get("tools") or [])
    _check_tools(suite, where, tools)
    agent = bench.get("agent")
    notes = []
    if agent and ":" not in agent:
        notes.append(
            f"{suite.path}: {where}: agent '{agent}' is not a Python agent "
            "(package.module:function); the built-in "
            f"{backend} backend runs instead"
        )
        agent = None
    if given and getattr(find_benchmark(bench["name"]), "episodic", False):
        notes.append(
            f"{suite.path}: {where}: backend '{given}' is not used by {bench['name']}: "
            "its episodes run the built-in tool loop with the domain's tools"
        )
    note = caveat(bench["name"]) if folder is None else None
    if note:
        notes.append(f"{suite.path}: {where}: {note}")
    judge = _judge_spec(suite, bench, where)
    _check_split(suite, where, bench, over)
    return _BenchPlan(bench, folder, backend, tools, agent, notes, judge)


def _pair(
    suite: Suite,
    over: Overrides,
    model: dict[str, Any],
    spec: str,
    plan: _BenchPlan,
    seed: int,
    out_dir: Path,
) -> PairRun:
    """One model × benchmark: the command line over the benchmark over the model over the
    suite's defaults."""
    bench, folder, defaults = plan.bench, plan.folder, suite.defaults
    factory = find_benchmark(bench["name"]) if folder is None else None
    episodic = bool(getattr(factory, "episodic", False))
    env = str(Path(over.env).expanduser().resolve()) if over.env and episodic else None
    dataset = _pick(env, bench.get("dataset"))
    user = (
        _user_model(over.user_model, Path.cwd())
        if over.user_model
        else _user_model(bench.get("user_model"), suite.base)
    )
    return PairRun(
        benchmark=bench["name"],
        model_name=model["name"],
        model_spec=spec,
        backend=plan.backend,
        tools=plan.tools,
        agent=plan.agent,
        dataset=dataset,
        task_folder=folder,
        max_samples=_pick(over.max_samples, bench.get("max_samples")),
        split=_pick(over.split, bench.get("split")),
        seed=seed,
        temperature=float(
            _pick(
                over.temperature,
                bench.get("temperature"),
                model.get("temperature"),
                defaults.get("temperature"),
                BUILTIN_TEMPERATURE,
            )
        ),
        max_tokens=int(
            _pick(
                over.max_tokens,
                bench.get("max_tokens"),
                model.get("max_tokens"),
                defaults.get("max_tokens"),
                BUILTIN_MAX_TOKENS,
            )
        ),
        judge_spec=plan.judge,
        judge_max_tokens=suite.judge.get("max_tokens"),
        user_model=user,
        judge_temperature=_float_or_none(suite.judge.get("temperature")),
        max_workers=_pick(over.max_workers, suite.run.get("max_workers")),
        output_dir=out_dir,
        base=suite.base,
        notes=list(plan.notes),
        subset=bench.get("subset"),
        trials=int(_pick(over.trials, bench.get("trials"), suite.run.get("trials"), 1)),
    )


def _check_unique(suite: Suite, pairs: list[PairRun]) -> None:
    """Two pairs writing the same `{benchmark}_{model-slug}` files would mix their records."""
    seen: dict[str, PairRun] = {}
    for pair in pairs:
        other = seen.setdefault(pair.stem, pair)
        if other is not pair:
            raise UserError(
                f"{suite.path}: {pair.benchmark} × {pair.model_name}: writes the same files "
                f"({pair.stem}.jsonl) as {other.benchmark} × {other.model_name}; list each "
                "model and benchmark once, with distinct names"
            )


def suite_line(suite: Suite, pairs: list[PairRun]) -> str:
    models = len({p.model_name for p in pairs})
    benches = len({p.benchmark for p in pairs})
    return f"Suite: {suite.name} — {models} model(s) x {benches} benchmark(s) = {len(pairs)} run(s)"
