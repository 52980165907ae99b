"""Small realistic samples and subprocess helpers shared by the integration tests
(flake8, pre-commit, output formats)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

# RTL001 at line 9 (the snapshot), with a safe fix: the class has an __init__ to hold the lock
BUGGY = """import asyncio


class Activity:
    def __init__(self, session):
        self._rt_session = session

    async def say(self, text):
        ctx = self._rt_session.chat_ctx.copy()
        ctx.add_message(role="user", content=text)
        await self._rt_session.update_chat_ctx(ctx)
"""
BUGGY_LINE, BUGGY_COLUMN = 9, 15

# the same, using a session attribute only a [tool.rtlint] vocabulary names
CUSTOM_SESSION = BUGGY.replace("_rt_session", "_voice")

# none of the rules' tokens: the pre-filter must skip it without parsing
TOKENLESS = """def add(a, b):
    return a + b
"""


def clean_env(**extra: str) -> dict[str, str]:
    """The environment minus git's per-repository variables (set when the tests themselves
    run inside a git hook), so subprocesses act on the repositories the tests create."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(extra)
    return env


def run(args: list[str], cwd: Path, timeout: float = 120, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=cwd, env=clean_env(**env), capture_output=True, text=True, timeout=timeout)


def flake8(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    # --isolated: no user or project flake8 configuration changes what is compared
    return run([sys.executable, "-m", "flake8", "--isolated", *args], cwd=cwd)


def rtlint(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return run([sys.executable, "-m", "rtlint", *args], cwd=cwd)


# a class whose pushes are serialized by the push lock, but for one replacement push: RTL004
# at line 16 (with a safe fix)
UNSERIALIZED = """import asyncio


class Activity:
    def __init__(self, session):
        self._rt_session = session
        self._rt_chat_ctx_lock = asyncio.Lock()

    async def say(self, text):
        async with self._rt_chat_ctx_lock:
            ctx = self._rt_session.chat_ctx.copy()
            ctx.add_message(role="user", content=text)
            await self._rt_session.update_chat_ctx(ctx)

    async def replace(self, ctx):
        await self._rt_session.update_chat_ctx(ctx)
"""
UNSERIALIZED_LINE = 16
