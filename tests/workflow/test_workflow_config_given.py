"""Configuration resolved once (issue 29 item 3), after the run: bless, compare, gate,
report, the history and the run folder's limits use the `ProjectConfig` their entry point
was given, never a trialrun.toml found from the working directory below it; a CLI command
reads the file once."""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import trialrun
import trialrun.config
from cli_support import cli
from trialrun import AfterRun, RunConfig, UserError
from trialrun.config import ProjectConfig, load_config
from trialrun.history import HistoryStore, existing_store_url, main_branch, recording_enabled
from trialrun.reports import RunView
from trialrun.rundir import RunDir, RunDirLimits
from trialrun.tracking import run_gate
from trialrun.workflow import follow_up

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "examples" / "tasks" / "golden"
GOOD = f"scripted:{ROOT / 'examples' / 'scripts' / 'good.yaml'}"

# what the working directory's trialrun.toml says: every value differs from the given one
DECOY = """\
[history]
url = "decoy.db"
branch = "decoy"
record = false

[baselines]
dir = "decoy-baselines"

[compare]
alpha = 0.01
method = "mid-p"

[rundir]
max_record_bytes = 64
"""


def _given(root: Path, text: str) -> ProjectConfig:
    path = root / "given" / "trialrun.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return load_config(path)


@pytest.fixture
def decoy_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The working directory holds a trialrun.toml that contradicts the given config."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "trialrun.toml").write_text(DECOY)
    monkeypatch.chdir(work)
    monkeypatch.delenv("TRIALRUN_HISTORY", raising=False)
    monkeypatch.delenv("TRIALRUN_HISTORY_URL", raising=False)
    return work


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("runs")
    return trialrun.run(RunConfig.of(GOLDEN, models=[GOOD], k=3, out=out,
                                     handle_sigint=False, project=ProjectConfig())).path


def test_bless_writes_where_the_given_config_says(
    decoy_cwd: Path, finished_run: Path, tmp_path: Path
) -> None:
    given = _given(tmp_path, '[baselines]\ndir = "blessed"\n')
    [item] = trialrun.bless(finished_run, config=given)
    assert item.path.parent == tmp_path / "given" / "blessed"
    assert not (decoy_cwd / "decoy-baselines").exists()


def test_compare_uses_the_given_alpha_and_method(
    decoy_cwd: Path, finished_run: Path, tmp_path: Path
) -> None:
    given = _given(tmp_path, "[compare]\nalpha = 0.2\n")
    [item] = trialrun.bless(finished_run, tmp_path / "bl", config=given)
    comparison = trialrun.compare(finished_run, item.path, config=given)
    assert comparison.alpha == 0.2
    assert {t.method for t in comparison.suite_tests} == {"exact"}  # the decoy: mid-p


def test_the_gate_reads_the_given_config_not_the_working_directorys(
    decoy_cwd: Path, finished_run: Path, tmp_path: Path
) -> None:
    """The decoy's 64-byte record limit would refuse run.json: the given config has none."""
    gated = trialrun.gate("merge", finished_run, config=ProjectConfig())
    assert [m.model for m in gated.models] == [GOOD]
    with pytest.raises(UserError, match="64"):  # the limit reaches the reader when given
        run_gate("merge", finished_run, config=load_config(decoy_cwd / "trialrun.toml"))


def test_the_after_run_steps_record_and_gate_with_the_runs_config(
    decoy_cwd: Path, finished_run: Path, tmp_path: Path
) -> None:
    given = _given(tmp_path, '[history]\nurl = "h.db"\n')
    found = follow_up(finished_run, False, AfterRun(record=True, gate="merge"), given)
    assert found.warnings == [] and found.gate is not None
    assert (tmp_path / "given" / "h.db").is_file()  # recorded: the decoy says record = false
    assert not (decoy_cwd / "decoy.db").exists()
    with HistoryStore.open(config=given) as store:
        assert [r.run_dir for r in store.runs()] == [str(finished_run)]


def test_the_history_settings_are_the_given_ones(decoy_cwd: Path, tmp_path: Path) -> None:
    given = _given(tmp_path, '[history]\nbranch = "release"\nurl = "h.db"\n')
    assert main_branch(config=given) == "release"
    assert recording_enabled(given) is True
    assert existing_store_url(config=given) is None  # h.db beside the given file: not yet
    assert main_branch(config=load_config()) == "decoy"  # the entry's own look, when it looks


def test_a_run_folder_is_read_within_the_limits_it_is_given(
    decoy_cwd: Path, finished_run: Path
) -> None:
    assert RunDir.open(finished_run).manifest().run_id  # the decoy's 64 bytes: not read here
    with pytest.raises(UserError, match="max_record_bytes"):
        RunDir.open(finished_run, limits=RunDirLimits(record_bytes=64)).manifest()


def test_the_report_view_reads_within_the_given_limits(
    decoy_cwd: Path, finished_run: Path
) -> None:
    """The HTML report and the viewer read through RunView: the limits it is handed."""
    RunView(finished_run).close()  # the decoy's 64 bytes: not read here
    with pytest.raises(UserError, match="max_record_bytes"):
        RunView(finished_run, limits=RunDirLimits(record_bytes=64))


# --- a CLI command reads trialrun.toml once ---------------------------------------------


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every time trialrun.toml is parsed (fault-injection-style counting of the one
    reader `trialrun.config.load_config` goes through)."""
    seen: list[str] = []
    real: Callable[..., dict[str, Any]] = tomllib.load

    def counting(handle: Any, **kwargs: Any) -> dict[str, Any]:
        seen.append(str(getattr(handle, "name", "?")))
        return real(handle, **kwargs)

    monkeypatch.setattr(trialrun.config.tomllib, "load", counting)
    return seen


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, finished_run: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "trialrun.toml").write_text('[compare]\nalpha = 0.1\n[history]\nurl = "h.db"\n')
    monkeypatch.chdir(folder)
    return folder


def test_gate_with_config_reads_it_once(
    project: Path, finished_run: Path, reads: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = cli(capsys, "gate", "merge", finished_run, "--config",
                       project / "trialrun.toml")  # fmt: skip
    assert code in (0, 1) and "merge" in out
    assert reads == [str(project / "trialrun.toml")]


def test_compare_reads_the_project_config_once(
    project: Path, finished_run: Path, reads: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = cli(capsys, "compare", finished_run, "--against", finished_run, "--json")
    assert code == 0, err
    assert '"alpha": 0.1' in out
    assert len(reads) == 1


def test_history_reads_the_project_config_once(
    project: Path, reads: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = cli(capsys, "history", "--format", "json")
    assert code == 0, err
    assert len(reads) == 1
    assert (project / "h.db").is_file()
