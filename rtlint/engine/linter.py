"""Linting one file: pre-filter, one parse shared by every rule, suppression."""

from __future__ import annotations

import ast
import gc
import traceback
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager

from rtlint.core.context import FileContext
from rtlint.core.findings import Finding
from rtlint.core.parsing import ParseError, parse
from rtlint.core.rule import Rule, Settings
from rtlint.engine import registry
from rtlint.suppress.suppression import filter_findings


def engine_finding(code: str, path: str, message: str, line: int = 1, column: int = 1) -> Finding:
    return Finding(
        code=code,
        name=registry.ENGINE_CODES[code],
        message=message,
        line=line,
        column=column,
        end_line=line,
        end_column=column,
        path=path,
    )


class RuleSet:
    """The enabled rules, instantiated once with the run's settings."""

    def __init__(self, rule_classes: Sequence[type[Rule]], settings: Settings) -> None:
        self.settings = settings
        self.rules = [cls(settings) for cls in rule_classes]
        self._tokens = _cheapest_first(
            {rule.code: [tuple(_as_bytes(t) for t in group) for group in rule.required_tokens()] for rule in self.rules}
        )

    def without(self, codes: Sequence[str]) -> RuleSet:
        if not codes:
            return self
        copy = object.__new__(RuleSet)
        copy.settings = self.settings
        copy.rules = [r for r in self.rules if not any(r.code.startswith(c) for c in codes)]
        copy._tokens = self._tokens
        return copy

    def applicable(self, raw: bytes) -> list[Rule]:
        """Rules whose required tokens all occur in the file (the cheap pre-filter). Rules
        share tokens (every rule needs the push method): each is looked for once."""
        seen: dict[object, bool] = {}

        def occurs(token) -> bool:
            found = seen.get(token)
            if found is None:
                found = seen[token] = _occurs(token, raw)
            return found

        return [
            rule
            for rule in self.rules
            if all(any(occurs(token) for token in group) for group in self._tokens[rule.code])
        ]


def _cheapest_first(tokens: dict[str, list[tuple]]) -> dict[str, list[tuple]]:
    """Each rule's token groups (all must occur) and the tokens of a group (any may) in the
    order that decides soonest: what many rules share first (looked for once per file, a
    file without the push method is dismissed at once), substrings before patterns."""
    from collections import Counter

    groups = Counter(group for rule_groups in tokens.values() for group in set(rule_groups))
    singles = Counter(token for group in groups.elements() for token in group)

    def group_key(group: tuple) -> tuple:
        return (-groups[group], any(not isinstance(t, bytes) for t in group))

    def token_key(token) -> tuple:
        return (not isinstance(token, bytes), -singles[token])

    return {
        code: [tuple(sorted(g, key=token_key)) for g in sorted(rule_groups, key=group_key)]
        for code, rule_groups in tokens.items()
    }


def _as_bytes(token):
    """A substring as bytes; a compiled bytes pattern as it is; (substrings, pattern) with
    the substrings as bytes."""
    if isinstance(token, str):
        return token.encode()
    if isinstance(token, tuple):
        hints, pattern = token
        hints = (hints,) if isinstance(hints, (str, bytes)) else hints
        return (tuple(h.encode() if isinstance(h, str) else h for h in hints), pattern)
    return token


def _occurs(token, raw: bytes) -> bool:
    if isinstance(token, bytes):
        return token in raw
    if isinstance(token, tuple):  # the pattern only where one of its substrings is
        hints, pattern = token
        return any(h in raw for h in hints) and pattern.search(raw) is not None
    return token.search(raw) is not None


def lint_text(
    text: str,
    display_path: str,
    rules: Sequence[Rule],
    settings: Settings,
    *,
    honour_noqa: bool = True,
    parse_always: bool = False,
    tree: ast.Module | None = None,
    unused_for: Collection[str] | None = None,
    judge_only: Collection[str] = (),
) -> list[Finding]:
    """Findings of `rules` in `text`, suppressions applied, in a stable order. With no rule
    to run the file is not parsed at all, unless `parse_always` (to report syntax errors).
    `tree` is the file's syntax tree when the caller has one already (flake8 does);
    `honour_noqa=False` leaves `# noqa` to the caller (flake8 applies it itself).
    `unused_for`, the codes of the rules enabled for the file, turns on RTL100 (suppressions
    that suppress nothing); the findings of the rules in `judge_only` serve RTL100 alone
    and are not returned."""
    if not rules and not parse_always and unused_for is None:
        return []
    with gc_paused():
        return _lint(text, display_path, rules, settings, honour_noqa, parse_always, tree, unused_for, judge_only)


@contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic garbage collection while one file is parsed, checked and fixed: its trees
    and indexes (~100,000 objects a big file) stay alive meanwhile, and every automatic
    collection walked them again (~10% of a check, ~30% of a fix, whose re-lints parse the
    file again). What the file leaves in cycles is collected after (a fix collects between
    its re-lints: rtlint.engine.fixer._verify). A pause inside another leaves it paused."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _lint(text, display_path, rules, settings, honour_noqa, parse_always, tree, unused_for, judge_only):
    try:
        tree = tree if tree is not None else parse(text, display_path)
    except ParseError as exc:
        return [engine_finding("RTL900", display_path, f"syntax error: {exc.message}", exc.line, exc.column)]
    file = FileContext(display_path, text, tree, settings)
    try:
        findings = _checked(file, rules, display_path)
    finally:
        file.release()
    unique = {(f.line, f.column, f.code, f.message): f for f in findings}
    ordered = sorted(unique.values(), key=lambda f: f.sort_key)
    if unused_for is not None:
        from rtlint.suppress.unused import unused_suppressions

        ordered = sorted(
            [*ordered, *unused_suppressions(text, display_path, ordered, unused_for, registry.known_codes())],
            key=lambda f: f.sort_key,
        )
    if judge_only:
        ordered = [f for f in ordered if f.code not in judge_only]
    return filter_findings(ordered, text, honour_noqa, tree)


def _checked(file: FileContext, rules: Sequence[Rule], display_path: str) -> list[Finding]:
    """Every rule's findings in `file`; a rule that crashes, or finds the file too deeply
    nested, is an RTL902 finding and the others still run."""
    findings: list[Finding] = []
    for rule in rules:
        try:
            findings.extend(rule.check(file))
        except RecursionError:
            findings.append(
                engine_finding("RTL902", display_path, f"{rule.code} skipped: the file is too deeply nested to analyse")
            )
        except Exception as exc:  # a rule bug must not end the run
            where = traceback.extract_tb(exc.__traceback__)[-1]
            findings.append(
                engine_finding(
                    "RTL902",
                    display_path,
                    f"{rule.code} crashed: {type(exc).__name__}: {exc} ({where.filename}:{where.lineno})",
                )
            )
    return findings
