"""The whole-run cache: a check whose inputs did not change replays its output.

A warm run should cost about what starting Python and importing rtlint costs, so this
module imports nothing heavy. A manifest, keyed by the command line, the working folder
and rtlint's own code, records every input of a run: the files linted (size, mtime, inode,
and a content hash), the folders walked and those above them up to the configuration
(their mtime changes when an entry is added, removed or renamed), the configuration and
.gitignore files. If all of them are as recorded, the recorded output and exit status are
replayed; otherwise the run goes the normal way (which has its per-file cache) and writes
a new manifest. A file changed within two seconds of the recording is re-hashed rather than
trusted by its timestamps (coarse filesystem clocks); no manifest is written while a folder
is still changing.
"""

from __future__ import annotations

import marshal
import os
import sys
import time

try:  # the builtin module, without hashlib's OpenSSL start-up
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - other interpreters
    from hashlib import blake2b

_FORMAT = 3  # marshal: a builtin, and far cheaper to load than json

# options that take a value (the rest are flags); an option not listed here means the
# command line is not one this cache understands, and it is left to the normal path
_VALUED = {"--select", "--ignore", "--format", "--output-format", "--config", "--cache-dir", "--jobs", "-j", "--color"}
_FLAGS = {
    "--unsafe-fixes", "--exit-zero", "--exit-non-zero-on-fix", "--statistics", "--force-exclude",
    "--show-source", "--no-show-source", "--quiet", "-q",
}
_RACY_NS = 2_000_000_000


def _parse(argv: list[str]) -> tuple[list[str], dict[str, str]] | None:
    """(paths, options with values) of a plain `rtlint [check] ...`, or None."""
    args = argv[1:] if argv and argv[0] == "check" else list(argv)
    paths: list[str] = []
    values: dict[str, str] = {}
    index = 0
    while index < len(args):
        arg = args[index]
        if arg == "-":
            return None  # standard input: nothing on disk to compare with
        if arg.startswith("-"):
            name, _, inline = arg.partition("=")
            if name in _VALUED:
                if not inline:
                    index += 1
                    if index >= len(args):
                        return None
                    inline = args[index]
                values[name] = inline
            elif name not in _FLAGS or inline:
                return None  # --fix, --diff, --no-cache, --help, ...: not cached
        else:
            paths.append(arg)
        index += 1
    return paths or ["."], values


def _config_dir(start: str) -> str | None:
    """The folder of the nearest pyproject.toml with a [tool.rtlint] table (by its bytes)."""
    directory = os.path.abspath(start)
    if not os.path.isdir(directory):
        directory = os.path.dirname(directory)
    while True:
        candidate = os.path.join(directory, "pyproject.toml")
        try:
            with open(candidate, "rb") as handle:
                data = handle.read()
            if b"[tool.rtlint" in data:
                return None if b"cache-dir" in data else directory  # a configured cache: leave it
        except OSError:
            pass
        parent = os.path.dirname(directory)
        if parent == directory:
            return os.getcwd()
        directory = parent


def _code_stamp() -> str:
    """rtlint's own code: its version and the files of the package (an edited rule, in a
    development install, must not replay an old result)."""
    import rtlint

    stamps = [rtlint.__version__, sys.version]
    for folder in {os.path.dirname(rtlint.__file__), *_rules_folders()}:
        try:
            for entry in os.scandir(folder):
                if entry.name.endswith(".py"):
                    stat = entry.stat()
                    stamps.append(f"{entry.name}:{stat.st_mtime_ns}:{stat.st_size}")
        except OSError:
            continue
    return "|".join(sorted(stamps))


def _rules_folders() -> list[str]:
    """Installed, the rules are rtlint/rules; in a source tree (or an editable install) they
    are rules/ beside rtlint/. (Found without importlib.util, which costs a warm run 3 ms.)"""
    here = os.path.dirname(os.path.abspath(__file__))
    return [os.path.join(here, "rules"), os.path.join(os.path.dirname(here), "rules")]


class Run:
    """One cacheable run: where its manifest is, and how to check and write it."""

    def __init__(self, argv: list[str], interactive: bool) -> None:
        self.path: str | None = None
        parsed = _parse(argv)
        if parsed is None or os.environ.get("RTLINT_NO_RUN_CACHE"):
            return
        paths, values = parsed
        if "--cache-dir" in values:
            folder = os.path.abspath(values["--cache-dir"])
        else:
            base = os.path.dirname(os.path.abspath(values["--config"])) if "--config" in values else _config_dir(paths[0])
            if base is None:
                return
            folder = os.path.join(base, ".rtlint_cache")
        identity = "\0".join(
            [*argv, "\0", os.getcwd(), str(interactive), os.environ.get("RTLINT_EXTRA_RULES", ""), _code_stamp()]
            # colour (--color auto) follows these
            + [os.environ.get("NO_COLOR", ""), os.environ.get("FORCE_COLOR", "")]
        )
        digest = blake2b(identity.encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()
        self.folder = folder
        self.path = os.path.join(folder, "runs", digest)

    # -- replay --------------------------------------------------------------------------
    def replay(self) -> tuple[str, str, int] | None:
        if self.path is None:
            return None
        try:
            with open(self.path, "rb") as handle:
                version, manifest = marshal.load(handle)
        except (OSError, ValueError, EOFError, TypeError):
            return None
        if version != _FORMAT:
            return None
        stat = os.stat
        try:
            # paths are relative to the working folder, which is part of the key; the checks
            # are list comparisons, so a warm run costs little more than the stat calls
            if [stat(p).st_mtime_ns for p in manifest["dirs"]] != manifest["dir_stamps"]:
                return None
            if [(s.st_size, s.st_mtime_ns, s.st_ino) for s in map(stat, manifest["files"])] != manifest["stamps"]:
                return None
            for index, digest in manifest["racy"]:
                with open(manifest["files"][index], "rb") as handle:
                    if blake2b(handle.read(), digest_size=16).digest() != digest:
                        return None
            if [_probe(p) for p in manifest["probes"]] != manifest["probe_stamps"]:
                return None
            return manifest["stdout"], manifest["stderr"], manifest["exit"]
        except (OSError, KeyError, TypeError, ValueError, IndexError):
            return None

    # -- record ----------------------------------------------------------------------------
    def record(
        self, files: list[str], dirs: list[str], probes: list[str], stdout: str, stderr: str, exit_code: int
    ) -> None:
        if self.path is None:
            return
        try:
            written = time.time_ns()
            folders = sorted({_short(p) for p in dirs})
            folder_stamps = [os.stat(p).st_mtime_ns for p in folders]
            if any(written - m < _RACY_NS for m in folder_stamps):
                return  # a folder is still changing: its mtime cannot be trusted yet
            paths = sorted({_short(p) for p in files})
            stamps = []
            racy = []
            for index, path in enumerate(paths):
                stat = os.stat(path)
                stamps.append((stat.st_size, stat.st_mtime_ns, stat.st_ino))
                if written - stat.st_mtime_ns < _RACY_NS:
                    # changed too recently for its mtime to tell a later change: keep a digest
                    with open(path, "rb") as handle:
                        racy.append((index, blake2b(handle.read(), digest_size=16).digest()))
            probe_paths = sorted({_short(p) for p in probes})
            manifest = {
                "files": paths,
                "stamps": stamps,
                "racy": racy,
                "dirs": folders,
                "dir_stamps": folder_stamps,
                "probes": probe_paths,
                "probe_stamps": [_probe(p) for p in probe_paths],
                "stdout": stdout,
                "stderr": stderr,
                "exit": exit_code,
            }
            folder = os.path.dirname(self.path)
            os.makedirs(folder, exist_ok=True)
            ignore = os.path.join(self.folder, ".gitignore")
            if not os.path.exists(ignore):
                with open(ignore, "w", encoding="utf-8") as handle:
                    handle.write("# created by rtlint\n*\n")
            import tempfile

            fd, temporary = tempfile.mkstemp(dir=folder, suffix=".tmp")
            with os.fdopen(fd, "wb") as handle:
                marshal.dump((_FORMAT, manifest), handle)
            os.replace(temporary, self.path)
        except OSError:
            pass  # a cache that cannot be written is only slower


class Tee:
    """A text stream that writes through to another and keeps a copy."""

    def __init__(self, stream) -> None:
        self._stream = stream
        self._parts: list[str] = []

    def write(self, text: str) -> int:
        self._parts.append(text)
        return self._stream.write(text)

    def flush(self) -> None:
        self._stream.flush()

    def isatty(self) -> bool:
        return self._stream.isatty()

    @property
    def value(self) -> str:
        return "".join(self._parts)


def _short(path: str) -> str:
    """`path` relative to the working folder when it is inside it (a smaller manifest)."""
    cwd = os.getcwd() + os.sep
    return path[len(cwd) :] if path.startswith(cwd) else path


def _probe(path: str) -> tuple[int, int] | bool | None:
    """What a run saw of a file it looked for: None (absent), [size, mtime] of a file, or
    True for a folder (a .git whose contents do not matter, only its presence)."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    if os.path.isdir(path):
        return True
    return (stat.st_size, stat.st_mtime_ns)


def probes_above(path: str) -> list[str]:
    """The files whose presence above `path` decides its configuration and .gitignore
    semantics: pyproject.toml, .gitignore and .git in every folder up to the root. (Their
    folders' own mtimes would not do: /tmp changes all the time.)"""
    directory = os.path.abspath(path)
    if not os.path.isdir(directory):
        directory = os.path.dirname(directory)
    found = []
    while True:
        found += [os.path.join(directory, name) for name in ("pyproject.toml", ".gitignore", ".git")]
        parent = os.path.dirname(directory)
        if parent == directory:
            return found
        directory = parent
