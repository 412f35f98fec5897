"""JUnit XML for CI: one testcase per task × model (classname = model, name = task_id).

A task fails when it misses its metric (pass^k tasks: every counted trial solved; pass@k
tasks: at least one solved); the failure message names the failed graders, each with the
number of trials it failed in (a trial counts once however many of its verdicts failed).
A task without enough counted trials is `error` when infra errors caused it, else
`skipped`. The k trials are listed in system-out. The layout follows the Ant/Jenkins JUnit schema.
"""

from __future__ import annotations

import json
import re
import socket
import xml.etree.ElementTree as ET
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from trialrun.core import redact
from trialrun.rundir import ResultLine, RunDir, WriteError
from trialrun.tracking import RunData, TaskRecord, load_run

_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _clean(text: str) -> str:
    """Text as the report holds it: redacted, and only characters XML allows."""
    return _INVALID_XML.sub("\ufffd", redact(text))


def task_outcome(record: TaskRecord) -> tuple[str, str]:
    """("passed" | "failure" | "error" | "skipped", message) for one task × model."""
    if record.insufficient:
        counted = record.solve_n
        why = (
            f"insufficient data: {counted} counted trial(s) for k={record.k} "
            f"({record.infra_errors} infra error(s), {record.undetermined} undetermined)"
        )
        return ("error" if record.infra_errors else "skipped"), why
    met = record.meets_solve_k if record.metric != "pass@k" else record.solved > 0
    if met:
        return "passed", ""
    failed = record.trials.failed_graders  # grader type → counted trials it failed in
    errors = record.trials.errors
    n = record.solve_n
    parts = [f"solved {record.solved}/{n} ({record.metric})"]
    if failed:
        parts.append(
            "failed graders: "
            + ", ".join(f"{g} failed in {c}/{n} trials" for g, c in failed.items())
        )
    if errors:
        parts.append("errors: " + ", ".join(f"{kind} ({c})" for kind, c in errors.items()))
    return "failure", "; ".join(parts)


def _details(details: Any, limit: int = 600) -> str:
    text = json.dumps(details, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _mark(passed: Any) -> str:
    return "✓" if passed else ("?" if passed is None else "✗")


def _trial_line(t: ResultLine) -> str:
    """One trial in system-out: outcome, figures, tools, verdicts, error, failed details."""
    verdicts = ", ".join(f"{v.get('grader')} {_mark(v.get('passed'))}" for v in t.verdicts)
    tools = ", ".join(str(c.get("name")) for c in t.tool_calls)
    line = (
        f"trial {t.trial}: pass={t.passed} solve={t.solve} "
        f"turns={t.turns} latency={t.latency_s}s tools=[{tools}]"
    )
    if verdicts:
        line += f" verdicts: {verdicts}"
    if t.error is not None:
        line += f" error: {t.error.get('kind')}: {t.error.get('message')}"
    failed_details = [
        f"  {v.get('grader')}: {_details(v.get('details'))}"
        for v in t.verdicts
        if v.get("passed") is not True and v.get("details")
    ]
    if t.transcript:
        line += f" transcript: {t.transcript}"
    return "\n".join([line, *failed_details])


def _trial_texts(path: Path) -> dict[tuple[str, str], list[tuple[int, str]]]:
    """(task, model) → (trial, its system-out text), from a second pass over the lines."""
    texts: dict[tuple[str, str], list[tuple[int, str]]] = {}
    for line in RunDir.open(path).iter_results():
        texts.setdefault((line.task_id, line.model), []).append((line.trial, _trial_line(line)))
    return texts


def _system_out(lines: list[ResultLine]) -> str:
    return _clean("\n".join(_trial_line(t) for t in sorted(lines, key=lambda t: t.trial))
                  or "no trials")


def junit_tree(
    run: RunData, system_out: Callable[[TaskRecord], str] | None = None
) -> ET.ElementTree[ET.Element]:
    """The whole report as a tree; `system_out(record)` gives a testcase's trial lines
    (default: rendered from the run's results, all held)."""
    stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S")
    root = ET.Element("testsuites", name=f"trialrun {run.run_id}")
    if system_out is None:
        texts = _trial_texts(run.path)

        def system_out(record: TaskRecord) -> str:
            mine = sorted(texts.pop((record.task_id, record.model), []))
            return _clean("\n".join(text for _, text in mine) or "no trials")

    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0, "time": 0.0}
    for index, model in enumerate(run.models):
        records = sorted(run.for_model(model), key=lambda r: r.task_id)
        suite = ET.SubElement(
            root,
            "testsuite",
            name=model,
            id=str(index),
            package="trialrun",
            hostname=socket.gethostname() or "localhost",
            timestamp=stamp,
        )
        props = ET.SubElement(suite, "properties")
        for key, value in (("run_id", run.run_id), ("git_sha", run.git_sha or "")):
            ET.SubElement(props, "property", name=key, value=str(value))
        counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0, "time": 0.0}
        for record in records:
            seconds = record.trials.latency_total_s
            case = ET.SubElement(
                suite, "testcase", classname=model, name=record.task_id, time=f"{seconds:.3f}"
            )
            outcome, message = task_outcome(record)
            if outcome != "passed":
                tag = {"failure": "failure", "error": "error", "skipped": "skipped"}[outcome]
                child = ET.SubElement(case, tag, message=_clean(message))
                if outcome != "skipped":
                    child.set("type", record.metric if outcome == "failure" else "infra")
                    child.text = _clean(message)
                counts[
                    {"failure": "failures", "error": "errors", "skipped": "skipped"}[outcome]
                ] += 1
            out = ET.SubElement(case, "system-out")
            out.text = system_out(record)
            counts["tests"] += 1
            counts["time"] += seconds
        ET.SubElement(suite, "system-out").text = ""
        ET.SubElement(suite, "system-err").text = ""
        for name, count in counts.items():
            suite.set(name, f"{count:.3f}" if name == "time" else str(count))
            totals[name] += count
    for name, total in totals.items():
        root.set(name, f"{total:.3f}" if name == "time" else str(int(total)))
    ET.indent(root)
    return ET.ElementTree(root)


def write_junit(run_dir: RunData | Path | str, path: Path | str) -> Path:
    """Write the run's JUnit XML to `path` (parents created)."""
    run = run_dir if isinstance(run_dir, RunData) else load_run(run_dir)
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(target, "w", encoding="utf-8") as out:
            _write_streamed(run, out)
    except OSError as exc:
        raise WriteError(target, exc) from None
    return target


_MARK = re.compile("\ue000(\\d+)\ue001")


def _write_streamed(run: RunData, out: Any) -> None:
    """The tree with a marker for each testcase's trial lines, then the file written with
    each marker replaced by its lines, read back by offset one testcase at a time: the
    report of 100k trials never holds 100k trial texts."""
    rundir = RunDir.open(run.path)
    offsets: dict[tuple[str, str], list[int]] = {}
    for offset, line in rundir.iter_results_with_offsets():
        offsets.setdefault((line.task_id, line.model), []).append(offset)
    keys: list[tuple[str, str]] = []

    def marker(record: TaskRecord) -> str:
        keys.append((record.task_id, record.model))
        return f"\ue000{len(keys) - 1}\ue001"

    text = ET.tostring(junit_tree(run, marker).getroot(), encoding="unicode")
    out.write("<?xml version='1.0' encoding='utf-8'?>\n")
    last = 0
    for found in _MARK.finditer(text):
        out.write(text[last : found.start()])
        lines = [rundir.result_at(o) for o in offsets.pop(keys[int(found.group(1))], [])]
        out.write(escape(_system_out(lines)))
        last = found.end()
    out.write(text[last:])
