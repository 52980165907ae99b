"""split_lines splits like the tokenizer (\\r\\n, \\r, \\n only), whichever path it takes:
str.splitlines when no other break character is present, a regex split otherwise."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from rtlint.core.source import split_lines

_TOKENIZER_BREAK = re.compile(r"\r\n|\r|\n")


def _reference(text: str) -> list[str]:
    lines, start = [], 0
    for match in _TOKENIZER_BREAK.finditer(text):
        lines.append(text[start : match.end()])
        start = match.end()
    if start < len(text):
        lines.append(text[start:])
    return lines


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab \t#'\"\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"))))
def test_split_lines_matches_the_tokenizer(text: str) -> None:
    assert split_lines(text) == _reference(text)


def test_form_feed_and_line_separator_do_not_end_lines() -> None:
    assert split_lines("a\x0cb\nc\u2028d\r\ne") == ["a\x0cb\n", "c\u2028d\r\n", "e"]
    assert split_lines("a\nb\r") == ["a\n", "b\r"]


def test_one_line_splitter_feeds_every_tokenizer() -> None:
    """Lines end at \\r, \\r\\n and \\n alike everywhere (issue 25, item 10): every tokenizer
    call goes through rtlint.core.source.generate_tokens, none reads io.StringIO's lines."""
    import re
    from pathlib import Path

    from rtlint.core.source import generate_tokens

    root = Path(__file__).resolve().parents[2]
    offenders = []
    for path in [*root.joinpath("rtlint").rglob("*.py"), *root.joinpath("rules").rglob("*.py")]:
        text = path.read_text()
        if re.search(r"StringIO\([^)]*\)\.readline|tokenize\.generate_tokens\(", text) and path.name != "source.py":
            offenders.append(str(path.relative_to(root)))
    assert offenders == []
    rows = [t.start[0] for t in generate_tokens("a = 1 + \\\r    2  # c\rb = (\r\n 3)\n") if t.type == 4]
    assert rows == [2, 4]  # NEWLINE tokens: the continuation and the brackets joined, as Python reads them
