"""Every built-in provider registers, and a missing optional SDK is one clear UserError."""

from __future__ import annotations

import asyncio
import importlib.util
import sys

import pytest

from trialrun.errors import UserError
from trialrun.models import MODEL_PROVIDERS, CompletionParams, create_model

HELLO = [{"role": "user", "content": "hi"}]


def test_every_builtin_provider_is_registered():
    expected = {"anthropic", "gemini", "local", "ollama", "openai", "openai-compat", "scripted"}
    assert expected <= set(MODEL_PROVIDERS.names())


def test_missing_gemini_sdk_names_the_extra(monkeypatch):
    monkeypatch.setenv("GEMINI_API_KEY", "k" * 20)
    monkeypatch.setitem(sys.modules, "google", None)
    monkeypatch.setitem(sys.modules, "google.genai", None)
    model = create_model("gemini:gemini-2.5-flash")
    with pytest.raises(
        UserError, match=r"google-genai is not installed; pip install -e '\.\[gemini\]'"
    ):
        asyncio.run(model.complete(HELLO, [], CompletionParams()))


def test_missing_anthropic_sdk_names_the_extra(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k" * 20)
    monkeypatch.setitem(sys.modules, "anthropic", None)
    model = create_model("anthropic:claude-3-5-haiku-20241022")
    with pytest.raises(
        UserError, match=r"anthropic SDK is not installed; pip install -e '\.\[anthropic\]'"
    ):
        asyncio.run(model.complete(HELLO, [], CompletionParams()))


def test_missing_llama_cpp_names_the_extra(monkeypatch):
    MODEL_PROVIDERS.names()  # load the providers before hiding llama_cpp
    real = importlib.util.find_spec

    def find_spec(name, *args, **kwargs):
        return None if name == "llama_cpp" else real(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    with pytest.raises(
        UserError, match=r"llama-cpp-python is not installed; pip install -e '\.\[local\]'"
    ):
        create_model("local")
    with pytest.raises(UserError, match=r"^--judge local: llama-cpp-python is not installed"):
        create_model("local", flag="--judge")
