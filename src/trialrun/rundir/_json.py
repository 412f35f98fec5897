"""JSON files of a run folder: atomic writes and reads that fail as one line.

Every string written is redacted (`trialrun.core.redacted_json`: URL credentials, keys,
tokens), so a secret an agent prints or a judge URL carries never reaches a results
line, a transcript, run.json or a summary. Only JSON goes out: NaN and ±Infinity are
refused by `write_json_atomic` and written as null in results lines (`dumps_line`), and
refused by `read_json`. A write that the system refuses (a read-only folder, /proc, a
full disk) is a `WriteError`, a UserError naming the path. JSON that Python's json
cannot read (nested past the recursion limit, an integer of more than 4,300 digits) is a
`JsonLimitError`, a ValueError naming its line.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import orjson

from trialrun.core import FileRefused, compact_json, read_regular, redacted_json
from trialrun.errors import UserError
from trialrun.rundir._checks import non_finite, shown_number
from trialrun.rundir._limits import MAX_RECORD_BYTES, record_fix

WRITE_FIX = "choose a writable path"


class WriteError(UserError, OSError):
    """A file could not be written. Also an OSError (errno, strerror kept), so callers
    that already degrade on OSError (a read-only run folder) keep doing so."""

    def __init__(self, path: Path, exc: OSError, fix: str = WRITE_FIX) -> None:
        reason = exc.strerror or str(exc)
        UserError.__init__(self, f"cannot write {path}: {reason}; {fix}")
        self.errno = exc.errno
        self.strerror = reason
        self.filename = str(path)

    def __str__(self) -> str:
        return str(self.args[0])


def dumps_line(obj: Any) -> str:
    """Compact, redacted JSON for one results line (no newline); NaN/±Infinity become null."""
    return redacted_json(_compact, obj)


def _compact(obj: Any) -> str:
    # orjson where it writes what json would; a non-finite number (e.g. a model's NaN
    # argument) is null, not JSON's missing NaN
    return compact_json(obj).decode("utf-8")


def write_text_atomic(path: Path, text: str) -> None:
    """Temp file in the same folder, fsync, then rename: readers never see half a file.

    A refused write is a `WriteError` naming the path; nothing is left behind. A lone
    surrogate (from a JSON `\\ud800` escape) is written as its `\\uXXXX` escape.
    """
    write_chunks_atomic(path, (text,))


def write_chunks_atomic(path: Path, chunks: Iterable[str]) -> None:
    """`write_text_atomic` of `"".join(chunks)`, each chunk written as it comes (the
    whole text is never held). An exception while chunks are made leaves nothing behind."""
    path = Path(path)
    tmp: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as handle:
            for chunk in chunks:
                handle.write(chunk)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        if isinstance(exc, OSError):
            raise WriteError(path, exc) from None
        raise


def _indented(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False, default=str, allow_nan=False)


def write_json_atomic(path: Path, data: Any) -> None:
    """Indented, redacted JSON, written with `write_text_atomic`; NaN/±Infinity are a
    UserError."""
    try:
        text = redacted_json(_indented, data)
    except ValueError:
        raise _non_finite_error(path, data) from None
    write_text_atomic(path, text + "\n")


# stands for the streamed list in the encoded rest of the object (never a real value:
# text read from JSON files is checked, and a NUL is escaped when written)
_SLOT = "\x00trialrun-streamed-list\x00"
_ITEM_INDENT = "\n    "  # a top-level key's list items sit two levels (2 × 2 spaces) deep
_NONE_LEFT = object()


def write_json_streamed_atomic(
    path: Path, data: dict[str, Any], key: str, items: Callable[[], Iterable[Any]]
) -> None:
    """`write_json_atomic(path, {**data, key: list(items())})`, byte for byte, with the
    list encoded and written one item at a time: neither the list nor the text is held.

    `key` is a top-level key of `data` (its value a placeholder; its place the file's).
    Each item is redacted on its own, which redacts exactly what redacting the whole
    would (strings are redacted one by one). `items` is called again only to name a
    NaN/±Infinity in the error (nothing is written then).
    """
    it = iter(items())
    first = next(it, _NONE_LEFT)
    if first is _NONE_LEFT:
        write_json_atomic(path, {**data, key: []})
        return
    try:
        head, tail = redacted_json(_indented, {**data, key: [_SLOT]}).split(
            _indented(_SLOT), 1
        )

        def chunks() -> Iterator[str]:
            yield head
            yield redacted_json(_indented, first).replace("\n", _ITEM_INDENT)
            for item in it:
                yield "," + _ITEM_INDENT
                yield redacted_json(_indented, item).replace("\n", _ITEM_INDENT)
            yield tail + "\n"

        write_chunks_atomic(path, chunks())
    except ValueError:
        raise _non_finite_error(path, {**data, key: list(items())}) from None


def _non_finite_error(path: Path, data: Any) -> UserError:
    where, value = non_finite(data) or ("a value", float("nan"))
    return UserError(
        f"cannot write {path}: {where} is {shown_number(value)}, which JSON cannot hold; "
        "nothing was written (check the run's results for that value)"
    )


class JsonLimitError(ValueError):
    """JSON that json cannot read: nested too deep, or an integer too long to convert.

    `lineno` is the line of the text it is on (the caller adds the file)."""

    def __init__(self, message: str, lineno: int) -> None:
        super().__init__(message)
        self.lineno = lineno


# a JSON string (its escapes included): what the limits' search steps over
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_BRACKET = re.compile(r"[\[\]{}]")


def _limit_error(text: str, too_deep: bool) -> JsonLimitError:
    """Where in `text` json gave up, found only once it did (a slow walk, on error only).

    Strings are blanked out first; newlines are never inside a JSON string, so line
    numbers stay those of the text."""
    bare = _STRING.sub('""', text)
    if too_deep:
        depth = deepest = at = 0
        for match in _BRACKET.finditer(bare):
            depth += 1 if match.group() in "[{" else -1
            if depth > deepest:
                deepest, at = depth, match.start()
        return JsonLimitError(f"nested too deep ({deepest} levels of brackets)",
                              bare.count("\n", 0, at) + 1)
    limit = sys.get_int_max_str_digits()
    found = re.search(rf"[0-9]{{{limit + 1},}}", bare)
    digits, at = (len(found.group()), found.start()) if found else (limit + 1, 0)
    return JsonLimitError(f"a {digits}-digit number (Python reads at most {limit} digits)",
                          bare.count("\n", 0, at) + 1)


def loads_limited(text: str | bytes, **hooks: Any) -> Any:
    """json.loads, where JSON past json's own limits (10^5 nested brackets, a 5,000-digit
    integer) is a `JsonLimitError` naming its line instead of a RecursionError or a bare
    ValueError. Costs nothing until json refuses the text."""
    try:
        return json.loads(text, **hooks)
    except RecursionError:
        raise _limit_error(_as_text(text), too_deep=True) from None
    except json.JSONDecodeError:
        raise
    except ValueError:  # the only other one: an integer past sys.get_int_max_str_digits()
        raise _limit_error(_as_text(text), too_deep=False) from None


def _as_text(text: str | bytes) -> str:
    return text if isinstance(text, str) else text.decode("utf-8", "replace")


def loads_checked(text: str) -> Any:
    """`loads_limited` that also refuses NaN/±Infinity: ValueError naming the key.

    The hooks only note that a non-finite number was parsed (`Infinity`, or a literal
    past 1.8e308); the value is searched for its key only then.
    """
    flagged = False

    def constant(name: str) -> float:
        nonlocal flagged
        flagged = True
        return float(name.replace("Infinity", "inf"))

    def number(literal: str) -> float:
        nonlocal flagged
        value = float(literal)
        if not math.isfinite(value):
            flagged = True
        return value

    data = loads_limited(text, parse_constant=constant, parse_float=number)
    found = non_finite(data) if flagged else None
    if found is not None:
        where, value = found
        raise ValueError(f"{where} is {shown_number(value)}, which JSON does not allow")
    return data


# orjson reads an integer past 64 bits (some 19-digit negatives, every 20-digit number) as
# a float, json as the exact int, so such a text takes json's path. Every digit read as 0,
# one substring search finds a run of 19 digits; only then is the run looked at: one
# after a "." (0.0006000000000000001) or before a "." or exponent is a float's either way
_DIGITS_AS_ZERO = bytes.maketrans(b"123456789", b"000000000")
_LONG_RUN = b"0" * 19
_ZERO, _DOT = ord("0"), ord(".")
_FLOAT_AFTER = frozenset(b".eE")


def _long_integer(raw: bytes) -> bool:
    """Whether `raw` holds a run of 19 or more digits that is not a float's fraction or
    integer part (it may be inside a string: then json's path is merely slower)."""
    digits = raw.translate(_DIGITS_AS_ZERO)
    at = digits.find(_LONG_RUN)
    while at != -1:
        start, end = at, at + len(_LONG_RUN)
        while start and digits[start - 1] == _ZERO:
            start -= 1
        while end < len(digits) and digits[end] == _ZERO:
            end += 1
        after_dot = start > 0 and digits[start - 1] == _DOT
        before_float = end < len(digits) and digits[end] in _FLOAT_AFTER
        if not after_dot and not before_float:
            return True
        at = digits.find(_LONG_RUN, end)
    return False
# orjson reads deeper nesting than json (which refuses ~1,000 levels): a text with this
# many opening brackets (its depth is at most that) takes json's path and its limit
_MANY_BRACKETS = 512


def loads_bytes(raw: bytes, *, finite: bool = True) -> Any:
    """`loads_checked` of UTF-8 bytes, 3-4x faster: orjson reads every text it accepts to
    the same value json does (it refuses NaN, ±Infinity, a float past 1.8e308, a lone
    surrogate and bad UTF-8; a long integer or deep nesting is kept from it); whatever it
    refuses goes through `loads_checked` for json's value or its message (with
    `finite=False`, `loads_limited`: NaN and ±Infinity are read, as json reads them)."""
    if not _long_integer(raw) and raw.count(b"[") + raw.count(b"{") < _MANY_BRACKETS:
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass
    text = raw.decode("utf-8")
    return loads_checked(text) if finite else loads_limited(text)


def read_json(
    path: Path, fix: str = "restore the file or start a new run", limit: int = MAX_RECORD_BYTES,
    *, in_parts: Callable[[str], Any] | None = None,
) -> Any:
    """A JSON file, or a UserError naming the file, the line (or key) and `fix`.

    Only a regular file is read (a FIFO or a device is refused, never waited on), and
    only up to `limit` bytes (a project's `[rundir] max_record_bytes`, else 64 MB).
    `in_parts(text)`: for a file json (not orjson) reads, what the caller makes of the
    text piece by piece (summary.json a row at a time); None: the file is read whole."""
    try:
        raw = read_regular(path, limit, fix=fix, limit_fix=record_fix())
        if in_parts is not None and raw.count(b"[") + raw.count(b"{") >= _MANY_BRACKETS:
            text = raw.decode("utf-8")
            del raw  # the text alone is held while it is read in parts (not both)
            made = in_parts(text)
            if made is not None:
                return made
            raw = text.encode("utf-8")  # the same bytes (they decoded)
        return loads_bytes(raw)
    except FileNotFoundError:
        raise UserError(f"{path}: not found; {fix}") from None
    except IsADirectoryError:
        raise UserError(f"{path}: is a folder; {fix}") from None
    except FileRefused as exc:  # a FIFO, a device, a folder or too big
        if exc.kind == "a folder":
            raise UserError(f"{path}: is a folder; {fix}") from None
        raise
    except json.JSONDecodeError as exc:
        raise UserError(f"{path}:{exc.lineno}: invalid JSON ({exc.msg}); {fix}") from None
    except UnicodeDecodeError:
        raise UserError(f"{path}: not UTF-8 text; {fix}") from None
    except JsonLimitError as exc:
        raise UserError(f"{path}:{exc.lineno}: {exc}; {fix}") from None
    except ValueError as exc:  # a non-finite number
        raise UserError(f"{path}: {exc}; {fix}") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read ({exc.strerror or exc})") from None
