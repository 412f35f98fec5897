"""Runnable examples in the docs: find the marked blocks of a page and run them in order.

A fenced block is runnable when the line before it is an HTML comment (invisible on the
site and on GitHub):

    <!-- runnable -->              a ```console block: each `$ ` line is a command, the lines
                                   after it its expected output (stdout, then stderr)
    <!-- runnable exit=1 -->       ... and its last command exits 1 (the others 0)
    <!-- runnable-slow -->         a console block that needs the embedded local model
    <!-- runnable file=PATH -->    any fenced block: its text is written to PATH
    <!-- runnable --> + ```python  a Python block, executed as written (in the page's folder)
    <!-- shown-only: WHY -->       a console block readers run, the tests cannot (WHY)

Expected output is compared where it is shown: a line `...` stands for any lines (none
included), `...` inside a line for any text on that line; trailing spaces are ignored.
A command with no lines after it is run and its exit code checked, its output not.
Commands run with bash from the page's folder (a tmp folder); `cd` and variables carry
over to the next command (every assignment is exported), and `trialrun`, `python` and
`pytest` run this checkout.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
SRC = REPO / "src"

MARKER = re.compile(r"^<!--\s*(runnable(?:-slow)?|shown-only)\b(.*?)-->\s*$")
FENCE = re.compile(r"^(```+)\s*([\w+-]*)")


@dataclass(frozen=True, slots=True)
class Command:
    line: int  # 1-based line of the `$ ` in the page
    text: str
    expected: list[str]  # the output lines shown after it


@dataclass(frozen=True, slots=True)
class Block:
    page: Path
    line: int  # 1-based line of the opening fence
    kind: str  # runnable | runnable-slow | shown-only
    language: str
    options: dict[str, str]
    body: str

    @property
    def shown_page(self) -> str:
        return str(self.page.relative_to(REPO) if self.page.is_relative_to(REPO) else self.page)

    @property
    def where(self) -> str:
        return f"{self.shown_page}:{self.line}"

    @property
    def slow(self) -> bool:
        return self.kind == "runnable-slow"

    @property
    def file(self) -> str | None:
        return self.options.get("file")

    @property
    def expected_exit(self) -> int:
        return int(self.options.get("exit", "0"))

    def commands(self) -> list[Command]:
        found: list[Command] = []
        for offset, raw in enumerate(self.body.splitlines(), start=1):
            if raw.startswith("$ "):
                found.append(Command(self.line + offset, raw[2:], []))
            elif found:
                found[-1].expected.append(raw)
        return found


def _options(text: str) -> dict[str, str]:
    options: dict[str, str] = {}
    for word in text.split():
        key, _, value = word.partition("=")
        options[key] = value
    return options


def blocks(page: Path) -> list[Block]:
    """Every fenced block of `page` that a marker comment announces, in page order."""
    lines = page.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        marker = MARKER.match(lines[i].strip())
        fence = FENCE.match(lines[i + 1]) if marker and i + 1 < len(lines) else None
        if marker is None or fence is None:
            i += 1
            continue
        close = fence.group(1)
        end = i + 2
        while end < len(lines) and lines[end].strip() != close:
            end += 1
        kind = marker.group(1)
        found.append(Block(page, i + 2, kind, fence.group(2),
                           {} if kind == "shown-only" else _options(marker.group(2)),
                           "\n".join(lines[i + 2:end]) + "\n"))  # fmt: skip
        i = end + 1
    return found


def console_blocks(page: Path) -> list[int]:
    """The line of every ```console fence of `page` (marked or not)."""
    text = page.read_text(encoding="utf-8").splitlines()
    return [n for n, line in enumerate(text, start=1) if line.strip() == "```console"]


def output_pattern(expected: list[str]) -> re.Pattern[str]:
    """The regex an output must match in full: `...` lines match any lines, `...` in a
    line any text on it."""
    parts: list[str] = []
    for line in expected:
        if line.strip() == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            pieces = (re.escape(p) for p in line.rstrip().split("..."))
            parts.append("[^\\n]*?".join(pieces) + r"\n")
    return re.compile("".join(parts))


def normalize(output: str) -> str:
    lines = [line.rstrip() for line in output.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return "".join(line + "\n" for line in lines)


def matches(expected: list[str], output: str) -> bool:
    while expected and not expected[-1].strip():
        expected = expected[:-1]
    return output_pattern(expected).fullmatch(normalize(output)) is not None


SHIMS = {
    "trialrun": "-m trialrun",
    "python": "",
    "python3": "",
    "pytest": "-m pytest -p no:cacheprovider",
}


@dataclass(slots=True)
class Session:
    """A page's commands, run in order from `root`, with shell state carried over."""

    root: Path
    state: Path
    cwd: Path = field(init=False)
    env: dict[str, str] = field(init=False)

    def __post_init__(self) -> None:
        self.cwd = self.root
        self.state.mkdir(parents=True, exist_ok=True)
        bin_dir = self.state / "bin"
        bin_dir.mkdir(exist_ok=True)
        for name, args in SHIMS.items():
            shim = bin_dir / name
            shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" {args} "$@"\n')
            shim.chmod(0o755)
        env = dict(os.environ)
        env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(SRC), env.get("PYTHONPATH")) if p)
        env.update(COLUMNS="80", TERM="dumb", NO_COLOR="1", PYTHONDONTWRITEBYTECODE="1")
        env.pop("FORCE_COLOR", None)
        env.pop("TRIALRUN_HISTORY", None)  # record as a user's runs do (tests/conftest.py)
        self.env = env
        (self.state / "vars.sh").write_text("")

    def write(self, block: Block) -> None:
        assert block.file is not None
        target = self.cwd / block.file
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(block.body, encoding="utf-8")

    def run(self, command: Command, timeout: float) -> subprocess.CompletedProcess[str]:
        vars_file = self.state / "vars.sh"
        cwd_file = self.state / "cwd"
        script = (
            f"set -a\n. '{vars_file}'\n"
            f"{command.text}\n"
            "rc=$?\n"
            f"export -p > '{vars_file}'\npwd > '{cwd_file}'\nexit $rc\n"
        )
        done = subprocess.run(["bash", "-c", script], cwd=self.cwd, env=self.env,
                              capture_output=True, text=True, timeout=timeout)  # fmt: skip
        self.cwd = Path(cwd_file.read_text().strip())
        return done

    def play(self, block: Block, timeout: float = 600) -> None:
        """Run one block; an AssertionError names the page line and what differed."""
        if block.file is not None:
            self.write(block)
            return
        if block.language == "python":
            namespace = {"__name__": "docs_example"}
            old = Path.cwd()
            os.chdir(self.cwd)
            try:
                exec(compile(block.body, block.where, "exec"), namespace)
            finally:
                os.chdir(old)
            return
        commands = block.commands()
        for n, command in enumerate(commands, start=1):
            done = self.run(command, timeout)
            where = f"{block.shown_page}:{command.line}: $ {command.text}"
            output = done.stdout + done.stderr
            expected_exit = block.expected_exit if n == len(commands) else 0
            assert done.returncode == expected_exit, (
                f"{where}\nexit {done.returncode}, expected {expected_exit}\n{output}"
            )
            if command.expected and not matches(command.expected, output):
                shown = "\n".join(command.expected)
                raise AssertionError(f"{where}\nthe page shows:\n{shown}\nthe command printed:"
                                     f"\n{normalize(output)}")


def play_page(page: Path, root: Path, state: Path, *, slow: bool) -> int:
    """Run every runnable block of `page` in order from `root`; slow ones only when `slow`.
    Returns how many blocks ran."""
    session = Session(root, state)
    ran = 0
    for block in blocks(page):
        if block.kind == "shown-only" or (block.slow and not slow):
            continue
        session.play(block)
        ran += 1
    return ran
