"""OpenJarvis's own suite files through `trialrun validate`: how many trialrun accepts,
and why it refuses the rest, grouped.

Every suite file under a configs folder (default: the installed `openjarvis` package's
`openjarvis/evals/configs`) is checked as `trialrun validate` checks it (no dataset is
loaded). Refusals are grouped by reason (the problem line without its file and entry).
The tools issue 27 asks for (think, code_interpreter, file_write, shell_exec, web_search,
memory_store, memory_search) are added by another part; the counts are printed twice:
as the registry stands, and with those tools counted as present.
Usage: python bench/openjarvis_suites.py [CONFIGS_FOLDER] [--json]
The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("configs", nargs="?", type=Path, default=None)
    args = parser.parse_args()
    folder = args.configs or default_configs()
    files = sorted(p for p in folder.rglob("*.toml") if is_suite_file(p))
    checks = [check_suite_file(p) for p in files]
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
    doc = {
        "configs": str(folder),
        "suites": len(suites),
        "templates": len(templates),
        "refused": len(refused),
        "refused_with_issue_tools": len(refused_with_tools),
        "reasons": dict(files_by_reason.most_common()),
        "remaining_with_issue_tools": dict(remaining.most_common()),
    }
    sys.stdout.write(json.dumps(doc) + "\n")


if __name__ == "__main__":
    main()
