"""curriwatch: post-hoc health analysis of RL curricula from TensorBoard and W&B logs.

    import curriwatch
    ingest = curriwatch.load("runs/")          # frame + per-run data issues
    ingest.frame                               # run, env_id, split, metric, step, value, wall_time
    report = curriwatch.analyze(ingest)        # timelines, incidents, health; report.to_dict() is the JSON
"""
from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("curriwatch")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0+unknown"

from .config import Config, load_config  # noqa: E402
from .errors import ConfigError, CurriwatchError, InputError  # noqa: E402
from .ingest import Ingest, RunInfo, load  # noqa: E402
from .model import DataIssue  # noqa: E402
from .analyze import analyze  # noqa: E402
from .report import Report, RunReport  # noqa: E402

__all__ = [
    "Config", "ConfigError", "Report", "RunReport", "analyze", "CurriwatchError", "DataIssue", "Ingest", "InputError", "RunInfo",
    "__version__", "load", "load_config",
]
