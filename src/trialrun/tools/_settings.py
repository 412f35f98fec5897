"""The `[tools]` tables of trialrun.toml as one record, read and checked once when a run
starts (`ToolSettings.from_config`, by whoever holds the run's `ProjectConfig`) and given
to the tool packs as they are built (`load_pack(…, settings)`).

No tool reads the file: a tool behaves per the config its run was given, whatever the
working directory holds, and a bad value is one line naming the file and the key before
the first trial, not a tool error in the middle of a run. Worker processes and Ray
workers get the same record in their job (it pickles: plain values only).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from trialrun.config import CONFIG_NAME, ProjectConfig
from trialrun.core import Registry
from trialrun.errors import UserError
from trialrun.tools._image_providers import IMAGE_PROVIDERS
from trialrun.tools._search_providers import SEARCH_PROVIDERS
from trialrun.tools._web_access import WebTable, settings_problem, web_table

WEB_SEARCH_KEYS = ("provider", "url", "timeout_s")
IMAGE_GENERATE_KEYS = ("provider", "url", "model", "api_key_env", "timeout_s")
_TEXT_KEYS = ("url", "model", "api_key_env")


@dataclass(frozen=True, slots=True)
class ToolSettings:
    """What the packs take from trialrun.toml; the defaults are a project without one:
    code runs jailed or not at all, no host is allowed, no search or image provider."""

    unjailed: bool = False  # [tools] unjailed: code tools may run where bwrap does not work
    http_request: WebTable = WebTable()  # [tools.http_request]
    browser_navigate: WebTable = WebTable()  # [tools.browser_navigate]
    # [tools.web_search] / [tools.image_generate]: the provider's settings, checked
    web_search: dict[str, Any] = field(default_factory=dict)
    image_generate: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_config(cls, config: ProjectConfig) -> ToolSettings:
        """The settings of `config`; a bad value is a UserError naming the file and key."""
        where = str(config.path or CONFIG_NAME)
        unjailed = config.section("tools").get("unjailed", False)
        if not isinstance(unjailed, bool):
            raise UserError(
                f"{where}: [tools] unjailed = {unjailed!r}: give true (code tools may run "
                "where the bwrap jail does not work) or false"
            )
        return cls(
            unjailed=unjailed,
            http_request=_web(config, where, "tools.http_request"),
            browser_navigate=_web(config, where, "tools.browser_navigate"),
            web_search=_provider(config, where, "tools.web_search", WEB_SEARCH_KEYS,
                                 SEARCH_PROVIDERS),
            image_generate=_provider(config, where, "tools.image_generate",
                                     IMAGE_GENERATE_KEYS, IMAGE_PROVIDERS),
        )  # fmt: skip


def provider_problem(
    settings: dict[str, Any], keys: tuple[str, ...], providers: Registry[Any]
) -> str | None:
    """What is wrong with a provider pack's settings (its task options or its table)."""
    unknown = sorted(set(settings) - set(keys))
    if unknown:
        return f"unknown option(s) {unknown}; allowed: {', '.join(keys)}"
    name = settings.get("provider")
    if name is not None and (not isinstance(name, str) or name not in providers):
        return f"unknown provider {name!r}; known: {', '.join(providers.names())}"
    timeout = settings.get("timeout_s")
    if timeout is not None and (
        isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0
    ):
        return "timeout_s must be a number > 0"
    for key in _TEXT_KEYS:
        value = settings.get(key)
        if value is not None and (not isinstance(value, str) or not value.strip()):
            return f"{key} must be a non-empty string"
    return None


def _web(config: ProjectConfig, where: str, name: str) -> WebTable:
    table = config.section(name)
    problem = settings_problem(table)
    if problem is not None:
        raise UserError(f"{where}: [{name}] {problem}")
    return web_table(table)


def _provider(
    config: ProjectConfig, where: str, name: str, keys: tuple[str, ...], providers: Registry[Any]
) -> dict[str, Any]:
    table = config.section(name)
    problem = provider_problem(table, keys, providers)
    if problem is not None:
        raise UserError(f"{where}: [{name}] {problem}")
    return dict(table)
