"""CPU per trial of a trial's workspace: made, snapshotted, then reused or removed.

One cycle is what a trial does with its workspace when the agent changes nothing: take
a workspace from the task's image (`WorkspaceImages.create`), the "after" snapshot and
its diff, then hand it back for reuse (`give_back`: the next cycle takes it, checks it
and renames it) or remove it (what every trial did before reuse). Both run alternately
in each repetition, so a load change hits both; the ratio reuse/remove is per pair.

    python bench/workspace_cost.py                    # fixtures of 0, 1 and 10 small files
    python bench/workspace_cost.py --files 1 --cycles 5000 --repeats 5

CPU is this process's user + system time (`time.process_time`): most of a make-and-
remove cycle is the kernel's (mkdir, create, unlink, rmdir). A trial that writes to its
workspace is not reused (it is removed and a fresh one made, as before): the "remove"
figure is its cost.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _repeat import Series, add_repeats_arg, paired  # noqa: E402

from trialrun.sandbox import SetupSeed, WorkspaceImages, diff_snapshots  # noqa: E402

NOTE = "The harness overhead benchmark note. Answer: 42.\n"


@dataclass(frozen=True, slots=True)
class _Environment:
    sandbox: str = "workspace"
    fixture_dest: str | None = None
    setup: tuple[SetupSeed, ...] = ()


@dataclass(frozen=True, slots=True)
class _Task:
    task_id: str
    fixture_path: Path | None
    fixtures_root: Path | None = None
    environment: _Environment = field(default_factory=_Environment)


def _cycles(task: _Task, parent: Path, cycles: int, reuse: bool) -> float:
    """CPU µs per cycle over `cycles` cycles (one warm-up cycle not counted)."""
    images = WorkspaceImages()

    def one() -> None:
        ws = images.create(task, parent)
        diff_snapshots(ws.initial_snapshot(), ws.snapshot())
        if not (reuse and images.give_back(ws)):
            ws.remove()

    one()
    started = time.process_time()
    for _ in range(cycles):
        one()
    return (time.process_time() - started) / cycles * 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, action="append",
                        help="files in the fixture (repeatable; default 0, 1 and 10)")
    parser.add_argument("--cycles", type=int, default=3000, help="cycles per measurement")
    add_repeats_arg(parser)
    args = parser.parse_args(argv)
    counts = args.files or [0, 1, 10]
    if any(n < 0 for n in counts) or args.cycles < 1:
        print("workspace_cost: --files must be >= 0 and --cycles >= 1", file=sys.stderr)
        return 2
    lines: list[Series] = []
    with tempfile.TemporaryDirectory(prefix="trialrun-wscost-") as tmp:
        root = Path(tmp)
        for count in counts:
            fixture = root / f"fixture-{count}"
            fixture.mkdir()
            for i in range(count):
                (fixture / f"note{i}.md").write_text(NOTE, encoding="utf-8")
            task = _Task(f"bench-{count}", fixture if count else None)
            parent = root / f"runs-{count}"
            reuse, remove, ratio = paired(
                f"{count} file(s)",
                partial(_cycles, task, parent, args.cycles, reuse=True),
                partial(_cycles, task, parent, args.cycles, reuse=False),
                times=args.repeats, unit="µs",
            )
            reuse.name = f"{count} file(s), reused: CPU per cycle"
            remove.name = f"{count} file(s), removed: CPU per cycle"
            ratio.name = f"{count} file(s), reused/removed, paired"
            lines += [reuse, remove, ratio]
            shutil.rmtree(parent, ignore_errors=True)
    print(f"workspace cycle (make, snapshot, hand back or remove), {args.cycles} cycles each")
    for one in lines:
        print("  " + one.line(".4g"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
