"""Read a YAML, JSON or TOML file into plain data plus a line number for every key.

`read_source(path, max_bytes)` returns `(data, lines, issues)` where `lines` maps a field
path such as `("graders", 1, "value")` to the 1-based line of that key (or list item) and
`issues` are the over-long lists `check_shape` cut short. A file over `max_bytes` is never
parsed; syntax errors, too many values and too deep nesting raise `SourceError` with the
line where the parser stopped (when known).

Line numbers are only needed when a file has something to report, so they are found
lazily (`LazyLines`: on the first lookup). YAML is read by libyaml when the fast reader
is sure of the answer (`_fast_yaml`), else by ruamel's round trip, which also gives the
lines: the same data and the same messages either way, a tenth of the time.
"""

from __future__ import annotations

import bisect
import contextlib
import datetime as dt
import functools
import json
import re
import tomllib
from collections.abc import Callable
from json.decoder import scanstring  # type: ignore[attr-defined]  # CPython has it; typeshed omits it
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trialrun.core import FileRefused, open_regular
from trialrun.tasks._fast_yaml import Unsure, fast_yaml
from trialrun.tasks._limits import MAX_DEPTH, MAX_NODES, check_shape
from trialrun.tasks._problems import FieldPath, SourceError

if TYPE_CHECKING:
    from ruamel.yaml.composer import Composer

Lines = dict[FieldPath, int]
Issues = list[tuple[FieldPath, str]]


class LazyLines:
    """A `Lines` mapping found on the first lookup (most files never need one)."""

    __slots__ = ("_find", "_lines")

    def __init__(self, find: Callable[[], Lines]) -> None:
        self._find: Callable[[], Lines] | None = find
        self._lines: Lines = {}

    def _resolved(self) -> Lines:
        if self._find is not None:
            find, self._find = self._find, None
            try:
                self._lines = find()
            except Exception:  # line numbers are best effort
                self._lines = {(): 1}
        return self._lines

    def get(self, path: FieldPath, default: int | None = None) -> int | None:
        return self._resolved().get(path, default)

    def __getitem__(self, path: FieldPath) -> int:
        return self._resolved()[path]

    def __contains__(self, path: object) -> bool:
        return path in self._resolved()


LineMap = Lines | LazyLines

TASK_SUFFIXES = (".json", ".yaml", ".yml", ".toml")


def read_bytes(path: Path, max_bytes: int) -> bytes:
    """The file's bytes, or SourceError when it is over `max_bytes` (never read whole)."""
    try:
        with open_regular(path) as handle:  # a FIFO or a device: refused, never waited on
            raw = handle.read(max_bytes + 1)
    except FileRefused as exc:
        raise SourceError(exc.problem) from None  # the file is named by the caller
    except OSError as exc:
        raise SourceError(f"cannot read file: {exc.strerror or exc}") from None
    if len(raw) > max_bytes:
        raise SourceError(
            f"file is over the {max_bytes}-byte limit for task files; split it, or raise "
            "[tasks] max_file_bytes in trialrun.toml"
        )
    return raw


def read_source(path: Path, max_bytes: int) -> tuple[Any, LineMap, Issues]:
    raw = read_bytes(path, max_bytes)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SourceError(f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    suffix = path.suffix.lower()
    try:
        if suffix == ".json":
            return parse_json(text)
        if suffix == ".toml":
            return parse_toml(text)
        return parse_yaml(text)
    except RecursionError:
        raise SourceError(f"nested too deep (over {MAX_DEPTH} levels)") from None


# --- YAML -------------------------------------------------------------------------------


@functools.cache
def _counting_composer() -> type[Composer]:
    # the round-trip parser (~10 ms) only where line numbers or comments are kept
    from ruamel.yaml.composer import Composer

    class CountingComposer(Composer):
        """Stops composing past MAX_NODES nodes: parse time stays bounded."""

        nodes = 0

        def compose_node(self, parent: Any, index: Any) -> Any:
            self.nodes += 1
            if self.nodes > MAX_NODES:
                raise SourceError(
                    f"too many values (over {MAX_NODES}); a task file holds far fewer"
                )
            return super().compose_node(parent, index)

    return CountingComposer


def parse_yaml(text: str) -> tuple[Any, LineMap, Issues]:
    """libyaml when it is sure of the answer (lines found later if asked), else the round
    trip (lines now)."""
    try:
        data = fast_yaml(text)
    except Unsure:
        return parse_yaml_round_trip(text)
    return data, LazyLines(lambda: parse_yaml_round_trip(text)[1]), check_shape(data)


def parse_yaml_round_trip(text: str) -> tuple[Any, Lines, Issues]:
    """ruamel's round trip: every key's line, and the messages users see."""
    # the round-trip parser (~10 ms) only where line numbers or comments are kept
    from ruamel.yaml import YAML
    from ruamel.yaml.composer import MaxDepthExceededError
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    yaml = YAML(typ="rt")
    yaml.Composer = _counting_composer()
    yaml.max_depth = MAX_DEPTH
    try:
        doc = yaml.load(text)
    except MaxDepthExceededError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        raise SourceError(
            f"nested deeper than {MAX_DEPTH} levels; flatten the data", line
        ) from None
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        what = " ".join(str(p) for p in (exc.context, exc.problem) if p)
        raise SourceError(f"YAML syntax error: {what or exc}", line) from None
    except (YAMLError, ValueError, TypeError, OverflowError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else repr(exc)
        raise SourceError(f"YAML error: {first}") from None
    lines: Lines = {(): 1}
    counter = [0]
    data = _plain_yaml(doc, (), lines, set(), counter)
    return data, lines, check_shape(data)


def _plain_yaml(node: Any, path: FieldPath, lines: Lines, active: set[int], n: list[int]) -> Any:
    # the round-trip parser (~10 ms) only where line numbers or comments are kept
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    n[0] += 1
    if n[0] > MAX_NODES:
        raise SourceError(f"document too large (aliases expand to over {MAX_NODES} values)")
    if isinstance(node, dict | list):
        if id(node) in active:
            raise SourceError("recursive YAML alias", lines.get(path))
        active = active | {id(node)}
    if isinstance(node, dict):
        out: dict[Any, Any] = {}
        for key, value in node.items():
            key_p = _plain_scalar(key) if not isinstance(key, dict | list) else str(key)
            if isinstance(node, CommentedMap):
                try:
                    pos = node.lc.key(key)
                    if pos is not None:
                        lines[(*path, key_p)] = pos[0] + 1
                except (KeyError, TypeError, AttributeError):
                    pass
            lines.setdefault((*path, key_p), lines.get(path, 1))
            out[key_p] = _plain_yaml(value, (*path, key_p), lines, active, n)
        return out
    if isinstance(node, list):
        items = []
        for i, value in enumerate(node):
            if isinstance(node, CommentedSeq):
                try:
                    pos = node.lc.item(i)
                    if pos is not None:
                        lines[(*path, i)] = pos[0] + 1
                except (KeyError, TypeError, AttributeError, IndexError):
                    pass
            lines.setdefault((*path, i), lines.get(path, 1))
            items.append(_plain_yaml(value, (*path, i), lines, active, n))
        return items
    return _plain_scalar(node)


def _plain_scalar(value: Any) -> Any:
    if value is None or type(value) in (str, int, float, bool):
        return value
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, str):
        return str(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, dt.datetime):
        return dt.datetime(
            value.year,
            value.month,
            value.day,
            value.hour,
            value.minute,
            value.second,
            value.microsecond,
            value.tzinfo,
        )
    if isinstance(value, dt.date):
        return dt.date(value.year, value.month, value.day)
    if hasattr(value, "value"):  # ruamel's TaggedScalar and friends
        return _plain_scalar(value.value)
    return str(value)


# --- JSON -------------------------------------------------------------------------------

_WS = re.compile(r"[ \t\n\r]*")
_ATOM = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null|NaN|-?Infinity")


def parse_json(text: str) -> tuple[Any, LineMap, Issues]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        message = f"JSON syntax error: {exc.msg} (column {exc.colno})"
        raise SourceError(message, exc.lineno) from None
    except ValueError as exc:  # e.g. an integer over Python's 4300-digit limit
        raise SourceError(f"JSON error: {_first_line(exc)}") from None
    issues = check_shape(data)

    def find() -> Lines:
        lines: Lines = {(): 1}
        # line numbers are best effort (and skipped for cut lists: the text is long)
        if not issues:
            with contextlib.suppress(IndexError, AttributeError, ValueError):
                _JsonLines(text, lines).value(0, ())
        return lines

    return data, LazyLines(find), issues


def _first_line(exc: Exception) -> str:
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text.split("; use sys.set_int_max_str_digits")[0]


class _JsonLines:
    """Walks valid JSON text once, recording the line of every key and list item."""

    def __init__(self, text: str, lines: Lines) -> None:
        self.text = text
        self.lines = lines
        self.newlines = [i for i, c in enumerate(text) if c == "\n"]

    def line_of(self, pos: int) -> int:
        return bisect.bisect_left(self.newlines, pos) + 1

    def skip(self, pos: int) -> int:
        m = _WS.match(self.text, pos)
        return m.end() if m else pos

    def value(self, pos: int, path: FieldPath) -> int:
        text = self.text
        pos = self.skip(pos)
        self.lines.setdefault(path, self.line_of(pos))
        c = text[pos]
        if c == "{":
            pos = self.skip(pos + 1)
            if text[pos] == "}":
                return pos + 1
            while True:
                pos = self.skip(pos)
                key, end = scanstring(text, pos + 1)
                kpath = (*path, key)
                self.lines[kpath] = self.line_of(pos)
                pos = self.skip(end) + 1  # past ':'
                pos = self.skip(self.value(pos, kpath))
                if text[pos] == ",":
                    pos += 1
                    continue
                return pos + 1
        if c == "[":
            pos = self.skip(pos + 1)
            if text[pos] == "]":
                return pos + 1
            index = 0
            while True:
                pos = self.skip(pos)
                self.lines[(*path, index)] = self.line_of(pos)
                pos = self.skip(self.value(pos, (*path, index)))
                if text[pos] == ",":
                    pos += 1
                    index += 1
                    continue
                return pos + 1
        if c == '"':
            after: int = scanstring(text, pos + 1)[1]
            return after
        m = _ATOM.match(text, pos)
        if not m:
            raise ValueError("unexpected JSON text")
        return m.end()


# --- TOML -------------------------------------------------------------------------------

_TOML_POSITION = re.compile(r"(?s)(.*?)\s*\(at line (\d+), column \d+\)")
_BARE = re.compile(r"[A-Za-z0-9_-]+")


def _toml_syntax_error(exc: tomllib.TOMLDecodeError) -> SourceError:
    """tomllib's error with its line apart: Python 3.14 has `msg` and `lineno`; before,
    only its text `MESSAGE (at line L, column C)` holds them."""
    message: str | None = getattr(exc, "msg", None)
    line: int | None = getattr(exc, "lineno", None)
    if message is None:
        found = _TOML_POSITION.fullmatch(str(exc))
        message, line = (found[1], int(found[2])) if found else (str(exc), None)
    return SourceError(f"TOML syntax error: {message}", line)


def parse_toml(text: str) -> tuple[Any, LineMap, Issues]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise _toml_syntax_error(exc) from None
    except ValueError as exc:  # e.g. an integer over Python's 4300-digit limit
        raise SourceError(f"TOML error: {_first_line(exc)}") from None
    data = _plain_toml(data)
    issues = check_shape(data)

    def find() -> Lines:
        lines: Lines = {(): 1}
        if not issues:
            with contextlib.suppress(IndexError, ValueError):  # best effort: keep what was found
                _TomlLines(text, lines).run()
        return lines

    return data, LazyLines(find), issues


def _plain_toml(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain_toml(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain_toml(v) for v in value]
    return value


class _TomlLines:
    """Locates keys in valid TOML text: table headers, `key = value` and inline values."""

    def __init__(self, text: str, lines: Lines) -> None:
        self.text = text
        self.lines = lines
        self.newlines = [i for i, c in enumerate(text) if c == "\n"]
        self.aot: dict[FieldPath, int] = {}

    def line_of(self, pos: int) -> int:
        return bisect.bisect_left(self.newlines, pos) + 1

    def skip(self, pos: int, newlines: bool = True) -> int:
        text = self.text
        while pos < len(text):
            c = text[pos]
            if c in " \t\r" or (newlines and c == "\n"):
                pos += 1
            elif c == "#":
                end = text.find("\n", pos)
                pos = len(text) if end < 0 else end
            else:
                break
        return pos

    def key(self, pos: int) -> tuple[list[str], int]:
        parts: list[str] = []
        text = self.text
        while True:
            pos = self.skip(pos, newlines=False)
            c = text[pos]
            if c == '"':
                end = pos + 1
                while text[end] != '"':
                    end += 2 if text[end] == "\\" else 1
                raw = text[pos : end + 1]
                try:
                    parts.append(json.loads(raw))
                except ValueError:
                    parts.append(raw[1:-1])
                pos = end + 1
            elif c == "'":
                end = text.index("'", pos + 1)
                parts.append(text[pos + 1 : end])
                pos = end + 1
            else:
                m = _BARE.match(text, pos)
                if not m:
                    raise ValueError("bad key")
                parts.append(m.group())
                pos = m.end()
            pos = self.skip(pos, newlines=False)
            if pos < len(text) and text[pos] == ".":
                pos += 1
                continue
            return parts, pos

    def run(self) -> None:
        text = self.text
        prefix: FieldPath = ()
        pos = 0
        while True:
            pos = self.skip(pos)
            if pos >= len(text):
                return
            line = self.line_of(pos)
            if text[pos] == "[":
                is_aot = text.startswith("[[", pos)
                parts, pos = self.key(pos + (2 if is_aot else 1))
                pos += 2 if is_aot else 1
                resolved: FieldPath = ()
                for j, part in enumerate(parts):
                    resolved = (*resolved, part)
                    self.lines.setdefault(resolved, line)
                    last = j == len(parts) - 1
                    if is_aot and last:
                        index = self.aot.get(resolved, -1) + 1
                        self.aot[resolved] = index
                        resolved = (*resolved, index)
                    elif resolved in self.aot:
                        resolved = (*resolved, self.aot[resolved])
                self.lines[resolved] = line
                prefix = resolved
                continue
            parts, pos = self.key(pos)
            path = prefix
            for part in parts:
                path = (*path, part)
                self.lines.setdefault(path, line)
            self.lines[path] = line
            pos = self.value(self.skip(pos + 1, newlines=False), path)  # past '='

    def value(self, pos: int, path: FieldPath) -> int:
        text = self.text
        self.lines.setdefault(path, self.line_of(pos))
        c = text[pos]
        if c == "[":
            pos = self.skip(pos + 1)
            index = 0
            while text[pos] != "]":
                self.lines[(*path, index)] = self.line_of(pos)
                pos = self.skip(self.value(pos, (*path, index)))
                if text[pos] == ",":
                    pos = self.skip(pos + 1)
                    index += 1
            return pos + 1
        if c == "{":
            pos = self.skip(pos + 1)
            while text[pos] != "}":
                line = self.line_of(pos)
                parts, pos = self.key(pos)
                kpath = path
                for part in parts:
                    kpath = (*kpath, part)
                    self.lines.setdefault(kpath, line)
                self.lines[kpath] = line
                pos = self.skip(self.value(self.skip(pos + 1), kpath))
                if text[pos] == ",":
                    pos = self.skip(pos + 1)
            return pos + 1
        for quote in ('"""', "'''"):
            if text.startswith(quote, pos):
                end = pos + 3
                while True:
                    end = text.index(quote, end)
                    if quote == '"""' and _escaped(text, end):
                        end += 1
                        continue
                    break
                end += 3
                while end < len(text) and text[end] == quote[0]:
                    end += 1
                return end
        if c == '"':
            end = pos + 1
            while text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            return end + 1
        if c == "'":
            return text.index("'", pos + 1) + 1
        end = pos
        while end < len(text) and text[end] not in ",]}\n#":
            end += 1
        if end == pos:
            raise ValueError("empty value")
        return end


def _escaped(text: str, pos: int) -> bool:
    count = 0
    while pos - count - 1 >= 0 and text[pos - count - 1] == "\\":
        count += 1
    return count % 2 == 1
