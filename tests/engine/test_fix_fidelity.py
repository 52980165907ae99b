"""Byte fidelity of --fix (issues 2 and 8): line endings (CRLF, CR, mixed), a UTF-8 BOM, an
encoding cookie with non-ASCII bytes, tabs, no final newline and form feeds survive a fix, and
every byte outside the edited statements stays as it was.

The method: BASE and its exact fixed form EXPECTED are plain LF/UTF-8/spaces text; each
layout is a transformation T of the text, and `--fix` on T(BASE) must write exactly
T(EXPECTED), compared as bytes.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.cli import run_main

BASE = '''"""Realtime activity: a sample for byte fidelity (cafe)."""

import asyncio
import logging

try:
    import uvloop
except ImportError :  # LibCST drops the space before this colon when it prints the tree
    uvloop = None

logger = logging.getLogger(__name__)  # cafe


def helper(value):
    # a comment with cafe, and trailing spaces   
    return {"key": value,   "other": "cafe"}


class Activity:
    def __init__(self, session):
        self._rt_session = session
        self._label = "cafe"

    def other(self):
        return self._label  # cafe

    async def say(self, text):
        ctx = self._rt_session.chat_ctx.copy()  # cafe snapshot
        ctx.add_message(role="user", content=text + " cafe")
        await self._rt_session.update_chat_ctx(ctx)


def tail():
    return (1 +
            2)
'''

EXPECTED = BASE.replace(
    """        self._label = "cafe"
""",
    """        self._label = "cafe"
        self._rt_chat_ctx_lock = asyncio.Lock()
""",
).replace(
    """        ctx = self._rt_session.chat_ctx.copy()  # cafe snapshot
        ctx.add_message(role="user", content=text + " cafe")
        await self._rt_session.update_chat_ctx(ctx)
""",
    """        async with self._rt_chat_ctx_lock:
            ctx = self._rt_session.chat_ctx.copy()  # cafe snapshot
            ctx.add_message(role="user", content=text + " cafe")
            await self._rt_session.update_chat_ctx(ctx)
""",
)


def _utf8(text: str) -> bytes:
    return text.encode("utf-8")


def _tabs(text: str) -> str:
    return re.sub(r"^((?:    )+)", lambda m: "\t" * (len(m.group(1)) // 4), text, flags=re.M)


def _form_feeds(text: str) -> str:
    # a form feed alone on a line between top-level definitions, one at the start of an
    # indented line, one before a comment
    text = text.replace("\n\n\nclass Activity:", "\n\n\x0c\nclass Activity:")
    text = text.replace("\n    def other(self):", "\n\x0c    def other(self):")
    return text.replace("    # a comment", "    \x0c# a comment")


LAYOUTS: dict[str, Callable[[str], bytes]] = {
    "lf": _utf8,
    "crlf": lambda t: _utf8(t.replace("\n", "\r\n")),
    "cr": lambda t: _utf8(t.replace("\n", "\r")),
    "utf8-bom": lambda t: codecs.BOM_UTF8 + _utf8(t),
    "utf8-bom-crlf-cookie": lambda t: codecs.BOM_UTF8 + _utf8(("# -*- coding: utf-8 -*-\n" + t).replace("\n", "\r\n")),
    "latin-1-cookie": lambda t: ("# -*- coding: latin-1 -*-\n" + t.replace("cafe", "caf\xe9 \xa4\xbd")).encode(
        "latin-1"
    ),
    "cp1252-cookie-crlf": lambda t: (
        ("# vim: set fileencoding=cp1252 :\n" + t.replace("cafe", "caf\xe9 \u20ac"))
        .replace("\n", "\r\n")
        .encode("cp1252")
    ),
    "utf8-non-ascii": lambda t: _utf8(t.replace("cafe", "caf\xe9 \u65e5\u672c \U0001f600")),
    "tabs": lambda t: _utf8(_tabs(t)),
    "tabs-crlf": lambda t: _utf8(_tabs(t).replace("\n", "\r\n")),
    "no-final-newline": lambda t: _utf8(t.rstrip("\n")),
    "no-final-newline-crlf": lambda t: _utf8(t.rstrip("\n").replace("\n", "\r\n")),
    "form-feeds": lambda t: _utf8(_form_feeds(t)),
    "form-feeds-crlf": lambda t: _utf8(_form_feeds(t).replace("\n", "\r\n")),
}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_base_sample_is_fixed_as_expected(project: Path) -> None:
    (project / "activity.py").write_text(BASE)
    run = run_main("--no-cache", "--fix", "activity.py")
    assert run.exit_code == 0, run.stderr
    assert (project / "activity.py").read_text() == EXPECTED


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_fix_keeps_every_byte_outside_the_edit(project: Path, layout: str) -> None:
    transform = LAYOUTS[layout]
    original = transform(BASE)
    path = project / "activity.py"
    path.write_bytes(original)
    run = run_main("--no-cache", "--fix", "activity.py")
    assert run.exit_code == 0, run.stderr
    assert "Fixed 1 finding in 1 file." in run.stderr
    assert path.read_bytes() == transform(EXPECTED)
    # and a second run finds nothing to change
    run = run_main("--no-cache", "--fix", "activity.py")
    assert (run.exit_code, run.stdout) == (0, "")
    assert path.read_bytes() == transform(EXPECTED)


@pytest.mark.parametrize("layout", ["crlf", "latin-1-cookie", "utf8-bom", "form-feeds"])
def test_diff_changes_nothing_and_shows_the_edit(project: Path, layout: str) -> None:
    original = LAYOUTS[layout](BASE)
    path = project / "activity.py"
    path.write_bytes(original)
    run = run_main("--no-cache", "--diff", "activity.py")
    assert run.exit_code == 1
    assert path.read_bytes() == original
    added = [line for line in run.stdout.splitlines() if line.startswith("+") and not line.startswith("+++")]
    assert [line[1:].strip() for line in added] == [
        "self._rt_chat_ctx_lock = asyncio.Lock()",
        "async with self._rt_chat_ctx_lock:",
        "ctx = self._rt_session.chat_ctx.copy()  # "
        + ("caf\xe9 \xa4\xbd" if "latin" in layout else "cafe")
        + " snapshot",
        'ctx.add_message(role="user", content=text + " ' + ("caf\xe9 \xa4\xbd" if "latin" in layout else "cafe") + '")',
        "await self._rt_session.update_chat_ctx(ctx)",
    ]


def test_latin_1_stays_latin_1(project: Path) -> None:
    path = project / "activity.py"
    path.write_bytes(LAYOUTS["latin-1-cookie"](BASE))
    run_main("--no-cache", "--fix", "activity.py")
    data = path.read_bytes()
    assert data.startswith(b"# -*- coding: latin-1 -*-\n")
    assert b"caf\xe9 \xa4\xbd" in data and b"\xc3" not in data  # never re-encoded as UTF-8
    assert data.count(b"caf\xe9") == BASE.count("cafe")


def test_mixed_line_endings_are_kept_line_by_line(project: Path) -> None:
    lines = BASE.splitlines(keepends=True)
    mixed = "".join(line.replace("\n", "\r\n") if i % 3 == 1 else line for i, line in enumerate(lines))
    path = project / "activity.py"
    path.write_bytes(mixed.encode())
    run = run_main("--no-cache", "--fix", "activity.py")
    assert run.exit_code == 0, run.stderr
    result = path.read_bytes().decode()
    before = mixed.splitlines(keepends=True)
    after = result.splitlines(keepends=True)
    # every line outside the edited statements is in the result, ending and all, in order
    edited = {
        "        ctx = self._rt_session.chat_ctx.copy()  # cafe snapshot",
        '        ctx.add_message(role="user", content=text + " cafe")',
        "        await self._rt_session.update_chat_ctx(ctx)",
    }
    kept = [line for line in before if line.rstrip("\r\n") not in edited]
    remaining = iter(after)
    assert all(any(line == other for other in remaining) for line in kept)
    assert len(after) == len(before) + 2
    # the edited statements keep their own endings
    for line in before:
        if line.rstrip("\r\n") in edited:
            ending = line[len(line.rstrip("\r\n")) :]
            assert "    " + line.rstrip("\r\n") + ending in after


# -- the fix runner alone, with the test rule RTL801 (its fix renames one call) ------------------------

ODD = (
    codecs.BOM_UTF8
    + b"# -*- coding: utf-8 -*-\r\n"
    + b"import os\r\n"
    + b"\x0c\n"
    + b"if True:\r\n"
    + b" \tx = [1,\t2,\\\r\n      3]   \r\n"
    + b" \trtlint_marker(x,  'caf\xc3\xa9')   # keep me \xe2\x82\xac\r\n"
    + b" \ty = '''\r\n  multi \x0c line\n'''\n"
    + b"\x0c    \n"
    + b"rtlint_marker()\r"
    + b"z = 1  "
)


def test_only_the_fixed_statements_change_in_an_odd_file(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """BOM, cookie, CRLF, LF and CR lines, form feeds, tabs after spaces, a backslash
    continuation, trailing spaces, non-ASCII, no final newline: renaming two calls changes
    exactly those two names."""
    monkeypatch.setenv("RTLINT_EXTRA_RULES", "tests.support.fault_rules")
    compile(ODD, "odd.py", "exec")
    path = project / "odd.py"
    path.write_bytes(ODD)
    run = run_main("--no-cache", "--fix", "--select", "RTL801", "odd.py")
    assert run.exit_code == 0, run.stderr + run.stdout
    assert "Fixed 2 findings in 1 file." in run.stderr
    assert path.read_bytes() == ODD.replace(b"rtlint_marker(", b"rtlint_fixed(")


def test_file_mode_is_kept(project: Path) -> None:
    path = project / "activity.py"
    path.write_text(BASE)
    path.chmod(0o751)
    run_main("--no-cache", "--fix", "activity.py")
    assert path.read_text() == EXPECTED
    assert path.stat().st_mode & 0o7777 == 0o751
