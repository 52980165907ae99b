"""The figures as ratios (to the yardstick and to rtlint), the targets of issues 7, 13 and 21 with pass
or fail, and the machine they were measured on, as markdown."""

from __future__ import annotations

import datetime
import hashlib
import os
import platform
import statistics
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from bench.corpora import Corpus
from bench.peers import Tools
from bench.timing import Result, linear_fit, ratio_between

MEMORY_LIMIT_MIB = 100
RTLINT_KEYS = ("rtlint_cold", "rtlint_fresh", "rtlint_warm", "rtlint_warm_m", "rtlint_jobs1")
FIX_KEYS = {
    "rtlint_fix": "rtlint --fix (copy)",
    "rtlint_diff": "rtlint --diff",
    "rtlint_json": "rtlint --format json",
    "rtlint_sarif": "rtlint --format sarif",
}


def load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "?"


def source_state() -> tuple[str, str]:
    """The commit of this checkout (with "+changes" when rtlint/ or rules/ differ from it) and
    a digest of rtlint's sources, so that a run can tell the version it measured."""
    repo = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for path in sorted([*repo.glob("rtlint/*.py"), *repo.glob("rules/*.py")]):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    try:
        git = ["git", "-C", str(repo)]
        commit = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(
            [*git, "status", "--porcelain", "--", "rtlint", "rules"], capture_output=True, text=True
        ).stdout.strip()
        commit = f"commit {commit}{' +changes' if dirty else ''}" if commit else "no git commit"
    except OSError:
        commit = "no git"
    return commit, digest.hexdigest()[:12]


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


@dataclass
class Run:
    tools: Tools
    corpora: dict[str, Corpus]
    runs: int
    slow_runs: int
    load_before: str
    source_before: tuple[str, str] = ("", "")  # (commit, digest of the checkout's rtlint sources)
    source_after: tuple[str, str] = ("", "")
    snapshot: str = ""  # digest of the snapshot measured
    load_after: str = ""
    elapsed: float = 0.0
    errors: list[str] = field(default_factory=list)
    # corpus -> key -> (result, the yardstick runs of its group)
    results: dict[str, dict[str, tuple[Result, Result]]] = field(default_factory=dict)
    scaled: dict[int, tuple[Corpus, Result]] = field(default_factory=dict)  # copies -> subset, rtlint cold

    def add(self, corpus: str, key: str, result: Result, yardstick: Result) -> None:
        self.results.setdefault(corpus, {})[key] = (result, yardstick)

    def add_scaled(self, subset: Corpus, result: Result) -> None:
        copies = len(subset.paths)
        if copies in self.scaled:
            known = self.scaled[copies][1]
            known.samples += result.samples
            known.ratios += result.ratios
        else:
            self.scaled[copies] = (subset, result)

    def get(self, corpus: str, key: str) -> Result | None:
        found = self.results.get(corpus, {}).get(key)
        return found[0] if found else None


@dataclass
class Target:
    name: str
    measured: str
    limit: str
    passed: bool | None  # None: not measured
    margin: str = ""


def _ratio(run: Run, corpus: str, key: str) -> float | None:
    result = run.get(corpus, key)
    return result.ratio if result else None


def targets(run: Run) -> list[Target]:
    out: list[Target] = []

    def add(
        name: str, value: float | None, limit: float, unit: str = "x", higher: bool = False, fmt: str = "{:.2f}"
    ) -> None:
        if value is None:
            out.append(Target(name, "not measured", f"{'≥' if higher else '≤'} {limit}{unit}", None))
            return
        passed = value >= limit if higher else value <= limit
        margin = f"{value / limit:.2f} of the limit"
        out.append(Target(name, fmt.format(value) + unit, f"{'≥' if higher else '≤'} {limit}{unit}", passed, margin))

    for corpus, limit in (("plugins", 1.5), ("wheel", 2.0)):
        add(f"{corpus}: rtlint cold / yardstick", _ratio(run, corpus, "rtlint_cold"), limit)
    for corpus in ("plugins", "wheel"):
        rt, sg = _ratio(run, corpus, "rtlint_cold"), _ratio(run, corpus, "semgrep")
        add(
            f"{corpus}: semgrep time / rtlint cold time (ahead of semgrep)",
            sg / rt if rt and sg else None,
            1.0,
            higher=True,
        )
        fx = _ratio(run, corpus, "fixit")
        add(f"{corpus}: Fixit time / rtlint cold time", fx / rt if rt and fx else None, 15.0, higher=True)
    for key, how in (("rtlint_warm", "rtlint warm"), ("rtlint_warm_m", "`python -m rtlint` warm")):
        for corpus in ("plugins", "wheel", "stdlib"):
            warm, start = run.get(corpus, key), run.get(corpus, "import")
            add(
                f'{corpus}: {how} / `python -c "import rtlint"`',
                ratio_between(warm, start) if warm and start else None,
                1.3,
            )
    add("stdlib: rtlint cold / yardstick", _ratio(run, "stdlib", "rtlint_cold"), 0.5)
    # issue 21 (Pipecat): its wheel within the yardstick, and the others no slower for it
    for corpus, limit in (("pipecat", 1.0), ("wheel", 1.0), ("stdlib", 0.1)):
        add(f"{corpus}: rtlint cold / yardstick (issue 21)", _ratio(run, corpus, "rtlint_cold"), limit)
    cold, cst = run.get("activity", "rtlint_cold"), run.get("activity", "libcst")
    add("agent_activity.py: rtlint cold / libcst.parse_module", ratio_between(cold, cst) if cold and cst else None, 3.0)
    with_plugin, without = run.get("wheel", "flake8_rtl"), run.get("wheel", "flake8_e9")
    add(
        "wheel: flake8 --select RTL / flake8 without the plugin",
        ratio_between(with_plugin, without) if with_plugin and without else None,
        1.2,
    )
    if run.scaled:
        slope, intercept, r2 = scaled_fit(run)
        out.append(
            Target(
                "scaled: time linear in the files with the token (R² of the fit)",
                f"{r2:.3f}",
                "≥ 0.98",
                r2 >= 0.98,
                f"slope {slope * 1000:.1f} ms per token file, intercept {intercept:.2f} s",
            )
        )
    else:
        out.append(Target("scaled: time linear in the files with the token", "not measured", "≥ 0.98", None))
    # issue 13: fixes as fast as checks
    for key, how in FIX_KEYS.items():
        add(f"wheel: {how} / yardstick (issue 13)", _ratio(run, "wheel", key), 1.5)
        result = run.get("wheel", key)
        add(
            f"wheel: {how} peak memory (issue 13)",
            result.rss_mib if result else None,
            MEMORY_LIMIT_MIB,
            " MiB",
            fmt="{:.0f}",
        )
    fix, cst = run.get("activity", "rtlint_fix"), run.get("activity", "libcst")
    add(
        "agent_activity.py: rtlint --fix / libcst.parse_module (issue 13)",
        ratio_between(fix, cst) if fix and cst else None,
        1.5,
    )
    for corpus in run.corpora:
        peaks = [r.rss_mib for k in RTLINT_KEYS if (r := run.get(corpus, k))]
        if corpus == "scaled" and run.scaled:
            peaks = [r.rss_mib for _, r in run.scaled.values()]
        add(
            f"{corpus}: rtlint peak memory (largest process)",
            max(peaks) if peaks else None,
            MEMORY_LIMIT_MIB,
            " MiB",
            fmt="{:.0f}",
        )
    return out


def scaled_fit(run: Run) -> tuple[float, float, float]:
    xs = [float(c.token_files) for c, _ in run.scaled.values()]
    ys = [r.wall for _, r in run.scaled.values()]
    return linear_fit(xs, ys)


def _snapshot_version() -> str:
    """The version of the code measured (the snapshot's), not of venv-rtlint's install,
    which is rebuilt only when the dependencies change."""
    import re

    from bench.corpora import CORPORA

    try:
        found = re.search(r'__version__ = "([^"]+)"', (CORPORA / "snapshot" / "rtlint" / "__init__.py").read_text())
    except OSError:
        return "?"
    return found.group(1) if found else "?"


def _version(tools: Tools, dist: str, own: bool = False) -> str:
    return tools.version(dist, tools.python if own else None) or "?"


def markdown(run: Run) -> str:
    tools = run.tools
    python = subprocess.run(
        [tools.python, "-c", "import sys; print(sys.version.split()[0])"], capture_output=True, text=True
    ).stdout.strip()
    lines = [
        "# rtlint benchmark",
        "",
        "Written by `python -m bench` (bench/README.md says how to read it). Every ratio is a median of",
        "per-pair ratios: each command ran alternately with its corpus's yardstick (`ast.parse` of every",
        "file of the corpus in one Python process), and is divided by the mean of the yardstick runs on",
        "either side. \"× rtlint\" divides a command's ratio by rtlint cold's (above 1: slower than rtlint).",
        "",
        "## Machine",
        "",
        f"- date: {datetime.datetime.now().astimezone().strftime('%Y-%m-%d %H:%M %Z')}",
        f"- CPU: {cpu_model()}, {os.cpu_count()} cores; {platform.system()} {platform.release()}",
        f"- Python {python} (rtlint and the yardstick); load average before {run.load_before}, after {run.load_after}",
        f"- rtlint {_snapshot_version()}, libcst {_version(tools, 'libcst', True)}, "
        f"flake8 {_version(tools, 'flake8', True)}; "
        f"ruff {_version(tools, 'ruff')}, semgrep {_version(tools, 'semgrep')}, Fixit {_version(tools, 'fixit')}",
        f"- rtlint measured: a snapshot (digest {run.snapshot}) of the checkout at {run.source_before[0]} "
        f"(sources {run.source_before[1]})"
        + (
            ""
            if run.source_after[1] == run.source_before[1]
            else f"; rtlint's sources in the checkout changed during the run "
            f"(now {run.source_after[0]}, sources {run.source_after[1]}), the snapshot did not"
        ),
        f"- rounds: {run.runs} (quick commands), {run.slow_runs} (flake8 on plugins, Fixit); "
        f"whole run {run.elapsed / 60:.1f} min",
        "",
        *(["## Errors", "", *(f"- {e.splitlines()[0]}" for e in run.errors), ""] if run.errors else []),
        "## Targets (issues 7, 13 and 21)",
        "",
        "| target | measured | limit | result | margin |",
        "| --- | ---: | ---: | --- | --- |",
    ]
    for t in targets(run):
        verdict = {True: "pass", False: "**FAIL**", None: "not measured"}[t.passed]
        lines.append(f"| {t.name} | {t.measured} | {t.limit} | {verdict} | {t.margin} |")
    lines += ["", "## Figures", ""]
    for name, corpus in run.corpora.items():
        measured = run.results.get(name)
        if not measured:
            continue
        lines += [
            f"### {corpus.description}: {corpus.files} files, {corpus.lines:,} lines, "
            f"{corpus.token_files} containing `update_chat_ctx`",
            "",
            "| command | median wall (s) | × yardstick | × rtlint cold | peak MiB | runs |",
            "| --- | ---: | ---: | ---: | ---: | ---: |",
        ]
        base = measured.get("rtlint_cold")
        yardsticks = {id(y): y for _, y in measured.values()}
        ys_wall = statistics.median(s.wall for y in yardsticks.values() for s in y.samples)
        ys_rss = max(s.rss_kib for y in yardsticks.values() for s in y.samples) / 1024
        rt = base[0].ratio if base else None
        runs = sum(len(y.samples) for y in yardsticks.values())
        versus = f"{1 / rt:.2f}" if rt else ""
        lines.append(
            f"| yardstick: `ast.parse` of every file | {ys_wall:.3f} | 1.00 | {versus} | {ys_rss:.0f} | {runs} |"
        )
        for result, _ in measured.values():
            versus = f"{result.ratio / rt:.2f}" if rt else ""
            row = [
                result.command.label,
                f"{result.wall:.3f}",
                f"{result.ratio:.2f}",
                versus,
                f"{result.rss_mib:.0f}",
                str(len(result.samples)),
            ]
            lines.append("| " + " | ".join(row) + " |")
        lines.append("")
    if run.scaled:
        slope, intercept, r2 = scaled_fit(run)
        lines += [
            "### Scaled corpus: rtlint cold (`--no-cache`) on copies of the 1.8.8 tree",
            "",
            "| copies | files | files with the token | median wall (s) | × its yardstick "
            "| s per token file | peak MiB |",
            "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        for copies, (corpus, result) in sorted(run.scaled.items()):
            wall = result.wall
            row = [
                copies,
                corpus.files,
                corpus.token_files,
                f"{wall:.3f}",
                f"{result.ratio:.2f}",
                f"{wall / corpus.token_files:.3f}",
                f"{result.rss_mib:.0f}",
            ]
            lines.append("| " + " | ".join(map(str, row)) + " |")
        lines += [
            "",
            f"Least squares: time = {slope * 1000:.1f} ms × (files with the token) + {intercept:.2f} s, R² = {r2:.3f}.",
            "",
        ]
    notes = Path(__file__).with_name("notes.md")
    if notes.exists():  # hand-written: why a target is missed, from profiles of the engine
        lines += ["## Notes", "", notes.read_text().strip(), ""]
    return "\n".join(lines) + "\n"


def console(run: Run) -> str:
    return markdown(run)
