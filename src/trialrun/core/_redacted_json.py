"""JSON as trialrun writes it: every string in it redacted (`trialrun.core.redact`).

Applied where JSON leaves trialrun (results and transcript lines, run.json, summaries,
baselines, report and viewer pages), so a new field is covered without a change here.
The encoded text is checked first (`may_hold_secret`, one regex pass); only a line that
may hold a secret is redacted string by string and encoded again. Strings, not the
encoded text, are redacted: a key after a `\\n` escape is still at a word start, and an
escape is never cut in half.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from trialrun.core._secrets import environment_secrets, may_hold_secret, redact_with


def _redacted(data: Any, values: Sequence[str]) -> Any:
    """A copy of `data` (dicts, lists, tuples) with every string and key redacted."""
    if isinstance(data, str):
        return redact_with(data, values)
    if isinstance(data, dict):
        return {
            (redact_with(k, values) if isinstance(k, str) else k): _redacted(v, values)
            for k, v in data.items()
        }
    if isinstance(data, list | tuple):
        return [_redacted(v, values) for v in data]
    return data


def redacted_json(
    encode: Callable[[Any], str], data: Any, values: Sequence[str] | None = None
) -> str:
    """`encode(data)`, with every string in it redacted when it may hold a secret;
    `values`: `environment_secrets()` when the caller already has them (a writer of
    100,000 pages asks once, not once a page)."""
    text = encode(data)
    if values is None:
        values = environment_secrets()
    if not may_hold_secret(text, values):
        return text
    return encode(_redacted(data, values))
