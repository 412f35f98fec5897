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
        raise UserError(
            "expected package.module:function (or file.py:function)", place=flag, value=ref
        )
    try:
        if module_name.endswith(".py"):
            path = Path(module_name)
            if not path.is_file():
                raise UserError(f"file {path} not found", place=flag, value=ref)
            name = f"_trialrun_user_{abs(hash(str(path.resolve())))}"
            spec = importlib.util.spec_from_file_location(name, path)
            if spec is None or spec.loader is None:
                raise UserError(
                    f"cannot load {path} as a Python module", place=flag, value=ref
                )
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
            f"cannot import '{module_name}' ({exc}); install it or run from the "
            "folder that contains it", place=flag, value=ref,
        ) from None
    except Exception as exc:
        raise UserError(
            f"importing '{module_name}' raised {type(exc).__name__}: {exc}",
            place=flag, value=ref,
        ) from None
    try:
        return getattr(module, attr)
    except AttributeError:
        raise UserError(
            f"'{module_name}' has no attribute '{attr}'", place=flag, value=ref
        ) from None
