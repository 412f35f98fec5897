"""Everything trialrun prints or writes about a run: terminal tables and transcripts,
comparisons, gate verdicts, the leaderboard, Markdown, JUnit XML, the self-contained HTML
report and the local viewer server (`trialrun view`).

`trialrun.tracking` and `trialrun.rundir` return data; this package renders it.
"""

from trialrun.reports._across import HISTORY_RUNS, HeatCell
from trialrun.reports._html import render_report, write_html_report
from trialrun.reports._server import ViewerServer, make_server
from trialrun.reports._view import RunView
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
    "HISTORY_RUNS",
    "HeatCell",
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
