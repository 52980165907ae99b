"""Hypothesis strategies for fuzzing rtlint: Python programs built from the shapes the rules
look for (design.md's vocabulary: snapshot, push, push lock, local commit, abandon guard),
composed with random names, nesting and surrounding statements, optionally appended to a
random program from hypothesmith's grammar strategy.

Shared by tests/engine/test_fuzz.py (a bounded number of examples) and bench/fuzz.py (10,000).
"""

from __future__ import annotations

import functools
import keyword

from hypothesis import strategies as st

INDENT = "    "

# identifiers the rules give meaning to are drawn on purpose; the rest are random
_IDENTIFIER = st.from_regex(r"[a-z][a-z0-9_]{0,7}", fullmatch=True).filter(
    lambda s: (
        not keyword.iskeyword(s) and not keyword.issoftkeyword(s) and s not in {"self", "print", "len", "any", "all"}
    )
)
SESSIONS = st.sampled_from(["_rt_session", "rt_session", "_realtime_session", "_voice", "_sess"])
LOCKS = st.sampled_from(["_rt_chat_ctx_lock", "_push_lock", "_lock", "_update_lock"])
LOCALS = st.sampled_from(["self._agent._chat_ctx", "self._chat_ctx", "self._agent.chat_ctx"])


def _indent(lines: list[str], levels: int = 1) -> list[str]:
    return [INDENT * levels + line if line else line for line in lines]


@st.composite
def _names(draw) -> dict[str, str]:
    return {
        "sess": draw(SESSIONS),
        "lock": draw(LOCKS),
        "local": draw(LOCALS),
        "ctx": draw(st.one_of(st.sampled_from(["chat_ctx", "ctx", "rt_ctx"]), _IDENTIFIER)),
        "ctx2": draw(_IDENTIFIER),
        "msg": draw(st.one_of(st.sampled_from(["msg", "item"]), _IDENTIFIER)),
        "lst": draw(st.one_of(st.just("message_outputs"), _IDENTIFIER)),
        "flag": draw(st.one_of(st.just("forwarded"), _IDENTIFIER)),
        "var": draw(_IDENTIFIER),
    }


def _simple(n: dict[str, str]) -> list[list[str]]:
    """One-line statements (each a list of lines) over the names of one function."""
    s, ctx, msg, local = f"self.{n['sess']}", n["ctx"], n["msg"], n["local"]
    return [
        [f"{ctx} = {s}.chat_ctx.copy()"],  # snapshot
        [f"{ctx} = {s}.chat_ctx.copy(exclude_instructions=True)"],
        [f"{ctx} = {s}.chat_ctx"],
        [f"{n['ctx2']} = {ctx}.copy()"],
        [f"{ctx} = {local}.copy()"],  # a copy of the local context: not a snapshot
        [f"{ctx} = llm.ChatContext({s}.chat_ctx.items[:])"],
        [f'{msg} = {ctx}.add_message(role="user", content=text)'],
        [f"{ctx}.insert({msg})"],
        [f"{ctx}.items.append({msg})"],
        [f"{ctx}.items.extend([{msg}])"],
        [f"await {s}.update_chat_ctx({ctx})"],  # push
        [f"await {s}.update_chat_ctx({n['ctx2']})"],
        [f"await asyncio.wait_for({s}.update_chat_ctx({ctx}), timeout=5)"],
        [f"await {s}.update_chat_ctx(chat_ctx={local}.copy())"],
        [f"{local}._upsert_item({msg})"],  # local commits
        [f"{local}.insert({msg})"],
        [f"{local}.items.append({msg})"],
        [f"self._conversation_item_added({msg})"],
        [f'logger.debug("items: %d", len({ctx}.items))'],
        [f"await self.{n['var']}()"],
        ["await asyncio.sleep(0)"],
        [f"{n['var']} = {n['var']} + 1 if {n['var']} else 0"],
        ["pass"],
    ]


_EXITS = ["return", "raise", "pass", 'logger.exception("push failed")', "continue", "break"]


@st.composite
def block(draw, n: dict[str, str], depth: int, in_loop: bool = False) -> list[str]:
    """A non-empty list of statements (unindented lines)."""
    lines: list[str] = []
    for _ in range(draw(st.integers(1, 5))):
        kinds = ["simple"] * 6 + (["lock", "try", "if", "for", "guard", "nested"] if depth > 0 else [])
        kind = draw(st.sampled_from(kinds))
        if kind == "simple":
            lines += draw(st.sampled_from(_simple(n)))
        elif kind == "lock":
            lines += [f"async with self.{n['lock']}:"] + _indent(draw(block(n, depth - 1, in_loop)))
        elif kind == "try":
            lines += ["try:"] + _indent(draw(block(n, depth - 1, in_loop)))
            exits = [e for e in _EXITS if in_loop or e not in ("continue", "break")]
            lines += [f"except {draw(st.sampled_from(['Exception', 'ValueError', '(ValueError, KeyError)']))}:"]
            lines += _indent([draw(st.sampled_from(exits))])
            if draw(st.booleans()):
                lines += ["else:"] + _indent(draw(block(n, depth - 1, in_loop)))
            if draw(st.booleans()):
                lines += ["finally:"] + _indent(draw(block(n, depth - 1, in_loop)))
        elif kind == "if":
            lines += [f"if {n['var']}:"] + _indent(draw(block(n, depth - 1, in_loop)))
            if draw(st.booleans()):
                lines += ["else:"] + _indent(draw(block(n, depth - 1, in_loop)))
        elif kind == "for":
            body = draw(block(n, depth - 1, True))
            if draw(st.booleans()):
                body = [f"if {n['var']}:", INDENT + draw(st.sampled_from(["break", "return", "continue"]))] + body
            lines += [f"for {n['var']} in range(3):"] + _indent(body)
        elif kind == "guard":
            lines += draw(abandon_guard(n))
        elif kind == "nested":
            name = draw(_IDENTIFIER)
            lines += [f"async def _{name}():"] + _indent(draw(block(n, depth - 1)))
            lines += [f"await _{name}()"]
    return lines


@st.composite
def abandon_guard(draw, n: dict[str, str]) -> list[str]:
    """RTL003's shape: a list filled by a loop that can leave early, a flag computed from the
    list, a cleanup push guarded by the flag."""
    lst, flag, m = n["lst"], n["flag"], draw(_IDENTIFIER)
    loop = draw(st.sampled_from(["async for", "for"]))
    exit_ = draw(st.sampled_from(["break", "return"]))
    lines = [f"{lst} = []" if draw(st.booleans()) else f"{lst}: list[Output] = []"]
    body = [f"if {n['var']}:", INDENT + exit_, f"{lst}.append({m})"]
    if draw(st.booleans()):
        body = [f"{lst}.append({m})", f"if {m}.interrupted:", INDENT + exit_]
    lines += [f"{loop} {m} in stream:"] + _indent(body)
    style = draw(st.sampled_from(["any", "loop", "not_all"]))
    if style == "any":
        lines += [f"{flag} = any(o.{draw(st.sampled_from(['forwarded', 'done']))} for o in {lst})"]
    elif style == "not_all":
        lines += [f"{flag} = not all(o.done for o in {lst})"]
    else:
        lines += [f"{flag} = False", f"for o in {lst}:", INDENT + "if o.forwarded:", INDENT * 2 + f"{flag} = True"]
    push = draw(
        st.sampled_from(
            [
                f"await self.{n['sess']}.update_chat_ctx({n['local']}.copy())",
                f"await self.{n['sess']}.update_chat_ctx({n['local']})",
            ]
        )
    )
    lines += [f"if {flag}:"] + _indent([push])
    return lines


@st.composite
def realtime_class(draw) -> str:
    n = draw(_names())
    cls = draw(_IDENTIFIER).capitalize() or "Activity"
    lines: list[str] = [f"class {cls}:"]
    if n["sess"] in ("_voice", "_sess"):  # only an annotation says it is a session
        lines += _indent([f"{n['sess']}: llm.RealtimeSession | None = None", ""])
    if draw(st.booleans()):  # an __init__ (the lock fix adds the lock there)
        init = [f"self.{n['sess']} = session", "self._agent = agent"]
        if draw(st.booleans()):
            init.append(f"self.{n['lock']} = asyncio.Lock()")
        if draw(st.booleans()):
            init.append("self._other_lock = asyncio.Lock()")
        lines += _indent(["def __init__(self, session, agent):"] + _indent(init) + [""])
    for _ in range(draw(st.integers(1, 3))):
        name = draw(_IDENTIFIER)
        body = draw(block(n, draw(st.integers(0, 3))))
        if draw(st.booleans()):  # the snapshot-then-push core, so most methods have a finding
            core = [f"{n['ctx']} = self.{n['sess']}.chat_ctx.copy()"]
            core += [f'{n["msg"]} = {n["ctx"]}.add_message(role="user", content=text)']
            core += [f"await self.{n['sess']}.update_chat_ctx({n['ctx']})"]
            if draw(st.booleans()):
                core += [f"{n['local']}._upsert_item({n['msg']})"]
            at = draw(st.integers(0, len(body)))
            body = body[:at] + core + body[at:] if _top_level_gap(body, at) else core + body
        decorator = draw(st.sampled_from(["", "", "", "@staticmethod", "@property"]))
        header = [decorator] if decorator else []
        kind = draw(st.sampled_from(["async def", "async def", "async def", "def"]))
        lines += _indent(header + [f"{kind} {name}(self, text, stream):"] + _indent(body) + [""])
    return "\n".join(lines) + "\n"


def _top_level_gap(body: list[str], at: int) -> bool:
    """Whether inserting before body[at] keeps the block valid (not inside a compound statement,
    not between a `try:` block and its handlers)."""
    if at == len(body):
        return True
    line = body[at]
    return not line.startswith((" ", "except", "else", "finally", "elif"))


HEADERS = [
    "import asyncio\nimport logging\n\nfrom livekit.agents import llm\n\nlogger = logging.getLogger(__name__)\n\n\n",
    "from __future__ import annotations\n\nimport logging\n\nlogger = logging.getLogger(__name__)\n\n\n",
    '"""A module."""\nfrom asyncio import Lock\nimport logging as log\n\nlogger = log.getLogger()\n\n\n',
    "",
]


@st.composite
def realtime_module(draw) -> str:
    header = draw(st.sampled_from(HEADERS))
    classes = [draw(realtime_class()) for _ in range(draw(st.integers(1, 2)))]
    module = header + "\n\n".join(classes)
    if draw(st.booleans()):  # a module-level function: no class to hold a lock
        n = draw(_names())
        body = [f"{n['ctx']} = rt_session.chat_ctx.copy()", f"await rt_session.update_chat_ctx({n['ctx']})"]
        module += "\n\nasync def push_text(rt_session, text):\n" + "\n".join(_indent(body)) + "\n"
    return module


@functools.cache
def hypothesmith_programs():
    """hypothesmith's programs from the Python grammar (built once: building its grammar
    strategy compiles a parser, seconds each time)."""
    import hypothesmith

    return hypothesmith.from_grammar()


@st.composite
def spliced_module(draw) -> str:
    """A random program from the grammar with realtime shapes appended to it."""
    program = draw(hypothesmith_programs())
    if program and not program.endswith(("\n", "\r")):
        program += "\n"
    return program + "\n" + draw(realtime_module())


def crlf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\n", "\r\n")
