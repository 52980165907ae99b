"""`rtlint check --show-settings FILE`: the settings a file is linted with, and where each
came from (a configuration file, the command line, or the default), as ruff's
`--show-settings` shows them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import argparse
    from typing import TextIO

    from rtlint.engine.config import Config


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {_toml(v)}" for k, v in value.items()) + " }" if value else "{}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, int):
        return str(value)
    return json.dumps(str(value))


def _shown(path: Path | str) -> str:
    from rtlint.engine.runner import display_path

    return display_path(Path(path)) if str(path) not in ("default", "command line") else str(path)


def show(path: Path, config: Config, args: argparse.Namespace, out: TextIO) -> None:
    from rtlint.engine import config as config_module
    from rtlint.report import escape

    def line(text: str) -> None:
        out.write(escape.text(text) + "\n")

    line(f"Settings for {_shown(path)}")
    if config.source is None:
        line("configuration: none found (the defaults)")
    else:
        line(f"configuration: {_shown(config.source)}")
        for extended in config.chain[1:]:
            line(f"  extends: {_shown(extended)}")
        if config.shadows is not None:
            line(
                f"  used alone, as ruff does: it does not extend {_shown(config.shadows)}, whose settings do not apply"
            )
    rules = ", ".join(rule.code for rule in config.rule_classes) or "none"
    line(f"rules enabled: {rules}")
    line(f"RTL100 (unused suppressions): {'on' if config.report_unused else 'off'}")
    ignored = config.ignored_in(path)
    if ignored:
        line(f"per-file ignores for this file: {', '.join(ignored)}")
    if config.excludes_buffer(path):
        line("excluded: yes (a walk skips it; named on the command line it is linted unless --force-exclude)")
    rows = config_module.describe(config, path)
    if args.select is not None:
        rows.append(("select", list(args.select), "command line"))
    if args.ignore:
        rows.append(("ignore", list(args.ignore), "command line"))
    width = max(len(f"{key} = {_toml(value)}") for key, value, _ in rows)
    for key, value, where in rows:
        setting = f"{key} = {_toml(value)}"
        line(f"{setting.ljust(min(width, 60))}  # {_shown(where)}")
