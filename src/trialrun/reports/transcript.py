"""One trial's transcript for `trialrun show`: roles, tool calls, results, answer, verdicts.

Text from files (model specs, messages, errors) is never read as rich markup.
"""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console
from rich.text import Text

from trialrun.reports._format import seconds_short
from trialrun.rundir import ResultLine, Transcript

MARKS: dict[Any, tuple[str, str]] = {
    True: ("yes", "green"),
    False: ("no", "red"),
    None: ("?", "magenta"),
}
ROLE_STYLES = {"system": "dim", "user": "cyan", "assistant": "green", "tool": "yellow"}


def _clip(text: str, limit: int | None) -> str:
    if limit is None or len(text) <= limit:
        return text
    return text[:limit] + f"… [{len(text) - limit} more chars; --full shows all]"


def _header(line: ResultLine) -> Text:
    return Text.assemble(
        (str(line.task_id), "bold"),
        f" trial {line.trial} · {line.model} · pass ",
        MARKS.get(line.passed, MARKS[None]),
        " · solve ",
        MARKS.get(line.solve, MARKS[None]),
        f" · {line.turns or 0} turns · {seconds_short(line.latency_s)}",
    )


def _message(msg: dict[str, Any], console: Console, truncate: int | None) -> None:
    role = str(msg.get("role", "?"))
    console.rule(Text(role, style=ROLE_STYLES.get(role, "")), align="left")
    content = msg.get("content")
    if role == "tool":
        console.print(_clip(str(content or ""), truncate), highlight=False, markup=False)
        return
    if content:
        limit = truncate if role != "assistant" else None
        console.print(_clip(str(content), limit), highlight=False, markup=False)
    for call in msg.get("tool_calls") or []:
        fn = (call.get("function") if isinstance(call, dict) else None) or {}
        console.print(
            Text.assemble(
                ("→ ", "bold"), (str(fn.get("name", "?")), "bold"), f"({fn.get('arguments')})"
            )
        )


def _verdict(v: dict[str, Any], truncate: int | None) -> Text:
    details = json.dumps(v.get("details") or {}, ensure_ascii=False, default=str)
    passed = v.get("passed")
    return Text.assemble(
        ("✓ " if passed is True else "✗ " if passed is False else "? "),
        (str(v.get("grader")), "bold"),
        " ",
        (_clip(details, truncate), "dim"),
    )


def render_transcript(
    transcript: Transcript, line: ResultLine, console: Console, truncate: int | None = 800
) -> None:
    """A readable transcript; tool results and long messages cut at `truncate` characters
    (None: in full); the assistant's own messages are never cut."""
    console.print(_header(line))
    if line.error is not None:
        error = line.error
        console.print(
            Text.assemble(("error", "red"), f" {error.get('kind')}: {error.get('message')}")
        )
    for msg in transcript.messages:
        _message(msg, console, truncate)
    console.rule("[bold]final answer[/bold]", align="left")
    console.print(transcript.final_text or "(none)", highlight=False, markup=False)
    console.rule("[bold]verdicts[/bold]", align="left")
    for v in line.verdicts:
        console.print(_verdict(v, truncate))
