"""Gold files: `judge extract` writes them from a run; humans fill in `human_label`.

```json
{"version": 1, "generated_at": "…", "source": {"run_id", "git_sha", "provider", "model"},
 "tuples": [{"id", "task_id", "user_message", "criteria", "response",
             "automated_verdict": true | false | null, "judge_error", "human_label": null}]}
```
Tuples also carry `model`, `trial` and `judge_model` (where they came from).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from trialrun.analysis._stored import open_run, response_of, user_message_of, verdict_kind
from trialrun.errors import UserError
from trialrun.rundir import JsonLimitError, loads_limited, write_json_atomic


class GoldTuple(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: str
    task_id: str = ""
    user_message: str
    criteria: str
    response: str
    automated_verdict: bool | None = None
    judge_error: str | None = None
    human_label: Literal["YES", "NO"] | None = None

    @field_validator("human_label", mode="before")
    @classmethod
    def _label(cls, value: Any) -> Any:
        if isinstance(value, bool):
            return "YES" if value else "NO"
        if isinstance(value, str):
            value = value.strip().upper()
            return value or None
        return value


class GoldFile(BaseModel):
    model_config = ConfigDict(extra="allow")

    version: Literal[1]
    generated_at: str | None = None
    source: dict[str, Any] = {}
    tuples: list[GoldTuple]


def load_gold(path: Path) -> GoldFile:
    path = Path(path)
    if path.is_dir():
        raise UserError(f"{path}: is a folder; pass the gold file `trialrun judge extract` wrote")
    try:
        data = loads_limited(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(
            f"{path}: gold file not found; make one with `trialrun judge extract`"
        ) from None
    except UnicodeDecodeError:
        raise UserError(f"{path}: not UTF-8 text; pass a gold file (JSON)") from None
    except json.JSONDecodeError as exc:
        raise UserError(
            f"{path}:{exc.lineno}: invalid JSON ({exc.msg}); fix the file or extract it again"
        ) from None
    except JsonLimitError as exc:
        raise UserError(f"{path}:{exc.lineno}: {exc}; fix the file or extract it again") \
            from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read ({exc.strerror})") from None
    if not isinstance(data, dict):
        raise UserError(
            f"{path}: expected a gold file object {{version: 1, tuples: [...]}}, "
            f"got {type(data).__name__}; make one with `trialrun judge extract`"
        )
    try:
        return GoldFile.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "(top level)"
        hint = '; human_label must be "YES", "NO" or null' if "human_label" in where else ""
        raise UserError(f"{path}: {where}: {err['msg']}{hint}") from None


def extract_gold(run_dir: Path) -> dict[str, Any]:
    """One tuple per `judge` verdict in the run's results.jsonl, unlabelled."""
    run_dir = Path(run_dir)
    run, manifest, lines = open_run(run_dir)
    tuples: list[dict[str, Any]] = []
    models: list[str] = []
    for line in lines:
        model = line.model
        if model and model not in models:
            models.append(model)
        for index, verdict in enumerate(line.verdicts):
            if verdict_kind(verdict) != "judge":
                continue
            details = verdict.get("details") or {}
            passed = verdict.get("passed")
            error = (
                details.get("judge_error") or details.get("judge_skipped") or details.get("error")
            )
            tuples.append(
                {
                    "id": f"{line.task_id}/{model}/{line.trial}/{index}",
                    "task_id": line.task_id,
                    "model": model,
                    "trial": line.trial,
                    "judge_model": details.get("judge_model"),
                    "user_message": user_message_of(run, line),
                    "criteria": details.get("criteria") or "",
                    "response": response_of(run, line),
                    "automated_verdict": passed if isinstance(passed, bool) else None,
                    "judge_error": None if isinstance(passed, bool) else error,
                    "human_label": None,
                }
            )
    only = models[0] if len(models) == 1 else None
    return {
        "version": 1,
        "generated_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "source": {
            "run_id": manifest.run_id or run_dir.name,
            "git_sha": manifest.git_sha,
            "provider": only.partition(":")[0] if only else None,
            "model": only,
            "models": models,
        },
        "tuples": tuples,
    }


def write_gold(run_dir: Path, out: Path, *, force: bool = False) -> dict[str, Any]:
    out = Path(out)
    if out.is_dir():
        raise UserError(f"{out}: is a folder; pass a file path for -o, e.g. {out / 'gold.json'}")
    if out.exists() and not force:
        raise UserError(
            f"{out}: already exists and may hold human labels; pass --force to overwrite "
            "or choose another -o path"
        )
    gold = extract_gold(run_dir)
    write_json_atomic(out, gold)
    return gold
