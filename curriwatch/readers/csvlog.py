"""Training loggers' own CSV files, where a run left no TensorBoard or W&B copy of them.

- Stable-Baselines3's `configure(folder, ["csv"])` writes `{folder}/progress.csv`
  (DLR-RM/stable-baselines3@e05d2db stable_baselines3/common/logger.py:467); its CSVOutputFormat
  (:325-383) rewrites the whole file with a longer header, earlier rows padded with empty cells, when
  a dump brings keys it has not seen (EvalCallback's `eval/*` after the first rollouts), and every dump
  records `time/total_timesteps` (common/on_policy_algorithm.py:295, common/callbacks.py:515). OpenAI
  baselines' logger, from which SB3's descends, writes `progress%s.csv` the same way (baselines/logger.py
  make_output_format), its TensorBoard copy into `tb/`.
- rl-starter-files appends `{model_dir}/log.csv` through `csv.writer` (lcswillems/rl-starter-files@317da04
  utils/storage.py:66-70): `update, frames, FPS, duration, rreturn_*, num_frames_*, entropy, value,
  policy_loss, value_loss, grad_norm, return_*` every log interval, the header again before each row
  until the first status save (scripts/train.py:171-189: it is written while the saved status still
  says 0 frames); a job resumed from its status appends, its frames since the save logged again.

A folder's `progress.csv`, `log.csv` or `metrics.csv` is a run when its header names a step column (STEP_KEYS, or a
user profile's `step_key`); a CSV file of another name when its header names a user profile's `step_key` (a user who
names the column their logger steps by has named a log of theirs: a results table with a `step` column is no run
by default) — each where neither the folder nor a subfolder of it holds TensorBoard event files (the same values
written twice, as SB3 and rl-starter-files write them beside it and OpenAI baselines into `tb/`: the event files are
read) and the folder is no Ray Tune trial's (readers/tune.py owns those; a `params.json` beside a progress.csv without Tune's
columns is another logger's: OpenAI baselines' HER writes one). The first step
column found is the step; rows sharing a step are kept as observations, a step going back begins a
restart (rows.RowSink). Keys then go through the key profiles like TensorBoard tags (`rollout/
ep_rew_mean` through the `sb3` profile); a log whose keys no profile claims is a run of status
`unknown`, as it would be from TensorBoard.
"""
from __future__ import annotations

import os

from ..discover import TB_FILE
from ..model import RawRun, RunSource
from .rows import LOGGER_STEP_KEYS as STEP_KEYS
from .rows import RowSink, csv_header, read_csv_rows, text_files
from .tune import detect_tune

LOG_FILES = ("progress.csv", "log.csv", "metrics.csv")
SUBFOLDERS = 64
OTHER_FILES = 64  # CSV files of other names a folder is sniffed for a user profile's step key
MONITOR_SUFFIX = "monitor.csv"  # SB3's Monitor files (readers/sb3_monitor.py)


def _event_files_below(folder: str) -> bool:
    """Whether a subfolder of `folder` (the first SUBFOLDERS of them) holds event files: baselines writes its
    TensorBoard copy into `tb/` beside progress.csv (openai/baselines baselines/logger.py make_output_format)."""
    try:
        with os.scandir(folder) as entries:
            subs = [e.path for e in entries if e.is_dir(follow_symlinks=False)][:SUBFOLDERS]
        for sub in subs:
            with os.scandir(sub) as entries:
                if any(TB_FILE.match(e.name) for e in entries):
                    return True
    except OSError:
        return False
    return False


def detect_csvlog(folder: str, filenames: list[str], step_keys: tuple[str, ...] = ()
                  ) -> list[tuple[str, tuple[str, ...]]]:
    """The folder is a run when it holds a logger's CSV file naming a step column (or a user profile's step key) and
    no other copy of it."""
    names = set(filenames)
    if any(TB_FILE.match(name) for name in filenames) or detect_tune(folder, filenames):
        return []
    for name in LOG_FILES:
        if name in names and set(csv_header(os.path.join(folder, name))).intersection(STEP_KEYS + step_keys) \
                and not _event_files_below(folder):
            return [("", (os.path.join(folder, name),))]
    return []


def detect_user_csv(folder: str, filenames: list[str], step_keys: tuple[str, ...] = ()
                    ) -> list[tuple[str, tuple[str, ...]]]:
    """Where no other kind found a run in the folder (sources.detect_sources: dcd's `fields.csv`, Acme's `logs.csv`
    are theirs): each CSV file of another name (the first OTHER_FILES by name) whose header names one of `step_keys`
    — the user profiles': the column a user's own logger steps by (AgileRL's CSVLogger writes
    `training_metrics.csv`, its rows stepped by `train/global_step`) — is a run, the folder itself when it is the
    only one."""
    if not step_keys or any(TB_FILE.match(name) for name in filenames):
        return []
    others = sorted(n for n in filenames if n.lower().endswith(".csv") and n not in LOG_FILES
                    and not n.lower().endswith(MONITOR_SUFFIX))[:OTHER_FILES]
    own = [n for n in others if set(csv_header(os.path.join(folder, n))).intersection(step_keys)]
    if not own or _event_files_below(folder):
        return []
    if len(own) == 1:
        return [("", (os.path.join(folder, own[0]),))]
    return [(n, (os.path.join(folder, n),)) for n in own]


def read_csvlog(source: RunSource) -> RawRun:
    raw = RawRun(source)
    for _path, f, sink, report in text_files(raw, source.files, lambda: RowSink(raw, STEP_KEYS), what="row"):
        read_csv_rows(f, sink, report)
    return raw
