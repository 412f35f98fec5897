"""Hostile files in a run folder, a kept workspace and a fixture folder (issue 32, items
2, 4 and 5): FIFOs and devices are refused in one line (no reader hangs, nothing endless
is read or copied), the workspace cleanup never changes a mode through a symlink, and the
report and the viewer never read a host file through a symlink an agent left.

The run is a real one (the CLI, a scripted model, `--keep-artifacts`); every reader runs
in a subprocess with a timeout and resource limits, so the old code's hang, endless copy
or endless read fails the test instead of the machine.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import stat
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import trialrun

SRC = str(Path(trialrun.__file__).resolve().parents[1])
HOST_SECRET = "HOST-SECRET-5f1c"
READER_TIMEOUT_S = 30
FILE_LIMIT = 64 * 1024 * 1024  # a reader may write this much at most (RLIMIT_FSIZE)
MEMORY_LIMIT = 2 * 1024 * 1024 * 1024  # and hold this much (RLIMIT_AS)

pytestmark = pytest.mark.timeout(600)

TASK = """\
task_id: edit-note
suite: golden
description: edit a note
tracked_metrics: ["solve^k"]
inputs:
  prompt: Rewrite note.md
environment:
  fixture: fx
trials:
  k: 1
graders:
  - type: fileContains
    path: note.md
    value: changed
"""
MODEL = {"tasks": {"edit-note": [
    {"tool_calls": [{"name": "write_file",
                     "arguments": {"path": "note.md", "content": "changed note\n"}}]},
    {"content": "done"},
]}}


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_LIMIT, FILE_LIMIT))
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The CLI in a subprocess, bounded in time, file size and memory."""
    env = {**os.environ, "PYTHONPATH": SRC, "TRIALRUN_HISTORY": "off"}
    return subprocess.run(
        [sys.executable, "-m", "trialrun", *args], cwd=cwd, env=env, capture_output=True,
        text=True, timeout=READER_TIMEOUT_S, preexec_fn=_limits,
    )


def one_line_refusal(proc: subprocess.CompletedProcess[str], *names: str) -> str:
    """The one stderr line naming the file and why; exit 2, no traceback."""
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, proc.stderr
    for name in names:
        assert name in lines[0], lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished run of one task whose agent modifies note.md, workspaces kept."""
    root = tmp_path_factory.mktemp("files")
    (root / "suite" / "fixtures" / "fx").mkdir(parents=True)
    (root / "suite" / "fixtures" / "fx" / "note.md").write_text("hello note\n")
    (root / "suite" / "edit.yaml").write_text(TASK)
    (root / "model.json").write_text(json.dumps(MODEL))
    proc = cli("run", "suite", "--model", "scripted:model.json", "--keep-artifacts",
               "--out", "results", cwd=root)
    assert proc.returncode == 0, proc.stderr
    (found,) = (root / "results").iterdir()
    return found


def copy_run(run: Path, tmp_path: Path, name: str = "run") -> Path:
    dest = tmp_path / name
    shutil.copytree(run, dest, symlinks=True)
    return dest


def transcripts_file(run_dir: Path) -> Path:
    (found,) = (run_dir / "transcripts").glob("*.jsonl")
    return found


def kept_workspace(run_dir: Path) -> Path:
    (found,) = (run_dir / "workspaces").glob("*/edit-note-0")
    return found


# --- item 2: FIFOs and devices in a run folder ---------------------------------------


READERS = [
    pytest.param(("summarize", "{run}"), id="summarize"),
    pytest.param(("report", "{run}", "--html", "{tmp}/r.html"), id="report-html"),
    pytest.param(("report", "{run}", "--junit", "{tmp}/j.xml"), id="report-junit"),
    pytest.param(("show", "{run}", "edit-note", "0"), id="show"),
    pytest.param(("regrade", "{run}", "--out", "{tmp}/new"), id="regrade"),
    pytest.param(("history", "--store", "{tmp}/h.db", "import", "{run}"), id="history-import"),
]


@pytest.mark.parametrize("args", READERS)
def test_fifo_results_is_refused_in_one_line_by_every_reader(
    run: Path, tmp_path: Path, args: tuple[str, ...]
) -> None:
    hostile = copy_run(run, tmp_path)
    (hostile / "results.jsonl").unlink()
    os.mkfifo(hostile / "results.jsonl")
    argv = [a.format(run=hostile, tmp=tmp_path) for a in args]
    proc = cli(*argv, cwd=run.parent.parent)  # the old code waits here for a writer
    one_line_refusal(proc, "results.jsonl", "FIFO")


@pytest.mark.parametrize(("name", "command"), [
    ("results.jsonl", "summarize"), ("run.json", "summarize"), ("summary.json", "report"),
])
def test_a_device_in_place_of_a_run_file_is_refused(
    run: Path, tmp_path: Path, name: str, command: str
) -> None:
    hostile = copy_run(run, tmp_path)
    (hostile / name).unlink()
    (hostile / name).symlink_to("/dev/zero")
    proc = cli(command, str(hostile), cwd=tmp_path)  # old: MemoryError, or endless
    one_line_refusal(proc, name, "character device")


def test_regrade_out_refuses_a_transcript_linked_to_dev_zero(run: Path, tmp_path: Path) -> None:
    hostile = copy_run(run, tmp_path)
    transcripts = transcripts_file(hostile)
    transcripts.unlink()
    transcripts.symlink_to("/dev/zero")
    out = tmp_path / "new"
    proc = cli("regrade", str(hostile), "--out", str(out), cwd=run.parent.parent)
    one_line_refusal(proc, transcripts.name, "character device")
    assert not out.exists()  # nothing half-copied is left behind


def test_regrade_out_copies_a_kept_workspace_symlink_as_a_link(
    run: Path, tmp_path: Path
) -> None:
    """A kept workspace is the agent's: its links are copied as links, never read."""
    hostile = copy_run(run, tmp_path)
    (kept_workspace(hostile) / "zero").symlink_to("/dev/zero")
    os.mkfifo(kept_workspace(hostile) / "pipe")
    out = tmp_path / "new"
    proc = cli("regrade", str(hostile), "--out", str(out), cwd=run.parent.parent)
    assert proc.returncode == 0, proc.stderr
    copied = kept_workspace(out)
    assert os.readlink(copied / "zero") == "/dev/zero"
    assert not (copied / "pipe").exists()  # a FIFO is not content: skipped


def test_an_over_long_results_line_is_refused_past_the_configured_limit(
    run: Path, tmp_path: Path
) -> None:
    hostile = copy_run(run, tmp_path)
    (tmp_path / "trialrun.toml").write_text("[rundir]\nmax_record_bytes = 4096\n")
    with open(hostile / "results.jsonl", "ab") as handle:
        handle.write(b'{"task_id": "' + b"a" * 10_000 + b'"}\n')
    proc = cli("summarize", str(hostile), cwd=tmp_path)
    one_line_refusal(proc, "results.jsonl:2", "over the 4096 bytes limit")


def test_the_viewer_refuses_a_fifo_results_file_without_hanging(
    run: Path, tmp_path: Path
) -> None:
    hostile = copy_run(run, tmp_path)
    (hostile / "results.jsonl").unlink()
    os.mkfifo(hostile / "results.jsonl")
    probe = (
        "import json, sys\n"
        "from trialrun.errors import UserError\n"
        "from trialrun.reports._server import RunStore\n"
        "store = RunStore(sys.argv[1])\n"
        "try:\n"
        "    store.overview(sys.argv[2])\n"
        "except UserError as exc:\n"
        "    print(exc)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe, str(tmp_path), hostile.name],
        env={**os.environ, "PYTHONPATH": SRC}, capture_output=True, text=True,
        timeout=READER_TIMEOUT_S, preexec_fn=_limits,
    )
    assert proc.returncode == 0, proc.stderr
    assert "results.jsonl" in proc.stdout and "FIFO" in proc.stdout


def test_a_fixture_linked_to_a_device_is_refused_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "suite" / "fixtures" / "fx").mkdir(parents=True)
    (tmp_path / "suite" / "fixtures" / "fx" / "note.md").write_text("hello\n")
    (tmp_path / "suite" / "fixtures" / "fx" / "zero").symlink_to("/dev/zero")
    (tmp_path / "suite" / "edit.yaml").write_text(TASK)
    (tmp_path / "model.json").write_text(json.dumps(MODEL))
    proc = cli("run", "suite", "--model", "scripted:model.json", "--allow-external-links",
               "--out", "results", cwd=tmp_path)
    assert "Traceback" not in proc.stderr
    (run_dir,) = (tmp_path / "results").iterdir()
    (line,) = [json.loads(t) for t in (run_dir / "results.jsonl").read_text().splitlines()]
    assert line["error"]["kind"] == "infra"
    assert "zero" in line["error"]["message"]
    assert "character device" in line["error"]["message"]


# --- the helper itself ---------------------------------------------------------------


def test_read_regular_refuses_fifos_devices_and_big_files(tmp_path: Path) -> None:
    from trialrun.core import FileRefused, copy_regular, read_regular

    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(FileRefused, match="pipe: a FIFO, not a regular file"):
        read_regular(tmp_path / "pipe", 100)
    with pytest.raises(FileRefused, match="character device"):
        read_regular("/dev/zero", 100)
    (tmp_path / "big").write_bytes(b"x" * 101)
    with pytest.raises(FileRefused, match="big: over the 101|big: over the 100 bytes limit"):
        read_regular(tmp_path / "big", 100)
    assert read_regular(tmp_path / "big", 101) == b"x" * 101
    (tmp_path / "link").symlink_to(tmp_path / "big")
    with pytest.raises(FileRefused, match="a symlink, not followed"):
        read_regular(tmp_path / "link", 1000, follow_symlinks=False)
    with pytest.raises(FileRefused, match="FIFO"):
        copy_regular(tmp_path / "pipe", tmp_path / "copy", 100)
    assert not (tmp_path / "copy").exists()


@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 300_000), st.integers(0, 300_000), st.integers(0, 300_000))
def test_a_file_read_whole_is_read_to_its_end_within_the_limit(
    tmp_path: Path, size: int, stale_size: int, limit: int
) -> None:
    """`read_regular` reads a file with plain reads sized to what fstat said: a file
    that grew since (a stale size) is still read to its end, and never more than the
    limit + 1 bytes are held, whatever the sizes."""
    from trialrun.core import _files

    content = bytes(range(256)) * (size // 256) + b"x" * (size % 256)
    (tmp_path / "f").write_bytes(content)
    fd = os.open(tmp_path / "f", os.O_RDONLY)
    try:
        assert _files._read_fd(fd, min(stale_size, size), limit) == content[:limit + 1]
    finally:
        os.close(fd)


def test_read_line_holds_at_most_its_limit(tmp_path: Path) -> None:
    from trialrun.core import FileRefused, read_line

    (tmp_path / "f").write_bytes(b"abc\n" + b"x" * 50 + b"\n")
    with open(tmp_path / "f", "rb") as handle:
        assert read_line(handle, 3, "f:1") == b"abc\n"
        with pytest.raises(FileRefused, match="f:2: over the 3 bytes limit"):
            read_line(handle, 3, "f:2")


def test_open_beneath_never_follows_a_link_on_the_way(tmp_path: Path) -> None:
    from trialrun.core import FileRefused, open_beneath

    (tmp_path / "host").mkdir()
    (tmp_path / "host" / "secret").write_text(HOST_SECRET)
    root = tmp_path / "ws"
    (root / "real").mkdir(parents=True)
    (root / "real" / "file").write_text("ok")
    (root / "dirlink").symlink_to(tmp_path / "host")
    (root / "filelink").symlink_to(tmp_path / "host" / "secret")
    with open_beneath(root, "real/file") as handle:
        assert handle.read() == b"ok"
    with pytest.raises(FileRefused, match="symlink"):
        open_beneath(root, "filelink")
    with pytest.raises(OSError):
        open_beneath(root, "dirlink/secret")
    with pytest.raises(ValueError):
        open_beneath(root, "../host/secret")


# --- item 5: report and viewer never read through a symlink ---------------------------


def _payload(html: str) -> dict[str, str]:
    from trialrun.reports._html import report_pages

    assert 'id="payload"' in html, "no embedded payload"
    return report_pages(html)  # the head payload and every chunk


def test_report_html_never_shows_a_host_file_through_a_workspace_symlink(
    run: Path, tmp_path: Path
) -> None:
    host = tmp_path / "host.txt"
    host.write_text(HOST_SECRET + "\n")
    hostile = copy_run(run, tmp_path)
    note = kept_workspace(hostile) / "note.md"
    note.unlink()
    note.symlink_to(host)  # what a jailed agent leaves in place of a fixture file
    out = tmp_path / "report.html"
    proc = cli("report", str(hostile), "--html", str(out), cwd=run.parent.parent)
    assert proc.returncode == 0, proc.stderr
    pages = "".join(_payload(out.read_text()).values())
    assert HOST_SECRET not in pages
    (trial,) = [json.loads(v) for k, v in _payload(out.read_text()).items() if "/trial/" in k]
    assert str(host) in trial["workspace_diff"]["text"]["note.md"]  # the target text only
    assert "symlink" in trial["workspace_diff"]["text"]["note.md"]


def test_the_viewer_never_reads_a_host_file_through_a_linked_folder(
    run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(run.parent.parent)  # where run.json's task file is found
    (tmp_path / "host").mkdir()
    (tmp_path / "host" / "note.md").write_text(HOST_SECRET + "\n")
    hostile = copy_run(run, tmp_path / "runs")
    kept = kept_workspace(hostile)
    shutil.rmtree(kept)
    kept.symlink_to(tmp_path / "host")  # the kept workspace itself made a link
    from trialrun.reports._server import RunStore

    store = RunStore(tmp_path / "runs")
    overview = store.overview(hostile.name)
    assert overview
    page = store.view(hostile.name).trial(0)
    assert HOST_SECRET not in json.dumps(page)


# --- item 4: the workspace cleanup changes no mode outside --------------------------


NOBODY = 65534


def _as_nobody_remove(path: Path) -> int:
    """remove_tree(path) in a forked child running as `nobody` (root ignores modes, so
    the old chmod-and-retry only runs for other users); its exit status."""
    from trialrun.sandbox import remove_tree

    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 1
        try:
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            remove_tree(path)
            code = 0
        except BaseException:
            traceback.print_exc()
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def _hostile_tree(base: Path, *, unreadable: bool) -> tuple[Path, Path, Path]:
    """base/ws/d (read-only) holding links to base/outside/file and base/outside-dir,
    and, when asked, a folder with mode 000; all owned by `nobody` when run as root."""
    outside = base / "outside"
    outside.mkdir()
    target = outside / "file"
    target.write_text("keep my mode")
    target.chmod(0o600)
    outside_dir = base / "outside-dir"
    outside_dir.mkdir(mode=0o500)
    ws = base / "ws"
    locked = ws / "d"
    locked.mkdir(parents=True)
    (locked / "link").symlink_to(target)
    (locked / "dirlink").symlink_to(outside_dir)
    (locked / "plain").write_text("x")
    made = [base, outside, target, outside_dir, ws, locked]
    links = [locked / "link", locked / "dirlink", locked / "plain"]
    if unreadable:
        deep = locked / "deeper"
        deep.mkdir()
        (deep / "f").write_text("y")
        deep.chmod(0o000)
        made.append(deep)
        links.append(deep / "f")
    locked.chmod(0o555)
    if os.geteuid() == 0:
        for path in made:
            os.chown(path, NOBODY, NOBODY)
        for path in links:
            os.lchown(path, NOBODY, NOBODY)
    return ws, target, outside_dir


def _remove(ws: Path) -> None:
    from trialrun.sandbox import remove_tree

    if os.geteuid() == 0:
        assert _as_nobody_remove(ws) == 0
    else:
        remove_tree(ws)


@pytest.mark.parametrize("unreadable", [False, True], ids=["read-only", "mode-000"])
def test_cleanup_never_chmods_through_a_symlink(unreadable: bool) -> None:
    base = Path(tempfile.mkdtemp(prefix="trialrun-sec-"))
    try:
        ws, target, outside_dir = _hostile_tree(base, unreadable=unreadable)
        _remove(ws)
        assert stat.S_IMODE(target.stat().st_mode) == 0o600
        assert stat.S_IMODE(outside_dir.stat().st_mode) == 0o500
        assert target.read_text() == "keep my mode"
        assert not os.path.lexists(ws)  # and the workspace is gone, read-only parts too
    finally:
        for folder, _, _ in os.walk(base):
            os.chmod(folder, 0o700)
        shutil.rmtree(base, ignore_errors=True)


# --- the line reader, on any bytes ---------------------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=400), st.integers(min_value=1, max_value=64))
def test_iter_lines_gives_back_the_file_or_refuses_a_long_line(data: bytes, limit: int) -> None:
    """Whole lines up to `limit` bytes (newline aside) come back exactly; a longer one is
    refused naming its line number, and nothing longer than limit + 1 is ever held."""
    import io

    from trialrun.core import FileRefused, iter_lines

    parts = data.split(b"\n")  # lines as a file reader cuts them: at b"\n" only
    lines = [p + b"\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])
    too_long = [i for i, ln in enumerate(lines, 1) if len(ln.rstrip(b"\n")) > limit]
    got: list[bytes] = []
    try:
        for line in iter_lines(io.BufferedReader(io.BytesIO(data)), limit, "f"):
            assert len(line) <= limit + 1
            got.append(line)
    except FileRefused as exc:
        assert too_long, exc
        assert f"f:{too_long[0]}: over the" in str(exc)
        assert got == lines[: too_long[0] - 1]
    else:
        assert not too_long
        assert got == lines
