"""Imports the built-in providers so their decorators register them.

Each provider module must import its heavy SDK lazily (inside the factory or model),
so importing this module stays cheap. A provider that fails to import is a bug: the
error surfaces here instead of the provider silently going missing.
"""

from __future__ import annotations

from trialrun.models import (  # noqa: F401
    anthropic,
    gemini,
    local,
    ollama,
    openai_compat,
    scripted,
)
