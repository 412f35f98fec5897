"""The generated reference covers what the code has: every command and option of the CLI,
every task key (native, grader kinds, Scribe), every trialrun.toml section and key, every
anchor a validation error can name, and (built for real) every public API name."""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import types
import typing
from pathlib import Path
from typing import Any

import pytest
import typer.main
from pydantic import BaseModel

pytest.importorskip("mkdocs", reason="the docs extra: pip install -e '.[docs]'")

from trialrun.cli import app  # noqa: E402
from trialrun.config_keys import SECTIONS  # noqa: E402
from trialrun.graders import GRADERS  # noqa: E402
from trialrun.tasks import Task  # noqa: E402
from trialrun.tasks._reference import (  # noqa: E402
    grader_anchor,
    key_anchor,
    reference_anchor,
    task_keys,
)
from trialrun.tasks._scribe import ScribeTask  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
HOOK = ROOT / "docs" / "hooks" / "reference.py"


def load_hook() -> types.ModuleType:
    spec = importlib.util.spec_from_file_location("docs_reference_hook", HOOK)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def pages() -> dict[str, str]:
    rendered: dict[str, str] = load_hook().render_pages()
    return rendered


def anchors(page: str) -> set[str]:
    return set(re.findall(r"\{#([^}\s]+)\}", page))


def section(page: str, heading: str) -> str:
    start = page.index(heading)
    end = page.find("\n## ", start + len(heading))
    return page[start : end if end >= 0 else len(page)]


def commands() -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []

    def walk(name: str, command: Any) -> None:
        out.append((name, command))
        for sub_name, sub in getattr(command, "commands", {}).items():
            if not sub.hidden:
                walk(f"{name} {sub_name}", sub)

    walk("trialrun", typer.main.get_command(app))
    return out


def test_cli_page_has_every_command_and_option(pages: dict[str, str]) -> None:
    page = pages["cli.md"]
    found = commands()
    assert len(found) > 25
    for name, command in found[1:]:
        body = section(page, f"## `{name}` ")
        for param in command.params:
            if getattr(param, "hidden", False):
                continue
            spellings = [*param.opts, *param.secondary_opts]
            if param.param_type_name == "argument":
                spellings = [str(param.name).upper()]
            for spelled in spellings:
                assert f"`{spelled}`" in body, (name, spelled)


def model_paths(model: type[BaseModel], prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every key path of `model` from its pydantic fields (not from the schema)."""
    out: list[tuple[str, ...]] = []
    for name, info in model.model_fields.items():
        path = (*prefix, info.alias or name)
        out.append(path)
        if path == ("graders",):
            continue
        for inner in models_in(info.annotation):
            out += [p for p in model_paths(inner, path) if p not in out]
    return out


def models_in(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    found: list[type[BaseModel]] = []
    for arg in typing.get_args(annotation):
        found += models_in(arg)
    return found


def test_tasks_page_has_every_task_key(pages: dict[str, str]) -> None:
    page = pages["tasks.md"]
    paths = model_paths(Task)
    assert ("environment", "budgets", "max_turns") in paths
    for path in paths:
        assert f"`{'.'.join(path)}` {{#{key_anchor(path)}}}" in page, path


def test_tasks_page_has_every_grader_kind_and_its_keys(pages: dict[str, str]) -> None:
    page = pages["tasks.md"]
    for name, kind in GRADERS:
        body = section(page.replace("\n### ", "\n## "), f"## `type: {name}` ")
        assert f"{{#{grader_anchor(name)}}}" in body
        for field_name, info in kind.config_model.model_fields.items():
            assert f"`{info.alias or field_name}`" in body, (name, field_name)


def test_tasks_page_has_the_aliases_and_the_scribe_format(pages: dict[str, str]) -> None:
    page = pages["tasks.md"]
    for alias in ("max_steps", "max_tool_calls", "max_latency_s", "pass_k", "cost_usd"):
        assert f"`{alias}` →" in page, alias
    for name in ScribeTask.model_fields:
        assert f"`{name}` {{#{key_anchor(('scribe', name))}}}" in page, name


def test_every_anchor_an_error_can_name_is_on_the_page(pages: dict[str, str]) -> None:
    have = anchors(pages["tasks.md"])
    nameable = {"task-keys", *(reference_anchor(key.path) for key in task_keys())}
    nameable |= {reference_anchor(("graders", 0), {"graders": [{"type": n}]}) for n, _ in GRADERS}
    nameable |= {"scribe", *(key_anchor(("scribe", name)) for name in ScribeTask.model_fields)}
    assert nameable <= have, sorted(nameable - have)


def test_config_page_has_every_section_and_key(pages: dict[str, str]) -> None:
    page = pages["config.md"]
    for config_section in SECTIONS:
        body = section(page, f"## `[{config_section.name}]` ")
        assert f"{{#{config_section.anchor}}}" in body
        for key in config_section.keys:
            assert f"| `{key.name}` |" in body, (config_section.name, key.name)
    from trialrun.tracking import GateConfig

    gates = section(page, "## `[gates]` ")
    for name in GateConfig.model_fields:
        assert f"`{name}`" in gates, name


def public_modules() -> list[types.ModuleType]:
    import trialrun

    found = [trialrun]
    for path in sorted(Path(trialrun.__file__).parent.iterdir()):
        if (path / "__init__.py").exists() and not path.name.startswith("_"):
            module = importlib.import_module(f"trialrun.{path.name}")
            if hasattr(module, "__all__"):
                found.append(module)
    return found


def test_api_page_renders_every_public_package(pages: dict[str, str]) -> None:
    for module in public_modules():
        assert f"\n::: {module.__name__}\n" in pages["api.md"], module.__name__


@pytest.mark.slow
def test_strict_build_has_every_public_api_name(tmp_path: Path) -> None:
    """`mkdocs build --strict` on a copy of docs/ (pages the guides own stubbed when absent,
    so this test does not depend on them) and every `__all__` name has its API anchor."""
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    for page in re.findall(r":\s*([\w/-]+\.md)\s*$", config, flags=re.M):
        target = tmp_path / "docs" / page
        if not target.exists() and not page.startswith("reference/"):
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(f"# {page}\n", encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text(config, encoding="utf-8")
    (tmp_path / "src").symlink_to(ROOT / "src")
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    site = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        timeout=540,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    html = (site / "reference" / "api" / "index.html").read_text(encoding="utf-8")
    ids = set(re.findall(r'id="([^"]+)"', html))
    for module in public_modules():
        for name in module.__all__:
            assert f"{module.__name__}.{name}" in ids, f"{module.__name__}.{name}"
