"""`pdf_extract` reads a PDF built here byte by byte (a real PDF, real pypdf), page
ranges as OpenJarvis writes them, the workspace path rules, and a clear line without
pypdf."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tools_support import call

from trialrun.errors import ToolError
from trialrun.tools.pdf_extract import page_numbers


def pdf_bytes(page_texts: list[str]) -> bytes:
    """A minimal valid PDF: one Helvetica text line per page, with a correct xref."""
    count = len(page_texts)
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(count))
    font = 3 + 2 * count
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>",
               f"<< /Type /Pages /Kids [{kids}] /Count {count} >>".encode()]
    for i, text in enumerate(page_texts):
        stream = f"BT /F1 18 Tf 72 720 Td ({text}) Tj ET".encode()
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * i} 0 R "
            f"/Resources << /Font << /F1 {font} 0 R >> >> >>".encode()
        )
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1, xref)
    return bytes(out)


@pytest.fixture()
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "report.pdf").write_bytes(
        pdf_bytes(["Revenue grew 12 percent", "Costs fell", "Outlook stable"])
    )
    return tmp_path


def test_all_pages_and_a_range(workspace: Path) -> None:
    every = call("pdf_extract", workspace, file_path="docs/report.pdf")
    assert every.ok, every.content
    assert every.content == (
        "--- page 1 ---\nRevenue grew 12 percent\n\n--- page 2 ---\nCosts fell\n\n"
        "--- page 3 ---\nOutlook stable"
    )
    some = call("pdf_extract", workspace, file_path="docs/report.pdf", pages="3,1-2")
    assert [ln for ln in some.content.splitlines() if ln.startswith("---")] == [
        "--- page 3 ---", "--- page 1 ---", "--- page 2 ---"]
    cut = call("pdf_extract", workspace, file_path="docs/report.pdf", max_chars=20)
    assert cut.content == "--- page 1 ---\nReven\n\n[text cut at 20 characters]"


def test_bad_paths_pages_and_files_are_tool_errors(workspace: Path) -> None:
    def error(**arguments: object) -> str:
        got = call("pdf_extract", workspace, **arguments)
        assert not got.ok
        return got.content

    assert "outside the workspace" in error(file_path="../etc/passwd")
    assert "outside 1-3" in error(file_path="docs/report.pdf", pages="2-4")
    assert "no page range" in error(file_path="docs/report.pdf", pages="first")
    (workspace / "notes.pdf").write_text("not a pdf at all")
    assert "is no readable PDF" in error(file_path="notes.pdf")
    assert "cannot read 'missing.pdf'" in error(file_path="missing.pdf")


def test_without_pypdf_the_error_names_the_install(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pypdf", None)  # fault injection: pypdf absent
    got = call("pdf_extract", workspace, file_path="docs/report.pdf")
    assert not got.ok and "pip install pypdf" in got.content


@given(st.lists(st.integers(1, 9), min_size=1, max_size=6))
def test_page_numbers_keep_order_without_repeats(numbers: list[int]) -> None:
    spec = ",".join(str(n) for n in numbers)
    found = page_numbers(spec, 9)
    assert found == list(dict.fromkeys(n - 1 for n in numbers))
    with pytest.raises(ToolError):
        page_numbers(spec, max(numbers) - 1)  # the last page asked for is missing
