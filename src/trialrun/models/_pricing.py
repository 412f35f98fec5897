"""The pricing table: USD per million tokens (input, cached input, output) per model.

Built-in defaults cover a few well-known models; `trialrun.toml` overrides or extends
them::

    [pricing."openai:gpt-4o-mini"]
    input_per_mtok = 0.15
    cached_per_mtok = 0.075
    output_per_mtok = 0.60

Keys are the model spec (`provider:model`); for `openai-compat:MODEL@URL` the key may be
the full spec or `openai-compat:MODEL`. A model without a price has cost None (unknown,
not free); `local` and `scripted` cost 0. Usage.prompt counts all prompt tokens,
cached ones included; cached tokens are billed at the cached rate. The entry point that
loaded trialrun.toml builds the table (`pricing_table(project)`) and hands it to the
providers (`ProviderSettings`); without one they price by `DEFAULT_PRICES`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from trialrun.config import ProjectConfig
from trialrun.errors import UserError
from trialrun.models._types import Usage

FREE_PROVIDERS = frozenset({"local", "scripted", "ollama"})


@dataclass(frozen=True, slots=True)
class Price:
    input_per_mtok: float
    cached_per_mtok: float
    output_per_mtok: float

    def cost(self, usage: Usage) -> float:
        cached = min(usage.cached, usage.prompt)
        fresh = usage.prompt - cached
        total = (
            fresh * self.input_per_mtok
            + cached * self.cached_per_mtok
            + usage.completion * self.output_per_mtok
        )
        return total / 1_000_000


# Public list prices (USD / 1M tokens) at the time of writing; override in trialrun.toml.
DEFAULT_PRICES: dict[str, Price] = {
    "openai:gpt-4o": Price(2.50, 1.25, 10.00),
    "openai:gpt-4o-mini": Price(0.15, 0.075, 0.60),
    "openai:gpt-4.1": Price(2.00, 0.50, 8.00),
    "openai:gpt-4.1-mini": Price(0.40, 0.10, 1.60),
    "openai:gpt-4.1-nano": Price(0.10, 0.025, 0.40),
    "anthropic:claude-3-5-haiku-20241022": Price(0.80, 0.08, 4.00),
    "anthropic:claude-3-7-sonnet-20250219": Price(3.00, 0.30, 15.00),
    "anthropic:claude-sonnet-4-20250514": Price(3.00, 0.30, 15.00),
    "gemini:gemini-2.0-flash": Price(0.10, 0.025, 0.40),
    "gemini:gemini-2.5-flash": Price(0.30, 0.075, 2.50),
    "gemini:gemini-2.5-pro": Price(1.25, 0.31, 10.00),
}

_FIELDS = ("input_per_mtok", "cached_per_mtok", "output_per_mtok")


def _from_config(key: str, raw: Any, where: str) -> Price:
    if not isinstance(raw, dict):
        raise UserError(f'{where}: [pricing."{key}"] must be a table with {", ".join(_FIELDS)}')
    unknown = set(raw) - set(_FIELDS)
    if unknown:
        raise UserError(
            f'{where}: [pricing."{key}"]: unknown key(s) {sorted(unknown)}; '
            f"allowed: {', '.join(_FIELDS)}"
        )
    try:
        values = {f: float(raw[f]) for f in _FIELDS if f in raw}
    except (TypeError, ValueError):
        raise UserError(f'{where}: [pricing."{key}"]: prices must be numbers') from None
    if "input_per_mtok" not in values or "output_per_mtok" not in values:
        raise UserError(
            f'{where}: [pricing."{key}"]: input_per_mtok and output_per_mtok are required'
        )
    values.setdefault("cached_per_mtok", values["input_per_mtok"])
    return Price(**values)


def pricing_table(config: ProjectConfig | None = None) -> dict[str, Price]:
    """Defaults overridden by `[pricing]` of `config`; None: no file, the defaults."""
    table = dict(DEFAULT_PRICES)
    if config is None:
        return table
    where = str(config.path) if config.path else "trialrun.toml"
    for key, raw in config.section("pricing").items():
        table[str(key)] = _from_config(str(key), raw, where)
    return table


def price_for(
    provider: str, model_id: str, table: Mapping[str, Price] | None = None
) -> Price | None:
    table = DEFAULT_PRICES if table is None else table
    full = f"{provider}:{model_id}"
    if full in table:
        return table[full]
    base = model_id.split("@", 1)[0]
    return table.get(f"{provider}:{base}")


def cost_usd(
    provider: str, model_id: str, usage: Usage, table: Mapping[str, Price] | None = None
) -> float | None:
    """The call's cost in USD, 0 for local models, None when the price is unknown."""
    price = price_for(provider, model_id, table)
    if price is not None:
        return price.cost(usage)
    return 0.0 if provider in FREE_PROVIDERS else None
