"""tinker-cookbook's `metrics.jsonl`: one JSON object per `log_metrics` call, `{"step": N, ...}`.

tinker-cookbook's JsonLogger is always on (tinker_cookbook/utils/ml_log.py:552-553) and appends
each `log_metrics(metrics, step)` (ml_log.py:203-205) as `json.dumps({"step": step, **metrics})`
plus a newline to `{log_path}/metrics.jsonl` (stores/training_store.py:256-272); json.dumps writes
bare NaN. Next to it: config.json, checkpoints.jsonl, timing_spans.jsonl, logs.log, and with W&B
configured the same dicts in `{log_path}/wandb/run-*/` (ml_log.py:317-332), which are not read
again. A resumed run starts again at its last checkpoint's batch (rl/train.py:1929-1931) and appends
to the same file: its steps go back, which is a restart. In async mode the evaluation loop logs its
own line at the step it evaluated (rl/train.py:1287), possibly after later training lines.

prime-rl's FileMonitor writes the same shape (PrimeIntellect-ai/prime-rl@559b4477 src/prime_rl/monitors/
file.py:38-40: `{"step": step, "time": ..., **metrics}`), but its orchestrator puts `metrics["step"] =
float(batch.step)` into the metrics (src/prime_rl/orchestrator/orchestrator.py:937), which overrides the int:
`"step": 50.0`. A whole-number float is that step.

DreamerV3's logger (danijar/elements@b781f90 elements/logger.py:168-195 JSONLOutput) writes the same shape to
`{logdir}/metrics.jsonl`, and `scores.jsonl` beside it with `episode/score` alone, and saves the run's config as
`{logdir}/config.yaml` (danijar/dreamerv3@e3f0224 dreamerv3/main.py:37-42, :158-162): the env a `{run}` pattern stands
for is that config's `task`. Before 2024 it wrote TensorBoard files into the same folder as well
(dreamerv3@2411f7d^ dreamerv3/train.py:108-118): those are the run (every episode of a step; the JSONL keeps a key's
last value at a step), and the JSONL files are not read again.
"""
from __future__ import annotations

import os

from ..discover import TB_FILE
from ..model import RawRun, RunSource
from .dreamer import dreamer_task
from .lines import first_json_object, iter_json_objects
from .rows import RowSink, flatten, missing_steps, text_files, whole_step

METRICS_FILE = "metrics.jsonl"
SNIFF_BYTES = 1024 * 1024


def detect_tinker(folder: str, filenames: list[str]) -> list[tuple[str, tuple[str, ...]]]:
    """A log_path: `metrics.jsonl` whose first line is a JSON object with a `step`."""
    if METRICS_FILE not in filenames or any(TB_FILE.match(name) for name in filenames):
        return []
    path = os.path.join(folder, METRICS_FILE)
    first = first_json_object(path, SNIFF_BYTES)
    return [("", (path,))] if first is not None and "step" in first else []


def read_tinker(source: RunSource) -> RawRun:
    raw = RawRun(source)
    raw.env_hint = dreamer_task(source.path)
    for path, f, sink, report in text_files(raw, source.files, lambda: RowSink(raw)):
        no_step = 0
        for _lineno, obj in iter_json_objects(f, report):
            step = whole_step(obj.pop("step", None))
            if step is None:
                no_step += 1
                continue
            sink.add(flatten(obj), step)
        missing_steps(raw, source, path, no_step)
    return raw
