"""The CLI's stdout and stderr, redacted: every line trialrun prints goes through
`trialrun.core.redact`, whichever command or library printed it.

Text is held until a newline (or a flush), so a key split across two writes is still
seen whole; a progress display that flushes after each frame shows at once.
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

from trialrun.core import redact


class RedactingStream:
    """A text stream that writes `redact(line)` for each whole line to `target`."""

    def __init__(self, target: TextIO) -> None:
        self._target = target
        self._pending = ""

    def write(self, text: str) -> int:
        self._pending += text
        end = self._pending.rfind("\n")
        if end >= 0:
            ready, self._pending = self._pending[: end + 1], self._pending[end + 1 :]
            self._target.write(redact(ready))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        if self._pending:
            ready, self._pending = self._pending, ""
            self._target.write(redact(ready))
        self._target.flush()

    def __getattr__(self, name: str) -> Any:  # isatty, fileno, encoding, buffer…
        return getattr(self._target, name)


def redact_output() -> None:
    """From now on, sys.stdout and sys.stderr print redacted lines."""
    if not isinstance(sys.stdout, RedactingStream):
        sys.stdout = RedactingStream(sys.stdout)
    if not isinstance(sys.stderr, RedactingStream):
        sys.stderr = RedactingStream(sys.stderr)
