"""Opening input files: read-only, whole, with errors turned into data issues."""
from __future__ import annotations

import errno
import os
import stat

from ..model import DataIssue


def read_bytes(path: str) -> bytes:
    """The file's bytes as they are now (a snapshot, so a file still being written is safe).

    Opened read-only and non-blocking, and refused unless it is a regular file, so a FIFO or a
    device named like a log file cannot hang or flood the reader.
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        with os.fdopen(fd, "rb", closefd=False) as f:
            return f.read()
    finally:
        os.close(fd)


def unreadable(shown: str, err: OSError) -> DataIssue:
    return DataIssue("unreadable_file", shown, f"cannot open file: {err.strerror or err}")
