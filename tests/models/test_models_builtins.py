"""Every built-in provider registers, and a missing optional library is one clear UserError.

(`anthropic` and `gemini` need no SDK: tests/models/test_models_lean_providers.py.)
"""

from __future__ import annotations

import importlib.util

import pytest

from trialrun.errors import UserError
from trialrun.models import MODEL_PROVIDERS, create_model


def test_every_builtin_provider_is_registered():
    expected = {"anthropic", "gemini", "local", "ollama", "openai", "openai-compat", "scripted"}
    assert expected <= set(MODEL_PROVIDERS.names())


def test_missing_llama_cpp_names_the_extra(monkeypatch):
    MODEL_PROVIDERS.names()  # load the providers before hiding llama_cpp
    real = importlib.util.find_spec

    def find_spec(name, *args, **kwargs):
        return None if name == "llama_cpp" else real(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    with pytest.raises(UserError) as missing:
        create_model("local")
    assert str(missing.value) == (
        "--model local: llama-cpp-python is not installed; from a clone of trialrun: "
        "CMAKE_ARGS=\"-DGGML_NATIVE=OFF\" pip install --no-cache-dir -e '.[local]' "
        "(a portable build; see docs/tutorial.md)"
    )  # the install line that does not crash on some CPUs
    with pytest.raises(UserError, match=r"^--judge local: llama-cpp-python is not installed"):
        create_model("local", flag="--judge")
