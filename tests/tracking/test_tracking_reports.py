from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from junitparser import Error, Failure, JUnitXml, Skipped
from typer.testing import CliRunner

from trialrun.cli import app
from trialrun.reports import render_models_markdown, write_junit, write_markdown
from trialrun.rundir import Summary
from trialrun.tracking import bless

runner = CliRunner()


def _two_model_run(make_run, T):
    return make_run(
        {
            "gemini:gemini-2.5-flash": [
                T("ok"),
                T("flaky", solved=2, failed_grader="fileContains"),
                T("short", n=2, infra=1),
                T("undet", n=2, undetermined=1),
                T("oe", suite="open_ended", n=5, solved=1),
            ],
            "scripted:examples/scripts/good.yaml": [
                T("ok"),
                T("flaky"),
                T("short"),
                T("undet"),
                T("oe", suite="open_ended", n=5, solved=0),
            ],
        }
    )


def test_junit_is_read_by_a_junit_parser(make_run, T, tmp_path) -> None:
    run = _two_model_run(make_run, T)
    path = write_junit(run, tmp_path / "ci" / "junit.xml")
    ET.parse(path)  # well-formed
    xml = JUnitXml.fromfile(str(path))
    cases = {(case.classname, case.name): case for suite in xml for case in suite}
    assert len(cases) == 10
    flaky = cases[("gemini:gemini-2.5-flash", "flaky")]
    [failure] = flaky.result
    assert isinstance(failure, Failure)
    assert "solved 2/3" in failure.message
    assert "fileContains failed in 1/3 trials" in failure.message
    assert flaky.system_out.count("trial ") == 3
    [error] = cases[("gemini:gemini-2.5-flash", "short")].result
    assert isinstance(error, Error) and "infra" in error.message
    [skipped] = cases[("gemini:gemini-2.5-flash", "undet")].result
    assert isinstance(skipped, Skipped) and "insufficient" in skipped.message
    assert cases[("gemini:gemini-2.5-flash", "ok")].is_passed
    assert cases[("gemini:gemini-2.5-flash", "oe")].is_passed  # pass@k: one solved is enough
    [oe_fail] = cases[("scripted:examples/scripts/good.yaml", "oe")].result
    assert isinstance(oe_fail, Failure) and "pass@k" in oe_fail.message
    totals = ET.parse(path).getroot().attrib
    assert (totals["tests"], totals["failures"], totals["errors"], totals["skipped"]) == (
        "10",
        "2",
        "1",
        "1",
    )


def test_junit_strips_characters_xml_cannot_hold(make_run, T, tmp_path) -> None:
    run = make_run([T("bad", solved=0, failed_grader="contains\x07bell")])
    path = write_junit(run, tmp_path / "j.xml")
    [case] = [c for s in JUnitXml.fromfile(str(path)) for c in s]
    assert "\x07" not in case.result[0].message


def test_markdown_report_with_regressions(make_run, T, tmp_path) -> None:
    out = tmp_path / "baselines"
    bless(make_run([T("a", n=10, k=10), T("b")]), out)
    run = make_run([T("a", n=10, k=10, solved=2), T("b")])
    path = write_markdown(run, tmp_path / "summary.md", baselines_dir=out)
    text = path.read_text()
    assert text.startswith("## ❌ trialrun · run")
    assert "| Model | Tasks | solve^k | pass@k | mean solve rate | pass^k (completed) |" in text
    assert "### Failed tasks" in text
    assert "failed graders: fileContains failed in 8/10 trials" in text
    assert "| `a` | solved 10/10 → 2/10 (p = 0.00036) | **regression** · drift |" in text
    result = runner.invoke(app, ["report", str(run), "--junit", str(tmp_path / "r.xml")])
    assert result.exit_code == 0 and (tmp_path / "r.xml").is_file()
    result = runner.invoke(app, ["report", str(run)])
    assert "### Failed tasks" in result.stdout


def test_models_side_by_side(make_run, T) -> None:
    run = _two_model_run(make_run, T)
    summary = Summary.from_json(json.loads((run / "summary.json").read_text()))
    md = render_models_markdown(summary)
    lines = md.splitlines()
    assert (
        lines[0] == "| task | `gemini:gemini-2.5-flash` | `scripted:examples/scripts/good.yaml` |"
    )
    assert "| `flaky` | 2/3 ⚠ | 3/3 |" in lines
    assert "| `undet` | 2/2 (insufficient) | 3/3 |" in lines
    assert any(line.startswith("| **solve^k** |") for line in lines)
    assert any(line.startswith("| **total cost** |") for line in lines)
    assert any(line.startswith("| **mean turns** |") for line in lines)


def test_the_streamed_junit_file_is_the_tree_written_whole(make_run, T, tmp_path) -> None:
    """write_junit streams each testcase's trial lines (read back by offset); the file is
    the one the whole tree gives, apart from the timestamp."""
    import re

    from trialrun.reports import junit_tree
    from trialrun.rundir import RunDir
    from trialrun.tracking import load_run

    run = load_run(_two_model_run(make_run, T))
    streamed = write_junit(run, tmp_path / "a.xml").read_text(encoding="utf-8")
    junit_tree(run).write(tmp_path / "b.xml", encoding="utf-8", xml_declaration=True)
    whole = (tmp_path / "b.xml").read_text(encoding="utf-8")
    stamp = re.compile(r'timestamp="[^"]+"')
    assert stamp.sub("", streamed) == stamp.sub("", whole)
    rundir = RunDir.open(run.path)
    for offset, line in rundir.iter_results_with_offsets():
        assert rundir.result_at(offset).key == line.key
