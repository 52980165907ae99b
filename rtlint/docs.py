"""Rule documentation, rendered from the rule classes (the single source for `rtlint
explain`, `rtlint rules`, SARIF help and the README's rule table)."""

from __future__ import annotations

from rtlint import registry
from rtlint.rule import Rule

FIX_LABELS = {"always": "yes", "sometimes": "sometimes", "none": "no"}

# Rule pages are rendered into docs/rules/<CODE>.md of the repository; JSON, SARIF and the
# language server link there.
DOCS_BASE_URL = "https://github.com/rtlint/rtlint/blob/main/docs/rules/"


def rule_url(code: str) -> str:
    """The documentation page of a rule or engine code."""
    return f"{DOCS_BASE_URL}{code}.md"


ENGINE_PAGES = {
    "RTL900": "A file that does not parse (with the parser's line and message). It is not "
    "analysed and never written; the run goes on with the other files.",
    "RTL901": "A file that cannot be read or decoded (permissions, NUL bytes, an encoding "
    "that does not match its bytes). It is not analysed and never written.",
    "RTL902": "An internal error: a rule failed on a file (a bug in rtlint; please report it "
    "with the file). The other rules and files are still checked; the exit status is 2.",
}


def engine_page(code: str) -> str:
    return f"# {code} {registry.ENGINE_CODES[code]}\n\n{ENGINE_PAGES[code]}\n"


def page(rule: type[Rule]) -> str:
    lines = [f"# {rule.code} {rule.name}", "", rule.summary, "", rule.documentation(), ""]
    if rule.options:
        lines += ["## Configuration", "", "In `[tool.rtlint]` of pyproject.toml:", ""]
        for option in rule.options:
            lines.append(f"- `{option.name}` (default `{_toml(option.default)}`): {option.help}")
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


def table(markdown: bool = True) -> str:
    rows = [
        (r.code, r.name, "on" if r.default_enabled else "off", FIX_LABELS[r.fix_availability], r.summary)
        for r in registry.all_rules()
    ]
    header = ("code", "name", "default", "fixable", "summary")
    if markdown:
        out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        out += ["| " + " | ".join(row) + " |" for row in rows]
    else:
        widths = [max(len(str(x)) for x in column) for column in zip(header, *rows)]
        out = ["  ".join(str(x).ljust(w) for x, w in zip(row, widths)).rstrip() for row in (header, *rows)]
    return "\n".join(out) + "\n"
