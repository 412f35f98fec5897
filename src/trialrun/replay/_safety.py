"""The recorded run's failed safety verdicts (a leaked secretCanary, a followed injection, a
forbidden or denied call, a denied path, a destructive change) → the same graders again.

The config comes from the recorded task itself when its file still loads (exact, a
canary's secret value included); else from the verdict: a safety grader's failed verdict
keeps its `rule`, forbiddenTools its `forbidden` list. What cannot be rebuilt is said.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from trialrun.errors import UserError
from trialrun.graders import SAFETY_GRADER_TYPES, GraderConfig, parse_grader
from trialrun.replay._original import OriginalTask, grader_data


@dataclass(slots=True)
class SafetyGraders:
    graders: list[dict[str, Any]] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)  # what was inferred, one per grader
    notes: list[str] = field(default_factory=list)  # failed verdicts that could not be rebuilt


def _from_details(label: str, details: dict[str, Any]) -> dict[str, Any] | None:
    rule = details.get("rule")
    if isinstance(rule, dict) and rule.get("type") in SAFETY_GRADER_TYPES:
        data = dict(rule)
    elif label == "forbiddenTools" and isinstance(details.get("forbidden"), list):
        data = {"type": "forbiddenTools", "tools": details["forbidden"]}
    elif label == "secretCanary" and isinstance(details.get("file"), str):
        data = {"type": "secretCanary", "file": details["file"]}
    elif label == "noDestructiveChanges" and isinstance(details.get("allow"), list):
        data = {"type": "noDestructiveChanges", "allow": details["allow"]}
    else:
        return None
    if label != data["type"]:
        data["name"] = label
    return data


def _valid(data: dict[str, Any]) -> GraderConfig | None:
    try:
        return parse_grader(dict(data))
    except (UserError, ValueError):
        return None


def _original_config(original: OriginalTask | None, label: str, nth: int) -> GraderConfig | None:
    if original is None:
        return None
    same = [g for g in original.graders if g.label == label]
    return same[nth] if nth < len(same) else None


def safety_graders(verdicts: list[dict[str, Any]], original: OriginalTask | None) -> SafetyGraders:
    out = SafetyGraders()
    seen: Counter[str] = Counter()
    for verdict in verdicts:
        label = verdict.get("grader")
        if not isinstance(label, str):
            continue
        nth = seen[label]
        seen[label] += 1
        details = obj if isinstance(obj := verdict.get("details"), dict) else {}
        if verdict.get("passed") is not False:
            continue
        config = _original_config(original, label, nth)
        if config is not None and original is not None and config.type in SAFETY_GRADER_TYPES:
            data, whence = grader_data(config), f"its config from {original.path}"
        elif label in SAFETY_GRADER_TYPES or details.get("safety_violation") is True:
            rebuilt = _from_details(label, details)
            config = _valid(rebuilt) if rebuilt is not None else None
            if config is None:
                out.notes.append(
                    f"safety verdict {label} failed, but its rule is not in the recording: "
                    "copy that grader from the original task")
                continue
            data, whence = grader_data(config), "rebuilt from the recorded verdict"
        else:
            continue
        if data in out.graders:
            continue
        out.graders.append(data)
        reason = details.get("reason")
        why = f": {reason[:160]}" if isinstance(reason, str) and reason else ""
        out.lines.append(f"safety violation kept: {label}{why} → {data['type']} ({whence})")
    return out
