"""Is the Hugging Face hub reachable? One short connect probe before a hub dataset loads,
so no network is said at once (Hugging Face's own client retries five times, 4–8 s
apart, before it gives up).

The probe is skipped when the user already chose offline mode (`HF_HUB_OFFLINE` or
`HF_DATASETS_OFFLINE`: the cache answers, at once) or a proxy stands between (the hub is
then reachable only through it). The hub is `$HF_ENDPOINT`, else huggingface.co; the
probe waits at most `$TRIALRUN_HUB_TIMEOUT_S` seconds (default 5), and its answer is kept
for the process.
"""

from __future__ import annotations

import os
import socket
from urllib.parse import urlsplit

DEFAULT_ENDPOINT = "https://huggingface.co"
DEFAULT_TIMEOUT_S = 5.0
_TRUE = ("1", "on", "yes", "true")
_PROXIES = ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy")
_answers: dict[tuple[str, int], str | None] = {}


def offline_mode() -> bool:
    """The user asked Hugging Face to use its cache only."""
    return any(
        os.environ.get(name, "").strip().lower() in _TRUE
        for name in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE")
    )


def hub_address() -> tuple[str, int]:
    """(host, port) of the hub: `$HF_ENDPOINT`, else huggingface.co."""
    parts = urlsplit(os.environ.get("HF_ENDPOINT") or DEFAULT_ENDPOINT)
    port = parts.port or (80 if parts.scheme == "http" else 443)
    return parts.hostname or "huggingface.co", port


def probe_timeout() -> float:
    raw = os.environ.get("TRIALRUN_HUB_TIMEOUT_S", "")
    try:
        value = float(raw)
    except ValueError:
        return DEFAULT_TIMEOUT_S
    return value if 0 < value <= 60 else DEFAULT_TIMEOUT_S


def hub_unreachable() -> str | None:
    """Why the hub cannot be reached (one connect attempt), or None: reachable, or not
    probed (offline mode chosen, or a proxy set)."""
    if offline_mode() or any(os.environ.get(name) for name in _PROXIES):
        return None
    address = hub_address()
    if address not in _answers:
        _answers[address] = _probe(address)
    return _answers[address]


def _probe(address: tuple[str, int]) -> str | None:
    host, port = address
    where = f"{host}:{port}"
    try:
        with socket.create_connection(address, timeout=probe_timeout()):
            return None
    except socket.gaierror:
        return f"{host}: no such host (no DNS?)"
    except TimeoutError:
        return f"{where}: no answer in {probe_timeout():g}s"
    except OSError as exc:
        return f"{where}: {exc.strerror or exc}"
