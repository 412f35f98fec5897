"""The viewer page, and the self-contained HTML report (`trialrun report --html FILE`).

One page serves both: in `trialrun view` every JSON page is fetched from the server; in
the report the pages are embedded in the file. Style, script and plots (SVG) are inlined;
a Content-Security-Policy forbids the report any network request, so it opens the same
offline, from a CI artifact or an e-mail.

Why the report is chunked: a 100,000-trial run has ~110,000 pages (~270 MB of JSON).
Holding them in one dict, one JSON document and one gzip member cost ~2 GB and 30 s,
and the browser inflated and parsed all of it before showing anything. Instead the
head payload holds only what the first screen needs (the runs list, the run's overview
with its task table and plots, the history heat map); task and trial pages follow in
chunks of `CHUNK` pages each, every chunk its own gzip+base64 `<script>` element named
by its first page (`chunk-task-N`, `chunk-trial-N`). The page inflates a chunk with the
browser's DecompressionStream only when one of its pages is opened. The file is written
streamingly, one chunk at a time, to a temp file renamed into place, so memory stays
bounded by one chunk and the report is still one offline file. We did not page the
overview (the alternative): filtering and sorting the task table must stay instant and
work offline, and the task table is small next to the trial pages.

Why not every transcript: each trial's transcript is its own file
(transcripts/<model>/<task>-<trial>.json); opening 100,000 of them was most of the
report's time. Past `EMBED_ALL_UP_TO` trials the report embeds the transcripts a reader
opens first (per task × model its first failed or errored trials and its first solved
one, `embedded_transcripts`); every other trial page keeps all its figures (they come
from the results line) and says where its transcript is (`transcript_note`).
"""

from __future__ import annotations

import base64
import gzip
import io
import json
import os
import re
import shutil
import tempfile
import zlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from html import escape
from importlib import resources
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import quote

import orjson

from trialrun.core import environment_secrets
from trialrun.reports._across import HeatCell, history_page
from trialrun.reports._trial_columns import trial_status
from trialrun.reports._view import RunView, dumps
from trialrun.rundir import ResultLine, RunDir, RunDirLimits, SummaryRow, WriteError
from trialrun.tracking import CompareSettings

_CSP = {
    "static": "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
    "img-src data:",
    "server": "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
    "img-src data:; connect-src 'self'",
}
# zlib level 3, not 6: 100,000 trial pages compress in 0.17 s instead of 0.81 s, the
# chunks a third larger (4.0 MB against 3.0 MB); the browser inflates either as fast
_GZIP_LEVEL = 3
_BATCH_BYTES = 1 << 18  # page bytes handed to zlib at once (a big page: on its own)
CHUNK = 128  # task or trial pages per embedded chunk: one click inflates ~100 KB at most
EMBED_ALL_UP_TO = 2_000  # trials; a larger run embeds only some transcripts
EMBED_UNSOLVED = 2  # per task × model: transcripts of its first failed/errored trials
EMBED_SOLVED = 1  # and of its first solved one
_ELEMENT = re.compile(r'<script [^>]*id="(payload|chunk-[a-z]+-\d+)"[^>]*>(.*?)</script>', re.S)


def _asset(name: str) -> str:
    return resources.files("trialrun.reports").joinpath("assets", name).read_text("utf-8")


def encode_payload(payload: dict[str, str]) -> str:
    """Pages as gzipped JSON in base64: a tenth of the size, and no `</script>` or
    `<!--` can appear in it. The page inflates it with the browser's DecompressionStream."""
    raw = json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return base64.b64encode(gzip.compress(raw, compresslevel=_GZIP_LEVEL, mtime=0)).decode("ascii")


def decode_payload(text: str) -> dict[str, str]:
    """The inverse of `encode_payload` (tests and tools read reports with it)."""
    payload: dict[str, str] = json.loads(gzip.decompress(base64.b64decode(text)).decode("utf-8"))
    return payload


def report_pages(html: str) -> dict[str, str]:
    """Every page a report embeds, its head payload and all its chunks (API path → JSON
    text): what a reader of the file, or a test, sees once every chunk is inflated."""
    pages: dict[str, str] = {}
    for _, text in _ELEMENT.findall(html):
        pages.update(decode_payload(text))
    return pages


def _data_element(element_id: str, pages: dict[str, str], chunk: int | None = None) -> str:
    buffer = io.StringIO()
    _write_data_element(buffer, element_id, pages, chunk)
    return buffer.getvalue()


def _write_data_element(
    out: TextIO, element_id: str, pages: dict[str, str], chunk: int | None = None
) -> None:
    """One `<script>` data element, its pages gzipped and base64-encoded page by page
    (the head of a 100,000-trial report holds a ~5 MB overview: it is encoded once, as
    bytes, and never joined with the other pages)."""
    size = f' data-chunk="{chunk}"' if chunk is not None else ""
    out.write(f'<script type="application/octet-stream" id="{element_id}" '
              f'data-encoding="gzip+base64"{size}>')
    squeeze = zlib.compressobj(_GZIP_LEVEL, zlib.DEFLATED, 31)  # 31: gzip member, mtime 0
    pending = b""

    def feed(data: bytes) -> None:
        nonlocal pending
        pending += data
        whole = len(pending) - len(pending) % 3  # base64 of whole 3-byte groups only
        out.write(base64.b64encode(pending[:whole]).decode("ascii"))
        pending = pending[whole:]

    batch: list[bytes] = []  # small pages are compressed together (one call a chunk)
    held = 0
    for number, (path, text) in enumerate(pages.items()):
        encoded = _json_string(text)
        batch += (b"," if number else b"{", _json_string(path), b":")
        if len(encoded) >= _BATCH_BYTES:  # never copied into a batch
            feed(squeeze.compress(b"".join(batch)))
            feed(squeeze.compress(encoded))
            batch, held = [], 0
            continue
        batch.append(encoded)
        held += len(encoded)
        if held >= _BATCH_BYTES:
            feed(squeeze.compress(b"".join(batch)))
            batch, held = [], 0
    batch.append(b"}" if pages else b"{}")
    feed(squeeze.compress(b"".join(batch)) + squeeze.flush())
    out.write(base64.b64encode(pending).decode("ascii") + "</script>")


def _json_string(text: str) -> bytes:
    """`text` as a JSON string, UTF-8 (orjson: one copy, even of a 5 MB overview); a lone
    surrogate, which orjson refuses, as its `\\uXXXX` escape."""
    try:
        return orjson.dumps(text)
    except orjson.JSONEncodeError:
        return json.dumps(text).encode("ascii")


def _page_head(mode: str, title: str) -> str:
    if mode not in _CSP:
        raise ValueError(f"mode must be static or server, got {mode!r}")
    return (
        "<!doctype html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP[mode]}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{_asset('viewer.css')}</style></head>"
        f'<body data-mode="{mode}"><header class="top"><b>trialrun</b>'
        f'<a href="#/">{escape(title)}</a></header><main id="main">'
        '<p class="mute">loading…</p></main>'
    )


def _page_tail() -> str:
    return f"<script>{_script_safe(_asset('viewer.js'))}</script></body></html>\n"


def render_page(mode: str, title: str, payload: dict[str, str] | None = None) -> str:
    """The viewer page: `mode` "static" embeds `payload` (API path → JSON text) whole."""
    head = _page_head(mode, title)
    data = _data_element("payload", payload, CHUNK) if payload is not None else ""
    return head + data + _page_tail()


def _script_safe(code: str) -> str:
    if "</script" in code.lower():  # the viewer's own code never holds one
        raise ValueError("viewer.js must not contain </script")
    return code


def run_listing(view: RunView) -> dict[str, Any]:
    """One entry of `/api/runs` for a run."""
    over = view.overview()
    rates = {h["model"]: h.get("solve_k_rate") for h in over["headline"]}
    return {
        "run_id": view.run_id,
        "started_at": over["started_at"],
        "models": over["models"],
        "finished": over["finished"],
        "expected": over["expected"],
        "in_progress": over["in_progress"],
        **solve_k_rates(rates),
    }


def solve_k_rates(rates: dict[str, Any]) -> dict[str, Any]:
    """A run's solve^k in the runs list: per model (`solve_k_rates`, a run of several
    models shows each), and `solve_k_rate` when it has one model."""
    return {
        "solve_k_rate": next(iter(rates.values())) if len(rates) == 1 else None,
        "solve_k_rates": rates,
    }


HistoryOf = Callable[[Sequence[SummaryRow]], Sequence[HeatCell] | None]
"""The heat map's cells for a run's summary rows (its task × model pairs), looked up once
the run is read; None: no heat map."""


def _quote(run_id: str) -> str:
    """A run id as the page's `encodeURIComponent` spells it."""
    return quote(run_id, safe="!'()*-._~")


def _write_report(
    out: TextIO, view: RunView, history: Sequence[HeatCell] | HistoryOf | None,
    history_label: str, spool: TrialSpool | None = None,
) -> None:
    """The report of `view`, written element by element: the head payload, then the task
    and trial pages in chunks of `CHUNK` (at most one chunk's pages in memory)."""
    base = f"/api/run/{_quote(view.run_id)}"
    head = {
        "/api/runs": dumps({"root": str(view.path.parent), "runs": [run_listing(view)]}),
        base: dumps(view.overview()),
    }
    if callable(history):
        history = history(view.data.summary.tasks)
    if history is not None:
        head["/api/history"] = dumps(history_page(history, source=history_label))
    out.write(_page_head("static", f"run {view.run_id}"))
    _write_data_element(out, "payload", head, CHUNK)
    secrets = environment_secrets()  # once for every page
    for start in range(0, len(view.records), CHUNK):
        pages = {f"{base}/task/{i}": dumps(view.task(i), secrets)
                 for i in range(start, min(start + CHUNK, len(view.records)))}
        _write_data_element(out, f"chunk-task-{start // CHUNK}", pages)
    if spool is not None and spool.usable(view, base):
        spool.copy_to(out)  # written as the run was read
    else:
        chunks = _TrialChunks(out, base)  # one more pass over the file
        for number, page in view.trial_pages(embedded_transcripts(view)):
            chunks.add(number, page)
        chunks.close()
    out.write(_page_tail())


class _TrialChunks:
    """Trial pages, which come in number order, written `CHUNK` pages to an element."""

    def __init__(self, out: TextIO, base: str) -> None:
        self.out, self.base = out, base
        self.pages: dict[str, str] = {}
        self.chunk = 0
        self.secrets = environment_secrets()  # looked up once for every page

    def add(self, number: int, page: dict[str, Any]) -> None:
        if number // CHUNK != self.chunk and self.pages:
            _write_data_element(self.out, f"chunk-trial-{self.chunk}", self.pages)
            self.pages = {}
        self.chunk = number // CHUNK
        self.pages[f"{self.base}/trial/{number}"] = dumps(page, self.secrets)

    def close(self) -> None:
        if self.pages:
            _write_data_element(self.out, f"chunk-trial-{self.chunk}", self.pages)
            self.pages = {}


class TrialSpool:
    """The trial pages of a large run, written to a temp file while `RunView` first
    reads the run (each line parsed once for the whole report), then copied into the
    report after its head and task pages. The transcripts embedded are chosen as
    `embedded_transcripts` chooses them, in the same file order. Void (the report
    reads the lines again) when a row was not as predicted, or the run turned out to
    have `EMBED_ALL_UP_TO` trials or fewer (every transcript is embedded then)."""

    def __init__(self, run_dir: Path, folder: Path, limits: RunDirLimits) -> None:
        manifest_id = RunDir.open(run_dir, limits=limits).manifest().run_id or run_dir.name
        self.handle: TextIO = tempfile.TemporaryFile(  # noqa: SIM115 (closed in close())
            "w+", encoding="utf-8", errors="backslashreplace", dir=folder)
        self.base = f"/api/run/{_quote(str(manifest_id))}"
        self.chunks = _TrialChunks(self.handle, self.base)
        self.sample = _TranscriptSample()
        self.trials = 0
        self.valid = True

    def __call__(self, view: RunView, number: int, row: int, line: ResultLine) -> None:
        if not self.valid:
            return
        embed = self.sample.embeds(row, trial_status(line) == "solved")
        self.chunks.add(number, view.trial_page(number, row, line, embed))
        self.trials = number + 1

    def invalidate(self) -> None:
        self.valid = False

    def usable(self, view: RunView, base: str) -> bool:
        return (self.valid and base == self.base and self.trials == len(view.lines)
                and len(view.lines) > EMBED_ALL_UP_TO)

    def copy_to(self, out: TextIO) -> None:
        self.chunks.close()
        self.handle.seek(0)
        shutil.copyfileobj(self.handle, out, 1 << 20)

    def close(self) -> None:
        self.handle.close()


def embedded_transcripts(view: RunView) -> bytearray:
    """Per trial line, 1 when the report embeds its transcript. A run of up to
    `EMBED_ALL_UP_TO` trials: all. A larger one: per task × model the first
    `EMBED_UNSOLVED` trials that were not solved (the "first failing trial" link opens
    the first) and the first `EMBED_SOLVED` solved ones, so 100,000 trials do not open
    100,000 transcript files; the others' pages name the transcript's path."""
    flags = bytearray(len(view.lines))
    if len(view.lines) <= EMBED_ALL_UP_TO:
        flags[:] = b"\x01" * len(flags)
        return flags
    sample = _TranscriptSample()
    for number, row in enumerate(view.line_row):  # in file order: the overview links the first
        flags[number] = sample.embeds(row, view.lines.solved(number))
    return flags


class _TranscriptSample:
    """The transcripts a large report embeds, decided line by line in file order: per
    row the first `EMBED_UNSOLVED` trials not solved and the first `EMBED_SOLVED` solved."""

    def __init__(self) -> None:
        self.seen: dict[int, tuple[int, int]] = {}  # per row: (unsolved, solved) so far

    def embeds(self, row: int, solved: bool) -> bool:
        unsolved, solved_so_far = self.seen.get(row, (0, 0))
        if solved:
            solved_so_far += 1
        else:
            unsolved += 1
        self.seen[row] = (unsolved, solved_so_far)
        return solved_so_far <= EMBED_SOLVED if solved else unsolved <= EMBED_UNSOLVED


def render_report(
    run_dir: Path | str,
    baselines_dir: Path | str | None = None,
    history: Sequence[HeatCell] | HistoryOf | None = None,
    history_label: str = "the history store",
    settings: CompareSettings = CompareSettings(),
    limits: RunDirLimits = RunDirLimits(),
) -> str:
    """The self-contained HTML report of one run folder, as text (for a large run write
    it with `write_html_report`, which streams); with `history` (the last runs per task ×
    model, e.g. from a history store) its run page ends with their heat map."""
    view = RunView(run_dir, baselines_dir, settings, limits)
    try:
        buffer = io.StringIO()
        _write_report(buffer, view, history, history_label)
        return buffer.getvalue()
    finally:
        view.close()


@contextmanager
def _atomic_text(path: Path) -> Iterator[TextIO]:
    """A temp file beside `path`, fsynced and renamed onto it when the block ends
    without error (removed otherwise): readers never see half a report."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_html_report(
    run_dir: Path | str,
    out: Path | str,
    baselines_dir: Path | str | None = None,
    history: Sequence[HeatCell] | HistoryOf | None = None,
    history_label: str = "the history store",
    settings: CompareSettings = CompareSettings(),
    limits: RunDirLimits = RunDirLimits(),
) -> Path:
    """Write the HTML report of `run_dir` to `out` (streamed, atomically); returns the
    path. A large run's trial pages are written as it is read (`TrialSpool`). `history`
    may be a function of the run's summary rows, so the caller need not read the run
    itself to know its task × model pairs."""
    out = Path(out)
    spool: TrialSpool | None = None
    view: RunView | None = None
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        if _may_be_large(Path(run_dir), limits):
            spool = TrialSpool(Path(run_dir), out.parent, limits)
        view = RunView(run_dir, baselines_dir, settings, limits, each_trial=spool)
        with _atomic_text(out) as handle:
            _write_report(handle, view, history, history_label, spool)
    except WriteError:
        raise
    except OSError as exc:
        raise WriteError(out, exc) from None
    finally:
        if view is not None:
            view.close()
        if spool is not None:
            spool.close()
    return out


def _may_be_large(run_dir: Path, limits: RunDirLimits) -> bool:
    """Whether the run may have more than `EMBED_ALL_UP_TO` trials (a results line is
    at least ~150 bytes): only then are its trial pages spooled as it is read."""
    try:
        size = RunDir.open(run_dir, limits=limits).results_path.stat().st_size
    except OSError:
        return False
    return size > 150 * EMBED_ALL_UP_TO
