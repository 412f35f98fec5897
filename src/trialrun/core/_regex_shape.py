"""The static half of the regex check: a pattern's length, group depth and expanded size.

The `regex` package compiles a counted repeat by copying its body: `a{60000}` becomes
60,000 nodes (about 300 bytes each), `(?:a{60000}){60000}` 3.6 billion, and 5,000 nested
groups overflow the Python stack of both `re` and `regex`. One linear scan, without
compiling, bounds all three:

- the length in characters;
- how deep groups nest;
- the expanded size: an atom counts 1, a sequence or alternation the sum of its parts, a
  group its contents (at least 1), a counted repeat `{m,n}` its body times the larger
  finite bound (`*`, `+`, `?` count once: they are never copied).

The scan follows Python's syntax (escapes, classes with a leading `]`, `(?#…)` comments,
verbose mode from `(?x)` or a scoped `(?x:…)`) and errs towards a larger size where the
dialects differ: braces it reads as a repeat that an engine reads as text only add.
"""

from __future__ import annotations

from dataclasses import dataclass, field

MAX_PATTERN_CHARS = 20_000
MAX_GROUP_DEPTH = 50
MAX_EXPANSION = 100_000  # also the largest single repeat count
_VERBOSE = 64  # re.VERBOSE == regex.VERBOSE
_SATURATED = 10**18  # sizes stop growing here: the verdict is the same
_WHITESPACE = " \t\n\r\v\f"


@dataclass(frozen=True, slots=True)
class RegexShape:
    """What the scan found: the expanded size, the deepest nesting, the largest count."""

    size: int
    depth: int
    largest_count: int


def regex_shape_problem(pattern: str, flags: int = 0) -> str | None:
    """Why `pattern` is too big to compile safely, in one line, or None. Never raises."""
    if len(pattern) > MAX_PATTERN_CHARS:
        return (
            f"the pattern is {len(pattern):,} characters long; the limit is "
            f"{MAX_PATTERN_CHARS:,}: shorten it"
        )
    shape = measure(pattern, flags)
    if shape.depth > MAX_GROUP_DEPTH:
        return (
            f"groups nest {shape.depth} deep; the limit is {MAX_GROUP_DEPTH}: "
            "flatten the pattern"
        )
    if shape.largest_count > MAX_EXPANSION:
        shown = _number(shape.largest_count)
        return (
            f"repeat count {shown} is above the limit of {MAX_EXPANSION:,}: lower it, or use "
            "* or + for an open-ended repeat"
        )
    if shape.size > MAX_EXPANSION:
        shown = _number(shape.size)
        return (
            f"its repeats expand to {shown} elements (nested counts multiply); the limit is "
            f"{MAX_EXPANSION:,}: lower the {{m,n}} counts, or use * or + for open-ended repeats"
        )
    return None


def _number(n: int) -> str:
    return "more than 10^18" if n >= _SATURATED else f"{n:,}"


def measure(pattern: str, flags: int = 0) -> RegexShape:
    """The pattern's shape (see the module docstring); a global `(?x)` rescans verbose."""
    scan = _Scan(pattern, verbose=bool(flags & _VERBOSE))
    shape = scan.run()
    if scan.global_verbose and not scan.verbose_start:
        shape = _Scan(pattern, verbose=True).run()
    return shape


@dataclass(slots=True)
class _Frame:
    """One open group: closed branches, the current branch, and its last item (the one a
    following quantifier repeats)."""

    verbose: bool
    branches: int = 0
    branch: int = 0
    last: int | None = None

    def add(self, weight: int) -> None:
        self.branch = _cap(self.branch + (self.last or 0))
        self.last = weight

    def total(self) -> int:
        return _cap(self.branches + self.branch + (self.last or 0))


def _cap(n: int) -> int:
    return min(n, _SATURATED)


@dataclass(slots=True)
class _Scan:
    src: str
    verbose: bool
    verbose_start: bool = False
    global_verbose: bool = False
    i: int = 0
    depth: int = 0
    largest: int = 0
    stack: list[_Frame] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.verbose_start = self.verbose
        self.stack.append(_Frame(self.verbose))

    def run(self) -> RegexShape:
        src = self.src
        while self.i < len(src):
            frame = self.stack[-1]
            ch = src[self.i]
            if frame.verbose and ch in _WHITESPACE:
                self.i += 1
            elif frame.verbose and ch == "#":
                end = src.find("\n", self.i)
                self.i = len(src) if end < 0 else end + 1
            elif ch == "\\":
                self.i += 2  # a longer escape's tail counts as atoms: only larger
                frame.add(1)
            elif ch == "[":
                self._skip_class()
                frame.add(1)
            elif ch == "(":
                self._open()
            elif ch == ")":
                self.i += 1
                self._close()
            elif ch == "|":
                self.i += 1
                frame.branches = _cap(frame.branches + frame.branch + (frame.last or 0))
                frame.branch, frame.last = 0, None
            elif ch in "*+?":
                self.i += 1
                self._lazy_or_possessive()
                if frame.last is None:
                    frame.add(1)
            elif ch == "{" and (bounds := self._counted()) is not None:
                self._repeat(frame, bounds)
            else:
                self.i += 1
                frame.add(1)
        while len(self.stack) > 1:
            self._close()
        return RegexShape(self.stack[0].total(), self.depth, self.largest)

    def _lazy_or_possessive(self) -> None:
        if self.src.startswith(("?", "+"), self.i):
            self.i += 1

    def _repeat(self, frame: _Frame, bounds: tuple[int, int | None]) -> None:
        low, high = bounds
        times = max(low, high or 0, 1)
        self.largest = max(self.largest, times)
        self._lazy_or_possessive()
        if frame.last is None:  # nothing to repeat: an engine refuses or reads text
            frame.add(1)
        frame.last = _cap((frame.last or 1) * times)

    def _counted(self) -> tuple[int, int | None] | None:
        """`{m}`, `{m,}`, `{,n}`, `{m,n}` (spaces allowed) at self.i: the bounds, and
        self.i moved past the brace; None (self.i kept) for a literal brace."""
        src, j = self.src, self.i + 1
        low, j = self._number(j)
        high: int | None = low
        comma = j < len(src) and src[j] == ","
        if comma:
            high, j = self._number(j + 1)
        if j >= len(src) or src[j] != "}" or (low is None and high is None):
            return None
        self.i = j + 1
        return (low or 0), high

    def _number(self, j: int) -> tuple[int | None, int]:
        src = self.src
        while j < len(src) and src[j] in _WHITESPACE:
            j += 1
        start = j
        while j < len(src) and "0" <= src[j] <= "9":
            j += 1
        digits = src[start:j]
        while j < len(src) and src[j] in _WHITESPACE:
            j += 1
        if not digits:
            return None, j
        return (_SATURATED if len(digits) > 18 else int(digits)), j

    def _skip_class(self) -> None:
        """Past `[…]`: a `]` right after `[` or `[^` is a member; escapes are skipped."""
        src, j = self.src, self.i + 1
        if src.startswith("^", j):
            j += 1
        if src.startswith("]", j):
            j += 1
        while j < len(src) and src[j] != "]":
            j += 2 if src[j] == "\\" else 1
        self.i = j + 1

    def _open(self) -> None:
        src, at = self.src, self.i
        verbose = self.stack[-1].verbose
        if src.startswith("(?#", at):
            end = src.find(")", at)
            self.i = len(src) if end < 0 else end + 1
            return
        if src.startswith("(?", at):
            j = at + 2
            while j < len(src) and (src[j].isalpha() or src[j] == "-"):
                j += 1
            letters = src[at + 2 : j]
            on, _, off = letters.partition("-")
            if j < len(src) and src[j] == ")" and letters and letters.replace("-", "").isalpha():
                self.i = j + 1  # global flags: no group
                if "x" in on:
                    self.global_verbose = True
                return
            if j < len(src) and src[j] == ":" and letters:
                verbose = ("x" in on or verbose) and "x" not in off
                self.i = j  # the opener's letters are no atoms
            else:
                self.i = _opener_end(src, at) - 1
        self.i += 1
        self.stack.append(_Frame(verbose))
        self.depth = max(self.depth, len(self.stack) - 1)

    def _close(self) -> None:
        if len(self.stack) == 1:  # an unmatched `)`: an engine refuses it
            self.stack[0].add(1)
            return
        weight = max(self.stack.pop().total(), 1)
        self.stack[-1].add(weight)


def _opener_end(src: str, at: int) -> int:
    """Where a `(?…` group's contents start: past `(?:`, `(?=`, `(?<=`, `(?P<name>` …;
    an opener not listed here keeps its characters as atoms (only larger)."""
    for opener in ("(?:", "(?=", "(?!", "(?>", "(?|", "(?<=", "(?<!"):
        if src.startswith(opener, at):
            return at + len(opener)
    for opener in ("(?P<", "(?<"):
        if src.startswith(opener, at):
            end = src.find(">", at)
            close = src.find(")", at)
            if end > 0 and (close < 0 or end < close):
                return end + 1
    return at + 1
