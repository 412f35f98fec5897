"""How much trialrun reads from what it does not control: `[limits]` in trialrun.toml.

- `max_body_mb` (default 32): the largest HTTP body read, a provider's answer (every
  model client, the judge's too) or an agent's request to the recording proxy. A body
  over it is not read further: for a provider an infra error naming this limit, for an
  agent HTTP 413.
- `max_agent_output_mb` (default 2): how much of an `--agent-cmd`'s stdout, and of its
  stderr, is kept: the first and the last half. The rest is drained unread; the answer
  says where, and the trial's `agent_notes` how much was left out.

Values are MiB, whole or fractional, greater than 0 and at most 4096. The entry point
that loaded trialrun.toml reads them (`ReadLimits.load(project)`) and hands them down;
`ReadLimits()` are the defaults a direct library caller gets.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from trialrun.config import ProjectConfig
from trialrun.errors import UserError

MIB = 1 << 20
DEFAULT_MAX_BODY_MB = 32
DEFAULT_MAX_AGENT_OUTPUT_MB = 2
_MAX_MB = 4096


@dataclass(frozen=True, slots=True)
class ReadLimits:
    max_body_bytes: int = DEFAULT_MAX_BODY_MB * MIB
    max_agent_output_bytes: int = DEFAULT_MAX_AGENT_OUTPUT_MB * MIB

    @classmethod
    def load(cls, config: ProjectConfig | None = None) -> ReadLimits:
        """Defaults ← `config`'s [limits] (UserError naming the file and key); None: no
        file is looked for, the defaults."""
        if config is None:
            return cls()
        section = config.section("limits")
        where = f"{config.path}: [limits]" if config.path else "[limits]"
        return cls(
            max_body_bytes=_bytes(where, "max_body_mb", section, DEFAULT_MAX_BODY_MB),
            max_agent_output_bytes=_bytes(
                where, "max_agent_output_mb", section, DEFAULT_MAX_AGENT_OUTPUT_MB
            ),
        )


def _bytes(where: str, key: str, section: dict[str, Any], default: float) -> int:
    raw = section.get(key, default)
    ok = isinstance(raw, int | float) and not isinstance(raw, bool) and math.isfinite(raw)
    if not ok or not 0 < raw <= _MAX_MB or int(raw * MIB) < 1:
        raise UserError(
            f"{where} {key} = {raw!r}: give a number of MiB above 0 and at most {_MAX_MB} "
            f"(default {default})"
        )
    return int(raw * MIB)


def mib(size: int) -> str:
    """A byte count as the MiB it was configured in: "32 MiB", "0.5 MiB"."""
    return f"{size / MIB:g} MiB"
