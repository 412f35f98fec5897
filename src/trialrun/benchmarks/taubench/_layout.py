"""Where a τ-bench checkout keeps a domain: `tau_bench/envs/<domain>/` with `data/*.json`
(one table per file), the policy `wiki.md` and one task file per split, `tasks_<split>.py`
(airline: test; retail: test, train, dev).

A path that does not hold them is one line naming the path, what is missing and the fix.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from trialrun.errors import UserError

DOMAINS = ("airline", "retail")
CLONE_HINT = "git clone https://github.com/sierra-research/tau-bench"
ENVS = Path("tau_bench") / "envs"


@dataclass(frozen=True, slots=True)
class DomainLayout:
    """The files of one domain and split of a checkout."""

    checkout: Path
    domain: str
    split: str
    folder: Path
    tables: tuple[Path, ...]
    policy: Path
    tasks: Path


def _problem(checkout: Path, what: str) -> UserError:
    return UserError(f"τ-bench checkout {checkout}: {what}; point at a clone ({CLONE_HINT})")


def envs_folder(checkout: Path) -> Path:
    """`tau_bench/envs` of a checkout (the repository root, or its `tau_bench` package)."""
    for folder in (checkout / ENVS, checkout / "envs"):
        if folder.is_dir():
            return folder
    if not checkout.exists():
        raise _problem(checkout, "no such folder")
    raise _problem(checkout, f"no {ENVS}/ folder (not a τ-bench checkout)")


def splits_of(folder: Path) -> list[str]:
    """The task splits a domain folder publishes (`tasks_<split>.py`)."""
    return sorted(p.stem.removeprefix("tasks_") for p in folder.glob("tasks_*.py"))


def locate(checkout: Path | str, domain: str, split: str = "test") -> DomainLayout:
    """The domain's files, each checked to exist."""
    checkout = Path(checkout).expanduser()
    if domain not in DOMAINS:
        raise UserError(f"τ-bench domain {domain!r}: unknown; known: {', '.join(DOMAINS)}")
    folder = envs_folder(checkout) / domain
    rel = folder.relative_to(checkout)
    if not folder.is_dir():
        raise _problem(checkout, f"no {rel}/ folder")
    tables = tuple(sorted((folder / "data").glob("*.json")))
    if not tables:
        raise _problem(checkout, f"no data files ({rel}/data/*.json)")
    policy = folder / "wiki.md"
    if not policy.is_file():
        raise _problem(checkout, f"no policy file ({rel}/wiki.md)")
    tasks = folder / f"tasks_{split}.py"
    if not tasks.is_file():
        published = ", ".join(splits_of(folder)) or "none"
        raise UserError(
            f"τ-bench checkout {checkout}: no {rel}/tasks_{split}.py; {domain} publishes "
            f"the split(s) {published}: pick one of them"
        )
    return DomainLayout(checkout, domain, split, folder, tables, policy, tasks)
