"""What trialrun.toml sets for every model client, read once by the entry point.

`[retries]` (the request settings), `[limits]` (the largest answer read) and `[pricing]`
(the cost of a call) reach a provider as one `ProviderSettings`, built by whoever loaded
the file (`ProviderSettings.from_config(project)`: the runner, a benchmark suite, the
CLI) and given to `create_model(spec, settings=…)`. A provider reads it from its options
(`ProviderSettings.of(options)`), so a factory keeps its `(model_id, options)` shape.
A direct library caller that passes none gets `ProviderSettings()`, the defaults, not
whatever trialrun.toml the working directory holds.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from trialrun.config import ProjectConfig
from trialrun.models._limits import ReadLimits
from trialrun.models._pricing import DEFAULT_PRICES, Price, pricing_table
from trialrun.models._retry import RetryPolicy

# the options key `create_model` puts the settings under (a provider's options are its own)
SETTINGS_OPTION = "settings"


@dataclass(frozen=True, slots=True)
class ProviderSettings:
    """The project's settings for model clients; the defaults when built bare."""

    retries: RetryPolicy = field(default_factory=RetryPolicy)  # the file's part only
    limits: ReadLimits = field(default_factory=ReadLimits)
    prices: Mapping[str, Price] = field(default_factory=lambda: dict(DEFAULT_PRICES))

    @classmethod
    def from_config(cls, config: ProjectConfig) -> ProviderSettings:
        """Read and checked here, once: a bad value is a UserError before any model."""
        return cls(RetryPolicy.from_config(config), ReadLimits.load(config), pricing_table(config))

    @classmethod
    def of(cls, options: Mapping[str, Any]) -> ProviderSettings:
        """The settings `create_model` passed in `options`; the defaults when none."""
        given = options.get(SETTINGS_OPTION)
        return given if isinstance(given, ProviderSettings) else cls()

    def retry_policy(self, options: Mapping[str, Any]) -> RetryPolicy:
        """One provider's policy: [retries] ← environment ← `options["retries"]`, and a
        programmatic `options["timeout_s"]` as its per-request limit."""
        policy = self.retries.overridden(options.get("retries"))
        timeout_s = options.get("timeout_s")
        if timeout_s is not None:
            policy = replace(policy, request_timeout_s=float(timeout_s))
        return policy
