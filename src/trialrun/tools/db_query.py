"""The `db_query` tool pack: read-only SQL on a SQLite file inside the trial's workspace.

The file follows the workspace rules of `resolve_inside` and must be a regular file; it
is opened read-only (`file:…?mode=ro`, `PRAGMA query_only`), ATTACH is refused (no other
file is reachable), and a query runs at most 10 s. Rows are cut at `max_rows` (default
100, at most 1,000) and the answer is OpenJarvis's pipe table. The parameters are
OpenJarvis's: `query`, `db_path` (none: an empty in-memory database), `db_url`
(PostgreSQL: refused, a tool error), `read_only` (false is refused), `max_rows`.
"""

from __future__ import annotations

import sqlite3
import stat
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

from trialrun.errors import ToolError
from trialrun.sandbox import resolve_inside
from trialrun.tools._options import no_options
from trialrun.tools._tool import Tool, ToolContext, tool
from trialrun.tools._toolbox import tool_pack

DEFAULT_ROWS = 100
MAX_ROWS = 1_000
MAX_CELL_CHARS = 1_000
QUERY_LIMIT_S = 10.0


def _database(ctx: ToolContext, db_path: str) -> Path:
    try:
        target = resolve_inside(ctx.workspace, db_path, allow_root=False, root_name="the workspace")
    except ToolError as exc:
        raise ToolError(f"db_query: db_path: {exc}") from None
    try:
        mode = target.stat().st_mode
    except OSError:
        raise ToolError(f"db_query: no database file {db_path!r} in the workspace") from None
    if not stat.S_ISREG(mode):
        raise ToolError(f"db_query: {db_path!r} is not a regular file")
    return target


def _deny_attach(action: int, *args: Any) -> int:
    return sqlite3.SQLITE_DENY if action == sqlite3.SQLITE_ATTACH else sqlite3.SQLITE_OK


def _connect(target: Path | None) -> sqlite3.Connection:
    if target is None:
        connection = sqlite3.connect(":memory:")
    else:
        connection = sqlite3.connect(f"file:{quote(str(target))}?mode=ro", uri=True)
    connection.execute("PRAGMA query_only = ON")
    connection.set_authorizer(_deny_attach)
    deadline = time.monotonic() + QUERY_LIMIT_S
    connection.set_progress_handler(lambda: int(time.monotonic() > deadline), 10_000)
    return connection


def pipe_table(columns: list[str], rows: list[tuple[Any, ...]]) -> str:
    """Rows as a pipe-delimited table under a header and a separator line."""
    cells = [[str(v)[:MAX_CELL_CHARS] for v in row] for row in rows]
    widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(columns)]
    lines = [" | ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)),
             "-+-".join("-" * w for w in widths)]
    lines += [" | ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)) for r in cells]
    return "\n".join(line.rstrip() for line in lines)


@tool
def db_query(
    ctx: ToolContext,
    query: str,
    db_path: str | None = None,
    db_url: str | None = None,
    read_only: bool = True,
    max_rows: int | None = None,
) -> str:
    """Execute a read-only SQL query against a SQLite database file in the working folder.
    Returns results as a formatted table.

    Args:
        query: SQL query to execute.
        db_path: Path to a SQLite database file. Defaults to an in-memory database.
        db_url: PostgreSQL connection URL; not supported here.
        read_only: Must stay true: only reading queries run. Default: true.
        max_rows: Maximum number of result rows to return. Default: 100.
    """
    if not isinstance(query, str) or not query.strip():
        raise ToolError("db_query: no query given; put the SQL in 'query'")
    if db_url:
        raise ToolError("db_query: db_url is not supported; give db_path, a SQLite file in "
                        "the working folder")
    if read_only is False:
        raise ToolError("db_query: only read-only queries run here; leave read_only true")
    most = DEFAULT_ROWS if max_rows is None else max_rows
    if not 1 <= most <= MAX_ROWS:
        raise ToolError(f"db_query: max_rows must be between 1 and {MAX_ROWS}")
    target = _database(ctx, db_path) if db_path else None
    try:
        connection = _connect(target)
    except sqlite3.Error as exc:
        raise ToolError(f"db_query: cannot open {db_path!r}: {exc}") from None
    try:
        cursor = connection.execute(query)
        rows = cursor.fetchmany(most + 1)
        columns = [d[0] for d in cursor.description or ()]
    except sqlite3.Warning as exc:
        raise ToolError(f"db_query: {exc}") from None
    except sqlite3.Error as exc:
        raise ToolError(f"db_query: SQL error: {exc}") from None
    finally:
        connection.close()
    if not columns:
        return "The query returned no result set."
    more = len(rows) > most
    table = pipe_table(columns, rows[:most])
    note = f"\n({most} rows shown; more were cut: raise max_rows or narrow the query)"
    count = f"\n({len(rows)} row{'' if len(rows) == 1 else 's'})"
    return table + (note if more else count)


@tool_pack("db_query", no_options("db_query"))
def db_query_pack(options: dict[str, Any]) -> list[Tool]:
    return [db_query]
