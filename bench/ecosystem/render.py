"""The report as markdown (bench/ecosystem.md, and printed): the summary of both versions,
the difference from base to head, every finding of head with its verdict, every RTL9xx and
crash, the time and memory of each package, and the packages skipped. Everything is sorted,
so two runs differ only where their results (or timings) differ."""

from __future__ import annotations

from dataclasses import dataclass

from bench.ecosystem.compare import PackageResult, Totals, Verdict, VerdictKey, diff, totals, verdict_for


@dataclass
class Context:
    base: str  # "ref: short commit subject"
    head: str
    machine: str  # cores, CPU, load before and after
    date: str
    elapsed: float  # the whole run, seconds


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _codes(*sides: Totals) -> list[str]:
    return sorted({code for side in sides for code in side.per_code})


def summary(results: list[PackageResult], verdicts: dict[VerdictKey, Verdict]) -> list[str]:
    base, head = totals(results, "base", verdicts), totals(results, "head", verdicts)
    skipped = sum(1 for r in results if r.skipped)
    rows = [
        ("packages in the list", len(results), len(results)),
        ("packages linted (a wheel)", base.packages, head.packages),
        ("packages skipped (no wheel)", skipped, skipped),
        ("Python files", f"{base.files:,}", f"{head.files:,}"),
        ("lines", f"{base.lines:,}", f"{head.lines:,}"),
        *((f"findings {code}", base.per_code[code], head.per_code[code]) for code in _codes(base, head)),
        ("findings judged TP", base.tp, head.tp),
        ("findings judged FP", base.fp, head.fp),
        ("findings without a verdict", base.unjudged, head.unjudged),
        ("RTL9xx (engine errors)", base.engine_errors, head.engine_errors),
        ("packages whose run crashed", base.crashes, head.crashes),
        ("time, sum over packages (s)", f"{base.time:.1f}", f"{head.time:.1f}"),
        ("time, median per package (s)", f"{base.median:.2f}", f"{head.median:.2f}"),
        (
            "time, slowest package (s)",
            f"{base.slowest[0]:.2f} {base.slowest[1]}",
            f"{head.slowest[0]:.2f} {head.slowest[1]}",
        ),
        ("peak memory, largest process (MiB)", f"{base.peak_mib:.0f}", f"{head.peak_mib:.0f}"),
    ]
    return ["| | base | head |", "| --- | ---: | ---: |", *(f"| {name} | {b} | {h} |" for name, b, h in rows)]


def _finding_row(result: PackageResult, finding, status: str, verdicts) -> str:
    verdict = verdict_for(verdicts, result.package, finding)
    judged = (
        f"**{verdict.kind}**: {verdict.text}"
        if verdict
        else ("(engine error)" if finding.engine_error else "**no verdict yet**")
    )
    return (
        f"| {finding.code} | `{finding.path}:{finding.line}` | {status} | {_cell(finding.message)} | {_cell(judged)} |"
    )


def difference(results: list[PackageResult]) -> list[str]:
    lines, counts = [], [0, 0, 0]
    for result in results:
        if result.base is None or result.head is None:
            continue
        change = diff(result.base.findings, result.head.findings)
        counts = [counts[0] + len(change.new), counts[1] + len(change.gone), counts[2] + len(change.unchanged)]
        for status, found in (("new", change.new), ("gone", change.gone)):
            lines += [
                f"| {result.package.pin} | {status} | {f.code} | `{f.path}:{f.line}` | {_cell(f.message)} |"
                for f in found
            ]
    head = [f"{counts[0]} new, {counts[1]} gone, {counts[2]} unchanged.", ""]
    if not lines:
        return head
    return head + ["| package | change | code | where | message |", "| --- | --- | --- | --- | --- |", *lines]


def findings(results: list[PackageResult], verdicts) -> list[str]:
    out = []
    for result in results:
        if result.head is None or not result.head.findings:
            continue
        change = diff(result.base.findings if result.base else [], result.head.findings)
        new = set(change.new)
        out += [
            f"### {result.package.pin}",
            "",
            "| code | where | base → head | message | verdict |",
            "| --- | --- | --- | --- | --- |",
        ]
        out += [_finding_row(result, f, "new" if f in new else "unchanged", verdicts) for f in result.head.findings]
        out.append("")
    return out or ["None.", ""]


def unmatched(results: list[PackageResult], verdicts) -> list[str]:
    """Verdicts on findings head does not report (fixed, or judged on another version): kept, listed."""
    found = {(f.code, r.package.name, f.path, f.line) for r in results if r.head for f in r.head.findings}
    return [
        f"- {code} {package} `{path}:{line}` ({verdicts[(code, package, path, line)].kind})"
        for code, package, path, line in sorted(set(verdicts) - found)
    ] or ["None."]


def errors(results: list[PackageResult]) -> list[str]:
    out = []
    for result in results:
        for side in ("base", "head"):
            outcome = getattr(result, side)
            if outcome is None:
                continue
            if outcome.crash:
                out.append(f"- {result.package.pin} ({side}): crash: {_cell(outcome.crash)}")
            out += [
                f"- {result.package.pin} ({side}): {f.code} `{f.path}:{f.line}` {_cell(f.message)}"
                for f in outcome.findings
                if f.engine_error
            ]
    return out or ["None."]


def timings(results: list[PackageResult]) -> list[str]:
    out = [
        "| package | files | lines | base s | head s | base MiB | head MiB | head findings |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in results:
        if r.base is None or r.head is None:
            continue
        out.append(
            f"| {r.package.pin} | {r.files} | {r.lines:,} | {r.base.wall:.2f} | {r.head.wall:.2f} | "
            f"{r.base.rss_kib / 1024:.0f} | {r.head.rss_kib / 1024:.0f} | {len(r.head.findings)} |"
        )
    return out


def markdown(results: list[PackageResult], verdicts: dict[VerdictKey, Verdict], context: Context) -> str:
    results = sorted(results, key=lambda r: r.package)
    skipped = [f"| {r.package.pin} | {_cell(r.skipped)} |" for r in results if r.skipped]
    lines = [
        "# rtlint ecosystem check",
        "",
        'Written by `python -m bench.ecosystem` (bench/README.md, "Ecosystem check", says how to rerun it).',
        "Each package's wheel is linted by two versions of rtlint, each in its own process per package",
        "(`rtlint check --format json --select RTL --no-cache`); verdicts come from bench/ecosystem_verdicts.txt.",
        "",
        f"- base: {context.base}",
        f"- head: {context.head}",
        f"- date: {context.date}; machine: {context.machine}; whole run {context.elapsed / 60:.1f} min",
        "",
        "## Summary",
        "",
        *summary(results, verdicts),
        "",
        "## Difference from base to head",
        "",
        *difference(results),
        "",
        "## Findings of head, with verdicts",
        "",
        *findings(results, verdicts),
        "Verdicts in bench/ecosystem_verdicts.txt on findings head does not report:",
        "",
        *unmatched(results, verdicts),
        "",
        "## RTL9xx and crashes",
        "",
        *errors(results),
        "",
        "## Skipped packages",
        "",
        *(["| package | reason |", "| --- | --- |", *skipped] if skipped else ["None."]),
        "",
        "## Time and memory per package",
        "",
        *timings(results),
    ]
    return "\n".join(lines) + "\n"
