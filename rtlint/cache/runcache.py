"""The whole-run cache: a check whose inputs did not change replays its output.

A warm run should cost about what starting Python and importing rtlint costs, so this
module imports nothing heavy. A manifest, keyed by the command line, the working folder
and rtlint's own code, records every input of a run: the files linted (size, mtime, inode,
and a content hash), the folders walked and those above them up to the configuration
(their mtime changes when an entry is added, removed or renamed), the configuration and
.gitignore files. If all of them are as recorded, the recorded output and exit status are
replayed; otherwise the run goes the normal way (which has its per-file cache) and writes
a new manifest.

Every stamp is taken before the input is read (a file's size, mtime, ctime and inode; a
folder's mtime and ctime before it is listed), and a manifest is written only if all of
them still hold when the run ends: an edit or a new file during the run is never recorded
as seen. A file whose stamp is within two seconds of its reading is compared by the digest
of the bytes that were read (coarse filesystem clocks); no manifest is written while a
folder is still changing, nor for a run that hit a resource limit. Manifests are sealed
with the user's key (rtlint.cache.secret) and read without following symlinks: a planted
manifest is not replayed.
"""

from __future__ import annotations

import marshal
import os
import sys
import time

from rtlint.cache import secret
from rtlint.cache.secret import blake2b
from rtlint.core import reading

_FORMAT = 4  # marshal: a builtin, and far cheaper to load than json
MAX_MANIFEST = 64 << 20

# options that take a value (the rest are flags); an option not listed here means the
# command line is not one this cache understands, and it is left to the normal path
_VALUED = {"--select", "--ignore", "--format", "--output-format", "--config", "--cache-dir", "--jobs", "-j", "--color"}
_FLAGS = {
    "--unsafe-fixes",
    "--exit-zero",
    "--exit-non-zero-on-fix",
    "--statistics",
    "--force-exclude",
    "--show-source",
    "--no-show-source",
    "--quiet",
    "-q",
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


_RESOLVE = ""  # _config_dir: only the configuration itself can say where its cache is


def _config_dir(start: str) -> str | None:
    """The folder of the nearest pyproject.toml with a [tool.rtlint] table (by its bytes),
    or _RESOLVE when the nearest configuration may say otherwise (a `cache-dir`, an
    `extend` that may give one, a .rtlint.toml): then the configuration's own resolver
    (rtlint.engine.config.Finder, handed in by the caller) says where the cache is."""
    directory = os.path.abspath(start)
    if not os.path.isdir(directory):
        directory = os.path.dirname(directory)
    while True:
        if os.path.isfile(os.path.join(directory, ".rtlint.toml")):
            return _RESOLVE
        candidate = os.path.join(directory, "pyproject.toml")
        try:
            data = reading.read_file(candidate, reading.MAX_TOML)[0]  # never a FIFO or /dev/zero
            if b"[tool.rtlint" in data:
                return _RESOLVE if b"cache-dir" in data or b"extend" in data else directory
        except OSError:
            pass
        parent = os.path.dirname(directory)
        if parent == directory:
            return os.getcwd()
        directory = parent


def _code_stamp() -> str:
    """rtlint's own code: its version and the files of the package and its subpackages (an
    edited rule or engine module, in a development install, must not replay an old result)."""
    import rtlint

    stamps = [rtlint.__version__, sys.version]
    folders = [os.path.dirname(rtlint.__file__), *_rules_folders()]
    seen = set()
    while folders:
        folder = folders.pop()
        if folder in seen:
            continue
        seen.add(folder)
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            if entry.name.endswith(".py"):
                stat = entry.stat()
                stamps.append(f"{entry.path}:{stat.st_mtime_ns}:{stat.st_size}")
            elif entry.name != "__pycache__" and not entry.name.startswith(".") and entry.is_dir(follow_symlinks=False):
                folders.append(entry.path)
    return "|".join(sorted(stamps))


def _rules_folders() -> list[str]:
    """Installed, the rules are rtlint/rules; in a source tree (or an editable install) they
    are rules/ beside rtlint/. (Found without importlib.util, which costs a warm run 3 ms.)"""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return [os.path.join(package, "rules"), os.path.join(os.path.dirname(package), "rules")]


class Run:
    """One cacheable run: where its manifest is, and how to check and write it."""

    def __init__(self, argv: list[str], interactive: bool, resolve=None) -> None:
        """`resolve(path, config)` is the cache folder the configuration of `path` (or the
        file given by --config, or None) names, or None when it is in error: what the check
        itself will use. Without it, a run whose cache only the configuration can place is
        not cached."""
        self.path: str | None = None
        parsed = _parse(argv)
        if parsed is None or os.environ.get("RTLINT_NO_RUN_CACHE"):
            return
        paths, values = parsed
        if "--cache-dir" in values:
            folder = os.path.abspath(values["--cache-dir"])
        else:
            base = _RESOLVE if "--config" in values else _config_dir(paths[0])
            if base == _RESOLVE:
                resolved = resolve(paths[0], values.get("--config")) if resolve is not None else None
                if resolved is None:
                    return
                folder = resolved
            elif base is None:
                return
            else:
                folder = os.path.join(base, ".rtlint_cache")
        identity = "\0".join(
            [*argv, "\0", os.getcwd(), str(interactive), os.environ.get("RTLINT_EXTRA_RULES", ""), _code_stamp()]
            # colour (--color auto) follows these
            + [os.environ.get("NO_COLOR", ""), os.environ.get("FORCE_COLOR", ""), os.environ.get("TERM", "")]
        )
        digest = blake2b(identity.encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()
        self.folder = folder
        self.name = digest
        self.path = os.path.join(folder, "runs", digest)

    def _runs(self, create: bool) -> int | None:
        return secret.open_in_cache(self.folder, "runs", create)

    # -- replay --------------------------------------------------------------------------
    def replay(self) -> tuple[str, str, int] | None:
        if self.path is None:
            return None
        key = secret.key()
        if key is None:
            return None
        runs = self._runs(create=False)
        if runs is None:
            return None
        try:
            data = secret.read_bounded(runs, self.name, MAX_MANIFEST)
        finally:
            os.close(runs)
        payload = None if data is None else secret.unseal(key, "runs/" + self.name, data)
        if payload is None:
            return None
        try:
            version, manifest = marshal.loads(payload)
            if version != _FORMAT:
                return None
            return _check(manifest)
        except (OSError, KeyError, TypeError, ValueError, IndexError, EOFError):
            return None

    # -- record ----------------------------------------------------------------------------
    def record(self, inputs: dict, stdout: str, stderr: str, exit_code: int) -> None:
        """`inputs`: "files" {path: (stamp, digest or None)} with each file's stamp before it
        was read, "dirs" {path: (mtime, ctime)} before listing, "probes" {path: what was
        seen}, "uncacheable" when the result must not be replayed."""
        if self.path is None or inputs.get("uncacheable"):
            return
        key = secret.key()
        if key is None:
            return
        try:
            now = time.time_ns()
            dirs = {_short(p): stamp for p, stamp in inputs["dirs"].items()}
            folders = sorted(dirs)
            folder_stamps = [_dir_stamp(p) for p in folders]
            if folder_stamps != [dirs[p] for p in folders]:
                return  # a folder changed during the run: what it holds now was not seen
            if any(stamp is None or now - stamp[0] < _RACY_NS for stamp in folder_stamps):
                return  # a folder is still changing: its mtime cannot be trusted yet
            files = {_short(p): value for p, value in inputs["files"].items()}
            paths = sorted(files)
            stamps = [files[p][0] for p in paths]
            if [_file_stamp(p) for p in paths] != stamps:
                return  # a file changed since it was read
            racy = [(index, files[p][1]) for index, p in enumerate(paths) if files[p][1] is not None]
            probes = {_short(p): value for p, value in inputs["probes"].items()}
            probe_paths = sorted(probes)
            probe_stamps = [probes[p] for p in probe_paths]
            if [_probe(p) for p in probe_paths] != probe_stamps:
                return
            manifest = {
                "files": paths,
                "stamps": stamps,
                "racy": racy,
                "dirs": folders,
                "dir_stamps": folder_stamps,
                "probes": probe_paths,
                "probe_stamps": probe_stamps,
                "stdout": stdout,
                "stderr": stderr,
                "exit": exit_code,
            }
            payload = marshal.dumps((_FORMAT, manifest))
            if len(payload) + secret.TAG_SIZE > MAX_MANIFEST:
                return
            runs = self._runs(create=True)
            if runs is None:
                return
            try:
                secret.write_replacing(runs, self.name, secret.seal(key, "runs/" + self.name, payload))
            finally:
                os.close(runs)
        except (OSError, ValueError, TypeError):
            pass  # a cache that cannot be written is only slower


def _check(manifest: dict) -> tuple[str, str, int] | None:
    # paths are relative to the working folder, which is part of the key; the checks are
    # list comparisons, so a warm run costs little more than the stat calls
    if [_dir_stamp(p) for p in manifest["dirs"]] != manifest["dir_stamps"]:
        return None
    if [_file_stamp(p) for p in manifest["files"]] != manifest["stamps"]:
        return None
    for index, digest in manifest["racy"]:
        try:
            raw = reading.read_file(manifest["files"][index], reading.MAX_SOURCE)[0]
        except OSError:
            return None
        if blake2b(raw, digest_size=16).digest() != digest:
            return None
    if [_probe(p) for p in manifest["probes"]] != manifest["probe_stamps"]:
        return None
    stdout, stderr, code = manifest["stdout"], manifest["stderr"], manifest["exit"]
    if not (isinstance(stdout, str) and isinstance(stderr, str) and code in (0, 1)):
        return None
    return stdout, stderr, code


def _file_stamp(path: str) -> tuple[int, int, int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino)


def _dir_stamp(path: str) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_mtime_ns, info.st_ctime_ns)


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


def _probe(path: str) -> tuple[int, int, int] | bool | None:
    """What a run saw of a file it looked for: None (absent), its (size, mtime, ctime) (as
    rtlint.engine.config and rtlint.engine.discovery take it before reading), or True for a folder (a
    .git whose contents do not matter, only its presence)."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    if info.st_mode & 0o170000 == 0o040000:
        return True
    return (info.st_size, info.st_mtime_ns, info.st_ctime_ns)


FORMATTER_FILES = (".ruff.toml", "ruff.toml")  # pyproject.toml is a configuration file too
_PROBED = ("pyproject.toml", ".rtlint.toml", ".gitignore", ".git", *FORMATTER_FILES)


def probes_above(path: str) -> list[str]:
    """The files whose presence above `path` decides its configuration and .gitignore
    semantics: pyproject.toml, .rtlint.toml, .gitignore and .git in every folder up to the
    root, and the formatter files that decide the fixes' line length (.ruff.toml,
    ruff.toml). (Their folders' own mtimes would not do: /tmp changes all the time.)"""
    directory = os.path.abspath(path)
    if not os.path.isdir(directory):
        directory = os.path.dirname(directory)
    found = []
    while True:
        found += [os.path.join(directory, name) for name in _PROBED]
        parent = os.path.dirname(directory)
        if parent == directory:
            return found
        directory = parent
