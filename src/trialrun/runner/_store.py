"""The run directory: run.json, results.jsonl (append-only), transcripts, summary.json.

results.jsonl gets exactly one line per finished trial, written with one `os.write` on an
O_APPEND descriptor and fsync'd, so a killed process leaves at most a torn last line;
`repair_results` truncates it away before a resume appends.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import threading
from concurrent.futures import Executor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from trialrun.errors import UserError

RUN_JSON = "run.json"
RESULTS = "results.jsonl"
SUMMARY = "summary.json"
TRANSCRIPTS = "transcripts"
WORKSPACES = "workspaces"


def new_run_id(now: datetime | None = None) -> str:
    """UTC timestamp + short random suffix, e.g. 20261122T043000Z-ab12."""
    now = now or datetime.now(UTC)
    return f"{now:%Y%m%dT%H%M%SZ}-{secrets.token_hex(2)}"


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), default=str)


def write_json_atomic(path: Path, data: Any) -> None:
    """Write a JSON file via a temp file + rename: readers never see half a file."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n", "utf-8")
    os.replace(tmp, path)


def read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(
            f"{path}: not found; pass a run directory written by `trialrun run`"
        ) from None
    except json.JSONDecodeError as exc:
        raise UserError(
            f"{path}:{exc.lineno}: invalid JSON ({exc.msg}); restore the file or start a new run"
        ) from None
    except UnicodeDecodeError:
        raise UserError(f"{path}: not UTF-8 text; restore the file or start a new run") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read ({exc.strerror or exc})") from None


class RunStore:
    """Files of one run directory."""

    def __init__(self, run_dir: Path, *, fsync: bool = True) -> None:
        self.dir = Path(run_dir)
        self.fsync = fsync
        self._fd: int | None = None
        self._transcript_dirs: set[str] = set()
        self._sync_lock = threading.Lock()
        self._dirty = False
        self._sync_pending = False

    @property
    def manifest_path(self) -> Path:
        return self.dir / RUN_JSON

    @property
    def results_path(self) -> Path:
        return self.dir / RESULTS

    @property
    def summary_path(self) -> Path:
        return self.dir / SUMMARY

    @classmethod
    def create(
        cls, out: Path, run_id: str, manifest: dict[str, Any], *, fsync: bool = True
    ) -> RunStore:
        """Make `out/<run_id>/` with run.json and an empty results.jsonl.

        Built under a hidden name and renamed into place, so a run folder never exists
        without its manifest (a kill at any moment leaves a resumable folder or none).
        """
        run_dir = Path(out) / run_id
        staging = Path(out) / f".{run_id}.partial"
        if run_dir.exists():
            raise UserError(f"{run_dir}: already exists; pick another --out or use --resume")
        try:
            staging.mkdir(parents=True, exist_ok=False)
            write_json_atomic(staging / RUN_JSON, manifest)
            (staging / RESULTS).touch()
            os.replace(staging, run_dir)
        except OSError as exc:
            raise UserError(
                f"--out {out}: cannot create the run folder {run_dir} ({exc.strerror or exc}); "
                "pass a writable folder"
            ) from None
        return cls(run_dir, fsync=fsync)

    @classmethod
    def open_existing(cls, run_dir: Path, *, fsync: bool = True) -> RunStore:
        run_dir = Path(run_dir)
        if run_dir.is_file() and run_dir.name in (RUN_JSON, RESULTS, SUMMARY):
            raise UserError(f"{run_dir}: is a file; pass its folder {run_dir.parent}")
        if not (run_dir / RUN_JSON).is_file() and (run_dir / RESULTS).is_file():
            raise UserError(
                f"{run_dir / RUN_JSON}: not found next to {RESULTS}; restore run.json (the "
                "run manifest) from a copy, or start a new run"
            )
        if not (run_dir / RUN_JSON).is_file():
            raise UserError(
                f"{run_dir}: not a run directory (no run.json); pass a folder written by "
                "`trialrun run`, e.g. results/<run-id>"
            )
        return cls(run_dir, fsync=fsync)

    # --- manifest and summary ---
    def write_manifest(self, manifest: dict[str, Any]) -> None:
        write_json_atomic(self.manifest_path, manifest)

    def read_manifest(self) -> dict[str, Any]:
        """run.json, checked: a damaged manifest is one UserError naming the key."""
        data = read_json(self.manifest_path)
        problem = check_manifest(data)
        if problem is not None:
            raise UserError(
                f"{self.manifest_path}: {problem}; the run manifest is damaged (restore it, "
                "or start a new run)"
            )
        return data

    def write_summary(self, summary: dict[str, Any]) -> None:
        write_json_atomic(self.summary_path, summary)

    # --- results ---
    def open_results(self) -> None:
        """Create (or open for append) results.jsonl; done before the first trial."""
        if self._fd is None:
            self._fd = os.open(self.results_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def append(self, line: dict[str, Any], *, sync: bool = True) -> None:
        """One write of one whole line (then fsync unless `sync=False`: call `sync()`).

        The line is in the file once `os.write` returns: a killed process cannot lose
        it; fsync only guards against a crash of the machine.
        """
        if self._fd is None:
            self.open_results()
        assert self._fd is not None
        data = (_dumps(line) + "\n").encode("utf-8")
        view = memoryview(data)
        while view:
            written = os.write(self._fd, view)
            view = view[written:]
        if sync and self.fsync:
            os.fsync(self._fd)

    def sync(self) -> None:
        if self.fsync and self._fd is not None:
            os.fsync(self._fd)

    def sync_soon(self, pool: Executor) -> None:
        """fsync in the background; calls made while one is pending coalesce into it."""
        if not self.fsync:
            return
        with self._sync_lock:
            self._dirty = True
            if self._sync_pending:
                return
            self._sync_pending = True
        pool.submit(self._sync_loop)

    def _sync_loop(self) -> None:
        while True:
            with self._sync_lock:
                if not self._dirty or self._fd is None:
                    self._sync_pending = False
                    return
                self._dirty = False
                fd = self._fd
            with contextlib.suppress(OSError):  # a failed fsync is retried at close
                os.fsync(fd)

    def close(self) -> None:
        """fsync and close (call after the background pool has been shut down)."""
        if self._fd is not None:
            fd, self._fd = self._fd, None
            if self.fsync:
                os.fsync(fd)
            os.close(fd)

    def repair_results(self) -> int:
        """Truncate a torn last line (no trailing newline); returns bytes dropped."""
        path = self.results_path
        if not path.exists():
            return 0
        size = path.stat().st_size
        if size == 0:
            return 0
        with open(path, "rb+") as fh:
            fh.seek(-1, os.SEEK_END)
            if fh.read(1) == b"\n":
                return 0
            # walk back to the last newline
            pos = size
            chunk = 65536
            keep = 0
            while pos > 0:
                start = max(0, pos - chunk)
                fh.seek(start)
                block = fh.read(pos - start)
                idx = block.rfind(b"\n")
                if idx >= 0:
                    keep = start + idx + 1
                    break
                pos = start
            fh.truncate(keep)
            fh.flush()
            os.fsync(fh.fileno())
            return size - keep

    def read_results(self) -> list[dict[str, Any]]:
        """Every complete line; a torn last line is ignored (not removed: see repair)."""
        return read_results(self.results_path)

    # --- transcripts ---
    def write_transcript(self, model_slug: str, name: str, data: dict[str, Any]) -> str:
        """Write transcripts/<model-slug>/<name>.json; returns the path relative to the run."""
        if model_slug not in self._transcript_dirs:
            (self.dir / TRANSCRIPTS / model_slug).mkdir(parents=True, exist_ok=True)
            self._transcript_dirs.add(model_slug)
        rel = f"{TRANSCRIPTS}/{model_slug}/{name}.json"
        fd = os.open(self.dir / rel, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            os.write(fd, _dumps(data).encode("utf-8"))
        finally:
            os.close(fd)
        return rel


def check_line(item: Any) -> str | None:
    """Why a results line cannot be used (None when fine): tracking's checker plus `trial`."""
    from trialrun.tracking._run_data import check_result_line

    problem = check_result_line(item)
    if problem is not None:
        return problem
    trial = item.get("trial")
    if isinstance(trial, bool) or not isinstance(trial, int) or trial < 0:
        return f"trial must be an integer >= 0 (got {json.dumps(trial)[:40]})"
    return None


def read_results(path: Path) -> list[dict[str, Any]]:
    """results.jsonl lines; a torn last line is dropped, a damaged middle line is an error."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise UserError(
            f"{path}: not found; pass a run directory written by `trialrun run`"
        ) from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read ({exc.strerror or exc})") from None
    lines = raw.split(b"\n")
    out: list[dict[str, Any]] = []
    last = len(lines) - 1
    fix = "the results file is damaged; delete that line (its trial reruns on --resume)"
    for number, text in enumerate(lines):
        if not text.strip():
            continue
        try:
            item = json.loads(text)
        except (json.JSONDecodeError, UnicodeDecodeError):
            if number == last:  # no newline after it: a torn write
                break
            raise UserError(f"{path}:{number + 1}: not a JSON line; {fix}") from None
        problem = check_line(item)
        if problem is not None:
            raise UserError(f"{path}:{number + 1}: {problem}; {fix}")
        out.append(item)
    return out


def _is_pos_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def check_manifest(data: Any) -> str | None:
    """Why run.json cannot drive a summary or a resume (None when fine)."""
    if not isinstance(data, dict):
        return f"expected a JSON object (got {type(data).__name__})"
    if "run_id" in data and not isinstance(data["run_id"], str):
        return "run_id must be a string"
    models = data.get("models")
    if models is not None and (
        not isinstance(models, list) or not all(isinstance(m, str) and m for m in models)
    ):
        return "models must be a list of model specs (strings)"
    if data.get("k") is not None and not _is_pos_int(data["k"]):
        return f"k must be an integer >= 1 or null (got {json.dumps(data['k'])[:40]})"
    tasks = data.get("tasks")
    if tasks is not None and not isinstance(tasks, list):
        return "tasks must be a list"
    for i, task in enumerate(tasks or []):
        if not isinstance(task, dict) or not isinstance(task.get("task_id"), str):
            return f"tasks[{i}] must be an object with a task_id string"
        if "k" in task and not _is_pos_int(task["k"]):
            return f"tasks[{i}].k must be an integer >= 1 (got {json.dumps(task['k'])[:40]})"
        for key in ("suite", "tier", "policy", "metric"):
            if task.get(key) is not None and not isinstance(task[key], str):
                return f"tasks[{i}].{key} must be a string"
        if task.get("tags") is not None and not isinstance(task["tags"], list):
            return f"tasks[{i}].tags must be a list"
    for key in ("paths", "task_files"):
        if data.get(key) is not None and not isinstance(data[key], list):
            return f"{key} must be a list"
    for i, entry in enumerate(data.get("task_files") or []):
        if not isinstance(entry, dict):
            return f"task_files[{i}] must be an object {{path, sha256}}"
    filters = data.get("filters")
    if filters is not None and (
        not isinstance(filters, dict)
        or set(filters) - {"task", "suite", "tier", "tag"}
        or not all(isinstance(v, list) for v in filters.values())
    ):
        return "filters must be an object of lists (task, suite, tier, tag)"
    for key in ("judge", "agent", "agent_cmd"):
        if data.get(key) is not None and not isinstance(data[key], str):
            return f"{key} must be a string or null"
    return None
