"""`RunDir`: the one owner of a run folder's files.

    DIR/<run-id>/run.json            Manifest
    DIR/<run-id>/results.jsonl       ResultLine, one per finished trial, appended
    DIR/<run-id>/summary.json        Summary
    DIR/<run-id>/transcripts/<model-slug>.jsonl   Transcript, one line per trial, appended
                                                  (older runs: <model-slug>/<task>-<trial>.json)
    DIR/<run-id>/workspaces/<model-slug>/<task>-<trial>/       kept with --keep-artifacts

A folder is built under a hidden name and renamed into place, so it never exists without
its manifest. Each results line is one `os.write` on an O_APPEND descriptor, so a killed
process leaves at most a torn last line: readers skip it, `repair_results` cuts it off
before a resume appends.

Transcripts are appended to one file per model; the results line names the file and the
byte offset its transcript starts at (`transcript_offset`), so `transcript(line)` is one
seek and one line read, and 100k trials are a handful of files, not 100k. A results line
without an offset names a transcript file of its own (older runs): read whole.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import sys
import threading
from collections.abc import Iterable, Iterator
from concurrent.futures import Executor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from trialrun.core import (
    FileRefused,
    iter_lines,
    open_fd,
    open_regular,
    read_line,
    read_regular,
    slugify,
)
from trialrun.errors import UserError
from trialrun.rundir._checks import RecordError
from trialrun.rundir._copy import copy_run_folder
from trialrun.rundir._json import (
    dumps_line,
    loads_bytes,
    loads_limited,
    read_json,
    write_json_atomic,
    write_text_atomic,
)
from trialrun.rundir._json_entries import read_interned
from trialrun.rundir._limits import RunDirLimits, record_fix
from trialrun.rundir._manifest import Manifest
from trialrun.rundir._result_line import ResultLine
from trialrun.rundir._summary import Summary
from trialrun.rundir._summary_text import summary_by_rows
from trialrun.rundir._transcript import Transcript
from trialrun.rundir._writer import LineWriter

RUN_JSON = "run.json"
RESULTS = "results.jsonl"
SUMMARY = "summary.json"
TRANSCRIPTS = "transcripts"
WORKSPACES = "workspaces"
# the viewer's cached overview of a finished run (derived; safe to delete, rebuilt on demand)
VIEW_CACHE = "view-cache.json"
_FILES = (RUN_JSON, RESULTS, SUMMARY)
_LINE_FIX = "the results file is damaged; delete that line (its trial reruns on --resume)"
# a lone surrogate (a JSON "\\ud800" escape in a model's reply) is written as that escape
_ENCODE_ERRORS = "backslashreplace"
_MANIFEST_FIX = "the run manifest is damaged (restore it, or start a new run)"
_NOT_REGULAR_FIX = "a run folder holds the regular files trialrun wrote; replace it with one"


@dataclass(slots=True)
class RunContents:
    """What `RunDir.read` returns: the manifest, the checked lines, what was skipped."""

    manifest: Manifest
    results: list[ResultLine]
    warnings: list[str] = field(default_factory=list)


def new_run_id(now: datetime | None = None) -> str:
    """UTC timestamp + short random suffix, e.g. 20261122T043000Z-ab12."""
    now = now or datetime.now(UTC)
    return f"{now:%Y%m%dT%H%M%SZ}-{secrets.token_hex(2)}"


class RunDir:
    """Reads and writes one run folder. Not thread-safe for appends: one writer per run."""

    def __init__(
        self, path: Path | str, *, fsync: bool = True, limits: RunDirLimits | None = None
    ) -> None:
        self.path = Path(path)
        self.fsync = fsync
        self._limits = limits if limits is not None else RunDirLimits()
        self._fd: int | None = None
        self._transcript_dirs: set[str] = set()
        self._transcript_fds: dict[str, int] = {}
        self._transcript_ends: dict[str, int] = {}
        self._transcript_lock = threading.Lock()
        self._offset = 0  # where the line `_raw_lines` last yielded starts
        self._sync_lock = threading.Lock()
        self._dirty = False
        self._sync_pending = False
        self._writer: LineWriter | None = None

    @property
    def limits(self) -> RunDirLimits:
        """How much of a record or a file is read at most: the project's `[rundir]` as
        the caller passed it (`RunDirLimits.of(config)`), else the defaults."""
        return self._limits

    # --- paths ---
    @property
    def manifest_path(self) -> Path:
        return self.path / RUN_JSON

    @property
    def results_path(self) -> Path:
        return self.path / RESULTS

    @property
    def summary_path(self) -> Path:
        return self.path / SUMMARY

    def workspace_dir(self, line: ResultLine) -> Path:
        """Where the trial's workspace was kept (recorded in the line; older runs: by name)."""
        recorded = line.extra.get("workspace")
        if isinstance(recorded, str) and _inside_workspaces(recorded):
            return self.path / recorded
        name = f"{slugify(line.task_id)}-{line.trial}"
        return self.path / WORKSPACES / slugify(line.model) / name

    # --- creating and opening ---
    @classmethod
    def create(
        cls,
        out: Path | str,
        run_id: str,
        manifest: Manifest,
        *,
        fsync: bool = True,
        limits: RunDirLimits | None = None,
    ) -> RunDir:
        """Make `out/<run_id>/` with run.json and an empty results.jsonl, atomically."""
        run_dir = Path(out) / run_id
        staging = Path(out) / f".{run_id}.partial"
        if run_dir.exists():
            raise UserError(f"{run_dir}: already exists; pick another --out or use --resume")
        try:
            staging.mkdir(parents=True, exist_ok=False)
            write_json_atomic(staging / RUN_JSON, manifest.to_json())
            (staging / RESULTS).touch()
            os.replace(staging, run_dir)
        except OSError as exc:
            raise UserError(
                f"--out {out}: cannot create the run folder {run_dir} ({exc.strerror or exc}); "
                "pass a writable folder"
            ) from None
        return cls(run_dir, fsync=fsync, limits=limits)

    @classmethod
    def open(
        cls, path: Path | str, *, fsync: bool = True, limits: RunDirLimits | None = None
    ) -> RunDir:
        """An existing run folder (run.json present); a wrong path is one UserError.
        `limits`: the project's `[rundir]` (`RunDirLimits.of`); None: the defaults."""
        path = Path(path)
        if path.is_file():
            hint = (
                f"its folder {path.parent}"
                if path.name in _FILES
                else "the folder `trialrun run` wrote"
            )
            raise UserError(f"{path}: is a file, not a run directory; pass {hint}")
        if not os.path.lexists(path / RUN_JSON):  # a FIFO or device: the read refuses it
            if os.path.lexists(path / RESULTS):
                raise UserError(
                    f"{path / RUN_JSON}: not found next to {RESULTS}; restore run.json (the "
                    "run manifest) from a copy, or start a new run"
                )
            raise UserError(
                f"{path}: not a run directory (no {RUN_JSON}); pass the folder `trialrun run` "
                "wrote, e.g. results/<run-id>"
            )
        return cls(path, fsync=fsync, limits=limits)

    def copy_to(self, out: Path | str) -> RunDir:
        """A copy of this run folder in the new folder `out` (its files checked: see
        `copy_run_folder`); a refusal is one UserError and leaves no `out`."""
        out = Path(out)
        if os.path.lexists(out):
            raise UserError(f"--out {out}: already exists; choose a new folder")
        copy_run_folder(self.path, out, self.limits)
        return RunDir(out, fsync=self.fsync, limits=self._limits)

    # --- manifest and summary ---
    def write_manifest(self, manifest: Manifest) -> None:
        """Replace run.json (an importer that learns the tasks after the lines)."""
        write_json_atomic(self.manifest_path, manifest.to_json())

    def manifest(self) -> Manifest:
        """run.json, checked: a missing or damaged manifest is a UserError naming the key."""
        data = read_json(
            self.manifest_path, "restore the file or start a new run", self.limits.record_bytes,
            in_parts=read_interned,  # a large one: its text values one object each
        )
        try:
            return Manifest.from_json(data)
        except RecordError as exc:
            raise UserError(f"{self.manifest_path}: {exc}; {_MANIFEST_FIX}") from None

    def write_summary(self, summary: Summary) -> None:
        write_json_atomic(self.summary_path, summary.to_json())

    def stored_summary(self) -> Summary | None:
        """summary.json as written (None when absent); a damaged one is a UserError."""
        if not os.path.lexists(self.summary_path):
            return None
        fix = "delete it to have it recomputed from results.jsonl"
        data = read_json(self.summary_path, fix, self.limits.record_bytes,
                         in_parts=summary_by_rows)  # a large one: a row at a time
        if isinstance(data, Summary):
            return data
        try:
            return Summary.from_json(data, consume=True)  # `data` is read no more
        except RecordError as exc:
            raise UserError(f"{self.summary_path}: {exc}; {fix}") from None

    # --- results ---
    def read(self) -> RunContents:
        """The one reader of a run folder: the manifest and the checked results lines.

        Every command that reads a run goes through here (or through `iter_results`, its
        streaming form), so all refuse the same things with the same one-line UserError:
        a missing or damaged run.json; a line that is not UTF-8, not JSON, not an object
        or has a wrongly typed key; NaN/±Infinity anywhere in a line; a trial outside
        [0, k) of its task; the same (task, model, trial) twice. A torn last line (a
        killed write) is skipped with a warning: results written before a crash survive
        it. No results.jsonl: no trials yet.
        """
        manifest = self.manifest()
        warnings: list[str] = []
        results = list(self.iter_results(warnings, manifest=manifest))
        return RunContents(manifest, results, warnings)

    def results(self) -> list[ResultLine]:
        """The checked results lines (see `read`)."""
        return self.read().results

    def iter_results(
        self, warnings: list[str] | None = None, *, manifest: Manifest | None = None
    ) -> Iterator[ResultLine]:
        """The checked results lines one at a time, read as a stream (constant memory).

        The same checks and messages as `read`; a torn last line is skipped and named in
        `warnings` (when given). Only the (task, model, trial) keys seen are held.
        """
        manifest = manifest if manifest is not None else self.manifest()
        # read from run.json now: the stream holds each task's k, not the manifest
        ks = {tid: meta.get("k") for tid, meta in manifest.task_meta().items()}
        return self._checked_results(ks, manifest.k, warnings)

    def _checked_results(
        self, ks: dict[str, Any], run_k: int | None, warnings: list[str] | None
    ) -> Iterator[ResultLine]:
        path = self.results_path
        # trials seen per (task, model): the bits of one int (trial t: bit t), k bits a task
        seen: dict[tuple[str, str], int] = {}
        sink = warnings if warnings is not None else []
        for number, item in self._raw_lines(sink):
            try:
                line = ResultLine.from_json(item)
            except RecordError as exc:
                raise UserError(f"{path}:{number}: {exc}; {_LINE_FIX}") from None
            k = ks.get(line.task_id) or run_k
            if k is not None and line.trial >= k:
                raise UserError(
                    f"{path}:{number}: trial {line.trial} is out of range for "
                    f"{line.task_id} (k = {k}: trials 0 to {k - 1}); {_LINE_FIX}"
                )
            pair = (line.task_id, line.model)
            trials, bit = seen.get(pair, 0), 1 << line.trial
            if trials & bit:
                first = self._first_line_of(line.key)
                raise UserError(
                    f"{path}:{number}: duplicate of line {first} ({line.task_id}, "
                    f"{line.model}, trial {line.trial}); delete the line you do not trust"
                )
            if not trials:  # a new pair: its key's text shared, not this line's copy
                pair = (sys.intern(line.task_id), sys.intern(line.model))
            seen[pair] = trials | bit
            yield line

    def iter_results_with_offsets(
        self, warnings: list[str] | None = None, *, manifest: Manifest | None = None
    ) -> Iterator[tuple[int, ResultLine]]:
        """(byte offset, line) of every checked results line, streamed; `result_at`
        reads one of them again (random access without holding the lines)."""
        lines = self.iter_results(warnings, manifest=manifest)  # run.json read now
        return ((self._offset, line) for line in lines)

    def result_at(self, offset: int) -> ResultLine:
        """The results line starting at byte `offset` (one from `iter_results_with_offsets`)."""
        path = self.results_path
        limit = self.limits.record_bytes
        try:
            with self._open_results_to_read() as handle:
                handle.seek(offset)
                raw = read_line(handle, limit, f"{path} at byte {offset}", record_fix())
            return ResultLine.from_json(loads_bytes(raw))
        except (OSError, ValueError, RecordError) as exc:
            raise UserError(
                f"{path}: no results line at byte {offset} ({exc}); {_LINE_FIX}"
            ) from None

    def _first_line_of(self, key: tuple[str, str, int]) -> int:
        """The number of the first line with this (task, model, trial) (a duplicate's
        message names it; found again rather than remembered for every line)."""
        for number, item in self._raw_lines([]):
            if isinstance(item, dict) and (
                item.get("task_id"), item.get("model"), item.get("trial")
            ) == key:
                return number
        return 0

    def result_keys(self) -> list[tuple[str, str, int]]:
        """(task, model, trial) of every checked results line, streamed (for resume)."""
        if not self.results_path.exists():
            return []
        return [line.key for line in self.iter_results()]

    def _raw_lines(self, warnings: list[str]) -> Iterator[tuple[int, Any]]:
        """(line number, parsed JSON) of every complete line; the torn last one is skipped.

        Read line by line (a 100k-trial file is never held whole). The torn line is the
        last non-blank one when it does not parse (a killed write); any other unreadable
        line is a UserError naming the file, the line and the fix.
        """
        path = self.results_path
        if not os.path.lexists(path):
            return
        handle = self._open_results_to_read()
        offset = 0
        limit = self.limits.record_bytes
        with handle:
            lines = iter_lines(handle, limit, str(path), record_fix())
            for number, chunk in enumerate(lines, start=1):
                self._offset, offset = offset, offset + len(chunk)
                raw = chunk[:-1] if chunk.endswith(b"\n") else chunk
                if not raw.strip():
                    continue
                try:
                    item = loads_bytes(raw)
                except (UnicodeDecodeError, ValueError) as exc:
                    if _is_torn(raw) and _rest_blank(handle):
                        warnings.append(
                            f"{path}:{number}: torn last line ignored (a killed write); "
                            "`trialrun run --resume` drops it and reruns that trial"
                        )
                        return
                    if isinstance(exc, UnicodeDecodeError):
                        raise UserError(f"{path}:{number}: not UTF-8 text; {_LINE_FIX}") from None
                    if isinstance(exc, json.JSONDecodeError):
                        raise UserError(
                            f"{path}:{number}: not a JSON line; {_LINE_FIX}"
                        ) from None
                    raise UserError(f"{path}:{number}: {exc}; {_LINE_FIX}") from None  # NaN
                yield number, item

    def _open_results_to_read(self) -> Any:
        """results.jsonl open to read: a regular file (a FIFO or device is refused in one
        line, never waited on or read without end)."""
        path = self.results_path
        try:
            return open_regular(path, fix=_NOT_REGULAR_FIX)
        except FileRefused:
            raise
        except OSError as exc:
            raise UserError(f"{path}: cannot read ({exc.strerror or exc})") from None

    def rewrite_results(self, lines: Iterable[ResultLine]) -> None:
        """Replace results.jsonl as a whole, atomically (regrading rewrites verdicts)."""
        text = "".join(dumps_line(line.to_json()) + "\n" for line in lines)
        write_text_atomic(self.results_path, text)

    def open_results(self) -> None:
        """Create (or open for append) results.jsonl; done before the first trial."""
        if self._fd is None:
            self._fd = open_fd(self.results_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT,
                               fix=_NOT_REGULAR_FIX)

    def write_behind(self) -> None:
        """From now on, appends are handed to a writer thread (`LineWriter`) instead of
        written on the caller's thread; `close()` writes what is queued. The runner's
        choice: its event loop then spends one queue put per line."""
        if self._writer is None:
            self.open_results()
            self._writer = LineWriter(self._fd if self.fsync else None)

    def append(self, line: ResultLine, *, sync: bool = True) -> None:
        """One write of one whole line (then fsync unless `sync=False`: see `sync_soon`).

        The line is in the file once `os.write` returns: a killed process cannot lose
        it; fsync only guards against a crash of the machine. Under `write_behind`
        the writer thread does that write (and the fsync, per batch).
        """
        if self._fd is None:
            self.open_results()
        assert self._fd is not None
        data = (dumps_line(line.to_json()) + "\n").encode("utf-8", _ENCODE_ERRORS)
        if self._writer is not None:
            self._writer.put(self._fd, data, transcript=False)
            return
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
        if not self.fsync or self._writer is not None:  # the writer fsyncs per batch
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
        """Write what is queued, fsync and close (call after the background pool has been
        shut down); a failed queued write is raised once the files are closed."""
        writer, self._writer = self._writer, None
        try:
            if writer is not None:
                writer.close()
        finally:
            self._close_files()

    def _close_files(self) -> None:
        with self._transcript_lock:
            fds, self._transcript_fds = self._transcript_fds, {}
        for tfd in fds.values():
            with contextlib.suppress(OSError):
                os.close(tfd)
        if self._fd is not None:
            fd, self._fd = self._fd, None
            if self.fsync:
                os.fsync(fd)
            os.close(fd)

    def repair_results(self) -> int:
        """Cut a torn last line (and any blank lines after it); returns the bytes dropped.

        Only the file's tail is read: the last non-blank line and what follows it.
        """
        path = self.results_path
        if not os.path.lexists(path):
            return 0
        try:
            with self._open_results_to_read() as handle:
                size = os.fstat(handle.fileno()).st_size
                if size == 0:
                    return 0
                start, last, ends_with_newline = _last_line(
                    handle, size, self.limits.record_bytes
                )
        except OSError as exc:
            raise UserError(f"{path}: cannot read ({exc.strerror or exc})") from None
        if last is None and start < 0:
            raise UserError(
                f"{path}: its last line is over the {self.limits.record_bytes}-byte limit; "
                f"{_LINE_FIX}, or {record_fix()}"
            )
        if last is None:
            return 0
        if _is_torn(last):
            with open(path, "rb+") as fh:
                fh.truncate(start)
                fh.flush()
                os.fsync(fh.fileno())
            return size - start
        if not ends_with_newline:  # a whole line without its newline: end it
            with open(path, "ab") as fh:
                fh.write(b"\n")
                fh.flush()
                os.fsync(fh.fileno())
        return 0

    # --- transcripts ---
    def write_transcript(self, model_slug: str, name: str, transcript: Transcript) -> str:
        """Write transcripts/<model-slug>/<name>.json; returns the path relative to the run."""
        if model_slug not in self._transcript_dirs:
            (self.path / TRANSCRIPTS / model_slug).mkdir(parents=True, exist_ok=True)
            self._transcript_dirs.add(model_slug)
        rel = f"{TRANSCRIPTS}/{model_slug}/{name}.json"
        fd = os.open(self.path / rel, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            os.write(fd, dumps_line(transcript.to_json()).encode("utf-8", _ENCODE_ERRORS))
        finally:
            os.close(fd)
        return rel

    def append_transcript(self, model_slug: str, transcript: Transcript) -> tuple[str, int]:
        """Append one line to transcripts/<model-slug>.jsonl; returns (its path relative
        to the run, the byte offset the line starts at) for the results line."""
        return self.append_transcript_line(model_slug, transcript_line(transcript))

    def append_transcript_line(self, model_slug: str, data: bytes) -> tuple[str, int]:
        """`append_transcript` for a line already encoded by `transcript_line` (another
        process did the encoding: the run's worker processes)."""
        rel = f"{TRANSCRIPTS}/{model_slug}.jsonl"
        with self._transcript_lock:  # one writer per file: its end is tracked, not sought
            fd = self._transcript_fds.get(model_slug)
            if fd is None:
                fd = self._open_transcripts(rel)
                self._transcript_fds[model_slug] = fd
                self._transcript_ends[model_slug] = os.lseek(fd, 0, os.SEEK_END)
            offset = self._transcript_ends[model_slug]
            if self._writer is not None:
                self._writer.put(fd, data, transcript=True)
            else:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
            self._transcript_ends[model_slug] = offset + len(data)
        return rel, offset

    def _open_transcripts(self, rel: str) -> int:
        (self.path / TRANSCRIPTS).mkdir(parents=True, exist_ok=True)
        fd = open_fd(self.path / rel, os.O_RDWR | os.O_APPEND | os.O_CREAT,
                     fix=_NOT_REGULAR_FIX)
        end = os.lseek(fd, 0, os.SEEK_END)
        if end and os.pread(fd, 1, end - 1) != b"\n":  # a torn last line (a killed run)
            os.write(fd, b"\n")
        return fd

    def transcript(self, line: ResultLine) -> Transcript:
        """The line's transcript; a missing or unreadable one is a UserError."""
        if not line.transcript:
            raise UserError(
                f"{self.results_path}: the line of {line.task_id} #{line.trial} names no "
                "transcript file; rerun that trial"
            )
        path = os.path.join(self.path, line.transcript)  # a str: 30,000 joins in a report
        offset = line.extra.get("transcript_offset")
        limit = self.limits.record_bytes
        try:
            if isinstance(offset, int) and not isinstance(offset, bool):
                with open_regular(path, fix="rerun that trial") as handle:
                    handle.seek(offset)
                    raw = read_line(handle, limit, f"{path} at byte {offset}", record_fix())
            else:
                raw = read_regular(path, limit, fix="rerun that trial",
                                   limit_fix=record_fix())
            data: Any = loads_bytes(raw, finite=False)
            return Transcript.from_json(data)
        except FileRefused:
            raise
        except (OSError, ValueError) as exc:
            raise UserError(
                f"{path}: cannot read the transcript ({exc}); rerun that trial"
            ) from None

    def transcript_or_empty(self, line: ResultLine) -> Transcript:
        """The transcript, or an empty one (for tools that fall back to the results line);
        a FIFO, device or oversized transcript is still refused (`FileRefused`)."""
        try:
            return self.transcript(line)
        except FileRefused:
            raise
        except UserError:
            return Transcript()


def _inside_workspaces(rel: str) -> bool:
    """Whether a recorded workspace path stays under the run's workspaces/ (a results
    line naming "/etc" or "../x" is not followed out of the run folder)."""
    parts = rel.split("/")
    return len(parts) > 1 and parts[0] == WORKSPACES and not {"", ".", ".."} & set(parts)


def transcript_line(transcript: Transcript) -> bytes:
    """A transcript as the one line `append_transcript_line` appends."""
    return (dumps_line(transcript.to_json()) + "\n").encode("utf-8", _ENCODE_ERRORS)


def _is_torn(raw: bytes) -> bool:
    """A line cut by a killed write: unfinished JSON, or cut inside a UTF-8 character.

    A line past json's limits (10^5 open brackets) is no cut line: the writer never
    writes one that deep."""
    try:
        loads_limited(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        return exc.reason == "unexpected end of data"
    except json.JSONDecodeError:
        return True
    except ValueError:  # past json's limits
        return False
    return False


def _rest_blank(handle: Any) -> bool:
    """Whether nothing but whitespace is left to read (reads ahead; the caller stops)."""
    while True:
        block = handle.read(1 << 16)
        if not block:
            return True
        if block.strip():
            return False


def _last_line(fh: Any, size: int, limit: int) -> tuple[int, bytes | None, bool]:
    """(offset, bytes) of the last non-blank line (None when all blank), and whether the
    file ends with a newline; reads backwards from the end in growing blocks, never more
    than about `limit` bytes (past it: (-1, None, False))."""
    span = 1 << 16
    while True:
        start = max(0, size - span)
        fh.seek(start)
        data = fh.read(size - start)
        filled = len(data.rstrip())
        newline = data.rfind(b"\n", 0, filled)
        if start > 0 and (filled == 0 or newline < 0):
            if span > 2 * limit:
                return -1, None, False
            span *= 4
            continue
        if filled == 0:
            return 0, None, data.endswith(b"\n")
        end = data.find(b"\n", filled)
        line = data[newline + 1 : end if end >= 0 else len(data)]
        return start + newline + 1, line, data.endswith(b"\n")
