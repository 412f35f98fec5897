"""Messages between the driver and its worker processes: length-prefixed pickles over a
socket pair (both ends are this package, started by this package: nothing else speaks it).

driver → worker: `("setup", WorkerSetup)`, then `("run", [(task_id, model, trial), …],
[Task, …])` as slots free up (the tasks of the batch this worker has not been sent yet:
a worker holds only the tasks of its trials), and `("stop",)` (or the socket closing) to
end.
worker → driver: `("ready",)`, then `("done", [(ResultLine, transcript bytes), …])` per
batch of finished trials; `("error", message)` for a one-line user error (setting up, or
preparing a task for its first trial), `("crash", traceback)` for anything else.
"""

from __future__ import annotations

import asyncio
import pickle
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from trialrun.runner._remote import WorkerJob

_HEAD = struct.Struct(">I")


@dataclass(slots=True)
class WorkerSetup:
    """What a worker process needs before its first trial (each task comes with its
    first trial: unpickling a thousand tasks up front cost a worker's start 0.1-0.3 s)."""

    job: WorkerJob
    task_slugs: dict[str, str]
    model_slugs: dict[str, str]
    run_path: Path
    workspace_parent: Path
    in_flight: int  # this worker's share of the trials in flight
    keep_artifacts: bool = False
    sys_path: list[str] = field(default_factory=list)  # the driver's (user agents, tool packs)
    # the tool packs the run's tasks use: an unknown one is a one-line error at start
    tool_packs: list[str] = field(default_factory=list)


def frame(message: Any) -> bytes:
    body = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    return _HEAD.pack(len(body)) + body


async def read_frame(reader: asyncio.StreamReader) -> Any | None:
    """The next message, or None when the other end has closed."""
    try:
        head = await reader.readexactly(_HEAD.size)
        (size,) = _HEAD.unpack(head)
        return pickle.loads(await reader.readexactly(size))  # our own child
    except (asyncio.IncompleteReadError, ConnectionError):
        return None
