"""Writing a fixed file: atomically (a temporary file renamed over it), and only if it
still holds what was read."""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import stat
import tempfile
from pathlib import Path
from typing import Iterator


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
        mode = stat.S_IMODE(os.stat(real).st_mode)
        # renaming over a read-only file succeeds (the folder is what is written), and root
        # may write anything: a file nobody may write is the user's "do not touch"
        if not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH) or not os.access(real, os.W_OK):
            raise PermissionError(errno.EACCES, "the file is read-only", str(path))
        fd, temporary = tempfile.mkstemp(dir=real.parent, prefix=f".{real.name}.", suffix=".rtlint-tmp")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(temporary, mode)
            _check_unchanged(path, real, expected)  # again: writing took time (fsync)
            os.replace(temporary, real)
        except BaseException:
            try:
                os.unlink(temporary)
            except OSError:
                pass
            raise


def _check_unchanged(path: Path, real: Path, expected: bytes) -> None:
    with open(real, "rb") as handle:
        if handle.read() != expected:
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
