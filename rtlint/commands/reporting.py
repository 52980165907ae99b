"""The last stage of `rtlint check`: findings in the chosen format, the summary, the list of
fixes (--show-fixes), and the exit status."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from rtlint.commands.usage import ENGINE_ERROR_CODES, EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS
from rtlint.report import escape

if TYPE_CHECKING:
    from typing import TextIO

    from rtlint.commands.check import Plan, Ran, Written


def _plural(count: int, word: str, words: str | None = None) -> str:
    return f"{count} {word if count == 1 else words or word + 's'}"


def report(
    plan: Plan, ran: Ran, written: Written, stdout: TextIO, stderr: TextIO, report_out: TextIO | None = None
) -> int:
    """The findings go to `report_out` when given (--output-file: never coloured), else to
    standard output, or beside the summary when standard output holds the fixed source."""
    from rtlint.report import colour

    args, options = plan.args, plan.options
    findings = written.findings
    exit_code = written.exit_code
    if any(f.code in ENGINE_ERROR_CODES for f in findings):
        exit_code = EXIT_ERROR
    if report_out is not None:
        out, color = report_out, False
    else:
        # the fixed source goes to standard output: the findings left go beside the summary
        fixed_source = plan.stdin is not None and (options.fix or options.add_noqa) and not options.diff
        out = stderr if fixed_source else stdout
        color = colour.wanted(args.color, out)
    if not options.diff:  # with --diff the diff is the output; what remains goes to the summary
        out.write(_findings(findings, args, out, written.sources, color))
    if not args.quiet and args.format == "text":
        for note in ran.notes:
            print(f"rtlint: warning: {escape.text(note)}", file=stderr)
        if written.diff_escaped:
            print(
                f"rtlint: warning: {written.diff_escaped} line(s) of the diff hold control characters or '##[' and "
                "are shown escaped, so the patch does not apply there; --output-file FILE writes it exactly",
                file=stderr,
            )
        _summary(plan, ran, written, exit_code, stderr)
    if exit_code == EXIT_ERROR:
        return EXIT_ERROR
    if args.exit_zero:
        return EXIT_CLEAN
    if options.diff and written.changed_files:
        return EXIT_FINDINGS  # the fixes are not applied, so what they fix remains
    if args.exit_non_zero_on_fix and written.changed_files:
        return EXIT_FINDINGS
    return EXIT_FINDINGS if findings else EXIT_CLEAN


def write_output_file(path, content: str, stderr: TextIO) -> int | None:
    """--output-file: the report into `path` (its folders made, as ruff makes them), written
    in place, so a FIFO or /dev/stdout works too; EXIT_ERROR, said on standard error, when
    it cannot be written."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "w", encoding="utf-8", errors="backslashreplace", newline="") as handle:
            handle.write(content)
    except OSError as exc:
        print(f"rtlint: error: cannot write {escape.text(str(path))}: {exc.strerror or exc}", file=stderr)
        return EXIT_ERROR
    return None


def _findings(findings: list, args, out: TextIO, known_sources: dict[str, str], color: bool) -> str:
    from rtlint.report import output

    if args.statistics:
        return output.statistics_json(findings) if args.format == "json" else output.statistics(findings)
    if args.format == "json":
        return output.json_report(findings)
    if args.format == "sarif":
        return output.sarif(findings)
    if args.format == "github":
        return output.github(findings)
    show = args.show_source if args.show_source is not None else out.isatty()
    sources = {**_sources(findings), **known_sources} if show else None
    return output.text(findings, show, sources, color)


def _summary(plan: Plan, ran: Ran, written: Written, exit_code: int, stderr: TextIO) -> None:
    options = plan.options
    findings = written.findings
    if ran.ruleless:
        # not "no realtime vocabulary": no rule was left to look for any
        them = "it was" if ran.ruleless == 1 else "they were"
        print(
            f"rtlint: warning: no rule is enabled for {_plural(ran.ruleless, 'file')} (--select, --ignore and "
            f"the configuration leave none): {them} not checked",
            file=stderr,
        )
    looked_at = _looked_at(ran.checked, ran.skipped)
    if looked_at:
        print(looked_at, file=stderr)
    if written.fixed:
        verb = "Would fix" if options.diff else ("Suppressed" if options.add_noqa else "Fixed")
        line = f"{verb} {_plural(written.fixed, 'finding')}"
        if options.add_noqa:
            line += " with # noqa"
        line += f" in {_plural(written.changed_files, 'file')}"
        uncovered = written.fixed - written.fixable_before
        if uncovered > 0 and not options.add_noqa:
            line += f" ({uncovered} more than reported: fixing uncovers findings that the same run fixes)"
        print(line + ("." if not plan.args.show_fixes else ":"), file=stderr)
        if plan.args.show_fixes:
            stderr.write(show_fixes(written.fixed_codes))
    if plan.args.baseline is not None:
        _baseline_summary(plan.args.baseline, written, stderr)
    if findings:
        line = f"Found {_plural(len(findings), 'finding')}"
        if written.baselined:
            line += " not in the baseline"
        print(line + (" remaining." if options.fix or options.add_noqa else "."), file=stderr)
        for hint in _hints(findings, options):
            print(hint, file=stderr)
    elif exit_code == EXIT_ERROR or written.fixed or options.diff or written.baseline_written is not None:
        pass  # the errors, the fixes, or the baseline written are the news
    elif written.baselined:
        print("No finding that is not in the baseline.", file=stderr)
    elif ran.checked == 0:
        if not ran.skipped and not ran.ruleless:  # otherwise a line above said why
            print("No file checked.", file=stderr)
    else:
        print("All checks passed.", file=stderr)


def _baseline_summary(path, written: Written, stderr: TextIO) -> None:
    shown = escape.text(str(path))
    if written.baseline_written is not None:
        print(
            f"Wrote the baseline {shown}: {_plural(written.baseline_written, 'finding')}; later runs with "
            "--baseline report only the findings not in it.",
            file=stderr,
        )
        return
    if written.baselined:
        print(f"{_plural(written.baselined, 'finding')} in the baseline {shown}, not reported.", file=stderr)
    if written.baseline_stale:
        match = "matches" if written.baseline_stale == 1 else "match"
        print(
            f"rtlint: warning: {_plural(written.baseline_stale, 'entry', 'entries')} of the baseline {shown} "
            f"{match} no finding any more (fixed, or the line changed) and could hide a new finding on an identical "
            f"line: when nothing new is reported, delete {shown} and run again to write it anew",
            file=stderr,
        )


def _looked_at(checked: int, skipped: int) -> str | None:
    """What the verdict below stands for: the files linted, and those the vocabulary
    pre-filter left unparsed, so that "All checks passed" never covers the latter."""
    holds = "holds" if skipped == 1 else "hold"
    if checked and skipped:
        return f"Checked {_plural(checked, 'file')}; {skipped} more {holds} no realtime vocabulary."
    if checked:
        return f"Checked {_plural(checked, 'file')}."
    if skipped:
        return f"No file checked: {_plural(skipped, 'file')} {holds} no realtime vocabulary."
    return None


def _hints(findings: list, options) -> list[str]:
    """How to fix what remains, counting each finding once."""
    if options.add_noqa:
        return []
    safe = sum(1 for f in findings if f.fixable == "safe")
    unsafe = sum(1 for f in findings if f.fixable == "unsafe")
    hints = []
    if not options.fix and not options.diff:
        if options.unsafe_fixes and safe + unsafe:
            return [f"[*] {safe + unsafe} fixable with --fix (unsafe fixes are enabled)."]
        if safe:
            hints.append(f"[*] {safe} fixable with --fix.")
    if unsafe and not options.unsafe_fixes:
        more = "more " if hints else ""
        hints.append(f"{unsafe} {more}fixable with --fix --unsafe-fixes.")
    return hints


def show_fixes(fixed_codes: dict[str, list[str]]) -> str:
    """Per file and per code, what was fixed (or would be)."""
    from rtlint.engine import registry

    lines = []
    for path in sorted(fixed_codes):
        lines.append(f"  {escape.text(path)}:")
        for code, count in sorted(Counter(fixed_codes[path]).items()):
            rule = registry.rule_by_code(code)
            name = rule.name if rule is not None else registry.ENGINE_CODES.get(code, "")
            lines.append(f"    {count} × {code} [{name}]")
    return "".join(line + "\n" for line in lines)


def _sources(findings: list) -> dict[str, str]:
    from pathlib import Path

    from rtlint.core.source import Source, UnreadableSource
    from rtlint.engine.runner import read_source

    sources = {}
    for path in {f.path for f in findings}:
        try:
            sources[path] = Source.from_bytes(read_source(Path(path))[0]).text  # never a FIFO
        except (OSError, UnreadableSource):
            pass
    return sources
