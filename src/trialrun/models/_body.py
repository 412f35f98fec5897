"""Bounded bodies: the error for one over the cap, and JSON parsed without blowing up.

A body within `[limits] max_body_mb` can still cost far more as Python objects: 32 MiB
of `[{},{},…]` is ~700 MB of dicts. `parse_json` refuses a body with more than
`MAX_JSON_CONTAINERS` `{` and `[` (counted anywhere, strings included: a count at C
speed, where telling strings apart would not be), a number no real answer or agent
request comes near; what is left costs at most ~12 times the body (short strings). Nesting
deeper than the parser can follow is refused too, each as `JsonTooComplex` saying which.
"""

from __future__ import annotations

import json
from typing import Any

from trialrun.models._limits import mib

MAX_JSON_CONTAINERS = 1_000_000  # ~70 MB as empty dicts or lists


class JsonTooComplex(ValueError):
    """JSON that would cost too much to hold as Python objects (or to parse at all)."""


class ResponseTooLarge(Exception):
    """A provider's answer too large to read: over `[limits] max_body_mb`, or JSON too
    complex to hold. Not read further, not retried (the same answer would be as large)."""

    @classmethod
    def over(cls, limit: int) -> ResponseTooLarge:
        where = "limit [limits] max_body_mb in trialrun.toml"
        return cls(f"response body over {mib(limit)} ({where})")


def parse_json(body: bytes | str) -> Any:
    """`json.loads(body)`; JsonTooComplex (a ValueError) when it would hold too many
    objects and arrays or nest too deep, ValueError for text that is not JSON."""
    if _brackets(body) > MAX_JSON_CONTAINERS:
        raise JsonTooComplex(f"over {MAX_JSON_CONTAINERS} JSON objects and arrays ('{{' and '[')")
    try:
        return json.loads(body)
    except RecursionError:
        raise JsonTooComplex("JSON nested too deep to read") from None


def _brackets(body: bytes | str) -> int:
    if isinstance(body, str):
        return body.count("{") + body.count("[")
    return body.count(b"{") + body.count(b"[")
