"""The extractor the docs tests use: markers, output patterns, shell state."""

from __future__ import annotations

from pathlib import Path

import pytest
from docs_runnable import blocks, matches, play_page
from hypothesis import given
from hypothesis import strategies as st


def _page(tmp_path: Path, text: str) -> Path:
    page = tmp_path / "page.md"
    page.write_text(text)
    return page


PAGE = """# A page

```console
$ not run: no marker
```

<!-- runnable -->
```console
$ echo hello
hello
$ X=42; cd sub 2>/dev/null || mkdir sub && cd sub
```

<!-- runnable file=notes/a.txt -->
```text
content
```

<!-- runnable exit=3 -->
```console
$ pwd | sed 's|.*/||'; echo "$X"; exit 3
sub
42
```

<!-- runnable-slow -->
```console
$ echo slow > slow.txt
```

<!-- shown-only: needs a browser -->
```console
$ xdg-open report.html
```
"""


def test_markers_are_found_in_order(tmp_path: Path) -> None:
    found = blocks(_page(tmp_path, PAGE))
    assert [b.kind for b in found] == ["runnable", "runnable", "runnable", "runnable-slow",
                                       "shown-only"]
    assert found[1].file == "notes/a.txt" and found[1].body == "content\n"
    assert found[2].expected_exit == 3
    assert [c.text for c in found[0].commands()][0] == "echo hello"
    assert found[0].commands()[0].expected == ["hello"]


def test_a_page_plays_in_order_with_state_carried_over(tmp_path: Path) -> None:
    (tmp_path / "root").mkdir()
    ran = play_page(_page(tmp_path, PAGE), tmp_path / "root", tmp_path / "state", slow=False)
    assert ran == 3
    assert (tmp_path / "root" / "sub" / "notes" / "a.txt").read_text() == "content\n"
    assert not (tmp_path / "root" / "sub" / "slow.txt").exists()


def test_a_wrong_output_fails_naming_the_line(tmp_path: Path) -> None:
    page = _page(tmp_path, "<!-- runnable -->\n```console\n$ echo hello\nbye\n```\n")
    (tmp_path / "root").mkdir()
    with pytest.raises(AssertionError, match=r"page.md:3: \$ echo hello"):
        play_page(page, tmp_path / "root", tmp_path / "state", slow=False)


def test_a_wrong_exit_code_fails(tmp_path: Path) -> None:
    page = _page(tmp_path, "<!-- runnable -->\n```console\n$ false\n```\n")
    (tmp_path / "root").mkdir()
    with pytest.raises(AssertionError, match="exit 1, expected 0"):
        play_page(page, tmp_path / "root", tmp_path / "state", slow=False)


def test_ellipsis_lines_and_inline_ellipsis() -> None:
    assert matches(["run: results/...", "...", "end"], "run: results/2026-ab\na\nb\nend\n")
    assert matches(["...", "end"], "end\n")
    assert matches(["a   "], "a\n\n")
    assert not matches(["run: results/..."], "run: other/x\n")
    assert not matches(["a", "b"], "a\nx\nb\n")


@given(st.lists(st.text(alphabet=st.characters(blacklist_characters="\n\r\x0b\x0c\x1c\x1d"
                                                "\x1e\x85\u2028\u2029"), max_size=20),
                max_size=6))
def test_an_output_matches_itself_shown_verbatim(lines: list[str]) -> None:
    shown = [line for line in lines if "..." not in line]
    output = "".join(line + "\n" for line in shown)
    assert matches(shown, output)
