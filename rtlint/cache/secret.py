"""The per-user key that authenticates cache entries, and reading the cache without trusting
it. A cache folder can come from anywhere (a pull request may commit `.rtlint_cache`): an
entry counts only if it carries a tag made with this key, which lives in the user's own cache
home. Nothing here follows a symlink in the cache, and every read is bounded.

Imports only `os`: the whole-run cache uses this on a warm run."""

from __future__ import annotations

import os

try:  # the builtin module, without hashlib's OpenSSL start-up
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - other interpreters
    from hashlib import blake2b

KEY_SIZE = 32
TAG_SIZE = 32
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)

_key: bytes | None = None
_loaded = False


def home() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "rtlint")


def key() -> bytes | None:
    """This user's key (created on first use, 0600), or None: no key, no cache."""
    global _key, _loaded
    if not _loaded:
        _loaded = True
        try:
            _key = _load_or_create(home())
        except OSError:
            _key = None
    return _key


def _load_or_create(folder: str) -> bytes | None:
    path = os.path.join(folder, "secret")
    found = _read_key(path)
    if found is not None:
        return found
    os.makedirs(folder, mode=0o700, exist_ok=True)
    temporary = f"{path}.{os.getpid()}.tmp"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, 0o600)
    try:
        os.write(fd, os.urandom(KEY_SIZE))
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        os.link(temporary, path)  # atomic and exclusive: two first runs agree on one key
    except FileExistsError:
        pass
    finally:
        os.unlink(temporary)
    return _read_key(path)


def _read_key(path: str) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _CLOEXEC)
    except FileNotFoundError:
        return None
    try:
        info = os.fstat(fd)
        # only a private regular file of this user is a key (not one planted by someone else)
        if not _is_regular(info.st_mode) or info.st_size != KEY_SIZE or info.st_mode & 0o077:
            return None
        if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
            return None
        data = os.read(fd, KEY_SIZE + 1)
    finally:
        os.close(fd)
    return data if len(data) == KEY_SIZE else None


def _is_regular(mode: int) -> bool:
    return mode & 0o170000 == 0o100000  # stat.S_ISREG without importing stat


def tag(secret: bytes, name: str, payload: bytes) -> bytes:
    """The tag of `payload` stored as `name` (so an entry cannot be moved to another name)."""
    mac = blake2b(key=secret, digest_size=TAG_SIZE)
    mac.update(name.encode("utf-8", "surrogateescape") + b"\0")
    mac.update(payload)
    return mac.digest()


def seal(secret: bytes, name: str, payload: bytes) -> bytes:
    return tag(secret, name, payload) + payload


def unseal(secret: bytes, name: str, data: bytes) -> bytes | None:
    """The payload of a sealed entry, or None if its tag is not ours."""
    if len(data) < TAG_SIZE:
        return None
    # the builtin constant-time comparison (hmac.compare_digest would load OpenSSL: ~10 ms)
    from _operator import _compare_digest

    payload = data[TAG_SIZE:]
    return payload if _compare_digest(data[:TAG_SIZE], tag(secret, name, payload)) else None


# -- a cache folder, never followed through a symlink ------------------------------------------


def open_folder(path: str, create: bool) -> tuple[int, bool] | None:
    """A descriptor of the cache folder `path` (its last component not a symlink), and
    whether this call created it; None if it is not a usable real folder."""
    created = False
    if create:
        try:
            # missing parents are made, as ruff's --cache-dir does (without them every run
            # silently went uncached); only the cache folder itself is checked for a symlink
            os.makedirs(os.path.dirname(os.path.abspath(path)), 0o755, exist_ok=True)
            os.mkdir(path, 0o755)
            created = True
        except FileExistsError:
            pass
        except OSError:
            return None
    try:
        return os.open(path, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC), created
    except OSError:
        return None


def open_subfolder(parent: int, name: str, create: bool) -> int | None:
    if create:
        try:
            os.mkdir(name, 0o755, dir_fd=parent)
        except FileExistsError:
            pass
        except OSError:
            return None
    try:
        return os.open(name, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=parent)
    except OSError:
        return None


def open_in_cache(cache: str, name: str, create: bool) -> int | None:
    """A descriptor of folder `name` at the top of the cache folder `cache` (created, and the
    cache marked as rtlint's own, when `create`), or None when it cannot be had safely."""
    opened = open_folder(cache, create)
    if opened is None:
        return None
    top, created = opened
    try:
        if created:
            mark_created(top)
        return open_subfolder(top, name, create)
    finally:
        os.close(top)


def read_bounded(folder: int, name: str, limit: int) -> bytes | None:
    """The content of regular file `name` in `folder`, if it is at most `limit` bytes; never
    through a symlink, and never blocking on a FIFO or a device."""
    try:
        fd = os.open(name, os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _CLOEXEC, dir_fd=folder)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not _is_regular(info.st_mode) or info.st_size > limit:
            return None
        parts = []
        left = limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            parts.append(chunk)
            left -= len(chunk)
        data = b"".join(parts)
        return data if len(data) <= limit else None
    except OSError:
        return None
    finally:
        os.close(fd)


def write_replacing(folder: int, name: str, data: bytes) -> None:
    """Write `name` in `folder` atomically (a new file renamed over it; a symlink planted at
    `name` is replaced, never followed). Raises OSError."""
    temporary = f".{name}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, 0o600, dir_fd=folder)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
        os.replace(temporary, name, src_dir_fd=folder, dst_dir_fd=folder)
    except BaseException:  # a full disk, a signal: leave no temporary file behind
        try:
            os.unlink(temporary, dir_fd=folder)
        except OSError:
            pass
        raise


GITIGNORE = b"# created by rtlint\n*\n"


def mark_created(folder: int) -> None:
    """A folder rtlint created as its cache is hidden from git (and only such a folder)."""
    try:
        fd = os.open(".gitignore", os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, 0o644, dir_fd=folder)
    except OSError:
        return
    try:
        os.write(fd, GITIGNORE)
    finally:
        os.close(fd)
