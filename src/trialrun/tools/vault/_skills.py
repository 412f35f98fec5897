"""`activate_skill`: load a skill's instructions (its SKILL.md without the frontmatter) or
one of its resource files, from `<state folder>/Skills/<name>/` as Scribe lays them out
(the agentskills.io format: a folder per skill, SKILL.md with `name` and `description`).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from trialrun.tools._frontmatter import FrontmatterError, parse_frontmatter, split_frontmatter
from trialrun.tools._tool import ToolContext, ToolError, tool
from trialrun.tools.vault._common import inside, read_text, rel, root_of, walk
from trialrun.tools.vault._state_folder import SKILLS_FOLDER, existing_folder

SKILL_FILE = "SKILL.md"
MAX_NAME_CHARS = 64
_NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")  # lowercase words joined by single hyphens


@dataclass(frozen=True, slots=True)
class SkillEntry:
    name: str  # the folder's name: the name the skill is activated by
    description: str


def _check_name(name: str) -> None:
    if not isinstance(name, str) or not name.strip():
        raise ToolError("activate_skill: name is required: the skill's folder name")
    if len(name) > MAX_NAME_CHARS or not _NAME.match(name):
        raise ToolError(
            f"activate_skill: {name[:80]!r} is not a skill name: lowercase letters, digits and "
            f"single hyphens, at most {MAX_NAME_CHARS} characters (e.g. 'code-review')"
        )


def installed_skills(ctx: ToolContext) -> list[SkillEntry]:
    """Every folder under the skills folder that holds a SKILL.md, by name."""
    folder = existing_folder("activate_skill", ctx, SKILLS_FOLDER)
    if folder is None:
        return []
    out: list[SkillEntry] = []
    for entry, is_dir in walk(root_of(ctx), folder, recursive=False):
        skill_md = Path(entry) / SKILL_FILE
        if not is_dir or not skill_md.is_file():
            continue
        try:
            meta = parse_frontmatter(read_text(skill_md)) or {}
        except (ToolError, FrontmatterError, OSError):
            meta = {}
        about = meta.get("description")
        out.append(SkillEntry(Path(entry).name, about if isinstance(about, str) else ""))
    return out


def _not_found(ctx: ToolContext, name: str) -> ToolError:
    skills = installed_skills(ctx)
    if not skills:
        return ToolError(
            f"activate_skill: skill {name!r} not found: no skills are installed "
            f"({SKILLS_FOLDER}/ holds none)"
        )
    listed = "; ".join(f"{s.name}: {s.description}" if s.description else s.name for s in skills)
    return ToolError(f"activate_skill: skill {name!r} not found. Installed skills: {listed}")


def _resources(ctx: ToolContext, skill_dir: Path) -> list[str]:
    return [
        os.path.relpath(entry, skill_dir).replace(os.sep, "/")
        for entry, is_dir in walk(root_of(ctx), skill_dir)
        if not is_dir and Path(entry) != skill_dir / SKILL_FILE
    ]


def _read(path: Path, shown: str) -> str:
    try:
        return read_text(path)
    except ToolError as exc:
        raise ToolError(f"activate_skill: {shown} is a {exc}") from None


@tool
def activate_skill(ctx: ToolContext, name: str, resource_path: str | None = None) -> str:
    """Load a skill's full instructions, or one resource file of the skill.

    Call it with the skill's name to get its SKILL.md instructions (then follow them), or
    add resource_path to read a file from the skill's folder. Skills live in
    gemini-scribe/Skills/<name>/SKILL.md; an unknown name lists the installed skills.

    Args:
        name: The skill to activate, e.g. "code-review".
        resource_path: Optional file inside the skill's folder, relative to it,
            e.g. "references/REFERENCE.md". Omit it to get the SKILL.md instructions.
    """
    _check_name(name)
    skill_dir = inside("activate_skill", ctx, f"{SKILLS_FOLDER}/{name}", allow_root=False)
    skill_md = skill_dir / SKILL_FILE
    if not skill_dir.is_dir() or not skill_md.is_file():
        raise _not_found(ctx, name)
    resources = _resources(ctx, skill_dir)
    if resource_path:
        if resource_path.startswith("/"):
            raise ToolError(
                f"activate_skill: refused: resource_path {resource_path!r} is absolute; "
                "give it relative to the skill's folder"
            )
        target = inside("activate_skill", ctx, f"{SKILLS_FOLDER}/{name}/{resource_path}")
        if skill_dir not in target.parents:
            raise ToolError(
                f"activate_skill: refused: resource_path {resource_path!r} leaves the folder "
                f"of skill {name!r}"
            )
        if not target.is_file():
            offer = f"; its resources: {', '.join(resources)}" if resources else (
                "; the skill has no resource files"
            )
            raise ToolError(
                f"activate_skill: resource {resource_path!r} not found in skill {name!r}{offer}"
            )
        return _read(target, rel(ctx, target))
    body = split_frontmatter(_read(skill_md, rel(ctx, skill_md))).body.strip()
    lines = [f"Skill {name!r} activated. Follow these instructions:", "", body]
    if resources:
        lines += ["", "Resources (read one with resource_path): " + ", ".join(resources)]
    return "\n".join(lines)
