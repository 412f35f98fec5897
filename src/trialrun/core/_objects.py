"""Load a user's Python object from `package.module:attr` or `path/to/file.py:attr`."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Any

from trialrun.errors import UserError


def load_object(ref: str, flag: str) -> Any:
    """`package.module:attr` or `path/to/file.py:attr` → the object, or a UserError."""
    module_name, sep, attr = ref.rpartition(":")
    if not sep or not module_name or not attr:
        raise UserError(f"{flag} {ref}: expected package.module:function (or file.py:function)")
    try:
        if module_name.endswith(".py"):
            path = Path(module_name)
            if not path.is_file():
                raise UserError(f"{flag} {ref}: file {path} not found")
            name = f"_trialrun_user_{abs(hash(str(path.resolve())))}"
            spec = importlib.util.spec_from_file_location(name, path)
            if spec is None or spec.loader is None:
                raise UserError(f"{flag} {ref}: cannot load {path} as a Python module")
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
        else:
            if str(Path.cwd()) not in sys.path and "" not in sys.path:
                sys.path.insert(0, str(Path.cwd()))
            module = importlib.import_module(module_name)
    except UserError:
        raise
    except ImportError as exc:
        raise UserError(
            f"{flag} {ref}: cannot import '{module_name}' ({exc}); install it or run from the "
            "folder that contains it"
        ) from None
    except Exception as exc:
        raise UserError(
            f"{flag} {ref}: importing '{module_name}' raised {type(exc).__name__}: {exc}"
        ) from None
    try:
        return getattr(module, attr)
    except AttributeError:
        raise UserError(f"{flag} {ref}: '{module_name}' has no attribute '{attr}'") from None
