"""Problems found while loading tasks, and the report a load returns."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trialrun.errors import UserError

FieldPath = tuple[str | int, ...]


def dotted(path: FieldPath) -> str:
    """`("graders", 1, "value")` → `graders.1.value`."""
    return ".".join(str(p) for p in path)


_UNPRINTABLE = frozenset({"Cc", "Cs", "Zl", "Zp"})


def one_line(text: str) -> str:
    """`text` with newlines, control characters and lone surrogates escaped (`\\n`,
    `\\x1b`, `\\ud800`), so a problem is always one printable line."""
    if text.isprintable():
        return text
    return "".join(
        ch.encode("unicode_escape").decode("ascii")
        if unicodedata.category(ch) in _UNPRINTABLE
        else ch
        for ch in text
    )


@dataclass
class Problem:
    """One line: `path:line: field: message` (a warning reads `field: warning: message`)."""

    path: Path
    line: int | None
    field: str
    message: str
    severity: str = "error"

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else f"{self.path}"
        label = f" {one_line(self.field)}:" if self.field else ""
        kind = " warning:" if self.severity == "warning" else ""
        return f"{where}:{label}{kind} {one_line(self.message)}"

    def as_error(self, fix: str) -> UserError:
        """This problem as the one line a command refuses with, `fix` after it."""
        return UserError(
            f"{one_line(self.message)}; {fix}",
            place=one_line(self.field) or None, source=self.path, line=self.line,
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "line": self.line,
            "field": self.field,
            "message": self.message,
            "severity": self.severity,
            "text": str(self),
        }


class SourceError(Exception):
    """A file could not be parsed at all (syntax error), with the line where known."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line
