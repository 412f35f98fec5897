"""A suite file's TOML, read: every failure one UserError naming the file, the line, the fix.

tomllib recurses once per nesting level (10^5 nested arrays or inline tables: a
RecursionError) and makes Python ints of integers (5,000 digits: a ValueError past
`sys.get_int_max_str_digits()`). Where either is in the text is looked for only once
tomllib has refused it.
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path
from typing import Any

from trialrun.errors import UserError

# one-line strings, blanked before brackets are counted (a heuristic for the line only)
_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'')
_OPEN, _CLOSE = "[{", "]}"


def read_suite_toml(path: Path) -> dict[str, Any]:
    """The suite file's tables; a missing, unreadable or invalid file is a UserError."""
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserError(f"{path}: no such suite file") from None
    except UnicodeDecodeError as exc:
        raise UserError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start}); save "
                        "the suite file as UTF-8") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    return parse_suite_toml(path, raw)


def parse_suite_toml(path: Path, raw: str) -> dict[str, Any]:
    try:
        return tomllib.loads(raw)
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{path}: not valid TOML ({exc}); fix the syntax") from None
    except RecursionError:
        raise UserError(f"{path}:{_deepest_line(raw)}: nested too deep to read; a suite "
                        "file holds flat values (flatten that one)") from None
    except ValueError:  # the only other one: an integer past Python's digit limit
        digits, line = _longest_number(raw)
        raise UserError(f"{path}:{line}: a {digits}-digit number (Python reads at most "
                        f"{sys.get_int_max_str_digits()} digits); give a small number") \
            from None


def _deepest_line(raw: str) -> int:
    """The line where brackets nest deepest (strings on one line left out)."""
    depth = deepest = 0
    line = at = 1
    for char in _STRING.sub('""', raw):
        if char == "\n":
            line += 1
        elif char in _OPEN:
            depth += 1
            if depth > deepest:
                deepest, at = depth, line
        elif char in _CLOSE:
            depth -= 1
    return at


def _longest_number(raw: str) -> tuple[int, int]:
    """(digits, line) of the longest run of digits outside one-line strings."""
    bare = _STRING.sub('""', raw)
    best = max(re.finditer(r"[0-9_]+", bare), key=lambda m: len(m.group()), default=None)
    if best is None:
        return 0, 1
    return len(best.group().replace("_", "")), bare.count("\n", 0, best.start()) + 1
