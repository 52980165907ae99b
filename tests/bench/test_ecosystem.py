"""The pure parts of the ecosystem check (bench/ecosystem): the package list's rule, the
comparison of two versions' findings, the verdicts file, crash detection and the markdown
report. Offline and fast: no download, no git."""

from __future__ import annotations

import random
import sys
import textwrap
from pathlib import Path

import pytest

from bench.ecosystem import compare, packages, render, runner
from bench.ecosystem.compare import PackageResult
from bench.ecosystem.packages import Package
from bench.ecosystem.runner import Finding, Outcome
from bench.ecosystem.versions import Version

INDEX = """\
name\tversion\tmonth\trank\tsummary
livekit\t1.2.0\t2026-10\t2228\tthe SDK
livekit-api\t1.2.2\t2026-10\t\tserver API
livekit-protocol\t1.1.29\t2026-10\t\tprotobuf
livekit-agents\t1.8.9\t2026-10\t2335\tA framework
LiveKit_Plugins.Foo\t0.3\t2026-01\t\tmixed case and separators
livekit-empty\t\t2026-01\t\tno version: cannot be pinned
livekitx\t0.1\t2026-01\t\tprefix without a dash still counts
pipecat-ai\t1.14.0\t2026-10\t\tframework
pipecat-ai-whisker\t2.0.1\t2026-08\t\ta pipecat add-on
Pipecat_Memorysync\t1.2.1\t2026-10\t\ta plugin, mixed case
pipecat\t0.3.0\t2017-05\t\tdata logging for sensors: only the prefix is shared
openai-agents\t0.24.0\t2026-10\t700\t
unrelated\t1.0\t2020-01\t\t
"""


def test_derive_applies_the_rule():
    derived = packages.derive(INDEX.splitlines(keepends=True))
    assert [p.pin for p in derived] == [
        "livekit-agents==1.8.9",
        "livekit-plugins-foo==0.3",
        "livekitx==0.1",
        "openai-agents==0.24.0",
        "pipecat-ai==1.14.0",
        "pipecat-ai-whisker==2.0.1",
        "pipecat-memorysync==1.2.1",
    ]


def test_the_header_line_is_not_a_package():
    assert packages.derive(["livekit-x\tversion\n", "livekit-y\t1.0\n"]) == [Package("livekit-y", "1.0")]


def test_list_round_trips_and_rejects_unpinned_names():
    listed = [Package("pipecat-ai", "1.14.0"), Package("livekit-agents", "1.8.9")]
    text = packages.render(listed)
    assert text.startswith("#") and "livekit-protocol" in text  # the rule is stated in the header
    assert packages.parse(text) == sorted(listed)
    with pytest.raises(ValueError, match="not pinned"):
        packages.parse("livekit-agents\n")


def test_the_checked_in_list_follows_the_rule():
    listed = packages.load()
    assert listed and all(packages.wanted(p.name) for p in listed)
    assert not {p.name for p in listed} & packages.SDK
    assert {"livekit-agents", "pipecat-ai", "openai-agents"} <= {p.name for p in listed}
    # every pipecat* package of the index (issue 21), not only the framework
    assert len([p for p in listed if p.name.startswith("pipecat")]) >= 100
    assert "pipecat" not in {p.name for p in listed}


def F(line: int, code: str = "RTL001", path: str = "pkg/a.py", message: str = "m") -> Finding:
    return Finding(path, line, code, message)


def test_diff_is_a_multiset_comparison():
    base = [F(1), F(1), F(5), F(9, "RTL002")]
    head = [F(1), F(5, message="changed"), F(9, "RTL002"), F(12)]
    change = compare.diff(base, head)
    assert change.unchanged == [F(1), F(9, "RTL002")]
    assert change.new == [F(5, message="changed"), F(12)]
    assert change.gone == [F(1), F(5)]


def test_verdicts_parse_with_continuations_and_reject_bad_lines():
    text = textwrap.dedent("""\
        # comment
        RTL001 livekit-agents livekit/agents/voice/agent_activity.py:3456 TP: a push waits for its
          acknowledgement while this snapshot is taken.
        RTL005 some-pkg some/x.py:7 FP: the snapshot is the live object
        """)
    verdicts = compare.parse_verdicts(text)
    assert verdicts[("RTL001", "livekit-agents", "livekit/agents/voice/agent_activity.py", 3456)] == compare.Verdict(
        "TP", "a push waits for its acknowledgement while this snapshot is taken."
    )
    assert verdicts[("RTL005", "some-pkg", "some/x.py", 7)].kind == "FP"
    with pytest.raises(ValueError, match="line 1"):
        compare.parse_verdicts("RTL001 pkg path-without-line TP: x\n")


def test_parse_findings_normalises_paths_and_rejects_non_lists():
    found = runner.parse_findings(
        '[{"path": "./b/x.py", "line": 3, "column": 2, "code": "RTL002", "message": "m"},'
        ' {"path": "a.py", "line": 9, "column": 1, "code": "RTL900", "message": "syntax"}]'
    )
    assert found == [Finding("a.py", 9, "RTL900", "syntax", 1), Finding("b/x.py", 3, "RTL002", "m", 2)]
    assert found[0].engine_error and not found[1].engine_error
    with pytest.raises(ValueError):
        runner.parse_findings('{"path": "x"}')


def _fake_rtlint(tmp_path: Path, body: str) -> Version:
    """A version whose `python -m rtlint` is the given script: the crash paths without rtlint."""
    folder = tmp_path / "import" / "rtlint"
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text("")
    (folder / "__main__.py").write_text(body)
    return Version("fake", "fake", "fake", sys.executable, tmp_path / "import")


@pytest.mark.parametrize(
    "body, crash",
    [
        ("print('[]')", ""),
        ('print(\'[{"path": "x.py", "line": 1, "code": "RTL001", "message": "m"}]\'); raise SystemExit(1)', ""),
        ("raise RuntimeError('boom')", "no JSON findings"),
        ("print('[]'); raise SystemExit(2)", "exit 2"),
        ("import time; time.sleep(30)", "timed out"),
    ],
)
def test_lint_tells_a_crash_from_findings(tmp_path, body, crash):
    version = _fake_rtlint(tmp_path, body)
    config = tmp_path / "config.toml"
    config.write_text("")
    # a long timeout for the runs that end by themselves (the machine is shared), a short one for the hang
    outcome = runner.lint(version, tmp_path, config, timeout=1.5 if "sleep" in body else 60.0)
    assert (crash in outcome.crash) if crash else outcome.crash == ""
    assert outcome.crashed == bool(crash)
    assert outcome.wall < 25 and outcome.rss_kib > 0


def test_an_internal_error_is_a_crash():
    assert Outcome(findings=[F(1, "RTL902")]).crashed and not Outcome(findings=[F(1, "RTL900")]).crashed


def _results() -> list[PackageResult]:
    kept, added, gone = (
        F(10, path="livekit/a.py"),
        F(20, "RTL002", "livekit/a.py", "late | commit"),
        F(30, path="livekit/b.py"),
    )
    return [
        PackageResult(
            Package("livekit-agents", "1.8.9"),
            files=3,
            lines=300,
            base=Outcome([kept, gone], 1.5, 100 * 1024),
            head=Outcome([kept, added], 1.25, 90 * 1024),
        ),
        PackageResult(
            Package("pipecat-ai", "1.0"),
            files=2,
            lines=50,
            base=Outcome([], 0.25, 20 * 1024),
            head=Outcome([F(4, "RTL900", "bad.py", "syntax")], 0.5, 21 * 1024),
        ),
        PackageResult(
            Package("livekit-broken", "0.1"),
            files=1,
            lines=5,
            base=Outcome([], 0.1, 1024),
            head=Outcome([], 120.0, 1024, crash="timed out after 120 s"),
        ),
        PackageResult(Package("livekit-portal", "0.2.8"), skipped="no wheel for this platform"),
    ]


def test_markdown_reports_summary_difference_verdicts_and_errors():
    verdicts = {
        ("RTL001", "livekit-agents", "livekit/a.py", 10): compare.Verdict("TP", "two pushes interleave"),
        ("RTL001", "livekit-agents", "livekit/b.py", 30): compare.Verdict("FP", "gone in head"),
    }
    context = render.Context("`main~1`: abc old", "`HEAD`: def new", "2 cores", "2026-12-01 10:00 UTC", 90.0)
    text = render.markdown(_results(), verdicts, context)
    assert "| packages linted (a wheel) | 3 | 3 |" in text
    assert "| packages skipped (no wheel) | 1 | 1 |" in text
    assert "| Python files | 6 | 6 |" in text
    assert "| findings RTL001 | 2 | 1 |" in text and "| findings RTL002 | 0 | 1 |" in text
    assert "| findings judged TP | 1 | 1 |" in text and "| findings without a verdict | 0 | 1 |" in text
    assert "| findings judged FP | 1 | 0 |" in text
    assert "| RTL9xx (engine errors) | 0 | 1 |" in text and "| packages whose run crashed | 0 | 1 |" in text
    assert "| time, sum over packages (s) | 1.9 | 121.8 |" in text
    assert "| peak memory, largest process (MiB) | 100 | 90 |" in text
    assert "2 new, 1 gone, 1 unchanged." in text
    assert "| livekit-agents==1.8.9 | gone | RTL001 | `livekit/b.py:30` | m |" in text
    assert "| livekit-agents==1.8.9 | new | RTL002 | `livekit/a.py:20` | late \\| commit |" in text  # pipes escaped
    assert "| RTL001 | `livekit/a.py:10` | unchanged | m | **TP**: two pushes interleave |" in text
    assert "| RTL002 | `livekit/a.py:20` | new | late \\| commit | **no verdict yet** |" in text
    assert "- livekit-broken==0.1 (head): crash: timed out after 120 s" in text
    assert "- pipecat-ai==1.0 (head): RTL900 `bad.py:4` syntax" in text
    assert "| livekit-portal==0.2.8 | no wheel for this platform |" in text
    assert "- RTL001 livekit-agents `livekit/b.py:30` (FP)" in text  # a verdict on a finding head no longer reports


def test_markdown_is_deterministic_whatever_the_order_of_results():
    context = render.Context("b", "h", "m", "d", 1.0)
    results = _results()
    expected = render.markdown(results, {}, context)
    random.Random(7).shuffle(results)
    assert render.markdown(results, {}, context) == expected
    # sections appear in order, the skipped package only where it belongs
    sections = [line for line in expected.splitlines() if line.startswith("## ")]
    assert sections == [
        "## Summary",
        "## Difference from base to head",
        "## Findings of head, with verdicts",
        "## RTL9xx and crashes",
        "## Skipped packages",
        "## Time and memory per package",
    ]


def test_every_file_names_each_python_file_and_leaves_out_the_git_marker(tmp_path):
    # the fake rtlint reports one finding per path it was given, so the findings are its arguments
    body = (
        "import json, sys; paths = sys.argv[sys.argv.index('--config') + 2:]\n"
        "print(json.dumps([{'path': p, 'line': 1, 'code': 'RTL001', 'message': 'given'} for p in paths]))"
    )
    version = _fake_rtlint(tmp_path / "fake", body)
    tree = tmp_path / "pkg"
    for name in ("b/mod.py", "a.py", ".git/hook.py", "b/data.txt"):
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        (tree / name).write_text("x = 1\n")
    config = tmp_path / "config.toml"
    config.write_text("")
    assert [f.path for f in runner.lint(version, tree, config, 60.0, every_file=True).findings] == ["a.py", "b/mod.py"]
    assert [f.path for f in runner.lint(version, tree, config, 60.0).findings] == ["."]
    assert runner.count(tree) == (2, 2)


def test_the_checked_in_verdicts_parse_and_name_listed_packages():
    verdicts = compare.load_verdicts()
    listed = {p.name for p in packages.load()} | set(packages.TREES)  # a --tree's verdicts name the tree
    assert verdicts and all(package in listed for _, package, _, _ in verdicts)
    assert all(v.kind in ("TP", "FP") and len(v.text) > 40 for v in verdicts.values())  # a reason, not a bare label


def test_refresh_rewrites_the_list_from_the_index_and_says_what_changed(tmp_path, capsys):
    from bench.ecosystem.__main__ import main

    index, listed = tmp_path / "pypi.tsv", tmp_path / "packages.txt"
    index.write_text(INDEX)
    listed.write_text(packages.render([Package("livekit-agents", "1.8.8"), Package("livekit-gone", "0.1")]))
    assert main(["--refresh", "--index", str(index), "--packages", str(listed)]) == 0
    assert packages.load(listed) == packages.derive(INDEX.splitlines())
    out = capsys.readouterr().out
    assert "+ livekit-agents==1.8.9" in out and "- livekit-agents==1.8.8" in out and "- livekit-gone==0.1" in out


def test_a_local_tree_is_a_package_at_version_local(tmp_path):
    import argparse

    from bench.ecosystem.__main__ import _trees

    parser = argparse.ArgumentParser()
    (tmp_path / "examples").mkdir()
    assert _trees(parser, [f"Pipecat_Examples={tmp_path / 'examples'}"]) == [
        (Package("pipecat-examples", "local"), (tmp_path / "examples").resolve())
    ]
    for bad in ("no-equals", f"x={tmp_path / 'missing'}", f"={tmp_path}"):
        with pytest.raises(SystemExit):
            _trees(parser, [bad])
