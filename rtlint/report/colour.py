"""Colour on a terminal: `--color auto|always|never`, with the NO_COLOR and FORCE_COLOR
conventions (https://no-color.org, https://force-color.org) deciding `auto`."""

from __future__ import annotations

import os

_STYLES = {"path": "1", "code": "1;31", "fixable": "36", "summary": "1"}


def wanted(choice: str, stream) -> bool:
    """Whether to colour `stream`: `always`/`never` as told; `auto` colours a terminal,
    unless NO_COLOR is set (and not empty), or FORCE_COLOR is set (and not empty)."""
    if choice != "auto":
        return choice == "always"
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and os.environ.get("TERM") != "dumb"


def paint(text: str, style: str, on: bool) -> str:
    return f"\x1b[{_STYLES[style]}m{text}\x1b[0m" if on and text else text
