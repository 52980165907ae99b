"""black on a window (rtlint/fix/formatting.py, _black_window): black is given only the
statements that enclose the fixed lines (inside a class: its header and the members), and
the result rtlint keeps is the same as when black is given the whole file."""

from __future__ import annotations

import ast
import dataclasses
import shutil
import sys
from pathlib import Path

import black
import pytest

from bench.compare_releases import VERSIONS, unpack
from rtlint.core.source import split_lines
from rtlint.fix import formatting
from rtlint.fix.edits import changed_lines
from tests.support.cli import FIXTURES, run_main
from tests.support.wheels import unpacked

pytestmark = pytest.mark.skipif(sys.version_info >= (3, 12), reason="the window is used under Python < 3.12")


def _both(original: str, fixed: str, path: Path, width: int) -> tuple[str | None, str | None]:
    """formatted() with black on windows, and with black on the whole file."""
    windowed = formatting.Formatter("black", path, width, False, {}, True)
    whole = dataclasses.replace(windowed, window=False)
    return formatting.formatted(original, fixed, windowed), formatting.formatted(original, fixed, whole)


def _windowed(fixed: str, original: str, width: int) -> bool:
    regions = formatting._regions(sorted(changed_lines(original, fixed)))
    return formatting._black_window(black, fixed, regions, black.Mode(line_length=width)) is not None


def test_the_releases_fixes_are_formatted_alike(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # every file --fix and --fix --unsafe-fixes change in the seven releases, with a
    # [tool.black]: what formatted() gives on windows is what it gives on the whole file
    calls: dict[tuple[str, str], Path] = {}
    real = formatting.formatted

    def recording(original: str, fixed: str, formatter: formatting.Formatter) -> str | None:
        calls.setdefault((original, fixed), formatter.path)
        return real(original, fixed, formatter)

    monkeypatch.setattr(formatting, "formatted", recording)
    for version in VERSIONS:
        for unsafe in ((), ("--unsafe-fixes",)):
            folder = tmp_path / "corpus"
            shutil.rmtree(folder, ignore_errors=True)
            shutil.copytree(unpack(version) / "livekit", folder / "livekit", symlinks=True)
            (folder / ".git").mkdir()
            (folder / "pyproject.toml").write_text("[tool.black]\nline-length = 100\n")
            run_main("--no-cache", "--jobs", "1", "--fix", *unsafe, str(folder / "livekit"))
    assert len(calls) >= 7
    windowed = 0
    for (original, fixed), path in calls.items():
        window, whole = _both(original, fixed, path, 100)
        assert window == whole, path
        windowed += _windowed(fixed, original, 100)
    assert windowed == len(calls)  # each of them on windows


@pytest.mark.parametrize("width", [60, 88])
def test_the_fixtures_fixes_are_formatted_alike(width: int) -> None:
    windowed = 0
    for fixed_path in sorted(FIXTURES.rglob("*.fixed.py")):
        name = fixed_path.name.replace(".unsafe.fixed.py", ".py").replace(".fixed.py", ".py")
        if not fixed_path.with_name(name).exists():
            continue
        original, fixed = fixed_path.with_name(name).read_text(), fixed_path.read_text()
        if original == fixed:
            continue
        window, whole = _both(original, fixed, fixed_path, width)
        assert window == whole, fixed_path
        windowed += _windowed(fixed, original, width)
    assert windowed >= 20  # fixtures with no f-string, or one statement, take the whole file


def test_lines_changed_across_a_wheel_are_formatted_alike() -> None:
    # every 7th line holding a "(" in the livekit-agents 1.8.8 files (up to 1,000 lines)
    # gets "( ": changed lines black formats, in every kind of statement and member
    windowed = 0
    for path in sorted((unpacked("livekit-agents==1.8.8") / "livekit").rglob("*.py")):
        text = path.read_text()
        lines = split_lines(text)
        if len(lines) > 1000:
            continue
        picked = [
            index
            for index, line in enumerate(lines)
            if "(" in line and not line.lstrip().startswith(("#", '"', "'")) and '"""' not in line and "'''" not in line
        ][::7]
        changed = list(lines)
        for index in picked:
            changed[index] = lines[index].replace("(", "( ", 1)
        fixed = "".join(changed)
        try:
            ast.parse(fixed)
        except SyntaxError:  # a "(" in a string that spans lines
            continue
        if not picked or not _windowed(fixed, text, 88):
            continue
        windowed += 1
        window, whole = _both(text, fixed, path, 88)
        assert window == whole, path
    assert windowed >= 60


def _members(count: int) -> str:
    method = "    def method_{0}(self, value):\n        value = value + {0}\n        return self.call(value)\n\n"
    methods = "".join(method.format(i) for i in range(count))
    return f'import asyncio\n\n\nclass Big:\n    """{{f"x"}}"""\n\n{methods}\nLABEL = f"{{1}}"\n'


@pytest.mark.parametrize(
    ("old", "new", "given"),
    [
        ("value = value + 25", "value = value+25", 1 + 3),  # the member alone
        ("def method_25(self, value):", "def method_25( self,value ):", 1 + 3 + 1 + 3),  # and the one before
        (
            "value = value + 25\n        return self.call(value)",
            "value = value + 25\n        return self.call( value)",
            1 + 3 + 1 + 3,
        ),  # and after
    ],
    ids=["middle line", "first line", "last line"],
)
def test_black_is_given_the_enclosing_members_only(
    monkeypatch: pytest.MonkeyPatch, old: str, new: str, given: int
) -> None:
    # a line changed in the 25th of 50 methods: black is given the class header and the
    # changed member (with its neighbour where the change starts or ends it), not the 210
    # lines of the file
    original = _members(50)
    fixed = original.replace(old, new)
    texts: list[str] = []
    real = black.format_str

    def counting(text: str, **kwargs: object) -> str:
        texts.append(text)
        return real(text, **kwargs)

    monkeypatch.setattr(black, "format_str", counting)
    window, whole = _both(original, fixed, Path("big.py"), 88)
    assert [len(text.splitlines()) for text in texts] == [given, len(fixed.splitlines())]  # window, then whole
    assert window == whole == original


def test_stubs_keep_the_whole_files_blank_lines() -> None:
    # black puts a blank line between a changed stub and the decorator below it: the
    # member after the change is in the window
    original = (
        "class Transport:\n    @abstractmethod\n    async def start(self) -> None: ...\n"
        "    @abstractmethod\n    async def close(self) -> None: ...\n"
        "    @abstractmethod\n    def name(self) -> str: ...\n\n\nLABEL = f'{1}'\n"
    )
    fixed = original.replace("close(self)", "close( self)")
    window, whole = _both(original, fixed, Path("t.py"), 88)
    assert window == whole and "async def close(self) -> None: ...\n\n    @abstractmethod\n" in whole
    assert _windowed(fixed, original, 88)


@pytest.mark.parametrize(
    "change",
    [
        lambda text: text.replace("import asyncio\n", "import asyncio  # fmt: skip\n"),  # fmt: anywhere
        lambda text: text.replace('f"{1}"', '"1"').replace('{f"x"}', "x"),  # no f-string: 3.6+ unknown
        lambda text: text.replace("import asyncio\n", "with a, b:\n    pass\n"),  # maybe parenthesized
    ],
    ids=["fmt comment", "no f-string", "two context managers"],
)
def test_unsure_windows_take_the_whole_file(change) -> None:
    original = change(_members(10))
    fixed = original.replace("return self.call(value, 5)", "return self.call( value,5 )")
    assert not _windowed(fixed, original, 88)
    window, whole = _both(original, fixed, Path("big.py"), 88)
    assert window == whole and window is not None


def test_a_relaxed_decorator_elsewhere_is_a_39_feature() -> None:
    # black would infer 3.9+ from the whole file (a decorator that is not a dotted name),
    # so parenthesized context managers are allowed in the window too
    text = "@x[0]\ndef f():\n    pass\n\n\nlabel = f'{1}'\n"
    versions = formatting._versions(black, ast.parse(text), split_lines(text))
    assert versions is not None and min(v.value for v in versions) == 9
    plain = "label = f'{1}'\n"
    assert min(v.value for v in formatting._versions(black, ast.parse(plain), split_lines(plain))) == 6
