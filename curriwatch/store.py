"""Saved scan results: kept in the user's cache folder (never in the logdir), keyed by logdir."""
from __future__ import annotations

import hashlib
import os
import pickle
import time
from pathlib import Path

from . import __version__
from .errors import InputError
from .report import Report



def _format() -> str:
    """Changes whenever a saved class gains or loses a field, so an old pickle is never misread."""
    from dataclasses import fields

    from .health import EnvHealth
    from .incidents import Incident
    from .model import DataIssue
    from .report import RunReport
    from .timeline import Interval

    names = [f"{cls.__name__}:{','.join(f.name for f in fields(cls))}"
             for cls in (Report, RunReport, EnvHealth, Incident, Interval, DataIssue)]
    return hashlib.sha256(";".join(names).encode()).hexdigest()[:12]


def cache_dir() -> Path:
    from platformdirs import user_cache_dir

    return Path(os.environ.get("CURRIWATCH_CACHE_DIR") or user_cache_dir("curriwatch")) / "results"


def _key(logdir: str) -> str:
    return hashlib.sha256(os.path.abspath(logdir).encode()).hexdigest()[:20]


def save(report: Report, retention_days: int) -> Path:
    """Save `report` as the last scan (and the last of its logdir); prune results older than
    `retention_days` (0 keeps only this one)."""
    folder = cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{_key(report.logdir or 'online')}.pickle"
    tmp = path.with_suffix(".tmp")
    with open(tmp, "wb") as f:
        pickle.dump({"format": _format(), "version": __version__, "saved": time.time(), "report": report}, f)
    os.replace(tmp, path)
    (folder / "last").write_text(path.name)
    cutoff = time.time() - retention_days * 86400
    for old in folder.glob("*.pickle"):
        if old != path and old.stat().st_mtime < cutoff:
            old.unlink(missing_ok=True)
    return path


def load_last(logdir: str | None = None) -> Report:
    """The last saved scan (of `logdir`, if given)."""
    folder = cache_dir()
    if logdir is not None:
        path = folder / f"{_key(logdir)}.pickle"
    else:
        last = folder / "last"
        path = folder / last.read_text().strip() if last.is_file() else None
    if path is None or not path.is_file():
        raise InputError("no saved scan result: run `curriwatch scan LOGDIR` first, or give LOGDIR")
    try:
        with open(path, "rb") as f:
            saved = pickle.load(f)
        if saved.get("format") != _format() or saved.get("version") != __version__:
            raise ValueError("saved by another curriwatch version")
        return saved["report"]
    except Exception as err:  # unreadable or from another version: say so, never a traceback
        raise InputError(f"cannot use the saved scan result ({err}); run `curriwatch scan` again") from None
