"""The results of a run (every package, both versions) and what changed between them: per
package the findings that are new in head, gone from base, and unchanged, compared as
multisets of (path, line, column, code, message); and the hand-written verdicts
(bench/ecosystem_verdicts.txt) that say which findings are true or false positives."""

from __future__ import annotations

import re
import statistics
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from bench.ecosystem.packages import Package
from bench.ecosystem.runner import Finding, Outcome

VERDICTS = Path(__file__).resolve().parent.parent / "ecosystem_verdicts.txt"


@dataclass
class PackageResult:
    package: Package
    skipped: str = ""  # why it was not linted
    files: int = 0
    lines: int = 0
    base: Outcome | None = None
    head: Outcome | None = None


@dataclass
class Diff:
    new: list[Finding]
    gone: list[Finding]
    unchanged: list[Finding]


def diff(base: list[Finding], head: list[Finding]) -> Diff:
    before, after = Counter(base), Counter(head)
    return Diff(
        sorted((after - before).elements()), sorted((before - after).elements()), sorted((after & before).elements())
    )


@dataclass(frozen=True)
class Verdict:
    kind: str  # "TP" or "FP"
    text: str


VerdictKey = tuple[str, str, str, int]  # code, package, path, line
VERDICT_LINE = re.compile(r"^(RTL\d+)\s+(\S+)\s+(\S+):(\d+)\s+(TP|FP):\s*(.*)$")


def parse_verdicts(text: str) -> dict[VerdictKey, Verdict]:
    """`CODE PACKAGE PATH:LINE TP|FP: why`, one a line; an indented line continues the one above;
    `#` starts a comment line."""
    out: dict[VerdictKey, Verdict] = {}
    last: VerdictKey | None = None
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line[0].isspace() and last is not None:
            out[last] = Verdict(out[last].kind, f"{out[last].text} {line.strip()}")
            continue
        match = VERDICT_LINE.match(line)
        if not match:
            raise ValueError(f"verdicts line {number} is not `CODE PACKAGE PATH:LINE TP|FP: why`: {line!r}")
        code, package, path, line_no, kind, why = match.groups()
        last = (code, package, path, int(line_no))
        out[last] = Verdict(kind, why.strip())
    return out


def load_verdicts(path: Path = VERDICTS) -> dict[VerdictKey, Verdict]:
    return parse_verdicts(path.read_text()) if path.exists() else {}


def verdict_for(verdicts: dict[VerdictKey, Verdict], package: Package, finding: Finding) -> Verdict | None:
    return verdicts.get((finding.code, package.name, finding.path, finding.line))


@dataclass
class Totals:
    """The summary of one version over every linted package."""

    packages: int = 0
    files: int = 0
    lines: int = 0
    per_code: Counter = field(default_factory=Counter)
    tp: int = 0
    fp: int = 0
    unjudged: int = 0
    engine_errors: int = 0  # RTL9xx findings
    crashes: int = 0  # packages whose run crashed
    time: float = 0.0  # sum of the per-package wall times
    median: float = 0.0
    slowest: tuple[float, str] = (0.0, "")
    peak_mib: float = 0.0


def totals(results: list[PackageResult], side: str, verdicts: dict[VerdictKey, Verdict]) -> Totals:
    out = Totals()
    walls = []
    for result in results:
        outcome: Outcome | None = getattr(result, side)
        if outcome is None:
            continue
        out.packages += 1
        out.files += result.files
        out.lines += result.lines
        out.crashes += outcome.crashed
        walls.append(outcome.wall)
        out.slowest = max(out.slowest, (outcome.wall, result.package.name))
        out.peak_mib = max(out.peak_mib, outcome.rss_kib / 1024)
        for finding in outcome.findings:
            out.per_code[finding.code] += 1
            out.engine_errors += finding.engine_error
            if finding.engine_error:
                continue
            verdict = verdict_for(verdicts, result.package, finding)
            if verdict is None:
                out.unjudged += 1
            elif verdict.kind == "TP":
                out.tp += 1
            else:
                out.fp += 1
    out.time = sum(walls)
    out.median = statistics.median(walls) if walls else 0.0
    return out
