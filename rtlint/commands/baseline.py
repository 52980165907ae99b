"""`rtlint check --baseline FILE`: between writing the fixes and reporting, the findings are
recorded in FILE (when it does not exist yet) or filtered by it (rtlint.suppress.baseline)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rtlint.commands.usage import UsageError

if TYPE_CHECKING:
    import argparse

    from rtlint.commands.check import Plan, Ran, Written
    from rtlint.suppress.baseline import Baseline


def load(args: argparse.Namespace) -> Baseline | None:
    """The baseline of --baseline FILE, None when FILE is to be written; a UsageError for a
    combination that has no meaning."""
    from rtlint.report import escape
    from rtlint.suppress import baseline

    if args.add_noqa:
        raise UsageError("--baseline and --add-noqa cannot be combined (two ways to adopt rtlint: choose one)")
    try:
        found = baseline.load(args.baseline)
    except baseline.BaselineError as exc:
        raise UsageError(escape.text(str(exc))) from None
    if found is None and args.diff:
        # what would be recorded are the findings left by fixes that are not applied
        raise UsageError(
            f"--baseline {escape.text(str(args.baseline))} does not exist: write it without --diff "
            "(with or without --fix)"
        )
    return found


def apply(plan: Plan, ran: Ran, written: Written) -> None:
    """Record the findings in the baseline file, or keep only those not in it."""
    from rtlint.suppress import baseline

    path = plan.args.baseline
    if plan.baseline is None:
        written.baseline_written = baseline.write(path, written.findings, written.texts)
        written.findings = [f for f in written.findings if f.code in baseline.NOT_BASELINED]
        return
    checked = {report.display for report in ran.reports if report.display}
    filtered = baseline.apply(plan.baseline, written.findings, written.texts, checked)
    written.findings = filtered.reported
    written.baselined, written.baseline_stale = filtered.baselined, filtered.stale
