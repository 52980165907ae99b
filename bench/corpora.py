"""The corpora, prepared at run time under bench/.corpora/ (git-ignored; no third-party code
is ever committed): the livekit-agents wheel, that wheel plus every livekit-plugins-* wheel
of the same version, the pipecat-ai wheel, the running interpreter's standard library, and
the livekit-agents tree copied ten times.

Each corpus folder holds an empty `.git` folder, so that rtlint, ruff and Fixit treat it as
a repository of its own; otherwise they would apply this repository's .gitignore (which
ignores bench/.corpora/) and skip every file.

bench/.corpora/.rtlint.toml (written by `prepare`) gives them rtlint's defaults for code with no
configuration of its own, as a wheel in site-packages has: line length 88 and rtlint's own line
breaking. Without it, rtlint's configuration walk would reach this checkout's pyproject.toml,
whose `[tool.ruff]` (line-length 120) would have every fixed file of `--fix`/`--diff` formatted
by ruff at width 120: another measurement than the one results.md has recorded since issue 13
(the cost of a ruff or black project is bench/fixformat.py's).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPORA = HERE / ".corpora"
VERSION = "1.8.8"
PIPECAT = "pipecat-ai==1.14.0"  # issue 21's speed target names this wheel (~700 files)
TOKEN = b"update_chat_ctx"  # rtlint's pre-filter token (the default push method)
SCALE = 10
ACTIVITY = Path("livekit/agents/voice/agent_activity.py")
ISOLATION = (
    "# written by bench/corpora.py: the corpora have no configuration of their own, and this\n"
    "# checkout's [tool.ruff] must not apply to them (its line-length, ruff on fixed lines)\n"
    'line-length = 88\nfix-formatter = "none"\n'
)


@dataclass
class Corpus:
    name: str
    paths: list[Path]  # what every tool is given
    description: str
    files: int = 0
    lines: int = 0
    token_files: int = 0
    file_list: list[Path] = field(default_factory=list, repr=False)

    def count(self) -> Corpus:
        self.file_list = sorted(p for root in self.paths for p in _python_files(root))
        self.files = len(self.file_list)
        self.lines = self.token_files = 0
        for path in self.file_list:
            data = path.read_bytes()
            self.lines += data.count(b"\n")
            self.token_files += TOKEN in data
        return self


def _python_files(root: Path):
    if root.is_file():
        yield root
        return
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in files:
            if name.endswith(".py"):
                yield Path(folder) / name


def _mark_repository(folder: Path) -> None:
    (folder / ".git").mkdir(parents=True, exist_ok=True)
    # semgrep skips tests/ and the like by default unless the project has its own ignore file
    (folder / ".semgrepignore").write_text("# every file is linted\n")


def _download(pip: list[str], requirements: list[str], dest: Path, log) -> list[str]:
    """`pip download --no-deps` of every requirement pip can find; returns those it cannot."""
    missing: list[str] = []
    todo = list(requirements)
    while todo:
        process = subprocess.run(
            [*pip, "download", "--no-deps", "--only-binary=:all:", "-q", "-d", str(dest), *todo],
            capture_output=True,
            text=True,
        )
        if process.returncode == 0:
            break
        bad = re.findall(r"(?:for|version that satisfies the requirement) ([A-Za-z0-9_.-]+)==", process.stderr)
        bad = [r for r in todo if r.split("==")[0] in bad]
        if not bad:
            raise RuntimeError(f"pip download failed:\n{process.stderr[-2000:]}")
        missing += bad
        todo = [r for r in todo if r not in bad]
    if missing:
        log(f"  not downloadable at {VERSION}: {', '.join(r.split('==')[0] for r in missing)}")
    return missing


def _unpack(wheels: list[Path], dest: Path) -> None:
    for wheel in wheels:
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(dest)


def plugin_names(wheel_tree: Path) -> list[str]:
    """livekit-plugins-* distributions named by the extras of livekit-agents' metadata."""
    metadata = next(wheel_tree.glob("livekit_agents-*.dist-info")) / "METADATA"
    names = re.findall(r"^Requires-Dist: (livekit-plugins-[A-Za-z0-9_.-]+)\b.*extra ==", metadata.read_text(), re.M)
    return sorted(set(names))


def prepare(pip: list[str], log=print) -> dict[str, Corpus]:
    """Downloads and unpacks what is missing; returns the corpora by name."""
    CORPORA.mkdir(parents=True, exist_ok=True)
    (CORPORA / ".rtlint.toml").write_text(ISOLATION)
    downloads = CORPORA / "downloads"
    downloads.mkdir(exist_ok=True)

    wheel = CORPORA / "wheel"
    if not (wheel / ".complete").exists():
        log(f"downloading livekit-agents {VERSION}")
        shutil.rmtree(wheel, ignore_errors=True)
        _download(pip, [f"livekit-agents=={VERSION}"], downloads, log)
        _unpack(sorted(downloads.glob(f"livekit_agents-{VERSION}-*.whl")), wheel)
        _mark_repository(wheel)
        (wheel / ".complete").write_text("")

    plugins = CORPORA / "plugins"
    if not (plugins / ".complete").exists():
        names = plugin_names(wheel)
        log(f"downloading {len(names)} livekit-plugins-* wheels at {VERSION}")
        missing = _download(pip, [f"{n}=={VERSION}" for n in names], downloads, log)
        shutil.rmtree(plugins, ignore_errors=True)
        got = [n for n in names if f"{n}=={VERSION}" not in missing]
        wheels = [w for n in got for w in downloads.glob(f"{n.replace('-', '_')}-{VERSION}-*.whl")]
        _unpack(sorted(downloads.glob(f"livekit_agents-{VERSION}-*.whl")) + sorted(wheels), plugins)
        _mark_repository(plugins)
        (plugins / "MISSING.txt").write_text("".join(f"{r}\n" for r in missing))
        (plugins / ".complete").write_text(f"{len(got)}\n")

    pipecat = CORPORA / "pipecat"
    if not (pipecat / ".complete").exists():
        log(f"downloading {PIPECAT}")
        shutil.rmtree(pipecat, ignore_errors=True)
        _download(pip, [PIPECAT], downloads, log)
        name, version = PIPECAT.split("==")
        _unpack(sorted(downloads.glob(f"{name.replace('-', '_')}-{version}-*.whl")), pipecat)
        _mark_repository(pipecat)
        (pipecat / ".complete").write_text("")

    stdlib = CORPORA / "stdlib"
    source = Path(sysconfig.get_paths()["stdlib"])
    if not (stdlib / ".complete").exists() or (stdlib / ".complete").read_text() != str(source):
        log(f"copying the standard library from {source}")
        shutil.rmtree(stdlib, ignore_errors=True)
        skip = shutil.ignore_patterns("site-packages", "dist-packages", "__pycache__", "*.pyc")
        shutil.copytree(source, stdlib, ignore=skip, symlinks=True)
        _mark_repository(stdlib)
        (stdlib / ".complete").write_text(str(source))

    scaled = CORPORA / "scaled"
    if not (scaled / ".complete").exists():
        shutil.rmtree(scaled, ignore_errors=True)
        for i in range(SCALE):
            shutil.copytree(wheel / "livekit", scaled / f"copy{i:02d}" / "livekit")
        _mark_repository(scaled)
        (scaled / ".complete").write_text("")

    plugin_count = int((plugins / ".complete").read_text())
    corpora = {
        "wheel": Corpus("wheel", [wheel], f"livekit-agents {VERSION} wheel"),
        "plugins": Corpus("plugins", [plugins], f"livekit-agents {VERSION} + {plugin_count} plugin wheels"),
        "pipecat": Corpus("pipecat", [pipecat], f"{PIPECAT.replace('==', ' ')} wheel"),
        "stdlib": Corpus("stdlib", [stdlib], f"CPython {'.'.join(map(str, sys.version_info[:3]))} standard library"),
        "activity": Corpus("activity", [wheel / ACTIVITY], "voice/agent_activity.py alone"),
        "scaled": Corpus("scaled", [scaled], f"livekit-agents {VERSION} tree x{SCALE}"),
    }
    for corpus in corpora.values():
        corpus.count()
    return corpora


def scaled_subset(corpora: dict[str, Corpus], copies: int) -> Corpus:
    root = corpora["scaled"].paths[0]
    return Corpus(
        f"scaled-{copies}", [root / f"copy{i:02d}" for i in range(copies)], f"{copies} copies of the {VERSION} tree"
    ).count()
