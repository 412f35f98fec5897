"""YAML frontmatter of Markdown notes: split, parse (plain types), and edit in place.

Shared by the vault tool `update_frontmatter` and the `frontmatterEquals` grader.
Parsing uses ruamel.yaml's safe loader (YAML 1.2: `yes` is a string, dates are
`datetime.date`); editing uses its round-trip mode so other keys, their order, comments
and the body are preserved.
"""

from __future__ import annotations

import datetime as _dt
import io
import re
from dataclasses import dataclass
from typing import Any

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_FENCE_END = re.compile(r"^(?:---|\.\.\.)[ \t]*\r?$", re.MULTILINE)


class FrontmatterError(ValueError):
    """The frontmatter is not valid YAML or not a mapping; the message says where."""


@dataclass(slots=True)
class Split:
    """A note cut in three: everything before the YAML, the YAML text, and the rest."""

    head: str  # "---\n" (with a BOM if the file had one), or "" when there is none
    yaml: str | None  # None: the note has no frontmatter
    tail: str  # the closing fence line and the body, exactly as in the file

    @property
    def body(self) -> str:
        if self.yaml is None:
            return self.tail
        first_nl = self.tail.find("\n")
        return "" if first_nl < 0 else self.tail[first_nl + 1 :]


def split_frontmatter(text: str) -> Split:
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    rest = text[len(bom) :]
    for opener in ("---\n", "---\r\n"):
        if rest.startswith(opener):
            after = rest[len(opener) :]
            if after.startswith("---") and _FENCE_END.match(after):
                return Split(bom + opener, "", after)
            match = _FENCE_END.search(after)
            if match:
                return Split(bom + opener, after[: match.start()], after[match.start() :])
    return Split("", None, text)


def _safe_yaml() -> Any:
    # the round-trip parser (~10 ms) only where line numbers or comments are kept
    from ruamel.yaml import YAML

    return YAML(typ="safe", pure=True)


def _rt_yaml() -> Any:
    # the round-trip parser (~10 ms) only where line numbers or comments are kept
    from ruamel.yaml import YAML

    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 4096
    yaml.indent(mapping=2, sequence=4, offset=2)
    return yaml


def _error(exc: Exception) -> FrontmatterError:
    mark = getattr(exc, "problem_mark", None)
    where = f" at frontmatter line {mark.line + 2}" if mark is not None else ""
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    return FrontmatterError(f"invalid YAML frontmatter{where}: {problem}")


def parse_frontmatter(text: str) -> dict[str, Any] | None:
    """The frontmatter as plain Python values; None when the note has none."""
    split = split_frontmatter(text)
    if split.yaml is None:
        return None
    if not split.yaml.strip():
        return {}
    try:
        data = _safe_yaml().load(split.yaml)
    except Exception as exc:  # ruamel raises a family of YAMLError subclasses
        raise _error(exc) from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise FrontmatterError(f"frontmatter is a {type(data).__name__}, not a mapping of keys")
    return data


def yaml_value(value: Any) -> Any:
    """A tool argument as the YAML value to store: `YYYY-MM-DD` strings become dates."""
    if isinstance(value, str) and _DATE.match(value):
        try:
            return _dt.date.fromisoformat(value)
        except ValueError:
            return value
    if isinstance(value, list):
        return [yaml_value(v) for v in value]
    return value


def set_frontmatter_key(text: str, key: str, value: Any) -> str:
    """`text` with frontmatter `key` set to `value` (typed); everything else kept.

    An existing key keeps its position; a new key goes last; a note without
    frontmatter gets one.
    """
    split = split_frontmatter(text)
    yaml = _rt_yaml()
    stored = yaml_value(value)
    if split.yaml is None:
        data: Any = {}
        head, tail = "---\n", "---\n" + text
    else:
        try:
            data = yaml.load(split.yaml) if split.yaml.strip() else None
        except Exception as exc:
            raise _error(exc) from exc
        head, tail = split.head, split.tail
        if data is None:
            # the round-trip parser (~10 ms) only where line numbers or comments are kept
            from ruamel.yaml.comments import CommentedMap

            data = CommentedMap()
        if not isinstance(data, dict):
            raise FrontmatterError(f"frontmatter is a {type(data).__name__}, not a mapping of keys")
    data[key] = stored
    out = io.StringIO()
    yaml.dump(data, out)
    dumped = out.getvalue()
    if not dumped.endswith("\n"):
        dumped += "\n"
    if "\r\n" in head:
        dumped = dumped.replace("\n", "\r\n")
    return head + dumped + tail


def plain(value: Any) -> Any:
    """A YAML value for JSON details: dates become ISO strings."""
    if isinstance(value, _dt.date | _dt.datetime):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def type_name(value: Any) -> str:
    """A YAML-ish type name for details and tool results."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, _dt.datetime):
        return "datetime"
    if isinstance(value, _dt.date):
        return "date"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "list"
    if isinstance(value, dict):
        return "mapping"
    return type(value).__name__
