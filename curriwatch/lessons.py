"""Lesson curricula: one env whose difficulty advances through ordered lessons.

Unity ML-Agents logs the lesson of every environment parameter as `Environment/Lesson Number/{param}`
(0..N) into every behavior's folder, beside `Environment/Cumulative Reward`; the `mlagents` profile
maps it to split `state`, metric `Lesson Number/{param}`, and any state-split metric other than
`state` is read as such a lesson index. Lessons are ordered stages, not the locked/active/graduated
states: per parameter a lesson timeline, the time spent in each lesson, falls back to an earlier
lesson, and how the reward held up after each advance.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .envdata import EnvData
from .stats import trailing_median
from .segments import robust_sd
from .timeline import Interval

LESSON_PREFIX = "Lesson Number/"
VERDICTS = ("held", "recovered", "collapsed", "pending", "interrupted", "not_judged")


def parameter_name(metric: str) -> str:
    """`Lesson Number/big_wall_height` -> `big_wall_height` (other lesson metrics as they are)."""
    return metric[len(LESSON_PREFIX):] if metric.startswith(LESSON_PREFIX) else metric


@dataclass(frozen=True)
class LessonSpan:
    """One stay in one lesson: from start_step up to end_step (the next change, or the run's last step)."""

    lesson: int
    start_step: int
    end_step: int


@dataclass(frozen=True)
class Advance:
    """A move to a later lesson and how the reward held up after it (values in the metric's units).

    verdict: held (never fell below the recovery line), recovered (dipped and came back within the
    window), collapsed (did not come back within the window: an incident), pending (the run ended
    inside the window), interrupted (another lesson change came inside the window), not_judged
    (too few reward points around the advance, or no learned level to measure against)."""

    step: int
    from_lesson: int
    to_lesson: int
    verdict: str
    held_reward: float | None = None  # the level held before the advance
    start_reward: float | None = None  # where the lesson before began: gain = held - start
    lowest_reward: float | None = None  # the lowest smoothed reward after it (within the window)
    recovered_at_step: int | None = None
    window_steps: int | None = None
    reason: str | None = None  # why it was not judged


@dataclass(frozen=True)
class Fallback:
    """A move back to an earlier lesson; regained_at_step: where the earlier lesson was reached again."""

    step: int
    from_lesson: int
    to_lesson: int
    regained_at_step: int | None


@dataclass(frozen=True)
class LessonTrack:
    """One environment parameter's lessons in one env."""

    parameter: str
    metric: str
    spans: tuple[LessonSpan, ...]
    advances: tuple[Advance, ...] = ()
    invalid_points: int = 0  # logged values that are not lesson indexes (negative, fractional, NaN)

    @property
    def current_lesson(self) -> int | None:
        return self.spans[-1].lesson if self.spans else None

    @property
    def highest_lesson(self) -> int | None:
        return max((s.lesson for s in self.spans), default=None)

    def fallbacks(self) -> list[Fallback]:
        out = []
        for k in range(1, len(self.spans)):
            before, now = self.spans[k - 1].lesson, self.spans[k].lesson
            if now < before:
                again = next((s.start_step for s in self.spans[k + 1:] if s.lesson >= before), None)
                out.append(Fallback(self.spans[k].start_step, before, now, again))
        return out

    def time_in_lesson(self) -> list[tuple[int, int, int]]:
        """(lesson, steps spent in it, visits), by lesson."""
        total: dict[int, list[int]] = {}
        for s in self.spans:
            t = total.setdefault(s.lesson, [0, 0])
            t[0] += s.end_step - s.start_step
            t[1] += 1
        return [(lesson, steps, visits) for lesson, (steps, visits) in sorted(total.items())]

    def to_dict(self) -> dict:
        return {
            "parameter": self.parameter, "metric": self.metric, "current_lesson": self.current_lesson,
            "highest_lesson": self.highest_lesson, "invalid_points": self.invalid_points,
            "timeline": [{"lesson": s.lesson, "start_step": s.start_step, "end_step": s.end_step} for s in self.spans],
            "time_in_lesson": [{"lesson": lesson, "steps": steps, "visits": visits}
                               for lesson, steps, visits in self.time_in_lesson()],
            "advances": [dict(a.__dict__) for a in self.advances],
            "fallbacks": [dict(f.__dict__) for f in self.fallbacks()],
        }


def lesson_tracks(env: EnvData) -> list[LessonTrack]:
    """The env's lesson timelines, one per parameter (cached on the env). Values that are not
    non-negative whole numbers are left out of the timeline and counted."""
    if "lesson_tracks" in env.cache:
        return env.cache["lesson_tracks"]
    out = []
    for metric in sorted(env.lessons):
        series = env.lessons[metric]
        steps, values = series.steps, series.values
        ok = np.isfinite(values) & (values >= 0) & (values == np.floor(values)) & (values < 2 ** 31)
        steps, lessons = steps[ok], values[ok].astype(np.int64)
        spans = []
        if len(steps):
            change = np.flatnonzero(np.r_[True, lessons[1:] != lessons[:-1]])
            starts = steps[change].tolist()
            ends = starts[1:] + [max(env.run_last_step, starts[-1])]
            spans = [LessonSpan(int(lessons[i]), int(a), int(b)) for i, a, b in zip(change.tolist(), starts, ends)]
        out.append(LessonTrack(parameter_name(metric), metric, tuple(spans), invalid_points=int((~ok).sum())))
    env.cache["lesson_tracks"] = out
    return out


def stage_timeline(env: EnvData) -> list[Interval]:
    """The locked/active/graduated timeline of a lesson env: locked until its first point, then
    active, one active interval per lesson stage (split wherever a lesson changes) so that rules
    judging an active stretch (stagnation, prolonged training) judge each lesson on its own — a dip
    after an advance is not a stall. ML-Agents logs no lesson count and no completion, so a lesson
    env never graduates here, and a reward plateau before an advance is not read as graduation."""
    firsts = [int(s.steps[0]) for s in (env.train, env.eval, *env.lessons.values()) if s is not None and len(s)]
    start = min(firsts) if firsts else env.run_first_step
    last = max(env.run_last_step, start)
    cuts = [start] + [c for c in change_steps(lesson_tracks(env)) if start < c < last]
    out = [Interval("locked", env.run_first_step, start)] if start > env.run_first_step else []
    return out + [Interval("active", c, d) for c, d in zip(cuts, cuts[1:] + [last])]


def judged_tracks(env: EnvData, s: dict) -> list[LessonTrack]:
    """lesson_tracks with every advance judged on the reward (cached on the env).

    For an advance at step a, judged with the relative-gain definition of graduated_regression:
    held = the median of the last `baseline_window` reward points of the lesson before (the level
    that earned the advance), start = the lowest rolling median of `smoothing_window` points before
    the advance (where the env began), gain = held - start; without a visible gain and with a
    positive held level, start = 0. After the advance each smoothed point keeps
    (smoothed - start) / gain. A harder lesson normally costs some reward: the advance is fine if
    the smoothed reward is back at `regression_threshold` (0.85) of the gain within the recovery
    window (`recovery_factor` x the steps the lesson before took, at least `min_points` logging
    intervals; or `recovery_steps`), else it collapsed."""
    if "lesson_judged" in env.cache:
        return env.cache["lesson_judged"]
    tracks = lesson_tracks(env)
    changes = change_steps(tracks)
    first = min((t.spans[0].start_step for t in tracks if t.spans), default=env.run_first_step)
    out = []
    for t in tracks:
        advances = []
        for k in range(1, len(t.spans)):
            before, now = t.spans[k - 1].lesson, t.spans[k].lesson
            if now > before:
                advances.append(_judge_advance(env, t.spans[k].start_step, before, now, changes, first, s))
        out.append(replace(t, advances=tuple(advances)))
    env.cache["lesson_judged"] = out
    return out


def change_steps(tracks: list[LessonTrack]) -> list[int]:
    """Every step where some parameter's lesson changed, in order."""
    return sorted({sp.start_step for t in tracks for sp in t.spans[1:]})


def _judge_advance(env: EnvData, a: int, before: int, now: int, changes: list[int], first: int, s: dict) -> Advance:
    perf = env.learning
    prev = max([c for c in changes if c < a], default=first)
    nxt = min([c for c in changes if c > a], default=None)
    base = Advance(a, before, now, "not_judged")
    smoothing, bw = s["regression"]["smoothing_window"], s["regression"]["baseline_window"]
    lesson = perf.within(prev, a, include_end=False)
    if len(lesson) < max(3, smoothing):
        return replace(base, reason=f"{len(lesson)} reward point(s) in lesson {before} before the advance")
    history = perf.within(perf.steps[0] if len(perf) else a, a, include_end=False)
    held = float(np.median(lesson.values[-bw:]))
    start = float(np.min(trailing_median(history.values, smoothing)))  # the first points count as they are
    if not held - start > 2 * robust_sd(np.diff(lesson.values)) / np.sqrt(bw):  # nothing learned to measure against
        if not (held > 0 and env.sign == 1):
            return replace(base, held_reward=env.show(held),
                           reason="no learned reward level before the advance to measure against")
        start = 0.0
    gain = held - start
    dt = perf.median_interval() or 1.0
    window = int(s["recovery_steps"] or max(s["recovery_factor"] * (a - prev), s["min_points"] * dt))
    shown = dict(held_reward=env.show(held), start_reward=env.show(start), window_steps=window)
    # the point logged at the advance step averages episodes mostly played before it (ML-Agents
    # writes the summary after the lesson changed): the new lesson's reward starts after it
    post = perf.within(a + 1, env.run_last_step)
    if not len(post):
        return replace(base, **shown, reason="no reward points after the advance")
    smoothed = trailing_median(post.values, smoothing)
    kept = (smoothed - start) / gain
    line = s["regression_threshold"]
    interrupted = nxt is not None and nxt <= a + window
    end = nxt if interrupted else a + window
    judged = post.steps < end if interrupted else post.steps <= end
    lowest = env.show(float(np.min(smoothed[judged]))) if judged.any() else None
    recovered = _recovery(post.steps, kept, line)
    shown.update(lowest_reward=lowest, recovered_at_step=recovered)
    if judged.any() and (kept[judged] >= line).all():
        return replace(base, verdict="held", **shown)
    if recovered is not None and recovered <= end:
        return replace(base, verdict="recovered", **shown)
    if interrupted:
        return replace(base, verdict="interrupted", **shown)
    if int(post.steps[-1]) < a + window:  # the run ended inside the window: not over yet
        return replace(base, verdict="pending", **shown)
    if judged.sum() < s["min_points"]:
        return replace(base, **shown, reason=f"{int(judged.sum())} reward point(s) in the recovery window")
    return replace(base, verdict="collapsed", **shown)


def _recovery(steps: np.ndarray, kept: np.ndarray, line: float) -> int | None:
    """The first step back at the line after the first point below it (None if it never fell or
    never came back)."""
    below = np.flatnonzero(kept < line)
    if not len(below):
        return None
    back = np.flatnonzero(kept[below[0]:] >= line)
    return int(steps[below[0] + back[0]]) if len(back) else None


def collapse_facts(env: EnvData, adv: Advance, s: dict) -> dict:
    """Where a collapsed advance's incident starts and ends: from the first point after the advance
    below the recovery line to the first point back at it (resolved), else the run's last point;
    and the level at the end of the recovery window."""
    post = env.learning.within(adv.step + 1, env.run_last_step)
    start = env.sign * adv.start_reward
    gain = env.sign * adv.held_reward - start
    smoothed = trailing_median(post.values, s["regression"]["smoothing_window"])
    below = np.flatnonzero((smoothed - start) / gain < s["regression_threshold"])
    at_end = float(smoothed[post.steps <= adv.step + adv.window_steps][-1])
    return {"first_step": int(post.steps[below[0]]) if len(below) else adv.step,
            "last_step": adv.recovered_at_step if adv.recovered_at_step is not None else int(post.steps[-1]),
            "kept_at_window_end": (at_end - start) / gain, "reward_at_window_end": env.show(at_end)}


def tracks_from_dicts(items) -> list[LessonTrack]:
    """Rebuild the lesson tracks of a saved JSON report, checking every field's type."""
    def num(v, what, kind=(int, float)):
        if v is not None and (not isinstance(v, kind) or isinstance(v, bool)):
            raise ValueError(f"invalid: lessons {what}")
        return v

    if not isinstance(items, list):
        raise ValueError("invalid: lessons")
    out = []
    for d in items:
        if not isinstance(d, dict) or not isinstance(d.get("parameter"), str) or not isinstance(d.get("metric"), str):
            raise ValueError("invalid: lessons parameter")
        spans = tuple(LessonSpan(num(x["lesson"], "lesson", int), num(x["start_step"], "step", int),
                                 num(x["end_step"], "step", int)) for x in d["timeline"])
        advances = []
        for x in d["advances"]:
            if x.get("verdict") not in VERDICTS or not isinstance(x.get("reason"), (str, type(None))):
                raise ValueError("invalid: lessons advance")
            advances.append(Advance(num(x["step"], "step", int), num(x["from_lesson"], "lesson", int),
                                    num(x["to_lesson"], "lesson", int), x["verdict"],
                                    *(num(x.get(k), k) for k in ("held_reward", "start_reward", "lowest_reward")),
                                    num(x.get("recovered_at_step"), "step", int), num(x.get("window_steps"), "step", int),
                                    x.get("reason")))
        out.append(LessonTrack(d["parameter"], d["metric"], spans, tuple(advances),
                               num(d.get("invalid_points", 0), "invalid_points", int)))
    return out
