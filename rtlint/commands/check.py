"""`rtlint check`, behind `rtlint.cli.main` (imported only when a run is not replayed from
the whole-run cache).

`check` runs in four stages: resolve (arguments and configurations into a plan), run
(discover and lint), write (fixed files, a diff, or the fixed source for standard input),
and report (findings, summary, exit status; in `rtlint.commands.reporting`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from rtlint.commands.arguments import ParserExit, check_parser
from rtlint.commands.usage import EXIT_CLEAN, EXIT_ERROR, UsageError

if TYPE_CHECKING:
    import argparse
    from typing import BinaryIO, TextIO

    from rtlint.engine.config import Config, Finder
    from rtlint.engine.runner import FileReport, RunOptions
    from rtlint.suppress.baseline import Baseline

STDIN = "-"


@dataclass
class StdinSource:
    raw: bytes
    path: Path  # --stdin-filename, or "-"
    named: bool


@dataclass
class Plan:
    """What a check will do: its arguments, the configurations and their paths, options."""

    args: argparse.Namespace
    finder: Finder  # the configuration of each file: the one given, or its nearest
    paths: list[str]
    options: RunOptions
    stdin: StdinSource | None = None
    # the real folders and files given, taken before anything runs: fixes are written only there
    writable: tuple[set[Path], set[Path]] = (set(), set())
    baseline: Baseline | None = None  # --baseline FILE as it was read; None: FILE is to be written


@dataclass
class Ran:
    reports: list[FileReport]
    exit_code: int = EXIT_CLEAN
    checked: int = 0  # files linted
    skipped: int = 0  # files found by a folder walk, not linted: no vocabulary of the enabled rules
    ruleless: int = 0  # files whose configuration and command line leave no rule enabled
    notes: list[str] = field(default_factory=list)  # why nothing was checked somewhere


@dataclass
class Written:
    findings: list
    exit_code: int
    fixed: int = 0  # findings fixed (or suppressed with --add-noqa), or that --diff would fix
    changed_files: int = 0
    fixable_before: int = 0
    fixed_codes: dict[str, list[str]] = field(default_factory=dict)  # display path -> codes
    sources: dict[str, str] = field(default_factory=dict)  # texts not on disk (stdin)
    # --baseline: the text each finding's line is read from (by display path), and the outcome
    texts: dict[str, str | None] = field(default_factory=dict)
    baseline_written: int | None = None  # entries written (FILE did not exist)
    baselined: int = 0  # findings in the baseline, not reported
    baseline_stale: int = 0  # entries of the files checked that match nothing any more
    diff_escaped: int = 0  # lines of --diff shown escaped on standard output (escape.diff)


def check(
    argv: list[str], stdout: TextIO, stderr: TextIO, inputs: dict | None = None, stdin: BinaryIO | None = None
) -> int:
    from rtlint.commands import reporting

    try:
        plan = resolve(argv, stdout, stdin)
    except ParserExit as done:
        return done.status
    if plan.args.show_settings is not None:
        from rtlint.commands import settings

        if inputs is not None:
            inputs["uncacheable"] = True  # it reads configurations only: never replayed
        path = plan.args.show_settings
        settings.show(path, plan.finder.for_path(path), plan.args, stdout)
        return EXIT_CLEAN
    ran = run(plan, stderr, inputs)
    report = None
    if plan.args.output_file is not None:
        import io

        # --output-file: the report (findings, statistics, or the diff) is written to the file
        # once the run is over; the summary stays on standard error, as does the exit status
        report = io.StringIO()
    written = write(plan, ran, stdout, stderr, report)
    if plan.args.baseline is not None:
        from rtlint.commands import baseline
        from rtlint.suppress.baseline import BaselineError

        try:
            baseline.apply(plan, ran, written)
        except BaselineError as exc:
            print(f"rtlint: error: {exc}", file=stderr)
            written.exit_code = EXIT_ERROR
    code = reporting.report(plan, ran, written, stdout, stderr, report)
    if report is None:
        return code
    return reporting.write_output_file(plan.args.output_file, report.getvalue(), stderr) or code


def resolve(argv: list[str], stdout: TextIO, stdin: BinaryIO | None) -> Plan:
    """Arguments and configurations into a plan; a UsageError for anything wrong with them."""
    from rtlint.engine import config as config_module
    from rtlint.engine import registry
    from rtlint.engine.runner import RunOptions
    from rtlint.report import escape

    args = check_parser(stdout).parse_args(argv)
    if args.jobs is not None and args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if args.output_file is not None and args.output_file.is_dir():
        raise UsageError(f"--output-file {escape.text(str(args.output_file))} is a folder")
    if args.add_noqa and args.fix:
        raise UsageError("--add-noqa and --fix cannot be combined (suppress the findings, or fix them)")
    paths = args.paths or ([STDIN] if args.stdin_filename else ["."])
    if STDIN in paths and len(paths) > 1:
        raise UsageError("'-' (standard input) cannot be combined with other paths")
    if args.stdin_filename and paths != [STDIN]:
        raise UsageError("--stdin-filename names standard input: give '-' or no path")
    source = None
    if paths == [STDIN]:
        source = _read_stdin(stdin, args.stdin_filename)
        paths = [str(source.path)]

    def prepare(config: Config) -> None:  # the command line applies to every configuration found
        if args.cache_dir is not None:  # replaces the configuration's, refused or not
            config.cache_dir, config.cache_dir_refused = args.cache_dir.resolve(), None
        if args.force_exclude:
            config.force_exclude = True
        config.rule_classes = config.enabled_rules(args.select, args.ignore)
        config.report_unused = config.selects("RTL100", args.select, args.ignore)
        if config.report_unused:  # RTL100 judges by what the configuration enables (with --ignore)
            config.judged_classes = config.enabled_rules(None, args.ignore)

    # each file is linted with its nearest configuration (or the one given by --config)
    finder = config_module.Finder(args.config, prepare)
    try:
        for given in [*paths, *([args.show_settings] if args.show_settings is not None else [])]:
            finder.for_path(Path(given))  # configuration errors are usage errors, before any run
    except (config_module.ConfigError, registry.RegistryError) as exc:
        raise UsageError(escape.text(str(exc))) from None
    options = RunOptions(
        fix=args.fix and not args.diff,
        diff=args.diff,
        unsafe_fixes=args.unsafe_fixes,
        fix_edits=args.format in ("json", "sarif"),
        use_cache=not args.no_cache,
        jobs=args.jobs,
        add_noqa=args.add_noqa,
        noqa_reason=args.noqa_reason,
    )
    writable = _writable_roots(paths) if source is None else (set(), set())
    plan = Plan(args, finder, paths, options, source, writable)
    if args.baseline is not None:
        from rtlint.commands import baseline

        plan.baseline = baseline.load(args)
    return plan


def _read_stdin(stdin: BinaryIO | None, filename: str | None) -> StdinSource:
    import sys

    from rtlint.core import reading

    if stdin is None and sys.stdin is None:  # `rtlint check - <&-`
        raise UsageError("standard input is closed: nothing to read for -")
    stream = stdin if stdin is not None else sys.stdin.buffer
    raw = reading.read_stream(stream, reading.MAX_SOURCE)
    return StdinSource(raw, Path(filename) if filename else Path(STDIN), bool(filename))


def run(plan: Plan, stderr: TextIO, inputs: dict | None = None) -> Ran:
    """Discover the files of each configuration and lint (and fix) them."""
    from rtlint.engine import config as config_module
    from rtlint.engine import registry
    from rtlint.engine.discovery import discover
    from rtlint.engine.runner import Runner
    from rtlint.report import escape

    ran = Ran([])
    if plan.stdin is not None:
        config = plan.finder.for_path(plan.stdin.path)
        ran.reports.extend(_run_stdin(plan.stdin, config, plan.options, ran))
        ran.notes.extend(note for report in ran.reports for note in report.notes)
        return ran
    try:
        found = discover(plan.paths, plan.finder)
    except (config_module.ConfigError, registry.RegistryError) as exc:  # one found in a subfolder
        print(f"rtlint: error: {escape.text(str(exc))}", file=stderr)
        ran.exit_code = EXIT_ERROR
        return ran
    for error in found.errors:
        print(f"rtlint: error: {escape.text(error)}", file=stderr)
        ran.exit_code = EXIT_ERROR
    _note_empty_folders(plan.paths, found.targets, ran)
    explicit = {Path(p).absolute() for p in plan.paths if not os.path.isdir(p)}  # (a name too long: not a folder)
    groups: dict[int, tuple[Config, list]] = {}
    for target in found.targets:
        groups.setdefault(id(target.config), (target.config, []))[1].append(target)
    for config, targets in groups.values():
        if config.shadows is not None:
            ran.notes.append(_shadowing_note(config, len(targets)))
        reports = Runner(config, config.rule_classes, plan.options, explicit).run(targets)
        ran.reports.extend(reports)
        ran.notes.extend(note for report in reports for note in report.notes)
        if not _enables_any(config):
            ran.ruleless += len(reports)  # still read (and parsed when named): RTL900/RTL901 are reported
            continue
        skipped = sum(1 for report in reports if report.prefiltered)
        ran.skipped += skipped
        ran.checked += len(reports) - skipped
    if inputs is not None:
        _note_inputs(inputs, found, plan.finder, plan.paths, ran.reports)
    return ran


def _shadowing_note(config: Config, files: int) -> str:
    """A nested configuration without `extend` is used alone (as ruff uses it): said, since
    what the one above sets (the vocabulary too) does not apply below it."""
    from rtlint.engine.runner import display_path

    assert config.source is not None and config.shadows is not None
    relative = os.path.relpath(config.shadows, config.source.resolve().parent)
    return (
        f"{display_path(config.source)} is used alone for the {files} file{'s' if files != 1 else ''} below it: "
        f"it does not extend {display_path(config.shadows)}, whose settings do not apply there "
        f'(add `extend = "{Path(relative).as_posix()}"` to inherit them; --show-settings FILE shows what applies)'
    )


def _run_stdin(source: StdinSource, config: Config, options: RunOptions, ran: Ran) -> list[FileReport]:
    from rtlint.engine.discovery import Target
    from rtlint.engine.runner import Runner

    # excludes apply to a named buffer as they apply to a folder walk: an editor sends every file
    if source.named and config.excludes_buffer(source.path):
        ran.notes.append(f"{source.path}: excluded by the configuration; not checked")
        return []
    target = Target(source.path, source.path.absolute())
    runner = Runner(config, config.rule_classes, options, {source.path.absolute()})
    if _enables_any(config):
        ran.checked += 1
    else:
        ran.ruleless += 1
    return runner.run([target], {source.path: source.raw})


def _enables_any(config: Config) -> bool:
    """Whether any rule runs under this configuration (RTL100 counts)."""
    return bool(config.rule_classes) or config.report_unused


def _note_empty_folders(paths: list[str], targets: list, ran: Ran) -> None:
    """A folder named on the command line in which no file is checked is said so, rather
    than counted as passing (all of it excluded, or ignored by git)."""
    roots = {target.root for target in targets}
    for given in paths:
        path = Path(given)
        if os.path.isdir(path) and path.resolve() not in roots:
            ran.notes.append(
                f"{given}: no Python file checked (none found, or all excluded by .gitignore or the configuration)"
            )


def write(plan: Plan, ran: Ran, stdout: TextIO, stderr: TextIO, report_out: TextIO | None = None) -> Written:
    """Write what the fixes produced: files in place, a diff (to `report_out`, default
    standard output), or standard input's fixed source (always to standard output)."""
    from rtlint.engine.writing import FileChanged, write_atomically
    from rtlint.report import escape

    options = plan.options
    diff_out = report_out if report_out is not None else stdout
    written = Written([], ran.exit_code)
    for report in ran.reports:
        for error in report.errors:
            first, *trace = error.split("\n")  # a crash's traceback (RTLINT_DEBUG) line by line
            print(f"rtlint: error: {escape.text(first)}", file=stderr)
            for line in trace:
                print(escape.text(line), file=stderr)
            written.exit_code = EXIT_ERROR
        written.fixable_before += report.fixable_before
        if plan.stdin is not None:
            _write_stdin(plan, report, stdout, written, diff_out, report_out is None)
        elif report.fixed_bytes is not None:
            if options.diff:
                _write_diff(report.diff, diff_out, report_out is None, written)
            else:
                problem = _write(report, plan.writable, write_atomically, FileChanged)
                if problem is not None:
                    print(f"rtlint: error: {escape.text(problem)}", file=stderr)
                    written.exit_code = EXIT_ERROR
                    # nothing was written: what is on disk still has its findings
                    written.findings.extend(report.unfixed)
                    _keep_text(plan, written, report, report.unfixed, report.original)
                    continue
            _count_fixed(report, written)
        written.findings.extend(report.findings)
        # the findings are of the fixed text where there is one (written, or shown as a diff)
        fixed = report.fixed_bytes
        _keep_text(plan, written, report, report.findings, fixed if fixed is not None else report.original)
    if plan.stdin is not None and not ran.reports and _echoes(options):
        _write_bytes(stdout, plan.stdin.raw)  # an excluded buffer comes back unchanged
    written.findings.sort(key=lambda f: f.sort_key)
    return written


def _keep_text(plan: Plan, written: Written, report: FileReport, findings: list, raw: bytes | None) -> None:
    """For --baseline: the text the report's findings are positions in (`raw`; else standard
    input's, or the file's as it is on disk: a report from the cache keeps no bytes)."""
    if plan.args.baseline is None or not findings:
        return
    from rtlint.core.source import Source, UnreadableSource
    from rtlint.engine.runner import read_source

    try:
        if raw is None:
            raw = plan.stdin.raw if plan.stdin is not None else read_source(report.target.path)[0]
        written.texts[report.display] = Source.from_bytes(raw).text
    except (OSError, UnreadableSource):
        written.texts[report.display] = None  # matched by code and path alone: an empty line's hash


def _echoes(options: RunOptions) -> bool:
    """Whether the source read from standard input is printed back (fixed or not)."""
    return (options.fix or options.add_noqa) and not options.diff


def _write_diff(diff: str, out: TextIO, shown: bool, written: Written) -> None:
    """A file's diff: exact into --output-file's file, escaped where a terminal or a CI log
    shows it (escape.diff; the lines that then no longer apply are counted)."""
    from rtlint.report import escape

    if shown:
        diff, escaped = escape.diff(diff)
        written.diff_escaped += escaped
    out.write(diff)


def _write_stdin(
    plan: Plan, report: FileReport, stdout: TextIO, written: Written, diff_out: TextIO, shown: bool
) -> None:
    from rtlint.core.source import Source, UnreadableSource

    assert plan.stdin is not None
    if report.fixed_bytes is not None:
        if plan.options.diff:
            _write_diff(report.diff, diff_out, shown, written)
        _count_fixed(report, written)
    if _echoes(plan.options):
        _write_bytes(stdout, report.fixed_bytes if report.fixed_bytes is not None else plan.stdin.raw)
    try:
        written.sources[report.display] = Source.from_bytes(plan.stdin.raw).text
    except UnreadableSource:
        pass


def _count_fixed(report: FileReport, written: Written) -> None:
    written.fixed += report.fixed
    written.changed_files += 1
    written.fixed_codes[report.display] = report.fixed_codes


def _write_bytes(stdout: TextIO, data: bytes) -> None:
    """Source bytes as they are (encoding, line endings) where the stream allows it."""
    buffer = getattr(stdout, "buffer", None)
    if buffer is not None:
        stdout.flush()
        buffer.write(data)
        buffer.flush()
        return
    from rtlint.core.source import Source, UnreadableSource

    try:
        stdout.write(Source.from_bytes(data).text)
    except UnreadableSource:
        stdout.write(data.decode("utf-8", "replace"))


def _note_inputs(inputs: dict, found, finder, paths: list[str], reports: list) -> None:
    """What this run's result depends on, for the whole-run cache, each as it was before it
    was read: the files linted, the folders listed, the configuration, .gitignore and
    pyvenv.cfg files looked for (and .git above each path)."""
    from rtlint.cache import runcache

    for report in reports:
        if report.stamp is None or not report.cacheable:
            inputs["uncacheable"] = True  # unread, or a resource limit was hit: run again
        else:
            inputs["files"][str(report.target.path.absolute())] = (report.stamp, report.digest)
    for directory, stamp in zip(found.directories, found.directory_stamps):
        inputs["dirs"][str(directory.absolute())] = stamp
        for name in runcache.FORMATTER_FILES:  # the line length of the fixes JSON, SARIF and --diff carry
            probe = str(directory.absolute() / name)
            inputs["probes"].setdefault(probe, runcache._probe(probe))
    inputs["probes"].update(found.probes)
    inputs["probes"].update(finder.looked_at)
    for given in paths:
        for probe in runcache.probes_above(str(Path(given).resolve())):
            inputs["probes"].setdefault(probe, runcache._probe(probe))


def _write(report, writable, write_atomically, file_changed) -> str | None:
    """Write a report's fixed content; None, or why it was not written."""

    path = report.target.path
    if not os.path.lexists(path):
        return f"{report.display}: not written: the file no longer exists"
    if not _may_write(path, writable):
        return f"{report.display}: not written: it links to a file outside the given paths"
    try:
        write_atomically(path, report.fixed_bytes, report.original or b"")
    except file_changed as exc:
        return str(exc)
    except OSError as exc:
        return f"{report.display}: not written: {exc.strerror or exc}"
    return None


def _writable_roots(paths: list[str]) -> tuple[set[Path], set[Path]]:
    """Real folders and real (non-link) files given on the command line."""
    folders, files = set(), set()
    for given in paths:
        path = Path(given)
        try:
            if path.is_dir():
                folders.add(path.resolve())
            elif path.is_file() and not path.is_symlink():
                files.add(path.resolve())
        except OSError:
            continue
    return folders, files


def _may_write(path: Path, roots: tuple[set[Path], set[Path]]) -> bool:
    folders, files = roots
    real = path.resolve()
    return real in files or any(real.is_relative_to(folder) for folder in folders)
