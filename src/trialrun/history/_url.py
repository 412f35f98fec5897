"""Which store: `--store URL`, else `TRIALRUN_HISTORY_URL`, else `[history] url` in
trialrun.toml, else SQLite at `.trialrun/history.db` beside trialrun.toml (or in the
working directory). A plain path means a SQLite file; `postgresql://` uses psycopg 3.
The trialrun.toml is the `ProjectConfig` the caller's entry point loaded (None: there
is no project file)."""

from __future__ import annotations

import os
from pathlib import Path

from trialrun.config import ProjectConfig
from trialrun.errors import UserError

DEFAULT_DB = Path(".trialrun") / "history.db"
ENV_URL = "TRIALRUN_HISTORY_URL"
ENV_OFF = "TRIALRUN_HISTORY"  # "off": record nothing (the test suite's own runs)


def recording_enabled(config: ProjectConfig) -> bool:
    """False when `TRIALRUN_HISTORY=off` or `[history] record = false`."""
    if os.environ.get(ENV_OFF, "").strip().lower() in ("off", "0", "false", "no"):
        return False
    return config.section("history").get("record", True) is not False


def store_url(explicit: str | None = None, config: ProjectConfig | None = None) -> str:
    """The SQLAlchemy URL of the history store (see the module docstring)."""
    config = config if config is not None else ProjectConfig()
    value = explicit or os.environ.get(ENV_URL) or config.section("history").get("url")
    if value is None:
        return _sqlite(config.root / DEFAULT_DB)
    if not isinstance(value, str) or not value.strip():
        where = f"{config.path}: [history] url" if not explicit else "--store"
        raise UserError(f"{where}: must be a non-empty URL or path; e.g. postgresql://host/db")
    value = value.strip()
    if value.startswith(("postgresql://", "postgres://")):
        return "postgresql+psycopg://" + value.split("://", 1)[1]
    if value.startswith("sqlite:") or "://" in value:
        if not value.startswith(("sqlite:", "postgresql+psycopg://")):
            raise UserError(
                f"--store {value.split('://')[0]}://…: unsupported database; use a SQLite "
                "path or a postgresql:// URL"
            )
        return value
    path = Path(value)
    if not path.is_absolute():
        path = (config.root if not explicit else Path.cwd()) / path
    return _sqlite(path)


def existing_store_url(
    explicit: str | None = None, config: ProjectConfig | None = None
) -> str | None:
    """`store_url`, for reading: None when it names a SQLite file that does not exist yet
    (the default `.trialrun/history.db` before any run was recorded), so a reader falls
    back to something else instead of creating an empty store. An explicit `--store`
    naming a missing file is an error (a typo must not read as "no history")."""
    url = store_url(explicit, config)
    if not url.startswith("sqlite:///") or url.startswith("sqlite:///:memory:"):
        return url
    path = Path(url.removeprefix("sqlite:///").split("?", 1)[0])
    if path.is_file():
        return url
    if explicit:
        raise UserError(
            f"--store {explicit}: no such history store ({path}); fix the path, or record "
            f"runs into it first (`trialrun history import RUN_DIR… --store {explicit}`)"
        )
    return None


def _sqlite(path: Path) -> str:
    return f"sqlite:///{path.resolve()}"


def shown_url(url: str) -> str:
    """The URL without its password, for messages."""
    scheme, sep, rest = url.partition("://")
    if "@" in rest and ":" in rest.split("@", 1)[0]:
        user = rest.split("@", 1)[0].split(":", 1)[0]
        rest = f"{user}:***@{rest.split('@', 1)[1]}"
    return f"{scheme}{sep}{rest}"
