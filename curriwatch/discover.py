"""Find the runs in a logdir: TensorBoard folders and W&B offline run folders; ignore junk."""
from __future__ import annotations

import os
import re
from pathlib import Path, PurePosixPath

from .errors import InputError
from .model import DataIssue, RunSource
from . import remote
from .remote import is_url
from .sources import SOURCE_KINDS, detect_sources

TB_FILE = re.compile(r"^events\.out\.tfevents\.")
WANDB_FILE = re.compile(r"^run-.+\.wandb$")
_CHUNKS = re.compile(r"(\d+)")


def _tb_order(path: str) -> tuple:
    """Event files in the order they were started: the name compared with its numbers as numbers
    (timestamp first; writers started within one second differ by a counter or pid suffix, and
    `.10` was written after `.2`)."""
    name = os.path.basename(path)
    parts = _CHUNKS.split(name)
    return (os.path.dirname(path), tuple((0, int(p), "") if i % 2 else (1, 0, p) for i, p in enumerate(parts)))


def relative_name(folder: str, root: str) -> str:
    """The run's name: its folder relative to the logdir. Bytes that are not UTF-8 (read as
    surrogate escapes) are named \\xNN, so the name is text every format can carry."""
    if is_url(root):
        return remote.relative(folder, root)
    rel = os.path.relpath(folder, root)
    name = PurePosixPath(Path(rel)).as_posix() if rel != "." else "."
    return os.fsencode(name).decode("utf-8", "backslashreplace")


def check_logdir(logdir: str | os.PathLike) -> str:
    """The logdir as an absolute path (or canonical URL), or an InputError saying why it cannot be scanned."""
    if is_url(logdir):
        return remote.check_url(logdir)
    path = os.path.abspath(os.fspath(logdir))
    if not os.path.exists(path):
        raise InputError(f"logdir not found: {logdir}")
    if not os.path.isdir(path):
        raise InputError(f"logdir is a file, not a folder: {logdir}")
    if not os.access(path, os.R_OK | os.X_OK):
        raise InputError(f"permission denied: cannot read folder {logdir}")
    return path


def discover(logdir: str | os.PathLike, step_keys: tuple[str, ...] = ()) -> tuple[list[RunSource], list[DataIssue]]:
    """Walk `logdir` (symlinked folders are not followed, so loops cannot hang it) and return runs.

    A folder with event files is a TensorBoard run; event files in its subfolders (torch's
    add_hparams / add_scalars write those) belong to it. A folder with `run-*.wandb` files is a
    W&B run. Other kinds (Ray Tune, dcd, SwanLab, ROLL stdout logs) come from the registry in
    sources.py (`step_keys`: the user profiles', see detect_sources). Everything else is ignored; folders that
    cannot be listed become data issues.
    """
    root = check_logdir(logdir)
    issues: list[DataIssue] = []
    tb_runs: dict[str, list[str]] = {}
    wandb_runs: dict[str, list[str]] = {}
    other_runs: list[RunSource] = []

    def on_error(err: OSError) -> None:
        where = relative_name(err.filename, root) if err.filename else "."
        issues.append(DataIssue("unreadable_folder", where, f"cannot list folder: {err.strerror or err}"))

    walker = remote.walk(root, on_error) if is_url(root) else os.walk(root, onerror=on_error, followlinks=False)
    for folder, dirnames, filenames in walker:
        dirnames.sort()
        events = [f for f in filenames if TB_FILE.match(f)]
        wandbs = [f for f in filenames if WANDB_FILE.match(f)]
        found, exclusive = detect_sources(folder, filenames, step_keys)
        other_runs += [RunSource(relative_name(path, root), kind, path, files) for kind, path, files in found]
        if events and not exclusive:
            owner = _tb_owner(folder, tb_runs)
            tb_runs.setdefault(owner or folder, []).extend(os.path.join(folder, f) for f in events)
        if wandbs:
            wandb_runs[folder] = sorted(os.path.join(folder, f) for f in wandbs)

    shadowed = tuple(os.path.join(run.path, sub) + os.sep for run in other_runs
                     for sub in SOURCE_KINDS[run.source].shadows)
    if shadowed:  # the same data written again in another format (tinker's wandb/): read once
        tb_runs = {k: v for k, v in tb_runs.items() if not (k + os.sep).startswith(shadowed)}
        wandb_runs = {k: v for k, v in wandb_runs.items() if not (k + os.sep).startswith(shadowed)}
    runs = [
        RunSource(relative_name(folder, root), "tensorboard", folder, tuple(sorted(files, key=_tb_order)))
        for folder, files in tb_runs.items()
    ]
    # A folder holding both kinds is two runs; the W&B one is named `FOLDER [wandb]`.
    runs += [
        RunSource(relative_name(folder, root) + (" [wandb]" if folder in tb_runs else ""), "wandb", folder,
                  tuple(files))
        for folder, files in wandb_runs.items()
    ]
    runs += other_runs
    runs.sort(key=lambda r: r.name)
    return runs, issues


def _tb_owner(folder: str, tb_runs: dict[str, list[str]]) -> str | None:
    """The nearest ancestor folder that is already a TensorBoard run, if any."""
    parent = os.path.dirname(folder)
    while parent and parent != folder:
        if parent in tb_runs:
            return parent
        folder, parent = parent, os.path.dirname(parent)
    return None
