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
import tempfile
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from html import escape
from importlib import resources
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import quote

import orjson

from trialrun.reports._across import HeatCell, history_page
from trialrun.reports._view import RunView, dumps
from trialrun.rundir import RunDirLimits, WriteError
from trialrun.tracking import CompareSettings

_CSP = {
    "static": "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
    "img-src data:",
    "server": "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
    "img-src data:; connect-src 'self'",
}
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
    return base64.b64encode(gzip.compress(raw, compresslevel=6, mtime=0)).decode("ascii")


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
    squeeze = zlib.compressobj(6, zlib.DEFLATED, 31)  # 31: a gzip member, mtime 0
    pending = b""

    def feed(data: bytes) -> None:
        nonlocal pending
        pending += data
        whole = len(pending) - len(pending) % 3  # base64 of whole 3-byte groups only
        out.write(base64.b64encode(pending[:whole]).decode("ascii"))
        pending = pending[whole:]

    for number, (path, text) in enumerate(pages.items()):
        feed(squeeze.compress(b"," if number else b"{"))
        feed(squeeze.compress(_json_string(path) + b":"))
        feed(squeeze.compress(_json_string(text)))
    feed(squeeze.compress(b"}" if pages else b"{}") + squeeze.flush())
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


def _quote(run_id: str) -> str:
    """A run id as the page's `encodeURIComponent` spells it."""
    return quote(run_id, safe="!'()*-._~")


def _write_report(
    out: TextIO, view: RunView, history: Sequence[HeatCell] | None, history_label: str
) -> None:
    """The report of `view`, written element by element: the head payload, then the task
    and trial pages in chunks of `CHUNK` (at most one chunk's pages in memory)."""
    base = f"/api/run/{_quote(view.run_id)}"
    head = {
        "/api/runs": dumps({"root": str(view.path.parent), "runs": [run_listing(view)]}),
        base: dumps(view.overview()),
    }
    if history is not None:
        head["/api/history"] = dumps(history_page(history, source=history_label))
    out.write(_page_head("static", f"run {view.run_id}"))
    _write_data_element(out, "payload", head, CHUNK)
    for start in range(0, len(view.records), CHUNK):
        pages = {f"{base}/task/{i}": dumps(view.task(i))
                 for i in range(start, min(start + CHUNK, len(view.records)))}
        _write_data_element(out, f"chunk-task-{start // CHUNK}", pages)
    pages, chunk = {}, 0  # trial pages come in number order, one pass over the file
    for number, page in view.trial_pages(embedded_transcripts(view)):
        if number // CHUNK != chunk and pages:
            _write_data_element(out, f"chunk-trial-{chunk}", pages)
            pages = {}
        chunk = number // CHUNK
        pages[f"{base}/trial/{number}"] = dumps(page)
    if pages:
        _write_data_element(out, f"chunk-trial-{chunk}", pages)
    out.write(_page_tail())


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
    for numbers in view.row_lines:
        unsolved = solved = 0
        for number in sorted(numbers):  # in file order: the overview links the first
            if view.lines.solved(number):
                solved += 1
                flags[number] = solved <= EMBED_SOLVED
            else:
                unsolved += 1
                flags[number] = unsolved <= EMBED_UNSOLVED
    return flags


def render_report(
    run_dir: Path | str,
    baselines_dir: Path | str | None = None,
    history: Sequence[HeatCell] | None = None,
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
    history: Sequence[HeatCell] | None = None,
    history_label: str = "the history store",
    settings: CompareSettings = CompareSettings(),
    limits: RunDirLimits = RunDirLimits(),
) -> Path:
    """Write the HTML report of `run_dir` to `out` (streamed, atomically); returns the path."""
    out = Path(out)
    view = RunView(run_dir, baselines_dir, settings, limits)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        with _atomic_text(out) as handle:
            _write_report(handle, view, history, history_label)
    except WriteError:
        raise
    except OSError as exc:
        raise WriteError(out, exc) from None
    finally:
        view.close()
    return out
