"""`[retries] infra_trials` in trialrun.toml: how many times a trial that ends in an infra
error is run again before its infra error counts (default 2; 0 turns re-runs off).

An infra error counts as a failed pass, so a provider's passing outage would otherwise
lower pass^k; the provider-level `[retries]` (`max_attempts`, …) retry single requests,
this re-runs the whole trial in a fresh workspace. The driver reads it once; workers get
it in their job.
"""

from __future__ import annotations

from trialrun.config import ProjectConfig
from trialrun.errors import UserError

INFRA_TRIALS_KEY = "infra_trials"
DEFAULT_INFRA_TRIALS = 2
MAX_INFRA_TRIALS = 10


def configured_infra_trials(config: ProjectConfig) -> int:
    """`[retries] infra_trials` of `config`, default 2; a bad value is one UserError line
    naming the file and the key."""
    value = config.section("retries").get(INFRA_TRIALS_KEY, DEFAULT_INFRA_TRIALS)
    where = f"{config.path or 'trialrun.toml'}: [retries] {INFRA_TRIALS_KEY}"
    if isinstance(value, bool) or not isinstance(value, int):
        raise UserError(
            f"{where} = {value!r} is not a whole number; give 0 to {MAX_INFRA_TRIALS} (the "
            "times a trial ending in an infra error is run again; 0: never)"
        )
    if not 0 <= value <= MAX_INFRA_TRIALS:
        raise UserError(
            f"{where} = {value} is out of range; give 0 to {MAX_INFRA_TRIALS} (the times a "
            "trial ending in an infra error is run again; 0: never)"
        )
    return value
