"""Readers: one per log format, each turning a RunSource into a RawRun (same raw shape for all)."""
from __future__ import annotations

from ..model import RawRun, RunSource

READERS = ("native", "tbparse")


def read_run(source: RunSource, reader: str = "native") -> RawRun:
    """Read one run with the reader for its format. `reader="tbparse"` reads TensorBoard via tbparse."""
    if source.source == "tensorboard":
        if reader == "tbparse":
            from .tbparse_reader import read_tbparse

            return read_tbparse(source)
        from .tensorboard import read_tensorboard

        return read_tensorboard(source)
    if source.source == "wandb":
        from .wandb_offline import read_wandb_offline

        return read_wandb_offline(source)
    from ..sources import SOURCE_KINDS

    kind = SOURCE_KINDS.get(source.source)
    if kind is not None:
        return kind.read(source)
    raise ValueError(f"no reader for source {source.source!r}")
