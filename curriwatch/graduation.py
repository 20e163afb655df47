"""Inferred graduation: where an env without logged states reached the level it then held.

An env graduates where a trainer's threshold-and-plateau test would: once its segmented learning
curve has reached GRADUATION_SHARE of its gain (from its start to its top, widened to the run's shared
scale when its siblings measure on one) and then held at least HOLD_SHARE of it for `plateau_window`
(in the trainer's units: rollouts when the log counts them, else steps; at least HOLD_POINTS points),
outside any stretch where it switches between levels; the graduation step is the end of that window. The gain must stand out of the noise (or its start and top levels out of their standard errors). With `stop_threshold` set (the
trainer's own absolute threshold, in the metric's units) that is the line instead: the segmented level and
the EMA-smoothed performance must reach it (a task whose ceiling lies far below its siblings' graduates there). A curriculum's own evidence (training stopped while evals went on) and a trainer's saved
state file win over inference (see analyze.py).
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from .envdata import EnvData, Series
from .levels import at_level, env_scale, episodes, fit, learned, levels_apart, natural_zero, own_scale, rate_best, \
    rate_top
from .segments import robust_sd
from .stats import median, range_regression, window_sums
from .timeline import Interval, intervals

GRADUATION_SHARE = 0.9  # of the gain: where graduation happens (as a trainer's threshold + plateau would)
HOLD_SHARE = 0.8  # ... the level it must then hold
HOLD_POINTS = 3  # ... for at least this many points
PLATEAU_POINTS = 8  # a plateau is judged over at least this many points (a slope over 3 says little) ...
SHORT_PLATEAU_POINTS = 4  # ... or, in a series of fewer than 3 x that (a dozen sparse evals), a third of it, at least this
STALL_SHARE = 0.7  # an active env that stops above this share of the gain waits to graduate: it has not stalled
WAITING_SHARE = 0.6  # a rate above this share of its whole range (a metric with no bound: of the run's gain) waits
                     # at its top: it stalls nowhere and may graduate
# (an LLM's eval sets top out at 0.6-0.7 on their fixed problems, every one a plateau, none of them a stall)
RATE_SHARE = 0.7  # a rate must also reach start + 0.7 x (best - start): a success rate's plateau at 0.3, an
# error rate's at 0.5, is no graduation (best: its bound, or the ceiling its run's learners share, levels.rate_top)
CLIMB_SHARE = 0.5  # a plateau's slope is under this share of the pace the env rose at ...
RISE_FROM = 0.2  # ... from this share of its gain to the graduation line
RUN_SHARE = 0.05  # a plateau_window in plain steps is at most this share of the run's span
MIN_GAIN_NOISE = 3.0  # the gain must exceed this many point-noise sds (a flat env never graduates) ...
TOP_SE = 2.0  # a top held by a short segment counts this many standard errors lower ...
LONG_SEGMENT_POINTS = 30  # ... never below a level a segment of this many points held
HOLD_RISES = 1.0  # an env short of a shared scale's line graduates at its own top held as long as its climb ...
SIBLING_CLIMBS = 4.0  # ... when that climb took at most this x its siblings' median
TRAINED_AFTER = 3  # an env a curriculum that stops training graduated envs kept training this many
# intervals (train or eval, the longer) past its inferred graduation, to the run's end, did not graduate


def units_of(steps: np.ndarray, counts: np.ndarray | None) -> np.ndarray:
    """The trainer's own axis: cumulative rollouts where every point carries a count, else steps."""
    if counts is not None and len(counts) and np.isfinite(counts).all() and (counts > 0).all():
        return np.cumsum(counts, dtype=np.float64)
    return steps.astype(np.float64)


def graduation_index(env: EnvData, graduation: dict) -> int | None:
    """Index (in the env's learning series) of its inferred graduation, or None."""
    f = fit(env, "learning")
    n = len(f.series)
    scale = env_scale(env)
    if n < HOLD_POINTS or scale is None:
        return None
    lo, hi = scale
    gain = hi - lo
    own = own_scale(env)
    if own is not None and not learned(env) and env.cache.get("reference") is not None and gain > 0:
        return _known_from_start(env, f, lo, gain, own[1], graduation)
    if own is not None and not learned(env) and (bounded := _bounded_scale(env, f)) is not None:
        # alone, or beside no shared scale: a metric with bounds of its own (a success rate; episodes' returns
        # above a timeout's value) shows where its top lies
        return _known_from_start(env, f, bounded[0], bounded[1] - bounded[0], own[1], graduation)
    g = _first_graduation(env, f, lo, hi, graduation)
    siblings = env.cache.get("sibling_climb")
    if own is not None and (lo, hi) != own and siblings \
            and own[1] >= lo + gain * top_share(rate_best(env, env.learning.values)) \
            and _climbed_within(env, f, own, SIBLING_CLIMBS * siblings):
        # near the run's top but short of its line, learned about as fast as its siblings: graduated
        # at its own top once it held it longer than it took to climb there (siblings' tops differ);
        # one that climbs far slower than its siblings is still creeping up to their level. Where a later
        # stretch reached the run's line (back from a dip to a level a little higher), the earlier hold stands
        held = _first_graduation(env, f, own[0], own[1], graduation, HOLD_RISES)
        g = held if g is None or (held is not None and held < g) else g
    return g


def climb_span(env: EnvData) -> float | None:
    """Steps the env took to climb from RISE_FROM of its own gain to GRADUATION_SHARE of it (its
    segments' levels), or None when it did not plainly learn."""
    own = own_scale(env)
    if own is None or not learned(env):
        return None
    f = fit(env, "learning")
    lo, gain = own[0], own[1] - own[0]
    level, steps = f.segments.fit(), f.series.steps
    reached = np.flatnonzero(level >= lo + GRADUATION_SHARE * gain)
    if not len(reached):
        return None
    i = int(reached[0])
    low = np.flatnonzero(level[:i] < lo + RISE_FROM * gain)
    return float(steps[i] - steps[int(low[-1]) + 1 if len(low) else 0])


def _climbed_within(env: EnvData, f, own: tuple[float, float], limit: float) -> bool:
    """Whether the env climbed to its own top in at most `limit` steps (climb_span); a climb its segments read
    as one jump between two points took 0, the fastest, but an env that began at its top has no climb."""
    climb = climb_span(env)
    if climb is None or (climb == 0 and not _began_below(f, own)):
        return False
    return climb <= limit


def _began_below(f, own: tuple[float, float] | None) -> bool:
    """Whether the first fitted level of the env's learning series `f` lies below RISE_FROM of its own gain
    (`own`, its own scale): it climbed, however fast."""
    level = f.segments.fit()
    return own is not None and len(level) > 0 and bool(level[0] < own[0] + RISE_FROM * (own[1] - own[0]))


def sibling_climbs(envs: list[EnvData]) -> list[float | None]:
    """Per env, the median climb_span of the run's other envs that plainly learned (None without)."""
    spans = [climb_span(e) for e in envs]
    out = []
    for k in range(len(envs)):
        others = [x for j, x in enumerate(spans) if j != k and x is not None]
        out.append(float(np.median(others)) if others else None)
    return out


def _first_graduation(env: EnvData, f, lo: float, hi: float, graduation: dict, hold_rises: float = 0.0
                      ) -> int | None:
    """graduation_index on the scale lo..hi; with `hold_rises`, the level must also have been held
    that many times as long as the climb to it took (from RISE_FROM of the gain to the line)."""
    n = len(f.series)
    gain = hi - lo
    noise = median(np.atleast_1d(f.noise.raw_sd(hi)))
    values = f.series.values
    level = f.segments.fit()
    if not (gain > MIN_GAIN_NOISE * noise * f.segments.wander or levels_apart(level, lo, hi, noise * f.segments.wander, GRADUATION_SHARE)
            or learned(env)) or gain <= 0:
        if graduation["stop_threshold"] is None:
            return None
    line = lo + GRADUATION_SHARE * _sure_gain(f, lo, hi, noise)
    if (rate := _rate_line(env, values, lo)) is not None:
        line = max(line, rate)
    hold = hold_line(env, lo, hi, graduation)
    rise_from = lo + RISE_FROM * gain
    if graduation["stop_threshold"] is not None:
        # the trainer's own line (Marin: its smoothed success ratio >= stop_threshold, and plateaued) replaces the
        # inferred one: a task whose ceiling lies far below its siblings' graduates there, as its trainer says
        line = env.sign * graduation["stop_threshold"]
        rise_from = min(rise_from, lo + RISE_FROM * (line - lo))
    high = level >= line
    if graduation["stop_threshold"] is not None:
        high &= _ema(values, graduation["ema_alpha"]) >= line
    units = units_of(f.series.steps, f.series.counts)
    graduation = {**graduation, "plateau_window": _plateau_window(env, f, graduation)}
    below = np.flatnonzero((level < hold) & ~f.segments.outlier)
    switching = [(ep.first_step, ep.last_step) for ep in episodes(env) if ep.split in ("train", "eval")]
    steps = f.series.steps
    plateau_points = min(PLATEAU_POINTS, max(SHORT_PLATEAU_POINTS, n // 3))
    # its learning series ended while its evals went on: the trainer stopped training it (Marin, once graduated)
    ev = env.eval
    evaluated_after = bool(len(ev)) and ev.steps[-1] > steps[-1] + 3 * (ev.median_interval() or 0.0)
    sums = None
    for i in np.flatnonzero(high & np.concatenate([[True], ~high[:-1]])).tolist():
        k = below[np.searchsorted(below, i)] if np.searchsorted(below, i) < len(below) else n
        inside = [b for a, b in switching if a <= steps[i] <= b]
        if inside:
            # a hold that began while the env switched is judged from where the switching ended, if it still holds
            i = int(np.searchsorted(steps, max(inside), "right"))
            if i >= k or not high[i] or any(a <= steps[i] <= b for a, b in switching):
                continue
        # the trainer decides once the level has been held for plateau_window (its units) and has
        # stopped rising: the first such point while it holds
        j = int(np.searchsorted(units, units[i] + graduation["plateau_window"], "left"))
        j = max(j, i + HOLD_POINTS - 1)
        if j >= k:
            continue
        if sums is None:
            sums = window_sums(units - units[0], values.astype(np.float64))
        climb = _climb(units, level, i, rise_from, line, noise * f.segments.wander, plateau_points)
        if hold_rises and not line > rise_from:
            continue  # (a trainer's line at or below where the rise is measured from: no climb to hold it for)
        if hold_rises and np.isfinite(climb[0]):
            # (a climb its segments read as one jump between two points took no time: it needs no longer a hold
            # than the plateau's; Continual World's tasks tested on 10 episodes jump from 0.19 to 0.82)
            j = max(j, int(np.searchsorted(units, units[i] + hold_rises * (line - rise_from) / climb[0])))
            if j >= k:
                continue
        a, size = j, 64
        while a < k:  # in growing chunks: a plateau is usually found within the first points
            b = min(k, a + size)
            ok = np.flatnonzero(_plateaued(units, sums, np.arange(a, b), graduation, gain, climb, plateau_points))
            for g in (a + ok).tolist():
                if _stays(units, sums, g, k, climb, evaluated_after):
                    return g
            a, size = b, size * 4
    return None


def hold_line(env: EnvData, lo: float, hi: float, graduation: dict) -> float:
    """The level a graduating env must hold (oriented): HOLD_SHARE of its gain lo..hi, or the trainer's
    `stop_threshold` where that is lower."""
    hold = lo + HOLD_SHARE * (hi - lo)
    threshold = graduation.get("stop_threshold")
    return hold if threshold is None else min(hold, env.sign * threshold)


def _plateau_window(env: EnvData, f, graduation: dict) -> float:
    """plateau_window in the series' units. In plain steps the window's size says nothing of the
    trainer's: never more than a RUN_SHARE of the run (a run logged at steps 0..80 has no 50-step
    plateau to wait for)."""
    if f.series.counts is None and env.run_last_step > env.run_first_step:
        return min(graduation["plateau_window"], RUN_SHARE * (env.run_last_step - env.run_first_step))
    return graduation["plateau_window"]


def _known_from_start(env: EnvData, f, lo: float, gain: float, level: float, graduation: dict) -> int | None:
    """An env that learned nothing, beside siblings that show the run's scale: graduated once it has
    held its top `level` for plateau_window (the trainer's wait) when that lies above STALL_SHARE of
    the run's gain and the first half of its points lie about it (their median above HOLD_SHARE of
    the gain) — a lesson it already knew. One that never learns stays far lower; one that only began
    high (a rolling mean that still holds the previous lesson's episodes) soon leaves it."""
    line = lo + STALL_SHARE * gain
    if (rate := _rate_line(env, f.series.values, lo)) is not None:
        line = max(line, rate)
    values = f.series.values
    first_half = values[: max(1, len(values) // 2)]
    if median(first_half) < lo + HOLD_SHARE * gain:
        return None
    # the level it held over the first half, where its top segment is lower: single episodes' outcomes that
    # switched later read as one segment, their mean over a life of switching below the level first held
    if max(level, float(np.mean(first_half))) < line:
        return None
    units = units_of(f.series.steps, f.series.counts)
    g = max(int(np.searchsorted(units, units[0] + _plateau_window(env, f, graduation), "left")), HOLD_POINTS - 1)
    if g >= len(values):
        return None
    if graduation["stop_threshold"] is not None and _ema(values, graduation["ema_alpha"])[g] < env.sign * graduation["stop_threshold"]:
        return None
    return g


def _rate_line(env: EnvData, values: np.ndarray, lo: float) -> float | None:
    """The line a rate must reach to graduate (oriented): RATE_SHARE of the way from its start to the best it can
    reach (levels.rate_top) — but never above WAITING_SHARE of its whole range (0.6 success, 0.4 errors), where the
    stall rule already reads it as waiting at its top: between the two it would neither stall nor graduate, and
    an env at its run's top from a high start was `prolonged` (twenty-second corpus: datasources topping out at
    pass@1 0.715 from 0.28). None for a metric that is no rate."""
    best, bound = rate_top(env, values), rate_best(env, values)
    if best is None and env.cache.get("ceiling") is not None:
        best = bound = env.cache["ceiling"]  # a shared ceiling bounds means of success-or-nothing episodes likewise
    if best is None:
        return None
    return min(lo + RATE_SHARE * (best - lo), waiting_line(env, bound))


def top_share(best: float | None) -> float:
    """The share of the run's gain above which an env's flat top is a wait at its top, not a stall: STALL_SHARE for a
    rate (`best`, its levels.rate_best, not None); WAITING_SHARE for a metric with no bound (returns, losses) — tasks'
    ceilings differ, and the siblings' top is the best of them, no line each must reach (TD-MPC2's DMControl tasks
    top out at 550-1,000)."""
    return STALL_SHARE if best is not None else WAITING_SHARE


def waiting_line(env: EnvData, bound: float) -> float:
    """WAITING_SHARE of a rate's whole range (oriented; its bound `bound`): 0.6 success, 0.4 errors, 0.6 x what a
    solved episode is worth. Above it a rate waits at its top: it stalls nowhere and may graduate."""
    return bound - (1 - WAITING_SHARE) * (bound if env.sign == 1 else 1.0)


def _bounded_scale(env: EnvData, f) -> tuple[float, float] | None:
    """(worst, best), oriented, of a metric with bounds of its own (see levels.natural_zero): a success rate's 0
    and its best (1; what a solved episode is worth), an error rate's 1 and 0, episodes' returns' timeout value
    and what a success is worth above it; None for any other metric."""
    zero = natural_zero(env, f)
    best = f.noise.floor + f.noise.scale if f.noise.floor is not None else rate_best(env, f.series.values)
    return (zero, best) if zero is not None and best is not None and best > zero else None


def _sure_gain(f, lo: float, hi: float, noise: float) -> float:
    """The gain to the top as far as the top's own points tell: when the top is the env's own, only
    short segments reach it and a long segment held a level below it (heavy noise makes a lucky stretch
    of a few points a level above the one held), less TOP_SE of their standard errors — never below the
    highest level a long segment held."""
    seg = f.segments
    at_top = at_level(seg, hi)
    if not at_top.any():
        return hi - lo  # the top is the run's, not this env's
    count = float(seg.count[at_top].max())
    held = seg.level[seg.count >= LONG_SEGMENT_POINTS]
    if count >= LONG_SEGMENT_POINTS or not len(held):
        return hi - lo  # a long segment holds the top, or none holds any level: the top is what it reached
    # the noise where the top was reached: a burst's far exceeds the series' typical noise
    j = np.flatnonzero(at_top)
    local = robust_sd(np.diff(f.series.values[int(seg.bounds[j[0]]): int(seg.bounds[j[-1] + 1])]))
    se = max(noise, local) * seg.wander / np.sqrt(max(count, 1.0))
    return max(hi - TOP_SE * se, min(float(held.max()), hi)) - lo


def _climb(units: np.ndarray, level: np.ndarray, i: int, start: float, line: float, sd: float,
           plateau_points: int = PLATEAU_POINTS) -> tuple[float, int]:
    """The pace (value per unit) an env rose at, from where its fitted level last left `start` to
    where it reached `line` at point `i`; and how many points a slope needs to tell that pace from
    flat (standard error at most a sixth of it, no more than half the rise's points)."""
    low = np.flatnonzero(level[:i] < start)
    r = int(low[-1]) + 1 if len(low) else 0
    span = units[i] - units[r]
    if span <= 0 or i <= r or not line > start:  # (a trainer's line at or below where the rise is measured from)
        return np.inf, plateau_points
    pace = (line - start) / span
    # a least-squares slope over m evenly spaced points dt apart has se = sd * sqrt(12 / m) / (m dt)
    dt = span / (i - r)
    needed = int(math.ceil((sd * math.sqrt(12) * 6 / (pace * dt)) ** (2 / 3))) if sd > 0 else plateau_points
    return pace, max(plateau_points, min(needed, (i - r) // 2))


def _plateaued(units: np.ndarray, sums, idx: np.ndarray, graduation: dict, gain: float,
               climb: tuple[float, int], plateau_points: int = PLATEAU_POINTS) -> np.ndarray:
    """For the points `idx`, whether the trailing plateau window (plateau_window in the trainer's
    units, at least plateau_points points) has stopped rising: its fitted rise is under
    plateau_threshold x the gain, or under half the rise of the window before it (a curve that
    saturates); and the slope over the trailing points `climb` says are needed is under CLIMB_SHARE
    of the pace it rose at (a steady climb whose window is short against its span rises little per
    window, but has not stopped).
    `sums`: window_sums of the series against its units."""
    lo = np.minimum(np.searchsorted(units, units[idx] - graduation["plateau_window"], "left"),
                    idx - plateau_points + 1)
    lo = np.maximum(lo, 0)
    before = np.maximum(lo - (idx + 1 - lo), 0)
    x = units - units[0]
    _n, _m, slope, _t, _s = range_regression(sums, lo, idx + 1)
    _n2, _m2, slope_before, _t2, _s2 = range_regression(sums, before, lo)
    with np.errstate(invalid="ignore"):
        rise = np.nan_to_num(slope) * (x[idx] - x[lo])
        rise_before = np.nan_to_num(slope_before) * (x[np.maximum(lo - 1, 0)] - x[before])
    flat = rise <= graduation["plateau_threshold"] * gain
    slowed = (rise_before > 0) & (rise <= 0.5 * rise_before) & (lo > before)
    pace, points = climb
    if not np.isfinite(pace):
        return flat | slowed
    _n3, _m3, slope_trail, _t3, _s3 = range_regression(sums, np.maximum(np.minimum(lo, idx + 1 - points), 0), idx + 1)
    return (flat | slowed) & ~(np.nan_to_num(slope_trail) > CLIMB_SHARE * pace)


def _stays(units: np.ndarray, sums, g: int, k: int, climb: tuple[float, int], evaluated_after: bool) -> bool:
    """Whether the env stopped rising at point g by what follows: over the next points `climb` says a
    slope needs (before it falls below the hold line at k), its slope is under CLIMB_SHARE of the pace it
    rose at (over fewer when it falls first, at least SHORT_PLATEAU_POINTS; when its series ends first, at
    least half of them). A steady
    climber whose last points wobble looks flat behind, not ahead; one whose plateau begins too near the
    end of its series to tell has not been seen to stop — unless its training ended there while its evals
    went on (`evaluated_after`). No pace to tell: it stays."""
    pace, points = climb
    if not np.isfinite(pace):
        return True
    end = min(g + points, k)  # up to where it fell below the hold line (a regression after it), if it did
    if end - g < SHORT_PLATEAU_POINTS:  # too few points after it to tell
        return k < len(units) or evaluated_after
    if end == len(units) and end - g < points // 2 and not evaluated_after:
        return False  # its series ends before half the points a slope needs: a climber's last wobble, unseen to stop
    _n, _m, slope, _t, _s = range_regression(sums, np.array([g]), np.array([end]))
    return not float(np.nan_to_num(slope[0])) > CLIMB_SHARE * pace


def _ema(values: np.ndarray, alpha: float) -> np.ndarray:
    """Exponential moving average (the trainer's smoothing: adjust=False, seeded with the first value)."""
    import pandas as pd

    return pd.Series(values).ewm(alpha=alpha, adjust=False).mean().to_numpy()


RUN_CACHE = ("reference", "ceiling", "ceiling_reach", "sibling_climb", "run_top", "rate_ceiling", "noise_reference",
             "alone", "run_graduation_span", "rolling_mean_splits", "curriculum_stops", "last_level")  # run-level
EVAL_GRADUATION_POINTS = 12  # evals an env needs to graduate on them where its training did not ...
EVAL_TRAIN_RISE = 0.1  # ... while its training rises less than this share of its own gain from there on (its last
                       # third of points after that graduation against its first)


def _graduated_on_evals(env: EnvData, graduation: dict) -> int | None:
    """The step an env graduated at on its evals, by the same test, where its training did not: training measured
    with exploration (HER's train/success_rate with its noisy actions, an epsilon-greedy return) may plateau below
    a rate's line while the policy's evals hold well above it. Only with EVAL_GRADUATION_POINTS evals or more, and
    training flat from there on (EVAL_TRAIN_RISE)."""
    if not len(env.train) or len(env.eval) < EVAL_GRADUATION_POINTS:
        return None
    evals = dataclasses.replace(env, train=Series.empty(),
                                cache={k: v for k, v in env.cache.items() if k in RUN_CACHE})
    j = graduation_index(evals, graduation)
    if j is None:
        return None
    g = int(env.eval.steps[j])
    # ... while training stays where it was from there on: one still climbing (a steady riser whose evals paused
    # on a stair) has not graduated
    after = env.train.values[env.train.steps >= g]
    own = own_scale(env)
    third = len(after) // 3
    if own is None or third < HOLD_POINTS:
        return None
    rise = float(np.median(after[-third:]) - np.median(after[:third]))
    return g if rise < EVAL_TRAIN_RISE * (own[1] - own[0]) else None


def inferred_timeline(env: EnvData, graduation: dict, stopped_at: int | None = None,
                      trained_to_end: int | None = None) -> tuple[list[Interval], int | None]:
    """Locked until the env's first point, then active, graduated where inferred.

    `stopped_at`: the step where the curriculum stopped training the env while its evals went on
    (Marin stops sampling a graduated lesson the moment it graduates): graduated there.
    `trained_to_end`: the env's last training step, where a curriculum that stops training graduated
    envs (others of the run show it) trained this one until the run's training ended: it did not
    graduate it — unless inferred graduation came within TRAINED_AFTER of its training's end."""
    learn = env.learning
    first_step, last_step = env.run_first_step, env.run_last_step
    if len(learn) == 0:
        return [Interval("locked", first_step, last_step)], None
    change_steps, states = [], []
    start = int(learn.steps[0])
    if start > first_step:
        change_steps.append(first_step)
        states.append("locked")
    change_steps.append(start)
    states.append("active")
    j = graduation_index(env, graduation)
    grad = int(learn.steps[j]) if j is not None else None
    if grad is None and stopped_at is None:
        grad = _graduated_on_evals(env, graduation)
    if stopped_at is not None:  # the curriculum's own decision beats the inferred one
        grad = int(stopped_at)
    elif grad is not None and trained_to_end is not None:
        interval = max(env.train.median_interval() or 0.0, env.eval.median_interval() or 0.0)
        if trained_to_end - grad > TRAINED_AFTER * interval:
            grad = None  # trained on long after: the trainer had not graduated it
    if grad is not None:
        if grad > start:
            change_steps.append(grad)
            states.append("graduated")
        else:
            states[-1] = "graduated"
    return intervals(change_steps, states, last_step), grad
