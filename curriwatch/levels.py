"""What an env's segments say: its start and top levels, the run's shared scale, and where its
performance switches between levels (the pattern volatility reports and graduation must not trust).

All values are oriented (higher is better). Computed once per env and cached on `EnvData.cache`.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from .envdata import EnvData, Series
from .incidents import runs_of_true
from .segments import (MAD_SD, Noise, Segments, build_segments, ceiling, lattice_trials, noise_model, outcome_scale,
                       robust_sd, segment)
from .stats import centred_mean, median, trailing_median

SUSTAINED_POINTS = 3  # a level counts as held when the segments keep it for this many points in a row
REFERENCE_TOP_QUANTILE = 0.75  # what a run's envs reach: most of them may stall, the best ones show it
SHARED_TOP_SPREAD = 0.15  # envs measure on one scale when several reach the same top, within this x their gain
SHARED_TOP_ENVS = 0.4  # ... at least this share of them
OTHER_SCALE = 0.1  # an env whose gain is under this share of the run's shared scale is on a scale of its own ...
LEARNED_NOISE = 3.0  # an env learned when its own gain exceeds this many point-noise sds ...
LEVEL_Z = 6.0  # ... or its start and top levels, each the mean of its points, this many standard errors
OWN_GAIN_NOISE = 10.0  # ... when its own gain is this many noise sds (plainly learned, not a stall near the start)
WANDER_HALF = 10  # ... and as many of its points' distances from their running median over 2 x this + 1 points
OWN_WIDTH_SHARE = 0.5  # volatility is judged on a plainly learned env's own gain under this share of the scale
ROLLING_CORR = -0.25  # a rolling mean's changes correlate this much (-0.5 ideally) at the lag its window holds:
                     # each episode enters it and leaves it that many points later ...
ROLLING_QUIET = 0.15  # ... and at shorter lags hardly at all (their mean |correlation| under this)
LONE_START_SERIES, LONE_START_POINTS = 50, 10  # a lone first point before this long a segment, in a series this long
RAMP_T = 3.0  # a first segment rising this many standard errors is a ramp: the env began at its foot
NO_RANGE_MIDDLE = 0.1  # switching without a learned range: at most this share of points in the middle third between
                       # its two levels (two levels far apart leave it nearly empty)
SLIVER_SHARE = 0.05  # a rate's width under this share of its range to its bound is a sliver: measured on that range
SHARED_START_SPREAD = 0.2  # ... or when they all start from one level, within this x the run's learned range
SWITCH_CHANGES = 4  # alternating big changes between two levels that make switching (H L H L H)
SWITCH_SHARE = 0.15  # a big change is at least this x the env's scale (top - start)
SWITCH_Z = 4.0  # ... and this many standard errors of the two levels
SWITCH_PHASE_RATIO = 4.0  # a phase this many times longer than the chain's usual ones ends the chain
TRANSITION_POINTS = 2  # a segment this short between its neighbours' levels is a change caught midway
RUNS_Z = 3.0  # the two-level reading's clusters must come in runs this many standard errors off chance
TRANSITION_NOISE = 2.0  # a calm phase's last points this many noise sds on the way to the next phase began the change ...
TRANSITION_SHARE = 0.1  # ... and at least this share of the gap
TRANSITION_HALF = 3  # ... or the mean of up to this many points either side of each (see _episode)
TRANSITION_PHASE = 0.25  # ... those no further back than this share of a typical phase
LOCAL_SPREAD = 1.6  # a segment read alone for two levels spreads this many noise sds (one level: about 1) ...
LOCAL_READINGS = 3  # ... and at most this many segments are (the most spread)
SHORT_PHASE_POINTS = 3  # a chain whose inner phases last fewer points (median) needs LOCAL_SWITCH_CHANGES ...
LONG_SERIES_POINTS = 100  # ... in a series of more points than this
CHANCE_PHASE = 0.05  # a two-level run its series' lone points would make this often by chance is noise ...
OUTLIER_RATE = 0.05  # ... where they are outliers: at most this share of its points (else it switches at every point)
LOCAL_SWITCH_CHANGES = 2 * SWITCH_CHANGES  # levels read from the stretch itself (switching_after) fit it
# better than the whole series' do: chance runs (of a rate's lattice near 1) need more changes to be switching
JOIN_SPANS = 2.0  # switching episodes between the same levels this close (x the longer one's span) are one
LOOSE_CLUSTERS = 2.0  # clusters whose sd is over this x the series' noise are loose ...
LOOSE_SEPARATION = 4.0  # ... and must lie this many of their sds apart
SPIKE_NOISE = 6.0  # a lone point this many point-noise sds from both neighbours is a spike, not the clusters' spread
TWO_LEVEL_SEPARATION = 3.0  # a series is two-level when its two clusters lie this many within-cluster sds apart
HELD_PHASES = 3  # a learned level held this many typical phases before switching began is no phase of it
RETURN_TOLERANCE = 0.35  # "the same level": within this x the gap between the two levels


@dataclass(frozen=True)
class Fit:
    """One series of an env with its noise model and segments."""

    series: Series
    noise: Noise
    segments: Segments


@dataclass(frozen=True)
class Episode:
    """A stretch where a series switches between levels: steps first_step..last_step of `split`."""

    split: str
    first_step: int
    last_step: int
    changes: int
    high: float  # typical high and low levels (oriented)
    low: float
    phase_steps: float  # median length of its phases, in steps
    series_last_step: int  # the series' last step (an episode reaching it is ongoing)


def fit(env: EnvData, split: str) -> Fit:
    """The env's `split` series ("train" | "eval" | "learning" | "performance") with noise and segments."""
    if split == "learning":
        split = "train" if len(env.train) else "eval"
    elif split == "performance":
        split = "eval" if len(env.eval) else "train"
    key = "fit:" + split
    if key not in env.cache:
        series = env.train if split == "train" else env.eval
        noise = noise_model(series.values, series.counts, env.sign)
        span = rolling_span(series.values) if split in env.cache.get("rolling_mean_splits", ()) else None
        # a rolling mean over `span` points: each point shares all but 1 / span of its episodes with the last
        env.cache[key] = Fit(series, noise, segment(noise, series.values, rho_floor=1 - 1 / span if span else 0.0,
                                                      span=span))
    return env.cache[key]


def start_level(f: Fit, before: int | None = None, skip_first: bool = False) -> float | None:
    """Where the env began: the lowest level of a segment before index `before` (its first point at
    the top; outliers are no segment's level), else the median of its first 3 points. `skip_first`: its
    first segment left out (a lone first point, see lone_start) — the second's level where none other is before."""
    seg = f.segments
    if len(f.series) == 0:
        return None
    end = len(f.series) if before is None else max(before, 1)
    ok = (seg.bounds[:-1] < end) & (seg.count >= 1)
    if skip_first:
        ok[0] = False
        if not ok.any():  # its top came right after: it began there
            return float(seg.level[1])
    if ok.any():
        j = int(np.flatnonzero(ok)[np.argmin(seg.level[ok])])
        return min(float(seg.level[j]), _ramp_start(f, j)) if j == 0 else float(seg.level[j])
    return median(f.series.values[: min(3, end)])


def lone_start(f: Fit) -> bool:
    """Whether the series' first segment is its first point alone before a long one (LONE_START_POINTS or more)
    in a dense series: a first logging window of few episodes (EPyMARL's first training stats, a 100-episode mean
    before its deque filled), not a level the env held — a rise shows over several points where logging is dense."""
    seg = f.segments
    return len(seg) > 1 and len(f.series) >= LONE_START_SERIES and seg.count[0] == 1 \
        and seg.count[1] >= LONE_START_POINTS


def _ramp_start(f: Fit, j: int) -> float:
    """Where segment j began when it is a ramp (a rise within it RAMP_T standard errors from flat, as
    a rise that starts at once and is cut into a staircase makes its first step): its fitted line at
    its first point; else its level. The mean of a ramp is well above where the env began."""
    seg = f.segments
    a, b = int(seg.bounds[j]), int(seg.bounds[j + 1])
    keep = ~seg.outlier[a:b]
    if keep.sum() < 4:
        return float(seg.level[j])
    x = f.series.steps[a:b][keep].astype(np.float64)
    z, y = f.noise.z[a:b][keep], f.series.values[a:b][keep]
    xm = x - x.mean()
    sxx = float(np.dot(xm, xm))
    sigma = median(f.noise.sigma[a:b]) * np.sqrt(seg.inflation)
    if not sxx > 0 or not sigma > 0:
        return float(seg.level[j])
    t = float(np.dot(xm, z - z.mean())) / sxx / (sigma / np.sqrt(sxx))
    if t <= RAMP_T:
        return float(seg.level[j])
    slope = float(np.dot(xm, y - y.mean())) / sxx
    return float(y.mean() + slope * xm[0])


def top_level(f: Fit) -> float | None:
    """The best level the series held: the highest level its segments kept for SUSTAINED_POINTS
    points in a row (outliers aside; fewer for a short series) — never a lucky stretch of noise, and
    the top of a smooth rise (cut into segments of a point or two) is where it got to."""
    seg = f.segments
    if len(seg) == 0:
        return None
    return sustained_max(seg.fit()[~seg.outlier], SUSTAINED_POINTS)


def sustained_max(level: np.ndarray, k: int) -> float | None:
    """The highest value kept for k points in a row (fewer when fewer are given): the max over every
    k consecutive points of their min. None for no points."""
    if not len(level):
        return None
    k = min(k, len(level))
    kept = level[: len(level) - k + 1].copy()
    for shift in range(1, k):  # the lowest of each k points in a row
        np.minimum(kept, level[shift: len(level) - k + 1 + shift], out=kept)
    return float(np.max(kept))


def own_scale(env: EnvData) -> tuple[float, float] | None:
    """(start, top) of the env's learning series, before any run-level reference."""
    if "own_scale" not in env.cache:
        f = fit(env, "learning")
        top = top_level(f)
        if top is None:
            env.cache["own_scale"] = None
        else:
            seg = f.segments
            first_top = int(seg.bounds[int(np.argmax(seg.level >= top - 1e-12))])
            start = start_level(f, first_top)
            if lone_start(f):
                # a lone first point is no start where the env learned nothing from the level after it
                later = start_level(f, first_top, skip_first=True)
                if not _stands_out(f, later, top, _point_sd(f, top)):
                    start = later
            env.cache["own_scale"] = (min(start, top), top)
    return env.cache["own_scale"]


def learned(env: EnvData) -> bool:
    """Whether the env's own gain (start to top) stands out of its point noise by LEARNED_NOISE sds, or
    its start and top are levels held long enough to stand apart (levels_apart), or the lowest segment
    before its top stands LEVEL_Z standard errors below it: a flat env's segments may still part at a
    chance level or two, each short. Cached on the env."""
    if "learned" not in env.cache:
        env.cache["learned"] = _learned(env)
    return env.cache["learned"]


def _learned(env: EnvData) -> bool:
    own = own_scale(env)
    if own is None:
        return False
    f = fit(env, "learning")
    sd = _point_sd(f, own[1])
    if _stands_out(f, own[0], own[1], sd):
        return True
    # or the lowest segment before its top held a level far below it (a ramp's segment: its mean is no start)
    seg = f.segments
    top = np.flatnonzero(at_level(seg, own[1]) & (seg.count > 0))
    before = np.flatnonzero(seg.count[: top[0]] > 0) if len(top) else np.array([], dtype=np.int64)
    if lone_start(f) and own[0] > seg.level[0]:
        before = before[before > 0]  # own_scale found its lone first point no start
    if not len(before) or not sd > 0:
        return False
    j = int(before[np.argmin(seg.level[before])])
    return own[1] - seg.level[j] > LEVEL_Z * sd * math.sqrt(1 / seg.count[j] + 1 / seg.count[top[0]])


def at_level(seg: Segments, level: float) -> np.ndarray:
    """Which segments hold `level` or above it (a top read from the segments' own levels; a relative
    tolerance for float rounding)."""
    return seg.level >= level - 1e-12 * max(abs(level), 1.0)


def _point_sd(f: Fit, level: float) -> float:
    """The series' point noise sd at `level`, widened by its wander (autocorrelation)."""
    return median(np.atleast_1d(f.noise.raw_sd(level))) * f.segments.wander


def rolling_span(values: np.ndarray) -> int | None:
    """How many points a rolling mean's window holds (SB3's ep_rew_mean: the last 100 episodes, several
    per point): the lag at which its changes are most negatively correlated, below ROLLING_CORR — an
    episode moves the mean when it enters and moves it back when it leaves — while at shorter lags they
    hardly correlate (a new batch of episodes each point), and pair by pair, not through a few long runs of
    large changes (the quadrant correlation at that lag under ROLLING_CORR too: a learning rise and a collapse
    that far apart correlate so). None when no lag shows it (independent points, a wave, or under 40 changes)."""
    d = np.diff(np.asarray(values, dtype=np.float64))
    d = d[np.isfinite(d)]
    n = len(d)
    if n < 40:
        return None
    d = d - median(d)
    bound = 5 * robust_sd(d) * math.sqrt(2)  # a few wild changes (a first point of few episodes) would weigh most
    d = np.clip(d, -bound, bound)
    den = float(np.dot(d, d))
    if not den > 0:
        return None
    spec = np.fft.rfft(d, 2 * n)
    acf = np.fft.irfft(spec * np.conj(spec))[: n // 4] / den
    if len(acf) < 3:
        return None
    lag = 2 + int(np.argmin(acf[2:]))
    # and only there: a wave's or a switching's changes correlate at every lag, most negatively at half its period
    quiet = float(np.mean(np.abs(acf[1:lag]))) < ROLLING_QUIET
    if not (acf[lag] < ROLLING_CORR and quiet):
        return None
    # at every point, not in a few long runs of changes: a rise and a fall that far apart correlate so too. The
    # quadrant correlation (the share of pairs of opposite sign, as a gaussian correlation) ignores their sizes
    a, b = d[:-lag], d[lag:]
    same = float(np.mean(np.sign(a) * np.sign(b) > 0)) / max(float(np.mean(a * b != 0)), 1e-12)
    return lag if math.sin(math.pi * (same - 0.5)) < ROLLING_CORR else None


def _stands_out(f: Fit, lo: float, hi: float, sd: float) -> bool:
    """Whether levels lo and hi of the series lie apart beyond its noise: by LEARNED_NOISE point sds, or
    as levels held long enough (levels_apart)."""
    return hi - lo > LEARNED_NOISE * sd or levels_apart(f.segments.fit(), lo, hi, sd)


def levels_apart(level: np.ndarray, lo: float, hi: float, sd: float, share: float = 0.9) -> bool:
    """Whether the start and the top are levels held long enough to stand apart by LEVEL_Z standard
    errors though the gain is within a few point-noise sds: heavy noise about a plain learning curve
    (each level the mean of its points — those within 1 - `share` of the gain of either end —, sd /
    sqrt(points))."""
    gain = hi - lo
    at_top = np.count_nonzero(level >= lo + share * gain)
    at_start = np.count_nonzero(level <= lo + (1 - share) * gain)
    if not at_top or not at_start or not sd > 0 or not gain > 0:
        return False
    return gain > LEVEL_Z * sd * math.sqrt(1 / at_top + 1 / at_start)


def run_reference(envs: list[EnvData]) -> list[tuple[float, float] | None]:
    """_reference_of the envs of each direction apart: a metric lower-is-better beside higher-is-better ones is
    another kind (a distance to the goal beside returns, one profile's metric name over both) and shares no scale
    with them, whatever range its oriented values fall in. Beside rates (whose bounds show where their top lies),
    metrics with no bound share the scale of their own kind: TD-MPC2's MT80 logs Meta-World's success rates and
    DMControl's returns under one name, and a return that never left its start is judged on the returns' scale."""
    refs: list[tuple[float, float] | None] = [None] * len(envs)
    for sign in {e.sign for e in envs}:
        idx = [k for k, e in enumerate(envs) if e.sign == sign]
        for k, ref in zip(idx, _reference_of([envs[k] for k in idx])):
            refs[k] = ref
        unbounded = [k for k in idx if rate_best(envs[k], envs[k].learning.values) is None]
        if 0 < len(unbounded) < len(idx):
            for k, ref in zip(unbounded, _reference_of([envs[k] for k in unbounded])):
                refs[k] = ref
    return refs


def _reference_of(envs: list[EnvData]) -> list[tuple[float, float] | None]:
    """The scale each of a run's envs shares with its siblings, (start, top), or None when it shares
    none: an env far below what its siblings reach has not graduated. Rates in [0, 1] share one (start:
    the median start, top: the upper-quartile top). Other metrics share one when several envs (at
    least 2, and SHARED_TOP_ENVS of those that learned) reach the same top, within SHARED_TOP_SPREAD x
    the median gain of the upper-quartile top: then (their median start, that top); or when all of them
    start from one level (within SHARED_START_SPREAD x the learned range): then (the median start, the
    upper-quartile top). Envs whose returns live on different scales (e.g. different games) start and
    end at different levels and share none. An env that learned nothing (see `learned`) counts near the
    top within SHARED_TOP_SPREAD x the learned envs' median gain; starts are the learned envs'. Envs
    that plainly learned to a top of their own, away from that shared one, and are as many (at least 2
    and SHARED_TOP_ENVS of the envs) share that top instead: another kind of metric logged under the
    same name (percents beside returns), not a crowd of lessons stalled at one level."""
    shared, rates = _shared_reference(envs)
    refs: list[tuple[float, float] | None] = [shared] * len(envs)
    if shared is None or rates:
        return refs
    own = [own_scale(e) for e in envs]
    apart = [k for k, s in enumerate(own) if s is not None and learned(envs[k]) and _plainly_learned(envs[k], s)
             and abs(s[1] - shared[1]) > SHARED_TOP_SPREAD * (s[1] - s[0])]
    judged = sum(s is not None for s in own)
    for k in apart:
        top, gain = own[k][1], own[k][1] - own[k][0]
        crowd = [j for j in apart if abs(own[j][1] - top) <= SHARED_TOP_SPREAD * min(gain, own[j][1] - own[j][0])]
        if len(crowd) >= 2 and len(crowd) >= SHARED_TOP_ENVS * judged:
            refs[k] = (float(np.median([own[j][0] for j in crowd])), float(np.median([own[j][1] for j in crowd])))
    return refs


def _shared_reference(envs: list[EnvData]) -> tuple[tuple[float, float] | None, bool]:
    """The one scale most of a run's envs share (see run_reference), or None; and whether they are all
    success rates."""
    scales, rates, gained = [], True, []
    for env in envs:
        s = own_scale(env)
        if s is None:
            continue
        scales.append(s)
        gained.append(learned(env))
        rates &= rate_best(env, env.learning.values) == 1.0  # success rates (higher is better)
    if len(scales) < 2:
        return None, rates
    starts = np.array([s[0] for s in scales])
    tops = np.array([s[1] for s in scales])
    # an env that learned nothing (at its top from its first point, or never learning) may show where the
    # top lies, never where the start is
    gained = np.array(gained)
    top = float(np.quantile(tops, REFERENCE_TOP_QUANTILE))
    if rates:  # one scale whatever they learned; when none did, a rate's own worst (0) is where a lesson
        # it did not know starts (the median start of envs all at their top from their first point is the top)
        return ((float(np.median(starts[gained])) if gained.any() else min(0.0, float(starts.min()))), top), True
    if not gained.any():
        return None, False
    gain = float(np.median((tops - starts)[gained]))
    # each env near that top by its own gain (an env of another scale is near nothing by its own), one
    # that learned nothing by the gain of those that did
    near = np.abs(tops - top) <= SHARED_TOP_SPREAD * np.where(gained, tops - starts, gain)
    if near.sum() >= 2 and near.mean() >= SHARED_TOP_ENVS and (near & gained).any():
        return (float(np.median(starts[near & gained])), float(np.median(tops[near]))), False
    start = float(np.median(starts[gained]))
    if top > start and np.all(np.abs(starts[gained] - start) <= SHARED_START_SPREAD * (top - start)):
        return (start, top), False  # lessons of one task, all starting from one level: what the best reach is reachable
    return None, False


def env_scale(env: EnvData) -> tuple[float, float] | None:
    """(start, top) this env is judged on: its own, widened to the run's shared scale — unless it
    plainly learned (a gain over OWN_GAIN_NOISE noise sds) and its gain is under OTHER_SCALE of that
    widened range (a game whose returns run 0..10 beside games of 0..500, not a lesson stalled low on
    theirs), or its whole range lies further from the shared scale than that scale is wide (a cost that
    fell from 50 to 14, oriented -50 to -14, beside success rates), or — a metric with no bounds of
    its own — beside it at all (returns of -1500..-200 beside returns of 0..500)."""
    own = own_scale(env)
    ref = env.cache.get("reference")
    if own is None:
        return None
    if ref is None:
        return own
    wide = min(own[0], ref[0]), max(own[1], ref[1])
    if own[1] - own[0] < OTHER_SCALE * (wide[1] - wide[0]) and _plainly_learned(env, own):
        return own
    apart = max(ref[0] - own[1], own[0] - ref[1])
    if (apart > ref[1] - ref[0] or apart > 0 and rate_best(env, env.learning.values) is None) \
            and _plainly_learned(env, own):
        # all of it further from the shared scale than that scale is wide (a cost beside success rates), or
        # for a metric with no bounds of its own all of it beside that scale (returns of -1500..-200 beside
        # returns of 0..500): no lesson stalled on the shared scale stays below the level its siblings start from
        return own
    noise = fit(env, "learning").noise
    # the best this env can do, where its own values show it: means of a counted number of episodes that fail or
    # succeed are worth what its successes are (a sibling whose successes take fewer steps scores more for each);
    # a ceiling its points and a sibling's reach exactly, again and again, and never pass (games that pay a fixed
    # reward on success and nothing else) is no higher, whatever other siblings' scales — and as for a success rate
    # its top is what the envs sharing it reach (ceiling_reaches): no game is solved in every episode
    reach = env.cache.get("ceiling_reach")
    for best in (noise.floor + noise.scale if noise.counted else None, env.cache.get("ceiling")):
        if best is not None and wide[1] > best > own[0]:
            return wide[0], max(own[1], reach if best == env.cache.get("ceiling") and reach is not None else best)
    return wide


def ceiling_reaches(envs: list[EnvData], ceilings: list[float | None]) -> list[float | None]:
    """Per env with a shared ceiling, what the envs sharing it that learned reach (the upper quartile of their own
    tops, as a run's success rates share one; the ceiling where none learned): Procgen games at 94-96 % success
    (9.4-9.6 of 10) beside continuous games were read on a scale up to 10 and never graduated (twenty-first
    corpus: `prolonged`). None for the others."""
    reach = {}
    for c in {c for c in ceilings if c is not None}:
        tops = [own_scale(e)[1] for e, d in zip(envs, ceilings) if d == c and own_scale(e) is not None and learned(e)]
        reach[c] = min(c, float(np.quantile(tops, REFERENCE_TOP_QUANTILE))) if tops else c
    return [reach.get(c) for c in ceilings]


def shared_ceilings(envs: list[EnvData]) -> list[float | None]:
    """Per env, the ceiling of its learning series (segments.ceiling) where another env of the run has the same
    one: a bound of the task family (Procgen's success-or-nothing games all pay 10). One env alone at a value it
    repeats exactly may be a level held in noise finer than its rounding (a frozen learner), not a bound."""
    caps = [ceiling(e.learning.values) for e in envs]
    return [c if c is not None and sum(d == c for d in caps) >= 2 else None for c in caps]


def _plainly_learned(env: EnvData, own: tuple[float, float]) -> bool:
    """Whether the env's own gain is over OWN_GAIN_NOISE noise sds (at its top, widened by its wander) and, in a
    gaussian series, over as many of its points' typical distances from their running median (over 2 x
    WANDER_HALF + 1 points, as a normal sd): a running mean of rare far episodes (a time to solve near its cap,
    smoothed as reinforce.py's running reward is) jumps and creeps back, its changes between neighbours mostly
    tiny — its wander is no gain of its own."""
    f = fit(env, "learning")
    noise = median(np.atleast_1d(f.noise.raw_sd(own[1]))) * f.segments.wander
    y = f.series.values
    if f.noise.kind == "gaussian" and len(y) > 2 * WANDER_HALF:
        width = 2 * WANDER_HALF + 1
        around = trailing_median(y, width)[width - 1:]  # the median of the points WANDER_HALF either side
        noise = max(noise, MAD_SD * median(np.abs(y[WANDER_HALF: len(y) - WANDER_HALF] - around)))
    return own[1] - own[0] > OWN_GAIN_NOISE * noise


def _phases(seg: Segments, merge_within: float, segments=None) -> list[tuple[int, int, float, float, float]]:
    """Consecutive segments grouped into phases (first segment, last segment, level, z-level, its
    standard error): a new phase starts where the level moves by more than `merge_within` from the
    current phase's level. Segments made only of outliers are skipped. Points caught mid-change join
    a phase on either side (see _grouping_levels)."""
    idx = np.arange(len(seg)) if segments is None else np.asarray(segments)
    idx = idx[seg.count[idx] > 0]
    out = []
    if not len(idx):
        return out
    level, count, zl, wz = seg.level[idx], seg.count[idx].astype(np.float64), seg.zlevel[idx], 1.0 / seg.se[idx] ** 2
    group = _grouping_levels(level, count)
    start, sc, sl, sg = 0, count[0], level[0] * count[0], group[0] * count[0]
    for j in range(1, len(idx)):
        if abs(group[j] - sg / sc) > merge_within:
            out.append(_phase(idx, start, j, sl / sc, zl, wz))
            start, sc, sl, sg = j, 0.0, 0.0, 0.0
        sc += count[j]
        sl += level[j] * count[j]
        sg += group[j] * count[j]
    out.append(_phase(idx, start, len(idx), sl / sc, zl, wz))
    return out


def _grouping_levels(level: np.ndarray, count: np.ndarray) -> np.ndarray:
    """The level each segment is grouped by. Short segments (at most TRANSITION_POINTS points, together
    at most twice that) between two longer ones whose levels lie within the span of those two (widened
    by RETURN_TOLERANCE x their gap) are points caught mid-change or overshooting it: they are grouped
    with the nearer of the two. A short excursion away from both (a brief phase of switching) keeps
    its own level."""
    group = level.copy()
    short = count <= TRANSITION_POINTS
    if not short[1:-1].any():
        return group
    edges = np.diff(np.concatenate([[0], short.astype(np.int8), [0]]))
    first, last = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1) - 1
    # runs first..last of short segments between two longer ones (a longer run is a ramp: a learning rise)
    keep = (first > 0) & (last < len(level) - 1)
    first, last = first[keep], last[keep]
    single = first == last  # most runs are one segment: all at once
    _group_between(group, level, first[single], level[first[single] - 1], level[first[single] + 1])
    for j, b in zip(first[~single], last[~single]):
        if count[j: b + 1].sum() <= 2 * TRANSITION_POINTS:
            _group_between(group, level, np.arange(j, b + 1), level[j - 1], level[b + 1])
    return group


def _phase(idx, a: int, b: int, level: float, zl, wz) -> tuple[int, int, float, float, float]:
    w = wz[a:b]
    return int(idx[a]), int(idx[b - 1]), float(level), float(np.dot(zl[a:b], w) / w.sum()), float(1.0 / np.sqrt(w.sum()))


def switching(env: EnvData, split: str, scale: float) -> list[Episode]:
    """Episodes where `split` alternates between two levels: SWITCH_CHANGES or more consecutive big
    changes that alternate in direction between phases that agree with their level. A
    change is big when it exceeds SWITCH_SHARE x `scale` (the env's learned range) and SWITCH_Z
    standard errors of the two levels. A learning curve (all up), a level shift or a regression
    that recovers once (down, up) is not switching; one outlier is not a phase.

    Phases come from the series' segments and, where those miss it, from a two-level reading of the
    series (see _two_level): binary segmentation cannot see short phases that alternate quickly
    (no single cut of the whole stretch explains much), nor phases hidden by a noise estimate that the
    switching itself inflated."""
    f = fit(env, split)
    if len(f.series) < SWITCH_CHANGES + 1:
        return []
    two = _two_level(f)
    spans = judged_spans(env)
    if not scale > 0:
        # no learned range (a series that switched all its life reads as noise about one level): where its
        # points fall into two clusters far apart, not at random, the gap between them is its range
        if two is None or not (ok := two.count > 0).sum() >= 2:
            return []
        lo, hi = float(np.min(two.level[ok])), float(np.max(two.level[ok]))
        scale = hi - lo
        v = f.series.values
        if np.mean((v > lo + scale / 3) & (v < hi - scale / 3)) > NO_RANGE_MIDDLE:
            return []  # one wide cluster cut in two (noise that wanders, a rolling mean), not two levels
        episodes = _episodes_of(split, two, f.series, scale, spans)
    else:
        episodes = _episodes_of(split, f.segments, f.series, scale, spans)
        if two is not None:
            episodes = _either_reading(episodes, _episodes_of(split, two, f.series, scale, spans))
    return joined(sorted(episodes, key=lambda e: e.first_step))


def _either_reading(segmented: list[Episode], two_level: list[Episode]) -> list[Episode]:
    """Episodes of the two readings: where they overlap, those of the reading that counts more changes
    there (the segments' on a tie) — segmentation may break a long run of switching that the two-level
    reading follows whole, and the other way round."""
    out = []
    both = [(ep, 0) for ep in segmented] + [(ep, 1) for ep in two_level]
    both.sort(key=lambda x: x[0].first_step)
    cluster, end = [], None
    for ep, src in both + [(None, None)]:
        if ep is not None and cluster and ep.first_step <= end:
            cluster.append((ep, src))
            end = max(end, ep.last_step)
            continue
        if cluster:
            changes = [sum(e.changes for e, s in cluster if s == r) for r in (0, 1)]
            pick = 1 if changes[1] > changes[0] else 0
            out += [e for e, s in cluster if s == pick]
        if ep is not None:
            cluster, end = [(ep, src)], ep.last_step
    return out


def overlaps(ep: Episode, others: list[Episode]) -> bool:
    """Whether `ep` shares a step with any of `others`."""
    return any(ep.first_step <= e.last_step and e.first_step <= ep.last_step for e in others)


def joined(episodes: list[Episode]) -> list[Episode]:
    """Consecutive episodes (sorted) between the same two levels, closer to each other than JOIN_SPANS x
    the longer of the two, are one: switching whose phases vary in length (a long phase breaks the chain's
    rhythm) is one unstable period, not a dozen. Two bursts far apart (each its own episode) stay two."""
    out: list[Episode] = []
    for ep in episodes:
        if out:
            prev = out[-1]
            gap = abs(prev.high - prev.low)
            same = abs(ep.high - prev.high) <= RETURN_TOLERANCE * gap and abs(ep.low - prev.low) <= RETURN_TOLERANCE * gap
            if same and ep.split == prev.split and ep.first_step - prev.last_step <= JOIN_SPANS * max(
                    prev.last_step - prev.first_step, ep.last_step - ep.first_step):
                w = prev.changes + ep.changes
                out[-1] = Episode(prev.split, prev.first_step, max(prev.last_step, ep.last_step), w,
                                  (prev.high * prev.changes + ep.high * ep.changes) / w,
                                  (prev.low * prev.changes + ep.low * ep.changes) / w,
                                  (prev.phase_steps * prev.changes + ep.phase_steps * ep.changes) / w,
                                  max(prev.series_last_step, ep.series_last_step))
                continue
        out.append(ep)
    return out


def rate_best(env: EnvData, values: np.ndarray) -> float | None:
    """The best oriented value of a rate (a metric whose values all lie in [0, 1]): 1 for a
    higher-is-better rate (success) — single episodes' sparse-reward returns, what a solved one is worth
    (segments.outcome_scale) —, 0 for a lower-is-better one (an error rate); None otherwise. Returns by
    their name (see `returns_by_name`) in [0, 1] are a rate unless their values say otherwise
    (CONTINUOUS_VALUES distinct values or more, on no 1/n lattice, no single episodes' outcomes, no counts)
    and no env of their run comes near 1 (`run_top`, see `run_rate_top`): the mean return of a few MiniGrid
    episodes (1 - 0.9 x steps / max steps when solved) tops out well below 1, where no success rate stops; a
    sparse reward of 1 per success (ML-Agents' cumulative reward) is a success rate, and its run's best envs
    show it."""
    raw = values * env.sign
    if len(raw) and raw.min() >= 0 and raw.max() <= 1:
        if env.sign == 1:
            worth = outcome_scale(raw)
            if worth is None and env.cache.get("run_top", 1.0) < RATE_TOP and returns_by_name(env.metric) \
                    and len(np.unique(raw[:CONTINUOUS_VALUES * 8])) >= CONTINUOUS_VALUES \
                    and lattice_trials(raw) is None and not _counted(env.learning):
                return None
            return worth or 1.0
        return 0.0
    return None


def rate_top(env: EnvData, values: np.ndarray) -> float | None:
    """The best a rate can reach in its run (oriented): its bound (rate_best), or the ceiling its run's learners
    share below it (run_rate_ceilings), whichever is lower; None for a metric that is no rate."""
    best = rate_best(env, values)
    ceiling = env.cache.get("rate_ceiling")
    return best if best is None or ceiling is None else min(best, ceiling)


def run_rate_ceilings(envs: list[EnvData]) -> list[float | None]:
    """Per env, the level the run's rates that learned all stopped at, where that lies short of their bound
    (oriented: by more than 1 - RATE_TOP of their whole range): at least CEILING_ENVS of them, and half of those
    that learned, top out within SHARED_TOP_SPREAD x their gain of their upper-quartile top, and none learned to
    a top beyond it. Every datasource of an LLM's eval set tops out at its pass@1 (the model's reach on its
    problems: 0.6-0.85 of a difficulty-filtered mix, twenty-second corpus): their common plateau is the run's
    top, not a crowd of envs stalled at one level (frozen learners stop where their own progress stopped, each
    at its own level). None where there is no such ceiling, and for envs that are no rate."""
    best = [rate_best(e, e.learning.values) for e in envs]
    own = [own_scale(e) if b is not None else None for e, b in zip(envs, best)]
    gained = [k for k, s in enumerate(own) if s is not None and learned(envs[k])]
    if len(gained) < CEILING_ENVS or len({best[k] for k in gained}) != 1:
        return [None] * len(envs)
    tops = np.array([own[k][1] for k in gained])
    gains = np.array([own[k][1] - own[k][0] for k in gained])
    top = float(np.quantile(tops, REFERENCE_TOP_QUANTILE))
    near = np.abs(tops - top) <= SHARED_TOP_SPREAD * gains
    bound = best[gained[0]]
    ceiling = float(np.median(tops[near]))
    whole = bound if bound > 0 else 1.0  # a success rate's whole range 0..1; an error rate's, oriented, -1..0
    if near.sum() < max(CEILING_ENVS, len(gained) / 2) or np.any(tops > top + SHARED_TOP_SPREAD * gains) \
            or ceiling > bound - (1 - RATE_TOP) * whole:
        return [None] * len(envs)
    return [ceiling if b == bound else None for b in best]


CEILING_ENVS = 3  # a run's rates share a ceiling below their bound when this many learners (and half) stop there


CONTINUOUS_VALUES = 8  # a [0, 1] series of this many distinct values or more (among its first 8 x this) ...
RATE_TOP = 0.9  # ... on no lattice, named a return, where no env of its run holds this (a 5-point mean), is no rate
RUN_TOP_POINTS = 5
LATTICE_PREFIX = 1024  # a lattice shows in a series' first points


def _counted(series: Series) -> bool:
    """Whether a series carries the observations behind each point (Marin's `total_count`, tinker's samples, a
    `count_metric`): an LLM-RL reward over n samples is a rate of correct answers, on a lattice or not (tinker's
    format penalties move it off one)."""
    return series.counts is not None and len(series) > 0


def run_rate_top(envs: list[EnvData]) -> float:
    """The highest level any of a run's envs held (its learning series' best mean of RUN_TOP_POINTS points in a
    row, oriented), or 1.0 when none has that many points: where it stays under RATE_TOP, a return in [0, 1]
    tops out below 1 (see rate_best). Also 1.0 when any env's values lie on a 1/n lattice: means of n outcomes,
    so the metric is a rate in every env of the run — a source evaluated on 16 problems shows it, one on 400 looks
    continuous (SkyRL's `avg_score` per data source, twenty-fifth corpus: read as a return there and as a rate
    beside it, its siblings shared no ceiling and plateaus under the 0.7 line stalled)."""
    best = None
    for env in envs:
        v = env.learning.values
        if lattice_trials(v[:LATTICE_PREFIX]) is not None:
            return 1.0
        if len(v) >= RUN_TOP_POINTS:
            top = float(np.max(np.convolve(v, np.full(RUN_TOP_POINTS, 1.0 / RUN_TOP_POINTS), "valid")))
            best = top if best is None else max(best, top)
    return 1.0 if best is None else best


# metric names read as returns (whole words), unless they name a rate too
RETURN_NAME = re.compile(r"(?:^|[^a-z])(returns?|rewards?|scores?)(?:$|[^a-z])", re.IGNORECASE)
RATE_NAME = re.compile(r"success|solved|rate|acc|correct|pass|win|pct|percent|prob", re.IGNORECASE)


def returns_by_name(metric: str) -> bool:
    """Whether a performance metric's name reads as a return, reward or score and names no rate."""
    return bool(RETURN_NAME.search(metric)) and not RATE_NAME.search(metric)


def natural_zero(env: EnvData, f: Fit) -> float | None:
    """The worst an env's metric can do, oriented, where its bounds say: single episodes' returns' timeout value
    (segments.floored_outcomes), an error rate's 1 (-1 oriented); else, higher being better, 0 (a success rate's;
    a share of a positive level is a plain ratio to it); None for any other metric (lower is better, no bounds)."""
    if f.noise.floor is not None:
        return f.noise.floor
    if env.sign == 1:
        return 0.0
    return -1.0 if rate_best(env, f.series.values) is not None else None


def switching_after(env: EnvData, split: str, scale: float, step: int) -> list[Episode]:
    """Switching episodes the two-level reading finds in `split` from `step` on (the env's graduation),
    its two levels read from all of it, or from one long segment alone and applied from `step` to that
    segment's end: a burst of switching after graduation lies between the held level and a low one,
    and binary segmentation may make a burst of short phases one long segment at a middle level."""
    f = fit(env, split)
    first = int(np.searchsorted(f.series.steps, step, "left"))
    n = len(f.series)
    if not scale > 0 or n - first < 2 * SWITCH_CHANGES:
        return []
    # long segments whose points spread far beyond the noise (a burst of short phases made one segment),
    # the most spread first and at most LOCAL_READINGS of them
    z, sd = f.noise.z, median(f.noise.sigma)
    spread = []
    for a, b in zip(f.segments.bounds[:-1].tolist(), f.segments.bounds[1:].tolist()):
        a = max(first, a)
        if b - a >= 2 * SWITCH_CHANGES and (a > first or b < n):
            ratio = float(np.std(z[a:b])) / sd if sd > 0 else np.inf
            if ratio > LOCAL_SPREAD:
                spread.append((ratio, a, b))
    ranges = [(first, n, None)] + [(first, b, (a, b)) for _r, a, b in sorted(spread, reverse=True)[:LOCAL_READINGS]]
    out: list[Episode] = []
    for a, b, clusters in ranges:
        two = _two_level(f, a, b, clusters)
        if two is not None:
            out += [ep for ep in _episodes_of(split, two, f.series, scale, judged_spans(env))
                    if ep.changes >= LOCAL_SWITCH_CHANGES
                    and not overlaps(ep, out)]
    return out


def _episodes_of(split: str, seg: Segments, series: Series, scale: float,
                 spans: list[tuple[float, float]]) -> list[Episode]:
    """The switching episodes among `seg`'s segments of `series`, judged within each of `spans`."""
    if len(seg) < SWITCH_CHANGES + 1 or _turns(seg.level[seg.count > 0]) < SWITCH_CHANGES - 1:
        return []  # alternating phases need the segment levels to turn that often (a staircase never does)
    steps = series.steps
    seg_steps = steps[seg.bounds[:-1]]
    episodes = []
    for lo, hi in spans:
        chosen = np.flatnonzero((seg_steps >= lo) & (seg_steps < hi))
        if len(chosen) >= SWITCH_CHANGES + 1:
            episodes += _switching_in(split, seg, series, _phases(seg, SWITCH_SHARE * scale, chosen), scale)
    return episodes


def _two_level(f: Fit, start: int = 0, end: int | None = None,
               clusters: tuple[int, int] | None = None) -> Segments | None:
    """The series read as two levels, when its points fall into two clusters (2-means on the noise
    scale) at least TWO_LEVEL_SEPARATION within-cluster sds apart, that sd never taken below the
    series' noise (a binomial model's own, before overdispersion — where its trials vary point to point, that of
    the points clustered, each point weighed by its own; else its point-to-point noise), so
    the lattice of a rate near 0 or 1, or noise clipped at a bound, is not two levels. Each point takes the
    cluster it is clearly in (beyond a third of the gap from the other), else keeps the previous
    one; one-point runs (a heavy-tailed noise point) join their neighbours; a run that is a ramp
    (see _ramps) is left out. Segments of that path, weighted by the within-cluster sd; None when the
    series is not two-level. Points start..end-1 only when given (the others left out as outliers),
    the clusters found among points clusters[0]..clusters[1]-1 when given."""
    z = f.noise.z
    ok = ~f.segments.outlier
    ok[:start] = False
    ok[len(z) if end is None else end:] = False
    c0, c1 = clusters or (0, len(z))
    zz = z[c0:c1][ok[c0:c1]]
    if len(zz) < SWITCH_CHANGES + 1:
        return None
    n, total = len(zz), float(zz.sum())
    mid, lo, hi = median(zz), 0.0, 0.0
    if not zz.min() < mid < zz.max():  # most points on a bound (a rate held at 1): split at the mean
        mid = total / n
    for _ in range(10):  # 2-means from a split at the median
        up = zz > mid
        k = int(np.count_nonzero(up))
        if k == 0 or k == n:
            return None
        top = float(zz[up].sum())
        lo, hi = (total - top) / (n - k), top / k
        if (lo + hi) / 2 == mid:
            break
        mid = (lo + hi) / 2
    if n > LONG_SERIES_POINTS and not _persists(up):
        return None  # its points fall above and below as independent noise would: no phases (a few
        # dozen sparse evals are too few to tell; there, short phases are judged as they are)
    floor = f.noise.base_sigma if f.noise.kind == "binomial" else median(f.noise.sigma)
    if f.noise.relative is not None and median(f.noise.sigma) > 0:
        # ... nor below the model's noise of the points clustered, where their trials vary (means over few episodes
        # after a fall, beside many before); a gaussian block sd would hold the switching itself
        here = f.noise.sigma[c0:c1][ok[c0:c1]] * (f.noise.base_sigma / median(f.noise.sigma))
        floor = max(floor, float(np.sqrt(np.mean(here ** 2))))
    resid = np.where(up, zz - hi, zz - lo)
    # the clusters' spread without lone spikes (a point over SPIKE_NOISE point-noise sds from both its
    # neighbours, the same way, which lie within that of each other): heavy-tailed noise's (Student t with
    # 2 df), left in a fit that read the switching as a wander, would swell it past the gap itself
    within = float(np.sqrt(np.mean(resid[~_spikes(zz, SPIKE_NOISE * floor)] ** 2)))
    sd = max(within, floor)
    # clusters far looser than the noise (overdispersed or skewed noise splits into a tight top and a loose
    # tail) must lie further apart than two levels with their own noise
    if not hi - lo >= (LOOSE_SEPARATION if within > LOOSE_CLUSTERS * floor else TWO_LEVEL_SEPARATION) * sd:
        return None
    third = (hi - lo) / 3
    state = np.where(z >= hi - third, 1, np.where(z <= lo + third, 0, -1))
    state[~ok] = -1
    state = _carried(state)
    if np.count_nonzero(state[1:] != state[:-1]) < SWITCH_CHANGES:
        return None  # a learning curve: one or two changes
    lengths = _run_lengths(state)
    state = _carried(np.where(lengths == 1, -1, state))
    # in a long series, runs no longer than its lone points (heavy-tailed noise: outliers at the other
    # level, when they are rare) make by chance are noise too
    lone = np.count_nonzero(lengths == 1) / len(state)
    if len(state) > LONG_SERIES_POINTS and 0 < lone <= OUTLIER_RATE:
        chance = int(np.floor(np.log(CHANCE_PHASE / len(state)) / np.log(lone)))
        if chance >= 2:
            state = _carried(np.where(_run_lengths(state) <= chance, -1, state))
    cuts = np.flatnonzero(np.diff(state) != 0) + 1
    if len(cuts) < SWITCH_CHANGES:
        return None
    outlier = f.segments.outlier | _ramps(z, [0, *cuts.tolist(), len(z)], hi - lo, sd)
    outlier[:start] = True
    outlier[len(z) if end is None else end:] = True
    # a point over fewer trials than the typical one (a mean of the few episodes that ended) weighs less
    each = sd * np.maximum(f.noise.relative, 1.0) if f.noise.relative is not None else np.full(len(z), sd)
    return build_segments(f.series.values, z, 1.0 / each ** 2, outlier, cuts.tolist())


def _spikes(z: np.ndarray, far: float) -> np.ndarray:
    """Points over `far` from both neighbours, the same way, whose neighbours lie within `far` of each other."""
    out = np.zeros(len(z), bool)
    if len(z) >= 3:
        left, right = z[1:-1] - z[:-2], z[1:-1] - z[2:]
        out[1:-1] = (np.minimum(np.abs(left), np.abs(right)) > far) & (np.sign(left) == np.sign(right)) \
            & (np.abs(z[2:] - z[:-2]) <= far)
    return out


def _persists(up: np.ndarray) -> bool:
    """Whether points of the two clusters follow each other otherwise than at random: fewer runs than
    independent draws in the same proportions make (switching holds a level) or more (it alternates
    point to point), by RUNS_Z standard errors (Wald-Wolfowitz). Heavy noise (a rate's beta-binomial
    tail) splits into two clusters whose points follow each other at random."""
    n = len(up)
    n1 = int(np.count_nonzero(up))
    n0 = n - n1
    if n < 2 or not n0 or not n1:
        return False
    runs = 1 + int(np.count_nonzero(up[1:] != up[:-1]))
    expected = 1 + 2 * n0 * n1 / n
    var = 2 * n0 * n1 * (2 * n0 * n1 - n) / (n * n * (n - 1))
    return var > 0 and abs(runs - expected) / math.sqrt(var) > RUNS_Z  # (or alternate: far more runs)


def _ramps(z: np.ndarray, bounds: list[int], gap: float, sd: float) -> np.ndarray:
    """Points of runs that climb or fall across RETURN_TOLERANCE x the gap (a significant trend,
    SWITCH_Z standard errors): a learning rise is not a phase at a level, whatever cluster it ends
    up in."""
    out = np.zeros(len(z), bool)
    for a, b in zip(bounds[:-1], bounds[1:]):
        if b - a >= 4 and _trend(z[a:b], gap, sd):
            out[a:b] = True
    return out


def _trend(v: np.ndarray, gap: float, sd: float) -> int:
    """+1 (-1) where evenly spaced points climb (fall) across RETURN_TOLERANCE x `gap` by their least-squares
    line, beyond SWITCH_Z standard errors of points of noise sd `sd`; else 0."""
    m = len(v)
    x = np.arange(m) - (m - 1) / 2
    sxx = float(np.dot(x, x))
    slope = float(np.dot(x, v)) / sxx
    if abs(slope) * (m - 1) > RETURN_TOLERANCE * gap and abs(slope) * np.sqrt(sxx) > SWITCH_Z * sd:
        return 1 if slope > 0 else -1
    return 0


def _carried(state: np.ndarray) -> np.ndarray:
    """-1 entries take the previous defined state (the first defined one at the start)."""
    defined = state >= 0
    if not defined.any():
        return np.zeros_like(state)
    idx = np.maximum.accumulate(np.where(defined, np.arange(len(state)), 0))
    out = state[idx]
    out[: int(np.argmax(defined))] = state[int(np.argmax(defined))]
    return out


def _group_between(group: np.ndarray, level: np.ndarray, idx: np.ndarray, p, n) -> None:
    """Segments `idx`, between levels p and n, take the nearer of the two when within their span."""
    run = level[idx]
    tol = RETURN_TOLERANCE * np.abs(p - n)
    inside = (run >= np.minimum(p, n) - tol) & (run <= np.maximum(p, n) + tol)
    group[idx] = np.where(inside, np.where(np.abs(run - p) <= np.abs(run - n), p, n), run)


def _run_lengths(state: np.ndarray) -> np.ndarray:
    """Per point, the length of the run of equal states it belongs to."""
    starts = np.flatnonzero(np.concatenate([[True], state[1:] != state[:-1]]))
    lengths = np.diff(np.concatenate([starts, [len(state)]]))
    return np.repeat(lengths, lengths)


def _turns(levels: np.ndarray) -> int:
    """How often a sequence of levels changes direction."""
    d = np.sign(np.diff(levels))
    d = d[d != 0]
    return int(np.count_nonzero(d[1:] != d[:-1]))


def judged_spans(env: EnvData) -> list[tuple[float, float]]:
    """Stretches judged apart: between the steps where a lesson changed (a new lesson's difficulty
    moves the reward by design), else the env's whole life."""
    cuts = set()
    for series in env.lessons.values():
        if series is not None and len(series) > 1:
            cuts.update(int(x) for x in series.steps[1:][np.diff(series.values) != 0])
    bounds = [-np.inf, *sorted(cuts), np.inf]
    return list(zip(bounds[:-1], bounds[1:]))


def _switching_in(split: str, seg: Segments, series: Series, phases: list, scale: float) -> list[Episode]:
    """The switching episodes among consecutive phases (see `switching`)."""
    if len(phases) < SWITCH_CHANGES + 1:
        return []
    steps = series.steps
    levels = np.array([p[2] for p in phases])
    zl = np.array([p[3] for p in phases])
    se = np.array([p[4] for p in phases])
    d = np.diff(levels)
    duration = np.array([steps[min(int(seg.bounds[p[1] + 1]), len(steps) - 1)] - steps[int(seg.bounds[p[0]])]
                         for p in phases], dtype=np.float64)
    big = (np.abs(d) > SWITCH_SHARE * scale) & (np.abs(np.diff(zl)) > SWITCH_Z * np.hypot(se[1:], se[:-1]))
    episodes = []
    k = 0
    while k < len(d):
        if not big[k]:
            k += 1
            continue
        m = k  # the chain: changes k..m, big and alternating in direction
        while m + 1 < len(d) and big[m + 1] and np.sign(d[m + 1]) != np.sign(d[m]):
            m += 1
        first, last = _consistent_core(levels[k: m + 2])
        a = k + first  # phases a..b switch between two levels; split them where the rhythm breaks
        b = k + last
        kept = []
        while b - a >= SWITCH_CHANGES:
            run = _regular_prefix(duration[a + 1: b])  # inner phases a+1..b-1
            end = a + run + 1
            if end - a >= _changes_needed(seg, phases[a + 1: end]):
                kept.append((a, end))
            a = end
        # rhythmic runs of one chain with more changes between them (too few or too irregular to be
        # switching alone) are one unstable period; runs apart by one long calm phase stay two
        groups = []
        for a, end in kept:
            if groups and a - groups[-1][1] >= 2:
                groups[-1][1] = end
            else:
                groups.append([a, end])
        for a, end in groups:
            if a == 0 and _learned_then_held(levels, duration, a, end) \
                    and end - a - 2 >= _changes_needed(seg, phases[a + 3: end]):
                a += 2  # a brief start below, then a long hold: it learned and held before it began to switch
            before = _level_before(seg, series, phases[a]) if a == 0 else None
            if a == 0 and before is None and a + 1 < len(levels):
                before = _climbed_through(seg, series, phases[a], levels[a + 1] - levels[a])
            if _rise_stair(levels, a, before):
                if end - a - 1 < _changes_needed(seg, phases[a + 2: end]):
                    continue  # without the stair too few changes are left: no switching
                a += 1  # its first low phase is a stair of the learning rise before it
            if _chance_lows(seg, series, phases[a: end + 1]):
                continue
            episodes.append(_episode(split, seg, series, phases[a: end + 1], end - a,
                                     _learned_into_phase(seg, series, phases, levels, a, before)))
        k = m + 1
    return episodes


def _chance_lows(seg: Segments, series: Series, phases: list) -> bool:
    """Whether fewer than two of a chain's low phases stand out of the series' brief dips: a low phase of r
    points is one when the series' points below the chain's middle in runs shorter than SHORT_PHASE_POINTS,
    outside its low phases, come so often that n x their rate ** r exceeds CHANCE_PHASE (a rate whose noise is now
    and then a deep drop bunches two or three of them now and then; a fall among such drops then reads as
    switching and hides as one)."""
    levels = np.array([p[2] for p in phases])
    mid = (float(np.max(levels)) + float(np.min(levels))) / 2
    v = series.values
    n = len(v)
    lows = np.zeros(n, bool)  # the chain's low phases: its high ones show the series' brief dips like the rest
    for p in phases:
        if p[2] < mid:
            lows[int(seg.bounds[p[0]]): int(seg.bounds[p[1] + 1])] = True
    outside = n - int(np.count_nonzero(lows))
    if outside < LONG_SERIES_POINTS:
        return False
    below = v < mid
    brief = np.zeros(n, bool)
    for s0, e0 in runs_of_true(below):
        if e0 - s0 + 1 < SHORT_PHASE_POINTS:
            brief[s0: e0 + 1] = True
    rate = int(np.count_nonzero(brief & ~lows)) / outside
    if not rate > 0:
        return False
    real = sum(1 for p in phases if p[2] < mid
               and n * rate ** (int(seg.bounds[p[1] + 1]) - int(seg.bounds[p[0]])) <= CHANCE_PHASE)
    return real < 2


def _learned_then_held(levels: np.ndarray, duration: np.ndarray, a: int, end: int) -> bool:
    """Whether a chain's first phase a is a brief start at its worse level (shorter than its typical phase)
    and the next one a hold at the better level of more than HELD_PHASES x its typical phase (the median of
    the phases after them): the series' first points before a level is learned (SB3's EvalCallback evaluates
    a level as its training starts), then what was learned held — not two phases of the switching after."""
    if end - a < 4 or not levels[a] < levels[a + 1]:
        return False
    typical = median(duration[a + 2: end + 1])
    return bool(duration[a] < typical and duration[a + 1] > HELD_PHASES * typical)


def _rise_stair(levels: np.ndarray, a: int, before: float | None = None) -> bool:
    """Whether phase a, the first of a switching chain, is a low phase that the phase before it climbed
    to from further down (beyond RETURN_TOLERANCE x the chain's gap): a stair of a learning rise that
    the chain's low level happens to match, not one of its phases. `before`: the level before the first
    phase of all, where no phase precedes it (a two-level reading leaves a rise below both levels out)."""
    prev = levels[a - 1] if a >= 1 else before
    if prev is None or a + 1 >= len(levels) or not levels[a] < levels[a + 1]:
        return False
    gap = levels[a + 1] - levels[a]
    return bool(prev < levels[a] - RETURN_TOLERANCE * gap)


def _climbed_from(levels: np.ndarray, a: int) -> float:
    """The level the climb into phase a began from, when every phase before it climbed (a learning rise
    from the series' start, cut into stairs): its first phase's; else the phase before it (a climb back
    from a deep drop after the env learned is no learning)."""
    j = a
    while j >= 1 and levels[j - 1] < levels[j]:
        j -= 1
    return float(levels[0] if j == 0 else levels[a - 1])


def _learned_into(levels: np.ndarray, a: int, before: float | None) -> bool:
    """Whether phase a, the first of a switching chain, is a high phase that the level before it climbed to
    from below the chain's low level (beyond RETURN_TOLERANCE x the gap): the level the env learned, held
    until the switching began — the switching's first sign is its first change, not the learning."""
    if before is None or a + 1 >= len(levels) or not levels[a] > levels[a + 1]:
        return False
    gap = levels[a] - levels[a + 1]
    return bool(before < levels[a + 1] - RETURN_TOLERANCE * gap)


def _learned_into_phase(seg: Segments, series: Series, phases: list, levels: np.ndarray, a: int,
                        before: float | None) -> bool:
    """Whether phase a, the first of a switching chain, is a high phase the env learned (see _learned_into):
    the level it climbed from lies below the chain's low one — the first phase's of a rise in stairs from
    the series' start, else the phase before it, or at the series' start the points before it (their median;
    or, when the chain begins within its first two phases, the lowest median of 3 of them: a rolling mean
    that began with a previous lesson's episodes falls before it climbs); or the points just before it climb
    into it (see _climbs_into); or it is the top of a staircase of two rises or more from the series' start
    (sparse points of a learning rise may pass near the low level on the way)."""
    if a + 1 >= len(levels) or not levels[a] > levels[a + 1]:
        return False
    gap = levels[a] - levels[a + 1]
    if _learned_into(levels, a, _climbed_from(levels, a) if a >= 1 else before):
        return True
    if a <= 1 and (lowest := _lowest_before(seg, series, phases[a])) is not None \
            and lowest < levels[a + 1] - RETURN_TOLERANCE * gap:
        return True
    if a == 0:
        return _climbs_into(seg, series, phases[0], gap)
    return a >= 2 and bool(np.all(np.diff(levels[: a + 1]) > 0))


def _lowest_before(seg: Segments, series: Series, phase: tuple) -> float | None:
    """The lowest median of 3 consecutive points before a phase (of all of them when fewer), or None at the
    series' start."""
    a = int(seg.bounds[phase[0]])
    v = series.values[:a]
    if not len(v):
        return None
    if len(v) < 3:
        return median(v)
    return float(np.min(np.median(np.lib.stride_tricks.sliding_window_view(v, 3), axis=1)))


def _climbs_into(seg: Segments, series: Series, phase: tuple, gap: float) -> bool:
    """Whether the points before a high phase that opens a chain, from the series' start (as many as the
    phase holds, at least two), climb into it: their least-squares rise exceeds RETURN_TOLERANCE x the
    gap to the low phase and SWITCH_Z standard errors (the phase's own point noise). A learning rise that
    a two-level reading left out as a ramp, whose sparse points may pass near the low level on the way,
    is no low phase: the level it climbed to is what it learned."""
    a, b = int(seg.bounds[phase[0]]), int(seg.bounds[phase[1] + 1])
    m = min(a, b - a)
    if m < 2 or not gap > 0:
        return False
    return _trend(series.values[a - m: a], gap, robust_sd(np.diff(series.values[a:b]))) > 0


def _level_before(seg: Segments, series: Series, phase: tuple) -> float | None:
    """The median of the points just before a phase (as many as it holds), or None at the series' start."""
    a, b = int(seg.bounds[phase[0]]), int(seg.bounds[phase[1] + 1])
    return median(series.values[max(0, a - (b - a)): a]) if a > 0 else None


def _climbed_through(seg: Segments, series: Series, phase: tuple, gap: float) -> float | None:
    """The first point of a phase that opens the series, when its points climb through its level — the
    first beyond RETURN_TOLERANCE x the gap to the next phase below it, the last as far above it: a
    learning rise that a two-level reading cut at the low level (a few sparse evals on the way up), not a
    phase. None otherwise."""
    a, b = int(seg.bounds[phase[0]]), int(seg.bounds[phase[1] + 1])
    v = series.values[a:b]
    if len(v) < 2 or not gap > 0:
        return None
    level = phase[2]
    if v[0] < level - RETURN_TOLERANCE * gap and v[-1] > level + RETURN_TOLERANCE * gap:
        return float(v[0])
    return None


def _changes_needed(seg: Segments, inner: list) -> int:
    """Changes a chain needs to be switching: SWITCH_CHANGES, or LOCAL_SWITCH_CHANGES when its inner
    phases last under SHORT_PHASE_POINTS points (median) in a series of over LONG_SERIES_POINTS points:
    a long series of a rate's lattice noise near a bound holds a few one- and two-point dips in a row
    somewhere by chance (the more points, the likelier), while in a few dozen sparse evals such a chain
    is a burst."""
    if not inner or int(seg.bounds[-1]) <= LONG_SERIES_POINTS:
        return SWITCH_CHANGES
    points = [int(seg.count[p[0]: p[1] + 1].sum()) for p in inner]
    return LOCAL_SWITCH_CHANGES if median(np.array(points, dtype=np.float64)) < SHORT_PHASE_POINTS else SWITCH_CHANGES


def _regular_prefix(inner: np.ndarray) -> int:
    """How many changes of a chain keep a regular rhythm: the chain ends before an inner phase that
    lasts more than SWITCH_PHASE_RATIO x the median inner phase (two dips far apart are two events,
    not switching). `inner`: durations of the phases between the chain's changes."""
    if len(inner) < 2:
        return len(inner)
    typical = median(inner)
    long = np.flatnonzero(inner > SWITCH_PHASE_RATIO * max(typical, 1.0))
    return int(long[0]) if len(long) else len(inner)


def _consistent_core(levels: np.ndarray) -> tuple[int, int]:
    """The phases (first, last index) of an alternating chain that switch between two levels: the
    chain's phases alternate between two groups; phases at the ends whose level is off their group's
    median by more than RETURN_TOLERANCE x the gap between the groups are trimmed (a learning rise or
    the first fall of a regression is not a return to a level). (0, -1) when the groups disagree
    inside."""
    first, last = 0, len(levels) - 1
    while last - first >= 1:
        a, b = levels[first: last + 1: 2], levels[first + 1: last + 1: 2]
        ma, mb = median(a), median(b)
        gap = abs(ma - mb)
        med = np.where((np.arange(first, last + 1) - first) % 2 == 0, ma, mb)
        off = np.abs(levels[first: last + 1] - med) > RETURN_TOLERANCE * gap
        if not off.any():
            return first, last
        if off[0]:
            first += 1
        elif off[-1]:
            last -= 1
        elif off.mean() <= 0.25:
            return first, last
        else:
            return 0, -1
    return 0, -1


def _episode(split: str, seg: Segments, series: Series, phases: list, changes: int,
             learned_into: bool = False) -> Episode:
    """An episode from its phases. The first (last) phase belongs to it when it is no longer than
    twice the inner phases, or the first begins the series and would not break the chain's rhythm
    (SWITCH_PHASE_RATIO: an env switching from its first point) — but never a first phase the env learned
    into (`learned_into`, see _learned_into); else the episode starts at the
    first change (a burst after a long calm stretch) — where the points of the calm phase are already
    on their way to the next one (beyond TRANSITION_NOISE noise sds of their own level; a wave leaves
    its level gradually, and its points caught mid-change join the nearer phase)."""
    steps, values = series.steps, series.values
    bounds = seg.bounds
    first_pt = [int(bounds[p[0]]) for p in phases]
    last_pt = [int(bounds[p[1] + 1]) - 1 for p in phases]
    lengths = np.array([steps[b] - steps[a] + (steps[min(b + 1, len(steps) - 1)] - steps[b]) for a, b in
                        zip(first_pt, last_pt)], dtype=np.float64)
    inner = lengths[1:-1] if len(lengths) > 2 else lengths
    typical = median(inner) if len(inner) else median(lengths)
    # a first phase from the series' first point is the env switching from its activation unless it
    # would have broken the chain's rhythm as an inner phase (Markov dwells run to several x their median)
    lifelong = first_pt[0] == 0 and lengths[0] <= SWITCH_PHASE_RATIO * typical
    first = first_pt[0] if (lengths[0] <= 2 * typical or lifelong) and not learned_into else first_pt[1]
    last = last_pt[-1] if lengths[-1] <= 2 * typical else last_pt[-2]
    levels = np.array([p[2] for p in phases])
    if first > first_pt[0]:
        gap = levels[1] - levels[0]
        calm = values[first_pt[0]: first]
        noise = robust_sd(np.diff(calm[~seg.outlier[first_pt[0]: first]]))
        # on the way from phase 0 to phase 1: beyond TRANSITION_NOISE noise sds of its level, toward the other
        on_way = np.sign(gap) * (values - levels[0]) > max(TRANSITION_NOISE * noise, TRANSITION_SHARE * abs(gap))
        # ... or, in noise, the mean of the points about it (up to TRANSITION_HALF either side, none past the
        # change) beyond TRANSITION_NOISE sds of such a mean: a wave's slow start is lost in single points
        idx = np.arange(first - first_pt[0])
        k = np.minimum(idx + TRANSITION_HALF + 1, len(idx)) - np.maximum(idx - TRANSITION_HALF, 0)  # points each mean holds
        mean = centred_mean(values[first_pt[0]: first], TRANSITION_HALF)
        near = np.zeros(len(values), bool)
        near[first_pt[0]: first] = np.sign(gap) * (mean - levels[0]) > np.maximum(
            TRANSITION_NOISE * noise / np.sqrt(k), TRANSITION_SHARE * abs(gap))
        # no further back than a quarter of a typical phase: a wave leaves its level over an eighth of its period
        dt = series.median_interval() or 1.0
        near[: max(first_pt[0], first - max(TRANSITION_HALF, int(round(TRANSITION_PHASE * typical / dt))))] = False
        on_way |= near
        j = first
        while j - 1 >= first_pt[0] and (seg.outlier[j - 1] or on_way[j - 1]):
            j -= 1
        while j < first and seg.outlier[j]:
            j += 1
        first = j
    # the phases alternate: every other one is high (a split at the median can put both in one group)
    odd, even = median(levels[0::2]), median(levels[1::2]) if len(levels) > 1 else median(levels)
    return Episode(split, int(steps[first]), int(steps[last]), changes, max(odd, even), min(odd, even),
                   typical, int(steps[-1]))


def volatility_width(env: EnvData) -> float:
    """The range volatility is measured against: the env's scale (env_scale) — or, for an env that
    learned nothing on it (one switching or waving from its first point at the better level has its
    top as its start), the range of levels it held when that stands out of the noise; for one that
    plainly learned (a gain over OWN_GAIN_NOISE noise sds), its own gain where that is under
    OWN_WIDTH_SHARE of the run's shared scale: a score that learned 14 to 95 beside a sibling that
    reached 200 swings by its own gain. A rate whose width is under SLIVER_SHARE of its range from its start
    to its bound is measured on that range."""
    if "volatility_width" not in env.cache:
        scale = env_scale(env)
        width = (scale[1] - scale[0]) if scale else 0.0
        if scale is not None and not learned(env):
            width = max(width, held_range(env))
        elif scale is not None:
            own = own_scale(env)
            if own[1] - own[0] < OWN_WIDTH_SHARE * width and _plainly_learned(env, own):
                width = own[1] - own[0]
        best = rate_best(env, env.learning.values) if scale is not None else None
        if best is not None and 0 < width < SLIVER_SHARE * abs(best - scale[0]):  # (none at all: the two-level reading)
            # a rate that learned a sliver of its range (a never-learner's rolling mean wandering 0.005-0.017, plainly
            # apart in so smooth a series) swings on that range, as stagnation measures its progress
            width = abs(best - scale[0])
        env.cache["volatility_width"] = width
    return env.cache["volatility_width"]


def held_range(env: EnvData) -> float:
    """Top minus bottom of the levels the env's learning series held (each kept SUSTAINED_POINTS points in a
    row, outliers aside) when those stand apart beyond the noise (see `learned`), else 0."""
    f = fit(env, "learning")
    kept = f.segments.fit()[~f.segments.outlier]
    if not len(kept):
        return 0.0
    top, bottom = sustained_max(kept, SUSTAINED_POINTS), -sustained_max(-kept, SUSTAINED_POINTS)
    return top - bottom if _stands_out(f, bottom, top, _point_sd(f, top)) else 0.0


def episodes(env: EnvData) -> list[Episode]:
    """Switching episodes of the env's train and eval series (cached)."""
    if "episodes" not in env.cache:
        width = volatility_width(env)
        out = []
        for split in ("train", "eval"):
            if len(getattr(env, split)) >= SWITCH_CHANGES + 1:
                out += switching(env, split, width)
        env.cache["episodes"] = out
    return env.cache["episodes"]


def run_noise_reference(envs: list[EnvData]) -> list[dict]:
    """Per env, the noise its siblings show (for an env whose own series is noisy all its life):
    the median binomial n of the run's other rate series, and the median point noise sd of its other
    envs when they share one scale. Returned in the order of `envs`."""
    trials, sds = [], []
    for env in envs:
        f = fit(env, "learning")
        trials.append(f.noise.trials if f.noise.kind == "binomial" else None)
        sds.append(float(np.median(f.noise.sigma)) if f.noise.kind == "gaussian" and len(f.series) else None)
    out = []
    for k, _env in enumerate(envs):
        t = [x for j, x in enumerate(trials) if j != k and x is not None]
        s = [x for j, x in enumerate(sds) if j != k and x is not None]
        out.append({"trials": float(np.median(t)) if t else None, "sd": float(np.median(s)) if s else None})
    return out
