"""`rtlint explain CODE` and `rtlint rules`: the rules' pages and table."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rtlint.commands.arguments import ParserExit, explain_parser, rules_parser
from rtlint.commands.usage import EXIT_CLEAN, UsageError

if TYPE_CHECKING:
    from typing import TextIO


def explain(args: list[str], stdout: TextIO) -> int:
    from rtlint.engine import registry
    from rtlint.report import docs

    try:
        code = explain_parser(stdout).parse_args(args).code
    except ParserExit as done:
        return done.status
    if code.upper() in registry.ENGINE_CODES:
        stdout.write(docs.engine_page(code.upper()))
        return EXIT_CLEAN
    rule = registry.rule_by_code(code)
    if rule is None:
        raise UsageError(f"unknown rule code: {code} (see 'rtlint rules')")
    stdout.write(docs.page(rule))
    return EXIT_CLEAN


def rules(args: list[str], stdout: TextIO) -> int:
    from rtlint.report import docs

    try:
        chosen = rules_parser(stdout).parse_args(args).format
    except ParserExit as done:
        return done.status
    if chosen == "json":
        import json

        stdout.write(json.dumps(docs.codes(), indent=2) + "\n")
    else:
        stdout.write(docs.table(markdown=False, engine=True))
    return EXIT_CLEAN
