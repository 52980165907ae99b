"""RTL009 misrouted-context-frame (Pipecat: a context frame pushed away from every aggregator)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from rtlint.core.findings import Finding
from rtlint.core.rule import Invalid, Rule

from . import _appfix as fx
from ._analysis.index import ClassInfo, Function, final_name
from ._frameworks import framework_of, pipecat
from ._frameworks.pipecat.pipelines import MISROUTABLE, Placement, placements

_PROCESSOR_MODULE = "pipecat.processors.frame_processor"
# what is lost with each frame
_LOST = {
    "LLMMessagesAppendFrame": "its messages never reach the context",
    "LLMMessagesUpdateFrame": "its messages never reach the context",
    "LLMMessagesTransformFrame": "its transform never runs on the context",
    "LLMRunFrame": "the completion never runs",
    "LLMContextFrame": "it never reaches the LLM and the completion never runs",
}


class MisroutedContextFrame(Rule):
    """
    ## What it does
    On Pipecat, finds a context frame (`LLMMessagesAppendFrame`, `LLMMessagesUpdateFrame`,
    `LLMMessagesTransformFrame`, `LLMRunFrame`, `LLMContextFrame`) that a processor pushes
    away from every aggregator: `FrameDirection.UPSTREAM` from a processor placed before the
    user aggregator, or downstream (`push_frame`'s default) from one placed after the
    assistant aggregator, in a `Pipeline([...])` of the same file.

    ## Why is this bad?
    Only the aggregators apply these frames. In pipecat-ai 1.14.0 both the user and the
    assistant aggregator apply an Append, Update or Transform and answer an `LLMRunFrame` in
    either direction, and pass none of them on (`llm_response_universal.py`); every other
    processor forwards them. An `LLMContextFrame` is read by the LLM service, which sits
    between the two aggregators; they pass it on. A frame pushed the other way passes no
    aggregator and no LLM and reaches the pipeline's source or sink, where the worker drops
    it: the messages never reach the context, the completion never runs, and nothing says so.
    A note appended by a processor at the end of the pipeline ("the caller asked for a
    human") is simply gone.

    ## Example
    ```python
    class OperatorRequest(FrameProcessor):  # placed after the assistant aggregator
        async def process_frame(self, frame, direction):
            await super().process_frame(frame, direction)
            await self.push_frame(frame, direction)
            if isinstance(frame, InputDTMFFrame) and frame.button == KeypadEntry.ZERO:
                await self.push_frame(LLMMessagesAppendFrame(messages=[NOTE], run_llm=True))

    pipeline = Pipeline([transport.input(), pair.user(), llm, transport.output(), pair.assistant(), OperatorRequest()])
    ```

    Use instead:
    ```python
                await self.push_frame(LLMMessagesAppendFrame(messages=[NOTE], run_llm=True), FrameDirection.UPSTREAM)
    ```

    ## Fix
    Reverse the direction: `FrameDirection.UPSTREAM` where the frame went downstream (the
    argument is added where the default was used), `FrameDirection.DOWNSTREAM` where it went
    upstream.

    ## Fix safety
    Safe for an Append, Update or Transform that does not run the LLM: the only change is that
    the messages land in the context, which is what the frame asks for. Unsafe for an
    `LLMRunFrame`, an `LLMContextFrame` or a frame with `run_llm` not `False`: the fixed code
    also runs a completion (the bot speaks) where it never did, at a moment nobody has heard
    it speak. No fix when the file does not import `FrameDirection` by name.

    ## What is read, and when the rule stays silent
    Precision first: a placement is read only where the file shows it beyond doubt.
    - The processor's class is defined in the file, has no subclass there, and every instance
      the file builds (inline, or bound once to a name) is placed in a `Pipeline([...])` list
      (`processors=` too) written out in the same function (or a name bound once to such a
      list and used only there), and that pipeline is handed to a `PipelineTask`/
      `PipelineWorker` (the root: a nested pipeline's ends lead to its parent; the
      `RTVIProcessor` a worker puts before it forwards context frames). Not a bridged worker
      (its ends tee onto a bus), not a pipeline with its own `source=`/`sink=`, and not a file
      that handles `on_frame_reached_upstream`/`downstream` (a handler may requeue the
      frame). Placed several times, every placement must drop the frame.
    - The push is `self.push_frame(<frame>, <direction>)` in the class's methods, the frame
      built in the call or bound once to a name in the method, the direction a literal
      `FrameDirection.UPSTREAM`/`DOWNSTREAM` or absent (downstream).
    - Aggregators are recognised as `<pair>.user()`/`.assistant()` of a name bound to
      `LLMContextAggregatorPair(...)` or `create_context_aggregator(...)`, the two names
      unpacked from those, or `LLMUserAggregator(...)`/`LLMAssistantAggregator(...)`
      instances (a class named `...User...Aggregator`), directly or through a name. A
      `TranscriptProcessor`'s `.user()` is not one.
    - Everything between the processor and the pipeline's end, in the push's direction, must
      be known to forward the frame: a transport's `.input()`/`.output()`, a constructor of a
      class whose name says nothing of an LLM, aggregator, pipeline, switch(er), gate, bridge,
      flow, context, realtime, live, memory, multimodal, Ultravox, agent or router, or an
      instance of a class of the file that tests no frame for a context frame's type. A
      parameter, an attribute, a nested or parallel pipeline, an LLM service (a
      speech-to-speech one applies Appends itself), a conditional or starred element there:
      silent.
    - What is on the way out is all the rule asks of an `LLMContextFrame`: the aggregators pass
      it on, so only a known-forwarding way out (no LLM on it) says that no LLM reads it.
    """

    code = "RTL009"
    name = "misrouted-context-frame"
    summary = "a context frame is pushed away from every aggregator, to the pipeline's end, where it is dropped"
    fix_availability = "sometimes"
    options = ()

    VALID = [
        """
from pipecat.frames.frames import LLMMessagesAppendFrame
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineWorker
from pipecat.processors.aggregators.llm_response_universal import LLMContextAggregatorPair
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor


class Note(FrameProcessor):
    async def process_frame(self, frame, direction):
        await super().process_frame(frame, direction)
        await self.push_frame(frame, direction)
        await self.push_frame(LLMMessagesAppendFrame(messages=[]), FrameDirection.UPSTREAM)


def build(context, llm):
    pair = LLMContextAggregatorPair(context)
    return PipelineWorker(Pipeline([pair.user(), llm, pair.assistant(), Note()]))
""",
    ]
    INVALID = [
        Invalid(
            """
from pipecat.frames.frames import LLMMessagesAppendFrame
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineWorker
from pipecat.processors.aggregators.llm_response_universal import LLMContextAggregatorPair
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor


class Note(FrameProcessor):
    async def process_frame(self, frame, direction):
        await super().process_frame(frame, direction)
        await self.push_frame(frame, direction)
        await self.push_frame(LLMMessagesAppendFrame(messages=[]))


def build(context, llm):
    pair = LLMContextAggregatorPair(context)
    return PipelineWorker(Pipeline([pair.user(), llm, pair.assistant(), Note()]))
""",
            lines=(13,),
            expected_fix="""
from pipecat.frames.frames import LLMMessagesAppendFrame
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineWorker
from pipecat.processors.aggregators.llm_response_universal import LLMContextAggregatorPair
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor


class Note(FrameProcessor):
    async def process_frame(self, frame, direction):
        await super().process_frame(frame, direction)
        await self.push_frame(frame, direction)
        await self.push_frame(LLMMessagesAppendFrame(messages=[]), FrameDirection.UPSTREAM)


def build(context, llm):
    pair = LLMContextAggregatorPair(context)
    return PipelineWorker(Pipeline([pair.user(), llm, pair.assistant(), Note()]))
""",
        )
    ]

    def required_tokens(self) -> list[tuple]:
        return [(b"Pipeline",), (b"push_frame",), tuple(f.encode() for f in sorted(MISROUTABLE))]

    def check(self, file) -> Iterator[Finding]:
        if framework_of(file) is not pipecat or "on_frame_reached_" in file.text:
            return
        module = pipecat.analyse(file)
        index = module.index
        for cls in index.classes:
            pushes = [p for f in index.functions if f.cls is cls for p in _pushes(module, f)]
            if not pushes or any(cls in index.bases(other) for other in index.classes):
                continue
            placed = placements(module, cls)
            if placed is None:
                continue
            for call, frame, upstream in pushes:
                if all(p.drops(upstream) for p in placed):
                    yield self._finding(module, cls, call, frame, upstream, placed[0])

    def _finding(self, module, cls: ClassInfo, call: ast.Call, frame: ast.Call, upstream: bool, at: Placement):
        file = module.file
        name = final_name(frame.func)
        if upstream:
            way, where, end = "upstream", "before the user aggregator", "source"
        else:
            given = _direction(call) is not None
            way = "downstream" if given else "downstream (push_frame's default)"
            where, end = "after the assistant aggregator", "sink"
        message = (
            f"`{name}` is pushed {way} by `{cls.node.name}`, placed {where} in the pipeline at line "
            f"{at.pipeline.lineno}: it passes no aggregator, reaches the pipeline's {end} and is dropped, so "
            f"{_LOST[name]}; push it {'downstream' if upstream else 'upstream'}"
        )
        return self.report(file, call, message, plan=_plan(module, call, frame, upstream), symbol=cls.qualname)


def _pushes(module, function: Function) -> Iterator[tuple[ast.Call, ast.Call, bool]]:
    """(push, the frame it pushes, upstream?) of every `self.push_frame` of a context frame the
    aggregators apply, with a literal direction or none."""
    for call in module.calls(function):
        func = call.func
        if not (isinstance(func, ast.Attribute) and func.attr == "push_frame"):
            continue
        if not (isinstance(func.value, ast.Name) and func.value.id == function.self_name and call.args):
            continue
        frame = _frame(module, function, call.args[0])
        direction = _direction(call)
        if frame is None or len(call.args) > 2 or (direction is None and (call.keywords or len(call.args) > 1)):
            continue
        literal = _literal(direction) if direction is not None else "DOWNSTREAM"
        if literal is not None:
            yield call, frame, literal == "UPSTREAM"


def _frame(module, function: Function, argument: ast.expr) -> ast.Call | None:
    """The frame's constructor, in the call or bound once to a name in the function."""
    if isinstance(argument, ast.Name):
        stores = [
            n
            for n in module.index.nodes(function.node)
            if isinstance(n, ast.Name) and n.id == argument.id and not isinstance(n.ctx, ast.Load)
        ]
        assignment = module.index.parents.get(id(stores[0])) if len(stores) == 1 else None
        if not (isinstance(assignment, ast.Assign) and assignment.targets == [stores[0]]):
            return None
        argument = assignment.value
    if isinstance(argument, ast.Call) and final_name(argument.func) in MISROUTABLE:
        return argument
    return None


def _direction(call: ast.Call) -> ast.expr | None:
    if len(call.args) > 1:
        return call.args[1]
    return next((k.value for k in call.keywords if k.arg == "direction"), None)


def _literal(direction: ast.expr) -> str | None:
    """UPSTREAM or DOWNSTREAM for `FrameDirection.UPSTREAM`/`.DOWNSTREAM` (any module prefix)."""
    if isinstance(direction, ast.Attribute) and direction.attr in ("UPSTREAM", "DOWNSTREAM"):
        if final_name(direction.value) == "FrameDirection":
            return direction.attr
    return None


def _plan(module, call: ast.Call, frame: ast.Call, upstream: bool) -> fx.Plan:
    file = module.file
    path = file.path_of(module.index.statement_of(call))
    direction = _direction(call)
    runs = final_name(frame.func) in ("LLMRunFrame", "LLMContextFrame") or any(
        k.arg == "run_llm" and not (isinstance(k.value, ast.Constant) and k.value.value is False)
        for k in frame.keywords
    )
    applicability = "unsafe" if runs else "safe"
    reason = "the frame also runs a completion where none ran before: the bot speaks there" if runs else ""
    new = "DOWNSTREAM" if upstream else "UPSTREAM"
    if direction is not None:
        text = f"{file.segment(direction.value)}.{new}"

        def apply(editor) -> None:
            editor.replace_segments(editor.locate(path), [(direction, text)])

        return fx.Plan(applicability, reason, [apply])
    named = _frame_direction(file.tree)
    if named is None:
        return fx.no_fix(f"the file does not import FrameDirection from {_PROCESSOR_MODULE} by name")
    last, argument = call.args[-1], f"{named}.{new}"

    def add(editor) -> None:
        row, column = editor.position(last, "end")
        start_row, start_column = editor.position(last, "start")
        closing = call.end_lineno - 1
        between = editor.lines[row][column:] if row < closing else ""
        if between.lstrip().startswith(",") and editor.lines[start_row][:start_column].strip() == "":
            # one argument a line, with a trailing comma: the direction goes on a line of its own
            line = " " * start_column + argument + ",\n"
            editor.replace_spans(editor.locate(path), [(row + 1, 0, row + 1, 0, line)])
            return
        editor.replace_spans(editor.locate(path), [(row, column, row, column, f", {argument}")])

    return fx.Plan(applicability, reason, [add])


def _frame_direction(tree: ast.Module) -> str | None:
    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom) and stmt.module == _PROCESSOR_MODULE:
            for alias in stmt.names:
                if alias.name == "FrameDirection":
                    return alias.asname or alias.name
    return None
