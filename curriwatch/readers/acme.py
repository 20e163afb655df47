"""DeepMind Acme's CSV logs: `{directory}/{acme_id}/logs/{label}/logs.csv`, one folder per logger label.

Acme's default logger (google-deepmind/acme@770bc75e acme/utils/loggers/default.py:28-76) writes through its
CSVLogger (acme/utils/loggers/csv.py:78-124) into `paths.process_path('~/acme', 'logs', label)`
(acme/utils/paths.py:29-59: `~/acme/{uid}/logs/{label}`, uid the `--acme_id` flag or a uuid), appending; the
header is the first row's keys, sorted, and keys first seen later are dropped (`extrasaction='ignore'`). An
EnvironmentLoop writes one row per episode — `episode_length`, `episode_return`, `steps_per_second` and the
counter's counts (acme/environment_loop.py:141-157). run_experiment gives the actor, evaluator and learner
counters the prefixes `actor`, `evaluator` and `learner` under one parent (acme/jax/experiments/
run_experiment.py:81, :100, :109-112, :152-155), so rows hold `actor_steps`, `evaluator_episodes`, … — but only
the counts that existed at a label's first row: the evaluator runs first (:174-178), so its header has no
`actor_steps`, while the actor's rows carry `evaluator_episodes`. An evaluator row of episode E is therefore put
at the actor steps of the last actor row that had seen fewer than E evaluator episodes.

The `logs` folder is the run (the `acme` profile names its env after the folder above it, the `acme_id`); each
label's columns are read as `{label}/{column}` (`actor/episode_return`, `evaluator/episode_return`), at
`actor_steps` where a row has it (an EnvironmentLoop without a counter prefix: `steps`), else mapped as above,
else on the label's own counter (a data issue says so).
The counters themselves are the step axis, not points. dcd's `logs.csv` (with `fields.csv`) is dcd's.
"""
from __future__ import annotations

import bisect
import os

from ..discover import TB_FILE
from ..model import DataIssue, RawRun, RunSource
from .rows import RowSink, csv_header, read_csv_rows, shown_path, text_files

LOGS = "logs"
LOG_FILE = "logs.csv"
LABELS = 64  # label folders looked at
STEP = "actor_steps"
OWN_STEPS = ("steps", "episodes")  # an EnvironmentLoop's counts without a prefix


def _label_files(logs: str) -> list[str]:
    """`{label}/logs.csv` files below a `logs` folder whose header names an Acme counter."""
    try:
        with os.scandir(logs) as entries:
            labels = sorted(e.name for e in entries if e.is_dir(follow_symlinks=False))[:LABELS]
    except OSError:
        return []
    found = []
    for label in labels:
        sub = os.path.join(logs, label)
        try:
            names = set(os.listdir(sub))
        except OSError:
            continue
        if LOG_FILE not in names or "fields.csv" in names or any(TB_FILE.match(n) for n in names):
            continue
        path = os.path.join(sub, LOG_FILE)
        if any(_counter(c) for c in csv_header(path)):
            found.append(path)
    return found


def detect_acme(folder: str, filenames: list[str]) -> list[tuple[str, tuple[str, ...]]]:
    """A folder named `logs` is a run when its label folders hold Acme's `logs.csv`."""
    if os.path.basename(folder.rstrip("/" + os.sep)) != LOGS:
        return []
    files = _label_files(folder)
    return [("", tuple(files))] if files else []


def _counter(column: str) -> bool:
    return column in OWN_STEPS or column.endswith(("_steps", "_episodes"))


def _label(path: str) -> str:
    return os.path.basename(os.path.dirname(path))


class _LabelRows:
    """Adapter between read_csv_rows and a RowSink: prefixes a label's columns and finds each row's step.

    `marks[label]` holds, in order, the `{label}_episodes` counts other labels' rows had seen and the actor
    steps at those rows."""

    def __init__(self, sink: RowSink, label: str, marks: dict[str, tuple[list[float], list[float]]]):
        self.sink, self.label, self.marks = sink, label, marks
        self.own = (f"{label}_steps", f"{label}_episodes", "episodes")
        self.by_own = 0  # rows left on the label's own counter

    def add(self, values: dict, step=None) -> None:
        num = {}
        for key, value in values.items():
            try:
                num[key] = float(value)
            except (TypeError, ValueError):
                continue
        step = num.get(STEP, num.get("steps"))  # an unprefixed EnvironmentLoop counts the env steps as `steps`
        if step is not None:
            for key, count in num.items():
                if key.endswith("_episodes") and key != f"{self.label}_episodes":
                    counts, steps = self.marks.setdefault(key[: -len("_episodes")], ([], []))
                    if not counts or count >= counts[-1]:  # a restart's counts going back are no mark
                        counts.append(count)
                        steps.append(step)
        else:
            step = self._mapped(num.get(f"{self.label}_episodes"))
            if step is None:
                step = next((num[k] for k in self.own if k in num), None)
                self.by_own += 1
        finite = step is not None and abs(step) < 2**62
        self.sink.add({f"{self.label}/{k}": v for k, v in values.items() if not _counter(k)},
                      int(step) if finite else None)

    def _mapped(self, episodes: float | None) -> float | None:
        """The actor steps of the last row of another label that had seen fewer than `episodes` of this one's."""
        seen = self.marks.get(self.label)
        if episodes is None or not seen:
            return None
        k = bisect.bisect_left(seen[0], episodes)
        return seen[1][k - 1] if k else 0.0


def read_acme(source: RunSource) -> RawRun:
    raw = RawRun(source)
    # labels whose rows have actor_steps first: they tell where the other labels' episodes fell
    ordered = sorted(source.files, key=lambda p: (STEP not in csv_header(p), _label(p)))
    marks: dict[str, tuple[list[float], list[float]]] = {}
    for path, f, sink, report in text_files(raw, ordered, lambda: RowSink(raw), what="row"):
        rows = _LabelRows(sink, _label(path), marks)
        read_csv_rows(f, rows, report)
        if rows.by_own:
            raw.issues.append(DataIssue("own_step_axis", shown_path(source, path), (
                f"{rows.by_own} row(s) have no `{STEP}` and no other label's rows say when they were written: "
                f"they are at the label's own counter (`{rows.own[0]}`), not on the actor's steps")))
    return raw
