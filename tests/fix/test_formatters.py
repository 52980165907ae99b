"""Fixed code passes the project's own formatter (issue 13), judged by the real tools: the
fixed livekit-agents 1.8.8 and 1.8.9 `agent_activity.py` under LiveKit's ruff settings, and
a small project configured for black."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.cli import run_main
from tests.support.formatters import formatter_bin
from tests.support.wheels import agent_activity

# LiveKit's [tool.ruff] (line-length 100, target py39), as in its repository; and the streams
# LiveKit closes when a response ends, so RTL003's drain is safe and --fix writes every fix
LIVEKIT_RUFF = (
    '[tool.ruff]\nline-length = 100\ntarget-version = "py39"\n'
    '[tool.rtlint]\nending-streams = ["message_stream", "msg_stream"]\n'
)


def _e501(ruff: Path, folder: Path) -> list[str]:
    """The E501 messages of ruff in `folder`, without line numbers (a fix moves lines)."""
    process = subprocess.run(
        [str(ruff), "check", "--no-cache", "--select", "E501", "--output-format", "concise", "."],
        cwd=folder,
        capture_output=True,
        text=True,
    )
    found = re.findall(r"^(\S+?):\d+:\d+: (E501 .*)$", process.stdout, re.M)
    return sorted(f"{path}: {message}" for path, message in found)


def _added_lines(before: str, after: str) -> set[str]:
    import difflib

    old, new = before.splitlines(), after.splitlines()
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    return {line for tag, _, _, j1, j2 in matcher.get_opcodes() if tag != "equal" for line in new[j1:j2]}


@pytest.mark.parametrize("version", ["1.8.8", "1.8.9"])
def test_fixed_livekit_passes_livekits_ruff(tmp_path: Path, version: str) -> None:
    ruff = formatter_bin("ruff")
    pristine, fixed = tmp_path / "pristine", tmp_path / "fixed"
    for folder in (pristine, fixed):
        folder.mkdir()
        (folder / "pyproject.toml").write_text(LIVEKIT_RUFF)
        shutil.copy(agent_activity(version), folder / "agent_activity.py")
    run = run_main("--no-cache", "--fix", str(fixed / "agent_activity.py"))
    assert run.exit_code == 0, run.stderr
    before = (pristine / "agent_activity.py").read_text()
    after = (fixed / "agent_activity.py").read_text()
    added = _added_lines(before, after)
    assert len(added) > 10  # the fixes did happen
    # no E501 the pristine file did not have (ruff's own message names the length)
    assert _e501(ruff, fixed) == _e501(ruff, pristine)
    # `ruff format` would change no line the fix added or moved
    diff = subprocess.run(
        [str(ruff), "format", "--no-cache", "--diff", "agent_activity.py"], cwd=fixed, capture_output=True, text=True
    ).stdout
    removed = {line[1:] for line in diff.splitlines() if line.startswith("-") and not line.startswith("---")}
    assert not (removed & added), sorted(removed & added)


BLACK_PROJECT = '''"""A realtime agent formatted by black at line length 60."""

import asyncio


class Agent:
    def __init__(self, session):
        self._rt_session = session
        self._agent_context = None

    async def add_spoken_message(self, message):
        chat_ctx = self._rt_session.chat_ctx.copy()
        chat_ctx.add_message(
            role="assistant", content=message.spoken_text
        )
        await self._rt_session.update_chat_ctx(chat_ctx)
'''


def test_fixed_code_passes_black_check(tmp_path: Path) -> None:
    black = formatter_bin("black")
    (tmp_path / "pyproject.toml").write_text("[tool.black]\nline-length = 60\n")
    sample = tmp_path / "agent.py"
    sample.write_text(BLACK_PROJECT)
    check = [str(black), "--check", "--quiet", "agent.py"]
    assert subprocess.run(check, cwd=tmp_path).returncode == 0  # formatted before the fix
    run = run_main("--no-cache", "--fix", str(sample))
    assert run.exit_code == 0, run.stderr
    fixed = sample.read_text()
    assert "async with self._rt_chat_ctx_lock:" in fixed
    # re-indented under the lock, the add_message call is 4 longer: broken again to fit 60
    assert '                role="assistant",\n' in fixed
    assert subprocess.run(check, cwd=tmp_path, capture_output=True).returncode == 0, fixed


# Imports a fix adds (`import asyncio` for the lock, `import contextlib` for the undo) sit
# where isort (ruff's `I`) wants them: among the standard library's imports in order, or as
# a section of their own above the third-party ones.
ISORT_CASES = {
    "third-party only": "from livekit.agents import llm\n",
    "stdlib before and after": "import logging\nimport typing\n\nfrom livekit.agents import llm\n",
    "from-imports only": "from dataclasses import dataclass\n\nfrom livekit.agents import llm\n",
}
ISORT_BODY = """

class Agent:
    def __init__(self, session) -> None:
        self._rt_session = session
        self._chat_ctx = llm.ChatContext()

    async def push(self, item) -> None:
        chat_ctx = self._rt_session.chat_ctx.copy()
        chat_ctx.items.append(item)
        await self._rt_session.update_chat_ctx(chat_ctx)
"""


@pytest.mark.parametrize("imports", ISORT_CASES.values(), ids=ISORT_CASES.keys())
def test_added_imports_pass_ruffs_isort(tmp_path: Path, imports: str) -> None:
    ruff = formatter_bin("ruff")
    sample = tmp_path / "agent.py"
    sample.write_text(imports + ISORT_BODY)
    check = [str(ruff), "check", "--no-cache", "--isolated", "--select", "I", "agent.py"]
    assert subprocess.run(check, cwd=tmp_path, capture_output=True).returncode == 0  # sorted before
    run = run_main("--no-cache", "--fix", str(sample))
    assert run.exit_code == 0, run.stderr
    fixed = sample.read_text()
    assert "import asyncio\n" in fixed and "async with self._rt_chat_ctx_lock:" in fixed
    done = subprocess.run(check, cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + fixed
