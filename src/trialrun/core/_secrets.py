"""Keep secrets out of everything trialrun writes or prints.

Two sources: values of known API-key environment variables, and secret-looking text
(URL userinfo, `Authorization: Bearer …`, `x-api-key: …`, `?key=…`, `sk-…`/`AIza…` keys,
the values of `--api-key`/`--token`/`--password`/`--secret` options, and `NAME=value`
where NAME ends in KEY, TOKEN, SECRET or PASSWORD). Each is replaced by `***`.

`redact` is applied where text leaves trialrun: run.json (argv, agent command, models),
results lines, summaries, transcript folder names, stdout and error messages.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence

MASK = "***"

KEY_VARIABLES = (
    "OPENAI_API_KEY",
    "TRIALRUN_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "OLLAMA_API_KEY",
)

_SECRET_OPTION = r"--?(?:[A-Za-z0-9]+[-_])*(?:api[-_]?key|key|token|password|passwd|secret)"
_SECRET_NAME = r"[A-Za-z_][A-Za-z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD)"

# Each pattern keeps group 1 and masks the rest of the match.
_PATTERNS = (
    # scheme://user:password@host → scheme://***@host
    re.compile(r"(?i)(\b[a-z][a-z0-9+.-]*://)[^/\s@\"']+@"),
    re.compile(r"(?i)(authorization[\"']?\s*[:=]\s*[\"']?bearer\s+)[^\s\"',}]+"),
    re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._~+/=-]{8,}"),
    re.compile(r"(?i)(x-api-key[\"']?\s*[:=]\s*[\"']?)[^\s\"',}]+"),
    re.compile(r"(?i)([?&](?:api_?)?key=)[^&\s\"']+"),
    re.compile(rf"(?i)((?:^|(?<=\s)){_SECRET_OPTION}(?:=|\s+))[^\s\"']+"),
    re.compile(rf"((?:^|(?<=[\s\"'])){_SECRET_NAME}=)[^\s\"']+", re.IGNORECASE),
    re.compile(r"()\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{12,}"),
    re.compile(r"()\bAIza[0-9A-Za-z_-]{20,}"),
)
_OPTION_ONLY = re.compile(rf"(?i)^{_SECRET_OPTION}$")


def secret_values(extra: Iterable[str | None] = ()) -> list[str]:
    """The key values to hide: known key variables plus `extra`, longest first."""
    values = {os.environ.get(name, "") for name in KEY_VARIABLES}
    values.update(v for v in extra if v)
    # short placeholders ("none", "ollama") are not secrets and would mangle messages
    return sorted((v for v in values if len(v) >= 6), key=len, reverse=True)


def _mask(match: re.Match[str]) -> str:
    kept = match.group(1)
    return kept + MASK + ("@" if match.group(0).endswith("@") and "://" in kept else "")


def redact(text: str, extra: Iterable[str | None] = ()) -> str:
    """`text` with every key value and credential-looking token replaced by `***`."""
    if not text:
        return text
    for value in secret_values(extra):
        text = text.replace(value, MASK)
    for pattern in _PATTERNS:
        text = pattern.sub(_mask, text)
    return text


def redact_argv(argv: Sequence[str], extra: Iterable[str | None] = ()) -> list[str]:
    """A command line with secret option values masked, also `--token VALUE` as two items."""
    out: list[str] = []
    hide_next = False
    for arg in argv:
        if hide_next:
            out.append(MASK)
            hide_next = False
            continue
        hide_next = bool(_OPTION_ONLY.match(arg))
        out.append(redact(arg, extra))
    return out


def strip_userinfo(url: str) -> str:
    """`http://user:pw@host/v1` → `http://host/v1` (for names and labels)."""
    return re.sub(r"(?i)^([a-z][a-z0-9+.-]*://)[^/\s@]+@", r"\1", url)
