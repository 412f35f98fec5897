"""A pytest eval's id in the history: `path/to/test_file.py::test_name`, its path taken
from the project, not from pytest's rootdir.

pytest's node ids are relative to its rootdir, which moves with `--rootdir`, the ini
file found and the folder pytest starts in: one test would get a new history (and lose
its promotion record) each time. The path is taken from the folder of the nearest
trialrun.toml above the file, else the top of its git checkout, else (neither found)
pytest's rootdir as before. In the usual layout (trialrun.toml or the ini file at the
checkout's top) the id is the node id pytest gave before, so recorded ids stay valid.
"""

from __future__ import annotations

import functools
from pathlib import Path

from trialrun.config import find_config
from trialrun.core import git_toplevel


@functools.lru_cache(maxsize=256)
def project_root(folder: Path) -> Path | None:
    """The folder a test file's id is relative to (None: none found)."""
    config = find_config(folder)
    if config is not None:
        return config.parent.resolve()
    return git_toplevel(folder)


def history_test_id(path: Path, nodeid: str) -> str:
    """The id of the test at `nodeid` (without its `[model-trial]` part), defined in the
    file `path`."""
    test = nodeid.split("[", 1)[0]
    file = Path(path).resolve()
    root = project_root(file.parent)
    if root is None or "::" not in test:
        return test
    try:
        relative = file.relative_to(root).as_posix()
    except ValueError:
        return test
    return f"{relative}::{test.split('::', 1)[1]}"
