"""Issue 32's closing check: one run over a folder of hostile tasks completes under a 1 GB
address-space limit and a 1 GB file-size limit, names every refused input in one line, and
changes nothing outside its run folder.

The hostile inputs are the ones a task folder and a model can bring: regex bombs in graders
and through a vault tool, an unbounded timeout, grader paths outside the workspace, a
truthy string for a boolean, an unknown tool pack, a command grader printing 1.5 GB, and a
model writing outside its workspace. Everything is real: the CLI in its own process, the
scripted model, the vault tools and the command grader.
"""

from __future__ import annotations

import hashlib
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

GIB = 1024**3

VALID = {
    "loud-grader.yaml": """\
task_id: loud-grader
suite: golden
description: A command grader that prints 1.5 GB.
inputs: {prompt: Say hi.}
graders:
  - type: command
    run: [sh, -c, "head -c 1500000000 /dev/zero; exit 0"]
    timeout_s: 120
tracked_metrics: [solve^k]
trials: {k: 1}
""",
    "regex-tool.yaml": """\
task_id: regex-tool
suite: golden
description: The model searches with a regex bomb.
inputs: {prompt: Find the notes.}
environment: {fixture: notes}
graders:
  - {type: contains, value: done}
tracked_metrics: [solve^k]
trials: {k: 1}
""",
    "escape-write.yaml": """\
task_id: escape-write
suite: golden
description: The model writes outside its workspace.
inputs: {prompt: Write a note.}
environment: {fixture: notes}
graders:
  - {type: contains, value: done}
tracked_metrics: [solve^k]
trials: {k: 1}
""",
}

INVALID = {
    "nested-repeat.yaml": ("regex", "'(?:a{60000}){60000}'"),
    "huge-repeat.yaml": ("regex", "'a{4294967295}'"),
    "deep-groups.yaml": ("regex", "'" + "(" * 5000 + "a" + ")" * 5000 + "'"),
}
OTHER_INVALID = {
    "endless-timeout.yaml": "  - {type: command, run: [true], timeout_s: .inf}\n",
    "host-fixture.yaml": "  - {type: fileUnchanged, path: a.md, fixture: /etc/passwd}\n",
    "yes-string.yaml": "  - {type: contains, value: x, caseSensitive: \"yes\"}\n",
}

SCRIPT = """\
tasks:
  loud-grader:
    - content: hi
  regex-tool:
    - tool_calls:
        - {name: find_files_by_content, arguments: {query: "a{4294967294}", useRegex: true}}
    - content: done
  escape-write:
    - tool_calls:
        - {name: write_file, arguments: {path: ../../../outside.md, content: pwned}}
    - content: done
"""


def _task(name: str, grader_lines: str) -> str:
    return (
        f"task_id: {name}\nsuite: golden\ndescription: hostile\ninputs: {{prompt: hi}}\n"
        f"graders:\n{grader_lines}tracked_metrics: [solve^k]\ntrials: {{k: 1}}\n"
    )


def _tree(root: Path, skip: Path) -> dict[str, str]:
    """Every file under `root` but `skip`, with its mode and content hash."""
    out: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        if path == skip or skip in path.parents or path.is_dir():
            continue
        st = path.lstat()
        digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "link"
        out[str(path.relative_to(root))] = f"{st.st_mode:o} {digest}"
    return out


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (GIB, GIB))
    resource.setrlimit(resource.RLIMIT_FSIZE, (GIB, GIB))


@pytest.mark.timeout(600)
def test_a_run_of_hostile_tasks_completes_bounded_and_names_each_refusal(tmp_path: Path):
    suite = tmp_path / "hostile"
    (suite / "fixtures" / "notes").mkdir(parents=True)
    (suite / "fixtures" / "notes" / "a.md").write_text("aaaa\n", "utf-8")
    for name, text in VALID.items():
        (suite / name).write_text(text, "utf-8")
    for name, (kind, pattern) in INVALID.items():
        stem = name.removesuffix(".yaml")
        (suite / name).write_text(_task(stem, f"  - {{type: {kind}, value: {pattern}}}\n"))
    for name, grader in OTHER_INVALID.items():
        (suite / name).write_text(_task(name.removesuffix(".yaml"), grader), "utf-8")
    (suite / "unknown-pack.yaml").write_text(
        _task("unknown-pack", "  - {type: contains, value: x}\n").replace(
            "inputs:", "environment: {tools: [vaullt]}\ninputs:"
        ),
        "utf-8",
    )
    script = tmp_path / "script.yaml"
    script.write_text(SCRIPT, "utf-8")
    results = tmp_path / "results"
    before = _tree(tmp_path, results)

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.run(
        [sys.executable, "-m", "trialrun", "run", str(suite), "--skip-invalid",
         "--model", f"scripted:{script}", "--out", str(results)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=540,
        preexec_fn=_limits,
    )  # fmt: skip
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert proc.returncode == 0, proc.stderr[-3000:]
    refused = [*INVALID, *OTHER_INVALID, "unknown-pack.yaml"]
    lines = proc.stderr.splitlines()
    for name in refused:
        named = [line for line in lines if name in line]
        assert named, f"{name} not named on stderr:\n{proc.stderr[-3000:]}"
    [run_dir] = [p for p in results.iterdir() if (p / "results.jsonl").is_file()]
    finished = (run_dir / "results.jsonl").read_text("utf-8").splitlines()
    assert len(finished) == len(VALID)
    assert _tree(tmp_path, results) == before  # nothing outside the run folder changed
    assert not (tmp_path.parent / "outside.md").exists()
