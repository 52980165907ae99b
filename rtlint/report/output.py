"""Output formats: text, json, sarif, github, and --statistics."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import quote

from rtlint import __version__
from rtlint.core.findings import Finding
from rtlint.core.source import split_lines
from rtlint.engine import registry
from rtlint.report import docs, escape


def text(
    findings: Sequence[Finding], show_source: bool = False, sources: dict[str, str] | None = None, color: bool = False
) -> str:
    from rtlint.report.colour import paint

    out = []
    for f in findings:
        mark = paint(" [*]", "fixable", color) if f.fixable == "safe" else ""
        where = paint(escape.text(f"{f.path}:{f.line}:{f.column}:"), "path", color)
        out.append(f"{where} {paint(f.code, 'code', color)} [{f.name}] {escape.text(f.message)}{mark}")
        if show_source and sources and f.path in sources:
            lines = split_lines(sources[f.path])
            if 1 <= f.line <= len(lines):
                line = lines[f.line - 1].rstrip("\r\n")
                # the caret goes under the escaped text, which can be wider than the source
                end = f.end_column - 1 if f.end_line == f.line else len(line)
                shown, offset, width = escape.marked_source_line(line, f.column - 1, end)
                out.append(f"    {shown}")
                out.append("    " + " " * offset + "^" * max(1, width))
    return "".join(line + "\n" for line in out)


def _ordered(findings: Sequence[Finding]) -> list[Finding]:
    # (path, line, column, code): stable across runs, worker counts and cache hits
    return sorted(findings, key=lambda f: f.sort_key)


def _visible(value):
    """A JSON value with every string made valid Unicode (escape.visible)."""
    if isinstance(value, str):
        return escape.visible(value)
    if isinstance(value, list):
        return [_visible(v) for v in value]
    if isinstance(value, dict):
        return {k: _visible(v) for k, v in value.items()}
    return value


def json_report(findings: Sequence[Finding]) -> str:
    return (
        json.dumps(_visible([f.to_json() | {"url": docs.rule_url(f.code)} for f in _ordered(findings)]), indent=2)
        + "\n"
    )


def _escape_github(value: str, property_value: bool = False) -> str:
    return escape.github_property(value) if property_value else escape.github_data(value)


def github(findings: Sequence[Finding]) -> str:
    out = []
    for f in _ordered(findings):
        title = _escape_github(f"{f.code} [{f.name}]", True)
        out.append(
            f"::error file={_escape_github(f.path, True)},line={f.line},col={f.column},"
            f"endLine={f.end_line},endColumn={f.end_column},title={title}::{_escape_github(f.message)}"
        )
    return "".join(line + "\n" for line in out)


def statistics_json(findings: Sequence[Finding]) -> str:
    """--statistics --format json: one object per code, the most frequent first."""
    counts = Counter((f.code, f.name) for f in findings)
    fixable = Counter(f.code for f in findings if f.fixable == "safe")
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    data = [{"code": c, "name": n, "count": k, "fixable": fixable[c], "url": docs.rule_url(c)} for (c, n), k in rows]
    return json.dumps(data, indent=2) + "\n"


def statistics(findings: Sequence[Finding]) -> str:
    counts = Counter((f.code, f.name) for f in findings)
    fixable = Counter(f.code for f in findings if f.fixable == "safe")
    out = []
    for (code, name), count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        mark = " [*]" if fixable[code] else "    "
        out.append(f"{count:5d}\t{code}{mark}\t{name}")
    return "".join(line + "\n" for line in out)


SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SRCROOT = "%SRCROOT%"


def _artifact(path: str) -> dict[str, str]:
    """A SARIF artifactLocation: a relative path becomes a percent-encoded URI under
    %SRCROOT% (the working folder, which display paths are relative to), an absolute one
    a file: URI. GitHub code scanning resolves both against the checkout."""
    if Path(path).is_absolute():
        return {"uri": Path(path).as_uri()}
    # the file name's own bytes, percent-encoded (also those that are not valid UTF-8)
    return {"uri": quote(path.encode("utf-8", "surrogateescape")), "uriBaseId": SRCROOT}


def _region(line: int, column: int, end_line: int, end_column: int) -> dict[str, int]:
    # SARIF regions are 1-based, endColumn exclusive: the same convention as findings
    return {
        "startLine": max(1, line),
        "startColumn": max(1, column),
        "endLine": max(1, end_line),
        "endColumn": max(1, end_column),
    }


def _rule_descriptor(rule: type) -> dict:
    what = " ".join(docs.section(rule, "What it does").split()) or rule.summary
    page = docs.page(rule)
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": what},
        "helpUri": docs.rule_url(rule.code),
        "help": {"text": page, "markdown": page},
        "defaultConfiguration": {"enabled": rule.default_enabled, "level": "error"},
        "properties": {"fixable": rule.fix_availability, "tags": ["concurrency", "realtime"]},
    }


def _engine_descriptor(code: str, name: str) -> dict:
    words = name.replace("-", " ")
    return {
        "id": code,
        "name": name,
        "shortDescription": {"text": words},
        "fullDescription": {"text": docs.ENGINE_PAGES[code]},
        "help": {"text": docs.engine_page(code), "markdown": docs.engine_page(code)},
        "helpUri": docs.rule_url(code),
        "defaultConfiguration": {"level": "error"},
    }


def _sarif_fix(f: Finding) -> dict:
    assert f.fix is not None
    return {
        "description": {"text": f"{f.code} fix ({f.fix.applicability})"},
        "artifactChanges": [
            {
                "artifactLocation": _artifact(f.path),
                "replacements": [
                    {
                        "deletedRegion": _region(e.line, e.column, e.end_line, e.end_column),
                        "insertedContent": {"text": e.content},
                    }
                    for e in f.fix.edits
                ],
            }
        ],
    }


def sarif(findings: Sequence[Finding]) -> str:
    """SARIF 2.1.0 as GitHub code scanning accepts it: every rule described in
    tool.driver.rules, every result pointing at its rule by id and index."""
    descriptors = [_rule_descriptor(rule) for rule in registry.all_rules()]
    descriptors += [_engine_descriptor(code, name) for code, name in registry.ENGINE_CODES.items()]
    index = {d["id"]: i for i, d in enumerate(descriptors)}
    results = []
    for f in _ordered(findings):
        result: dict = {"ruleId": f.code}
        if f.code in index:
            result["ruleIndex"] = index[f.code]
        result["level"] = "error"
        result["message"] = {"text": f.message}
        result["locations"] = [
            {
                "physicalLocation": {
                    "artifactLocation": _artifact(f.path),
                    "region": _region(f.line, f.column, f.end_line, f.end_column),
                }
            }
        ]
        if f.fix is not None:
            result["fixes"] = [_sarif_fix(f)]
        results.append(result)
    run: dict = {
        "tool": {
            "driver": {
                "name": "rtlint",
                "version": __version__,
                "informationUri": "https://github.com/rtlint/rtlint",
                "rules": descriptors,
            }
        },
        # display paths are relative to the working folder; the trailing slash is required
        "originalUriBaseIds": {SRCROOT: {"uri": Path.cwd().as_uri() + "/"}},
        # findings count columns in characters (code points), not SARIF's default UTF-16 units
        "columnKind": "unicodeCodePoints",
        "results": results,
    }
    document = {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}
    return json.dumps(_visible(document), indent=2) + "\n"
