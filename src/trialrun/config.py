"""The project config, `trialrun.toml`, found from the working directory upward.

Sections (each optional; each feature reads its own): `[judge]`, `[gates.*]`, `[pricing]`,
`[history]`, `[retries]`, `[baselines]`, `[tasks]` (`max_file_bytes`), `[rundir]`
(`max_record_bytes`, `max_file_bytes`),
`[run]` (`executor`, `ray_address`, `early_stop`: true, false or a list of suite names whose
tasks stop early; `agent`: the agent when no --agent/--agent-cmd is given, e.g. "codex"),
`[limits]` (`max_body_mb`, `max_agent_output_mb`: `models._limits`),
`[tools]` (`unjailed`: let code tools run where bwrap does not work; `[tools.web_search]`
`provider`, `url`: `tools.web_search`).
Unknown sections are kept for plugins; the known ones and their keys are listed in
`trialrun.config_keys` (the loader refuses a key they do not have).
"""

from __future__ import annotations

import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trialrun.config_keys import check_known_keys
from trialrun.errors import CONFIG_FILE_NAME, ConfigError

CONFIG_NAME = CONFIG_FILE_NAME


@dataclass(slots=True)
class ProjectConfig:
    path: Path | None = None
    data: dict[str, Any] = field(default_factory=dict)

    def section(self, name: str) -> dict[str, Any]:
        """A top-level table, or {} when absent. Dotted names walk nested tables."""
        node: Any = self.data
        for part in name.split("."):
            node = node.get(part, {}) if isinstance(node, dict) else {}
        return node if isinstance(node, dict) else {}

    @property
    def root(self) -> Path:
        """The folder relative paths in the config are resolved against."""
        return self.path.parent if self.path else Path.cwd()


def find_config(start: Path | None = None) -> Path | None:
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        candidate = folder / CONFIG_NAME
        if candidate.exists():
            return candidate
    return None


def load_config(path: Path | None = None, start: Path | None = None) -> ProjectConfig:
    """Load `path`, or the nearest trialrun.toml from `start` upward; empty when none."""
    target = path if path is not None else find_config(start)
    if target is None:
        return ProjectConfig()
    try:
        with open(target, "rb") as handle:
            data = tomllib.load(handle)
    except FileNotFoundError:
        raise _unreadable(target, "config file not found; pass an existing --config") from None
    except IsADirectoryError:
        raise _unreadable(target, "is a folder; pass the trialrun.toml file itself") from None
    except tomllib.TOMLDecodeError as exc:
        raise _unreadable(target, f"invalid TOML: {exc}; fix the syntax") from None
    except UnicodeDecodeError:
        raise _unreadable(target, "not UTF-8 text; save the config as UTF-8") from None
    except RecursionError:  # tomllib recurses once per level: 10^5 nested arrays
        raise _unreadable(target, "nested too deep to read; a config holds flat values") \
            from None
    except ValueError:  # the only other one: an integer past Python's digit limit
        raise _unreadable(target, f"a number of more than {sys.get_int_max_str_digits()} "
                          "digits; give a small number") from None
    except OSError as exc:
        raise _unreadable(target, f"cannot read config: {exc.strerror}") from None
    check_known_keys(target, data)  # every section and key: trialrun.config_keys
    return ProjectConfig(path=Path(target), data=data)


def _unreadable(path: Path, problem: str) -> ConfigError:
    """The config file as a whole cannot be read (no key to name)."""
    return ConfigError(problem, place=None, source=path)
