"""`run_contained`: the jail and the marker sweep used by command graders and agents.

Both paths run: the bwrap jail (skipped where bwrap does not work) and the forced
fallback (`jail=False`). pytest-timeout is the guard; no test looks at the clock.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import signal
import sys
from pathlib import Path

import psutil
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trialrun.errors import InfraError
from trialrun.sandbox import jail_available, run_contained
from trialrun.sandbox._jail import MARK_ENV, jail_argv

pytestmark = pytest.mark.timeout(120)

_SERIAL = itertools.count(1)


def unique_sleep() -> str:
    return f"1001.{os.getpid()}{next(_SERIAL)}"


def survivors(arg: str) -> list[psutil.Process]:
    return [
        p
        for p in psutil.process_iter(["cmdline", "status"])
        if p.info["cmdline"] == ["sleep", arg] and p.info["status"] != "zombie"
    ]


@pytest.fixture(autouse=True)
def _no_leftovers():
    yield
    for proc in psutil.process_iter(["cmdline"]):
        cmd = proc.info["cmdline"] or []
        if len(cmd) == 2 and cmd[0] == "sleep" and cmd[1].startswith(f"1001.{os.getpid()}"):
            proc.kill()


@pytest.fixture(params=[True, False], ids=["bwrap", "sweep"])
def jail(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    monkeypatch.delenv("TRIALRUN_JAIL", raising=False)
    if request.param and not jail_available():
        pytest.skip("bwrap is not installed or does not work here")
    return request.param


def test_jail_flags() -> None:
    closed = jail_argv(["sh", "-c", "true"], "/w")
    assert closed[-4:] == ["--", "sh", "-c", "true"]
    flags = " ".join(closed[1:-4])
    assert "--ro-bind / /" not in flags and "/etc/shadow" not in flags
    for part in (
        "--ro-bind /usr /usr",
        "--tmpfs /run",
        "--remount-ro /",
        "--dev /dev",
        "--proc /proc",
        "--tmpfs /tmp",
        "--bind /w /w",
        "--chdir /w",
        "--unshare-pid",
        "--die-with-parent",
        "--unshare-net",
    ):
        assert part in flags
    assert flags.index("--tmpfs /tmp") < flags.index("--bind /w /w")  # the bind wins
    assert "--unshare-net" not in jail_argv(["true"], "/w", network=True)


def test_the_command_sees_a_per_call_marker(jail: bool, tmp_path: Path) -> None:
    async def both():
        show = [sys.executable, "-c", f"import os; print(os.environ['{MARK_ENV}'])"]
        return [await run_contained(show, str(tmp_path), 30, jail=jail) for _ in range(2)]

    first, second = asyncio.run(both())
    assert first.exit_code == 0 and first.sandbox == ("bwrap" if jail else "sweep")
    assert len(first.stdout.strip()) >= 32 and first.stdout != second.stdout


def test_output_tails(jail: bool, tmp_path: Path) -> None:
    out = asyncio.run(
        run_contained("printf 'abcdef'; printf 'xyz' >&2", str(tmp_path), 30, jail=jail,
                      tail_bytes=3)
    )  # fmt: skip
    assert (out.stdout, out.stderr, out.exit_code) == (b"def", b"xyz", 0)


def test_missing_or_unrunnable_programs_raise_like_exec(jail: bool, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("not a program")
    with pytest.raises(FileNotFoundError) as missing:
        asyncio.run(run_contained(["no-such-program-xyz"], str(tmp_path), 30, jail=jail))
    assert missing.value.filename == "no-such-program-xyz"
    with pytest.raises(FileNotFoundError):
        asyncio.run(run_contained(["./absent.sh"], str(tmp_path), 30, jail=jail))
    with pytest.raises(PermissionError) as denied:
        asyncio.run(run_contained(["./notes.txt"], str(tmp_path), 30, jail=jail))
    assert denied.value.filename == "./notes.txt"


def test_cancelling_kills_everything_it_started(jail: bool, tmp_path: Path) -> None:
    a, b = unique_sleep(), unique_sleep()
    started = tmp_path / "started"

    async def cancel_midway() -> None:
        task = asyncio.ensure_future(
            run_contained(f"setsid sleep {a} & touch started; sleep {b}", str(tmp_path), 600,
                          jail=jail)
        )  # fmt: skip
        while not started.exists():
            await asyncio.sleep(0.02)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cancel_midway())
    assert survivors(a) == [] and survivors(b) == []


def test_a_requested_jail_that_does_not_work_is_an_infra_error(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("TRIALRUN_JAIL", "off")
    assert jail_available() is False
    with pytest.raises(InfraError, match="bwrap"):
        asyncio.run(run_contained("true", str(tmp_path), 30, jail=True))
    out = asyncio.run(run_contained("true", str(tmp_path), 30))  # auto: the fallback
    assert out.sandbox == "sweep" and out.exit_code == 0


def test_pythons_own_folders_under_tmp_are_seen_in_the_jail(
    jail: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A checkout or venv under /tmp (an editable install, a CI clone) is on this Python's
    import path; the jail's private /tmp must not hide it from `python -m …` inside."""
    from trialrun.sandbox import _jail, _jail_view

    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "jailcheck_mod.py").write_text("VALUE = 42\n")
    monkeypatch.syspath_prepend(str(lib))
    _jail_view.installations.cache_clear()
    work = tmp_path / "ws"
    work.mkdir()
    code = "import jailcheck_mod; print(jailcheck_mod.VALUE)"
    try:
        flags = " ".join(_jail._jail_flags(str(work), network=False))
        out = asyncio.run(run_contained(
            [sys.executable, "-c", code], str(work), 60, jail=jail,
            env={**os.environ, "PYTHONPATH": str(lib)}))
    finally:
        _jail_view.installations.cache_clear()
    assert f"--ro-bind {os.path.realpath(lib)} {os.path.realpath(lib)}" in flags
    assert flags.index("--tmpfs /tmp") < flags.index(f"--ro-bind {os.path.realpath(lib)}")
    assert (out.exit_code, out.stdout.strip()) == (0, b"42"), out.stderr


@settings(max_examples=15, deadline=None)
@given(code=st.integers(0, 255))
def test_the_command_s_own_exit_code_comes_back(code: int) -> None:
    """Through the guard (no jail) and bwrap: the status is the command's own."""
    work = os.path.realpath(".")
    for jail in ([False, True] if jail_available() else [False]):
        out = asyncio.run(run_contained(f"exit {code}", work, 30, jail=jail))
        assert out.exit_code == code


def test_a_command_killed_by_a_signal_reports_that_signal(tmp_path: Path) -> None:
    out = asyncio.run(run_contained("kill -USR1 $$", str(tmp_path), 30, jail=False))
    assert out.exit_code == -signal.SIGUSR1


def test_the_guard_leaves_sigpipe_at_its_default(tmp_path: Path) -> None:
    """Python ignores SIGPIPE; a program started by the guard must not inherit that."""
    show = "grep SigIgn /proc/self/status"
    out = asyncio.run(run_contained(show, str(tmp_path), 30, jail=False))
    ignored = int(out.stdout.split()[-1], 16)
    assert ignored & (1 << (signal.SIGPIPE - 1)) == 0, out.stdout
