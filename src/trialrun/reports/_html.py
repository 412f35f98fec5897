"""The viewer page, and the self-contained HTML report (`trialrun report --html FILE`).

One page serves both: in the report every JSON page the viewer asks for is embedded in
the file (a snapshot of the server's answers), in `trialrun view` it is fetched. Style,
script and plots (SVG) are inlined; a Content-Security-Policy forbids the report any
network request, so it opens the same offline, from a CI artifact or an e-mail.
"""

from __future__ import annotations

import base64
import gzip
import json
from collections.abc import Sequence
from html import escape
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import quote

from trialrun.reports._across import HeatCell, history_page
from trialrun.reports._view import RunView, dumps
from trialrun.rundir import write_text_atomic

_CSP = {
    "static": "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
              "img-src data:",
    "server": "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
              "img-src data:; connect-src 'self'",
}


def _asset(name: str) -> str:
    return resources.files("trialrun.reports").joinpath("assets", name).read_text("utf-8")


def encode_payload(payload: dict[str, str]) -> str:
    """The pages as gzipped JSON in base64: a tenth of the size, and no `</script>` or
    `<!--` can appear in it. The page inflates it with the browser's DecompressionStream."""
    raw = json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return base64.b64encode(gzip.compress(raw, compresslevel=6, mtime=0)).decode("ascii")


def decode_payload(text: str) -> dict[str, str]:
    """The inverse of `encode_payload` (tests and tools read reports with it)."""
    payload: dict[str, str] = json.loads(gzip.decompress(base64.b64decode(text)).decode("utf-8"))
    return payload


def render_page(mode: str, title: str, payload: dict[str, str] | None = None) -> str:
    """The viewer page: `mode` "static" embeds `payload` (API path → JSON text)."""
    if mode not in _CSP:
        raise ValueError(f"mode must be static or server, got {mode!r}")
    data = ""
    if payload is not None:
        data = (
            '<script type="application/octet-stream" id="payload" data-encoding="gzip+base64">'
            + encode_payload(payload)
            + "</script>"
        )
    return (
        "<!doctype html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP[mode]}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{_asset('viewer.css')}</style></head>"
        f'<body data-mode="{mode}"><header class="top"><b>trialrun</b>'
        f'<a href="#/">{escape(title)}</a></header><main id="main">'
        '<p class="mute">loading…</p></main>'
        f"{data}<script>{_script_safe(_asset('viewer.js'))}</script></body></html>\n"
    )


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


def report_payload(view: RunView) -> dict[str, str]:
    """Every page the viewer can ask about one run: the run, each task, each trial."""
    run_id = view.run_id
    base = f"/api/run/{_quote(run_id)}"
    payload = {
        "/api/runs": dumps({"root": str(view.path.parent), "runs": [run_listing(view)]}),
        base: dumps(view.overview()),
    }
    for row in range(len(view.records)):
        payload[f"{base}/task/{row}"] = dumps(view.task(row))
    for line in range(len(view.lines)):
        payload[f"{base}/trial/{line}"] = dumps(view.trial(line))
    return payload


def _quote(run_id: str) -> str:
    """A run id as the page's `encodeURIComponent` spells it."""

    return quote(run_id, safe="!'()*-._~")


def render_report(
    run_dir: Path | str,
    baselines_dir: Path | str | None = None,
    history: Sequence[HeatCell] | None = None,
    history_label: str = "the history store",
) -> str:
    """The self-contained HTML report of one run folder; with `history` (the last runs
    per task × model, e.g. from a history store) its run page ends with their heat map."""
    view = RunView(run_dir, baselines_dir)
    try:
        payload = report_payload(view)
        if history is not None:
            payload["/api/history"] = dumps(history_page(history, source=history_label))
        return render_page("static", f"run {view.run_id}", payload)
    finally:
        view.close()


def write_html_report(
    run_dir: Path | str,
    out: Path | str,
    baselines_dir: Path | str | None = None,
    history: Sequence[HeatCell] | None = None,
    history_label: str = "the history store",
) -> Path:
    """Write the HTML report of `run_dir` to `out` (atomically); returns the path."""
    out = Path(out)
    write_text_atomic(out, render_report(run_dir, baselines_dir, history, history_label))
    return out
