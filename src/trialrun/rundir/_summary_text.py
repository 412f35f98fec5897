"""summary.json read a row at a time: each task entry is parsed, made a `SummaryRow` and
let go, so a 10,000-row file is never one tree of dicts (24 MB for 6 MB of text).

The same decoder and hooks as `loads_checked` read every value, so what is read is what
`json.loads` gives. Anything out of the plain shape `trialrun` writes (no top-level
object, a repeated key, `tasks` before `k`, a non-finite number, an error of any kind)
gives None: the caller then reads the file whole, with that path's value or message.
"""

from __future__ import annotations

from typing import Any

from trialrun.rundir._json_entries import DECODER, NotPlain, entries, read_object
from trialrun.rundir._summary import Summary
from trialrun.rundir._summary_row import SummaryRow


def summary_by_rows(text: str) -> Summary | None:
    """The summary of summary.json's `text`, its rows made one at a time; None when the
    text is not of the plain shape (see the module docstring)."""
    try:
        return _read(text)
    except Exception:  # any refusal: the whole-file path says what is wrong, as before
        return None


def _read(text: str) -> Summary:
    rows: list[SummaryRow] | None = None

    def read_rows(text: str, at: int, data: dict[str, Any]) -> tuple[list[Any], int]:
        nonlocal rows
        if "k" not in data:
            raise NotPlain("tasks before k")
        k = data["k"] if isinstance(data["k"], int) else None
        rows, end = entries(
            text, at, DECODER, lambda entry, n: SummaryRow.from_json(entry, f"tasks[{n}]", k)
        )
        return [], end

    data = read_object(text, read_rows)
    return Summary.from_json(data, rows=rows)
