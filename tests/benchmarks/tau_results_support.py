"""τ-bench results files in the published shape (a list of {task_id, trial, reward, info,
traj}), built from the small checkout in taubench_fixture: trajectories whose tool calls
solve or fail the fixture's airline tasks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from trialrun.benchmarks.taubench import TauDomain, load_domain

FIXTURE = Path(__file__).parent / "taubench_fixture"
STOP = "###STOP###"


def airline() -> TauDomain:
    return load_domain(FIXTURE, "airline")


def published_task(task_id: int) -> dict[str, Any]:
    """info.task as τ-bench records it."""
    task = airline().tasks[task_id]
    return {
        "user_id": task.user_id,
        "actions": [{"name": a.name, "kwargs": dict(a.kwargs)} for a in task.actions],
        "instruction": task.instruction,
        "outputs": list(task.outputs),
    }


class Chat:
    """A trajectory: the policy, the user's first message, then agent steps."""

    def __init__(self, opening: str = "Hi, I need help with my booking.") -> None:
        self.messages: list[dict[str, Any]] = [
            {"role": "system", "content": "# Airline Agent Policy"},
            {"role": "user", "content": opening},
        ]
        self._ids = 0

    def call(self, name: str, arguments: dict[str, Any], result: str) -> Chat:
        self._ids += 1
        call_id = f"call_{self._ids}"
        self.messages.append({"content": None, "role": "assistant", "tool_calls": [
            {"function": {"arguments": json.dumps(arguments), "name": name},
             "id": call_id, "type": "function"}]})
        self.messages.append({"role": "tool", "tool_call_id": call_id, "name": name,
                              "content": result})
        return self

    def say(self, text: str, user: str | None = None) -> Chat:
        self.messages.append({"content": text, "role": "assistant"})
        if user is not None:
            self.messages.append({"role": "user", "content": user})
        return self


def entry(task_id: int, trial: int, reward: float, traj: list[dict[str, Any]] | None = None,
          *, ended: bool = True, task: dict[str, Any] | None = None,
          **info: Any) -> dict[str, Any]:
    """One published entry; `ended=False`: cut at τ-bench's step limit (no reward_info)."""
    reward_info = {"reward": reward, "info": {"r_actions": reward, "gt_data_hash": "0" * 64},
                   "actions": []} if ended else None
    return {
        "task_id": task_id,
        "reward": reward,
        "info": {"task": task if task is not None else published_task(task_id % 3),
                 "source": "user", "user_cost": 0.001, "reward_info": reward_info, **info},
        "traj": traj if traj is not None else Chat().say("Done.", STOP).messages,
        "trial": trial,
    }


def write(folder: Path, entries: list[dict[str, Any]], name: str = "gpt-4o-airline.json",
          indent: int | None = 2) -> Path:
    path = folder / name
    path.write_text(json.dumps(entries, indent=indent), encoding="utf-8")
    return path


def booking(**changed: Any) -> dict[str, Any]:
    """Task 0's ground-truth booking, with `changed` arguments."""
    return {**published_task(0)["actions"][0]["kwargs"], **changed}


def solved_trajectories() -> list[tuple[int, float, list[dict[str, Any]]]]:
    """(task_id, the reward τ-bench recorded, trajectory) for the fixture's tasks."""
    book_ok = Chat().call("book_reservation", booking(), '{"reservation_id": "HATHAT"}')
    book_ok.say("Booked.", STOP)
    book_bad = Chat().call("book_reservation", booking(insurance="yes"),
                           "Error: payment amount does not add up")
    book_bad.say("I could not book it.", STOP)
    cancel_ok = Chat().call("get_reservation_details", {"reservation_id": "ZFA04Y"}, "{}")
    cancel_ok.call("cancel_reservation", {"reservation_id": "ZFA04Y"}, "{}")
    cancel_ok.say("Cancelled: $210 will be refunded.", STOP)
    cancel_mute = Chat().call("cancel_reservation", {"reservation_id": "ZFA04Y"}, "{}")
    cancel_mute.say("Your reservation is cancelled.", STOP)
    bags = Chat().call("update_reservation_baggages", {
        "reservation_id": "ZFA04Y", "total_baggages": 2, "nonfree_baggages": 1,
        "payment_id": "gift_card_1027364"}, "{}")
    bags.call("transfer_to_human_agents", {"summary": "bag added"}, "Transfer successful")
    # after the hand-off nothing counts: this call would change the database
    bags.call("cancel_reservation", {"reservation_id": "ZFA04Y"}, "{}")
    return [(0, 1.0, book_ok.messages), (0, 0.0, book_bad.messages),
            (1, 1.0, cancel_ok.messages), (1, 0.0, cancel_mute.messages),
            (2, 1.0, bags.messages)]
