"""Output formats: text, json, sarif, github, and --statistics."""

from __future__ import annotations

import json
from collections import Counter
from typing import Sequence

from rtlint import __version__, registry
from rtlint.findings import Finding
from rtlint.source import split_lines

DOCS_URL = "https://github.com/rtlint/rtlint/blob/main/docs/rules.md#{code}"


def text(findings: Sequence[Finding], show_source: bool = False, sources: dict[str, str] | None = None) -> str:
    out = []
    for f in findings:
        mark = " [*]" if f.fixable == "safe" else ""
        out.append(f"{f.path}:{f.line}:{f.column}: {f.code} [{f.name}] {f.message}{mark}")
        if show_source and sources and f.path in sources:
            lines = split_lines(sources[f.path])
            if 1 <= f.line <= len(lines):
                line = lines[f.line - 1].rstrip("\r\n")
                out.append(f"    {line}")
                width = max(1, (f.end_column - f.column) if f.end_line == f.line else len(line) - f.column + 1)
                out.append("    " + " " * (f.column - 1) + "^" * width)
    return "".join(line + "\n" for line in out)


def json_report(findings: Sequence[Finding]) -> str:
    return json.dumps([f.to_json() for f in findings], indent=2) + "\n"


def _escape_github(value: str, property_value: bool = False) -> str:
    value = value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if property_value:
        value = value.replace(":", "%3A").replace(",", "%2C")
    return value


def github(findings: Sequence[Finding]) -> str:
    out = []
    for f in findings:
        title = _escape_github(f"{f.code} [{f.name}]", True)
        out.append(
            f"::error file={_escape_github(f.path, True)},line={f.line},col={f.column},"
            f"endLine={f.end_line},endColumn={f.end_column},title={title}::{_escape_github(f.message)}"
        )
    return "".join(line + "\n" for line in out)


def statistics(findings: Sequence[Finding]) -> str:
    counts = Counter((f.code, f.name) for f in findings)
    fixable = Counter(f.code for f in findings if f.fixable == "safe")
    out = []
    for (code, name), count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        mark = " [*]" if fixable[code] else "    "
        out.append(f"{count:5d}\t{code}{mark}\t{name}")
    return "".join(line + "\n" for line in out)


def sarif(findings: Sequence[Finding]) -> str:
    rules = registry.all_rules()
    descriptors = []
    for rule in rules:
        doc = rule.documentation()
        descriptors.append(
            {
                "id": rule.code,
                "name": rule.name,
                "shortDescription": {"text": rule.summary},
                "fullDescription": {"text": doc.split("\n\n")[0] if doc else rule.summary},
                "help": {"text": doc or rule.summary, "markdown": doc or rule.summary},
                "helpUri": DOCS_URL.format(code=rule.code.lower()),
                "defaultConfiguration": {"level": "error" if rule.default_enabled else "none"},
                "properties": {"fixable": rule.fix_availability},
            }
        )
    for code, name in registry.ENGINE_CODES.items():
        descriptors.append(
            {
                "id": code,
                "name": name,
                "shortDescription": {"text": name.replace("-", " ")},
                "fullDescription": {"text": f"rtlint could not analyse a file ({name.replace('-', ' ')})."},
                "helpUri": DOCS_URL.format(code=code.lower()),
                "defaultConfiguration": {"level": "error"},
            }
        )
    index = {d["id"]: i for i, d in enumerate(descriptors)}
    results = []
    for f in findings:
        result = {
            "ruleId": f.code,
            "ruleIndex": index.get(f.code, 0),
            "level": "error",
            "message": {"text": f.message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": f.path, "uriBaseId": "%SRCROOT%"},
                        "region": {
                            "startLine": f.line,
                            "startColumn": f.column,
                            "endLine": f.end_line,
                            "endColumn": f.end_column,
                        },
                    }
                }
            ],
        }
        if f.fix is not None:
            result["fixes"] = [
                {
                    "description": {"text": f"{f.code} fix ({f.fix.applicability})"},
                    "artifactChanges": [
                        {
                            "artifactLocation": {"uri": f.path, "uriBaseId": "%SRCROOT%"},
                            "replacements": [
                                {
                                    "deletedRegion": {
                                        "startLine": e.line,
                                        "startColumn": e.column,
                                        "endLine": e.end_line,
                                        "endColumn": e.end_column,
                                    },
                                    "insertedContent": {"text": e.content},
                                }
                                for e in f.fix.edits
                            ],
                        }
                    ],
                }
            ]
        results.append(result)
    document = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "rtlint",
                        "version": __version__,
                        "informationUri": "https://github.com/rtlint/rtlint",
                        "rules": descriptors,
                    }
                },
                "results": results,
            }
        ],
    }
    return json.dumps(document, indent=2) + "\n"
