"""activate_skill: a skill's SKILL.md instructions (without frontmatter) or one of its
resource files, from gemini-scribe/Skills/<name>/."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from trialrun.tools import ToolResult

Call = Callable[..., ToolResult]
SKILLS = "gemini-scribe/Skills"
SKILL_MD = """---
name: shipping-code-formatter
description: Format Quill Shipping Company tracking codes.
---

# Tracking codes

1. Start with `QSC-`.
"""


def _install(vault: Path) -> Path:
    skill = vault / SKILLS / "shipping-code-formatter"
    (skill / "references").mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL_MD)
    (skill / "references" / "ports.md").write_text("dly = Dunley\n")
    other = vault / SKILLS / "meeting-notes"
    other.mkdir()
    (other / "SKILL.md").write_text("---\nname: meeting-notes\ndescription: Meeting notes.\n---\nx")
    (vault / SKILLS / "not-a-skill").mkdir()  # no SKILL.md: not installed
    return skill


def test_activate_returns_the_instructions_and_names_resources(call: Call, vault: Path) -> None:
    _install(vault)
    out = call("activate_skill", name="shipping-code-formatter")
    assert out.ok, out.content
    assert out.content == (
        "Skill 'shipping-code-formatter' activated. Follow these instructions:\n\n"
        "# Tracking codes\n\n1. Start with `QSC-`.\n\n"
        "Resources (read one with resource_path): references/ports.md"
    )
    assert "description:" not in out.content


def test_activate_reads_a_resource_file(call: Call, vault: Path) -> None:
    _install(vault)
    skill = "shipping-code-formatter"
    out = call("activate_skill", name=skill, resource_path="references/ports.md")
    assert (out.ok, out.content) == (True, "dly = Dunley\n")
    missing = call("activate_skill", name="shipping-code-formatter", resource_path="nope.md")
    assert (missing.ok, missing.content) == (
        False,
        "activate_skill: resource 'nope.md' not found in skill 'shipping-code-formatter'; "
        "its resources: references/ports.md",
    )


def test_unknown_skill_lists_the_installed_ones(call: Call, vault: Path) -> None:
    none = call("activate_skill", name="shipping")
    assert (none.ok, none.content) == (
        False,
        "activate_skill: skill 'shipping' not found: no skills are installed "
        f"({SKILLS}/ holds none)",
    )
    _install(vault)
    out = call("activate_skill", name="not-a-skill")
    assert (out.ok, out.content) == (
        False,
        "activate_skill: skill 'not-a-skill' not found. Installed skills: "
        "meeting-notes: Meeting notes.; "
        "shipping-code-formatter: Format Quill Shipping Company tracking codes.",
    )


def test_names_and_resource_paths_stay_inside_the_skill(
    call: Call, vault: Path, tmp_path: Path
) -> None:
    _install(vault)
    for bad in ("../x", "Shipping", "a--b", "-a", "a/b", "", "x" * 65):
        out = call("activate_skill", name=bad)
        assert not out.ok and out.content.startswith("activate_skill: "), bad
        assert "not a skill name" in out.content or "is required" in out.content, bad
    escape = call(
        "activate_skill", name="shipping-code-formatter", resource_path="../meeting-notes/SKILL.md"
    )
    assert (escape.ok, escape.content) == (
        False,
        "activate_skill: refused: resource_path '../meeting-notes/SKILL.md' leaves the folder "
        "of skill 'shipping-code-formatter'",
    )
    absolute = call("activate_skill", name="shipping-code-formatter", resource_path="/etc/hosts")
    assert not absolute.ok and "is absolute" in absolute.content
    (tmp_path / "evil").mkdir()
    (tmp_path / "evil" / "SKILL.md").write_text("---\nname: evil\n---\nsteal\n")
    (vault / SKILLS / "evil").symlink_to(tmp_path / "evil")
    out = call("activate_skill", name="evil")
    assert not out.ok and out.content.startswith("activate_skill: refused:")
    listed = call("activate_skill", name="zzz").content
    assert "evil" not in listed  # a link out of the vault is not an installed skill
