"""How a pool gives out its items: the costliest first, in tasks of about equal cost."""

from __future__ import annotations

from rtlint.engine import pool


def _square(number: int) -> int:
    return number * number


def test_the_costliest_item_is_given_out_first_and_alone() -> None:
    costs = [10, 10, 500, 10, 40, 10, 10, 200]
    tasks = pool.tasks_by_cost(costs, workers=2, per_worker=4)
    assert tasks[0] == [2]  # the largest starts at once, with nothing queued behind it
    assert tasks[1] == [7]
    order = [index for task in tasks for index in task]
    assert sorted(order) == list(range(len(costs)))  # every item once
    assert [costs[i] for i in order] == sorted(costs, reverse=True)


def test_small_items_are_bundled_up_to_the_budget() -> None:
    tasks = pool.tasks_by_cost([1] * 64, workers=2, per_worker=4)
    assert len(tasks) == 8
    assert all(len(task) == 8 for task in tasks)


def test_a_pool_returns_results_in_item_order_whatever_the_task_order() -> None:
    items = list(range(20))
    tasks = pool.tasks_by_cost([item % 7 + 1 for item in items], workers=2)
    assert pool.run(_square, items, 2, tasks, lambda item, why: None) == [i * i for i in items]


# -- workers end with their parent (issue 25, item 6) ---------------------------------------------

_ORPHANS = """
import os, sys, time
sys.path.insert(0, {repo!r})
from rtlint.engine import pool

def work(item):
    if item == 0:
        return b"x" * (64 << 20)  # blocks in send() until the parent reads it
    time.sleep(120)  # a long lint

print(os.getpid(), flush=True)
pool.run(work, list(range(4)), 2, [[0], [1], [2], [3]], lambda item, why: None)
"""


def _children(pid: int) -> list[int]:
    from pathlib import Path

    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(c) for c in (task / "children").read_text().split()]
    return found


def _alive(pid: int) -> bool:
    from pathlib import Path

    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status  # a zombie has ended (its reaper may not be quick)


def test_workers_end_when_their_parent_is_killed() -> None:
    import os
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    import pytest

    if not Path("/proc/self/task").is_dir():
        pytest.skip("needs /proc to find the workers")
    repo = str(Path(__file__).resolve().parents[2])
    parent = subprocess.Popen([sys.executable, "-c", _ORPHANS.format(repo=repo)], stdout=subprocess.PIPE, text=True)
    workers: list[int] = []
    try:
        assert int(parent.stdout.readline()) == parent.pid
        deadline = time.monotonic() + 30
        while len(workers) < 2 and time.monotonic() < deadline:
            workers = _children(parent.pid)
            time.sleep(0.05)
        assert len(workers) == 2, workers
        time.sleep(1.0)  # the first worker is blocked in send(), the second in its long item
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(10)
        deadline = time.monotonic() + 5
        while any(_alive(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_alive(w) for w in workers), "workers outlived their parent"
    finally:
        for worker in workers:
            try:
                os.kill(worker, signal.SIGKILL)
            except ProcessLookupError:
                pass
        parent.kill()
