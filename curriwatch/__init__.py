"""curriwatch: post-hoc health analysis of RL curricula from TensorBoard and W&B logs.

    import curriwatch
    ingest = curriwatch.load("runs/")          # frame + per-run data issues
    ingest.frame                               # run, env_id, split, metric, step, value, wall_time
    report = curriwatch.analyze(ingest)        # timelines, incidents, health; report.to_dict() is the JSON
    report = curriwatch.scan("runs/")          # the same report, read and analysed run by run on every core

The names below load on first use (module __getattr__), so `curriwatch --version` and `--help`
never import pandas, numpy or scipy.
"""
from __future__ import annotations

import sys
import types
from importlib import import_module

from .errors import ConfigError, CurriwatchError, InputError


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("curriwatch")
    except PackageNotFoundError:  # running from a source tree that was not installed
        return "0+unknown"


_LAZY = {
    "Config": ".config", "load_config": ".config",
    "Ingest": ".ingest", "RunInfo": ".ingest", "load": ".ingest",
    "DataIssue": ".model",
    "analyze": ".analyze",
    "scan": ".scan",
    "Report": ".report", "RunReport": ".report",
}


def __getattr__(name: str):
    if name == "__version__":  # importlib.metadata costs ~30 ms: only when asked
        globals()[name] = value = _version()
        return value
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'curriwatch' has no attribute {name!r}")
    value = getattr(import_module(module, __name__), name)
    globals()[name] = value
    return value


class _Package(types.ModuleType):
    """`curriwatch.analyze` is a function and also the name of a submodule: importing the submodule
    must not replace the function on the package (it did not when everything loaded eagerly)."""

    def __setattr__(self, name, value):
        if isinstance(value, types.ModuleType) and name in _LAZY:
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY) | {"__version__"})


__all__ = [
    "Config", "ConfigError", "Report", "RunReport", "analyze", "CurriwatchError", "DataIssue", "Ingest", "InputError", "RunInfo",
    "__version__", "load", "load_config", "scan",
]
