"""Shared helpers for the tasks tests: write small task files into tmp_path."""

from __future__ import annotations

from pathlib import Path

import pytest
from tasks_support import EXAMPLES, write

__all__ = ["EXAMPLES", "write"]


@pytest.fixture
def examples() -> Path:
    return EXAMPLES
