"""Opening input files: read-only, whole, with errors turned into data issues."""
from __future__ import annotations

import errno
import os
import stat

from ..model import DataIssue


def read_bytes(path: str) -> bytes:
    """The file's bytes as they are now (a snapshot, so a file still being written is safe).

    Opened read-only and non-blocking, and refused unless it is a regular file, so a FIFO or a
    device named like a log file cannot hang or flood the reader. URLs are read through fsspec.
    """
    if "://" in path:
        from ..remote import is_url, open_binary

        if is_url(path):
            with open_binary(path) as f:
                return f.read()
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


def undecodable_issue(shown: str, offsets: list[int]) -> DataIssue:
    """Records whose CRC was valid but whose payload did not decode."""
    return DataIssue("corrupt_record", shown,
                     f"{len(offsets)} record(s) with a valid CRC could not be decoded and were skipped "
                     f"(first at byte {offsets[0]})")


def incomplete_tail_issue(shown: str, offset: int, size: int) -> DataIssue:
    """A file that ends inside a record: crashed, or still being written."""
    return DataIssue("incomplete_tail", shown,
                     f"file ends inside a record at byte {offset} of {size}: the last {size - offset} byte(s) "
                     "are an incomplete record (crashed or still being written); every complete record "
                     "before it was read")
