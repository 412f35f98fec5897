"""What a suite's `split` names for τ-bench: domains, each with an optional task split.

`airline` → airline's test tasks; `airline,retail` → both domains (as OpenJarvis's own
taubench suite files write it); `retail:train` → retail's train tasks.
"""

from __future__ import annotations

from dataclasses import dataclass

from trialrun.benchmarks.taubench._layout import DOMAINS
from trialrun.errors import UserError

DEFAULT_SPLIT = "test"
# τ²-bench's domains: named so a suite written for it gets a clear line, not a guess
TAU2_ONLY = ("telecom", "mock")


@dataclass(frozen=True, slots=True)
class DomainChoice:
    domain: str
    split: str = DEFAULT_SPLIT


def parse_selection(text: str | None, where: str) -> list[DomainChoice]:
    """`airline`, `airline,retail`, `retail:dev` → the domains to run, in order."""
    if text is None or not text.strip():
        return [DomainChoice(d) for d in DOMAINS]
    chosen: list[DomainChoice] = []
    for part in text.split(","):
        name, _, split = part.strip().partition(":")
        name, split = name.strip(), split.strip() or DEFAULT_SPLIT
        if name not in DOMAINS:
            tau2 = name in TAU2_ONLY
            also = " (a τ²-bench domain; τ-bench has airline and retail)" if tau2 else ""
            raise UserError(
                f"{where}: split {text!r}: unknown τ-bench domain {name!r}{also}; use "
                f"{', '.join(DOMAINS)} or both, e.g. split = \"airline,retail\" "
                "(a task split after a colon: \"retail:train\")"
            )
        choice = DomainChoice(name, split)
        if choice not in chosen:
            chosen.append(choice)
    return chosen
