"""`trialrun view`: a read-only local server over a folder of runs.

The standard library's `ThreadingHTTPServer` serves the viewer page and the JSON pages
`RunView` builds, on demand: a 30,000-trial run sends its task table once and each
transcript only when it is opened. Only GET and HEAD are answered. It binds 127.0.0.1
unless told otherwise, and then (loopback only) refuses requests whose Host header is
not a loopback name, so a web page elsewhere cannot read runs through DNS rebinding.
A run still being written is re-read when its results file changes; the page polls
`/api/run/<id>/status` and redraws with the new trials.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from trialrun.errors import UserError
from trialrun.reports._across import (
    HISTORY_RUNS,
    HeatCell,
    cells_from_summaries,
    comparison_page,
    history_page,
)
from trialrun.reports._html import render_page, run_listing, solve_k_rates
from trialrun.reports._view import RunView, dumps
from trialrun.reports._view_cache import cache_key, load_overview, store_overview
from trialrun.rundir import RESULTS, RUN_JSON, SUMMARY, RunDir, RunDirLimits
from trialrun.runner import lock_holder
from trialrun.tracking import CompareSettings, compare_runs, one_sided_models

LOOPBACK_NAMES = {"127.0.0.1", "localhost", "::1", "[::1]"}

# the heat map's cells of the last N runs per task × model, e.g. from a history store
HistorySource = Callable[[int], Sequence[HeatCell]]


@dataclass(slots=True)
class _Cached:
    version: str
    view: RunView


def run_version(run_dir: Path) -> str:
    """Changes whenever a trial is appended, the summary rewritten or the lock taken/freed."""
    parts = []
    for name in (RESULTS, SUMMARY, RUN_JSON):
        try:
            st = (run_dir / name).stat()
            parts.append(f"{st.st_size}.{st.st_mtime_ns}")
        except OSError:
            parts.append("-")
    parts.append("live" if lock_holder(run_dir) is not None else "done")
    return "/".join(parts)


class RunStore:
    """The runs under one folder, each read once and re-read when it changes."""

    def __init__(
        self,
        root: Path | str,
        baselines_dir: Path | str | None = None,
        history: HistorySource | None = None,
        history_label: str = "the history store",
        settings: CompareSettings = CompareSettings(),
        limits: RunDirLimits = RunDirLimits(),
    ) -> None:
        self.root = Path(root)
        self.settings = settings  # the project's [compare] alpha / method
        self.limits = limits  # the project's [rundir]
        self.baselines_dir = baselines_dir
        self.history_source = history
        self.history_label = history_label
        self._cache: dict[str, _Cached] = {}
        self._lock = threading.Lock()

    def run_dirs(self) -> list[Path]:
        """Every run folder directly under the root (the root itself if it is one)."""
        if (self.root / RUN_JSON).is_file():
            return [self.root]
        try:
            found = [p for p in self.root.iterdir()
                     if p.is_dir() and not p.name.startswith(".") and (p / RUN_JSON).is_file()]
        except OSError:
            return []
        return sorted(found, key=lambda p: p.name, reverse=True)

    def path_of(self, run_id: str) -> Path:
        for path in self.run_dirs():
            if path.name == run_id:
                return path
        raise KeyError(run_id)

    def view(self, run_id: str) -> RunView:
        path = self.path_of(run_id)
        version = run_version(path)
        with self._lock:
            cached = self._cache.get(run_id)
            if cached is not None and cached.version == version:
                return cached.view
        view = RunView(path, self.baselines_dir, self.settings, self.limits)
        with self._lock:
            old = self._cache.get(run_id)
            if old is not None:
                old.view.close()
            self._cache[run_id] = _Cached(version, view)
        return view

    def brief(self, path: Path) -> dict[str, Any]:
        """A run's line in the list: from run.json and summary.json alone when the run is
        finished (cheap for a folder of many big runs), else from its full view."""
        with self._lock:
            cached = self._cache.get(path.name)
        finished = lock_holder(path) is None
        if cached is None and finished:
            run = RunDir.open(path, limits=self.limits)
            summary = run.stored_summary()
            if summary is not None:
                manifest = run.manifest()
                rates = {m: (summary.aggregate.get(m) or {}).get("solve_k_rate")
                         for m in summary.models}
                return {
                    "run_id": path.name, "started_at": manifest.started_at,
                    "models": summary.models, "finished": summary.finished_trials,
                    "expected": summary.expected_trials, "in_progress": False,
                    **solve_k_rates(rates),
                }
        return run_listing(self.view(path.name))

    def listing(self) -> dict[str, Any]:
        runs = []
        for path in self.run_dirs():
            try:
                runs.append(self.brief(path))
            except UserError as exc:
                runs.append({"run_id": path.name, "error": str(exc), "models": [],
                             "finished": 0, "expected": 0, "in_progress": False})
        return {"root": str(self.root), "runs": runs}

    def history(self, last: int = HISTORY_RUNS) -> dict[str, Any]:
        """The heat map: per task × model its last `last` runs from the history source
        when there is one, else the last `last` finished runs (with a summary.json) of
        the folder."""
        if self.history_source is not None:
            return history_page(self.history_source(last), source=self.history_label)
        runs = []
        for path in self.run_dirs():
            if lock_holder(path) is not None:
                continue
            try:
                summary = RunDir.open(path, limits=self.limits).stored_summary()
            except UserError:
                continue
            if summary is not None:
                runs.append((path.name, summary))
            if len(runs) >= last:
                break
        return history_page(cells_from_summaries(runs[::-1]), source="the run folders")

    def status(self, run_id: str) -> dict[str, Any]:
        path = self.path_of(run_id)
        return {"run_id": run_id, "version": run_version(path),
                "in_progress": lock_holder(path) is not None}

    def overview(self, run_id: str) -> dict[str, Any]:
        """A finished run's overview comes from its cache file when that is current
        (see `_view_cache`); it is built, and cached, otherwise."""
        path = self.path_of(run_id)
        version = run_version(path)
        finished = lock_holder(path) is None
        key = (
            cache_key(path, version, self.baselines_dir, self.settings.alpha,
                      self.settings.method)
            if finished else None
        )  # fmt: skip
        page = load_overview(path, key) if key is not None else None
        if page is None:
            page = dict(self.view(run_id).overview())
            if key is not None:
                store_overview(path, key, page)
        page = dict(page)
        page["version"] = version
        return page

    def compare(self, a: str, b: str) -> dict[str, Any]:
        """The newer run (after) against the older one (before), by run id."""
        after, before = sorted([a, b], reverse=True)
        after_dir, before_dir = self.path_of(after), self.path_of(before)
        sides = one_sided_models(after_dir, before_dir)
        try:
            comparisons = compare_runs(after_dir, before_dir, alpha=self.settings.alpha,
                                       method=self.settings.method)
        except UserError:
            if not sides:
                raise
            comparisons = []  # no model in common: the page names each side's models
        return comparison_page(comparisons, after, before, sides)

    def close(self) -> None:
        with self._lock:
            for cached in self._cache.values():
                cached.view.close()
            self._cache.clear()


class _Handler(BaseHTTPRequestHandler):
    server: ViewerServer
    server_version = "trialrun-view"
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # stdlib name
        if self.server.verbose:
            super().log_message(format, *args)

    def _send(self, status: int, body: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status: int, page: Any) -> None:
        text = page if isinstance(page, str) else dumps(page)
        self._send(status, text.encode("utf-8", "backslashreplace"),
                   "application/json; charset=utf-8")

    def _refuse(self) -> None:
        self._json(HTTPStatus.METHOD_NOT_ALLOWED, {"error": "read-only: GET and HEAD only"})

    do_POST = do_PUT = do_DELETE = do_PATCH = _refuse  # stdlib naming

    def do_HEAD(self) -> None:  # stdlib naming
        self.do_GET()

    def do_GET(self) -> None:  # stdlib naming
        if not self._host_allowed():
            self._json(HTTPStatus.FORBIDDEN, {"error": "unexpected Host header"})
            return
        path = urlsplit(self.path).path
        parts = [unquote(p) for p in path.strip("/").split("/")] if path.strip("/") else []
        store = self.server.store
        try:
            if not parts or parts == ["index.html"]:
                page = render_page("server", f"runs in {store.root}")
                self._send(HTTPStatus.OK, page.encode("utf-8"), "text/html; charset=utf-8")
                return
            if parts[0] != "api":
                raise KeyError(path)
            self._json(HTTPStatus.OK, self._api(parts[1:]))
        except KeyError:
            self._json(HTTPStatus.NOT_FOUND, {"error": f"not found: {path}"})
        except UserError as exc:  # a damaged run folder: its one-line message
            self._json(HTTPStatus.UNPROCESSABLE_ENTITY, {"error": str(exc)})
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _api(self, parts: list[str]) -> Any:
        store = self.server.store
        match parts:
            case ["runs"]:
                return store.listing()
            case ["history"]:
                return store.history()
            case ["run", run_id]:
                return store.overview(run_id)
            case ["run", run_id, "status"]:
                return store.status(run_id)
            case ["run", run_id, "task", row] if row.isdigit():
                return store.view(run_id).task(int(row))
            case ["run", run_id, "trial", line] if line.isdigit():
                return store.view(run_id).trial(int(line))
            case ["compare", a, b]:
                return store.compare(a, b)
        raise KeyError("/".join(parts))

    def _host_allowed(self) -> bool:
        if not self.server.loopback_only:
            return True
        host = (self.headers.get("Host") or "").strip()
        name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
        return name in LOOPBACK_NAMES


class ViewerServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, store: RunStore, host: str, port: int, *, verbose: bool = False):
        self.store = store
        self.verbose = verbose
        self.loopback_only = host in LOOPBACK_NAMES
        super().__init__((host, port), _Handler)

    @property
    def url(self) -> str:
        address, port = self.server_address[:2]
        host = address.decode() if isinstance(address, bytes) else str(address)
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{port}/"

    def server_close(self) -> None:
        super().server_close()
        self.store.close()


def make_server(
    results_dir: Path | str,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    baselines_dir: Path | str | None = None,
    verbose: bool = False,
    history: HistorySource | None = None,
    history_label: str = "the history store",
    settings: CompareSettings = CompareSettings(),
    limits: RunDirLimits = RunDirLimits(),
) -> ViewerServer:
    """A viewer server over `results_dir` (not yet serving; call `serve_forever`).

    `history(last)` gives the heat map's cells (e.g. from a history store: runs whose
    folders are gone still show); without it the heat map reads the run folders.
    `settings`, `limits`: the project's `[compare]` (two runs compared) and `[rundir]`."""
    root = Path(results_dir)
    if not root.is_dir():
        raise UserError(
            f"{root}: no such folder; pass the folder `trialrun run --out` wrote to "
            "(default results/)"
        )
    if not 0 <= port <= 65535:
        raise UserError(f"--port {port}: use 0 (any free port) to 65535")
    try:
        store = RunStore(root, baselines_dir, history, history_label, settings, limits)
        return ViewerServer(store, host, port, verbose=verbose)
    except OSError as exc:
        raise UserError(
            f"--host {host} --port {port}: cannot listen ({exc.strerror or exc}); "
            "pick another port (0 = any free one)"
        ) from None

