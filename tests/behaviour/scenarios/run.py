"""Run behaviour scenarios in a framework's venv (LiveKit's or Pipecat's).

    python run.py SCENARIO [SCENARIO ...] [--registry MODULE] [--agent-activity FILE]
                  [--module NAME=FILE ...] [--path DIR ...]

--registry names the module (in this folder) whose SCENARIOS dict maps the names to
coroutine functions: scenario_defs (LiveKit, the default) or pc_scenario_defs (Pipecat).
--agent-activity makes `livekit.agents.voice.agent_activity` load from FILE instead of the
installed package (a meta-path finder: `livekit` is a namespace package and
`livekit.agents` a regular one, so only that one module is swapped, and its relative
imports still resolve inside the installed `livekit.agents`). --module does the same for
any module (the application modules of the app scenarios, `livekit_memorysync.memory`);
--path puts a folder of extra packages on sys.path. Prints one JSON line, prefixed with
RESULT_PREFIX, holding every scenario's result.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import importlib.abc
import importlib.util
import json
import logging
import sys
import traceback
from pathlib import Path

RESULT_PREFIX = "RTLINT-BEHAVIOUR-RESULT "
TARGET = "livekit.agents.voice.agent_activity"
SCENARIO_TIMEOUT = 40.0  # a safety net only: scenarios synchronise on events


class _VariantFinder(importlib.abc.MetaPathFinder):
    def __init__(self, files: dict[str, Path]) -> None:
        self.files = files

    def find_spec(self, fullname, path=None, target=None):
        if fullname in self.files:
            return importlib.util.spec_from_file_location(fullname, self.files[fullname])
        return None


def _module_file(text: str) -> tuple[str, Path]:
    name, _, file = text.partition("=")
    return name, Path(file).resolve()


def _sha256(file: Path) -> str:
    return hashlib.sha256(file.read_bytes()).hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("scenarios", nargs="+")
    parser.add_argument("--registry", default="scenario_defs")
    parser.add_argument("--agent-activity", type=Path)
    parser.add_argument("--module", type=_module_file, action="append", default=[])
    parser.add_argument("--path", type=Path, action="append", default=[])
    args = parser.parse_args()

    files = dict(args.module)
    if args.agent_activity is not None:
        files[TARGET] = args.agent_activity.resolve()
    assert not any(name in sys.modules for name in files)
    sys.meta_path.insert(0, _VariantFinder(files))
    for folder in reversed(args.path):
        sys.path.insert(0, str(folder.resolve()))

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    registry = importlib.import_module(args.registry)  # imports the framework, after the finder

    out: dict = {"scenarios": {}}
    if TARGET in sys.modules:  # the LiveKit registry imports it
        loaded = Path(sys.modules[TARGET].__file__).resolve()
        out["loaded_agent_activity"] = str(loaded)
        out["loaded_sha256"] = _sha256(loaded)
    for name in args.scenarios:
        fn = registry.SCENARIOS[name]
        try:
            result = asyncio.run(asyncio.wait_for(fn(), SCENARIO_TIMEOUT))
        except BaseException as e:  # report, and go on with the other scenarios
            result = {"error": f"{type(e).__name__}: {e}", "traceback": traceback.format_exc()}
        out["scenarios"][name] = result
    # the file each swapped module was really loaded from (the app scenarios import lazily)
    loaded_modules = {
        name: Path(sys.modules[name].__file__).resolve() for name in files if name != TARGET and name in sys.modules
    }
    out["modules"] = {name: str(file) for name, file in loaded_modules.items()}
    out["module_sha256"] = {name: _sha256(file) for name, file in loaded_modules.items()}
    print(RESULT_PREFIX + json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
