"""Issue 32, item 1: one regex must not exhaust memory, wherever it comes from.

`regex` (the package graders and the vault search match with) copies a counted repeat's
body: `a{4294967294}` or `(?:a{60000}){60000}` took 8.4 GB to compile. Each attack runs in
a child process under a 1 GB address-space limit, so the old code fails with a
MemoryError (or a traceback) instead of taking the machine; the fixed code refuses the
pattern in one line before compiling it.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

GB = 2**30
BOMBS = ["a{4294967294}", "(?:a{60000}){60000}", "a{4294967295}", "(" * 5000 + ")" * 5000]


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (GB, GB))


def run_limited(args: list[str], stdin: str = "") -> subprocess.CompletedProcess[str]:
    """A child under a 1 GB address-space limit; its timeout only guards against a hang."""
    return subprocess.run(
        args, input=stdin, capture_output=True, text=True, timeout=300, preexec_fn=_limit_memory
    )


def _task_file(path: Path, graders: list[dict]) -> Path:
    task = {
        "task_id": "regex-bomb",
        "suite": "adversarial",
        "description": "Graders with hostile regexes.",
        "inputs": {"prompt": "hi"},
        "tracked_metrics": ["pass^k"],
        "graders": graders,
    }
    path.write_text(json.dumps(task), encoding="utf-8")
    return path


def _graders_for(pattern: str) -> list[dict]:
    return [
        {"type": "regex", "value": pattern},
        {"type": "fileMatches", "path": "a.md", "value": ["ok", pattern]},
        {"type": "toolArgs", "tool": "write_file", "args": {"content": {"regex": pattern}}},
        {"type": "toolPolicy", "deny": [{"tool": "write_file", "args": {"p": {"regex": pattern}}}]},
    ]


@pytest.mark.parametrize("pattern", BOMBS, ids=["huge-count", "nested", "overflow", "deep"])
def test_validate_refuses_each_grader_in_one_line(tmp_path: Path, pattern: str) -> None:
    task = _task_file(tmp_path / "bomb.json", _graders_for(pattern))
    done = run_limited([sys.executable, "-m", "trialrun", "validate", str(task)])
    assert done.returncode == 2, done.stderr[-2000:]
    assert "Traceback" not in done.stderr and "MemoryError" not in done.stderr
    lines = [line for line in done.stderr.splitlines() if "regex" in line]
    places = ["graders.0.value", "graders.1.value.1", "graders.2.args.content.regex", "graders.3"]
    for place in places:
        [line] = [line for line in lines if f": {place}" in line]
        assert line.startswith(f"{task}:")
        assert "limit" in line  # the line says what to change


def test_a_javascript_pattern_of_a_scribe_task_is_checked(tmp_path: Path) -> None:
    task = tmp_path / "scribe.json"
    task.write_text(
        json.dumps(
            {
                "id": "scribe-bomb",
                "userMessage": "hi",
                "outputMatchers": [{"type": "regex", "value": "(?:a{60000}){60000}"}],
            }
        ),
        encoding="utf-8",
    )
    done = run_limited([sys.executable, "-m", "trialrun", "validate", str(task)])
    assert done.returncode == 2, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    assert "nested counts multiply" in done.stderr


GRADE = """
import asyncio, json, sys
from trialrun.graders import TrialView, run_grader
from trialrun.graders.output import RegexConfig
config = RegexConfig.model_construct(type="regex", value=sys.argv[1], flags="")
trial = TrialView(task_id="t", user_message="u", final_text="a" * 10, tool_calls=[],
                  messages=[], workspace=None, fixture_dir=None)
verdict = asyncio.run(run_grader(config, trial))
print(json.dumps({"passed": verdict.passed, "details": verdict.details}))
"""


@pytest.mark.parametrize("pattern", BOMBS[:3])
def test_grading_time_refuses_a_pattern_that_skipped_validation(pattern: str) -> None:
    done = run_limited([sys.executable, "-c", GRADE, pattern])
    assert done.returncode == 0, done.stderr[-2000:]
    verdict = json.loads(done.stdout)
    assert verdict["passed"] is None  # undetermined, never a crash or a pass
    assert "MemoryError" not in verdict["details"]["error"]
    assert "limit" in verdict["details"]["error"]


SEARCH = """
import asyncio, json, sys
from pathlib import Path
from trialrun.tools import ToolContext, load_pack
[tool] = [t for t in load_pack("vault") if t.name == "find_files_by_content"]
args = {"query": sys.argv[2], "useRegex": True}
result = asyncio.run(tool.call(ToolContext(workspace=Path(sys.argv[1]), task_id="t"), args))
print(json.dumps({"ok": result.ok, "content": result.content}))
"""


@pytest.mark.parametrize("pattern", BOMBS, ids=["huge-count", "nested", "overflow", "deep"])
def test_the_vault_search_gives_the_model_a_tool_error(tmp_path: Path, pattern: str) -> None:
    (tmp_path / "note.md").write_text("aaa\n", encoding="utf-8")
    done = run_limited([sys.executable, "-c", SEARCH, str(tmp_path), pattern])
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)
    assert result["ok"] is False
    assert result["content"].startswith("find_files_by_content: invalid regular expression:")
    assert "limit" in result["content"] and "MemoryError" not in result["content"]


def test_the_vault_search_still_finds_with_a_counted_repeat(tmp_path: Path) -> None:
    (tmp_path / "note.md").write_text("x\n" + "a" * 2000 + "\n", encoding="utf-8")
    done = run_limited([sys.executable, "-c", SEARCH, str(tmp_path), "a{1500}"])
    assert json.loads(done.stdout) == {"ok": True, "content": "note.md:2: " + "a" * 300 + "…"}


# --- the checker itself ---


def test_a_pattern_over_the_worker_budget_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pattern the static scan lets through (96,000 elements) but that needs more than the
    worker's memory (lowered here): the worker dies, the pattern is refused, the caller is
    unharmed; a smaller one passes the same worker."""
    from trialrun.core import _safe_regex

    monkeypatch.setattr(_safe_regex, "WORKER_MEMORY_BYTES", 32 * 2**20)
    monkeypatch.setattr(_safe_regex, "_CACHE", _safe_regex._Cache())
    problem = _safe_regex.regex_problem("(?:ab|cd){24000}", 0)
    assert problem is not None and "needs more than 32 MB" in problem
    with pytest.raises(_safe_regex.UnsafeRegex, match="needs more than 32 MB"):
        _safe_regex.compile_safe("(?:ab|cd){24000}", 0)
    assert _safe_regex.regex_problem("ab{2000}", 0) is None


def test_verdicts_are_cached_by_pattern(monkeypatch: pytest.MonkeyPatch) -> None:
    from trialrun.core import _safe_regex

    monkeypatch.setattr(_safe_regex, "_CACHE", _safe_regex._Cache())
    assert _safe_regex.regex_problem("b{5000}", 0) is None  # large enough for the worker
    monkeypatch.setattr(_safe_regex, "_compile_in_worker", lambda *_: pytest.fail("rechecked"))
    assert _safe_regex.regex_problem("b{5000}", 0) is None
    assert _safe_regex.compile_safe("b{5000}", 0).search("b" * 5000)


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        ("x" * 20_001, "20,001 characters long"),
        ("(?:" * 51 + "a" + ")" * 51, "groups nest 51 deep"),
        ("a{100001}", "repeat count 100,001"),
        ("a{" + "9" * 5000 + "}", "repeat count more than 10^18"),
        ("(?:a{400}){400}", "expand to 160,000 elements"),
        ("(?:abcd){30000}", "expand to 120,000 elements"),
        ("(?x)(?:a{400}) # a comment\n {400}", "expand to 160,000"),
        ("(?x:(?:a{400}) {400})", "expand to 160,000"),
        ("#(?:a{400}){400}", "expand to 160,"),
        ("(?#((()(?:a{400}){400}", "expand to 160,000"),
    ],
)
def test_the_static_check_names_the_reason(pattern: str, reason: str) -> None:
    from trialrun.core import regex_shape_problem

    problem = regex_shape_problem(pattern)
    assert problem is not None and reason in problem


@pytest.mark.parametrize(
    "pattern",
    [r"\d{4}-\d{2}-\d{2}", r"^(?P<w>\w+)\s+(?P=w)$", "[](){}]{3}", "a{,5}b{2,}", r"\p{L}+", ""],
)
def test_ordinary_patterns_pass(pattern: str) -> None:
    from trialrun.core import regex_shape_problem

    assert regex_shape_problem(pattern) is None


_PIECES = st.sampled_from(
    [
        "a", "b", ".", r"\d", r"\\", "\\", "[a-c]", "[]a]", "[^]", "[", "]", "(", "(?:", "(?P<n>",
        "(?=", "(?<=", "(?#", "(?x)", "(?x:", "(?-x:", ")", "|", "*", "+", "?", "{", "}", ",",
        "{3}", "{2,5}", "{,9}", "{999}", "{60000}", "{4294967294}", " ", "#", "\n", r"\1",
    ]
)
_PATTERNS = st.one_of(st.lists(_PIECES, max_size=40).map("".join), st.text(max_size=60))

COMPILE_ALL = """
import json, resource, sys
limit = 256 * 2**20
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
import regex
for pattern in json.loads(sys.stdin.read()):
    try:
        regex.compile(pattern)
    except regex.error:
        pass
print("done")
"""


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_PATTERNS, min_size=1, max_size=30))
def test_what_the_checker_accepts_compiles_in_little_memory(patterns: list[str]) -> None:
    """The checker never raises, and every pattern it accepts compiles under 256 MB."""
    from trialrun.core import regex_shape_problem

    accepted = [p for p in patterns if regex_shape_problem(p) is None]
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(COMPILE_ALL)],
        input=json.dumps(accepted),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0 and done.stdout.strip() == "done", done.stderr[-1500:]


@settings(max_examples=300, deadline=None)
@given(_PATTERNS, st.sampled_from([0, 2, 8, 16, 64]))
def test_the_checker_never_raises(pattern: str, flags: int) -> None:
    from trialrun.core import regex_shape_problem

    problem = regex_shape_problem(pattern, flags)
    assert problem is None or (problem and "\n" not in problem)


@settings(max_examples=60, deadline=None)
@given(_PATTERNS, st.sampled_from(["", "i", "ims", "x"]))
def test_the_graders_check_never_raises(pattern: str, flags: str) -> None:
    """Size check, `re` syntax and the budgeted compile: a reason or None, never an error."""
    from trialrun.graders import regex_value_problem

    problem = regex_value_problem(pattern, flags)
    assert problem is None or (isinstance(problem, str) and problem)
