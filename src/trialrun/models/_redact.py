"""Keep API keys out of error messages, results and transcripts.

Keys are read from environment variables only; any value of a known key variable, any
`Authorization: Bearer …`/`x-api-key: …` header and any `key=…` query parameter found in a
message is replaced by `***` before the message leaves a provider client.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

KEY_VARIABLES = (
    "OPENAI_API_KEY",
    "TRIALRUN_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "OLLAMA_API_KEY",
)

_PATTERNS = (
    re.compile(r"(?i)(authorization[\"']?\s*[:=]\s*[\"']?bearer\s+)[^\s\"',}]+"),
    re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._~+/=-]{8,}"),
    re.compile(r"(?i)(x-api-key[\"']?\s*[:=]\s*[\"']?)[^\s\"',}]+"),
    re.compile(r"(?i)([?&](?:api_?)?key=)[^&\s\"']+"),
    re.compile(r"()\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{12,}"),
    re.compile(r"()\bAIza[0-9A-Za-z_-]{20,}"),
)


def secret_values(extra: Iterable[str | None] = ()) -> list[str]:
    """The key values to hide: known key variables plus `extra`, longest first."""
    values = {os.environ.get(name, "") for name in KEY_VARIABLES}
    values.update(v for v in extra if v)
    # short placeholders ("none", "ollama") are not secrets and would mangle messages
    return sorted((v for v in values if len(v) >= 6), key=len, reverse=True)


def redact(text: str, extra: Iterable[str | None] = ()) -> str:
    """`text` with every key value and credential-looking token replaced by `***`."""
    if not text:
        return text
    for value in secret_values(extra):
        text = text.replace(value, "***")
    for pattern in _PATTERNS:
        text = pattern.sub(lambda m: m.group(1) + "***", text)
    return text
