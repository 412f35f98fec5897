"""History stores to test against: SQLite in tmp_path, and a real PostgreSQL server the
suite starts itself (initdb into a temp folder, `postgres` on a free 127.0.0.1 port, as
the `postgres` user when we are root). Skipped, with the reason, only when the server
binaries are missing or the server cannot start."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from trialrun.history import HistoryStore


def _pg_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class PostgresServer:
    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        self.root = Path(tempfile.mkdtemp(prefix="trialrun-pg-"))
        self.data = self.root / "data"
        self.port = _free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.as_user: list[str] = []
        if os.geteuid() == 0:  # PostgreSQL refuses to run as root
            self.as_user = ["runuser", "-u", "postgres", "--"]
            shutil.chown(self.root, "postgres")
            os.chmod(self.root, 0o700)

    def start(self) -> None:
        subprocess.run(
            [*self.as_user, str(self.bindir / "initdb"), "-D", str(self.data), "-U", "trialrun",
             "--auth=trust", "-E", "UTF8", "--no-sync"],
            check=True, capture_output=True,
        )
        self.proc = subprocess.Popen(
            [*self.as_user, str(self.bindir / "postgres"), "-D", str(self.data),
             "-p", str(self.port), "-h", "127.0.0.1", "-k", str(self.root), "-F"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(self.proc.stderr.read().decode() if self.proc.stderr else "")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    pass
                import psycopg

                with psycopg.connect(self.admin_dsn("postgres"), autocommit=True):
                    return
            except Exception:
                time.sleep(0.2)
        raise RuntimeError("postgres did not accept connections within 60 s")

    def admin_dsn(self, db: str) -> str:
        return f"postgresql://trialrun@127.0.0.1:{self.port}/{db}"

    def new_database(self, name: str) -> str:
        import psycopg

        with psycopg.connect(self.admin_dsn("postgres"), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.admin_dsn(name)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()  # smart shutdown of this server only
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    bindir = _pg_bin()
    if bindir is None:
        pytest.skip("PostgreSQL server binaries not found (bash .ci/run installs them)")
    server = PostgresServer(bindir)
    try:
        server.start()
    except (RuntimeError, subprocess.CalledProcessError, OSError) as exc:
        server.stop()
        detail = getattr(exc, "stderr", None) or str(exc)
        pytest.skip(f"PostgreSQL could not start here: {str(detail).strip()[:300]}")
    yield server
    server.stop()


_counter = iter(range(10**6))


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh, empty store URL of each kind."""
    if request.param == "sqlite":
        return str(tmp_path / "history.db")
    server: PostgresServer = request.getfixturevalue("postgres")
    return server.new_database(f"t{os.getpid()}_{next(_counter)}")


@pytest.fixture
def store(store_url: str) -> Iterator[HistoryStore]:
    with HistoryStore.open(store_url) as opened:
        yield opened
