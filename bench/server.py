"""`python -m bench.server`: the language server's latency and memory on LiveKit Agents
1.8.8's voice/agent_activity.py (about 5,300 lines).

- latency: after an incremental edit (a comment line inserted or removed at the top), the
  time from sending didChange to receiving the diagnostics of that version, against one
  in-process `lint_text` of the same text; the two are measured alternately (one lint, one
  edit, ...) so the machine's load drifts alike for both. Target: median ratio <= 1.5.
- memory: the server's resident set (VmRSS, and the peak VmHWM, from /proc) after 100
  edits, each awaited. Target: <= 150 MiB.
- a burst: 30 edits sent at typing speed without waiting; the diagnostics of the last one
  arrive after a few lints, not 30 (the server lints the newest version).

The server is the `rtlint` console script next to this interpreter (as an editor starts
it). The wheel is downloaded with `pip download --no-deps` into bench/.corpora/server/.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import time
import zipfile
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

HERE = Path(__file__).resolve().parent
CACHE = HERE / ".corpora" / "server"
ACTIVITY = Path("livekit/agents/voice/agent_activity.py")
PREPARED = HERE / ".corpora" / "wheel" / ACTIVITY  # what `python -m bench` unpacks
LATENCY_RATIO, MEMORY_MIB = 1.5, 150


def activity_file() -> Path:
    if PREPARED.is_file():
        return PREPARED
    target = CACHE / "wheel" / ACTIVITY
    if not target.is_file():
        download = CACHE / "download"
        download.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--only-binary=:all:",
                "-q",
                "-d",
                str(download),
                "livekit-agents==1.8.8",
            ],
            check=True,
        )
        with zipfile.ZipFile(next(download.glob("livekit_agents-1.8.8-*.whl"))) as wheel:
            wheel.extractall(CACHE / "wheel")
    return target


def in_process_lint(path: Path, text: str):
    """One lint_text of `text` as the CLI sets it up for `path` (rules built once)."""
    from rtlint.engine import config
    from rtlint.engine.linter import RuleSet, lint_text

    cfg = config.load(None, path)
    ruleset = RuleSet(cfg.enabled_rules(), cfg.settings())

    def run() -> float:
        start = time.perf_counter()
        lint_text(text, str(path), ruleset.rules, ruleset.settings, parse_always=True)
        return time.perf_counter() - start

    return run


def memory_mib(pid: int) -> tuple[float, float]:
    """(VmRSS, VmHWM) of a process, in MiB."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            fields[name] = int(value.split()[0]) / 1024
    return fields["VmRSS"], fields["VmHWM"]


class Session:
    def __init__(self, client: LanguageClient, uri: str) -> None:
        self.client, self.uri = client, uri
        self.arrivals: dict[int, tuple[float, int]] = {}  # version -> (time, number of diagnostics)
        self.version = 1

    def received(self, params: types.PublishDiagnosticsParams) -> None:
        if params.uri == self.uri and params.version is not None:
            self.arrivals.setdefault(params.version, (time.perf_counter(), len(params.diagnostics)))

    async def wait(self, version: int, timeout: float = 300) -> tuple[float, int]:
        deadline = time.monotonic() + timeout
        while version not in self.arrivals:
            if time.monotonic() > deadline:
                raise TimeoutError(f"no diagnostics for version {version}")
            await asyncio.sleep(0.002)
        return self.arrivals[version]

    def edit(self) -> int:
        """Insert a comment line at the top (odd edits) or remove it (even ones)."""
        self.version += 1
        top = types.Position(line=0, character=0)
        if self.version % 2 == 0:
            change = types.TextDocumentContentChangePartial(range=types.Range(start=top, end=top), text="# edited\n")
        else:
            end = types.Position(line=1, character=0)
            change = types.TextDocumentContentChangePartial(range=types.Range(start=top, end=end), text="")
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=self.uri, version=self.version),
                content_changes=[change],
            )
        )
        return self.version


async def measure(path: Path, timed: int, edits: int, burst: int) -> dict:
    text = path.read_text(encoding="utf-8")
    lint = in_process_lint(path, text)
    lint()  # warm: imports, first-time caches

    client = LanguageClient("rtlint-bench", "1")
    session = Session(client, path.as_uri())
    client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)(lambda params: session.received(params))
    await client.start_io(str(Path(sys.executable).with_name("rtlint")), "server")
    pid = client._server.pid
    await client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities(), process_id=None))
    client.initialized(types.InitializedParams())
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=session.uri, language_id="python", version=1, text=text)
        )
    )
    _, opened = await session.wait(1)
    after_open = memory_mib(pid)

    baseline, latency = [], []
    for _ in range(timed):
        baseline.append(lint())
        sent = time.perf_counter()
        version = session.edit()
        arrived, count = await session.wait(version)
        assert count == opened, f"version {version}: {count} diagnostics, expected {opened}"
        latency.append(arrived - sent)
    for _ in range(edits - timed):
        await session.wait(session.edit())
    after_edits = memory_mib(pid)

    sent = time.perf_counter()
    first = session.version + 1
    for _ in range(burst):
        session.edit()
        await asyncio.sleep(0.05)  # a keystroke every 50 ms
    arrived, _ = await session.wait(session.version)
    linted = sum(1 for v in session.arrivals if v >= first)

    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    ratios = [s / b for s, b in zip(latency, baseline)]
    return {
        "lines": text.count("\n"),
        "diagnostics": opened,
        "lint_median": statistics.median(baseline),
        "server_median": statistics.median(latency),
        "ratio_median": statistics.median(ratios),
        "ratio_of_medians": statistics.median(latency) / statistics.median(baseline),
        "after_open": after_open,
        "after_edits": after_edits,
        "edits": edits,
        "burst": burst,
        "burst_seconds": arrived - sent,
        "burst_lints": linted,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.server", description=__doc__.splitlines()[0])
    parser.add_argument("--timed", type=int, default=15, help="edits timed against in-process lints (default 15)")
    parser.add_argument("--edits", type=int, default=100, help="edits before memory is read (default 100)")
    parser.add_argument("--burst", type=int, default=30, help="edits sent without waiting (default 30)")
    args = parser.parse_args(argv)
    path = activity_file()
    r = asyncio.run(measure(path, args.timed, max(args.edits, args.timed), args.burst))
    latency_ok = r["ratio_median"] <= LATENCY_RATIO
    memory_ok = r["after_edits"][0] <= MEMORY_MIB
    print(f"rtlint server on {ACTIVITY} ({r['lines']} lines, {r['diagnostics']} diagnostics)")
    print(f"  in-process lint_text:        median {r['lint_median'] * 1000:.0f} ms")
    print(f"  edit -> diagnostics:         median {r['server_median'] * 1000:.0f} ms")
    print(
        f"  ratio (median of {args.timed} pairs): {r['ratio_median']:.2f}  "
        f"(of medians {r['ratio_of_medians']:.2f}; target <= {LATENCY_RATIO}) {'PASS' if latency_ok else 'FAIL'}"
    )
    print(f"  memory after open:           RSS {r['after_open'][0]:.0f} MiB (peak {r['after_open'][1]:.0f} MiB)")
    print(
        f"  memory after {r['edits']} edits:      RSS {r['after_edits'][0]:.0f} MiB "
        f"(peak {r['after_edits'][1]:.0f} MiB; "
        f"target RSS <= {MEMORY_MIB} MiB) {'PASS' if memory_ok else 'FAIL'}"
    )
    print(
        f"  burst of {r['burst']} edits, 50 ms apart: "
        f"last diagnostics {r['burst_seconds']:.1f} s after the first edit, "
        f"{r['burst_lints']} versions linted"
    )
    return 0 if latency_ok and memory_ok else 1


if __name__ == "__main__":
    sys.exit(main())
