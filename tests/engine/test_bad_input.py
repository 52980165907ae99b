"""Bad and hostile input (issues 2 and 8): each case gets a clear message, never a traceback,
the run goes on with the other files, time and memory stay bounded, and nothing linted is
ever imported or executed.

Cases that could take the interpreter down (a parser recursing on the C stack) run rtlint
in a subprocess, so a crash shows as a failed assertion, not a dead test session.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.support.cli import Run, run_main
from tests.support.samples import BUGGY, BUGGY_COLUMN, BUGGY_LINE

# A file whose realtime bug sits at the end: the analysis must reach it.
TAIL_BUG = BUGGY.split("\n\n\n", 1)[1]  # the class, without the import
TAIL_BUG_LINE = BUGGY_LINE - 3  # its snapshot line, counted from the class


def cli(*args: str, cwd: Path, timeout: float = 120) -> tuple[Run, float, int]:
    """rtlint in a subprocess: (the run, seconds, peak resident memory in MiB)."""
    probe = (
        "import resource, sys\n"
        "from rtlint.cli import main\n"
        "code = main(sys.argv[1:])\n"
        "sys.stderr.flush()\n"
        "peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024\n"
        "sys.stderr.write(f'\\n@peak-mib {peak}\\n')\n"
        "sys.exit(code)\n"
    )
    start = time.monotonic()
    process = subprocess.run(
        [sys.executable, "-c", probe, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout
    )
    elapsed = time.monotonic() - start
    stderr, _, peak = process.stderr.rpartition("\n@peak-mib ")
    assert peak.strip().isdigit(), (
        f"rtlint did not finish normally (status {process.returncode}):\n{process.stderr[-3000:]}"
    )
    return Run(process.returncode, process.stdout, stderr), elapsed, int(peak)


def assert_no_traceback(run: Run) -> None:
    assert run.exit_code >= 0, f"killed by signal {-run.exit_code}"
    assert "Traceback" not in run.stderr and "internal error" not in run.stderr, run.stderr
    assert "Traceback" not in run.stdout, run.stdout


def finding_lines(run: Run) -> list[str]:
    return [line for line in run.stdout.splitlines() if ": RTL" in line]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


# -- syntax errors -------------------------------------------------------------------------------


def test_syntax_error_is_rtl900_at_the_parser_line_and_the_run_goes_on(project: Path) -> None:
    broken = "def ok():\n    return 1\n\ndef broken(:\n    pass\n"
    (project / "broken.py").write_text(broken)
    (project / "good.py").write_text(BUGGY)
    try:
        compile(broken, "broken.py", "exec")
    except SyntaxError as exc:
        parser_line = exc.lineno
    run = run_main("--no-cache", "broken.py", "good.py")
    assert run.exit_code == 1
    assert f"broken.py:{parser_line}:" in run.stdout
    assert "RTL900 [syntax-error] syntax error: " in run.stdout
    assert f"good.py:{BUGGY_LINE}:{BUGGY_COLUMN}: RTL001 [stale-mirror-snapshot]" in run.stdout
    assert len(finding_lines(run)) == 2


def test_syntax_error_found_by_a_directory_walk_and_never_written(project: Path) -> None:
    # in a folder, a file is parsed when it has a rule's token (the pre-filter); this one has
    broken = BUGGY + "\n    async def broken(self:\n        pass\n"
    (project / "pkg").mkdir()
    (project / "pkg" / "broken.py").write_text(broken)
    (project / "pkg" / "good.py").write_text(BUGGY)
    run = run_main("--no-cache", "--fix", "pkg")
    assert run.exit_code == 1  # the syntax error remains
    assert "pkg/broken.py:" in run.stdout and "RTL900 [syntax-error]" in run.stdout
    assert (project / "pkg" / "broken.py").read_text() == broken
    assert "async with self._rt_chat_ctx_lock:" in (project / "pkg" / "good.py").read_text()
    assert "Fixed 1 finding in 1 file." in run.stderr


# -- files that cannot be read -------------------------------------------------------------------


@pytest.mark.parametrize(
    "content, message",
    [
        (b"x = 1\ny = 2\nz = '\xff\xfe'\n", "cannot decode as utf-8 at line 3: invalid start byte (0xff)"),
        (b"s = '\xe9t\xe9'\n", "cannot decode as utf-8 at line 1: invalid continuation byte (0xe9)"),
        (b"# -*- coding: no-such-codec -*-\nx = 1\n", "bad encoding declaration: unknown encoding: no-such-codec"),
        (b"import os\x00\n", "file contains NUL bytes (binary file?)"),
        (bytes(range(256)) * 4, "file contains NUL bytes (binary file?)"),
        ("x = 'é'\n".encode("utf-16"), "file contains NUL bytes (binary file?)"),
    ],
    ids=["invalid-utf8-line-3", "latin1-without-cookie", "unknown-codec", "nul-byte", "binary", "utf16"],
)
def test_unreadable_content_is_rtl901_and_the_run_goes_on(project: Path, content: bytes, message: str) -> None:
    (project / "bad.py").write_bytes(content)
    (project / "good.py").write_text(BUGGY)
    run = run_main("--no-cache", "--fix", "bad.py", "good.py")
    assert f"bad.py:1:1: RTL901 [unreadable-file] cannot read file: {message}" in run.stdout
    # RTL901 is a finding like RTL900 (exit 1), not an internal error; the other file is fixed
    assert run.exit_code == 1
    assert (project / "bad.py").read_bytes() == content
    assert "async with self._rt_chat_ctx_lock:" in (project / "good.py").read_text()


def test_missing_path_is_a_usage_error_naming_it_and_the_rest_is_linted(project: Path) -> None:
    (project / "good.py").write_text(BUGGY)
    run = run_main("--no-cache", "no_such_file.py", "good.py", "no_such_dir/")
    assert run.exit_code == 2
    assert "rtlint: error: no_such_file.py: no such file or directory" in run.stderr
    assert "rtlint: error: no_such_dir/: no such file or directory" in run.stderr
    assert f"good.py:{BUGGY_LINE}:{BUGGY_COLUMN}: RTL001" in run.stdout


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a chmod 000 file anyway")
def test_unreadable_file_permission(project: Path) -> None:
    secret = project / "secret.py"
    secret.write_text(BUGGY)
    secret.chmod(0)
    (project / "good.py").write_text(BUGGY)
    try:
        run = run_main("--no-cache", "secret.py", "good.py")
    finally:
        secret.chmod(0o644)
    assert "secret.py:1:1: RTL901 [unreadable-file] cannot read file: Permission denied" in run.stdout
    assert f"good.py:{BUGGY_LINE}:{BUGGY_COLUMN}: RTL001" in run.stdout
    assert run.exit_code == 1


def test_unreadable_file_simulated(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same as the chmod 000 case, whoever runs the tests: reading raises EACCES."""
    (project / "secret.py").write_text(BUGGY)
    (project / "good.py").write_text(BUGGY)
    real_open = os.open

    def opened(path, *args, **kwargs) -> int:
        if os.path.basename(path) == "secret.py":
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", opened)
    run = run_main("--no-cache", ".")
    assert "secret.py:1:1: RTL901 [unreadable-file] cannot read file: Permission denied" in run.stdout
    assert f"good.py:{BUGGY_LINE}:{BUGGY_COLUMN}: RTL001" in run.stdout
    assert run.exit_code == 1


# -- symlink loops -------------------------------------------------------------------------------


def test_directory_symlink_loops_are_not_followed(project: Path) -> None:
    tree = project / "tree"
    (tree / "a" / "b").mkdir(parents=True)
    (tree / "a" / "b" / "agent.py").write_text(BUGGY)
    (tree / "a" / "b" / "up").symlink_to("../..", target_is_directory=True)  # a loop through the parent
    (tree / "a" / "here").symlink_to(".", target_is_directory=True)  # a loop onto itself
    (tree / "a" / "nowhere").symlink_to("nowhere")  # a link to itself
    run, elapsed, _ = cli("--no-cache", "tree", cwd=project)
    assert_no_traceback(run)
    assert run.exit_code == 1
    findings = finding_lines(run)
    assert len(findings) == 1  # the file, once, whatever the loops
    assert findings[0].startswith(f"tree/a/b/agent.py:{BUGGY_LINE}:{BUGGY_COLUMN}: RTL001 [stale-mirror-snapshot]")
    assert elapsed < 60


@pytest.mark.parametrize("order", ["loop-first", "loop-second"])
def test_file_symlink_loop_given_explicitly(project: Path, order: str) -> None:
    (project / "good.py").write_text(BUGGY)
    (project / "loop_a.py").symlink_to("loop_b.py")
    (project / "loop_b.py").symlink_to("loop_a.py")
    paths = ["loop_a.py", "good.py"] if order == "loop-first" else ["good.py", "loop_a.py"]
    run, _, _ = cli("--no-cache", *paths, cwd=project)
    assert_no_traceback(run)
    assert run.exit_code == 2
    assert "rtlint: error: loop_a.py: Too many levels of symbolic links" in run.stderr
    assert f"good.py:{BUGGY_LINE}:{BUGGY_COLUMN}: RTL001" in run.stdout


# -- degenerate and huge files -------------------------------------------------------------------


@pytest.mark.parametrize(
    "content",
    [b"", b"\xef\xbb\xbf", b"\n\n\n", b"# only a comment", b"   \t  ", b"\r\n\r\n", b"\x0c"],
    ids=["empty", "bom-only", "blank-lines", "comment-no-newline", "whitespace", "crlf-only", "form-feed"],
)
def test_empty_and_degenerate_files(project: Path, content: bytes) -> None:
    (project / "empty.py").write_bytes(content)
    run = run_main("--no-cache", "--fix", "empty.py")
    assert (run.exit_code, run.stdout) == (0, "")
    assert "All checks passed." in run.stderr
    assert (project / "empty.py").read_bytes() == content


def test_fifty_thousand_lines(project: Path) -> None:
    filler = "".join(f"value_{i} = compute({i}, key='k{i}')  # line {i}\n" for i in range(50_000))
    (project / "long.py").write_text(filler + TAIL_BUG)
    run, elapsed, peak = cli("--no-cache", "long.py", cwd=project)
    assert_no_traceback(run)
    assert run.exit_code == 1
    assert finding_lines(run)[0].startswith(f"long.py:{50_000 + TAIL_BUG_LINE}:{BUGGY_COLUMN}: RTL001")
    assert elapsed < 60 and peak < 1024, (elapsed, peak)


def test_ten_megabyte_file(project: Path) -> None:
    row = "BLOB_{:06d} = '" + "x" * 200 + "'  # a data module, as generated code looks\n"
    rows = 10 * 1024 * 1024 // len(row.format(0)) + 1
    (project / "big.py").write_text("".join(row.format(i) for i in range(rows)) + TAIL_BUG)
    assert (project / "big.py").stat().st_size >= 10 * 1024 * 1024
    run, elapsed, peak = cli("--no-cache", "--fix", "big.py", cwd=project)
    assert_no_traceback(run)
    assert run.exit_code == 0, run.stderr
    assert "Fixed 1 finding in 1 file." in run.stderr
    assert elapsed < 120 and peak < 2048, (elapsed, peak)


@pytest.mark.parametrize("mode, items", [("check", 100_000), ("fix", 25_000)])
def test_one_very_long_line(project: Path, mode: str, items: int) -> None:
    line = "TABLE = [" + ", ".join(f"({i}, 'v{i}')" for i in range(items)) + "]"  # 1.6 MB / 380 KB
    (project / "wide.py").write_text(line + "\n" + TAIL_BUG)
    args = ["--fix"] if mode == "fix" else []
    run, elapsed, peak = cli("--no-cache", *args, "wide.py", cwd=project)
    assert_no_traceback(run)
    if mode == "fix":
        assert run.exit_code == 0, run.stderr
        assert "\n" + line + "\n" in (project / "wide.py").read_text()  # the line itself unchanged
    else:
        assert run.exit_code == 1
        assert finding_lines(run)[0].startswith(f"wide.py:{1 + TAIL_BUG_LINE}:{BUGGY_COLUMN}: RTL001")
    assert elapsed < 120 and peak < 1536, (elapsed, peak)


# shapes of nesting, each a few thousand levels deep: CPython's own parser refuses most (its
# limits), LibCST's native parser would crash the process on them (it recurses on the C stack)
DEEP = {
    "parentheses": lambda n: "x = " + "(" * n + "1" + ")" * n,
    "lists": lambda n: "x = " + "[" * n + "]" * n,
    "calls": lambda n: "x = " + "f(" * n + ")" * n,
    "unary-minus": lambda n: "x = " + "-" * n + "1",
    "not": lambda n: "x = " + "not " * n + "x",
    "additions": lambda n: "x = " + " + ".join(["1"] * n),
    "powers": lambda n: "x = " + " ** ".join(["2"] * n),
    "attributes": lambda n: "x = a" + ".b" * n,
    "subscripts": lambda n: "x = a" + "[0]" * n,
    "call-chain": lambda n: "x = f" + "()" * n,
    "conditional": lambda n: "x = " + "1 if c else " * n + "0",
    "lambdas": lambda n: "x = " + "lambda: " * n + "0",
    "string-concatenation": lambda n: "x = " + " ".join(['"s"'] * n),
    "and-chain": lambda n: "x = " + " and ".join(["a"] * n),
}


@pytest.mark.parametrize("depth", [3_000, 50_000])
@pytest.mark.parametrize("shape", sorted(DEEP))
def test_deeply_nested_expressions(project: Path, shape: str, depth: int) -> None:
    """Before and after a realtime bug, checked and fixed: no crash, a clear message for what
    cannot be parsed or rewritten, and the file either fixed or left byte for byte."""
    deep = DEEP[shape](depth) + "\n"
    original = BUGGY + "\n" + deep
    (project / "deep.py").write_text(original)
    run, elapsed, _ = cli("--no-cache", "--fix", "deep.py", cwd=project)
    assert_no_traceback(run)
    assert elapsed < 60
    after = (project / "deep.py").read_text()
    if "RTL900" in run.stdout:  # the parser's limit: reported at the file, nothing written
        assert run.exit_code == 1
        assert "RTL900 [syntax-error] syntax error: " in run.stdout
        assert any(m in run.stdout for m in ("too deeply nested", "too many nested", "too complex"))
        assert after == original
    elif run.exit_code == 2:  # parsed and analysed, but too deep to rewrite
        assert "RTL001 fix not applied: the file is too deeply nested" in run.stderr
        assert f"deep.py:{BUGGY_LINE}:{BUGGY_COLUMN}: RTL001" in run.stdout
        assert after == original
    else:
        assert run.exit_code == 0 and "Fixed 1 finding in 1 file." in run.stderr
        assert after.endswith("\n" + deep) and "async with self._rt_chat_ctx_lock:" in after


def test_deep_nesting_in_a_file_with_newer_syntax(project: Path) -> None:
    """A syntax error on this interpreter sends the file to LibCST (for newer syntax); deep
    nesting must not crash it there either."""
    (project / "deep.py").write_text("type X = int\nx = " + "(" * 5_000 + ")" * 5_000 + "\n")
    run, _, _ = cli("--no-cache", "deep.py", cwd=project)
    assert_no_traceback(run)
    assert run.exit_code == 1
    assert "deep.py:2:" in run.stdout and "RTL900 [syntax-error]" in run.stdout


def test_compiler_warnings_are_neither_printed_nor_errors(project: Path) -> None:
    """`1(2)` and an invalid escape are warnings, not syntax errors, even under -W error (a
    test suite's filterwarnings = error), and the linted code's warnings are not rtlint's."""
    (project / "warn.py").write_text('x = 1(2)\ny = "\\d"\n' + BUGGY)
    process = subprocess.run(
        [sys.executable, "-W", "error", "-m", "rtlint", "--no-cache", "warn.py"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "RTL900" not in process.stdout, process.stdout
    assert f"warn.py:{BUGGY_LINE + 2}:{BUGGY_COLUMN}: RTL001" in process.stdout
    assert "Warning" not in process.stderr, process.stderr
    assert process.returncode == 1


# -- never imported or executed ------------------------------------------------------------------


def test_linted_code_is_never_imported_or_executed(project: Path) -> None:
    marker = project / "EXECUTED"
    payload = textwrap.dedent(
        f"""
        import pathlib
        pathlib.Path({str(marker)!r}).write_text(__name__)
        """
    )
    pkg = project / "pkg"
    pkg.mkdir()
    for name in ("__init__.py", "evil.py", "conftest.py", "setup.py", "__main__.py", "sitecustomize.py"):
        (pkg / name).write_text(payload + BUGGY)
    (pkg / "user.py").write_text("import evil\nfrom pkg import evil as again\n" + BUGGY)
    (project / "pyproject.toml").write_text('[tool.rtlint]\nselect = ["RTL"]\n')
    for args in (["pkg"], ["--fix", "pkg"], ["--diff", "pkg"], ["--format", "json", "pkg"]):
        run, _, _ = cli("--no-cache", *args, cwd=project)
        assert_no_traceback(run)
        assert not marker.exists(), f"rtlint {' '.join(args)} executed linted code"
    assert run.exit_code == 0  # the last run (after --fix) finds everything fixed


# -- newer syntax --------------------------------------------------------------------------------

NEWER_SYNTAX = {
    "pep695-type-alias": "type Pair[T] = tuple[T, T]\n",
    "pep695-generic-def": "def first[T](items: list[T]) -> T:\n    return items[0]\n",
    "pep695-generic-class": "class Box[T: (int, str), *Ts, **P]:\n    pass\n",
    "pep701-fstring-quotes": "def f(d):\n    return f\"{d[\"key\"]} {'\\n'.join(['a'])}\"\n",
    "pep701-fstring-nested": 'def f(x):\n    return f"{f"{f"{x:>{10}}"}"}"\n',
    "pep701-fstring-multiline": 'def f(x):\n    return f"{\n        x  # a comment inside\n    }"\n',
    "pep758-except-list": "def f():\n    try:\n        pass\n    except ValueError, TypeError:\n        pass\n",
    "pep750-t-string": 'def f(name):\n    return t"hello {name}"\n',
    "except-star": "def f():\n    try:\n        pass\n    except* OSError:\n        pass\n",
}


@pytest.mark.parametrize("feature", sorted(NEWER_SYNTAX))
def test_newer_syntax_parses_and_realtime_bugs_are_still_found(project: Path, feature: str) -> None:
    header = NEWER_SYNTAX[feature]
    text = header + "\n\n" + BUGGY
    (project / "new.py").write_text(text)
    shift = header.count("\n") + 2
    run = run_main("--no-cache", "new.py")
    assert "RTL900" not in run.stdout, run.stdout
    assert finding_lines(run)[0].startswith(f"new.py:{BUGGY_LINE + shift}:{BUGGY_COLUMN}: RTL001")
    assert run.exit_code == 1
    # and the fix applies (LibCST reads the newer syntax), keeping it as it was
    run = run_main("--no-cache", "--fix", "new.py")
    assert run.exit_code == 0, run.stderr
    fixed = (project / "new.py").read_text()
    assert fixed.startswith(header) and "async with self._rt_chat_ctx_lock:" in fixed


def test_newer_syntax_inside_the_method_with_the_bug(project: Path) -> None:
    text = BUGGY.replace(
        '        ctx.add_message(role="user", content=text)\n',
        '        ctx.add_message(role="user", content=f"{text["body"]!r} {\'\\n\'.join(text)}")\n',
    )
    (project / "new.py").write_text(text)
    run = run_main("--no-cache", "new.py")
    assert finding_lines(run) and finding_lines(run)[0].startswith(f"new.py:{BUGGY_LINE}:{BUGGY_COLUMN}: RTL001")
