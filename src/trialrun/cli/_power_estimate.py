"""The run's power line, computed beside the run instead of in its way.

`trialrun run` prints the suite's power line (`trialrun.tracking.suite_power_line`) as it
starts. An exact estimate can take minutes at a large k, so it runs in a child process
of its own (own session: the terminal's Ctrl-C goes to the run, which kills the child):
the trials start at once and never wait for it, Ctrl-C ends the run without waiting for
it, and after `BUDGET_S` seconds it is dropped with a note that it was skipped. The child
also stops itself past its budget (an alarm), so even an orphan cannot outlive it.
"""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

BUDGET_S = 10.0  # seconds the estimate may take before the run gives up on it


class PowerEstimate:
    """One suite power line computed in a child process; `say` gets the line, or a note
    that it was skipped, at most once (from a watcher thread)."""

    def __init__(
        self,
        rows: Sequence[tuple[int, float]],
        alpha: float,
        method: str,
        say: Callable[[str], None],
        budget_s: float = BUDGET_S,
    ) -> None:
        self._request = json.dumps(
            {"rows": [list(row) for row in rows], "alpha": alpha, "method": method,
             "budget_s": budget_s}
        ).encode()
        self._say = say
        self.budget_s = budget_s
        self._lock = threading.Lock()
        self._settled = False  # said something, or told to stay quiet
        self._proc: subprocess.Popen[bytes] | None = None
        self._watcher: threading.Thread | None = None

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def start(self) -> None:
        """Start the child and its watcher; returns at once."""
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-c", "from trialrun.cli._power_estimate import child; child()"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                start_new_session=True, env=_child_env(),
            )
        except OSError as exc:
            self._once(f"power estimate skipped: could not start it ({exc.strerror or exc})")
            return
        self._watcher = threading.Thread(
            target=self._watch, name="trialrun-power", daemon=True
        )
        self._watcher.start()

    def settle(self, *, wait: bool) -> None:
        """Finish: with `wait`, give the estimate what is left of its budget to be said;
        then stop the child (idempotent). Without `wait` (Ctrl-C, an error), say nothing."""
        if wait and self._watcher is not None:
            self._watcher.join(self.budget_s)
        with self._lock:
            self._settled = True
        self._kill()

    def _watch(self) -> None:
        proc = self._proc
        assert proc is not None
        try:
            out, _ = proc.communicate(self._request, timeout=self.budget_s)
        except subprocess.TimeoutExpired:
            self._kill()
            proc.communicate()  # reaped: its pipes closed
            self._once(f"power estimate skipped: it took over {self.budget_s:g}s "
                       "(`trialrun plan` computes it without a time limit)")
            return
        except (OSError, ValueError):  # stopped by settle()
            return
        line = out.decode("utf-8", errors="replace").strip()
        if proc.returncode == 0 and line.startswith("power"):
            self._once(line)
        else:
            self._once("power estimate skipped: it stopped without an answer")

    def _once(self, text: str) -> None:
        with self._lock:
            if self._settled:
                return
            self._settled = True
        self._say(text)

    def _kill(self) -> None:
        proc = self._proc
        if proc is not None and proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                proc.kill()
            proc.wait()


def _child_env() -> dict[str, str]:
    """The environment with this trialrun first on the child's import path."""
    env = dict(os.environ)
    here = os.fspath(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (here, env.get("PYTHONPATH")) if p)
    return env


def child() -> None:
    """The child's side: a request (JSON on stdin) → the power line on stdout."""
    request = json.loads(sys.stdin.buffer.read())
    signal.alarm(math.ceil(float(request["budget_s"])) + 1)  # an orphan ends too
    from trialrun.tracking import suite_power_line

    rows = [(int(k), float(rate)) for k, rate in request["rows"]]
    line = suite_power_line(rows, float(request["alpha"]), str(request["method"]))
    sys.stdout.write(line + "\n")
    sys.stdout.flush()
