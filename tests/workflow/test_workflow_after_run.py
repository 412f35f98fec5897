"""The steps after a run live in the library: `trialrun.run(after=AfterRun(...))` writes
the CI files, compares with baselines and gates, as `trialrun run` does; bless, compare,
gate and report are `trialrun` names with typed results; each input check is made once."""

from __future__ import annotations

from pathlib import Path

import pytest

import trialrun
import trialrun.tracking
from trialrun import AfterRun, UserError

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "examples" / "tasks" / "golden"
GOOD = f"scripted:{ROOT / 'examples' / 'scripts' / 'good.yaml'}"


def _run(tmp_path: Path, after: AfterRun | None = None, k: int = 3) -> trialrun.Run:
    return trialrun.run(GOLDEN, [GOOD], k=k, out=tmp_path / "res", handle_sigint=False,
                        after=after)  # fmt: skip


def test_run_alone_follows_with_nothing(tmp_path: Path) -> None:
    outcome = _run(tmp_path, k=1)
    found = outcome.follow_up
    assert found is not None and found.comparisons is None and found.gate is None
    assert found.warnings == [] and not (tmp_path / ".trialrun").exists()


def test_the_api_compares_gates_and_writes_the_ci_files_as_the_cli_does(tmp_path: Path) -> None:
    first = _run(tmp_path)
    blessed = trialrun.bless(first.path, tmp_path / "bl")
    assert [b.model for b in blessed] == [GOOD]
    after = AfterRun(junit=tmp_path / "j.xml", markdown=tmp_path / "m.md", compare=True,
                     baselines=tmp_path / "bl", gate="merge")  # fmt: skip
    found = _run(tmp_path, after).follow_up
    assert found is not None
    [match] = found.comparisons or []
    assert match.comparison is not None and not match.comparison.regressions
    # the golden-only example suite fails merge's coverage rule, as `trialrun gate` says
    assert found.gate is not None and found.gate.gate == "merge"
    assert [m.model for m in found.gate.models] == [GOOD] and found.gate.exit_code == 1
    assert "<testsuite" in (tmp_path / "j.xml").read_text()
    assert (tmp_path / "m.md").read_text().strip()


def test_bless_compare_gate_report_are_the_librarys(tmp_path: Path) -> None:
    run = _run(tmp_path).path
    [blessed] = trialrun.bless(run, tmp_path / "bl")
    comparison = trialrun.compare(run, blessed.path)
    assert comparison.regressions == []
    gated = trialrun.gate("merge", run, baselines=tmp_path / "bl")
    assert isinstance(gated, trialrun.tracking.GateResult) and gated.exit_code == 1
    written = trialrun.report(run, junit=tmp_path / "r.xml")
    assert written == trialrun.Report(junit=tmp_path / "r.xml", markdown=None)


def test_after_run_options_are_refused_before_the_run(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="--baselines .*: no such folder"):
        _run(tmp_path, AfterRun(baselines=tmp_path / "missing"))
    with pytest.raises(UserError, match="--junit .*: is a folder"):
        _run(tmp_path, AfterRun(junit=tmp_path))
    with pytest.raises(UserError, match="--gate deploy: unknown gate"):
        _run(tmp_path, AfterRun(gate="deploy"))
    assert not (tmp_path / "res").exists()


@pytest.mark.parametrize(("agent", "agent_cmd"), [(" ", None), (None, "  "), ("a:b", "c")])
def test_the_agent_options_are_checked_once_with_one_message(agent, agent_cmd) -> None:
    from trialrun.agents import make_agent

    with pytest.raises(UserError) as in_config:
        trialrun.RunConfig(agent=agent, agent_cmd=agent_cmd)
    with pytest.raises(UserError) as in_factory:
        make_agent(agent, agent_cmd)
    assert str(in_config.value) == str(in_factory.value)


def test_compare_and_gate_after_a_run_read_it_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from trialrun.rundir import RunDir

    first = _run(tmp_path)
    trialrun.tracking.bless(first.path, baselines_dir=tmp_path / "baselines")
    readings: list[Path] = []
    real = RunDir.iter_results_with_offsets

    def counted(self: RunDir, *args: object, **kwargs: object) -> object:
        readings.append(self.path)
        return real(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(RunDir, "iter_results_with_offsets", counted)
    again = trialrun.run(GOLDEN, [GOOD], k=3, out=tmp_path / "res2", handle_sigint=False,
                         after=AfterRun(compare=True, gate="merge",
                                        baselines=tmp_path / "baselines"))
    assert again.follow_up is not None and again.follow_up.gate is not None
    assert again.follow_up.comparisons
    assert readings.count(again.path) == 1  # the run, read once for both steps
