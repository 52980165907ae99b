"""Bounded waits, shared by the LiveKit and the Pipecat scenarios (no framework here): the
events do the ordering, the bound is a safety net that says what did not happen and where
every task was parked."""

from __future__ import annotations

import asyncio
import sys

WAIT = 10.0  # bound on every wait: a safety net, the events below do the ordering


def _await_chain(task: asyncio.Task) -> list[str]:
    """file:line of every coroutine frame a task is parked in, outermost first."""
    out, coro = [], task.get_coro()
    while coro is not None:
        frame = getattr(coro, "cr_frame", None) or getattr(coro, "ag_frame", None)
        if frame is not None:
            out.append(f"{frame.f_code.co_filename}:{frame.f_lineno} {frame.f_code.co_name}")
        coro = getattr(coro, "cr_await", None) or getattr(coro, "ag_await", None) or getattr(coro, "gi_yieldfrom", None)
    return out


def _timed_out(what: str) -> AssertionError:
    # where every task is parked is what explains a scenario that did not progress
    for task in asyncio.all_tasks():
        print(f"task {task.get_name()}:", *_await_chain(task), sep="\n    ", file=sys.stderr)
    return AssertionError(f"timed out waiting for {what}")


async def wait(ev: asyncio.Event, what: str) -> None:
    try:
        await asyncio.wait_for(ev.wait(), WAIT)
    except asyncio.TimeoutError:
        raise _timed_out(what) from None


async def bounded(aw, what: str) -> object:
    try:
        return await asyncio.wait_for(aw, WAIT)
    except asyncio.TimeoutError:
        raise _timed_out(what) from None
