"""The model and domain of an imported results file: given (`--model`, `--domain`) or read
from the file name, and which of the two it was (the import says so).

τ-bench's published files are named `<model>-<domain>.json` (`gpt-4o-airline.json`);
its `run.py` writes `<strategy>-<model>-<temperature>_range_…_user-…json`. The provider
is read from the model's name (gpt-/o1/o3/o4 → openai, claude → anthropic, gemini →
gemini); any other model needs `--model PROVIDER:MODEL`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from trialrun.benchmarks.taubench import DOMAINS
from trialrun.benchmarks.taubench_results._convert import Naming
from trialrun.core import model_label
from trialrun.errors import UserError

PROVIDER_PREFIXES = (
    (("gpt-", "o1", "o3", "o4", "chatgpt"), "openai"),
    (("claude",), "anthropic"),
    (("gemini",), "gemini"),
)
_RUN_PY = re.compile(
    r"^(?:tool-calling|act|react|few-shot)-(?P<model>.+?)-[0-9.]+_range_", re.IGNORECASE
)
_DOMAIN_WORD = re.compile(r"(?:^|[-_.])(" + "|".join(DOMAINS) + r")(?=$|[-_.])")


@dataclass(frozen=True, slots=True)
class ImportNaming:
    naming: Naming
    model_from: str  # "--model" or "the file name"
    domain_from: str | None  # "--domain", "the file name"; None: no domain


def _provider(model: str) -> str | None:
    lowered = model.lower()
    for prefixes, provider in PROVIDER_PREFIXES:
        if lowered.startswith(prefixes):
            return provider
    return None


def _model_in_name(stem: str) -> str | None:
    found = _RUN_PY.match(stem)
    if found:
        return found.group("model")
    bare = _DOMAIN_WORD.sub("", stem).strip("-_.")
    return bare or None


def _labelled(model: str, given: bool, path: Path) -> str:
    if ":" in model:
        return model
    provider = _provider(model)
    if provider is None:
        where = f"--model {model}" if given else f"{path.name}: the model {model!r}"
        raise UserError(
            f"{where}: cannot tell its provider; give --model PROVIDER:MODEL "
            f"(e.g. openai-compat:{model})"
        )
    return f"{provider}:{model}"


def name_import(path: Path, model: str | None, domain: str | None,
                split: str = "test") -> ImportNaming:
    """The run's model label and domain, and where each came from."""
    if domain is not None and domain not in DOMAINS:
        raise UserError(f"--domain {domain}: unknown; known: {', '.join(DOMAINS)}")
    stem = path.name.removesuffix(".json")
    if model is not None:
        label, model_from = _labelled(model_label(model), True, path), "--model"
    else:
        found = _model_in_name(stem)
        if found is None:
            raise UserError(f"{path.name}: no model name in the file name; give --model "
                            "PROVIDER:MODEL")
        label, model_from = _labelled(found, False, path), "the file name"
    domain_from: str | None = "--domain" if domain is not None else None
    if domain is None:
        words = _DOMAIN_WORD.findall(stem)
        if words:
            domain, domain_from = words[-1], "the file name"
    return ImportNaming(Naming(label, domain, split), model_from, domain_from)
