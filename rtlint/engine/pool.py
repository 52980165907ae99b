"""Worker processes for a run, built so that a run always ends.

Each worker gets a few items at a time and sends back one result per item as soon as it has
it, so when a worker dies (the OOM killer, kill -9) the parent knows exactly which item it
was on: that item is given to `lost`, the items it had not started go to another worker,
and the run goes on. Workers keep the default signal handling (a Ctrl-C to the process
group ends them quietly, no traceback); the parent, on KeyboardInterrupt, kills them (they
only compute, they never write) and lets the interrupt go on."""

from __future__ import annotations

import multiprocessing
import signal
from collections import deque
from collections.abc import Callable, Sequence
from multiprocessing.connection import wait
from typing import Any

_HELD = {signal.SIGINT, signal.SIGTERM}


def _context():
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def _end_with_parent(parent: int, inherited: Sequence[int]) -> None:
    """A worker ends when its parent dies, whatever killed it (SIGKILL included): the
    parent's ends of every pipe, inherited at the fork, are closed (else a worker blocked
    in send() to a dead parent waits for ever, its pipe held open by another worker), and a
    watchdog ends the worker once its parent is gone (on Linux, also the parent-death
    signal)."""
    import os
    import threading
    import time

    for fd in inherited:
        try:
            os.close(fd)
        except OSError:
            pass
    try:  # Linux: SIGKILL when the parent dies
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError, ImportError):
        pass

    def watch() -> None:
        while True:
            if os.getppid() != parent:
                os._exit(1)  # the parent is gone (the worker was re-parented)
            time.sleep(0.2)

    if os.getppid() != parent:
        os._exit(1)
    threading.Thread(target=watch, name="rtlint-parent-watchdog", daemon=True).start()


def _worker(
    function: Callable[[Any], Any], items: Sequence[Any], connection, parent: int = 0, inherited: Sequence[int] = ()
) -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _HELD)  # held by the parent around the fork
    if parent:
        _end_with_parent(parent, inherited)
    while True:
        try:
            task = connection.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        for index in task:
            try:
                result = (index, function(items[index]), None)
            except Exception as exc:  # a bug in the engine: an error for this item only
                result = (index, None, f"{type(exc).__name__}: {exc}")
            connection.send(result)


class _Worker:
    def __init__(self, context, function, items, others: Sequence[_Worker] = ()) -> None:
        import os

        self.connection, child = context.Pipe()
        # the parent's ends a forked worker inherits: its own pipe's, and the other workers'
        inherited = [self.connection.fileno()] + [o.connection.fileno() for o in others if not o.connection.closed]
        if context.get_start_method() != "fork":
            inherited = []  # a spawned worker inherits no descriptor
        self.process = context.Process(
            target=_worker, args=(function, items, child, os.getpid(), inherited), daemon=True
        )
        # SIGINT/SIGTERM are held from the fork until the worker has reset its handlers: a
        # signal in between would otherwise run rtlint's own handler in the worker
        held = hasattr(signal, "pthread_sigmask")
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD) if held else None
        try:
            self.process.start()
        finally:
            if held:
                signal.pthread_sigmask(signal.SIG_SETMASK, previous)
            child.close()
        self.task: deque[int] = deque()


def run(
    function: Callable[[Any], Any],
    items: Sequence[Any],
    workers: int,
    tasks: Sequence[Sequence[int]],
    lost: Callable[[Any, str], Any],
) -> list[Any]:
    """[function(item) for item in items] in `workers` processes, the items given out in
    `tasks` (lists of indices, each index once), first to last; an item whose worker died,
    or whose call raised, gets lost(item, why) instead."""
    context = _context()
    results: list[Any] = [None] * len(items)
    pending = deque(list(task) for task in tasks if task)
    busy: dict[Any, _Worker] = {}

    def give(worker: _Worker) -> bool:
        while pending:
            task = pending.popleft()
            try:
                worker.connection.send(task)
            except OSError:  # it died before taking the task: nothing of it was started
                pending.appendleft(task)
                return False
            worker.task = deque(task)
            return True
        return False

    def retire(worker: _Worker) -> None:
        busy.pop(worker.connection, None)
        busy.pop(worker.process.sentinel, None)
        try:
            worker.connection.send(None)
        except OSError:
            pass
        worker.connection.close()

    def started() -> None:
        worker = _Worker(context, function, items, all_workers)
        all_workers.append(worker)
        busy[worker.connection] = worker
        busy[worker.process.sentinel] = worker
        if not give(worker):
            retire(worker)

    all_workers: list[_Worker] = []
    try:
        for _ in range(min(workers, len(pending))):
            started()
        while busy:
            for ready in wait(list(busy)):
                worker = busy.get(ready)
                if worker is None:
                    continue
                if ready is worker.connection:
                    try:
                        index, result, error = worker.connection.recv()
                    except (EOFError, OSError):
                        _dead(worker, busy, results, items, lost, pending)
                        if pending:
                            started()
                        continue
                    results[index] = result if error is None else lost(items[index], f"internal error: {error}")
                    if worker.task and worker.task[0] == index:
                        worker.task.popleft()
                    if not worker.task and not give(worker):
                        retire(worker)
                elif not worker.connection.poll():  # its sentinel: the process ended
                    _dead(worker, busy, results, items, lost, pending)
                    if pending:
                        started()
    finally:
        for worker in all_workers:
            if worker.process.is_alive():
                worker.process.kill()  # workers only compute: killing one loses nothing
        for worker in all_workers:
            worker.process.join(5)
            try:
                worker.connection.close()
            except OSError:
                pass
    return results


def tasks_by_cost(costs: Sequence[int], workers: int, per_worker: int = 8) -> list[list[int]]:
    """The indices of `costs` in tasks, the costliest first (longest processing time first:
    the slowest item starts at once and overlaps the rest), each task costing about
    1/(workers * per_worker) of the total so the last tasks are short and the workers end
    together; an item costlier than that is a task alone."""
    order = sorted(range(len(costs)), key=lambda index: -costs[index])
    budget = max(1, sum(costs) // max(1, workers * per_worker))
    tasks: list[list[int]] = []
    current: list[int] = []
    spent = 0
    for index in order:
        if current and spent + costs[index] > budget:
            tasks.append(current)
            current, spent = [], 0
        current.append(index)
        spent += costs[index]
    if current:
        tasks.append(current)
    return tasks


def _dead(worker: _Worker, busy: dict, results: list, items: Sequence[Any], lost, pending: deque) -> None:
    """The worker ended without finishing its task: the item it was on is lost, the rest of
    its task goes back to the queue."""
    busy.pop(worker.connection, None)
    busy.pop(worker.process.sentinel, None)
    worker.process.join(5)
    code = worker.process.exitcode
    if code is not None and code < 0:
        try:
            how = f"killed by {signal.Signals(-code).name}"
        except ValueError:
            how = f"killed by signal {-code}"
    else:
        how = f"exit status {code}"
    if worker.task:
        current = worker.task.popleft()
        results[current] = lost(items[current], f"the worker process linting it died ({how})")
        if worker.task:
            pending.appendleft(list(worker.task))
    worker.task = deque()
