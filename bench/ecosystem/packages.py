"""The package list: which public packages the ecosystem check lints, derived from the package
index's name list (a TSV: name, version, month, rank, summary) and checked in as
bench/ecosystem_packages.txt (names and pinned versions only, never code).

The rule, applied by `derive`:
- every package whose name starts with `livekit`, except LiveKit's SDK and protocol packages
  (`SDK`): they are client and server bindings, not agent code, and hold no chat context;
- every package whose name starts with `pipecat` (the framework, its flows and sub-agent layers,
  and its plugins), except those of `NOT_PIPECAT`, which only share the prefix;
- plus the voice-agent frameworks of `FRAMEWORKS`, reviewed by hand from the same list: each
  builds voice or realtime agents (or republishes LiveKit Agents under another name).
A name without a version in the list cannot be pinned and is left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
LIST = HERE / "ecosystem_packages.txt"
INDEX = Path("/work/.library/env/packages/pypi.tsv")
SDK = frozenset({"livekit", "livekit-api", "livekit-protocol", "livekit-rtc"})
# `pipecat` 0.3.0 (2017) is a data-logging library for sensors and instruments, not Pipecat's
NOT_PIPECAT = frozenset({"pipecat"})
# the trees of `--tree NAME=DIR` whose findings have verdicts (they are no package of the index):
# name -> where its files come from
TREES = {
    "pipecat-examples": "the examples/**/*.py of github.com/pipecat-ai/pipecat at acead0507",
}
FRAMEWORKS = (
    "openai-agents",  # the OpenAI Agents SDK (voice pipeline, realtime sessions)
    "vocode",
    "vision-agents",
    "cartesia-line",
    "nitpick-voice",
    "lalk",
    "livelink",
    "demystify-voice",
    "llama-index-voice-agents-openai",
    "llama-index-voice-agents-gemini-live",
    "llama-index-voice-agents-elevenlabs",
    "aiyou-livekit-agent",
    "aiyou-livekit-agent-openai",
    "aeon-agents",
    "vyvoj25-fork",
    "vyvoj25-framework",  # LiveKit Agents republished
    "livechain",
    "stimm",
    "openrtc",
    "unmute-core",
    "agentduet-adapters",  # built on LiveKit Agents / realtime models
)
HEADER = """\
# The packages of the ecosystem check (python -m bench.ecosystem): names and pinned versions only.
# Derived by `python -m bench.ecosystem --refresh` from the package index's name list; the rule is
# in bench/ecosystem/packages.py: every livekit* package except the SDK and protocol packages
# ({sdk}), every pipecat* package (but {not_pipecat}, which only shares the prefix), plus the
# voice-agent frameworks named there.
"""


@dataclass(frozen=True, order=True)
class Package:
    name: str
    version: str

    @property
    def pin(self) -> str:
        return f"{self.name}=={self.version}"


def normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def wanted(name: str) -> bool:
    name = normalise(name)
    return (
        (name.startswith("livekit") and name not in SDK)
        or (name.startswith("pipecat") and name not in NOT_PIPECAT)
        or name in FRAMEWORKS
    )


def derive(index_lines) -> list[Package]:
    """The packages the rule selects from the lines of the index TSV (header line first)."""
    found: dict[str, Package] = {}
    for number, line in enumerate(index_lines):
        fields = line.rstrip("\n").split("\t")
        if number == 0 or len(fields) < 2 or not wanted(fields[0]):
            continue
        name, version = normalise(fields[0]), fields[1].strip()
        if version:
            found[name] = Package(name, version)
    return sorted(found.values())


def derive_from(index: Path) -> list[Package]:
    with open(index, encoding="utf-8", errors="replace") as handle:
        return derive(handle)


def render(packages: list[Package]) -> str:
    header = HEADER.format(sdk=", ".join(sorted(SDK)), not_pipecat=", ".join(sorted(NOT_PIPECAT)))
    return header + "".join(f"{p.pin}\n" for p in sorted(packages))


def parse(text: str) -> list[Package]:
    packages = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            if not version:
                raise ValueError(f"not pinned: {line!r}")
            packages.append(Package(normalise(name), version.strip()))
    return sorted(packages)


def load(path: Path = LIST) -> list[Package]:
    return parse(path.read_text())
