"""Timing: every command runs in its own process; its wall time and the peak resident memory of
the largest process of its tree (`os.wait4`'s rusage covers the child and the descendants it
waited for) are recorded. Commands of a group are paired with the corpus's yardstick run
alternately, Y C1 Y C2 Y ... Y, and each command's ratio is its time over the mean of the
yardstick runs on either side of it; a figure is the median of those per-pair ratios."""

from __future__ import annotations

import os
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path


class CommandFailed(RuntimeError):
    pass


@dataclass
class Command:
    key: str  # short id used by the report
    label: str  # what the table shows
    argv: list[str]
    env: dict[str, str] | None = None
    cwd: Path | None = None
    ok: tuple[int, ...] = (0, 1)  # exit codes that are not a failure (1 = findings)
    before: Callable[[], None] | None = None  # untimed, before every run (e.g. a fresh cache dir)
    check: Callable[[str, str], None] | None = None  # (stdout, stderr) of every run; raises if wrong


@dataclass
class Sample:
    wall: float
    rss_kib: int
    code: int


@dataclass
class Result:
    command: Command
    samples: list[Sample] = field(default_factory=list)
    ratios: list[float] = field(default_factory=list)  # to the yardstick, one per pair

    @property
    def wall(self) -> float:
        return statistics.median(s.wall for s in self.samples)

    @property
    def ratio(self) -> float:
        return statistics.median(self.ratios)

    @property
    def rss_mib(self) -> float:
        return max(s.rss_kib for s in self.samples) / 1024


def run_once(command: Command) -> Sample:
    if command.before is not None:
        command.before()
    env = {**os.environ, **(command.env or {})}
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        process = subprocess.Popen(
            command.argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err, env=env, cwd=command.cwd
        )
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = code = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
    if code not in command.ok:
        raise CommandFailed(f"{command.label}: exit {code}\n$ {' '.join(command.argv)}\n{stderr[-3000:]}")
    if command.check is not None:
        command.check(stdout, stderr)
    return Sample(wall, usage.ru_maxrss, code)


def paired(yardstick: Command, commands: list[Command], rounds: int, log=print) -> tuple[Result, dict[str, Result]]:
    """Y C1 Y C2 ... Y, `rounds` times; returns the yardstick's result and each command's."""
    ys = Result(yardstick)
    results = {c.key: Result(c) for c in commands}
    for _ in range(rounds):
        before = run_once(yardstick)
        ys.samples.append(before)
        for command in commands:
            sample = run_once(command)
            after = run_once(yardstick)
            ys.samples.append(after)
            result = results[command.key]
            result.samples.append(sample)
            result.ratios.append(sample.wall / ((before.wall + after.wall) / 2))
            log(
                f"    {command.label:<44} {sample.wall:7.2f} s  {result.ratios[-1]:6.2f}x Y  "
                f"{sample.rss_kib / 1024:6.1f} MiB"
            )
            before = after
    ys.ratios = [1.0]
    return ys, results


def ratio_between(a: Result, b: Result) -> float:
    """Median over rounds of a's time over b's, where both ran in the same round (close in
    time), so that drift of the machine cancels."""
    return statistics.median(x.wall / y.wall for x, y in zip(a.samples, b.samples))


def linear_fit(xs: list[float], ys: list[float]) -> tuple[float, float, float]:
    """Least squares y = slope * x + intercept; returns (slope, intercept, r squared)."""
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    slope = sxy / sxx
    intercept = my - slope * mx
    ss_res = sum((y - (slope * x + intercept)) ** 2 for x, y in zip(xs, ys))
    ss_tot = sum((y - my) ** 2 for y in ys)
    return slope, intercept, 1 - ss_res / ss_tot if ss_tot else 1.0
