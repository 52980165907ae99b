"""Running the rules over many files: reading, pre-filter, cache, parallel workers, fixes."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rtlint.cache.cache import Cache
from rtlint.core import reading
from rtlint.core.findings import Edit, Finding, Fix
from rtlint.core.rule import Rule
from rtlint.core.source import Source, UnreadableSource
from rtlint.engine.config import Config
from rtlint.engine.discovery import Target
from rtlint.engine.linter import RuleSet, engine_finding, gc_paused, lint_text
from rtlint.fix.edits import unified_diff

# below this many files to parse, starting worker processes costs more than it saves
PARALLEL_THRESHOLD = 8
# ... unless fixes are built: a file with fixes costs 10-20 lints (LibCST, re-lints), so two
# files already pay for a second worker (the wheel's --fix: 1.0 s -> 0.9 s)
PARALLEL_THRESHOLD_FIXING = 2
MAX_SOURCE = reading.MAX_SOURCE  # a name here for the tests that lower it
# findings that say a limit was hit, not what the file is: never cached (issue 15)
_RESOURCE_MARKERS = ("too deeply nested", "out of memory", "MemoryError", "RecursionError")


@dataclass(frozen=True)
class RunOptions:
    fix: bool = False
    diff: bool = False
    unsafe_fixes: bool = False
    fix_edits: bool = False  # attach the edits of every fix (JSON, SARIF)
    use_cache: bool = True
    jobs: int | None = None
    add_noqa: bool = False  # suppress every finding instead of fixing it
    noqa_reason: str = ""  # written after the codes of a comment --add-noqa writes

    @property
    def fixing(self) -> bool:
        return self.fix or self.diff or self.add_noqa


@dataclass
class FileReport:
    target: Target
    display: str
    findings: list[Finding] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # e.g. a fix that could not be made, and why
    fixed: int = 0
    fixed_codes: list[str] = field(default_factory=list)  # of each finding fixed (or suppressed)
    fixable_before: int = 0  # findings reported fixable before fixing (fixes can uncover more)
    original: bytes | None = None
    fixed_bytes: bytes | None = None
    diff: str = ""
    # the findings of the file as it is on disk: what to report if `fixed_bytes` is not
    # written after all (the file changed meanwhile, is read-only, links outside the paths)
    unfixed: list[Finding] = field(default_factory=list)
    # for the whole-run cache: the file's stat before it was read (size, mtime, ctime,
    # inode), its digest when that stat is too recent to trust, and whether the result may
    # be cached at all (not when a resource limit was hit)
    stamp: tuple[int, int, int, int] | None = None
    digest: bytes | None = None
    cacheable: bool = True
    # not linted: its bytes hold none of the enabled rules' vocabulary (the summary says so)
    prefiltered: bool = False


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
    stamp: tuple[int, int, int, int] | None = None
    digest: bytes | None = None


class Runner:
    def __init__(
        self, config: Config, rule_classes: Sequence[type[Rule]], options: RunOptions, explicit: set[Path]
    ) -> None:
        self.config = config
        self.settings = config.settings()
        # with RTL100 on, the rules the configuration enables run too, so that a suppression
        # is judged by them when the command line selects fewer (`--select RTL100` alone);
        # their findings are not reported (`judge_only`)
        judged = [cls for cls in config.judged_classes if cls not in rule_classes] if config.report_unused else []
        self.judge_only = frozenset(cls.code for cls in judged)
        self.ruleset = RuleSet([*rule_classes, *judged], self.settings)
        self.options = options
        self.explicit = explicit
        self.cache: Cache | None = None
        if options.use_cache:
            fingerprint = "|".join(
                [
                    self.settings.fingerprint(),
                    ",".join(r.code for r in self.ruleset.rules),
                    config.fingerprint(),
                    f"fix_edits={options.fix_edits}",
                    f"unused={config.report_unused}",
                    "judged=" + ",".join(sorted(self.judge_only)),
                ]
            )
            self.cache = Cache(config.cache_folder, fingerprint)

    # -- stage 1, in this process: read, decode, pre-filter, cache ---------------------
    def _prepare(self, target: Target, raw: bytes | None = None) -> FileReport | _Job:
        """`raw` is the file's content when it does not come from disk (standard input)."""
        stamp = None
        if raw is None:
            try:
                raw, stamp = read_source(target.path)
            except OSError as exc:
                return self._unreadable(target, exc.strerror or str(exc))
        digest = _digest_if_recent(raw, stamp) if stamp is not None else None
        explicit = (
            bool(self.explicit) and target.path.absolute() in self.explicit
        )  # (absolute() costs a walk ~40 µs a file)
        # RTL100 reads every file that names a code, or holds a file-level comment (rtlint's, flake8's)
        suppressions = self.config.report_unused and (b"RTL" in raw or b"rtlint" in raw or b"flake8" in raw)
        if not explicit and not suppressions and not self._rules_for(target, raw):
            # not linted; still reported if it cannot be read as Python source at all. Plain
            # ASCII without a coding cookie decodes as anything would: no need to decode it
            if b"\0" in raw or not raw.isascii() or b"coding" in raw[:400]:
                try:
                    Source.from_bytes(raw)
                except UnreadableSource as exc:
                    return self._unreadable(target, str(exc), stamp, digest)
            return FileReport(target, "", stamp=stamp, digest=digest, prefiltered=True)
        costly = reading.too_costly(raw)
        if costly is not None:  # parsing it could take more memory than a file may
            return self._unreadable(target, costly, stamp, digest)
        try:
            source = Source.from_bytes(raw)
        except UnreadableSource as exc:
            return self._unreadable(target, str(exc), stamp, digest)
        return _Job(target, display_path(target.path), raw, source, explicit, stamp, digest)

    def _unreadable(self, target: Target, why: str, stamp=None, digest=None) -> FileReport:
        display = display_path(target.path)
        report = FileReport(target, display, stamp=stamp, digest=digest)
        report.findings = self._without_ignored(target, [engine_finding("RTL901", display, f"cannot read file: {why}")])
        return report

    def _rules_for(self, target: Target, raw: bytes) -> list[Rule]:
        return self.ruleset.without(self.config.ignored_in(target.path)).applicable(raw)

    def _unused_for(self, target: Target) -> list[str] | None:
        """The codes RTL100 judges in this file (the rules enabled for it), or None when off."""
        if not self.config.report_unused:
            return None
        return [r.code for r in self.ruleset.without(self.config.ignored_in(target.path)).rules]

    # -- stage 2, anywhere: lint and fix ---------------------------------------------------
    def process(self, job: _Job) -> FileReport:
        from rtlint.engine.adoption import fix_with_suppressions, with_noqa
        from rtlint.engine.fixer import attach_fixes, mark_refused

        report = FileReport(job.target, job.display, original=job.raw, stamp=job.stamp, digest=job.digest)
        rules = self._rules_for(job.target, job.raw)
        text = job.source.text
        unused_for = self._unused_for(job.target)
        judge_only = self.judge_only
        if judge_only:
            judged, rules = rules, [rule for rule in rules if rule.code not in judge_only]
        else:
            judged = rules

        def relint(candidate: str) -> list[Finding]:
            return lint_text(
                candidate,
                job.display,
                judged,
                self.settings,
                parse_always=True,
                unused_for=unused_for,
                judge_only=judge_only,
            )

        tree = _ast_tree(text, job.display) if judged and (self.options.fixing or self.options.fix_edits) else None
        findings = lint_text(
            text,
            job.display,
            judged,
            self.settings,
            parse_always=job.explicit,
            tree=tree,
            unused_for=unused_for,
            judge_only=judge_only,
        )
        unfixed = findings
        reported, trees = text, {"tree": tree}  # the text whose findings are reported, its trees
        width = self._width(job.target)
        outcome = None
        allowed = self.config.fix_allowed if self.config.fixability else None
        findings = self._fixability(findings)
        if self.options.add_noqa:
            outcome = with_noqa(text, findings, relint, self.options.noqa_reason)
        elif self.options.fixing and any(f.fixable for f in findings):
            outcome = fix_with_suppressions(
                text,
                job.display,
                rules,
                self.settings,
                findings,
                unsafe=self.options.unsafe_fixes,
                unused_for=unused_for,
                relint=relint,
                tree=tree,
                line_length=width,
                allowed=allowed,
                formatter=self._formatter(job.target),
            )
        if outcome is not None:
            report.fixable_before = sum(
                1 for f in unfixed if f.fixable == "safe" or (self.options.unsafe_fixes and f.fixable)
            )
            findings = self._fixability(outcome.findings)
            for finding, why in mark_refused(findings, outcome.refused):
                report.notes.append(f"{job.display}:{finding.line}:{finding.column}: {finding.code} not fixed: {why}")
            if not outcome.failure and outcome.text == text:
                trees = {"tree": tree}
            if outcome.failure:
                report.errors.append(f"{job.display}: {outcome.failure}")
            elif outcome.text != text:
                try:
                    report.fixed_bytes = job.source.encode(outcome.text)
                    reported, trees = outcome.text, {"tree": outcome.tree}
                    report.fixed = len(outcome.applied)
                    report.fixed_codes = [f.code for f in outcome.applied]
                    if self.options.diff:  # the patch is shown only then (~20 ms a big file)
                        report.diff = unified_diff(text, outcome.text, job.display)
                except UnicodeEncodeError as exc:
                    report.errors.append(
                        f"{job.display}: fix not applied: cannot encode the result as {job.source.encoding}: {exc}"
                    )
                    findings = unfixed  # nothing will be written: what is on disk is reported
        if self.options.fix_edits:
            attach_fixes(findings, reported, rules, self.settings, line_length=width, **trees)
        for finding in [*findings, *unfixed]:
            finding.data = None  # rule-private; not needed past this point, not picklable
        report.findings = self._without_ignored(job.target, findings)
        report.cacheable = not report.notes and not any(
            f.code in ("RTL900", "RTL902") and any(m in f.message for m in _RESOURCE_MARKERS) for f in findings
        )
        report.unfixed = self._without_ignored(job.target, unfixed) if report.fixed_bytes is not None else []
        return report

    def _width(self, target: Target) -> int | None:
        """The line length the file's fixes are broken to (None when no fix is made): an input
        of the fix edits JSON and SARIF carry, so part of their cache key."""
        from rtlint.fix.linelength import line_length

        if not (self.options.fixing or self.options.fix_edits):
            return None
        return line_length(self.config.line_length, target.path)

    def _formatter(self, target: Target):
        """The project's formatter for the lines --fix adds or changes (None: rtlint's own
        line breaking). JSON and SARIF's fix edits never use it (rtlint/fix/formatting.py)."""
        from rtlint.fix.formatting import choose

        return choose(self.config.fix_formatter, target.path, self.config.line_length)

    def _fixability(self, findings: list[Finding]) -> list[Finding]:
        """Findings of the codes `unfixable` names (or `fixable` leaves out) are reported as
        not fixable, and no fix of them is applied or attached."""
        if self.config.fixability:
            for finding in findings:
                if finding.fixable and not self.config.fix_allowed(finding.code):
                    finding.fixable, finding.fix = None, None
        return findings

    def _without_ignored(self, target: Target, findings: list[Finding]) -> list[Finding]:
        """per-file-ignores also cover the engine's own codes (RTL900...)."""
        ignored = self.config.ignored_in(target.path)
        if not ignored:
            return findings
        return [f for f in findings if not f.code.startswith(tuple(ignored))]

    def run(self, targets: Sequence[Target], contents: dict[Path, bytes] | None = None) -> list[FileReport]:
        """Reports in the order of `targets`; `contents` gives the bytes of targets that are
        not read from disk (standard input)."""
        reports: list[FileReport | None] = []
        jobs: list[tuple[int, _Job, str | None]] = []
        for target in targets:
            prepared = self._prepare(target, (contents or {}).get(target.path))
            if isinstance(prepared, FileReport):
                reports.append(prepared)
                continue
            key = None
            if self.cache is not None and not self.options.fixing:
                key = self.cache.key(prepared.raw, prepared.display, str(self._width(target)))
                cached = self.cache.get(key, prepared.display)
                if cached is not None:
                    findings = [_finding_from_json(d) for d in cached]
                    reports.append(
                        FileReport(target, prepared.display, findings, stamp=prepared.stamp, digest=prepared.digest)
                    )
                    continue
            jobs.append((len(reports), prepared, key))
            reports.append(None)
        for (index, _, key), report in zip(jobs, self._map([job for _, job, _ in jobs])):
            reports[index] = report
            if key is not None and self.cache is not None and not report.errors and report.cacheable:
                self.cache.put(key, [f.to_json() | {"fixable": f.fixable, "symbol": f.symbol} for f in report.findings])
        return [r for r in reports if r is not None]

    def _map(self, jobs: list[_Job]) -> list[FileReport]:
        workers = self.options.jobs if self.options.jobs is not None else (os.cpu_count() or 1)
        fixes = self.options.fixing or self.options.fix_edits or self.options.add_noqa
        if workers <= 1 or len(jobs) < (PARALLEL_THRESHOLD_FIXING if fixes else PARALLEL_THRESHOLD):
            return [self.guarded(job) for job in jobs]
        from rtlint.engine import pool  # only when a pool starts: multiprocessing costs ~15 ms

        workers = min(workers, len(jobs))
        tasks = pool.tasks_by_cost([_cost(job) for job in jobs], workers)
        return pool.run(self.guarded, jobs, workers, tasks, _lost)

    def guarded(self, job: _Job) -> FileReport:
        """`process`, where running out of memory is RTL901 for this file alone (in a worker
        or in this process alike): the other files are still linted and reported."""
        try:
            with gc_paused():  # the parse for the fixes and theirs too, not only the lint's
                return self.process(job)
        except MemoryError:
            report = FileReport(job.target, job.display, stamp=job.stamp, digest=job.digest, cacheable=False)
            report.findings = self._without_ignored(
                job.target, [engine_finding("RTL901", job.display, "cannot lint the file: out of memory (MemoryError)")]
            )
            return report


def _cost(job: _Job) -> int:
    """A guess at how long a job takes, to start the slowest first: linting grows with the
    file's size."""
    return len(job.raw)


def _lost(job: _Job, why: str) -> FileReport:
    """The report of a file whose worker died: an error for it alone, nothing cached."""
    report = FileReport(job.target, job.display, stamp=job.stamp, digest=job.digest, cacheable=False)
    report.errors.append(f"{job.display}: not linted: {why}")
    return report


def read_source(path: Path) -> tuple[bytes, tuple[int, int, int, int]]:
    """The bytes of a source file and its stat before reading (rtlint.core.reading: a
    regular file only, up to MAX_SOURCE)."""
    return reading.read_file(path, MAX_SOURCE)


_RACY_NS = 2_000_000_000


def _digest_if_recent(raw: bytes, stamp: tuple[int, int, int, int]) -> bytes | None:
    """A digest of what was read when the stat is too recent to tell a later change by
    (coarse filesystem clocks): the whole-run cache compares it instead."""
    import time

    if time.time_ns() - max(stamp[1], stamp[2]) >= _RACY_NS:
        return None
    from rtlint.cache.runcache import blake2b

    return blake2b(raw, digest_size=16).digest()


def _ast_tree(text: str, display: str):
    """The `ast` tree shared by the lint and the fixes; None on a syntax error (the lint
    reports it)."""
    from rtlint.core.parsing import ParseError, parse

    try:
        return parse(text, display)
    except ParseError:
        return None


def _finding_from_json(data: dict) -> Finding:
    fix = None
    if data.get("fix"):
        edits = tuple(
            Edit(e["line"], e["column"], e["end_line"], e["end_column"], e["content"]) for e in data["fix"]["edits"]
        )
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
