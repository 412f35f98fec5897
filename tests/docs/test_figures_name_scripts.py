"""Every performance figure the docs quote names the bench script that prints it.

The rule, precisely (README.md and docs/**/*.md; fenced code blocks and inline code are
never figures):

- A *figure* is a number or a range of numbers followed by a performance unit:
  trials/s, runs/s, records/s, tok/s, /s, ms/trial, ms, µs, s, KB, KiB, MB, MiB, GB, %
  or × (not ``14 × 3``, a product); e.g. ``570–693 trials/s``, ``0.44 ms``, ``136.9 MB``,
  ``97.0 %``, ``1.02×``.
- Figures are checked in every row of a *benchmarks table* (a table in docs/benchmarks.md,
  or a table whose header names a ``figure``, ``median`` or ``reproduce`` column, or whose
  section is a measurement: see below) and in every *measurement paragraph*: a paragraph or
  list item that says it measured something (``measured``, ``shared cores``, ``this
  machine``, ``load ``, ``Speed (``, ``Time per trial``) or names a ``bench/`` script.
- A figure's *command* is the nearest command (an inline code span that starts with
  ``python``, ``PYTHONPATH=``, ``trialrun`` or names ``bench/NAME.py``) before it in the
  same table row or paragraph, else the first one after it there, else the section's
  command line: the last fenced block before it, under the same heading, whose command
  runs ``python bench/NAME.py``. A table row without a command of its own takes the
  command of the paragraph above its table (only tables between them): the command in
  force at that paragraph's end.
- The figure passes when its command names ``bench/NAME.py`` and that file exists.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
UNITS = r"trials/s|runs/s|records/s|tok/s|ms/trial|/s|ms|µs|s|KiB|KB|MiB|MB|GB|%|×(?!\s?\d)"
NUMBER = r"\d[\d,]*(?:\.\d+)?"
FIGURE = re.compile(
    rf"(?<![\w.^/-])(?:{NUMBER}\s?[–-]\s?)?{NUMBER}\s?(?:{UNITS})(?![\w/])")
CODE = re.compile(r"`([^`]+)`")
BENCH_REF = re.compile(r"\bbench/(\w+\.py)\b")
COMMAND_START = re.compile(r"^(?:\$\s*)?(?:python\b|PYTHONPATH=|trialrun(?:\s|$))")
MARKERS = re.compile(
    r"measured|shared cores|this machine|\bload \d|Speed \(|Time per trial|\bbench/\w+\.py",
    re.IGNORECASE)
TABLE_HEADER = re.compile(r"\b(figure|median|reproduce)\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Figure:
    path: str
    line: int
    text: str
    command: str | None

    def script(self) -> str | None:
        found = BENCH_REF.search(self.command or "")
        return found.group(1) if found else None


@dataclass(slots=True)
class Block:
    kind: str  # "para", "table", "fence", "heading"
    start: int  # 1-based line of its first line
    lines: list[str]


def blocks(text: str) -> list[Block]:
    """Paragraphs (a list item starts a new one), tables, fenced blocks and headings."""
    out: list[Block] = []
    fence: Block | None = None
    current: Block | None = None
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if fence is not None:
            fence.lines.append(line)
            if stripped.startswith(("```", "~~~")):
                fence = None
            continue
        if stripped.startswith(("```", "~~~")):
            fence = Block("fence", number, [line])
            out.append(fence)
            current = None
            continue
        if not stripped:
            current = None
            continue
        if stripped.startswith("#") and re.match(r"#+\s", stripped):
            out.append(Block("heading", number, [line]))
            current = None
            continue
        kind = "table" if stripped.startswith("|") else "para"
        list_item = re.match(r"(?:[-*+]|\d+\.)\s", stripped) is not None
        if current is None or current.kind != kind or (kind == "para" and list_item):
            current = Block(kind, number, [line])
            out.append(current)
        else:
            current.lines.append(line)
    return out


def commands(text: str) -> list[tuple[int, str]]:
    """(offset, code) of each command-like inline code span in `text`."""
    return [(m.start(), m.group(1)) for m in CODE.finditer(text)
            if COMMAND_START.match(m.group(1).strip()) or BENCH_REF.search(m.group(1))]


def figures_in(text: str) -> list[tuple[int, str]]:
    """(offset, figure) outside inline code."""
    masked = CODE.sub(lambda m: " " * len(m.group(0)), text)
    return [(m.start(), m.group(0)) for m in FIGURE.finditer(masked)]


def attribute(text: str, offset: int, fallback: str | None) -> str | None:
    found = commands(text)
    before = [code for at, code in found if at < offset]
    after = [code for at, code in found if at > offset]
    return before[-1] if before else after[0] if after else fallback


def fence_command(block: Block) -> str | None:
    for line in block.lines[1:-1]:
        if COMMAND_START.match(line.strip()) and BENCH_REF.search(line):
            return line.strip()
    return None


def scan(path: Path, root: Path = ROOT) -> list[Figure]:
    """Every figure in a measurement context of one Markdown file, with its command."""
    rel = path.relative_to(root).as_posix()
    benchmarks_page = rel == "docs/benchmarks.md"
    found: list[Figure] = []
    section_command: str | None = None
    section_measures = False
    previous: Block | None = None
    caption_of_previous: str | None = None
    for block in blocks(path.read_text(encoding="utf-8")):
        if block.kind == "heading":
            section_command, section_measures = None, False
            caption_of_previous = None
        elif block.kind == "fence":
            section_command = fence_command(block) or section_command
        elif block.kind == "para":
            text = " ".join(line.strip() for line in block.lines)
            caption_of_previous = attribute(text, len(text), None)
            if MARKERS.search(text):
                section_measures = True
                for offset, figure in figures_in(text):
                    found.append(Figure(rel, block.start, figure,
                                        attribute(text, offset, section_command)))
        elif block.kind == "table":
            header = block.lines[0]
            caption = caption_of_previous if previous is not None and previous.kind in (
                "para", "table") else None
            if benchmarks_page or TABLE_HEADER.search(header) or section_measures or caption:
                for number, row in enumerate(block.lines[2:], block.start + 2):
                    for offset, figure in figures_in(row):
                        command = attribute(row, offset, caption or section_command)
                        found.append(Figure(rel, number, figure, command))
        previous = block
    return found


def problems(figures: list[Figure], bench: Path) -> list[str]:
    out = []
    for figure in figures:
        script = figure.script()
        if script is None:
            said = f"`{figure.command}`" if figure.command else "no command"
            out.append(f"{figure.path}:{figure.line}: {figure.text!r} names no bench script "
                       f"({said}); add the `python bench/NAME.py` command that prints it")
        elif not (bench / script).is_file():
            out.append(f"{figure.path}:{figure.line}: {figure.text!r}: bench/{script} "
                       "does not exist")
    return out


def docs_files() -> list[Path]:
    files = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    return [p for p in files if p.is_file() and "reference" not in p.relative_to(ROOT).parts]


@pytest.mark.parametrize("path", docs_files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_figure_names_the_script_that_prints_it(path: Path) -> None:
    assert problems(scan(path), ROOT / "bench") == []


def test_the_benchmarks_page_quotes_figures() -> None:
    figures = scan(ROOT / "docs" / "benchmarks.md")
    assert len(figures) >= 40
    assert {f.script() for f in figures} >= {
        "task_loading.py", "history_store.py", "scale.py", "overhead.py", "latency_bound.py"}


def _write(tmp: Path, text: str) -> Path:
    (tmp / "bench").mkdir(exist_ok=True)
    (tmp / "bench" / "real.py").write_text("")
    (tmp / "docs").mkdir(exist_ok=True)
    path = tmp / "docs" / "page.md"
    path.write_text(text, encoding="utf-8")
    return path


def _quoted(found: list[str]) -> list[str]:
    return [re.findall(r"'([^']+)'", problem)[0] for problem in found]


def _problems(tmp: Path, text: str) -> list[str]:
    return problems(scan(_write(tmp, text), tmp), tmp / "bench")


def test_a_measured_figure_without_a_script_fails(tmp_path: Path) -> None:
    text = "Measured here on 2 shared cores with `trialrun run examples/`: 15.2 s per trial.\n"
    [problem] = _problems(tmp_path, text)
    assert "'15.2 s'" in problem and "`trialrun run examples/`" in problem


def test_a_script_that_does_not_exist_fails(tmp_path: Path) -> None:
    text = "Speed (`python bench/gone.py`, 2 shared cores): 7.6 s, 66 records/s.\n"
    assert [p.split(": ", 1)[1] for p in _problems(tmp_path, text)] == [
        "'7.6 s': bench/gone.py does not exist", "'66 records/s': bench/gone.py does not exist"]


def test_the_nearest_command_wins(tmp_path: Path) -> None:
    text = ("`python bench/real.py` (this machine): 0.97×; the suite with "
            "`trialrun run examples/`: 11 min 9 s, 385 MiB.\n")
    assert _quoted(_problems(tmp_path, text)) == ["9 s", "385 MiB"]


def test_a_figure_before_its_command_takes_the_next_one(tmp_path: Path) -> None:
    text = "about 38 µs per trial (`python bench/real.py --n 200`, 2 shared cores)\n"
    assert _problems(tmp_path, text) == []


def test_table_rows_take_their_own_command_else_the_caption(tmp_path: Path) -> None:
    text = ("Two runs on this machine (`python bench/real.py`):\n\n"
            "| what | figure |\n| --- | --- |\n| view | 8.8–17.8 s |\n"
            "| suite | 15.2 s per trial, `trialrun run examples/` |\n")
    [problem] = _problems(tmp_path, text)
    assert problem.startswith("docs/page.md:6: '15.2 s'")


def test_the_sections_command_line_covers_its_tables(tmp_path: Path) -> None:
    text = ("## History store\n\n```console\n$ python bench/real.py --runs 200\n```\n\n"
            "| figure | median (range) | load |\n| --- | --- | --- |\n"
            "| one writer | 142 runs/s (115–161) | 5.3–5.4 |\n\n"
            "## Other\n\n| figure | median |\n| --- | --- |\n| x | 3 ms |\n")
    [problem] = _problems(tmp_path, text)
    assert problem.startswith("docs/page.md:15: '3 ms' names no bench script (no command)")


def test_prose_without_a_measurement_marker_and_code_are_not_figures(tmp_path: Path) -> None:
    text = ("A tool call's limit is 30 s by default.\n\n```console\n$ trialrun run x  # 5 s\n"
            "```\n\nMeasured: `sleep 5 s` and k = 3, 20 tasks, issue 25.\n")
    assert _problems(tmp_path, text) == []


def test_todays_long_readme_fails_the_rule(tmp_path: Path) -> None:
    """The README before the docs site (main at 272288d): figures with no script."""
    old = subprocess.run(["git", "show", "272288d:README.md"], cwd=ROOT, capture_output=True,
                         text=True, check=False)
    if old.returncode != 0:
        pytest.skip("git history not available")
    path = tmp_path / "README.md"
    path.write_text(old.stdout, encoding="utf-8")
    found = problems(scan(path, tmp_path), ROOT / "bench")
    assert len(found) >= 20
    assert any("'15.2 s' names no bench script (`trialrun run examples/" in p for p in found)
