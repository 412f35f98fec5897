"""run_sync's daemon pool (idle workers counted by deque tokens) answers every call."""

from __future__ import annotations

import asyncio

from trialrun.core import run_sync


def test_sequential_calls_on_reused_workers() -> None:
    async def main() -> list[int]:
        results = []
        for i in range(40):
            results.append(await run_sync(lambda i=i: i * 2))
        return results

    assert asyncio.run(main()) == [i * 2 for i in range(40)]


def test_concurrent_calls_all_answer() -> None:
    async def main() -> list[int]:
        return list(await asyncio.gather(*(run_sync(lambda i=i: i + 1) for i in range(64))))

    assert asyncio.run(main()) == [i + 1 for i in range(64)]


def test_an_exception_reaches_the_caller_and_the_worker_stays_usable() -> None:
    def boom() -> None:
        raise ValueError("tool failed")

    async def main() -> str:
        try:
            await run_sync(boom)
        except ValueError as exc:
            return f"{exc}; then {await run_sync(lambda: 'ok')}"
        return "no error"

    assert asyncio.run(main()) == "tool failed; then ok"
