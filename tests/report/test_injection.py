"""Outputs cannot be injected (issue 15): file names and code holding newlines, escapes,
workflow commands, percent-escapes, bidi controls and undecodable bytes go through text,
github, json and sarif. Text shows them escaped; every GitHub line parses, by the runner's
own rules, as one annotation of ours; JSON and SARIF are valid for any file name."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rtlint.core.findings import Finding
from rtlint.report import escape, output
from tests.support.samples import BUGGY, clean_env

INJECTIONS = {
    "newline": "\n::add-mask::hidden\n",
    "cr": "\r::warning::forged",
    "esc": "\x1b[2J\x1b[31mred",
    "command": "::error file=x.py,line=1::forged",
    "percent": "%0A::warning::x%0D%25",
    "bidi": "\u202eevil\u2066",
    "separator": "\u2028\u0085",
    "legacy": "##[error]forged",
    "leading": "  ::error::forged",
}
UNDECODABLE = b"bad\xff\xfe.py"
_CONTROL = re.compile(
    "[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ud800-\udfff]"
)


# -- GitHub's parser, as actions/runner's ActionCommand.TryParseV2 reads a log line ----------


def _unescape(value: str, property_value: bool) -> str:
    pairs = [("%0D", "\r"), ("%0A", "\n")] + ([("%3A", ":"), ("%2C", ",")] if property_value else []) + [("%25", "%")]
    for escaped, plain in pairs:
        value = value.replace(escaped, plain)
    return value


def parse_workflow_command(line: str) -> tuple[str, dict[str, str], str] | None:
    if not line.startswith("::"):
        return None
    end = line.find("::", 2)
    if end < 0:
        return None
    head, data = line[2:end], line[end + 2 :]
    command, _, properties = head.partition(" ")
    parsed = {}
    for item in filter(None, properties.split(",")):
        key, _, value = item.partition("=")
        parsed[key] = _unescape(value, True)
    return command, parsed, _unescape(data, False)


def shown_by_github(value: str) -> str:
    """What an annotation shows: CR and LF kept (GitHub's own escaping carries them), the
    other controls made visible as text output shows them."""
    return escape.controls(value.replace("\r", "\0").replace("\n", "\1")).replace("\\x00", "\r").replace("\\x01", "\n")


def runs_a_command(line: str) -> bool:
    """Whether the runner would take a log line for a workflow command: `::` after the
    white space it trims (TryParseV2), or `##[` anywhere (the legacy TryParse)."""
    return line.lstrip().startswith("::") or "##[" in line


def runner_lines(stdout: str) -> list[str]:
    """Lines as the runner reads them (.NET ReadLine: CR, LF or CRLF end a line)."""
    return [line for line in re.split(r"\r\n|\r|\n", stdout) if line]


# -- the files ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("inject")
    (root / "pyproject.toml").write_text("[tool.rtlint]\n")
    for name, value in INJECTIONS.items():
        (root / f"{name}_{value}.py").write_text(BUGGY)
    with open(os.path.join(os.fsencode(root), UNDECODABLE), "w") as handle:
        handle.write(BUGGY)
    (root / "quotes.py").write_text("".join(f"rtlint_quote('''{v}''')\n" for v in INJECTIONS.values()) + "\n")
    (root / "::add-mask::x.py").write_text(BUGGY)  # a top-level name that is a workflow command
    (root / "esc_line.py").write_text("rtlint_quote(1)  # \x1b[31m\u202e\n")
    return root


def run(tree: Path, *args: str) -> subprocess.CompletedProcess:
    env = clean_env(
        PYTHONIOENCODING="utf-8",
        RTLINT_EXTRA_RULES="tests.support.fault_rules",
        PYTHONPATH=str(Path(__file__).resolve().parents[2]),
    )
    process = subprocess.run(
        [sys.executable, "-m", "rtlint", "--no-cache", *args, "."], cwd=tree, env=env, capture_output=True, timeout=300
    )
    assert b"Traceback" not in process.stderr and b"internal error" not in process.stderr, process.stderr
    return process


@pytest.fixture(scope="module")
def findings(tree: Path) -> list[dict]:
    process = run(tree, "--format", "json")
    return json.loads(process.stdout.decode("utf-8"))


def test_json_is_valid_for_every_name_and_quote(findings: list[dict]) -> None:
    paths = {f["path"] for f in findings}
    assert "bad\\xff\\xfe.py" in paths  # the visible form of the undecodable bytes
    assert {p for p in paths if p.startswith("newline_")} == {
        f"newline_{INJECTIONS['newline']}.py"
    }  # JSON-escaped, intact
    quoted = [f["message"] for f in findings if f["code"] == "RTL807"]
    assert len(quoted) >= len(INJECTIONS)
    for value in [*paths, *quoted]:
        value.encode("utf-8")  # no lone surrogate: valid Unicode, as JSON requires


def test_text_shows_every_control_escaped(tree: Path, findings: list[dict]) -> None:
    stdout = run(tree, "--format", "text", "--show-source").stdout.decode("utf-8")
    lines = stdout.split("\n")[:-1]
    assert not any(_CONTROL.search(line) for line in lines), [line for line in lines if _CONTROL.search(line)]
    # one line per finding plus its source and caret lines: no finding was split or forged
    assert len([line for line in lines if not line.startswith("    ")]) == len(findings)
    assert "bad\\xff\\xfe.py:" in stdout and "\\x1b[31m" in stdout and "\\u202e" in stdout
    assert "newline_\\n::add-mask::hidden\\n.py:" in stdout
    # no line, of findings or of source, is a workflow command
    assert not any(runs_a_command(line) for line in runner_lines(stdout)), stdout
    assert "\\x3a:add-mask::x.py:" in stdout and "##\\x5berror]forged" in stdout


def test_github_lines_are_only_our_annotations(tree: Path, findings: list[dict]) -> None:
    stdout = run(tree, "--format", "github").stdout.decode("utf-8")
    lines = runner_lines(stdout)
    assert len(lines) == len(findings)
    parsed = [parse_workflow_command(line) for line in lines]
    assert all(p is not None and p[0] == "error" for p in parsed), lines
    files = {p[1]["file"] for p in parsed}
    assert files == {shown_by_github(f["path"]) for f in findings}
    for _, properties, data in parsed:
        assert set(properties) == {"file", "line", "col", "endLine", "endColumn", "title"}
        assert not _CONTROL.search(data.replace("\n", "").replace("\r", ""))


def test_sarif_is_valid_for_every_name(tree: Path, findings: list[dict]) -> None:
    document = json.loads(run(tree, "--format", "sarif").stdout.decode("utf-8"))
    results = document["runs"][0]["results"]
    assert len(results) == len(findings)
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results}
    assert "bad%FF%FE.py" in uris  # the file's own bytes, percent-encoded
    assert all(uri.isascii() and " " not in uri and "\n" not in uri for uri in uris)


# -- the escaping functions themselves ------------------------------------------------------


@pytest.mark.parametrize("name", sorted(INJECTIONS))
def test_github_round_trip(name: str) -> None:
    value = INJECTIONS[name]
    finding = Finding("RTL001", "stale-mirror-snapshot", value, 3, 4, 3, 9, path=f"src/{value}.py")
    lines = runner_lines(output.github([finding]))
    assert len(lines) == 1
    command, properties, data = parse_workflow_command(lines[0])
    assert command == "error" and properties["line"] == "3" and properties["title"] == "RTL001 [stale-mirror-snapshot]"
    # what GitHub shows is the value with CR/LF kept (GitHub's own escaping) and the other
    # controls made visible
    visible = shown_by_github(value)
    assert data == visible
    assert properties["file"] == f"src/{visible}.py"


def test_text_escapes() -> None:
    assert escape.text("a\nb\x1b[0m\u202ec\udcff\t") == "a\\nb\\x1b[0m\\u202ec\\xff\\t"
    assert escape.marked_source_line("\tx = '\x1b'", 0, 1) == ("\tx = '\\x1b'", 0, 1)  # a tab stays
    assert escape.visible("caf\u00e9 \udcff\n") == "caf\u00e9 \\xff\n"  # JSON escapes the rest itself


@pytest.mark.parametrize(
    "value, shown",
    [
        ("::add-mask::x", "\\x3a:add-mask::x"),
        ("  \u3000::error::x", "  \u3000\\x3a:error::x"),  # after any white space the runner trims
        ("\t::error::x", "\\t::error::x"),  # a tab shown as \t: no line start
        ("x ##[error]y ###[z", "x ##\\x5berror]y ###\\x5bz"),
        ("a::b", "a::b"),
    ],
)
def test_text_neutralises_workflow_commands(value: str, shown: str) -> None:
    assert escape.text(value) == shown
    assert not runs_a_command(escape.text(value))


@pytest.mark.parametrize(
    "source, line, column, end_column",
    [
        ('x = """\n    ::error::forged"""\n', 2, 5, 12),
        ('x = """\n\t::error::forged"""\n', 2, 2, 4),
        ("x = 1  # ##[error]forged ##[warning]w\n", 1, 12, 20),
        ('x = """\n  ::"""  # \x1b[31m ##[x]\n', 2, 3, 5),
    ],
)
def test_show_source_never_prints_a_command(source: str, line: int, column: int, end_column: int) -> None:
    finding = Finding("RTL001", "stale-mirror-snapshot", "m", line, column, line, end_column, path="a.py")
    lines = output.text([finding], show_source=True, sources={"a.py": source}).splitlines()
    assert len(lines) == 3 and not any(runs_a_command(shown) for shown in lines), lines
    # the caret is under what it marks, in what is shown
    raw = source.splitlines()[line - 1]
    shown, offset, width = escape.marked_source_line(raw, column - 1, end_column - 1)
    assert lines[1] == "    " + shown and lines[2] == "    " + " " * offset + "^" * width
    assert shown.replace("\\x3a", ":").replace("\\x5b", "[").replace("\\x1b", "\x1b") == raw
    marked = raw[column - 1 : end_column - 1]
    assert width == len(marked) + 3 * (marked.count("[") + marked.startswith(":"))


# -- --diff and --show-fixes (issue 25, item 3) ------------------------------------------------

DIFF_NAMES = ["esc_\x1b[2J.py", "nl_\n::add-mask::x.py", 'quote_"\\.py', "legacy_##[error]x.py", "plain.py"]
FIXABLE = 'x = """\n  ::error::forged\n"""\nrtlint_marker(1)\ny = 2\n'
FIXABLE_CONTROL = "x = 1  # \x1b[31m ##[error]forged\nrtlint_marker(1)\n"


def _diff_tree(root: Path, control: bool) -> None:
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "pyproject.toml").write_text("[tool.rtlint]\n")
    for name in DIFF_NAMES:
        (root / name).write_text(FIXABLE)
    if control:
        (root / "control.py").write_text(FIXABLE_CONTROL)
    with open(os.path.join(os.fsencode(root), UNDECODABLE), "w") as handle:
        handle.write(FIXABLE)


def _fixed(root: Path) -> dict[bytes, bytes]:
    names = [name for name in os.listdir(os.fsencode(root)) if name.endswith(b".py")]
    return {name: open(os.path.join(os.fsencode(root), name), "rb").read() for name in names}


def test_diff_shows_no_control_and_still_applies(tmp_path: Path) -> None:
    tree, expected = tmp_path / "tree", tmp_path / "expected"
    _diff_tree(tree, control=False)
    _diff_tree(expected, control=False)
    process = run(tree, "--diff", "--show-fixes")
    stdout = process.stdout.decode("utf-8", "surrogateescape")
    for line in runner_lines(stdout):
        assert not _CONTROL.search(line) and not runs_a_command(line), line
    stderr = process.stderr.decode("utf-8")
    assert not any(_CONTROL.search(line) or runs_a_command(line) for line in runner_lines(stderr)), stderr
    assert "esc_\\x1b[2J.py:" in stderr and "escaped" not in stderr  # --show-fixes: the path escaped
    assert ' "a/quote_\\"\\\\.py"' in stdout and '"a/esc_\\033[2J.py"' in stdout  # quoted as git quotes
    # the patch, read from what was shown, applies with git apply and with patch
    run_fixes = subprocess.run(
        [sys.executable, "-m", "rtlint", "--no-cache", "--fix", "."],
        cwd=expected,
        env=clean_env(
            RTLINT_EXTRA_RULES="tests.support.fault_rules", PYTHONPATH=str(Path(__file__).resolve().parents[2])
        ),
        capture_output=True,
    )
    assert run_fixes.returncode in (0, 1), run_fixes.stderr
    applied = subprocess.run(["git", "apply", "-p1", "-"], cwd=tree, input=process.stdout, capture_output=True)
    assert applied.returncode == 0, applied.stderr
    assert _fixed(tree) == _fixed(expected)
    assert b"rtlint_fixed(1)" in _fixed(tree)[b"plain.py"]


def test_diff_counts_the_lines_it_had_to_escape(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    _diff_tree(tree, control=True)
    process = run(tree, "--diff")
    stdout = process.stdout.decode("utf-8", "surrogateescape")
    assert not any(_CONTROL.search(line) or runs_a_command(line) for line in runner_lines(stdout)), stdout
    assert "\\x1b[31m ##\\x5berror]forged" in stdout
    assert "1 line(s) of the diff hold control characters" in process.stderr.decode()
    # --output-file has the exact patch, which applies
    exact = tmp_path / "fix.patch"
    run(tree, "--diff", "--output-file", str(exact))
    assert "\x1b[31m ##[error]forged" in exact.read_text()
    applied = subprocess.run(["git", "apply", "-p1", str(exact)], cwd=tree, capture_output=True)
    assert applied.returncode == 0, applied.stderr
    assert (tree / "control.py").read_text() == FIXABLE_CONTROL.replace("rtlint_marker", "rtlint_fixed")


@pytest.mark.parametrize(
    "diff",
    [
        "--- a/x.py\n+++ b/x.py\n@@ -1,3 +1,3 @@\n   ::error::x\n-a\n+b\n ::y\n\\ No newline at end of file\n",
        "--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,2 @@\n--- x\n+++ y\n ##[z\n",
        "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\r\n+\x1b\r\n",
    ],
)
def test_escaped_diff_keeps_its_hunks(diff: str, tmp_path: Path) -> None:
    shown, escaped = escape.diff(diff)
    assert not any(runs_a_command(line) or _CONTROL.search(line) for line in shown.splitlines()), shown
    assert escaped == diff.count("##[") + diff.count("\x1b")
    if not escaped:  # what stays exact applies alike
        old = "  ::error::x\na\n::y"
        (tmp_path / "x.py").write_text(old)
        subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
        applied = subprocess.run(["git", "apply", "-"], cwd=tmp_path, input=shown.encode(), capture_output=True)
        assert applied.returncode == 0, applied.stderr
        assert (tmp_path / "x.py").read_text() == old.replace("\na\n", "\nb\n")
