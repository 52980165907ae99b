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
