"""A .gitignore pattern is matched in linear time (issue 25, item 12): pathspec's
translation of `a*a*...*b` backtracks exponentially on a long name of `a`s; rtlint makes
every star but the last atomic (rtlint.engine.discovery.linear_stars) and matches the
same names."""

from __future__ import annotations

import itertools
import random
import re
import signal
import subprocess
import sys
from pathlib import Path

import pathspec
import pytest

from rtlint.engine.discovery import linear_stars

PATHOLOGICAL = "a*" * 12 + "b"


def _regex(line: str) -> str:
    return pathspec.GitIgnoreSpec.from_lines([line]).patterns[0].regex.pattern


def test_the_pathological_pattern_is_rewritten_and_the_harmless_ones_are_not() -> None:
    assert linear_stars(_regex(PATHOLOGICAL)) != _regex(PATHOLOGICAL)
    for line in ("*.py", "build/", "x*y", "foo/**/bar*", "*[!a]*b*c"):
        assert linear_stars(_regex(line)) == _regex(line), line


def test_the_rewritten_pattern_matches_the_same_names() -> None:
    """Every pattern of stars, `?`, a class and literals over {a, b}, against every name."""
    rng = random.Random(25)
    atoms = ["a", "b", "*", "?", "[ab]", "[b]", "/"]
    names = ["".join(p) for n in range(7) for p in itertools.product("ab/", repeat=n)]
    checked = 0
    for _ in range(300):
        line = "".join(rng.choice(atoms) for _ in range(rng.randint(2, 7))).strip("/") or "a"
        original = re.compile(_regex(line))
        linear = re.compile(linear_stars(_regex(line)))
        for name in names:
            assert bool(original.match(name)) == bool(linear.match(name)), (line, name)
        checked += original.pattern != linear.pattern
    assert checked >= 10  # the rewrite ran on a share of them (20 of 300 with this seed)


def _guarded(seconds: int):
    def hung(signum, frame):
        raise AssertionError(f"a match took over {seconds} s: backtracking is not bounded")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(seconds)
    return previous


@pytest.mark.skipif(sys.platform == "win32", reason="SIGALRM")
def test_a_long_name_against_the_pathological_pattern_does_not_hang(tmp_path: Path) -> None:
    """Before, matching 60 `a`s took hours (30 took about a second): a hang becomes a
    failure here (SIGALRM), not a timed assertion."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text(PATHOLOGICAL + "\n")
    (tmp_path / ("a" * 60 + ".py")).write_text("x = 1\n")
    (tmp_path / ("a" * 30 + "b")).write_text("x = 1\n")
    from rtlint.engine.config import Config
    from rtlint.engine.discovery import discover

    previous = _guarded(20)
    try:
        found = discover([str(tmp_path)], Config(root=tmp_path))
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    names = {Path(target.path).name for target in found.targets}
    assert "a" * 60 + ".py" in names and "a" * 30 + "b" not in names
