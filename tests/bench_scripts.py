"""A `bench/` script loaded as a module, for the tests of the bench scripts."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parents[1] / "bench"


def load_bench(file_name: str, module_name: str) -> ModuleType:
    """`bench/<file_name>` as the module `module_name`, with bench/ on the path (the
    scripts import their shared `_repeat`); registered before it runs, since dataclasses
    look their module up while building."""
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    spec = importlib.util.spec_from_file_location(module_name, BENCH / file_name)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
