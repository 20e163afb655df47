"""DreamerV3's logdir (`~/logdir/{timestamp}`): the task it trained, the env a `{run}` pattern stands for.

DreamerV3 saves the run's config as `{logdir}/config.yaml` (danijar/dreamerv3@e3f0224 dreamerv3/main.py:37-42) beside
the JSON lines of its logger (`metrics.jsonl`, `scores.jsonl`: main.py:158-162), and before 2024 its TensorBoard files
in the same folder (dreamerv3@2411f7d^ dreamerv3/train.py:108-118): both readers name the run's env by its `task`.
"""
from __future__ import annotations

import os
import re

from .lines import open_regular

DREAMER_SCORES = "scores.jsonl"
DREAMER_CONFIG = "config.yaml"
MAX_CONFIG = 1024 * 1024
_TASK_LINE = re.compile(rb"^task: *([A-Za-z0-9][\w.:/-]{0,200}) *\r?$", re.M)  # a top-level `task: atari_pong`


def dreamer_task(folder: str) -> str | None:
    """The `task` of a DreamerV3 logdir's config.yaml (a logdir: `scores.jsonl` beside it), read as a plain line."""
    config = os.path.join(folder, DREAMER_CONFIG)
    if not (os.path.isfile(os.path.join(folder, DREAMER_SCORES)) and os.path.isfile(config)):
        return None
    try:
        with open_regular(config) as f:
            text = f.read(MAX_CONFIG)
    except OSError:
        return None  # the run is read all the same, named by its folder
    m = _TASK_LINE.search(text)
    return m.group(1).decode("ascii") if m else None
