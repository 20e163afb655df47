"""TensorBoard through tbparse: the reference reader (`--reader tbparse`) and the tests' oracle.

Slow and it inherits TensorBoard's silent purge after restarts and silent stop at a truncated
tail, which is why it is not the default.
"""
from __future__ import annotations

import math
import os

from ..model import RawRun, RunSource
from .tensorboard import _subfolder_tagger


def read_tbparse(source: RunSource) -> RawRun:
    from tbparse import SummaryReader

    raw = RawRun(source)
    reader = SummaryReader(source.path, extra_columns={"wall_time", "dir_name"},
                           event_types={"scalars", "tensors"})
    for frame in (reader.scalars, reader.tensors):
        if frame is None or frame.empty:
            continue
        for dir_name, tag, step, value, wall in zip(
            frame.get("dir_name", [""] * len(frame)), frame["tag"], frame["step"], frame["value"],
            frame["wall_time"],
        ):
            try:
                val = float(value)
            except (TypeError, ValueError):
                continue
            sub = dir_name.replace(os.sep, "/") if dir_name else "."
            raw.tag_code.append(raw.code_for(_subfolder_tagger(sub)(tag)))
            raw.step.append(int(step))
            raw.value.append(val)
            raw.wall_time.append(float(wall) if not math.isnan(wall) else math.nan)
    return raw
