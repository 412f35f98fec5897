"""OpenJarvis's own suite files through `trialrun validate`: how many trialrun accepts,
and why it refuses the rest, grouped.

Every suite file under a configs folder (default: the installed `openjarvis` package's
`openjarvis/evals/configs`) is checked as `trialrun validate` checks it (no dataset is
loaded). Refusals are grouped by reason (the problem line without its file and entry).
The tools issue 27 asks for (think, code_interpreter, file_write, shell_exec, web_search,
memory_store, memory_search) are added by another part; the counts are printed twice:
as the registry stands, and with those tools counted as present.
With `--run`, each accepted file is then started with `trialrun run FILE --max-samples 1`
offline (Hugging Face offline, no API keys, a fresh output folder) and where it stopped
is grouped too: a dataset download, a credential, or (with everything local) a finished
run. `--run --placeholder-keys` sets a placeholder for each provider's API key, so a run
gets past the credential check to where an offline machine really stops (the preflight
only checks that a key is set; nothing is sent before the dataset loads).
The check is repeated --repeats times (at least 3): the counts must be the same each time
(they are exact), and the time to check every file is printed as min/median/max with the
load at each repetition.
Usage: python bench/openjarvis_suites.py [CONFIGS_FOLDER] [--run [--placeholder-keys]]
                                         [--repeats 3]
The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from _repeat import Series, add_repeats_arg, load_now

from trialrun.benchmarks import check_suite_file, is_suite_file

ISSUE_TOOLS = (
    "think", "code_interpreter", "file_write", "shell_exec", "web_search", "memory_store",
    "memory_search",
)
_PLACE = re.compile(r"^.*?: (?:\[\[?[a-z]+\]\]?(?: #\d+(?: \([^)]*\))?)?: )?")


def default_configs() -> Path:
    import openjarvis  # type: ignore[import-untyped]

    return Path(openjarvis.__file__).parent / "evals" / "configs"


def reason(problem: str) -> str:
    """A problem line without its file and entry: `tools: unknown tool 'think'`."""
    text = _PLACE.sub("", problem, count=1)
    return text.split(";")[0]


def issue_tool_only(problem: str) -> bool:
    return any(f"unknown tool '{tool}'" in problem for tool in ISSUE_TOOLS)


_SECRETS = ("API_KEY", "TOKEN")
_OFFLINE = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "NO_NETWORK": "1"}
_VARYING = re.compile(r"(/[^\s:;,)]+)+|'[^']*'|\d+(\.\d+)?")


_PLACEHOLDER_KEYS = {
    name: "placeholder-not-a-key"
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "OPENROUTER_API_KEY")
}


def stop_reason(path: Path, placeholder_keys: bool = False) -> str:
    """Where `trialrun run` stopped on this suite offline: its error line, paths, names
    and numbers blanked so alike stops group."""
    env = {k: v for k, v in os.environ.items() if not k.endswith(_SECRETS)}
    if placeholder_keys:
        env.update(_PLACEHOLDER_KEYS)
    with tempfile.TemporaryDirectory() as out:
        try:
            done = subprocess.run(
                [sys.executable, "-m", "trialrun", "run", str(path), "--max-samples", "1",
                 "--out", out],
                capture_output=True, text=True, timeout=180, env={**env, **_OFFLINE},
                cwd=out,
            )
        except subprocess.TimeoutExpired:
            return "still running after 180 s"
    if "Traceback" in done.stderr:
        return "a traceback: " + done.stderr.strip().splitlines()[-1][:120]
    errors = [line for line in done.stderr.splitlines() if line.startswith("trialrun:")]
    if done.returncode == 0:
        return "finished"
    line = errors[0] if errors else f"exit {done.returncode}"
    return _VARYING.sub("…", line)[:200]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("configs", nargs="?", type=Path, default=None)
    parser.add_argument("--run", action="store_true", help="start each accepted file offline")
    parser.add_argument(
        "--placeholder-keys", action="store_true", help="with --run: set placeholder API keys"
    )
    add_repeats_arg(parser)
    args = parser.parse_args()
    folder = args.configs or default_configs()
    files = sorted(p for p in folder.rglob("*.toml") if is_suite_file(p))
    check_time = Series("checking every file", "s")
    outcomes = []
    for _ in range(max(args.repeats, 3)):
        load = load_now()
        started = time.perf_counter()
        checks = [check_suite_file(p) for p in files]
        check_time.add(time.perf_counter() - started, load)
        outcomes.append([(c.template, tuple(c.problems)) for c in checks])
    if any(outcome != outcomes[0] for outcome in outcomes):
        sys.exit("openjarvis_suites: the checks differ between repetitions")
    templates = [c for c in checks if c.template]
    suites = [c for c in checks if not c.template]
    refused = [c for c in suites if c.problems]
    refused_with_tools = [c for c in refused if not all(issue_tool_only(p) for p in c.problems)]
    by_reason: Counter[str] = Counter()
    files_by_reason: Counter[str] = Counter()
    for check in refused:
        reasons = [reason(p) for p in check.problems]
        by_reason.update(reasons)
        files_by_reason.update(set(reasons))
    remaining: Counter[str] = Counter()
    for check in refused_with_tools:
        remaining.update({reason(p) for p in check.problems if not issue_tool_only(p)})
    print(f"configs: {folder}")
    print(f"suite files: {len(suites)} (+ {len(templates)} template(s), named and not checked)")
    for label, count in (
        ("as the tool registry stands", len(refused)),
        ("with the issue's tools present", len(refused_with_tools)),
    ):
        accepted = len(suites) - count
        share = accepted / len(suites) if suites else 0.0
        print(f"{label}: {accepted} accepted ({share:.1%}), {count} refused")
    print("refusal reasons (files, problem lines):")
    for text, count in files_by_reason.most_common():
        print(f"  {count:4d} files  {by_reason[text]:4d} lines  {text}")
    print("what still refuses a file with the issue's tools present (files):")
    for text, count in remaining.most_common():
        print(f"  {count:4d}  {text}")
    for check in templates:
        print(check.template_line())
    print(f"{check_time.line()}; the counts were the same in every repetition")
    stops: Counter[str] = Counter()
    if args.run:
        startable = [c.path for c in suites if not c.problems]
        stops = Counter(stop_reason(path, args.placeholder_keys) for path in startable)
        print(f"started offline: {len(startable)} accepted files; where each stopped:")
        for text, count in stops.most_common():
            print(f"  {count:4d}  {text}")
    doc = {
        "configs": str(folder),
        "suites": len(suites),
        "templates": len(templates),
        "refused": len(refused),
        "refused_with_issue_tools": len(refused_with_tools),
        "reasons": dict(files_by_reason.most_common()),
        "remaining_with_issue_tools": dict(remaining.most_common()),
        "run_stops": dict(stops.most_common()),
        "check_seconds": check_time.as_json(),
    }
    sys.stdout.write(json.dumps(doc) + "\n")


if __name__ == "__main__":
    main()
