"""Imported by a sweep's forkserver: loads the compiled readers once, so every forked worker uses
them from its first file on (small files included) without paying numba's start-up again."""
from __future__ import annotations

import numpy as np

from . import event_scan

if event_scan.numba is not None:
    _none = np.zeros(0, np.int64)
    try:
        event_scan.scan(np.frombuffer(b"\0" * 16, np.uint8), 0, 16, event_scan.CRC_TABLE, np.zeros(64, np.int64),
                        np.zeros((33, 3), np.int64), np.zeros(16, np.uint8), _none, np.zeros(0, np.uint8),
                        np.zeros(0, np.uint64), np.zeros(0, np.uint64), np.zeros(0, np.uint32), _none)
    except Exception:  # noqa: BLE001 - warming is an optimisation: the readers work without it
        pass
