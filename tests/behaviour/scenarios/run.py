"""Run behaviour scenarios against the real livekit AgentSession; runs in the livekit venv.

    python run.py SCENARIO [SCENARIO ...] [--agent-activity FILE] [--module NAME=FILE ...]
                  [--path DIR ...]

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

    def find_spec(self, fullname, path=None, target=None):  # noqa: ANN001
        if fullname in self.files:
            return importlib.util.spec_from_file_location(fullname, self.files[fullname])
        return None


def _module_file(text: str) -> tuple[str, Path]:
    name, _, file = text.partition("=")
    return name, Path(file).resolve()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("scenarios", nargs="+")
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
    import scenario_defs  # imports livekit, after the finder is in place

    module = sys.modules[TARGET]
    loaded = Path(module.__file__).resolve()
    out: dict = {
        "loaded_agent_activity": str(loaded),
        "loaded_sha256": hashlib.sha256(loaded.read_bytes()).hexdigest(),
        "scenarios": {},
    }
    for name in args.scenarios:
        fn = scenario_defs.SCENARIOS[name]
        try:
            result = asyncio.run(asyncio.wait_for(fn(), SCENARIO_TIMEOUT))
        except BaseException as e:  # report, and go on with the other scenarios
            result = {"error": f"{type(e).__name__}: {e}", "traceback": traceback.format_exc()}
        out["scenarios"][name] = result
    # the file each swapped module was really loaded from (the app scenarios import lazily)
    out["modules"] = {
        name: str(Path(sys.modules[name].__file__).resolve())
        for name in files
        if name != TARGET and name in sys.modules
    }
    print(RESULT_PREFIX + json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
