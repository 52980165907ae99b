"""Output formats: SARIF 2.1.0 (as GitHub code scanning reads it), GitHub workflow
commands, JSON and --statistics."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from pathlib import Path
from urllib.parse import unquote, urljoin, urlparse
from urllib.request import url2pathname

import pytest

from rtlint.api import fix_source
from rtlint.core.findings import Edit, Finding, Fix
from rtlint.engine import registry
from rtlint.report import output
from tests.support.cli import run_main
from tests.support.samples import BUGGY, BUGGY_COLUMN, BUGGY_LINE, UNSERIALIZED

SARIF_LEVELS = {"none", "note", "warning", "error"}
JSON_KEYS = {"path", "line", "column", "end_line", "end_column", "code", "name", "message", "fix", "url"}
GITHUB = re.compile(
    r"^::error file=(?P<file>[^,]*),line=(?P<line>\d+),col=(?P<col>\d+),endLine=(?P<endLine>\d+),"
    r"endColumn=(?P<endColumn>\d+),title=(?P<title>RTL\d{3} \[[a-z-]+\])::(?P<message>.*)$"
)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Nine files to analyse (enough for worker processes with --jobs), findings of two
    rules, a path that needs URI escaping, a syntax error and two files the pre-filter
    skips; the working folder is the project."""
    for n in (7, 3, 5, 1, 9, 2):
        (tmp_path / f"agent_{n}.py").write_text(BUGGY)
    spaced = tmp_path / "with space#"
    spaced.mkdir()
    (spaced / "agent.py").write_text(BUGGY)
    (tmp_path / "unserialized.py").write_text(UNSERIALIZED)
    (tmp_path / "broken.py").write_text("self._rt_session.update_chat_ctx(\n")
    (tmp_path / "plain.py").write_text("x = 1\n")
    (tmp_path / "plain2.py").write_text("y = 2\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def check(*args: str) -> tuple[int, str]:
    run = run_main("check", "--no-cache", *args)
    return run.exit_code, run.stdout


# -- SARIF ------------------------------------------------------------------------------


def region_ok(region: dict) -> None:
    assert region["startLine"] >= 1 and region["startColumn"] >= 1
    assert region["endLine"] >= region["startLine"] and region["endColumn"] >= 1
    if region["endLine"] == region["startLine"]:
        assert region["endColumn"] >= region["startColumn"]


def resolve(location: dict, bases: dict) -> Path:
    uri = location["uri"]
    if "uriBaseId" in location:
        assert not urlparse(uri).scheme and not uri.startswith("/"), uri  # relative reference
        base = bases[location["uriBaseId"]]["uri"]
        uri = urljoin(base, uri)
    parsed = urlparse(uri)
    assert parsed.scheme == "file", uri
    return Path(url2pathname(unquote(parsed.path)))


def test_sarif_required_properties(project: Path) -> None:
    code, text = check("--format", "sarif", ".")
    assert code == 1
    log = json.loads(text)
    # sarifLog: version and runs required; $schema lets GitHub and editors validate it
    assert log["version"] == "2.1.0"
    assert log["$schema"].endswith("sarif-2.1.0.json")
    assert isinstance(log["runs"], list) and len(log["runs"]) == 1
    run = log["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "rtlint" and driver["version"]

    # reportingDescriptor: id required; GitHub shows name, descriptions, help and helpUri
    rules = driver["rules"]
    ids = [r["id"] for r in rules]
    assert len(ids) == len(set(ids))
    assert ids == [r.code for r in registry.all_rules()] + list(registry.ENGINE_CODES)
    for descriptor, rule in zip(rules, registry.all_rules()):
        assert descriptor["name"] == rule.name
        assert descriptor["shortDescription"]["text"] == rule.summary
        assert descriptor["fullDescription"]["text"] and "##" not in descriptor["fullDescription"]["text"]
        assert descriptor["help"]["text"] and rule.documentation() in descriptor["help"]["markdown"]
        # no help URI: rtlint has no documentation site; the help text is the whole page
        assert "helpUri" not in descriptor or urlparse(descriptor["helpUri"]).scheme == "https"
        assert descriptor["defaultConfiguration"]["level"] in SARIF_LEVELS
    for descriptor in rules:
        assert descriptor["shortDescription"]["text"] and descriptor["fullDescription"]["text"]

    # originalUriBaseIds: absolute URIs ending in a slash (SARIF 3.14.14)
    bases = run["originalUriBaseIds"]
    for base in bases.values():
        assert base["uri"].startswith("file:///") and base["uri"].endswith("/")
    assert run["columnKind"] == "unicodeCodePoints"

    results = run["results"]
    assert results
    for result in results:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["level"] in SARIF_LEVELS
        assert result["message"]["text"]
        (location,) = result["locations"]
        physical = location["physicalLocation"]
        assert resolve(physical["artifactLocation"], bases).is_file()
        region_ok(physical["region"])
        for fix in result.get("fixes", []):
            assert fix["artifactChanges"]
            for change in fix["artifactChanges"]:
                assert resolve(change["artifactLocation"], bases).is_file()
                assert change["replacements"]
                for replacement in change["replacements"]:
                    region_ok(replacement["deletedRegion"])
                    assert isinstance(replacement["insertedContent"]["text"], str)

    by_file = Counter(resolve(r["locations"][0]["physicalLocation"]["artifactLocation"], bases).name for r in results)
    assert by_file["broken.py"] == 1  # RTL900, described like any rule
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results]
    spaced = [r for r, uri in zip(results, uris) if uri == "with%20space%23/agent.py"]
    assert len(spaced) == 1
    region = spaced[0]["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (BUGGY_LINE, BUGGY_COLUMN)


def apply_replacements(text: str, replacements: list[dict]) -> str:
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(line: int, column: int) -> int:
        return starts[line - 1] + column - 1

    spans = []
    for r in replacements:
        region = r["deletedRegion"]
        start = offset(region["startLine"], region["startColumn"])
        spans.append((start, offset(region["endLine"], region["endColumn"]), r["insertedContent"]["text"]))
    for start, end, content in sorted(spans, reverse=True):
        text = text[:start] + content + text[end:]
    return text


def test_sarif_fix_is_the_fix(project: Path) -> None:
    """Applying a result's `fixes` gives what `rtlint --fix` writes."""
    code, text = check("--format", "sarif", "agent_1.py")
    (result,) = json.loads(text)["runs"][0]["results"]
    (change,) = result["fixes"][0]["artifactChanges"]
    assert apply_replacements(BUGGY, change["replacements"]) == fix_source(BUGGY, "agent_1.py").text


def test_sarif_absolute_path_outside_the_working_folder(
    project: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    elsewhere = tmp_path_factory.mktemp("elsewhere") / "agent.py"
    elsewhere.write_text(BUGGY)
    code, text = check("--format", "sarif", str(elsewhere))
    (result,) = json.loads(text)["runs"][0]["results"]
    location = result["locations"][0]["physicalLocation"]["artifactLocation"]
    assert "uriBaseId" not in location
    assert resolve(location, {}) == elsewhere.resolve()


# -- GitHub -----------------------------------------------------------------------------


def test_github_lines_match_json(project: Path) -> None:
    code, text = check("--format", "github", ".")
    assert code == 1
    _, as_json = check("--format", "json", ".")
    expected = json.loads(as_json)
    lines = text.splitlines()
    assert len(lines) == len(expected)
    for line, finding in zip(lines, expected):
        match = GITHUB.match(line)
        assert match, line
        assert match["file"] == finding["path"].replace(",", "%2C").replace(":", "%3A")
        assert (int(match["line"]), int(match["col"]), int(match["endLine"]), int(match["endColumn"])) == (
            finding["line"],
            finding["column"],
            finding["end_line"],
            finding["end_column"],
        )
        assert match["title"] == f"{finding['code']} [{finding['name']}]"
        assert match["message"] == finding["message"]


def test_github_escaping() -> None:
    # GitHub's toolkit: data escapes % CR LF; properties also : and ,
    finding = Finding("RTL001", "stale-mirror-snapshot", "50% done\r\nnext: a, b", 3, 4, 3, 9, path="src/a,b:c%.py")
    assert output.github([finding]) == (
        "::error file=src/a%2Cb%3Ac%25.py,line=3,col=4,endLine=3,endColumn=9,"
        "title=RTL001 [stale-mirror-snapshot]::50%25 done%0D%0Anext: a, b\n"
    )


# -- JSON -------------------------------------------------------------------------------


def test_json_schema(project: Path) -> None:
    code, text = check("--format", "json", ".")
    assert code == 1
    findings = json.loads(text)
    assert findings
    for f in findings:
        assert set(f) == JSON_KEYS
        assert all(isinstance(f[k], str) for k in ("path", "code", "name", "message"))
        assert all(isinstance(f[k], int) and f[k] >= 1 for k in ("line", "column", "end_line", "end_column"))
        assert re.fullmatch(r"RTL\d{3}", f["code"])
        if f["fix"] is not None:
            assert set(f["fix"]) == {"applicability", "edits"}
            assert f["fix"]["applicability"] in ("safe", "unsafe")
            for edit in f["fix"]["edits"]:
                assert set(edit) == {"line", "column", "end_line", "end_column", "content"}
    codes = {f["code"] for f in findings}
    assert {"RTL001", "RTL004", "RTL900"} <= codes
    assert any(f["fix"] for f in findings)


def test_json_ordering_is_stable(project: Path) -> None:
    _, serial = check("--format", "json", "--jobs", "1", ".")
    _, parallel = check("--format", "json", "--jobs", "4", ".")
    assert serial == parallel
    findings = json.loads(serial)
    keys = [(f["path"], f["line"], f["column"], f["code"]) for f in findings]
    assert keys == sorted(keys)
    assert len({f["path"] for f in findings}) >= 6

    # the formatter orders whatever order it is given
    fields = ("code", "name", "message", "line", "column", "end_line", "end_column", "path")
    objects = [Finding(*(f[k] for k in fields)) for f in findings]
    random.Random(7).shuffle(objects)
    assert [(f["path"], f["line"], f["column"], f["code"]) for f in json.loads(output.json_report(objects))] == keys


def test_json_fix_edits() -> None:
    finding = Finding(
        "RTL001", "stale-mirror-snapshot", "m", 1, 1, 1, 2, "a.py", fix=Fix("safe", (Edit(1, 1, 1, 2, "x"),))
    )
    (data,) = json.loads(output.json_report([finding]))
    edit = {"line": 1, "column": 1, "end_line": 1, "end_column": 2, "content": "x"}
    assert data["fix"] == {"applicability": "safe", "edits": [edit]}


# -- statistics -------------------------------------------------------------------------


def test_statistics_counts_per_code(project: Path) -> None:
    code, text = check("--statistics", ".")
    assert code == 1
    _, as_json = check("--format", "json", ".")
    expected = Counter(f["code"] for f in json.loads(as_json))
    counted = {}
    for line in text.splitlines():
        match = re.fullmatch(r"\s*(\d+)\t(RTL\d{3})( \[\*\]|    )\t([a-z-]+)", line)
        assert match, line
        counted[match[2]] = int(match[1])
        assert match[4] == (registry.ENGINE_CODES.get(match[2]) or registry.rule_by_code(match[2]).name)
    assert counted == dict(expected)
    assert (counted["RTL001"], counted["RTL004"], counted["RTL900"]) == (7, 1, 1)
    assert " [*]" in next(line for line in text.splitlines() if "RTL001" in line)
    # most frequent first
    assert list(counted.values()) == sorted(counted.values(), reverse=True)
