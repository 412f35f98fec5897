"""The run folder and the baseline file: one record type per file, one owner.

Every package reads and writes run folders and baselines only through this one. Each
record has one `from_json` (the only checker of its format; errors are one line) and one
`to_json`. `RunDir` creates, appends, repairs, reads and writes atomically; `RunDir.read`
is the one reader every command uses, so a damaged folder gets one answer everywhere.
"""

from trialrun.rundir._baseline import FORMAT as BASELINE_FORMAT
from trialrun.rundir._baseline import Baseline, baseline_name
from trialrun.rundir._baseline_text import baseline_by_tasks, packed_entry
from trialrun.rundir._checks import RecordError
from trialrun.rundir._json import (
    JsonLimitError,
    WriteError,
    loads_limited,
    read_json,
    write_chunks_atomic,
    write_json_atomic,
    write_json_streamed_atomic,
    write_text_atomic,
)
from trialrun.rundir._limits import RunDirLimits
from trialrun.rundir._manifest import Manifest
from trialrun.rundir._result_line import ResultLine
from trialrun.rundir._rundir import (
    RESULTS,
    RUN_JSON,
    SUMMARY,
    TRANSCRIPTS,
    VIEW_CACHE,
    WORKSPACES,
    RunContents,
    RunDir,
    new_run_id,
    transcript_line,
)
from trialrun.rundir._summary import Summary
from trialrun.rundir._summary_row import (
    NO_KEYS,
    SummaryRow,
    Trajectory,
    shared_counts,
    shared_tags,
)
from trialrun.rundir._transcript import Transcript
from trialrun.rundir._transcript_file import is_transcript, load_transcript

__all__ = [
    "BASELINE_FORMAT",
    "RESULTS",
    "RUN_JSON",
    "SUMMARY",
    "TRANSCRIPTS",
    "VIEW_CACHE",
    "WORKSPACES",
    "Baseline",
    "baseline_by_tasks",
    "packed_entry",
    "JsonLimitError",
    "Manifest",
    "RecordError",
    "ResultLine",
    "RunContents",
    "RunDir",
    "RunDirLimits",
    "Summary",
    "NO_KEYS",
    "SummaryRow",
    "shared_counts",
    "shared_tags",
    "Trajectory",
    "Transcript",
    "WriteError",
    "baseline_name",
    "is_transcript",
    "load_transcript",
    "loads_limited",
    "new_run_id",
    "transcript_line",
    "read_json",
    "write_chunks_atomic",
    "write_json_atomic",
    "write_json_streamed_atomic",
    "write_text_atomic",
]
