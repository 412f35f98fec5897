"""The entries of a JSON list, one at a time, from a file of any size.

A τ-bench results file is one JSON list (4 MB for 200 trials, 100+ MB for others); it is
read in chunks and each entry decoded on its own, so memory holds one entry and one
chunk, never the file. A problem is one `UserError` naming the file, the entry index and
the fix.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from trialrun.errors import UserError

CHUNK_BYTES = 1 << 20
MAX_ENTRY_CHARS = 64 * 1024 * 1024
# a decode error this far before the end of what was read is real, not a cut-off entry
_TOKEN_MARGIN = 64


class _NotJson(ValueError):
    """NaN or ±Infinity: Python reads them, JSON (and a run folder) does not."""


def _refuse_constant(name: str) -> Any:
    raise _NotJson(name)


_DECODER = json.JSONDecoder(parse_constant=_refuse_constant)
_SPACE = " \t\r\n"


class _Chars:
    """UTF-8 text of a binary file, read on demand into one growing/shrinking buffer."""

    def __init__(self, handle: BinaryIO, path: Path, chunk: int) -> None:
        self._handle = handle
        self._chunk = chunk
        self._path = path
        self._utf8 = codecs.getincrementaldecoder("utf-8")()
        self.text = ""
        self.pos = 0
        self.eof = False

    def more(self) -> bool:
        """Read one more chunk; False at the end of the file."""
        if self.eof:
            return False
        raw = self._handle.read(self._chunk)
        try:
            chars = self._utf8.decode(raw, final=not raw)
        except UnicodeDecodeError as exc:
            raise UserError(
                f"{self._path}: not UTF-8 text ({exc.reason}); pass τ-bench's results file "
                "as it was written (a JSON list)"
            ) from None
        if not raw:
            self.eof = True
        self.text = self.text[self.pos:] + chars
        self.pos = 0
        return bool(raw)

    def skip_space(self) -> str:
        """The next non-space character ('' at the end of the file), not consumed."""
        while True:
            while self.pos < len(self.text) and self.text[self.pos] in _SPACE:
                self.pos += 1
            if self.pos < len(self.text):
                return self.text[self.pos]
            if not self.more():
                return ""


def _decode(chars: _Chars, path: Path, index: int) -> Any:
    """One JSON value at the reader's position, reading more until it is whole."""
    while True:
        try:
            value, end = _DECODER.raw_decode(chars.text, chars.pos)
        except json.JSONDecodeError as exc:
            unterminated = exc.msg.startswith("Unterminated string")
            at_end = unterminated or exc.pos >= len(chars.text.rstrip())
            where = exc.pos - chars.pos  # within the entry
            if unterminated or exc.pos + _TOKEN_MARGIN >= len(chars.text):
                if len(chars.text) - chars.pos > MAX_ENTRY_CHARS:
                    raise UserError(
                        f"{path}: entry {index} is larger than "
                        f"{MAX_ENTRY_CHARS // (1 << 20)} MiB; a τ-bench trial is far "
                        "smaller: check the file is a results list"
                    ) from None
                if chars.more():
                    continue
            if at_end:
                raise UserError(
                    f"{path}: entry {index} is cut off by the end of the file ({exc.msg}); "
                    "restore the whole file τ-bench wrote"
                ) from None
            raise UserError(
                f"{path}: entry {index} is not valid JSON ({exc.msg} at character {where} "
                "of the entry); restore the file τ-bench wrote"
            ) from None
        except _NotJson as exc:
            raise UserError(
                f"{path}: entry {index} holds {exc}, which is not JSON; replace it with a "
                "number or null"
            ) from None
        # a number near the end of the buffer may go on in the next chunk ("0" of "0.5")
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if number and end + _TOKEN_MARGIN >= len(chars.text) and not chars.eof:
            chars.more()  # moves the buffer even at the end: decode again from the start
            continue
        chars.pos = end
        return value


def iter_entries(
    path: Path, handle: BinaryIO, chunk: int = CHUNK_BYTES
) -> Iterator[tuple[int, Any]]:
    """(index, value) for each entry of the JSON list in `handle` (read `chunk` bytes at a
    time; `path` names the file in errors)."""
    chars = _Chars(handle, path, chunk)
    first = chars.skip_space()
    if first != "[":
        found = "an empty file" if not first else f"{first!r}"
        hint = (" (a τ²-bench simulations file is not this format)" if first == "{" else "")
        raise UserError(
            f"{path}: expected a JSON list of trials [{{task_id, trial, reward, info, traj}}, "
            f"…] (τ-bench's results file), found {found} at its start{hint}"
        )
    chars.pos += 1
    index = 0
    if chars.skip_space() == "]":
        return
    while True:
        if not chars.skip_space():
            break
        yield index, _decode(chars, path, index)
        index += 1
        after = chars.skip_space()
        if after == ",":
            chars.pos += 1
            continue
        if after == "]":
            chars.pos += 1
            if chars.skip_space():
                raise UserError(
                    f"{path}: text after the list's closing ']' (after entry {index - 1}); "
                    "restore the file τ-bench wrote"
                )
            return
        if after:
            raise UserError(
                f"{path}: expected ',' or ']' after entry {index - 1}, found {after!r}; "
                "restore the file τ-bench wrote"
            )
        break
    raise UserError(
        f"{path}: the list ends after entry {index - 1} without its closing ']' "
        "(a cut-off file?); restore the whole file τ-bench wrote"
    )
