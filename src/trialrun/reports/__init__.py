"""Everything trialrun prints or writes about a run: terminal tables and transcripts,
comparisons, gate verdicts, the leaderboard, Markdown, JUnit XML, the self-contained HTML
report and the local viewer server (`trialrun view`).

`trialrun.tracking` and `trialrun.rundir` return data; this package renders it.
Names are imported on first use: a run that writes no report loads none of it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trialrun.lazy import lazy_exports

# public name -> the module that defines it
_EXPORTS: dict[str, str] = {
    "VIEW_INDEX_FROM": "trialrun.reports._view_index",
    "index_after_run": "trialrun.reports._view_index",
    "PendingIndex": "trialrun.reports._view_index",
    "start_index_after_run": "trialrun.reports._view_index",
    "view_index_command": "trialrun.reports._view_index",
    "write_view_index": "trialrun.reports._view_index",
    "HISTORY_RUNS": "trialrun.reports._across",
    "HeatCell": "trialrun.reports._across",
    "HistoryOf": "trialrun.reports._html",
    "render_report": "trialrun.reports._html",
    "write_html_report": "trialrun.reports._html",
    "ViewerServer": "trialrun.reports._server",
    "make_server": "trialrun.reports._server",
    "RunView": "trialrun.reports._view",
    "comparison_lines": "trialrun.reports.comparison",
    "comparisons_json": "trialrun.reports.comparison",
    "comparisons_markdown": "trialrun.reports.comparison",
    "one_sided_lines": "trialrun.reports.comparison",
    "render_comparisons": "trialrun.reports.comparison",
    "gate_lines": "trialrun.reports.gate",
    "junit_tree": "trialrun.reports.junit",
    "task_outcome": "trialrun.reports.junit",
    "write_junit": "trialrun.reports.junit",
    "leaderboard_markdown": "trialrun.reports.leaderboard",
    "render_run_markdown": "trialrun.reports.markdown",
    "write_markdown": "trialrun.reports.markdown",
    "render_models_markdown": "trialrun.reports.models",
    "ROW_CAP": "trialrun.reports.terminal",
    "render_summary": "trialrun.reports.terminal",
    "render_transcript": "trialrun.reports.transcript",
}

if TYPE_CHECKING:
    from trialrun.reports._across import HISTORY_RUNS, HeatCell
    from trialrun.reports._html import HistoryOf, render_report, write_html_report
    from trialrun.reports._server import ViewerServer, make_server
    from trialrun.reports._view import RunView
    from trialrun.reports._view_index import (
        VIEW_INDEX_FROM,
        PendingIndex,
        index_after_run,
        start_index_after_run,
        view_index_command,
        write_view_index,
    )
    from trialrun.reports.comparison import (
        comparison_lines,
        comparisons_json,
        comparisons_markdown,
        one_sided_lines,
        render_comparisons,
    )
    from trialrun.reports.gate import gate_lines
    from trialrun.reports.junit import junit_tree, task_outcome, write_junit
    from trialrun.reports.leaderboard import leaderboard_markdown
    from trialrun.reports.markdown import render_run_markdown, write_markdown
    from trialrun.reports.models import render_models_markdown
    from trialrun.reports.terminal import ROW_CAP, render_summary
    from trialrun.reports.transcript import render_transcript

__all__ = [
    "VIEW_INDEX_FROM",
    "PendingIndex",
    "index_after_run",
    "start_index_after_run",
    "view_index_command",
    "write_view_index",
    "HISTORY_RUNS",
    "HeatCell",
    "HistoryOf",
    "ROW_CAP",
    "RunView",
    "ViewerServer",
    "make_server",
    "render_report",
    "write_html_report",
    "comparison_lines",
    "comparisons_json",
    "comparisons_markdown",
    "gate_lines",
    "junit_tree",
    "leaderboard_markdown",
    "one_sided_lines",
    "render_comparisons",
    "render_models_markdown",
    "render_run_markdown",
    "render_summary",
    "render_transcript",
    "task_outcome",
    "write_junit",
    "write_markdown",
]


__getattr__, __dir__ = lazy_exports(__name__, globals(), _EXPORTS)
