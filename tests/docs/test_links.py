"""The README is short and its links land; every relative link between the docs pages
lands on a page (and an anchor on a heading) that exists. The generated reference pages
and benchmarks.md are written by other parts of the build: links to them are checked by
name against the fixed layout (mkdocs build --strict checks the built site)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from docs_runnable import DOCS, REPO

GENERATED = {f"reference/{name}.md" for name in ("index", "tasks", "cli", "config", "api",
                                                  "registries")} | {"benchmarks.md"}
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
PAGES = sorted([*DOCS.glob("*.md"), *DOCS.glob("how-to/*.md"), *DOCS.glob("concepts/*.md")])


def _anchors(page: Path) -> set[str]:
    """MkDocs' (Python-Markdown toc) slugs of a page's headings."""
    found = set()
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            title = re.sub(r"[^\w\s-]", "", title)
            found.add(re.sub(r"[\s]+", "-", title.strip()))
    return found


def _problems(page: Path, root: Path) -> list[str]:
    problems = []
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    for target in LINK.findall(text):
        if re.match(r"^[a-z]+:", target) or target.startswith("#"):
            continue
        path, _, anchor = target.partition("#")
        resolved = (page.parent / path).resolve()
        try:
            relative = resolved.relative_to(root).as_posix()
        except ValueError:
            problems.append(f"{target}: outside {root}")
            continue
        if relative in GENERATED or (root == REPO and relative.removeprefix("docs/")
                                     in GENERATED):
            continue
        if not resolved.exists():
            problems.append(f"{target}: no such file")
        elif anchor and resolved.suffix == ".md" and anchor not in _anchors(resolved):
            problems.append(f"{target}: no heading #{anchor}")
    return problems


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(DOCS).as_posix())
def test_links_between_pages_land(page: Path) -> None:
    assert _problems(page, DOCS) == []


def test_the_readme_is_short_and_its_links_land() -> None:
    readme = REPO / "README.md"
    assert len(readme.read_text().splitlines()) < 250
    assert _problems(readme, REPO) == []
    assert "](docs/report-run.png)" in readme.read_text()


def test_the_readme_keeps_both_quick_start_commands() -> None:
    text = (REPO / "README.md").read_text()
    block = text.split("## Quick start", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0]
    assert block.splitlines() == [
        "CMAKE_ARGS=\"-DGGML_NATIVE=OFF\" pip install --no-cache-dir -e '.[local]' && "
        "trialrun run examples/",
        "bash .ci/run",
    ]
    assert (REPO / ".ci" / "run").is_file()


def test_the_readme_has_no_performance_figures() -> None:
    """Figures live on docs/benchmarks.md, each with the bench/ script that printed it."""
    text = (REPO / "README.md").read_text()
    assert not re.search(r"trials/s|\bMiB\b|\bMB peak|ms/trial|tok/s", text)
