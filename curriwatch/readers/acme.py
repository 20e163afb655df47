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
import itertools
import os

from ..discover import TB_FILE
from ..model import DataIssue, RawRun, RunSource
from .rows import RowSink, csv_header, iter_csv_cells, number, shown_path, text_files

LOGS = "logs"
LOG_FILE = "logs.csv"
LABELS = 64  # label folders looked at
STEP = "actor_steps"
OWN_STEPS = ("steps", "episodes")  # an EnvironmentLoop's counts without a prefix
LOOP_COLUMNS = ("episode_return", "episode_length")  # an EnvironmentLoop's rows (not a learner's losses)


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
    """A label's rows into a RowSink: its columns prefixed with the label, each row at its actor steps.

    `marks[column]` holds, in order, the counts of another label's counter (`evaluator_episodes`, `learner_steps`)
    that rows carrying `actor_steps` had seen, and their actor steps."""

    def __init__(self, sink: RowSink, label: str, marks: dict[str, tuple[list[float], list[float]]]):
        self.sink, self.label, self.marks = sink, label, marks
        self.mapped_by = (f"{label}_episodes", f"{label}_steps")
        self.own = (f"{label}_steps", f"{label}_episodes", "episodes")
        self.by_own = 0  # rows left on the label's own counter

    def add(self, values: dict) -> None:
        num = {key: v for key, v in ((key, number(value)) for key, value in values.items()) if v is not None}
        step = num.get(STEP, num.get("steps"))  # an unprefixed EnvironmentLoop counts the env steps as `steps`
        if step is not None:
            for key, count in num.items():
                if _counter(key) and key not in (STEP, "steps") and key not in self.mapped_by:
                    counts, steps = self.marks.setdefault(key, ([], []))
                    if not counts or count >= counts[-1]:  # a restart's counts going back are no mark
                        counts.append(count)
                        steps.append(step)
        else:
            step = next((m for m in (self._mapped(k, num.get(k)) for k in self.mapped_by) if m is not None), None)
            if step is None:
                step = next((num[k] for k in self.own if k in num), None)
                self.by_own += 1
        finite = step is not None and abs(step) < 2**62
        self.sink.add({f"{self.label}/{k}": v for k, v in values.items() if not _counter(k)},
                      int(step) if finite else None)

    def _mapped(self, column: str, count: float | None) -> float | None:
        """The actor steps of the last row of another label that had seen fewer than `count` of `column`."""
        seen = self.marks.get(column)
        if count is None or not seen:
            return None
        k = bisect.bisect_left(seen[0], count)
        return seen[1][k - 1] if k else 0.0


def _restored_layout(header: list[str], counters: set[str], rows: list[list[str]]) -> list[str | None] | None:
    """The columns of rows a restored job appended under a header they do not fit (`rows`: the first of them).

    A restored process's CSVLogger takes its fields from its own first row, sorted, and writes no header into the
    file it appends to (acme/utils/loggers/csv.py:115-123); that row holds every count the restored parent counter
    had — the header's and other labels' counters (`actor_steps` in an evaluator's rows). The added columns are some
    of the run's counters the header lacks: each choice that fits the rows' length and leaves every count (`*_steps`,
    `*_episodes`) a whole number >= 0 that never decreases is tried; where all such choices put the header's columns
    at the same places, those are the columns (an added column whose name they disagree on is left out). None when
    none fits or they disagree."""
    extra = sorted(counters - set(header))
    need = len(rows[0]) - len(header)
    if need <= 0 or need > len(extra) or len(extra) > 12:
        return None
    fits = []
    for chosen in itertools.combinations(extra, need):
        fields = sorted(header + list(chosen))
        if all(_counts(row[k] for row in rows) for k, name in enumerate(fields) if _counter(name)):
            fits.append(fields)
    if not fits or any([f.index(h) for h in header] != [fits[0].index(h) for h in header] for f in fits):
        return None
    return [name if all(f[k] == name for f in fits) else None for k, name in enumerate(fits[0])]


def _counts(cells) -> bool:
    """Whole numbers >= 0, never decreasing."""
    last = 0.0
    for cell in cells:
        try:
            value = float(cell)
        except ValueError:
            return False
        if not (value >= last and value.is_integer()):
            return False
        last = value
    return True


LAYOUT_ROWS = 32  # rows of a new layout read before its columns are decided


def _read_label(f, rows: _LabelRows, report, counters: set[str]) -> None:
    """A label's logs.csv: its header, then rows of that header or, appended by a restored job, of another layout
    (decided on its first LAYOUT_ROWS rows, which wait till then)."""
    header: list[str] | None = None
    layouts: dict[int, list[str | None] | None] = {}
    waiting: list[tuple[int, list[str]]] = []

    def settle() -> None:
        for n in {len(cells) for _, cells in waiting} - set(layouts):
            layouts[n] = _restored_layout(header, counters, [c for _, c in waiting if len(c) == n])
        for lineno, cells in waiting:
            fields = layouts[len(cells)]
            if fields is None:
                report.bad.append((lineno, f"{len(cells)} cells for {len(header)} columns"))
            else:
                rows.add({name: cell for name, cell in zip(fields, cells) if name is not None})
        waiting.clear()

    for lineno, cells in iter_csv_cells(f, report):
        if header is None:
            header = cells
            layouts[len(header)] = header
            continue
        if waiting or len(cells) not in layouts:
            waiting.append((lineno, cells))
            if sum(len(c) == len(cells) for _, c in waiting) >= LAYOUT_ROWS:
                settle()
            continue
        rows.add({name: cell for name, cell in zip(layouts[len(cells)], cells) if name is not None})
    if waiting:
        settle()


def read_acme(source: RunSource) -> RawRun:
    raw = RawRun(source)
    headers = {p: csv_header(p) for p in source.files}
    labels = {_label(p) for p in source.files}
    # every count a parent counter can hold: the labels' own counters, and any other counter column a header shows
    counters = {c for h in headers.values() for c in h if _counter(c) or c.split("_", 1)[0] in labels}
    # labels whose rows have actor_steps first: they tell where the other labels' rows fell
    ordered = sorted(source.files, key=lambda p: (STEP not in headers[p], _label(p)))
    marks: dict[str, tuple[list[float], list[float]]] = {}
    for path, f, sink, report in text_files(raw, ordered, lambda: RowSink(raw), what="row"):
        rows = _LabelRows(sink, _label(path), marks)
        _read_label(f, rows, report, counters)
        if rows.by_own and any(c in headers[path] for c in LOOP_COLUMNS):
            raw.issues.append(DataIssue("own_step_axis", shown_path(source, path), (
                f"{rows.by_own} row(s) have no `{STEP}` and no other label's rows say when they were written: "
                f"they are at the label's own counter (`{rows.own[0]}`), not on the actor's steps")))
    return raw
