"""Dataset providers: rows from the Hugging Face hub, a local dataset folder, a parquet,
JSONL or CSV file, mapped to Records by a benchmark, shuffled with a seed (none: in the
dataset's order), then cut.

`datasets` (the `benchmarks` extra) is imported only for hub names, dataset folders and
parquet files; plain `.jsonl` and `.csv` files are read with the standard library.
Every failure a user can cause (a missing file, a dataset the hub does not have, a gated
dataset without a login, no network) is one UserError line naming the source.
"""

from __future__ import annotations

import csv
import json
import random
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO, Protocol, runtime_checkable

from trialrun.benchmarks._hub import hub_unreachable
from trialrun.benchmarks._types import Benchmark, Record
from trialrun.errors import UserError
from trialrun.rundir import JsonLimitError, loads_limited

LOCAL_SUFFIXES = (".jsonl", ".csv", ".parquet", ".json")
PLAIN_SUFFIXES = (".jsonl", ".csv")


@runtime_checkable
class DatasetProvider(Protocol):
    """Records of one benchmark: `load` first (shuffle with `seed`, then keep at most
    `max_samples`; `seed=None` keeps the dataset's order, as in the seed), then
    `iter_records()` and `size()`."""

    def load(
        self, max_samples: int | None = None, split: str | None = None, seed: int | None = None
    ) -> None: ...

    def iter_records(self) -> Iterator[Record]: ...

    def size(self) -> int: ...


def is_local(source: str, base: Path | None = None) -> bool:
    """A path (to a file or folder) rather than a hub name."""
    if source.startswith(("/", "./", "../", "~")) or source.lower().endswith(LOCAL_SUFFIXES):
        return True
    return (base / source if base else Path(source)).exists()


def resolve(source: str, base: Path | None) -> Path:
    path = Path(source).expanduser()
    return path if path.is_absolute() or base is None else base / path


def plain_rows(path: Path) -> Iterator[dict[str, Any]]:
    """Rows of a local `.jsonl` (one JSON object a line) or `.csv` file (header row).

    A line that is not UTF-8 (a binary file), a CSV row csv refuses (a field over 128 KiB)
    or a JSON line past json's limits (10^5 nested brackets, a 5,000-digit number) is a
    UserError naming the file and the line."""
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise UserError(f"dataset {path}: cannot read it ({exc.strerror or exc})") from None
    with handle:
        lines = _TextLines(path, handle)
        if path.suffix.lower() == ".csv":
            try:
                yield from csv.DictReader(line for _, line in lines)
            except csv.Error as exc:
                raise UserError(
                    f"dataset {path}:{lines.number}: not a CSV row ({exc}); fix or drop that "
                    "row, or give the data as .jsonl"
                ) from None
            return
        for number, line in lines:
            if not line.strip():
                continue
            try:
                row = loads_limited(line)
            except json.JSONDecodeError as exc:
                raise UserError(
                    f"dataset {path}:{number}: not a JSON line ({exc.msg}); one JSON object a line"
                ) from None
            except JsonLimitError as exc:
                raise UserError(f"dataset {path}:{number}: {exc}; fix or drop that line") from None
            if not isinstance(row, dict):
                raise UserError(f"dataset {path}:{number}: a line must be a JSON object")
            yield row


class _TextLines:
    """(line number, text) of each line, decoded one by one so a bad byte names its line;
    `number` is the line last read (csv's own count lags a line behind its errors)."""

    def __init__(self, path: Path, handle: BinaryIO) -> None:
        self.path = path
        self.handle = handle
        self.number = 0

    def __iter__(self) -> Iterator[tuple[int, str]]:
        for raw in self.handle:
            self.number += 1
            try:
                yield self.number, raw.decode("utf-8")
            except UnicodeDecodeError:
                raise UserError(
                    f"dataset {self.path}:{self.number}: not UTF-8 text; save the file as "
                    "UTF-8 (a .jsonl or .csv dataset is text)"
                ) from None


_LISTING_BYTES = 1 << 20  # a saved dataset's dataset_dict.json: a few names


def local_split_problem(source: str, split: str, base: Path | None) -> str | None:
    """A split a local dataset cannot have, known without loading it (so an unknown
    `--split` is refused before any pair runs, not ignored): a single file's only split is
    'train'; a saved dataset folder lists its splits in dataset_dict.json. Hub datasets and
    folders of data files are checked when they load."""
    if not is_local(source, base):
        return None
    path = resolve(source, base)
    if path.is_file():
        if split == "train":
            return None
        return f"dataset {source} is one file, whose only split is 'train'"
    listing = path / "dataset_dict.json"
    try:
        with listing.open("rb") as handle:
            splits = json.loads(handle.read(_LISTING_BYTES)).get("splits")
    except (OSError, ValueError, AttributeError):
        return None
    if isinstance(splits, list) and split not in splits:
        return f"dataset {source} has no split {split!r} (it has {', '.join(map(str, splits))})"
    return None


def _hf_error(source: str, exc: Exception) -> UserError:
    text = f"{type(exc).__name__}: {exc}"
    lowered = text.lower()
    if "gated" in lowered or "401" in text or "authenticat" in lowered or "token" in lowered:
        return UserError(
            f"dataset '{source}': the hub needs a login for it; run `huggingface-cli login` "
            "(or set HF_TOKEN) after accepting its terms, or give a local copy with dataset = …"
        )
    if isinstance(exc, ConnectionError) or "couldn't reach" in lowered or "offline" in lowered:
        return UserError(
            f"dataset '{source}': cannot reach the Hugging Face hub (offline?); download it "
            'where the hub is reachable and give the local copy with dataset = "PATH"'
        )
    if isinstance(exc, FileNotFoundError) or "notfound" in lowered or "doesn't exist" in lowered:
        return UserError(
            f"dataset '{source}': not found (no such hub dataset, split or file); check the "
            "name, or give a local .jsonl/.csv/.parquet file or dataset folder"
        )
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return UserError(f"dataset '{source}': could not load it ({first[:200]})")


def _pick_split(source: str, splits: dict[str, Any], split: str | None, given: bool) -> Any:
    if split in splits:
        return splits[split]
    if len(splits) == 1 and not given:
        return next(iter(splits.values()))
    raise UserError(
        f"dataset '{source}': no split '{split}'; it has {', '.join(sorted(splits))} "
        "(set split = … on the benchmark)"
    )


def hf_rows(
    source: str,
    *,
    base: Path | None = None,
    config: str | None = None,
    split: str | None = None,
    split_given: bool = False,
) -> Iterable[dict[str, Any]]:
    """Rows through Hugging Face `datasets`: a hub name, a dataset folder (saved with
    `save_to_disk`, or holding data files), or a parquet/jsonl/csv/json file. A hub name
    with the hub out of reach is refused at once (one connect probe, `_hub`)."""
    if not is_local(source, base) and (reason := hub_unreachable()):
        raise UserError(
            f"dataset '{source}': cannot reach the Hugging Face hub (offline? {reason}); "
            'download it where the hub is reachable and give the local copy with dataset = '
            '"PATH", or set HF_HUB_OFFLINE=1 to use the copy in the Hugging Face cache'
        )
    try:
        # the optional `benchmarks` extra (~1 s to import), loaded for hub datasets only
        import datasets
    except ImportError:
        raise UserError(
            f"dataset '{source}': needs Hugging Face datasets; pip install 'trialrun[benchmarks]'"
        ) from None
    datasets.logging.set_verbosity_error()
    datasets.disable_progress_bars()
    try:
        if is_local(source, base):
            path = resolve(source, base)
            if not path.exists():
                raise UserError(f"dataset {path}: no such file or folder")
            if path.is_file():
                builder = {".jsonl": "json", ".json": "json", ".csv": "csv"}.get(
                    path.suffix.lower(), path.suffix.lower().lstrip(".")
                )
                data = datasets.load_dataset(builder, data_files=str(path), split="train")
            elif (path / "dataset_dict.json").is_file() or (path / "state.json").is_file():
                loaded = datasets.load_from_disk(str(path))
                data = (
                    _pick_split(str(path), dict(loaded), split, split_given)
                    if isinstance(loaded, datasets.DatasetDict)
                    else loaded
                )
            else:
                loaded = datasets.load_dataset(str(path), config)
                data = _pick_split(str(path), dict(loaded), split, split_given)
        else:
            data = datasets.load_dataset(source, config, split=split or "train")
    except UserError:
        raise
    except Exception as exc:  # the hub's and datasets' many error types: one line each
        raise _hf_error(source, exc) from None
    return (dict(row) for row in data)


class BenchmarkDataset:
    """A benchmark's records from one source (its default hub dataset, or `dataset`)."""

    def __init__(
        self,
        bench: Benchmark,
        source: str | None = None,
        *,
        base: Path | None = None,
        config: str | None = None,
        use_datasets: bool | None = None,
    ) -> None:
        default = bench.default_source
        if source is None:
            if default is None:
                raise UserError(f"benchmark {bench.name}: has no default dataset; give dataset = …")
            source = default.name
        self.bench = bench
        self.source = source
        self.config = config if config is not None else (default.config if default else None)
        self.default_split = default.split if default else "train"
        self.base = base
        self.use_datasets = use_datasets
        self.records: list[Record] = []
        self.loaded = False

    @property
    def data_dir(self) -> Path | None:
        if not is_local(self.source, self.base):
            return None
        path = resolve(self.source, self.base)
        return path if path.is_dir() else path.parent

    def rows(self, split: str | None) -> Iterable[dict[str, Any]]:
        local = is_local(self.source, self.base)
        path = resolve(self.source, self.base) if local else None
        plain = path is not None and path.suffix.lower() in PLAIN_SUFFIXES
        if path is not None and plain and self.use_datasets is not True:
            if not path.is_file():
                raise UserError(f"dataset {path}: no such file")
            return plain_rows(path)
        return hf_rows(
            self.source,
            base=self.base,
            config=self.config,
            split=split or self.default_split,
            split_given=split is not None,
        )

    def load(
        self, max_samples: int | None = None, split: str | None = None, seed: int | None = None
    ) -> None:
        if max_samples is not None and max_samples < 1:
            raise UserError(f"max_samples {max_samples}: must be at least 1")
        records: list[Record] = []
        data_dir = self.data_dir
        for index, row in enumerate(self.rows(split)):
            record = self.bench.to_record(row, index, data_dir)
            if record is not None:
                record.category = record.category or self.bench.category
                records.append(record)
        if seed is not None:  # None: the dataset's own order (random.Random(None) is not)
            random.Random(seed).shuffle(records)
        self.records = records[:max_samples] if max_samples is not None else records
        self.loaded = True

    def iter_records(self) -> Iterator[Record]:
        if not self.loaded:
            self.load()
        return iter(self.records)

    def size(self) -> int:
        if not self.loaded:
            self.load()
        return len(self.records)
