"""JSON files of a run folder: atomic writes and reads that fail as one line."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from trialrun.errors import UserError


def dumps_line(obj: Any) -> str:
    """Compact JSON for one results line (no newline)."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), default=str)


def write_text_atomic(path: Path, text: str) -> None:
    """Temp file in the same folder, fsync, then rename: readers never see half a file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_json_atomic(path: Path, data: Any) -> None:
    """Indented JSON, written with `write_text_atomic`."""
    text = json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n"
    write_text_atomic(path, text)


def read_json(path: Path, fix: str = "restore the file or start a new run") -> Any:
    """A JSON file, or a UserError naming the file, the line and `fix`."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(f"{path}: not found; {fix}") from None
    except IsADirectoryError:
        raise UserError(f"{path}: is a folder; {fix}") from None
    except json.JSONDecodeError as exc:
        raise UserError(f"{path}:{exc.lineno}: invalid JSON ({exc.msg}); {fix}") from None
    except UnicodeDecodeError:
        raise UserError(f"{path}: not UTF-8 text; {fix}") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read ({exc.strerror or exc})") from None
