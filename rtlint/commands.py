"""The commands behind `rtlint.cli.main`: check, explain, rules (imported only when a run
is not replayed from the whole-run cache)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from rtlint import __version__
from rtlint.cli import ENGINE_ERROR_CODES, EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, FORMATS, UsageError

if TYPE_CHECKING:
    import argparse
    from pathlib import Path
    from typing import TextIO

def _codes(value: str) -> list[str]:
    codes = [c.strip().upper() for c in value.split(",") if c.strip()]
    if not codes:  # `--select=` would run nothing and pass: surely not what was meant
        import argparse

        raise argparse.ArgumentTypeError("expected one or more rule codes")
    return codes


def _check_parser() -> argparse.ArgumentParser:
    import argparse
    from pathlib import Path

    class _Parser(argparse.ArgumentParser):
        def error(self, message: str) -> None:  # exit 2 with our own prefix, no traceback
            raise UsageError(f"{message}\n{self.format_usage().strip()}")

    parser = _Parser(
        prog="rtlint",
        description="Find and fix realtime chat-context concurrency bugs.",
        epilog="Other commands: 'rtlint explain CODE' prints a rule's documentation; "
        "'rtlint rules' lists the rules.",
    )
    parser.add_argument("paths", nargs="*", metavar="PATH", help="files and folders to lint (default: .)")
    parser.add_argument("--fix", action="store_true", help="apply safe fixes in place")
    parser.add_argument("--diff", action="store_true", help="print the fixes as a unified diff; change nothing")
    parser.add_argument("--unsafe-fixes", action="store_true", help="also apply fixes marked unsafe")
    parser.add_argument("--select", type=_codes, metavar="CODES", help="comma-separated codes or prefixes to run")
    parser.add_argument("--ignore", type=_codes, default=[], metavar="CODES", help="comma-separated codes or prefixes not to run")
    parser.add_argument("--format", "--output-format", dest="format", choices=FORMATS, default="text")
    parser.add_argument("--exit-zero", action="store_true", help="exit 0 even if findings remain")
    parser.add_argument(
        "--exit-non-zero-on-fix", action="store_true", help="exit 1 when --fix changed a file, even if nothing remains"
    )
    parser.add_argument("--statistics", action="store_true", help="print a count per code instead of the findings")
    parser.add_argument("--config", type=Path, metavar="FILE", help="pyproject.toml or rtlint TOML file to use")
    parser.add_argument(
        "--force-exclude", action="store_true", help="apply the configured excludes to files named on the command line too"
    )
    parser.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")
    parser.add_argument("--cache-dir", type=Path, metavar="DIR", help="folder of the cache")
    parser.add_argument("--jobs", "-j", type=int, metavar="N", help="worker processes (default: the number of CPUs)")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--show-source", dest="show_source", action="store_true", default=None)
    source.add_argument("--no-show-source", dest="show_source", action="store_false")
    parser.add_argument("--quiet", "-q", action="store_true", help="print findings only, no summary")
    parser.add_argument("--version", action="version", version=f"rtlint {__version__}")
    return parser


def explain(args: list[str], stdout: TextIO) -> int:
    from rtlint import docs, registry

    if len(args) != 1:
        raise UsageError("usage: rtlint explain CODE")
    code = args[0].upper()
    if code in registry.ENGINE_CODES:
        stdout.write(docs.engine_page(code))
        return EXIT_CLEAN
    rule = registry.rule_by_code(args[0])
    if rule is None:
        raise UsageError(f"unknown rule code: {args[0]} (see 'rtlint rules')")
    stdout.write(docs.page(rule))
    return EXIT_CLEAN


def rules(args: list[str], stdout: TextIO) -> int:
    from rtlint import docs

    if args:
        raise UsageError("usage: rtlint rules")
    stdout.write(docs.table(markdown=False))
    return EXIT_CLEAN


def check(argv: list[str], stdout: TextIO, stderr: TextIO, inputs: dict | None = None) -> int:
    from pathlib import Path

    from rtlint import config as config_module
    from rtlint import escape, output, registry
    from rtlint.discovery import discover
    from rtlint.writing import FileChanged, write_atomically
    from rtlint.runner import Runner, RunOptions

    args = _check_parser().parse_args(argv)
    if args.jobs is not None and args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    paths = args.paths or ["."]

    def prepare(config) -> None:  # the command line applies to every configuration found
        if args.cache_dir is not None:
            config.cache_dir = args.cache_dir.resolve()
        if args.force_exclude:
            config.force_exclude = True
        config.rule_classes = config.enabled_rules(args.select, args.ignore)

    # each file is linted with its nearest configuration (or the one given by --config)
    finder = config_module.Finder(args.config, prepare)
    try:
        found = discover(paths, finder)
    except (config_module.ConfigError, registry.RegistryError) as exc:
        print(f"rtlint: error: {escape.text(str(exc))}", file=stderr)
        return EXIT_ERROR

    exit_code = EXIT_CLEAN
    options = RunOptions(
        fix=args.fix and not args.diff,
        diff=args.diff,
        unsafe_fixes=args.unsafe_fixes,
        fix_edits=args.format in ("json", "sarif"),
        use_cache=not args.no_cache,
        jobs=args.jobs,
    )
    reports = []
    writable = _writable_roots(paths)  # before anything runs: the paths as the user gave them
    for error in found.errors:
        print(f"rtlint: error: {escape.text(error)}", file=stderr)
        exit_code = EXIT_ERROR
    explicit = {Path(p).absolute() for p in paths if not Path(p).is_dir()}
    groups: dict[int, tuple[object, list]] = {}
    for target in found.targets:
        groups.setdefault(id(target.config), (target.config, []))[1].append(target)
    for config, targets in groups.values():
        reports.extend(Runner(config, config.rule_classes, options, explicit).run(targets))
    if inputs is not None:
        _note_inputs(inputs, found, finder, paths, reports)

    findings = []
    fixed = changed_files = 0
    would_fix = 0
    for report in reports:
        for error in report.errors:
            print(f"rtlint: error: {escape.text(error)}", file=stderr)
            exit_code = EXIT_ERROR
        if report.fixed_bytes is not None:
            if options.diff:
                stdout.write(report.diff)
                would_fix += report.fixed
                changed_files += 1
            else:
                problem = _write(report, writable, write_atomically, FileChanged)
                if problem is None:
                    fixed += report.fixed
                    changed_files += 1
                else:
                    print(f"rtlint: error: {escape.text(problem)}", file=stderr)
                    exit_code = EXIT_ERROR
                    # nothing was written: what is on disk still has its findings
                    findings.extend(report.unfixed)
                    continue
        findings.extend(report.findings)
    findings.sort(key=lambda f: f.sort_key)

    if any(f.code in ENGINE_ERROR_CODES for f in findings):
        exit_code = EXIT_ERROR
    if options.diff:
        pass  # the diff is the output; findings that remain go to the summary
    elif args.statistics:
        stdout.write(output.statistics(findings))
    elif args.format == "json":
        stdout.write(output.json_report(findings))
    elif args.format == "sarif":
        stdout.write(output.sarif(findings))
    elif args.format == "github":
        stdout.write(output.github(findings))
    else:
        show = args.show_source if args.show_source is not None else stdout.isatty()
        sources = _sources(findings) if show else None
        stdout.write(output.text(findings, show, sources))

    if not args.quiet and args.format == "text":
        if options.diff:
            if would_fix:
                print(f"Would fix {would_fix} finding{'s' * (would_fix != 1)} in {changed_files} file{'s' * (changed_files != 1)}.", file=stderr)
        _summary(findings, fixed, changed_files, options, stderr)

    if exit_code == EXIT_ERROR:
        return EXIT_ERROR
    if options.diff and changed_files:
        return EXIT_FINDINGS  # the fixes are not applied, so what they fix remains
    if args.exit_non_zero_on_fix and changed_files:
        return EXIT_FINDINGS
    if findings and not args.exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _note_inputs(inputs: dict, found, finder, paths: list[str], reports: list) -> None:
    """What this run's result depends on, for the whole-run cache, each as it was before it
    was read: the files linted, the folders listed, the configuration, .gitignore and
    pyvenv.cfg files looked for (and .git above each path)."""
    from pathlib import Path

    from rtlint import runcache

    for report in reports:
        if report.stamp is None or not report.cacheable:
            inputs["uncacheable"] = True  # unread, or a resource limit was hit: run again
        else:
            inputs["files"][str(report.target.path.absolute())] = (report.stamp, report.digest)
    for directory, stamp in zip(found.directories, found.directory_stamps):
        inputs["dirs"][str(directory.absolute())] = stamp
    inputs["probes"].update(found.probes)
    inputs["probes"].update(finder.looked_at)
    for given in paths:
        for probe in runcache.probes_above(str(Path(given).resolve())):
            inputs["probes"].setdefault(probe, runcache._probe(probe))


def _summary(findings: list, fixed: int, changed: int, options, stderr: TextIO) -> None:
    if options.fix and fixed:
        print(f"Fixed {fixed} finding{'s' * (fixed != 1)} in {changed} file{'s' * (changed != 1)}.", file=stderr)
    if findings:
        safe = sum(1 for f in findings if f.fixable == "safe")
        unsafe = sum(1 for f in findings if f.fixable == "unsafe")
        line = f"Found {len(findings)} finding{'s' * (len(findings) != 1)}"
        if options.fix:
            line += " remaining"
        print(line + ".", file=stderr)
        if safe and not options.fix:
            print(f"[*] {safe} fixable with --fix.", file=stderr)
        if unsafe and not options.unsafe_fixes:
            print(f"{unsafe} more fixable with --fix --unsafe-fixes.", file=stderr)
    elif not (options.fix and fixed) and not options.diff:
        print("All checks passed.", file=stderr)


def _sources(findings: list) -> dict[str, str]:
    from pathlib import Path

    from rtlint.runner import read_source
    from rtlint.source import Source, UnreadableSource

    sources = {}
    for path in {f.path for f in findings}:
        try:
            sources[path] = Source.from_bytes(read_source(Path(path))[0]).text  # never a FIFO
        except (OSError, UnreadableSource):
            pass
    return sources


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
    from pathlib import Path

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

