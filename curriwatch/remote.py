"""Remote logdirs: `gs://`, `s3://`, `memory://` and any other fsspec URL, read in place.

Paths stay full URLs everywhere (RunSource.path/files), so readers open them with `open_binary`.
fsspec is imported only for URLs; gcsfs / s3fs are optional extras (`curriwatch[gcs]`, `[s3]`).
"""
from __future__ import annotations

import re
from collections.abc import Iterator

from .errors import InputError

_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def is_url(path) -> bool:
    return isinstance(path, str) and bool(_URL.match(path)) and not path.startswith("file://")


def _fs(url: str):
    try:
        import fsspec
    except ImportError:
        raise InputError(f"{url}: reading remote logdirs needs fsspec (pip install fsspec)") from None
    try:
        fs, path = fsspec.core.url_to_fs(url)
    except (ImportError, ValueError) as err:
        raise InputError(f"{url}: no filesystem for this URL ({err}); install its fsspec extra "
                         "(gcsfs for gs://, s3fs for s3://)") from None
    return fs, path


def _url(url: str, fs, path: str) -> str:
    proto = url.split("://", 1)[0]
    return f"{proto}://{path.lstrip('/')}" if proto != "memory" else f"memory://{path}"


def check_url(url: str) -> str:
    """The URL without a trailing slash, or an InputError saying why it cannot be scanned."""
    fs, path = _fs(url)
    try:
        if not fs.exists(path):
            raise InputError(f"logdir not found: {url}")
        if not fs.isdir(path):
            raise InputError(f"logdir is a file, not a folder: {url}")
    except OSError as err:
        raise InputError(f"cannot read {url}: {err}") from None
    return _url(url, fs, path).rstrip("/")


def walk(url: str, on_error) -> Iterator[tuple[str, list[str], list[str]]]:
    """Like os.walk on a URL: (folder URL, subfolder names, file names), top-down."""
    fs, root = _fs(url)
    try:
        def report(err):
            on_error(err if isinstance(err, OSError) else OSError(str(err)))

        for folder, dirs, files in fs.walk(root, on_error=report):
            yield _url(url, fs, folder), sorted(dirs), sorted(files)
    except OSError as err:
        on_error(err)


def relative(path: str, root: str) -> str:
    root = root.rstrip("/")
    if path == root:
        return "."
    return path[len(root) + 1:] if path.startswith(root + "/") else path


def open_binary(url: str):
    """A remote file opened for streamed reading (fsspec reads it in blocks)."""
    fs, path = _fs(url)
    try:
        return fs.open(path, "rb")
    except (FileNotFoundError, IsADirectoryError, PermissionError):
        raise
    except Exception as err:  # backends raise their own errors; they are all "cannot open"
        raise OSError(str(err)) from None
