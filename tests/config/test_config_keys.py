"""trialrun.toml: one table of known sections and keys (trialrun.config_keys); the loader
refuses an unknown key of a known section and a misplaced key, naming where it belongs
and its reference section, in one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from trialrun.config import load_config
from trialrun.config_keys import CONFIG_REFERENCE, SECTIONS, config_section
from trialrun.errors import UserError


def refused(tmp_path: Path, text: str) -> str:
    path = tmp_path / "trialrun.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(UserError) as caught:
        load_config(path)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(f"{path}: ")
    assert caught.value.exit_code == 2
    return message


def test_a_misspelt_key_gets_did_you_mean_and_its_section(tmp_path: Path) -> None:
    message = refused(tmp_path, '[run]\nexecuter = "ray"\n')
    assert "[run] executer: unknown key; did you mean 'executor'?" in message
    assert message.endswith(f"(see {CONFIG_REFERENCE}#run)")


def test_a_key_of_another_section_names_that_section(tmp_path: Path) -> None:
    message = refused(tmp_path, "[judge]\nalpha = 0.1\n")
    assert "[judge] alpha: unknown key; it belongs in [compare]" in message
    assert message.endswith(f"(see {CONFIG_REFERENCE}#compare)")


def test_a_top_level_key_names_its_section(tmp_path: Path) -> None:
    message = refused(tmp_path, 'executor = "ray"\n')
    assert "executor: a top-level key trialrun does not read; it belongs in [run]" in message


def test_a_section_one_letter_off_is_refused(tmp_path: Path) -> None:
    message = refused(tmp_path, '[judges]\nmodel = "x"\n')
    assert "[judges]: unknown section; did you mean [judge]?" in message


def test_nested_tool_tables_are_checked(tmp_path: Path) -> None:
    message = refused(tmp_path, '[tools.web_search]\nprovder = "searxng"\n')
    assert "[tools.web_search] provder: unknown key; did you mean 'provider'?" in message


def test_every_known_key_loads_and_plugin_sections_stay(tmp_path: Path) -> None:
    lines = []
    for section in SECTIONS:
        if section.keys:
            lines.append(f"[{section.name}]")
            lines += [f"{key.name} = 1" for key in section.keys]
    lines += ["[myplugin]", "anything = 1", "[gates.merge]", "whatever = 1"]
    path = tmp_path / "trialrun.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    config = load_config(path)
    assert config.section("myplugin") == {"anything": 1}


def test_the_table_agrees_with_the_code_that_reads_each_section() -> None:
    from trialrun.judge._settings import _JudgeSection
    from trialrun.models._retry import _ENV, TRIAL_KEYS
    from trialrun.tools.web_search import SETTINGS

    def keys(name: str) -> set[str]:
        section = config_section(name)
        assert section is not None, name
        return set(section.key_names())

    assert keys("judge") == set(_JudgeSection.model_fields)
    assert keys("retries") == set(_ENV) | set(TRIAL_KEYS)
    assert keys("tools.web_search") == set(SETTINGS)
