"""MkDocs hook: the reference pages (docs/reference/*.md), generated from the code at
build time, never written by hand.

- tasks.md      the task format, from the JSON Schema the loader validates with
- cli.md        every command and option of the Typer app
- config.md     every trialrun.toml section and key (trialrun.config_keys)
- api.md        the Python API, rendered by mkdocstrings from the docstrings
- registries.md graders, tool packs, providers, agent presets, benchmarks

`render_pages()` is also what tests/docs/test_reference_complete.py checks.
"""

from __future__ import annotations

import importlib
import inspect
import json
import pkgutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import typer.main
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

import trialrun.config_keys as config_keys
from trialrun.agents import get_preset, preset_names
from trialrun.benchmarks import BENCHMARKS
from trialrun.cli import app
from trialrun.graders import GRADERS
from trialrun.metrics import METRIC_ALIASES, TRACKED_METRICS
from trialrun.models import MODEL_PROVIDERS
from trialrun.tasks import FAMILIES
from trialrun.tasks._environment import BUDGET_ALIASES
from trialrun.tasks._reference import (
    TaskKey,
    grader_anchor,
    grader_schemas,
    key_anchor,
    task_keys,
    type_text,
)
from trialrun.tasks._schema import task_json_schema
from trialrun.tasks._scribe import ScribeTask
from trialrun.tools import TOOL_PACKS
from trialrun.tracking import GateConfig

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = "reference"


def api_modules() -> list[str]:
    """`trialrun` and every public subpackage that curates an `__all__` (the API)."""
    import trialrun

    names = ["trialrun"]
    for info in pkgutil.iter_modules(trialrun.__path__):
        if info.ispkg and not info.name.startswith("_"):
            module = importlib.import_module(f"trialrun.{info.name}")
            if hasattr(module, "__all__"):
                names.append(module.__name__)
    return names


def on_files(files: Files, config: MkDocsConfig) -> Files:
    for name, text in render_pages().items():
        path = f"{REFERENCE}/{name}"
        existing = files.get_file_from_path(path)
        if existing is not None:
            files.remove(existing)
        files.append(File.generated(config, path, content=text))
    return files


def render_pages() -> dict[str, str]:
    return {
        "index.md": _index(),
        "tasks.md": tasks_page(),
        "cli.md": cli_page(),
        "config.md": config_page(),
        "api.md": api_page(),
        "registries.md": registries_page(),
    }


def _index() -> str:
    return "\n".join([
        "# Reference",
        "",
        "Generated from the code at every build (docs/hooks/reference.py); nothing here is "
        "written by hand.",
        "",
        "- [Task files](tasks.md): every key, its type, default and an example",
        "- [Command line](cli.md): every command and option",
        "- [trialrun.toml](config.md): every section and key",
        "- [Python API](api.md): from the docstrings",
        "- [Registries](registries.md): graders, tool packs, providers, agent presets, "
        "benchmarks",
        "",
    ])


# ---------------------------------------------------------------- tasks.md


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _examples() -> dict[tuple[str, ...], str]:
    """The first value each key path has in the shipped example tasks (examples/)."""
    import yaml  # PyYAML: a trialrun dependency

    found: dict[tuple[str, ...], str] = {}

    def visit(node: Any, path: tuple[str, ...]) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                here = (*path, str(key))
                if here not in found and _plain(value):
                    found[here] = json.dumps(value)
                visit(value, here)
        elif isinstance(node, list):
            for item in node:
                visit(item, path)

    for file in sorted((ROOT / "examples").rglob("*.yaml")):
        try:
            data = yaml.safe_load(file.read_text(encoding="utf-8"))
        except (yaml.YAMLError, UnicodeDecodeError):
            continue
        if isinstance(data, dict) and "task_id" in data:
            visit(data, ())
    return found


def _plain(value: Any) -> bool:
    """A scalar, or a non-empty list of scalars: short enough to show as an example."""
    if isinstance(value, list):
        return bool(value) and not any(isinstance(v, dict | list) for v in value)
    return not isinstance(value, dict)


def _aliases(path: tuple[str, ...]) -> list[str]:
    if path == ("environment", "budgets"):
        return [f"`{a}` → `{b}`" for a, b in sorted(BUDGET_ALIASES.items())]
    if path == ("tracked_metrics",):
        return [f"`{a}` → `{b}`" for a, b in sorted(METRIC_ALIASES.items())]
    return []


def _key_section(key: TaskKey, examples: dict[tuple[str, ...], str]) -> list[str]:
    level = "#" * min(3 + len(key.path) - 1, 5)
    lines = [f"{level} `{key.dotted}` {{#{key.anchor}}}", ""]
    if key.description:
        lines += [key.description, ""]
    lines += [
        "| | |",
        "|---|---|",
        f"| type | `{_cell(key.type)}` |",
        f"| required | {'yes' if key.required else 'no'} |",
        f"| default | {f'`{_cell(key.default)}`' if key.default is not None else '—'} |",
    ]
    if key.path in examples:
        lines.append(f"| example | `{_cell(examples[key.path])}` |")
    if aliases := _aliases(key.path):
        lines.append(f"| the suite spec's aliases | {', '.join(aliases)} |")
    if key.path == ("tracked_metrics",):
        known = ", ".join(f"`{name}`" for name in TRACKED_METRICS)
        lines.append(f"| known metrics | {known} |")
    return [*lines, ""]


def _grader_section(root: dict[str, Any], kind: str, schema: dict[str, Any]) -> list[str]:
    lines = [f"### `type: {kind}` {{#{grader_anchor(kind)}}}", ""]
    registered = GRADERS.get(kind)
    if registered is not None:
        lines += [_grader_text(registered.config_model, registered.fn), ""]
    elif description := schema.get("description"):
        lines += [_cell(str(description)), ""]
    lines += ["| key | type | required | default | description |", "|---|---|---|---|---|"]
    required = set(schema.get("required", []))
    for name, prop in schema.get("properties", {}).items():
        default = f"`{_cell(json.dumps(prop['default']))}`" if "default" in prop else "—"
        lines.append(
            f"| `{name}` | `{_cell(type_text(root, prop))}` | "
            f"{'yes' if name in required else 'no'} | {default} | "
            f"{_cell(str(prop.get('description', '')))} |"
        )
    return [*lines, ""]


def _scribe_section() -> list[str]:
    schema = ScribeTask.model_json_schema()
    lines = [
        "## The Scribe format {#scribe}",
        "",
        "A Gemini Scribe task file (`id`, `userMessage`, …) loads as a native task. Its keys:",
        "",
        "| key | type | required | default |",
        "|---|---|---|---|",
    ]
    required = set(schema.get("required", []))
    for name, prop in schema.get("properties", {}).items():
        default = f"`{_cell(json.dumps(prop['default']))}`" if "default" in prop else "—"
        lines.append(
            f"| `{name}` {{#{key_anchor(('scribe', name))}}} | `{_cell(type_text(schema, prop))}`"
            f" | {'yes' if name in required else 'no'} | {default} |"
        )
    return [*lines, ""]


def tasks_page() -> str:
    root = task_json_schema()
    examples = _examples()
    lines = [
        "# Task files",
        "",
        "A task is a YAML or JSON mapping. This page is generated from the JSON Schema the "
        "loader validates with (`trialrun schema` prints it); a validation error names the "
        "section of its key here.",
        "",
        "## Task keys {#task-keys}",
        "",
        "| key | type | required |",
        "|---|---|---|",
    ]
    keys = task_keys()
    for key in keys:
        lines.append(
            f"| [`{key.dotted}`](#{key.anchor}) | `{_cell(key.type)}` | "
            f"{'yes' if key.required else 'no'} |"
        )
    lines.append("")
    for key in keys:
        lines += _key_section(key, examples)
    lines += [
        "## Graders {#graders-by-type}",
        "",
        "Each item of `graders` is one of these, told apart by `type`. The suite spec's "
        f"families ({', '.join(f'`{f}`' for f in FAMILIES)}) are read as the trialrun kind "
        "they name; see [Registries](registries.md#graders) for what each checks.",
        "",
    ]
    for kind, schema in sorted(grader_schemas().items()):
        lines += _grader_section(root, kind, schema)
    lines += _scribe_section()
    return "\n".join(lines)


# ---------------------------------------------------------------- cli.md


def cli_commands() -> Iterator[tuple[str, Any]]:
    """Every command of the app, depth first: ("trialrun run", command), …"""
    root = typer.main.get_command(app)

    def walk(name: str, command: Any) -> Iterator[tuple[str, Any]]:
        yield name, command
        subcommands: dict[str, Any] = getattr(command, "commands", {})
        for sub_name in sorted(subcommands):
            sub = subcommands[sub_name]
            if not sub.hidden:
                yield from walk(f"{name} {sub_name}", sub)

    yield from walk("trialrun", root)


def command_anchor(name: str) -> str:
    return name.replace(" ", "-")


def _default(param: Any) -> str:
    default = param.default
    if default is None or callable(default) or param.required:
        return "—"
    if isinstance(default, bool) and getattr(param, "is_flag", False):
        return "`on`" if default else "`off`"
    if isinstance(default, list | tuple) and not default:
        return "—"
    return f"`{_cell(str(default))}`"


def cli_page() -> str:
    lines = ["# Command line", "", "Generated from the Typer app (`trialrun --help`).", ""]
    for name, command in cli_commands():
        if name == "trialrun":
            lines += [_cell(inspect.cleandoc(command.help or "")), ""]
            continue
        lines += [f"## `{name}` {{#{command_anchor(name)}}}", ""]
        if command.help:
            lines += [inspect.cleandoc(command.help).split("\n\n")[0].replace("\b", ""), ""]
        params = [p for p in command.params if not getattr(p, "hidden", False)]
        if not params:
            continue
        lines += ["| argument / option | default | help |", "|---|---|---|"]
        for param in params:
            spelled = " / ".join(f"`{o}`" for o in (*param.opts, *param.secondary_opts))
            if param.param_type_name == "argument":
                spelled = f"`{str(param.name).upper()}`"
            text = getattr(param, "help", None) or ""
            lines.append(f"| {spelled} | {_default(param)} | {_cell(text)} |")
        lines.append("")
    return "\n".join(lines)


# ---------------------------------------------------------------- config.md


def _gate_keys() -> list[str]:
    """`[gates.*]` keys: the GateConfig model the gates validate with (and its per-suite
    thresholds under `suites.SUITE`)."""
    schema = GateConfig.model_json_schema()
    per_suite = [d for name, d in schema.get("$defs", {}).items() if "Threshold" in name]
    lines = ["| key | type | default |", "|---|---|---|"]
    rows = [("", schema), *(("suites.SUITE.", d) for d in per_suite)]
    for prefix, node in rows:
        for name, prop in node.get("properties", {}).items():
            default = f"`{_cell(json.dumps(prop['default']))}`" if "default" in prop else "—"
            kind = _cell(type_text(schema, prop))
            lines.append(f"| `{prefix}{name}` | `{kind}` | {default} |")
    return [*lines, ""]


def config_page() -> str:
    lines = [
        "# trialrun.toml",
        "",
        "The project config, found from the working folder upward. Every section is "
        "optional. Generated from `trialrun.config_keys`, the table the loader checks a "
        "config against: a key not listed here is refused with the place it belongs.",
        "",
    ]
    for section in config_keys.SECTIONS:
        lines += [f"## `[{section.name}]` {{#{section.anchor}}}", "", section.description, ""]
        if section.name == "gates":
            lines += _gate_keys()
            continue
        if not section.keys:
            continue
        lines += ["| key | type | default | description |", "|---|---|---|---|"]
        for key in section.keys:
            default = f"`{_cell(key.default)}`" if key.default else "—"
            lines.append(
                f"| `{key.name}` | `{_cell(key.type)}` | {default} | {_cell(key.description)} |"
            )
        lines.append("")
    return "\n".join(lines)


# ---------------------------------------------------------------- api.md


def api_page() -> str:
    lines = ["# Python API", "", "Rendered from the docstrings of each package's `__all__`.", ""]
    for module in api_modules():
        lines += [
            f"## `{module}`",
            "",
            f"::: {module}",
            "    options:",
            "      show_root_heading: false",
            "      show_submodules: false",
            "      members_order: source",
            "",
        ]
    return "\n".join(lines)


# ---------------------------------------------------------------- registries.md


def _first_paragraph(obj: Any) -> str:
    doc = inspect.getdoc(obj) or ""
    return _cell(doc.split("\n\n")[0])


def _grader_text(config_model: type, fn: Any) -> str:
    """The config model's own docstring, else the grader function's, else its module's."""
    own = config_model.__dict__.get("__doc__")
    if own:
        return _cell(inspect.cleandoc(own).split("\n\n")[0])
    return _first_paragraph(fn) or _first_paragraph(inspect.getmodule(fn))


def registries_page() -> str:
    lines = [
        "# Registries",
        "",
        "What a task or an option can name. Third parties add to each through its entry "
        "point group (`trialrun.graders`, `trialrun.tools`, `trialrun.models`, …).",
        "",
        "## Graders {#graders}",
        "",
        "A grader fails with its own message in the trial's verdict; the keys of each are on "
        "the [task files page](tasks.md#graders-by-type).",
        "",
        "| type | needs a judge | what it checks (and says when it fails) |",
        "|---|---|---|",
    ]
    for name, kind in GRADERS:
        lines.append(
            f"| [`{name}`](tasks.md#{grader_anchor(name)}) | {'yes' if kind.needs_judge else 'no'}"
            f" | {_grader_text(kind.config_model, kind.fn)} |"
        )
    lines += _tool_rows() + _provider_rows() + _preset_rows() + _benchmark_rows()
    return "\n".join([*lines, ""])


def _tool_rows() -> list[str]:
    lines = ["", "## Tool packs {#tools}", "", "| pack | what it gives the agent |", "|---|---|"]
    for name, factory in TOOL_PACKS:
        lines.append(f"| `{name}` | {_first_paragraph(inspect.getmodule(factory))} |")
    return lines


def _provider_rows() -> list[str]:
    lines = ["", "## Model providers {#providers}", "", "| provider | spec |", "|---|---|"]
    for name, provider in MODEL_PROVIDERS:
        lines.append(f"| `{name}` | {_first_paragraph(provider)} |")
    return lines


def _preset_rows() -> list[str]:
    lines = ["", "## Agent presets {#agents}", "", "| --agent | npm package | version | API |"]
    lines.append("|---|---|---|---|")
    for name in preset_names():
        preset = get_preset(name)
        if preset is not None:
            lines.append(f"| `{name}` | `{preset.package}` | {preset.version} | {preset.api} |")
    return lines


def _benchmark_rows() -> list[str]:
    lines = ["", "## Benchmarks {#benchmarks}", "", "| benchmark | what it is |", "|---|---|"]
    for name, make in BENCHMARKS:
        lines.append(f"| `{name}` | {_first_paragraph(inspect.getmodule(make))} |")
    return lines
