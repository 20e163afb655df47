"""Opening input files: read-only, whole, with errors turned into data issues."""
from __future__ import annotations

import contextlib
import errno
import mmap
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


@contextlib.contextmanager
def mapped(path: str):
    """The file mapped read-only, as (mmap or b"", release): `release(upto)` drops the pages before
    `upto` from this process's memory, so reading a big file keeps the resident set flat.

    Same checks as `read_bytes`. The size is fixed when mapped: bytes appended later are not seen.
    A remote URL (fsspec) cannot be mapped: its bytes are read as `read_bytes` reads them.
    """
    if "://" in path:
        from ..remote import is_url

        if is_url(path):
            yield read_bytes(path), lambda upto: None
            return
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        if info.st_size == 0:
            yield b"", lambda upto: None
            return
        mm = mmap.mmap(fd, info.st_size, access=mmap.ACCESS_READ)
    finally:
        os.close(fd)
    done = 0

    def release(upto: int) -> None:
        nonlocal done
        upto -= upto % mmap.PAGESIZE
        if upto - done >= RELEASE_EVERY and hasattr(mm, "madvise"):
            mm.madvise(mmap.MADV_DONTNEED, done, upto - done)
            done = upto

    try:
        yield mm, release
    finally:
        with contextlib.suppress(BufferError):  # numpy views still alive: the GC closes it
            mm.close()


RELEASE_EVERY = 32 << 20  # bytes


def files_below(folder: str, limit: int, suffix: str = "") -> list[str]:
    """The files below `folder` whose names end in `suffix`, in sorted order, at most `limit` of them (a
    reader that gets `limit` files reports that it may have missed some: too_many_files)."""
    out: list[str] = []
    for below, dirnames, filenames in os.walk(folder, followlinks=False):
        dirnames.sort()
        out += (os.path.join(below, name) for name in sorted(filenames) if name.endswith(suffix))
        if len(out) >= limit:
            return out[:limit]
    return out


def too_many_files(shown: str, limit: int, what: str) -> DataIssue:
    return DataIssue("too_many_files", shown, f"the first {limit} {what} were read; any beyond them were not")


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
