"""A baseline: the findings a codebase had when it adopted rtlint, kept in a file instead of
`# noqa` comments (`rtlint check --baseline FILE`).

A finding is matched by its code, its file (relative to the baseline's folder, so the file
works from any working folder) and a hash of the text of its reported line without its
white space, so it survives the line moving, being re-indented (under a lock a fix adds) or
re-spaced by a formatter. The entries are a multiset: a file with two identical findings on identical lines
has two entries, and a third is new. `line` and `message` are kept for the reader only.

    {"rtlint-baseline": 1, "version": "0.2.2",
     "findings": [{"code": "RTL001", "path": "src/agent.py", "line-hash": "9f86d081884c7d65",
                   "line": 9, "message": "snapshot of ..."}]}
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rtlint.core import reading
from rtlint.core.findings import Finding
from rtlint.core.source import split_lines

FORMAT = 1
# never baselined, always reported: a file that cannot be analysed, rtlint's own failure
NOT_BASELINED = ("RTL900", "RTL901", "RTL902")

Key = tuple[str, str, str]  # code, path relative to the baseline's folder, line hash


class BaselineError(Exception):
    pass


def line_hash(line: str) -> str:
    """The line's text without its white space (indentation, spacing a formatter changes)."""
    return hashlib.sha256("".join(line.split()).encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _relative(display_path: str, folder: Path) -> str:
    """A finding's path relative to the baseline's folder ("-" and other buffers as they are)."""
    if display_path == "-":
        return display_path
    return Path(os.path.relpath(Path(display_path).absolute(), folder)).as_posix()


@dataclass
class Baseline:
    path: Path
    entries: Counter = field(default_factory=Counter)  # Key -> count

    @property
    def folder(self) -> Path:
        return self.path.absolute().parent

    def key(self, finding: Finding, text: str | None) -> Key:
        lines = split_lines(text) if text is not None else []
        line = lines[finding.line - 1] if 1 <= finding.line <= len(lines) else ""
        return (finding.code, _relative(finding.path, self.folder), line_hash(line))


@dataclass
class Filtered:
    reported: list[Finding]  # not in the baseline
    baselined: int  # findings the baseline holds, not reported
    stale: int  # entries of the files checked that match no finding any more


def load(path: Path) -> Baseline | None:
    """The baseline in `path`, or None when there is no such file."""
    try:
        raw = reading.read_file(path, reading.MAX_SOURCE)[0]
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise BaselineError(f"cannot read the baseline {path}: {exc.strerror or exc}") from None
    try:
        data = json.loads(raw)
        if data.get("rtlint-baseline") != FORMAT:
            raise ValueError(f'no "rtlint-baseline": {FORMAT}')
        entries = Counter((e["code"], e["path"], e["line-hash"]) for e in data["findings"])
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise BaselineError(f"{path} is not an rtlint baseline ({exc}); delete it to write a new one") from None
    return Baseline(path, entries)


def write(path: Path, findings: Sequence[Finding], texts: dict[str, str | None]) -> int:
    """Write the baseline of `findings` (`texts`: each finding's file text, by display path)
    to `path`, atomically; the number of entries."""
    from rtlint import __version__

    baseline = Baseline(path)
    rows = []
    for f in sorted(baselined(findings), key=lambda f: f.sort_key):
        code, relative, digest = baseline.key(f, texts.get(f.path))
        rows.append({"code": code, "path": relative, "line-hash": digest, "line": f.line, "message": f.message})
    document = {"rtlint-baseline": FORMAT, "version": __version__, "findings": rows}
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        temporary.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
        os.replace(temporary, path)
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        raise BaselineError(f"cannot write the baseline {path}: {exc.strerror or exc}") from None
    return len(rows)


def baselined(findings: Iterable[Finding]) -> list[Finding]:
    return [f for f in findings if f.code not in NOT_BASELINED]


def apply(baseline: Baseline, findings: Sequence[Finding], texts: dict[str, str | None], checked: set[str]) -> Filtered:
    """The findings not in `baseline`, in order (the first ones of a key, by position, are
    the baselined ones). `checked`: the display paths of the files this run checked, whose
    unmatched entries are stale (entries of other files are not judged)."""
    left = Counter(baseline.entries)
    reported, held = [], 0
    for f in sorted(findings, key=lambda f: f.sort_key):
        key = baseline.key(f, texts.get(f.path)) if f.code not in NOT_BASELINED else None
        if key is not None and left[key] > 0:
            left[key] -= 1
            held += 1
        else:
            reported.append(f)
    files = {_relative(p, baseline.folder) for p in checked}
    stale = sum(count for (_, path, _), count in left.items() if count > 0 and path in files)
    return Filtered(reported, held, stale)
