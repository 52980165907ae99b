"""Writing a fixed file: atomically (a temporary file renamed over it, with the file's mode,
owner, group and extended attributes where the OS allows), and only if it still holds what
was read. Temporary files are named `.NAME.PID.RANDOM.rtlint-tmp`; ones left by a process
that no longer runs (a SIGKILL mid-write) are removed from a folder before it is written."""

from __future__ import annotations

import contextlib
import errno
import os
import re
import signal
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path


class FileChanged(Exception):
    pass


def write_atomically(path: Path, data: bytes, expected: bytes) -> None:
    """Replace the file's content by `data` unless it no longer holds `expected`.
    A temporary file in the same folder is renamed over the file (mode kept), so a crash
    or a signal leaves either the old or the new content, never a mix."""
    real = path.resolve()
    # SIGINT and SIGTERM wait until the file is replaced or the temporary file removed: a
    # signal arriving in the cleanup itself would otherwise leave the temporary file behind
    with _signals_deferred():
        _check_unchanged(path, real, expected)
        info = os.stat(real)
        mode = stat.S_IMODE(info.st_mode)
        # renaming over a read-only file succeeds (the folder is what is written), and root
        # may write anything: a file nobody may write is the user's "do not touch"
        if not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH) or not os.access(real, os.W_OK):
            raise PermissionError(errno.EACCES, "the file is read-only", str(path))
        if info.st_nlink > 1:
            # renaming a new file over it would leave the other names with the old content:
            # refused, as writing in place would give up atomicity (ruff writes in place)
            raise OSError(
                errno.EMLINK,
                f"the file has {info.st_nlink} hard links, which replacing it would break; "
                "fix one copy without the others (e.g. cp it) or apply --diff",
                str(path),
            )
        remove_stale_temporaries(real.parent)
        fd, temporary = tempfile.mkstemp(dir=real.parent, prefix=f".{real.name}.{os.getpid()}.", suffix=TEMP_SUFFIX)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            _keep_owner_and_attributes(real, temporary, info)
            os.chmod(temporary, mode)  # after chown, which may clear set-id bits
            _check_unchanged(path, real, expected)  # again: writing took time (fsync)
            os.replace(temporary, real)
        except BaseException:
            try:
                os.unlink(temporary)
            except OSError:
                pass
            raise


TEMP_SUFFIX = ".rtlint-tmp"
# ours: .NAME.PID.RANDOM.rtlint-tmp, and before PIDs were in the name .NAME.RANDOM.rtlint-tmp
_OURS = re.compile(r"^\..+?(?:\.(?P<pid>[0-9]+))?\.[a-z0-9_]{8}\.rtlint-tmp$")
_OLD_ENOUGH_NS = 10 * 60 * 1_000_000_000  # a name without a PID: stale after ten minutes
_cleaned: set[Path] = set()


def remove_stale_temporaries(folder: Path) -> list[str]:
    """Remove the temporary files of ours in `folder` whose process is gone (once per folder
    and process); the names removed."""
    if folder in _cleaned:
        return []
    _cleaned.add(folder)
    removed = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    import time

    for entry in entries:
        match = _OURS.match(entry.name)
        if match is None:
            continue
        try:
            if not entry.is_file(follow_symlinks=False):
                continue
            pid = match.group("pid")
            if pid is not None:
                if _running(int(pid)):
                    continue
            elif time.time_ns() - entry.stat(follow_symlinks=False).st_mtime_ns < _OLD_ENOUGH_NS:
                continue
            os.unlink(entry.path)
            removed.append(entry.name)
        except OSError:
            continue
    return removed


def _running(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: someone else's process
        return True
    return True


def _keep_owner_and_attributes(real: Path, temporary: str, info: os.stat_result) -> None:
    """The new file gets the old one's owner, group and extended attributes, as far as this
    process may set them (root may set any owner; others only their own groups)."""
    if hasattr(os, "chown") and (info.st_uid, info.st_gid) != _owner(temporary):
        for uid, gid in ((info.st_uid, info.st_gid), (-1, info.st_gid)):
            try:
                os.chown(temporary, uid, gid)
                break
            except OSError:
                continue
    if hasattr(os, "listxattr"):
        try:
            names = os.listxattr(real)
        except OSError:
            return
        for name in names:
            try:
                os.setxattr(temporary, name, os.getxattr(real, name))
            except OSError:
                continue  # e.g. security.* without the privilege: kept where allowed


def _owner(path: str) -> tuple[int, int]:
    info = os.stat(path)
    return info.st_uid, info.st_gid


def _check_unchanged(path: Path, real: Path, expected: bytes) -> None:
    # non-blocking, and never more than one byte past what is expected: the file may have
    # been replaced by a FIFO or a link to a device meanwhile
    fd = os.open(real, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode) or handle.read(len(expected) + 1) != expected:
            raise FileChanged(f"{path} changed on disk while it was being fixed; not written")


@contextlib.contextmanager
def _signals_deferred() -> Iterator[None]:
    """Hold SIGINT and SIGTERM (delivered when the block ends), in the main thread on POSIX."""
    import threading

    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() is not threading.main_thread():
        yield
        return
    held = {signal.SIGINT, signal.SIGTERM}
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
