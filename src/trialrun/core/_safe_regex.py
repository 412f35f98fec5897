"""Every regex trialrun compiles from a task file or a model goes through here.

`compile_safe(pattern, flags)` compiles with the `regex` package (whose match timeout the
graders and the vault search rely on) after two checks, or raises `UnsafeRegex` (a
ValueError) with one line saying why and what to change:

1. the static shape check (`_regex_shape`): length, group depth and expanded size, in one
   linear scan, never compiling. It refuses `a{4294967294}`, `(?:a{60000}){60000}` and
   5,000 nested groups before any memory is spent.
2. a compile under a budget: a pattern the scan found small (at most SMALL_SIZE expanded
   elements and SMALL_CHARS characters; `regex` 2026 spends under 1.5 KB per element,
   so under 2 MB) compiles in-process. Anything larger is first compiled in a short-lived
   child process with an address-space limit (WORKER_MEMORY_BYTES) and a timeout
   (WORKER_TIMEOUT_S), killed when it overruns. The static scan bounds what the child is
   asked to do; the child covers what the scan cannot prove (dialect corners, the
   per-element cost of future `regex` versions). Verdicts are cached by pattern and flags.

Compiled patterns are cached too, with their total expanded size bounded (CACHE_SIZE), so a
task file with many large patterns does not keep them all in memory.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections import OrderedDict
from typing import Any

import regex

from trialrun.core._regex_shape import measure, regex_shape_problem

SMALL_SIZE = 1_000
SMALL_CHARS = 1_000
WORKER_MEMORY_BYTES = 512 * 2**20
WORKER_TIMEOUT_S = 30.0
CACHE_SIZE = 100_000  # total expanded size of the compiled patterns kept
_VERDICTS_KEPT = 2_048


class UnsafeRegex(ValueError):
    """A pattern refused before or while compiling under the budget (one line)."""


_WORKER = r"""
import json, sys
try:
    import resource
    limit = int(sys.argv[1])
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
except (ImportError, ValueError, OSError):
    pass
import regex
pattern, flags = json.loads(sys.stdin.read())
try:
    regex.compile(pattern, flags)
except regex.error as exc:
    print(json.dumps(str(exc)))
except (MemoryError, RecursionError, OverflowError) as exc:
    sys.exit(3)
else:
    print("null")
"""


class _Cache:
    """Thread-safe LRU caches: verdicts by count, compiled patterns by total size."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.verdicts: OrderedDict[tuple[str, int], str | None] = OrderedDict()
        self.compiled: OrderedDict[tuple[str, int], tuple[Any, int]] = OrderedDict()
        self._compiled_size = 0

    def verdict(self, key: tuple[str, int]) -> tuple[bool, str | None]:
        with self._lock:
            if key not in self.verdicts:
                return False, None
            self.verdicts.move_to_end(key)
            return True, self.verdicts[key]

    def remember_verdict(self, key: tuple[str, int], problem: str | None) -> None:
        with self._lock:
            self.verdicts[key] = problem
            while len(self.verdicts) > _VERDICTS_KEPT:
                self.verdicts.popitem(last=False)

    def pattern(self, key: tuple[str, int]) -> Any:
        with self._lock:
            hit = self.compiled.get(key)
            if hit is None:
                return None
            self.compiled.move_to_end(key)
            return hit[0]

    def remember_pattern(self, key: tuple[str, int], compiled: Any, size: int) -> None:
        if size > CACHE_SIZE:
            return
        with self._lock:
            if key in self.compiled:
                return
            self.compiled[key] = (compiled, size)
            self._compiled_size += size
            while self._compiled_size > CACHE_SIZE or len(self.compiled) > _VERDICTS_KEPT:
                _, (_, dropped) = self.compiled.popitem(last=False)
                self._compiled_size -= dropped


_CACHE = _Cache()


def regex_problem(pattern: str, flags: int = 0) -> str | None:
    """Why `pattern` cannot be compiled safely (or at all) by `regex`, in one line, or
    None. Runs the static check, then the budgeted compile; never raises."""
    if not isinstance(pattern, str):
        return "a pattern must be a string"
    key = (pattern, flags)
    known, problem = _CACHE.verdict(key)
    if known:
        return problem
    problem = regex_shape_problem(pattern, flags)
    if problem is None:
        problem = _budgeted_compile(pattern, flags)
    _CACHE.remember_verdict(key, problem)
    return problem


def compile_safe(pattern: str, flags: int = 0) -> Any:
    """The `regex` pattern object, or UnsafeRegex naming why it is refused."""
    key = (pattern, flags)
    cached = _CACHE.pattern(key)
    if cached is not None:
        return cached
    problem = regex_problem(pattern, flags)
    if problem is not None:
        raise UnsafeRegex(problem)
    try:
        compiled = regex.compile(pattern, flags)
    except regex.error as exc:  # the verdict cache was filled by another caller's flags
        raise UnsafeRegex(str(exc)) from None
    _CACHE.remember_pattern(key, compiled, measure(pattern, flags).size)
    return compiled


def _is_small(pattern: str, flags: int) -> bool:
    return len(pattern) <= SMALL_CHARS and measure(pattern, flags).size <= SMALL_SIZE


def _budgeted_compile(pattern: str, flags: int) -> str | None:
    """A syntax error's text, a budget overrun's reason, or None when it compiles."""
    if _is_small(pattern, flags):
        return _compile_here(pattern, flags)
    return _compile_in_worker(pattern, flags)


def _compile_here(pattern: str, flags: int) -> str | None:
    try:
        regex.compile(pattern, flags)
    except regex.error as exc:
        return str(exc)
    except (RecursionError, OverflowError, MemoryError) as exc:  # scan and engine disagree
        return f"it cannot be compiled ({type(exc).__name__}); simplify it"
    return None


def _compile_in_worker(pattern: str, flags: int) -> str | None:
    over = (
        f"compiling it needs more than {WORKER_MEMORY_BYTES // 2**20} MB or "
        f"{WORKER_TIMEOUT_S:g} s; lower its repeat counts or shorten it"
    )
    try:
        done = subprocess.run(
            [sys.executable, "-I", "-c", _WORKER, str(WORKER_MEMORY_BYTES)],
            input=json.dumps([pattern, flags]),
            capture_output=True,
            text=True,
            timeout=WORKER_TIMEOUT_S,
        )
    except subprocess.TimeoutExpired:  # subprocess.run kills the child
        return over
    except OSError:  # no child process here: the static bound is all there is
        return _compile_here(pattern, flags)
    if done.returncode != 0:
        return over
    try:
        answer = json.loads(done.stdout or "null")
    except ValueError:
        return over
    return answer if isinstance(answer, str) else None
