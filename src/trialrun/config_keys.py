"""Every section and key of `trialrun.toml`: the one table the loader checks a config
against and the reference page (docs/reference/config.md) is generated from.

Each feature still reads and validates its own values (`[judge]` in trialrun.judge, …);
this table only says which keys exist, so a misspelt or misplaced key is refused at load
with the place it belongs, instead of being silently ignored.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trialrun.errors import ConfigError

CONFIG_REFERENCE = "docs/reference/config.md"


@dataclass(frozen=True, slots=True)
class ConfigKey:
    name: str
    type: str
    default: str  # as TOML text; "" when there is none
    description: str


@dataclass(frozen=True, slots=True)
class ConfigSection:
    """A table: `name` is dotted (`tools.web_search`). `open`: its keys are names the user
    chooses (models in `[pricing]`, suites in `[gates.*]`), checked by the feature."""

    name: str
    description: str
    keys: tuple[ConfigKey, ...] = ()
    open: bool = False

    @property
    def anchor(self) -> str:
        return section_anchor(self.name)

    def key_names(self) -> tuple[str, ...]:
        return tuple(key.name for key in self.keys)


def section_anchor(name: str) -> str:
    """`tools.web_search` → `tools-web_search` (the config page's section ids)."""
    return name.lower().replace(".", "-")


def _k(name: str, type_: str, default: str, description: str) -> ConfigKey:
    return ConfigKey(name, type_, default, description)


_WEB_ACCESS = (
    _k("allow", "list of string", "", "hosts (or URL prefixes) the tool may fetch"),
    _k("timeout_s", "float", "", "time limit of one fetch, seconds"),
    _k("max_bytes", "integer", "", "the most bytes of a response the agent is shown"),
)

SECTIONS: tuple[ConfigSection, ...] = (
    ConfigSection("run", "How `trialrun run` runs when no option says otherwise.", (
        _k("executor", "string", '"local"', '"local" or "ray" (`--executor`)'),
        _k("ray_address", "string", "", "the Ray cluster to connect to (`--ray-address`)"),
        _k("processes", "integer", "", "worker processes for the trials (`--processes`)"),
        _k("early_stop", "bool | list of string", "false",
           "stop a task's trials once its outcome is settled: true, false, or the suites "
           "whose tasks stop early"),
        _k("agent", "string", "", 'the agent when no --agent/--agent-cmd is given, e.g. "codex"'),
    )),
    ConfigSection("judge", "The judge model of `llmRubric`/`judge` graders.", (
        _k("model", "string", "", "the judge's model spec (`--judge`)"),
        _k("cache_dir", "string", "", "where verdicts are cached (default: the XDG cache)"),
        _k("cache", "bool", "true", "reuse cached verdicts"),
        _k("timeout_s", "float", "120.0", "time limit of one judge call, seconds"),
        _k("max_tokens", "integer", "", "the judge's reply limit"),
        _k("constrained", "bool", "true", "send each prompt's reply constraint to the provider"),
    )),
    ConfigSection("gates", "Gate rules: one table per gate, `[gates.merge]`, "
                  "`[gates.nightly]`, `[gates.release]`, over the built-in defaults.", open=True),
    ConfigSection("pricing", 'USD per million tokens per model: `[pricing."openai:gpt-4o-mini"]` '
                  "with `input_per_mtok`, `cached_per_mtok`, `output_per_mtok`.", open=True),
    ConfigSection("history", "The run history every run is recorded in.", (
        _k("url", "string", "", "SQLAlchemy URL of the store (default: SQLite in the project)"),
        _k("branch", "string", "", "the branch runs are recorded under"),
        _k("record", "bool", "true", "false: do not record runs"),
    )),
    ConfigSection("retries", "Model requests retried on transient errors, and infra re-runs.", (
        _k("max_attempts", "integer", "4", "attempts per model request"),
        _k("base_delay_s", "float", "0.5", "first back-off delay, seconds (full jitter)"),
        _k("max_delay_s", "float", "20.0", "longest back-off delay, seconds"),
        _k("request_timeout_s", "float", "120.0", "time limit of one request, seconds"),
        _k("infra_trials", "integer", "", "re-runs of a trial that ended in an infra error"),
    )),
    ConfigSection("baselines", "Where blessed baselines live.", (
        _k("dir", "string", "", "the baselines folder, relative to trialrun.toml"),
    )),
    ConfigSection("compare", "The exact tests of `trialrun compare` and the gates.", (
        _k("alpha", "float", "0.05", "significance level, in (0, 1)"),
        _k("method", "string", '"exact"', '"exact" or "mid-p"'),
    )),
    ConfigSection("tasks", "Task loading.", (
        _k("max_file_bytes", "integer", "", "the largest task file read"),
    )),
    ConfigSection("rundir", "Reading run folders.", (
        _k("max_record_bytes", "integer", "67108864", "the largest record line read"),
        _k("max_file_bytes", "integer", "4294967296", "the largest run file read"),
    )),
    ConfigSection("limits", "What a trial may receive.", (
        _k("max_body_mb", "float", "", "the largest model response body, MB"),
        _k("max_agent_output_mb", "float", "", "the most output kept from an agent CLI, MB"),
    )),
    ConfigSection("agent", "Agent CLIs under test (presets).", (
        _k("env", "list of string", "[]", "environment variables passed to the agent CLI"),
        _k("models", "list of string", "[]",
           "more model names the agent may ask for, all answered by the run's model"),
    )),
    ConfigSection("tools", "Tool packs.", (
        _k("unjailed", "bool", "false", "let code tools run where bwrap does not work"),
    )),
    ConfigSection("tools.web_search", "The `web_search` tool's search provider.", (
        _k("provider", "string", "", 'the provider, e.g. "searxng"'),
        _k("url", "string", "", "the provider's search URL"),
        _k("timeout_s", "float", "", "time limit of one search, seconds"),
    )),
    ConfigSection("tools.image_generate", "The `image_generate` tool's provider.", (
        _k("provider", "string", "", 'the provider, e.g. "openai"'),
        _k("url", "string", '"https://api.openai.com/v1"', "the provider's API base URL"),
        _k("api_key_env", "string", "", "the environment variable holding the API key"),
        _k("model", "string", '"gpt-image-1"', "the image model"),
        _k("timeout_s", "float", "", "time limit of one image, seconds"),
    )),
    ConfigSection("tools.http_request", "What `http_request` may fetch.", _WEB_ACCESS),
    ConfigSection("tools.browser_navigate",
                  "What `browser_navigate` may fetch (else `[tools.http_request]`).", _WEB_ACCESS),
)

_BY_NAME = {section.name: section for section in SECTIONS}


def config_section(name: str) -> ConfigSection | None:
    return _BY_NAME.get(name)


def check_known_keys(where: Path | str, data: dict[str, Any]) -> None:
    """Refuse a key a known section does not have, a top-level key that belongs in a
    section, or a section name one letter off a known one (unknown sections stay, for
    plugins). One line: the file, the place, the fix and the reference section."""
    for name, value in data.items():
        if isinstance(value, dict):
            _check_table(where, name, value)
            continue
        homes = [s for s in SECTIONS if name in s.key_names()]
        if len(homes) == 1:
            raise ConfigError(
                "a top-level key trialrun does not read; it belongs in "
                f"[{homes[0].name}] (see {CONFIG_REFERENCE}#{homes[0].anchor})",
                place=name, source=where,
            )


def _check_table(where: Path | str, name: str, table: dict[str, Any]) -> None:
    section = _BY_NAME.get(name)
    if section is None:
        close = difflib.get_close_matches(name, [s.name for s in SECTIONS], n=1, cutoff=0.8)
        if close:
            raise ConfigError(
                f"unknown section; did you mean [{close[0]}]? "
                f"(see {CONFIG_REFERENCE}#{section_anchor(close[0])})",
                place=f"[{name}]", source=where,
            )
        return
    if section.open:
        return
    for key, value in table.items():
        dotted = f"{name}.{key}"
        if isinstance(value, dict) and (dotted in _BY_NAME or name == "tools"):
            _check_table(where, dotted, value)
            continue
        if key in section.key_names():
            continue
        raise ConfigError(_unknown(section, key), place=f"[{name}] {key}", source=where)


def _unknown(section: ConfigSection, key: str) -> str:
    see = f"(see {CONFIG_REFERENCE}#{section.anchor})"
    homes = [s.name for s in SECTIONS if key in s.key_names()]
    if len(homes) == 1:
        return f"unknown key; it belongs in [{homes[0]}] (see {CONFIG_REFERENCE}#" \
            f"{section_anchor(homes[0])})"
    close = difflib.get_close_matches(key, section.key_names(), n=1, cutoff=0.6)
    if close:
        return f"unknown key; did you mean '{close[0]}'? {see}"
    return f"unknown key (allowed: {', '.join(section.key_names())}) {see}"
