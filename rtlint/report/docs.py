"""Rule documentation, rendered from the rule classes (the single source for `rtlint
explain`, `rtlint rules`, SARIF help and the README's rule table)."""

from __future__ import annotations

from rtlint.core.rule import Rule
from rtlint.engine import registry

FIX_LABELS = {"always": "yes", "sometimes": "sometimes", "none": "no"}

# Rule pages are rendered into docs/rules/<CODE>.md of the repository; JSON, SARIF and the
# language server link there.
DOCS_BASE_URL = "https://github.com/rtlint/rtlint/blob/main/docs/rules/"


def rule_url(code: str) -> str:
    """The documentation page of a rule or engine code."""
    return f"{DOCS_BASE_URL}{code}.md"


ENGINE_PAGES = {
    "RTL100": "A suppression that suppresses nothing, as ruff's RUF100: a code of a `# noqa: RTL00N` or "
    "`# rtlint: ignore[RTL00N]` on lines where that rule reports nothing, a code of a rule that is not "
    "enabled for the file (said so), a code given twice in one comment, an `RTL` code rtlint does not "
    "have, and a file-level `# rtlint: noqa` or `# flake8: noqa` on a line with code (where neither "
    "rtlint nor flake8 reads it). Off unless selected (`--select RTL100`, `extend-select = "
    '["RTL100"]`, or a selector that covers it such as `RTL`). A suppression is judged by the rules '
    "the configuration enables for the file, also when the command line selects RTL100 alone (they "
    "run; their findings are not reported). Other tools' codes and a bare `# noqa` are left alone. "
    "`--fix` removes the unused code, or the whole comment when no code is left (the words after "
    "it, its reason, go with it; a comment that follows it stays); a misplaced file-level comment "
    "is reported, not removed.",
    "RTL900": "A file that does not parse (with the parser's line and message). It is not "
    "analysed and never written; the run goes on with the other files.",
    "RTL901": "A file that cannot be read or decoded (permissions, NUL bytes, an encoding "
    "that does not match its bytes). It is not analysed and never written.",
    "RTL902": "An internal error: a rule failed on a file (a bug in rtlint; please report it "
    "with the file). The other rules and files are still checked; the exit status is 2.",
}


# one line each, for `rtlint rules`: (summary, on by default, fixable)
ENGINE_CODES_INFO = {
    "RTL100": ("a suppression comment that suppresses nothing", False, "always"),
    "RTL900": ("a file that does not parse", True, "none"),
    "RTL901": ("a file that cannot be read or decoded", True, "none"),
    "RTL902": ("an internal error of rtlint on a file (exit status 2)", True, "none"),
}


def engine_page(code: str) -> str:
    return f"# {code} {registry.ENGINE_CODES[code]}\n\n{ENGINE_PAGES[code]}\n"


def page(rule: type[Rule]) -> str:
    lines = [f"# {rule.code} {rule.name}", "", rule.summary, "", rule.documentation(), ""]
    if rule.options:
        lines += [
            "## Configuration",
            "",
            "In `[tool.rtlint]` of `pyproject.toml`, or at the top level of an `.rtlint.toml` (the nearest of "
            "either at or above the file; in one folder `.rtlint.toml` wins):",
            "",
        ]
        for option in rule.options:
            namespace, _, key = option.name.rpartition(".")
            name = f"`{key}` in `[tool.rtlint.{namespace}]`" if namespace else f"`{option.name}`"
            lines.append(f"- {name} (default `{_toml(option.default)}`): {option.help}")
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


def section(rule: type[Rule], title: str) -> str:
    """The text under `## <title>` of the rule's page (headings and blank edges removed),
    or "" when the page has no such section."""
    found: list[str] | None = None
    for line in rule.documentation().splitlines():
        if line.startswith("## "):
            if found is not None:
                break
            if line[3:].strip().lower() == title.lower():
                found = []
        elif found is not None:
            found.append(line)
    return "\n".join(found or []).strip()


def _toml(value: object) -> str:
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(f'"{v}"' for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return str(value)


def codes() -> list[dict]:
    """Every code rtlint reports, rules first and then the engine's, as `rtlint rules
    --format json` lists them."""
    listed = [
        {
            "code": r.code,
            "name": r.name,
            "kind": "rule",
            "default": r.default_enabled,
            "fixable": r.fix_availability,
            "summary": r.summary,
            "url": rule_url(r.code),
            "options": [{"name": o.name, "default": o.default, "help": o.help} for o in r.options],
        }
        for r in registry.all_rules()
    ]
    for code, name in registry.ENGINE_CODES.items():
        summary, default, fixable = ENGINE_CODES_INFO[code]
        listed.append(
            {
                "code": code,
                "name": name,
                "kind": "engine",
                "default": default,
                "fixable": fixable,
                "summary": summary,
                "url": rule_url(code),
                "options": [],
            }
        )
    return listed


def table(markdown: bool = True, engine: bool = False) -> str:
    """The rules as a table (the README's, in Markdown); with `engine`, the engine's codes
    (RTL100, RTL900-RTL902) after them."""
    rows = [
        (c["code"], c["name"], "on" if c["default"] else "off", FIX_LABELS[c["fixable"]], c["summary"])
        for c in codes()
        if engine or c["kind"] == "rule"
    ]
    header = ("code", "name", "default", "fixable", "summary")
    if markdown:
        out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        out += ["| " + " | ".join(row) + " |" for row in rows]
    else:
        widths = [max(len(str(x)) for x in column) for column in zip(header, *rows)]
        out = ["  ".join(str(x).ljust(w) for x, w in zip(row, widths)).rstrip() for row in (header, *rows)]
    return "\n".join(out) + "\n"


def rendered_pages() -> dict[str, str]:
    """File name -> content of every documentation page (rules and engine codes): what
    `docs/rules/` of the repository holds, and what `rule_url` points at."""
    pages = {f"{rule.code}.md": page(rule) for rule in registry.all_rules()}
    pages.update({f"{code}.md": engine_page(code) for code in registry.ENGINE_CODES})
    return dict(sorted(pages.items()))


def write_pages(folder: str) -> list[str]:
    """Render every page into `folder`, removing pages of codes that no longer exist; the
    names of the files written or removed."""
    from pathlib import Path

    target = Path(folder)
    target.mkdir(parents=True, exist_ok=True)
    pages = rendered_pages()
    changed = []
    for stale in sorted(target.glob("RTL*.md")):
        if stale.name not in pages:
            stale.unlink()
            changed.append(stale.name)
    for name, content in pages.items():
        path = target / name
        if not path.exists() or path.read_text(encoding="utf-8") != content:
            path.write_text(content, encoding="utf-8", newline="\n")
            changed.append(name)
    return changed


def _main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m rtlint.report.docs",
        description="Render the rule pages (the source of `rtlint explain`) as files.",
    )
    parser.add_argument("--write", metavar="FOLDER", required=True, help="folder of the pages, e.g. docs/rules")
    args = parser.parse_args(argv)
    for name in write_pages(args.write):
        print(f"{args.write.rstrip('/')}/{name}")
    return 0


if __name__ == "__main__":  # `python -m rtlint.report.docs --write docs/rules`
    raise SystemExit(_main())
