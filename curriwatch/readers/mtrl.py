"""facebookresearch/mtrl's logger: `{save_dir}/train.log` and `eval.log`, one JSON object per line.

MTRL's Logger keeps one MetersGroup per mode (facebookresearch/mtrl@e282c3f5 mtrl/logger.py:185-193), each
writing `{log_dir}/{mode}.log`; `Logger.log("eval/success_env_index_3", ...)` strips the mode from the key
(:195-200), and each `dump(step)` appends `json.dumps` of the meters' averages plus `"mode"`, `"step"` and a
`"logbook_timestamp"` string (:87-98, :120-126). Keys ending in `_` are expanded per task index
(`success_env_index_{i}`, `episode_reward_env_index_{i}`, :163-177). The Logger never writes TensorBoard.
A resumed experiment appends to the same files (retain_logs, mtrl/experiment/experiment.py:97-108): its steps
go back, which is a restart. Keys are read as `{mode}/{key}`, so the two files' same names stay apart.
"""
from __future__ import annotations

import os

from ..model import RawRun, RunSource
from .lines import first_json_object, iter_json_objects
from .rows import RowSink, flatten, missing_steps, text_files, whole_step

MODE_FILES = ("train.log", "eval.log")
SNIFF_BYTES = 64 * 1024
BOOKKEEPING = ("mode", "step", "logbook_timestamp")


def detect_mtrl(folder: str, filenames: list[str]) -> list[tuple[str, tuple[str, ...]]]:
    """A save_dir: `train.log` or `eval.log` whose first line is a JSON object with `mode` and `step`."""
    files = tuple(os.path.join(folder, name) for name in MODE_FILES if name in filenames and _is_mode_log(
        os.path.join(folder, name)))
    return [("", files)] if files else []


def _is_mode_log(path: str) -> bool:
    first = first_json_object(path, SNIFF_BYTES)
    return first is not None and "mode" in first and "step" in first


def read_mtrl(source: RunSource) -> RawRun:
    raw = RawRun(source)
    for path, f, sink, report in text_files(raw, source.files, lambda: RowSink(raw)):
        default = os.path.basename(path).rsplit(".", 1)[0]  # the file's mode, where a line does not say
        no_step = 0
        for _lineno, obj in iter_json_objects(f, report):
            step = whole_step(obj.get("step"))
            if step is None:
                no_step += 1
                continue
            mode = obj.get("mode")
            if not isinstance(mode, str) or not mode:
                mode = default
            sink.add(flatten({k: v for k, v in obj.items() if k not in BOOKKEEPING}, prefix=f"{mode}/"), step)
        missing_steps(raw, source, path, no_step)
    return raw
