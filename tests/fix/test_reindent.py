"""rtlint.fix.layout.reindent: the lines a moved block shifts. Text without a triple quote or
a backslash has no string over several lines, so reindent skips the tokenizer there; these
tests hold that short cut to what the tokenized classification (line_kinds) gives."""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from rtlint.core.fixplan import CannotFix
from rtlint.core.source import split_lines
from rtlint.fix.layout import line_kinds, reindent


def tokenized_reindent(text: str, old: str, new: str) -> str:
    """reindent as it was before the short cut: every line classified by the tokenizer."""
    lines = split_lines(text)
    out = []
    for line, (kind, _) in zip(lines, line_kinds(text, len(lines))):
        body = line.rstrip("\r\n")
        if kind == "verbatim" or not body.strip() or not body.startswith(old):
            out.append(line)
        else:
            out.append(new + line[len(old) :])
    return "".join(out)


LINES = st.sampled_from(
    [
        "x = 1",
        "if x:",
        "    y = f(",
        "  1,",
        "        2)",
        "z = [a,",
        "b]",
        "w = 1 + \\",
        "    2",
        "# a comment",
        "  # deeper comment",
        "    # don't",
        "",
        "   ",
        "\tq = 3",
        "for i in r:",
        "        pass",
        's = "a" + t',
        "t = 'b'",
        'u = f"{x} {y!r}"',
        'v = """one line"""',
        'w = """',
        '"""',
        "'''",
        "z = 'a\\",
        "b'",
    ]
)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(LINES, min_size=1, max_size=12),
    st.sampled_from(["\n", "\r\n", "\r"]),
    st.sampled_from(["", "    ", "  "]),
    st.sampled_from(["", "    ", "        ", "\t"]),
)
def test_reindent_shifts_as_the_tokenizer_says(lines, newline, old, new):
    text = "".join(old + line + newline for line in lines)
    try:
        line_kinds(text, len(split_lines(text)))
    except CannotFix:  # code that does not tokenize is never moved: it came from a parsed file
        assume(False)
    assert reindent(text, old, new) == tokenized_reindent(text, old, new)


def test_the_inside_of_a_string_over_several_lines_stays():
    text = '    s = """\n    inside\n    """\n    t = 1\n'
    assert reindent(text, "    ", "        ") == '        s = """\n    inside\n    """\n        t = 1\n'


def test_a_backslash_continued_string_keeps_its_second_line():
    text = "    s = 'a\\\n    b'\n    t = 1\n"
    assert reindent(text, "    ", "") == "s = 'a\\\n    b'\nt = 1\n"


def test_quotes_on_one_line_take_the_short_cut_with_the_same_result():
    text = '    x = f(role="user")\n    # don\'t\n\n    y = 2\n'
    expected = '  x = f(role="user")\n  # don\'t\n\n  y = 2\n'
    assert reindent(text, "    ", "  ") == tokenized_reindent(text, "    ", "  ") == expected
