"""The write-behind thread: lines land whole, in order, transcripts before results;
a failed write is raised to the caller, never swallowed."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from trialrun.rundir import _writer
from trialrun.rundir._writer import LineWriter


def _fd(path: Path) -> int:
    return os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)


def test_lines_land_whole_and_in_order(tmp_path: Path) -> None:
    results, transcripts = _fd(tmp_path / "r"), _fd(tmp_path / "t")
    writer = LineWriter(fsync_fd=results)
    for i in range(2000):
        writer.put(transcripts, f"t{i}\n".encode(), transcript=True)
        writer.put(results, f"r{i}\n".encode(), transcript=False)
    writer.close()
    os.close(results)
    os.close(transcripts)
    assert (tmp_path / "r").read_text().splitlines() == [f"r{i}" for i in range(2000)]
    assert (tmp_path / "t").read_text().splitlines() == [f"t{i}" for i in range(2000)]


def test_a_results_line_never_lands_before_its_transcript(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Every write of results is checked against what the transcript file holds then."""
    results, transcripts = _fd(tmp_path / "r"), _fd(tmp_path / "t")
    real_write = os.write
    violations: list[str] = []

    def checking_write(fd: int, data: bytes) -> int:
        if fd == results:
            have = set((tmp_path / "t").read_text().split())
            for line in bytes(data).decode().split():
                if "t" + line[1:] not in have:
                    violations.append(line)
        return real_write(fd, data)

    monkeypatch.setattr(_writer.os, "write", checking_write)
    writer = LineWriter()
    for i in range(500):
        writer.put(transcripts, f"t{i}\n".encode(), transcript=True)
        writer.put(results, f"r{i}\n".encode(), transcript=False)
    writer.close()
    assert violations == []
    os.close(results)
    os.close(transcripts)


def test_a_failed_write_is_raised_at_close_and_on_the_next_put(tmp_path: Path) -> None:
    fd = _fd(tmp_path / "r")
    os.close(fd)  # fault injection: the writer's file is gone
    writer = LineWriter()
    writer.put(fd, b"x\n", transcript=False)
    with pytest.raises(OSError):
        writer.close()
    with pytest.raises(OSError):
        writer.put(fd, b"y\n", transcript=False)


def test_a_slow_disk_makes_put_wait_instead_of_growing(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_writer, "MAX_PENDING", 10)
    gate = threading.Event()
    real_write = os.write

    def slow_write(fd: int, data: bytes) -> int:
        gate.wait(5)
        return real_write(fd, data)

    monkeypatch.setattr(_writer.os, "write", slow_write)
    fd = _fd(tmp_path / "r")
    writer = LineWriter()
    writer.put(fd, b"0123456789ab\n", transcript=False)  # 13 bytes pending: over the mark
    done = threading.Event()

    def second() -> None:
        writer.put(fd, b"next\n", transcript=False)
        done.set()

    threading.Thread(target=second, daemon=True).start()
    assert not done.wait(0.3)  # held back while the first line is not written
    gate.set()
    assert done.wait(5)
    writer.close()
    os.close(fd)
    assert (tmp_path / "r").read_text() == "0123456789ab\nnext\n"
