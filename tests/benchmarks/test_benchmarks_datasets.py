"""Dataset providers: plain JSONL/CSV, Hugging Face `datasets` (parquet, JSON lines,
dataset folders with splits), shuffle-then-truncate with a seed, the GAIA attached file,
the WildChat filter, and one clear line for every failure."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from benchmarks_support import (
    FRAMES_ROWS,
    SUPERGPQA_ROWS,
    wildchat_rows,
    write_csv,
    write_gaia,
    write_jsonl,
)

from trialrun.benchmarks import BENCHMARKS, BenchmarkDataset, DatasetProvider, plain_rows
from trialrun.benchmarks._datasets import _hf_error
from trialrun.errors import UserError


def bench(name: str):
    return BENCHMARKS.get(name)()


def ids(dataset: BenchmarkDataset) -> list[str]:
    return [r.record_id for r in dataset.iter_records()]


def test_plain_jsonl_and_csv_rows(tmp_path: Path) -> None:
    jsonl = write_jsonl(tmp_path / "sg.jsonl", SUPERGPQA_ROWS)
    csv_file = write_csv(tmp_path / "frames.csv", FRAMES_ROWS)
    assert [r["uuid"] for r in plain_rows(jsonl)] == [r["uuid"] for r in SUPERGPQA_ROWS]
    rows = list(plain_rows(csv_file))
    assert rows[1]["Prompt"] == "Multi-hop question 1?" and rows[1]["Answer"] == "answer 1"


def test_load_without_a_seed_keeps_the_original_order(tmp_path: Path) -> None:
    # the seed's DatasetProvider: seed=None means no shuffle, every load the same order
    path = write_jsonl(tmp_path / "sg.jsonl", SUPERGPQA_ROWS)
    all_ids = [r["uuid"] for r in SUPERGPQA_ROWS]
    for _ in range(6):
        dataset = BenchmarkDataset(bench("supergpqa"), str(path))
        dataset.load(seed=None)
        assert ids(dataset) == all_ids
    first = BenchmarkDataset(bench("supergpqa"), str(path))
    first.load(max_samples=3)  # the default seed is None too
    assert ids(first) == all_ids[:3]


def test_load_shuffles_with_the_seed_then_truncates(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "sg.jsonl", SUPERGPQA_ROWS)
    all_ids = [r["uuid"] for r in SUPERGPQA_ROWS]
    dataset = BenchmarkDataset(bench("supergpqa"), str(path))
    assert isinstance(dataset, DatasetProvider)
    dataset.load(max_samples=3, seed=7)
    expected = list(all_ids)
    random.Random(7).shuffle(expected)
    assert ids(dataset) == expected[:3]
    assert dataset.size() == 3
    again = BenchmarkDataset(bench("supergpqa"), str(path))
    again.load(max_samples=3, seed=7)
    assert ids(again) == ids(dataset)
    full = BenchmarkDataset(bench("supergpqa"), str(path))
    full.load(seed=8)
    assert sorted(ids(full)) == sorted(all_ids) and ids(full) != all_ids
    # truncation comes after the shuffle: the first 3 of the full shuffle
    first = BenchmarkDataset(bench("supergpqa"), str(path))
    first.load(max_samples=3, seed=8)
    assert ids(first) == ids(full)[:3]


def test_relative_dataset_paths_resolve_from_the_suite_folder(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "data" / "sg.jsonl", SUPERGPQA_ROWS)
    dataset = BenchmarkDataset(bench("supergpqa"), "data/sg.jsonl", base=tmp_path)
    assert dataset.size() == len(SUPERGPQA_ROWS)


def test_hf_parquet_and_json_lines(tmp_path: Path) -> None:
    pytest.importorskip("datasets")
    import pyarrow as pa
    import pyarrow.parquet as pq

    parquet = tmp_path / "sg.parquet"
    pq.write_table(pa.Table.from_pylist(SUPERGPQA_ROWS), parquet)
    dataset = BenchmarkDataset(bench("supergpqa"), str(parquet))
    dataset.load(seed=1)
    records = {r.record_id: r for r in dataset.iter_records()}
    assert len(records) == 10
    assert records["sg-001"].reference == "B"
    assert records["sg-001"].metadata["valid_letters"] == ["A", "B", "C", "D"]
    jsonl = write_jsonl(tmp_path / "sg.jsonl", SUPERGPQA_ROWS)
    through_hf = BenchmarkDataset(bench("supergpqa"), str(jsonl), use_datasets=True)
    through_hf.load(seed=1)
    assert ids(through_hf) == ids(dataset)  # same rows, same seed, same order


def test_hf_saved_dataset_folder_picks_the_split(tmp_path: Path) -> None:
    datasets = pytest.importorskip("datasets")
    folder = tmp_path / "frames-local"
    datasets.DatasetDict(
        {
            "test": datasets.Dataset.from_list(FRAMES_ROWS),
            "train": datasets.Dataset.from_list(FRAMES_ROWS[:1]),
        }
    ).save_to_disk(str(folder))
    test = BenchmarkDataset(bench("frames"), str(folder))  # frames' default split: test
    assert test.size() == 4
    train = BenchmarkDataset(bench("frames"), str(folder))
    train.load(split="train")
    assert train.size() == 1
    with pytest.raises(UserError, match=r"no split 'dev'; it has test, train"):
        BenchmarkDataset(bench("frames"), str(folder)).load(split="dev")


def test_hf_folder_of_data_files(tmp_path: Path) -> None:
    pytest.importorskip("datasets")
    folder = tmp_path / "wildchat"
    write_jsonl(folder / "train.jsonl", wildchat_rows())
    dataset = BenchmarkDataset(bench("wildchat"), str(folder))
    dataset.load(seed=3)
    assert sorted(ids(dataset)) == ["wc-en-1", "wc-en-2"]  # English, single-turn only


def test_wildchat_filter_on_plain_jsonl(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "wc.jsonl", wildchat_rows())
    dataset = BenchmarkDataset(bench("wildchat"), str(path))
    records = {r.record_id: r for r in dataset.iter_records()}
    assert set(records) == {"wc-en-1", "wc-en-2"}
    assert records["wc-en-2"].problem == "Name a prime number"
    assert records["wc-en-2"].reference == "7"


def test_gaia_attached_file_is_found_beside_the_metadata(tmp_path: Path) -> None:
    metadata = write_gaia(tmp_path / "gaia")
    dataset = BenchmarkDataset(bench("gaia"), str(metadata))
    records = {r.record_id: r for r in dataset.iter_records()}
    assert records["g-file"].files == [tmp_path / "gaia" / "sales.csv"]
    assert records["g-file"].subject == "level 1"
    assert records["g-plain"].files == []
    (tmp_path / "gaia" / "sales.csv").unlink()
    with pytest.raises(UserError, match=r"gaia record g-file: attached file 'sales.csv' not found"):
        BenchmarkDataset(bench("gaia"), str(metadata)).load()


def test_missing_and_broken_files_are_one_line(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no such file"):
        BenchmarkDataset(bench("supergpqa"), str(tmp_path / "nope.jsonl")).load()
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"uuid": "a"}\n{not json\n')
    with pytest.raises(UserError, match=r"broken.jsonl:2: not a JSON line"):
        BenchmarkDataset(bench("supergpqa"), str(broken)).load()
    with pytest.raises(UserError, match="max_samples 0"):
        BenchmarkDataset(bench("supergpqa"), str(broken)).load(max_samples=0)


class GatedRepoError(Exception):
    """Stands in for huggingface_hub's error of a gated dataset (fault injection)."""


@pytest.mark.parametrize(
    ("exc", "expected"),
    [
        (GatedRepoError("401 Client Error: access to dataset gaia is restricted"), "needs a login"),
        (ConnectionError("Couldn't reach 'x' on the Hub (LocalEntryNotFoundError)"),
         "cannot reach the Hugging Face hub"),
        (FileNotFoundError("Dataset 'nobody/nothing' doesn't exist on the Hub"), "not found"),
        (RuntimeError("something odd\nmore"), "could not load it (something odd)"),
    ],
)
def test_hub_failures_are_one_clear_line(exc: Exception, expected: str) -> None:
    message = str(_hf_error("org/name", exc))
    assert expected in message and "\n" not in message and message.startswith("dataset 'org/name'")
