"""Keep secrets out of everything trialrun writes or prints: one redaction, `redact`.

Two sources: the values of secret environment variables in this process (the known
provider key variables, and any variable named like `*_KEY`, `*_TOKEN`, `*_SECRET`,
`*_PASSWORD`), and secret-looking text:

- URL userinfo with a password (`http://user:pw@host` → `http://***@host`);
- URL query parameters named like a secret (`?api_key=`, `&token=`, `&sig=`, `X-Amz-Signature=`…);
- `Authorization: Bearer …`, bare `Bearer …` tokens, `x-api-key: …` headers;
- the values of `--api-key`/`--token`/`--password`/`--secret`-style options and of
  `NAME=value` where NAME ends in KEY, TOKEN, SECRET or PASSWORD (`api_key: value` too);
- provider key shapes: `sk-…` (OpenAI, Anthropic `sk-ant-…`), `AIza…` (Google), `ghp_…`/
  `github_pat_…` (GitHub), `xox?-…` (Slack), `AKIA…`/`ASIA…` (AWS), `hf_…`,
  JSON web tokens.

Each is replaced by `***`. A masked value never holds whitespace, a quote, a backslash or
`<`/`>`, so redacting JSON, HTML or XML text never breaks its syntax. `redact` is
idempotent. `may_hold_secret` is the cheap test the writers run first on an encoded
line (see `trialrun.core.redacted_json`): False means `redact` would change none of the
strings in it.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Sequence

from ahocorasick_rs import BytesAhoCorasick

MASK = "***"

KEY_VARIABLES = (
    "OPENAI_API_KEY",
    "TRIALRUN_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "OLLAMA_API_KEY",
)
# any other variable named like a secret is one too (HF_TOKEN, AWS_SECRET_ACCESS_KEY…)
_SECRET_VARIABLE = re.compile(r"(?i)(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)$")
_MIN_VALUE = 6  # shorter values ("none", "ollama") are placeholders and would mangle text

_VALUE = r"[^\s\"'\\<>]+"  # a secret's characters: never markup or a JSON escape
_WORD = r"(?:api[-_]?key|key|token|password|passwd|secret)"
_SECRET_OPTION = rf"--?(?:[A-Za-z0-9]+[-_])*{_WORD}"
_SECRET_NAME = r"[A-Za-z_][A-Za-z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD)"
# `name: value` only for names that cannot be prose ("Key: the point is…")
_COLON_NAME = (
    r"(?:[A-Za-z0-9]+[-_])+(?:key|token|secret|password|passwd)|api[-_]?key|apikey"
    r"|password|passwd|secret"
)
_QUERY_NAME = (
    r"(?:[A-Za-z0-9]+[-_.])*(?:api[-_]?key|apikey|key|token|sig|signature|password|passwd"
    r"|pwd|secret|credential|auth)"
)
_LEFT = r"(?<![A-Za-z0-9])"  # a key shape starts a word

# Each pattern keeps group 1 and masks the rest of the match.
_PATTERNS = (
    # scheme://user:password@host → scheme://***@host (the last '@' before the path);
    # a user name alone (postgresql://nobody@host) is no secret
    re.compile(r"(?i)(\b[a-z][a-z0-9+.-]*://)[^/?#\s\"'\\<>:@]*:[^/?#\s\"'\\<>]*@"),
    re.compile(rf"(?i)(authorization[\"']?\s*[:=]\s*[\"']?(?:(?:bearer|basic|token)\s+)?){_VALUE}"),
    re.compile(r"(?i)(\bbearer\s+)[A-Za-z0-9._~+/=-]{8,}"),
    re.compile(rf"(?i)((?:x-(?:goog-)?)?api-key[\"']?\s*:\s*[\"']?){_VALUE}"),
    re.compile(rf"(?i)([?&;]{_QUERY_NAME}=)[^&#\s\"'\\<>]+"),
    re.compile(rf"(?i)((?:^|(?<=[\s\"'=])){_SECRET_OPTION}(?:=|\s+)){_VALUE}"),
    # NAME=value outside a URL query (that one is the pattern above, ending at '&')
    re.compile(rf"(?i)((?:^|(?<=[^A-Za-z0-9_?&;])){_SECRET_NAME}=){_VALUE}"),
    re.compile(rf"(?i)((?:^|(?<=[\s\"'{{,]))[\"']?(?:{_COLON_NAME})[\"']?\s*:\s*[\"']?){_VALUE}"),
    re.compile(
        rf"(){_LEFT}(?:"
        r"sk-[A-Za-z0-9_-]{12,}"
        r"|AIza[0-9A-Za-z_-]{20,}"
        r"|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}"
        r"|xox[abposr]-[A-Za-z0-9-]{10,}"
        r"|(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Z])"
        r"|hf_[A-Za-z0-9]{30,}"
        r"|eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"
        r")"
    ),
)
_OPTION_ONLY = re.compile(rf"(?i)^{_SECRET_OPTION}$")

# What each of _PATTERNS needs, loosely, in case-folded raw text or in its JSON encoding
# (where a quote may be escaped and a whitespace character be an escape such as `\n`):
# the writers' cheap first test. Each gate is a literal every match holds (a substring
# test is fast) and the regex run only when it is there.
_SEP = r"[\s\\\"':=]"  # a separator, a quote or the start of an escape
_GATES = tuple(
    (literal, re.compile(gate))
    for literal, gate in (
        ("://", r"://[^/\s]*@"),
        ("bearer", "bearer"),
        ("auth", rf"authorization|auth{_SEP}"),
        *((literal, rf"{word}{_SEP}") for literal, word in (
            ("key", "key"), ("token", "token"), ("secret", "secret"),
            ("passw", r"passw(?:or)?d"), ("pwd", "pwd"), ("sig", r"sig(?:nature)?"),
            ("credential", "credentials?"),
        )),
        ("sk-", r"sk-[a-z0-9_-]{12}"),
        ("aiza", "aiza"),
        ("gh", "gh[pousr]_"),
        ("github_pat_", "github_pat_"),
        ("xox", "xox[abposr]-"),
        ("akia", "akia[0-9a-z]{16}"),
        ("asia", "asia[0-9a-z]{16}"),
        ("hf_", "hf_[a-z0-9]{30}"),
        ("eyj", r"eyj[a-z0-9_-]{8,}\.eyj"),
    )
)


_FOLD_SLICE = 1 << 16  # characters case-folded at a time


def folded(text: str) -> str:
    """`text.casefold()` without its scratch buffer of 12 bytes per character (a 5 MB
    page with one '·' in it cost 60 MB for a moment): ASCII text is lowered (the same
    for ASCII), other text folded a slice at a time (casefold maps each character on
    its own, so the slices join to the whole)."""
    if text.isascii():
        return text.lower()
    if len(text) <= _FOLD_SLICE:
        return text.casefold()
    return "".join(text[at:at + _FOLD_SLICE].casefold()
                   for at in range(0, len(text), _FOLD_SLICE))


# Every gate literal found in one pass (a substring test per literal read the text 19
# times: a quarter of a 100,000-trial report's time). The literals are ASCII, so they
# are found in the UTF-8 bytes exactly where they are in the text.
_LITERALS = BytesAhoCorasick([literal.encode("ascii") for literal, _ in _GATES])


def _gated(text: str) -> bool:
    folded_text = folded(text)  # as (?i) matches: 'ſ' is an 's', the Kelvin sign a 'k'
    if folded_text.isascii():
        # every gate's matches begin with its literal: a gate matches somewhere iff it
        # matches where one of its literals starts (a byte offset is a str index here)
        return any(_GATES[index][1].match(folded_text, start) is not None
                   for index, start, _ in _LITERALS.find_matches_as_indexes(
                       folded_text.encode("ascii"), overlapping=True))
    found = _LITERALS.find_matches_as_indexes(
        folded_text.encode("utf-8", "surrogatepass"), overlapping=True)
    return any(_GATES[index][1].search(folded_text) is not None
               for index in sorted({index for index, _, _ in found}))


def _is_secret_variable(name: str, value: str) -> bool:
    if name in KEY_VARIABLES:
        return True
    if not _SECRET_VARIABLE.search(name):
        return False
    # a path or a flag named like a secret (SSH_KEY_PATH=/…, USE_TOKEN=true) is not one
    return len(value) >= 8 and not value.startswith(("/", "~", ".")) and " " not in value


def environment_secrets() -> tuple[str, ...]:
    """The values of this process's secret variables, longest first; found again only
    when the environment changed (its entries' hashes are cached, so that check is cheap)."""
    global _seen
    data = getattr(os.environ, "_data", None)  # the encoded entries, not decoded again
    key = hash(tuple(data.items())) if isinstance(data, dict) else None
    if key is not None and _seen is not None and _seen[0] == key:
        return _seen[1]
    found = {v for k, v in os.environ.items() if len(v) >= _MIN_VALUE and _is_secret_variable(k, v)}
    values = tuple(sorted(found, key=len, reverse=True))
    _seen = (key, values) if key is not None else None
    return values


_seen: tuple[int, tuple[str, ...]] | None = None


def secret_values(extra: Iterable[str | None] = ()) -> list[str]:
    """The exact values to hide: secret environment variables plus `extra`, longest first."""
    values = set(environment_secrets())
    values.update(v for v in extra if v and len(v) >= _MIN_VALUE)
    return sorted(values, key=len, reverse=True)


def _mask(match: re.Match[str]) -> str:
    kept = match.group(1)
    return kept + MASK + ("@" if match.group(0).endswith("@") and "://" in kept else "")


def redact(text: str, extra: Iterable[str | None] = ()) -> str:
    """`text` with every secret value and credential-looking token replaced by `***`."""
    return redact_with(text, secret_values(extra)) if text else text


def redact_with(text: str, values: Sequence[str]) -> str:
    """`redact` with the exact values to hide already known (`secret_values()`): for
    callers redacting many strings at once."""
    for value in values:
        if value in text:
            text = text.replace(value, MASK)
    if not _gated(text):
        return text
    for pattern in _PATTERNS:
        text = pattern.sub(_mask, text)
    return text


def may_hold_secret(encoded: str, values: Sequence[str]) -> bool:
    """Whether `redact` could change a string inside `encoded` (raw or JSON text);
    `values` are `secret_values()`. False is certain; True may be a false alarm."""
    if _gated(encoded):
        return True
    return any(v in encoded or json.dumps(v)[1:-1] in encoded for v in values)


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
    return re.sub(r"(?i)^([a-z][a-z0-9+.-]*://)[^/?#\s@]+@", r"\1", url)


def strip_credentials(url: str) -> str:
    """A base URL as trialrun keeps it: no userinfo, secret query values masked
    (`http://u:pw@h/v1?api_key=K` → `http://h/v1?api_key=***`)."""
    return redact(strip_userinfo(url))
