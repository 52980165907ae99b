"""Running the rules over many files: reading, pre-filter, cache, parallel workers, fixes."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from rtlint.cache import Cache
from rtlint.config import Config
from rtlint.discovery import Target
from rtlint.findings import Edit, Finding, Fix
from rtlint.linter import RuleSet, engine_finding, lint_text
from rtlint.rule import Rule
from rtlint.edits import unified_diff
from rtlint.source import Source, UnreadableSource

# below this many files to parse, starting worker processes costs more than it saves
PARALLEL_THRESHOLD = 8


@dataclass(frozen=True)
class RunOptions:
    fix: bool = False
    diff: bool = False
    unsafe_fixes: bool = False
    fix_edits: bool = False  # attach the edits of every fix (JSON, SARIF)
    use_cache: bool = True
    jobs: int | None = None

    @property
    def fixing(self) -> bool:
        return self.fix or self.diff


@dataclass
class FileReport:
    target: Target
    display: str
    findings: list[Finding] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    fixed: int = 0
    original: bytes | None = None
    fixed_bytes: bytes | None = None
    diff: str = ""
    # the findings of the file as it is on disk: what to report if `fixed_bytes` is not
    # written after all (the file changed meanwhile, is read-only, links outside the paths)
    unfixed: list[Finding] = field(default_factory=list)


def display_path(path: Path) -> str:
    try:
        return path.absolute().relative_to(Path.cwd()).as_posix()
    except ValueError:
        return path.as_posix()


@dataclass
class _Job:
    target: Target
    display: str
    raw: bytes
    source: Source
    explicit: bool


class Runner:
    def __init__(
        self, config: Config, rule_classes: Sequence[type[Rule]], options: RunOptions, explicit: set[Path]
    ) -> None:
        self.config = config
        self.settings = config.settings()
        self.ruleset = RuleSet(rule_classes, self.settings)
        self.options = options
        self.explicit = explicit
        self.cache: Cache | None = None
        if options.use_cache:
            fingerprint = "|".join(
                [
                    self.settings.fingerprint(),
                    ",".join(r.code for r in self.ruleset.rules),
                    repr(sorted(config.per_file_ignores.items())),
                    f"fix_edits={options.fix_edits}",
                ]
            )
            self.cache = Cache(config.cache_folder, fingerprint)

    # -- stage 1, in this process: read, decode, pre-filter, cache ---------------------
    def _prepare(self, target: Target) -> FileReport | _Job:
        try:
            raw = target.path.read_bytes()
        except OSError as exc:
            return self._unreadable(target, exc.strerror or str(exc))
        explicit = target.path.absolute() in self.explicit
        if not explicit and not self._rules_for(target, raw):
            # not linted; still reported if it cannot be read as Python source at all. Plain
            # ASCII without a coding cookie decodes as anything would: no need to decode it
            if b"\0" in raw or not raw.isascii() or b"coding" in raw[:400]:
                try:
                    Source.from_bytes(raw)
                except UnreadableSource as exc:
                    return self._unreadable(target, str(exc))
            return FileReport(target, "")
        try:
            source = Source.from_bytes(raw)
        except UnreadableSource as exc:
            return self._unreadable(target, str(exc))
        return _Job(target, display_path(target.path), raw, source, explicit)

    def _unreadable(self, target: Target, why: str) -> FileReport:
        display = display_path(target.path)
        report = FileReport(target, display)
        report.findings = self._without_ignored(target, [engine_finding("RTL901", display, f"cannot read file: {why}")])
        return report

    def _rules_for(self, target: Target, raw: bytes) -> list[Rule]:
        return self.ruleset.without(self.config.ignored_in(target.path)).applicable(raw)

    # -- stage 2, anywhere: lint and fix ---------------------------------------------------
    def process(self, job: _Job) -> FileReport:
        from rtlint.fixer import attach_fixes, fix_text
        from rtlint.linelength import line_length

        report = FileReport(job.target, job.display, original=job.raw)
        rules = self._rules_for(job.target, job.raw)
        text = job.source.text
        tree = _ast_tree(text, job.display) if rules and (self.options.fixing or self.options.fix_edits) else None
        findings = lint_text(text, job.display, rules, self.settings, parse_always=job.explicit, tree=tree)
        unfixed = findings
        reported, trees = text, {"tree": tree}  # the text whose findings are reported, its trees
        width = line_length(self.config.line_length, job.target.path) if self.options.fixing or self.options.fix_edits else None
        if self.options.fixing and any(f.fixable for f in findings):
            outcome = fix_text(
                text, job.display, rules, self.settings, unsafe=self.options.unsafe_fixes, findings=findings, tree=tree,
                line_length=width,
            )
            findings = outcome.findings
            if not outcome.failure and outcome.text == text:
                trees = {"module": outcome.module, "tree": tree}
            if outcome.failure:
                report.errors.append(f"{job.display}: {outcome.failure}")
            elif outcome.text != text:
                try:
                    report.fixed_bytes = job.source.encode(outcome.text)
                    reported, trees = outcome.text, {"module": outcome.module, "tree": outcome.tree}
                    report.fixed = len(outcome.applied)
                    report.diff = unified_diff(text, outcome.text, job.display)
                except UnicodeEncodeError as exc:
                    report.errors.append(f"{job.display}: fix not applied: cannot encode the result as {job.source.encoding}: {exc}")
                    findings = unfixed  # nothing will be written: what is on disk is reported
        if self.options.fix_edits:
            attach_fixes(findings, reported, rules, self.settings, line_length=width, **trees)
        for finding in [*findings, *unfixed]:
            finding.data = None  # rule-private; not needed past this point, not picklable
        report.findings = self._without_ignored(job.target, findings)
        report.unfixed = self._without_ignored(job.target, unfixed) if report.fixed_bytes is not None else []
        return report

    def _without_ignored(self, target: Target, findings: list[Finding]) -> list[Finding]:
        """per-file-ignores also cover the engine's own codes (RTL900...)."""
        ignored = self.config.ignored_in(target.path)
        if not ignored:
            return findings
        return [f for f in findings if not f.code.startswith(tuple(ignored))]

    def run(self, targets: Sequence[Target]) -> list[FileReport]:
        reports: list[FileReport | None] = []
        jobs: list[tuple[int, _Job, str | None]] = []
        for target in targets:
            prepared = self._prepare(target)
            if isinstance(prepared, FileReport):
                reports.append(prepared)
                continue
            key = None
            if self.cache is not None and not self.options.fixing:
                key = self.cache.key(prepared.raw, prepared.display)
                cached = self.cache.get(key)
                if cached is not None:
                    reports.append(FileReport(target, prepared.display, [_finding_from_json(d) for d in cached]))
                    continue
            jobs.append((len(reports), prepared, key))
            reports.append(None)
        for (index, _, key), report in zip(jobs, self._map([job for _, job, _ in jobs])):
            reports[index] = report
            if key is not None and self.cache is not None and not report.errors:
                self.cache.put(key, [f.to_json() | {"fixable": f.fixable, "symbol": f.symbol} for f in report.findings])
        return [r for r in reports if r is not None]

    def _map(self, jobs: list[_Job]) -> list[FileReport]:
        workers = self.options.jobs if self.options.jobs is not None else (os.cpu_count() or 1)
        if workers <= 1 or len(jobs) < PARALLEL_THRESHOLD:
            return [self.process(job) for job in jobs]
        from concurrent.futures import ProcessPoolExecutor  # only when a pool starts: it costs ~15 ms

        with ProcessPoolExecutor(max_workers=min(workers, len(jobs))) as pool:
            return list(pool.map(self.process, jobs, chunksize=max(1, len(jobs) // (workers * 4))))


def _ast_tree(text: str, display: str):
    """The `ast` tree shared by the lint and the fixes; None on a syntax error (the lint
    reports it)."""
    from rtlint.parsing import ParseError, parse

    try:
        return parse(text, display)
    except ParseError:
        return None


def _finding_from_json(data: dict) -> Finding:
    fix = None
    if data.get("fix"):
        edits = tuple(Edit(e["line"], e["column"], e["end_line"], e["end_column"], e["content"]) for e in data["fix"]["edits"])
        fix = Fix(data["fix"]["applicability"], edits)
    return Finding(
        code=data["code"],
        name=data["name"],
        message=data["message"],
        line=data["line"],
        column=data["column"],
        end_line=data["end_line"],
        end_column=data["end_column"],
        path=data["path"],
        fixable=data.get("fixable"),
        fix=fix,
        symbol=data.get("symbol", ""),
    )
