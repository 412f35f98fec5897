"""`db_query` reads a real SQLite file inside the workspace, read-only, rows bounded."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from tools_support import call


@pytest.fixture()
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "data").mkdir()
    with sqlite3.connect(tmp_path / "data" / "shop.db") as db:
        db.execute("CREATE TABLE orders (id INTEGER, customer TEXT, total REAL)")
        db.executemany("INSERT INTO orders VALUES (?, ?, ?)",
                       [(i, f"c{i % 3}", i * 1.5) for i in range(1, 8)])
    db.close()
    return tmp_path


def test_a_select_answers_a_pipe_table(workspace: Path) -> None:
    got = call("db_query", workspace, db_path="data/shop.db",
               query="SELECT customer, SUM(total) AS spent FROM orders GROUP BY customer")
    assert got.ok, got.content
    assert got.content.splitlines() == [
        "customer | spent", "---------+------", "c0       | 13.5", "c1       | 18.0",
        "c2       | 10.5", "(3 rows)",
    ]


def test_rows_are_bounded(workspace: Path) -> None:
    got = call("db_query", workspace, db_path="data/shop.db", query="SELECT id FROM orders",
               max_rows=2)
    assert got.ok
    assert got.content.splitlines()[2:] == [
        "1", "2", "(2 rows shown; more were cut: raise max_rows or narrow the query)"]


def test_writes_are_refused_and_the_file_is_unchanged(workspace: Path) -> None:
    db = workspace / "data" / "shop.db"
    before = db.read_bytes()
    for sql in ("DELETE FROM orders", "CREATE TABLE x (a)", "DROP TABLE orders"):
        got = call("db_query", workspace, db_path="data/shop.db", query=sql)
        assert not got.ok and got.content.startswith("db_query: "), sql
    assert not call("db_query", workspace, db_path="data/shop.db", query="SELECT 1",
                    read_only=False).ok
    assert db.read_bytes() == before


def test_no_file_outside_the_workspace(
    workspace: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = tmp_path_factory.mktemp("outside") / "secret.db"
    with sqlite3.connect(outside) as db:
        db.execute("CREATE TABLE s (v)")
    db.close()
    escaped = call("db_query", workspace, db_path="../secret.db", query="SELECT 1")
    assert not escaped.ok and "outside the workspace" in escaped.content
    attach = call("db_query", workspace, db_path="data/shop.db",
                  query=f"ATTACH DATABASE '{outside}' AS s")
    assert not attach.ok and "not authorized" in attach.content
    (workspace / "link.db").symlink_to(outside)
    assert not call("db_query", workspace, db_path="link.db", query="SELECT * FROM s").ok
    assert "no database file" in call("db_query", workspace, db_path="nope.db",
                                      query="SELECT 1").content
    assert "not supported" in call("db_query", workspace, query="SELECT 1",
                                   db_url="postgresql://u@h/db").content


def test_without_a_file_an_empty_memory_database(tmp_path: Path) -> None:
    got = call("db_query", tmp_path, query="SELECT 2 + 2 AS four")
    assert got.ok and got.content.splitlines() == ["four", "----", "4", "(1 row)"]
