"""The pipecat-ai venv the Pipecat behaviour scenarios run in, and how to run them.

The rtlint test process never imports pipecat: it builds (once, cached) a venv with
pipecat-ai 1.14.0 and only the packages its pipeline, aggregators, LLM service and frames
import (the speech, VAD and turn-analyzer stacks it also declares — numba, onnxruntime,
resampy, soundfile — are never imported by the scenarios and are left out), every one pinned
and installed without dependency resolution, so the venv is the same on every machine. The
build ends with an import of what the scenarios use: a pin list that misses a package fails
there, not in a scenario.

A failed download is an error (BuildError, with pip's message), never a skip.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from venvs import BuildError, cached_folder, create_venv, interpreter_tag, pip_install, venv_python
from venvs import run_scenarios as _run_scenarios

from tests.support.wheels import cache_root

PIPECAT_AI = "1.14.0"
MIN_PYTHON = (3, 11)  # pipecat-ai 1.14.0's Requires-Python
# pipecat-ai's own requirements that its core imports, and theirs; openai is the default
# adapter every LLMService (the scripted one too) converts its context with
REQUIREMENTS = [
    f"pipecat-ai=={PIPECAT_AI}",
    "aiofiles==25.1.0",
    "aiohappyeyeballs==2.7.1",
    "aiohttp==3.14.5",
    "aiosignal==1.4.0",
    "annotated-types==0.8.0",
    "anyio==4.16.0",
    "attrs==26.1.0",  # imported as `attr` by pipecat.pipeline.worker_observer (aiohttp's dependency)
    "audioop-lts==0.2.2; python_version >= '3.13'",
    "docstring_parser==0.18.0",
    "frozenlist==1.8.0",
    "h11==0.16.0",
    "httpcore2==2.16.2",
    "httpx2==2.16.2",
    "idna==3.20",
    "jiter==0.19.0",
    "loguru==0.7.3",
    "loudness==0.2.0",
    "multidict==7.2.1",
    "numpy==2.4.6",
    "openai==3.57.0",
    "pillow==13.0.0",
    "propcache==0.5.4",
    "pydantic==2.14.4",
    "pydantic_core==2.50.5",
    "sentencex==1.0.32",
    "sniffio==1.3.1",
    "soxr==1.0.0",
    "truststore==0.10.5",
    "typing_extensions==4.16.0",
    "typing-inspection==0.4.5",
    "wait_for2==0.4.1; python_version < '3.12'",
    "websockets==17.4",
    "yarl==1.25.1",
]
# what the scenarios import (scenarios/pc_harness.py and the apps)
SMOKE_IMPORT = (
    "import pipecat.pipeline.pipeline, pipecat.pipeline.worker, pipecat.workers.runner, "
    "pipecat.processors.aggregators.llm_response_universal, pipecat.services.llm_service, "
    "pipecat.tests.utils, pipecat.turns.user_turn_strategies, "
    "pipecat.adapters.llm.services.open_ai_adapter"
)

HERE = Path(__file__).resolve().parent
APPS = HERE / "apps"
HANDFIXED = APPS / "handfixed"  # the same apps fixed by hand from design.md's fix text
REGISTRY = "pc_scenario_defs"  # scenarios/pc_scenario_defs.py
SCENARIO_BUDGET = 45.0  # seconds per scenario, beyond its own 40 s safety net


@dataclass(frozen=True)
class App:
    """An application module under test: apps/<file> as a Pipecat user wrote it, and (when it
    has a bug) apps/handfixed/<file> fixed by hand from design.md's fix text."""

    file: str
    code: str | None  # what rtlint reports on the pristine file; None: correct code, nothing
    at: str | None  # ... on the line holding this text (where design.md says it is reported)
    scenario: str  # the scenario of scenarios/pc_scenario_defs.py that runs it
    fix_args: tuple[str, ...] = ()  # ("--unsafe-fixes",) where the fix is unsafe

    @property
    def module(self) -> str:
        """The name the scenario imports it by (run.py's --module swaps the variant in)."""
        return "app_" + self.file.removesuffix(".py")

    @property
    def pristine(self) -> Path:
        return APPS / self.file

    @property
    def handfixed(self) -> Path:
        return HANDFIXED / self.file


APP_TABLE = (
    App("pipecat_memory.py", "RTL005", "frame.context.set_messages(messages)", "pc_memory_writeback"),
    App("pipecat_memory_prepend.py", "RTL005", "frame.context.set_messages(messages)", "pc_memory_prepend_writeback"),
    App("pipecat_memory_live.py", None, None, "pc_memory_live_writeback"),
    App("pipecat_handover.py", "RTL005", "LLMMessagesUpdateFrame(", "pc_handover_update"),
    App("pipecat_greeting.py", "RTL005", "LLMMessagesUpdateFrame(", "pc_greeting_update"),
    App("pipecat_save.py", "RTL008", "messages.pop()", "pc_save_conversation"),
    App("pipecat_intro.py", "RTL006", "asyncio.create_task(", "pc_intro_detached_append", ("--unsafe-fixes",)),
    App("pipecat_keypad.py", "RTL006", "asyncio.create_task(", "pc_keypad_detached_append", ("--unsafe-fixes",)),
    App(
        "pipecat_operator.py",
        "RTL009",
        "await self.push_frame(LLMMessagesAppendFrame(",
        "pc_operator_misrouted_append",
        ("--unsafe-fixes",),
    ),
)


class UnsupportedPython(RuntimeError):
    """pipecat-ai 1.14.0 does not install on this interpreter."""


def venv_dir() -> Path:
    # keyed by the pinned version and the interpreter's minor version
    return cache_root() / f"pipecat-{PIPECAT_AI}-{interpreter_tag()}"


def ensure_venv() -> Path:
    """Return the python of the cached pipecat venv, building it if needed; a failed build
    raises venvs.BuildError."""
    if sys.version_info < MIN_PYTHON:
        raise UnsupportedPython(
            f"pipecat-ai {PIPECAT_AI} needs Python {'.'.join(map(str, MIN_PYTHON))} or newer; "
            f"this is {sys.version.split()[0]}"
        )

    def build(tmp: Path) -> None:
        python = create_venv(tmp)
        pip_install(python, ["--no-deps", *REQUIREMENTS], what=f"the pipecat-ai {PIPECAT_AI} venv", timeout=900)
        _smoke(python)

    return venv_python(cached_folder(venv_dir(), build, "\n".join(REQUIREMENTS) + "\n"))


def _smoke(python: Path) -> None:
    proc = subprocess.run([str(python), "-c", SMOKE_IMPORT], capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        raise BuildError(
            f"the pipecat-ai {PIPECAT_AI} venv was installed but cannot import what the scenarios use "
            f"(a pin missing from pcenv.REQUIREMENTS?):\n{proc.stderr[-4000:]}",
            index_reachable=True,
        )


def run_apps(python: Path, files: dict[App, Path]) -> dict:
    """Run the scenario of each app in one process, the app loaded from the file it maps to
    (the pristine, hand-fixed or rtlint-fixed variant).

    Returns {"scenarios": {name: result}, "modules", "module_sha256", "stderr_tail"}; a
    scenario that raised has {"error", "traceback"} as its result.
    """
    return _run_scenarios(
        python,
        [app.scenario for app in files],
        registry=REGISTRY,
        modules={app.module: file for app, file in files.items()},
        env={"LOGURU_LEVEL": "WARNING"},
        timeout=30 + SCENARIO_BUDGET * len(files),
    )
