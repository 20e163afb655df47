"""performance_volatility: performance switches between levels, or swings point to point, far beyond
what its noise explains."""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from ..envdata import EnvData
from ..incidents import Incident, runs_of_true
from ..oscillation import oscillations
from ..bursts import REFINE_GAIN, Burst, burst, second_differences
from ..levels import (HELD_PHASES, NO_RANGE_MIDDLE, RETURN_TOLERANCE, SWITCH_CHANGES, episodes, fit, overlaps, rate_best,
                      switching_after, volatility_width)
from ..segments import OVERDISPERSION, change_ratios, dispersion_of, widening
from ..stats import MEDIAN_ABS_CHANGE, binomial_tail, lag1_correlation, median
from . import register
from .regression import _spans, batch_passing, held_zone, regression_signal, regression_spans

QUIET_QUANTILE = 0.25  # a gaussian series' own noise: the quieter quarter of its windows nearby
NEARBY_BLOCKS = 5  # ... among this many windows on either side (noise may grow with the level)
QUIET_BIAS = 1.5  # the quieter quarter of nearby windows understates the noise (heavy-tailed or clipped
                  # noise spreads its windows more than gaussian noise): the calm reference is this x it
MEDIAN_BIAS = 1.2  # ... or this x the median window nearby, when less (light-tailed noise)
TYPICAL_CAP = 3.0  # ... but never above this x the median window's spread of the whole series
ALTERNATION_CORR = -0.3  # a series this anti-correlated from point to point swings (for the siblings' noise)
TRIM_KEEP = 0.8  # the spread averages the smaller 80 % of a window's changes
BURST_POINTS = 3  # low outliers after graduation: this many points in all ...
BURST_STRETCHES = 2  # ... in this many separate stretches, each within dip_points of the last, are a burst
DEEP_POINTS = 2  # a drop below the critical line this many points in a row, then back, is a dip ...
DEEP_SHARE = 0.5  # ... each keeping less than this share of the gain ...
DEEP_NOISE = 5.0  # ... and this many noise sds below the held level
MOMENT_SHARE = 0.25  # ... in points logged further apart than this x the series' mean interval: closer ones show one
                     # moment of the policy (CleanRL's vectorized envs end their episodes a few steps apart)
CHANCE_RUNS = 0.05  # ... unless the series' lone deep points (its outliers) would make such a run this often by chance
LOW_RUN_RHO = 0.5  # a run of low points is no dip in a series whose noise is autocorrelated this much (it wanders)
LOW_RUN_POINTS = 4  # ... and holds this many points at least (two or three are deep drops' to judge, point by point)
ADJOINING_PHASES = 2  # events this many phases of a switching or oscillating one apart are one event
LIFELONG_PHASES = 6  # switching or oscillation found within this many phases of activation began there ...
BAND_SLACK = 0.5  # ... when the points before it lie at one of its levels (10th-90th percentile within this x the gap)
FIRST_POINTS = 3  # ... or, further from it, when the points before begin at the better level (these many's median)
NEAR_SHARE = 0.9  # ... and this share of them lie at one of its two levels (their running medians of
SMOOTH_POINTS = 5  # this many points)
ONSET_RUN = 6  # swings start at a far change followed by mostly far changes among the next ONSET_RUN
SQRT2 = np.sqrt(2.0)
BURST_Z = 5.5  # a burst's rank statistic must reach this in a series of LONG_SERIES points (white noise of any
               # shape stays under 5.5 up to 8000) ...
BURST_Z_SHORT = 4.5  # ... this in a series of up to SHORT_SERIES points after graduation (sparse evals: white
SHORT_SERIES = 200   # noise of four shapes reaches it 0.0-0.6 % of the time at 40..200 points; 99th
                     # percentile 3.8..4.3) ...
LONG_SERIES = 8000  # ... and in between, a bar rising with the log of the points (the scan's maximum over
                    # noise grows so)
BURST_RATIO = 2.0  # ... its median change this x the rest's ...
BURST_RATIO_WHITE = 1.6  # ... or this x, in a series whose noise is white (its changes' lag-1 correlation
WHITE_CORR = -0.3        # below this; white noise: -0.5, a rolling mean's or a wandering noise's: about 0)
DRIFT_SHARE = 0.25  # ... unless it spans over this share of the points after graduation (a noise level drifting)
DRIFT_EDGE_POINTS = 100  # a burst whose quarters at either end hold this many points or more, its changes there under
                         # BURST_RATIO x those as many points just outside it at both ends, faded in and out: drift
SMOOTHED_PHI = 0.4  # a series whose AR(1) coefficient reaches this is judged whitened too (an EMA of alpha <= 0.6) ...
MAX_PHI = 0.95      # ... the coefficient taken at most this (a random walk's changes are already white) ...
CHANGES_SE = 2.0    # ... where its changes' lag-1 correlation lies this many standard errors below 0
SCATTER_SHIFT = 0.7      # ... when its points' median lies within this x their root mean square of the held level
AS_ONE_SHIFT = 0.95  # a burst whose points' median lies beyond this x that root mean square moved as one: in a
# metric with no bound, a fall that came back (the regression's), not an erratic spell (see incidents.py)
OTHER_POINTS = 3  # a burst's size may be read from the other series' points over its span, this many at least
MEDIAN_SECOND_DIFFERENCE = 1.652  # the median |second difference| of unit noise (sqrt 6 x 0.6745)
FALL_DISPERSION = 1.6  # a fall that came back whose changes disperse this x the rest's scattered: a burst ...
FALL_CHANGES = 6       # ... read from this many of its changes at least
SCATTERED_DISPERSION = 1.3  # ... or this x, where its points' median lies within SCATTERED_SHIFT x their root mean
SCATTERED_SHIFT = 0.92      # square distance from the held level: drops drawn anew at each point (half-normal: the
                            # median near 2/3 of it) — a fall with noise keeps nearly all of it, a ramp 0.87
RATE_SHAPE_CLIP = 0.02  # a rate's noise shape sqrt(p (1 - p)) is read no nearer its bounds than this
FINER = 2.0  # switching read from two series is dated by one with this x the other's changes, its phases 1 / this
ONE_SIDED = 0.8  # a burst whose points far off the held level lie this share or more on one side of it
LONE_LEAD_GAP = 4  # a burst's first point off the level, this many calm points or more before its next one (and
                   # more than between any two of its later ones), is an outlier of the calm noise before it ...
CALM_SE = 3.0  # ... when those calm points' mean lies within this many standard errors of the level held
WAVE_SMOOTH = 3  # a wave's first point off its level is read on running medians of this many points (one noisy point
                 # is no start)
SCATTER_POINTS = 4  # after graduation, this many points off the held level, each within dip_points of the last ...
SCATTER_NOISE = 4.0  # ... each this many noise sds and `threshold` x the range off it (either way), are a burst
SCATTER_CHANCE = 0.01  # ... unless such a group is expected this often by chance (a looser bar than a deep drop's
                       # 5 sds and half the gain finds more groups in heavy-tailed noise: a stricter bound) ...
NEARBY_SPAN = 10  # ... at the rate of points that far off since graduation, or over this x the group's span either
NEARBY_POINTS = 200  # side (at least this many points) where more: a noise level that drifts bunches them where high
REST_CHANGES = 10  # a rate widened for overdispersion is judged against its model where this many changes after
                   # graduation outside the group fit that model
SUSTAINED = ("switching", "oscillation")


@register("performance_volatility", "train or eval performance switches between two levels (at least "
          f"{SWITCH_CHANGES} alternating changes, each over `threshold` x the env's learned range and 4 standard "
          "errors) or swings point to point (robust spread over `window` points above `threshold` x the range and "
          "`noise_factor` x the noise: binomial for rates, or their quieter stretches where more, else the env's quieter stretches or its siblings'); or, "
          "after graduation, a burst (a stretch whose point-to-point changes rank far above the rest's, then calm "
          "again at the same level) or dips below the regression line that recover to the held level within "
          "`dip_points` points; a learning curve, a level shift, a lasting fall and single outliers are not volatility")
def performance_volatility(env: EnvData, s: dict) -> list[Incident]:
    width = volatility_width(env)
    eps = list(episodes(env))
    if env.graduation_step is not None:
        for split in ("train", "eval"):
            if any(e.split == split and e.last_step >= env.graduation_step for e in eps):
                continue  # the whole series' reading already sees switching there
            eps += [ep for ep in switching_after(env, split, width, env.graduation_step)
                    if not overlaps(ep, eps)]
    # an env switching from its first point switches from its activation: points logged while it was
    # locked (evals of a lesson not yet trained) are no part of it
    active_from = next((iv.start_step for iv in env.timeline if iv.state != "locked"), None)
    events = [_switching_event(env, ep, active_from) for ep in eps]
    for split in ("train", "eval"):
        events += _swings(env, split, s, width) + _waves(env, split, width, s["threshold"]) + _bursts(env, split, s, width)
    events += _dips(env, s) + _falls_back(env, s)
    out = []
    for ev in _merged(events):
        if ev["kind"] == "fall":
            continue  # a fall that came back, adjoining no switching or oscillation: the regression rule's
        ev = _from_activation(env, ev, active_from)
        ongoing = ev["last_step"] >= ev["series_last_step"]
        if not ongoing and env.graduation_step is not None and ev["first_step"] < env.graduation_step:
            continue  # began while it learned and was over before the series ended: its learning's noise
        if ev["kind"] == "switching":
            msg = (f"{ev['split']} performance switches between ~{env.show(ev['high']):.3g} and "
                   f"~{env.show(ev['low']):.3g}: {ev['changes']} changes of level from step {ev['first_step']} to "
                   f"{ev['last_step']} (phases of ~{ev['phase_steps']:.0f} steps)")
            evidence = {"series": ev["split"], "kind": "switching", "changes": ev["changes"],
                        "high_level": round(env.show(ev["high"]), 6), "low_level": round(env.show(ev["low"]), 6),
                        "typical_phase_steps": round(ev["phase_steps"], 1)}
        elif ev["kind"] == "oscillation":
            msg = (f"{ev['split']} performance oscillates: peak-to-peak {abs(env.show(ev['high']) - env.show(ev['low'])):.3g} "
                   f"every ~{ev['phase_steps']:.0f} steps from step {ev['first_step']} to {ev['last_step']}")
            evidence = {"series": ev["split"], "kind": "oscillation", "peak_to_peak": round(ev["ptp"], 6),
                        "period_steps": round(ev["phase_steps"], 1), "periods": ev["weight"]}
        elif ev["kind"] == "burst" and ev["z"] is None:
            msg = (f"{ev['split']} performance turned erratic after graduating: {ev['off_points']} of its {ev['points']} "
                   f"points from step {ev['first_step']} to {ev['last_step']} lay far off the level it held "
                   f"(root mean square {ev['spread']:.3g}, {ev['spread'] / width:.0%} of the learned range; lowest "
                   f"{env.show(ev['low']):.4g}), its point-to-point changes {ev['ratio']:.1f}x the rest's, then settled")
            evidence = {"series": ev["split"], "kind": "burst", "change_ratio": round(ev["ratio"], 4),
                        "off_points": ev["off_points"], "points": ev["points"],
                        "rms_from_held_level": round(ev["spread"], 6), "threshold_share_of_range": s["threshold"],
                        "moved_as_one": ev["as_one"]}
        elif ev["kind"] == "burst":
            msg = (f"{ev['split']} performance turned erratic after graduating: its point-to-point changes grew "
                   f"{ev['ratio']:.1f}x from step {ev['first_step']} to {ev['last_step']}, its points {ev['spread']:.3g} "
                   f"(root mean square) from the level it held ({ev['spread'] / width:.0%} of the learned range), "
                   "then settled")
            evidence = {"series": ev["split"], "kind": "burst", "change_ratio": round(ev["ratio"], 4),
                        "rank_z": round(ev["z"], 3), "rms_from_held_level": round(ev["spread"], 6),
                        "threshold_share_of_range": s["threshold"], "moved_as_one": ev["as_one"]}
        elif ev["kind"] == "dip":
            msg = (f"{ev['split']} performance dipped after graduating: fell to {env.show(ev['low']):.4g} "
                   f"(keeping {ev['share']:.0%} of the gain) for {ev['points']} points from step {ev['first_step']} "
                   f"to {ev['last_step']}, then recovered to {env.show(ev['back']):.4g}")
            evidence = {"series": ev["split"], "kind": "dip", "points": ev["points"],
                        "lowest_value": round(env.show(ev["low"]), 6), "lowest_gain_share": round(ev["share"], 4),
                        "recovered_to": round(env.show(ev["back"]), 6), "dip_points": s["dip_points"]}
        else:
            msg = (f"{ev['split']} performance swings from point to point: spread {ev['spread']:.3g} over "
                   f"{s['window']} points where its noise explains {ev['noise']:.3g} "
                   f"({ev['spread'] / ev['noise']:.1f}x), from step {ev['first_step']} to {ev['last_step']}")
            evidence = {"series": ev["split"], "kind": "swings", "robust_sd": round(ev["spread"], 6),
                        "expected_noise_sd": round(ev["noise"], 6), "noise_factor": s["noise_factor"],
                        "threshold_share_of_range": s["threshold"], "window_points": s["window"],
                        "peak_step": ev["peak_step"]}
        out.append(Incident("performance_volatility", env.env_id, "warning", ev["first_step"], ev["last_step"],
                            not ongoing, msg, evidence))
    return out


def _dips(env: EnvData, s: dict) -> list[dict]:
    """A graduated env's falls below the regression line that climb back to its held zone within
    `dip_points` points (regression_spans marks them): a burst of instability that sparse evals catch
    as a few low points, not a lasting regression."""
    sig = regression_signal(env, s["regression"])
    if sig is None:
        return []
    level, ratio = sig["level"], sig["ratio"]
    out = []
    for sp in regression_spans(env, s["regression"]):
        if not sp["dip"]:
            continue
        share = sp.get("core_share")  # a short run of low points inside a longer segment: its own depth
        low = level[sp["lowest"]] if share is None else sig["start"] + share * sig["gain"]
        out.append(_dip(sig, sp["first"], sp["last"], sp["last"] - sp["first"] + 1, low,
                        ratio[sp["lowest"]] if share is None else share, level[sp["back"]]))
    out += _outlier_bursts(sig, s) + _deep_drops(env, sig, s) + _scatter(env, sig, s) + _scattered_falls(env, sig, s)
    out += _low_runs(env, sig, s, out)
    quieter = _quieter_training(env, s, sig)
    return out + ([d for d in _deep_drops(env, quieter, s) if _evals_fell(sig, d, s)] if quieter is not None else [])


def _evals_fell(sig: dict, dip: dict, s: dict) -> bool:
    """Whether the evals over a dip found in training (its first to last step) fell with it: at least one of them
    there, their mean below the regression line. Training's own noise may be smoothed (an EMA of returns, a
    running reward) or exploratory, and its deep drops then the policy's evals never saw."""
    steps = sig["steps"]
    there = (steps >= dip["first_step"]) & (steps <= dip["last_step"])  # outliers too: a dip's few evals may be
    # set apart as outliers of the level around them
    return bool(there.any()) and float(np.mean(sig["raw"][there])) < s["regression"]["regression_threshold"]


def _quieter_training(env: EnvData, s: dict, sig: dict) -> dict | None:
    """The training series' regression signal, where the judged one is evals and training logged at least as
    many points with less noise at its held level, white since graduation: a few evals of one or two episodes each
    (Dopamine's per-iteration eval phase) hide a short deep drop in their own catastrophes that the training
    phase's many episodes show point by point. None otherwise."""
    if sig["series"] != "eval" or len(env.train) < len(env.eval):
        return None
    # first, cheaply: training holds DEEP_POINTS points in a row DEEP_NOISE of its noise sds below its median since
    # graduation, or it shows no dip at all (its own regression signal is not worth reading, nor keeping)
    f = fit(env, "train")
    y = f.series.values[f.series.steps >= sig["graduation_step"]]
    if len(y) <= DEEP_POINTS:
        return None
    level = median(y)
    sd = float(np.max(np.atleast_1d(f.noise.raw_sd(level))))
    if not any(b - a + 1 >= DEEP_POINTS for a, b in runs_of_true(y < level - DEEP_NOISE * sd)):
        return None
    tsig = regression_signal(env, s["regression"], "train")
    if tsig is None:
        return None
    quiet = lambda g: float(np.max(np.atleast_1d(fit(env, g["series"]).noise.raw_sd(g["baseline"]))))  # noqa: E731
    # white noise only: a smoothed (an EMA, a running reward) or wandering training series drifts far from its
    # level for points in a row by itself
    white = _white(tsig["raw"][int(np.argmax(tsig["after"])):])
    return tsig if quiet(tsig) < quiet(sig) and white else None


def _scattered_falls(env: EnvData, sig: dict, s: dict) -> list[dict]:
    """Falls below the regression line that came back (longer than a dip) whose points scattered: their changes
    between neighbours, on the noise model's scale (level-dependent noise taken out), disperse FALL_DISPERSION x
    as much as those after graduation outside them (FALL_CHANGES and REST_CHANGES changes at least; the changes
    into and out of the fall left out) — SCATTERED_DISPERSION x where their median lies within SCATTERED_SHIFT x
    their root mean square distance from the held level (drops drawn anew at each eval: thirty-third corpus's
    Kinetix solve rates of 20 attempts, whose binomial noise hides much of the drops' spread) —, with that
    distance over `threshold` x the range — a burst of bad evaluations below the held level (a policy's misses
    scatter one way), whose low mean the segments read as a lower level. A fall of the level moves its points
    together: their changes are the noise's (twenty-third corpus: JaxUED solve rates of 5-40 attempts, a dozen or
    two scattered evals among hundreds, too few for the rank scan)."""
    width = volatility_width(env)
    if not width > 0:
        return []
    value, noise, _ = _held_noise(env, sig)
    z = np.asarray(noise.z, dtype=np.float64)
    sigma = np.broadcast_to(np.asarray(noise.sigma, dtype=np.float64), z.shape)
    first = int(np.argmax(sig["after"]))
    sigma = sigma * _rate_noise_shape(env, sig["series"], first)
    out = []
    for sp in regression_spans(env, s["regression"]):
        a, b = sp["first"], sp["last"]
        if not sp["resolved"] or sp["dip"] or a <= first:
            continue
        inside, rest = change_ratios(z[a: b + 1], sigma[a: b + 1]), _changes_outside(z, sigma, first, a, b)
        if len(inside) < FALL_CHANGES or len(rest) < REST_CHANGES:
            continue
        # the rest's dispersion never under the model's own (a rate's lattice at its bound hardly changes)
        ratio = dispersion_of(inside) / max(dispersion_of(rest), 1.0)
        if not ratio >= SCATTERED_DISPERSION:
            continue
        spread = float(np.sqrt(np.mean((value[a: b + 1] - sig["baseline"]) ** 2)))
        # its points about the held level, not about a level of their own (a fall whose noise grew with the level
        # it fell to, read as gaussian: a rate over more trials than a lattice shows moves as one), bound or not;
        # a smaller excess of dispersion where they scatter as a burst's drops do, each drawn anew
        shift = abs(median(value[a: b + 1]) - sig["baseline"])
        if not spread > s["threshold"] * width \
                or shift > (AS_ONE_SHIFT if ratio >= FALL_DISPERSION else SCATTERED_SHIFT) * spread:
            continue
        lowest = a + int(np.argmin(sig["raw"][a: b + 1]))
        out.append({"kind": "burst", "split": sig["series"], "first_step": int(sig["steps"][a]),
                    "last_step": int(sig["steps"][b]), "ratio": ratio, "z": None,
                    "spread": spread, "series_last_step": int(sig["steps"][-1]), "weight": 0,
                    "off_points": int(np.count_nonzero(sig["raw"][a: b + 1] < s["regression"]["regression_threshold"])),
                    "points": b - a + 1, "low": float(value[lowest]), "as_one": False})
    return out


def _rate_noise_shape(env: EnvData, split: str, first: int) -> np.ndarray | float:
    """For a rate whose noise model is no binomial one (means over a number of episodes that varies, off any
    lattice: a gaussian of one sd), how its noise sd grows away from its bounds: sqrt(p (1 - p)) at each point's
    segment level (p within RATE_SHAPE_CLIP of a bound at most), over its median from point `first` on; 1 for
    others. A rate that fell from 0.93 to 0.5 is twice as noisy there: its changes are no scatter of its own
    (twenty-fourth corpus: PufferLib's solved rates over 3-45 episodes)."""
    f = fit(env, split)
    if f.noise.kind == "binomial" or rate_best(env, f.series.values) is None or len(f.series) <= first:
        return 1.0
    p = np.clip(np.abs(f.segments.level[f.segments.index_of()]), RATE_SHAPE_CLIP, 1.0 - RATE_SHAPE_CLIP)
    shape = np.sqrt(p * (1.0 - p))
    return shape / median(shape[first:])


def _falls_back(env: EnvData, s: dict) -> list[dict]:
    """A graduated env's falls below the regression line that came back (longer than dips): where one
    adjoins switching or oscillation (see _groups) it is their first low phase, and dates them."""
    sig = regression_signal(env, s["regression"])
    if sig is None:
        return []
    return [dict(_dip(sig, sp["first"], sp["last"], sp["last"] - sp["first"] + 1, sig["level"][sp["lowest"]],
                      sig["ratio"][sp["lowest"]], sig["level"][sp["back"]]), kind="fall", weight=-1)
            for sp in regression_spans(env, s["regression"]) if sp["resolved"] and not sp["dip"]]


def _dip(sig: dict, first: int, last: int, points: int, low: float, share: float, back: float) -> dict:
    """A dip event over points first..last of the regression signal's series."""
    steps = sig["steps"]
    return {"kind": "dip", "split": sig["series"], "first_step": int(steps[first]), "last_step": int(steps[last]),
            "points": int(points), "low": float(low), "share": float(share), "back": float(back),
            "series_last_step": int(steps[-1]), "weight": 0}


def _near_groups(idx: np.ndarray, gap: int) -> list[np.ndarray]:
    """Sorted indices split where consecutive ones lie more than `gap` apart."""
    return np.split(idx, np.flatnonzero(np.diff(idx) > gap) + 1) if len(idx) else []


def _deep_drops(env: EnvData, sig: dict, s: dict) -> list[dict]:
    """Short deep drops after graduation: DEEP_POINTS or more points in a row (outliers too), each keeping
    less than DEEP_SHARE of the gain and DEEP_NOISE noise sds below the held level, at most `dip_points`
    of them, then back above regression_threshold; never inside a regression. A lone bad eval is an outlier and a
    lasting fall a regression; two evals in a row that lost half the gain, far beyond the noise, and came
    back are a burst of instability too short for the regression's `smoothing_window`. So are DEEP_POINTS
    or more such lone points each within `dip_points` of the last, unless the env's other lone deep points
    and its points as far above the held level (contaminated noise's outliers fall either way) make such
    a group likely by chance."""
    r = s["regression"]
    raw = sig["raw"]
    value, _noise, sd = _held_noise(env, sig)
    deep = _deep(sig, value, sd)
    low = sig["after"] & (raw < r["regression_threshold"])  # a dip's shallower points on its way back belong to it
    falls = _falls(env, r, sig)
    out = []
    runs = runs_of_true(deep)
    one = _one_moment(sig["steps"])
    singles = np.array([a for a, b in runs if one(a, b)], dtype=np.int64)  # lone deep points (one moment)
    held = np.concatenate([[0], np.cumsum(sig["after"])])
    # the env's other series shows its noise's outliers too: sparse evals hold too few to tell contaminated
    # noise, the dense train series beside them does
    other = "train" if sig["series"] == "eval" else "eval"
    other_rate = lambda: _lone_deep_rate(env, s, other)  # noqa: E731 - read only for a candidate (a signal per series)
    for a, b in runs:
        if one(a, b):
            continue  # a lone deep point, or a few logged at one moment: an outlier of the policy, no dip
        if b - a + 1 >= DEEP_POINTS:
            while b + 1 < len(raw) and low[b + 1]:
                b += 1
        if not DEEP_POINTS <= b - a + 1 <= s["dip_points"] or b + 1 >= len(raw) \
                or not raw[b + 1] >= r["regression_threshold"] or any(f0 <= b and a <= f1 for f0, f1 in falls):
            continue
        if sig["series"] in env.cache.get("rolling_mean_splits", ()):
            a0 = a
            while a0 > 0 and low[a0 - 1]:  # its shallower points on the way down too
                a0 -= 1
            if batch_passing(sig, a0, b, held_zone(r)):
                continue  # one extreme batch of episodes passing a rolling mean's window
        n_held = int(held[-1])
        if n_held and n_held * max(len(singles) / n_held, other_rate(), _nearby_rate(singles, a, b, s["dip_points"],
                                                                                      int(np.argmax(sig["after"])), len(raw))) \
                ** int(np.count_nonzero(deep[a: b + 1])) > CHANCE_RUNS:
            continue  # the env's lone deep points (all its life after graduation, or nearby where more: a noise
            # level that drifts bunches them where it runs high) come often enough that such a run among them is chance
        lowest = a + int(np.argmin(raw[a: b + 1]))
        out.append(_dip(sig, a, b, b - a + 1, value[lowest], raw[lowest], value[b + 1]))
    # lone deep points that come back within dip_points of each other: a burst that sparse evals catch
    # one bad eval at a time — unless the env's other lone deep points make such a group likely by chance
    n_held = int(held[-1])
    # outliers as far above the held level tell contaminated noise, whose outliers fall either way
    above = np.count_nonzero(sig["after"] & (value - sig["baseline"] > DEEP_NOISE * sd))
    for g in _near_groups(singles, s["dip_points"]):
        if len(g) < DEEP_POINTS or any(f0 <= g[-1] and g[0] <= f1 for f0, f1 in falls):
            continue
        if _group_by_chance(g, n_held, max((len(singles) - len(g) + above) / max(n_held - len(g), 1), other_rate())):
            continue
        lowest = int(g[np.argmin(raw[g])])
        out.append(_dip(sig, g[0], g[-1], len(g), value[lowest], raw[lowest], value[min(int(g[-1]) + 1, len(raw) - 1)]))
    return out


def _low_runs(env: EnvData, sig: dict, s: dict, found: list[dict]) -> list[dict]:
    """Short falls the segments did not cut out (one short stretch in the middle of a long calm segment moves no
    single cut enough; the regression rule scans for such stretches from HIDDEN_MIN_POINTS up): after graduation,
    LOW_RUN_POINTS up to `dip_points` points in a row below the regression line, then back above it, whose mean keeps
    less than DEEP_SHARE of the gain and lies DEEP_NOISE standard errors of that mean below the held level (each
    point alone may be within its noise: six evals of five episodes at 0.15 after holding 0.85) — unless the
    env's points below the line come often enough that such a run among them is chance (n x q^k over CHANCE_RUNS),
    or in the env's other series' lone deep points, or its noise wanders (a run of low points is then no surprise).
    Not where a dip was already found."""
    r = s["regression"]
    raw, after = sig["raw"], sig["after"]
    n_held = int(np.count_nonzero(after))
    f = fit(env, sig["series"])
    if n_held < 2 * s["dip_points"] or f.segments.rho > LOW_RUN_RHO \
            or sig["series"] in env.cache.get("rolling_mean_splits", ()):
        return []
    value, _noise, sd = _held_noise(env, sig)
    low = after & (raw < r["regression_threshold"])
    falls = _falls(env, r, sig)
    steps = sig["steps"]
    taken = [(d["first_step"], d["last_step"]) for d in found if d["split"] == sig["series"]]
    out = []
    for a, b in runs_of_true(low):
        k = b - a + 1
        if not LOW_RUN_POINTS <= k <= s["dip_points"] or b + 1 >= len(raw) or a == 0 or not after[a - 1] \
                or any(f0 <= b and a <= f1 for f0, f1 in falls) \
                or any(t0 <= steps[b] and steps[a] <= t1 for t0, t1 in taken):
            continue
        if not float(np.mean(raw[a: b + 1])) < DEEP_SHARE:
            continue
        if not sig["baseline"] - float(np.mean(value[a: b + 1])) > DEEP_NOISE * float(np.median(sd[a: b + 1])) / math.sqrt(k):
            continue
        # the env's other series shows its noise's outliers too, where these sparse points hold too few (_deep_drops)
        q = max((int(np.count_nonzero(low)) - k) / max(n_held - k, 1),
                _lone_deep_rate(env, s, "train" if sig["series"] == "eval" else "eval"))
        if n_held * q ** k > CHANCE_RUNS:
            continue
        lowest = a + int(np.argmin(raw[a: b + 1]))
        out.append(_dip(sig, a, b, k, value[lowest], raw[lowest], value[b + 1]))
    return out


def _falls(env: EnvData, r: dict, sig: dict) -> list[tuple[int, int]]:
    """The first and last point of each fall below the regression line in `sig`'s series that is no dip."""
    judged = sig["series"] == regression_signal(env, r)["series"]
    return [(sp["first"], sp["last"]) for sp in (regression_spans(env, r) if judged else _spans(env, r, sig))
            if not sp["dip"]]


def _neighbourhood(a: int, b: int, first: int, n: int) -> tuple[int, int]:
    """The points near a stretch a..b of a series of n: NEARBY_SPAN x its length either side, at least
    NEARBY_POINTS, from `first` on (lo, hi: a slice)."""
    reach = max(NEARBY_SPAN * (b - a + 1), NEARBY_POINTS)
    return max(first, a - reach), min(n, b + reach + 1)


def _nearby_rate(singles: np.ndarray, a: int, b: int, gap: int, first: int, n: int) -> float:
    """The share of lone deep points among the points near a run a..b of n (_neighbourhood), leaving out those
    within `gap` of it (the same burst's)."""
    lo, hi = _neighbourhood(a, b, first, n)
    near = (singles >= lo) & (singles < hi) & ((singles < a - gap) | (singles > b + gap))
    return float(np.count_nonzero(near)) / max(hi - lo - (b - a + 1), 1)


def _one_moment(steps: np.ndarray):
    """A test of points a..b of a series at `steps`: whether they are one point, or were logged closer together than
    MOMENT_SHARE x the series' mean interval — one moment of the policy, however many episodes ended in it (CleanRL
    logs each episode's return at the global step it ended: its vectorized envs end theirs a few steps apart, and
    one bad update makes two or more deep points at once)."""
    pace = float(steps[-1] - steps[0]) / (len(steps) - 1) if len(steps) > 1 else 0.0
    return lambda a, b: a == b or float(steps[b] - steps[a]) < MOMENT_SHARE * pace


def _deep(sig: dict, value: np.ndarray, sd: np.ndarray) -> np.ndarray:
    """The regression signal's points after graduation DEEP_NOISE noise sds below the held level and keeping
    less than DEEP_SHARE of the gain (`value`, `sd`: its points and their noise, from _held_noise)."""
    return sig["after"] & (sig["baseline"] - value > DEEP_NOISE * sd) & (sig["raw"] < DEEP_SHARE)


def _lone_deep_rate(env: EnvData, s: dict, split: str) -> float:
    """The share of `split`'s points after graduation that are lone deep points (0 without such a series).
    Cached on the env."""
    key = "lone_deep_rate:" + split
    if key not in env.cache:
        env.cache[key] = _lone_deep_rate_of(env, s, split)
    return env.cache[key]


def _lone_deep_rate_of(env: EnvData, s: dict, split: str) -> float:
    if not len(getattr(env, split)):
        return 0.0
    sig = regression_signal(env, s["regression"], split)
    if sig is None or not sig["after"].any():
        return 0.0
    value, _noise, sd = _held_noise(env, sig)
    one = _one_moment(sig["steps"])
    lone = [a for a, b in runs_of_true(_deep(sig, value, sd)) if one(a, b)]
    return len(lone) / int(np.count_nonzero(sig["after"]))


def _scatter(env: EnvData, sig: dict, s: dict) -> list[dict]:
    """A burst read from its points rather than their ranks: after graduation, SCATTER_POINTS or more points
    each SCATTER_NOISE noise sds and `threshold` x the range off the held level (above or below), each within
    `dip_points` of the last, whose changes between neighbours (on the noise model's scale) are BURST_RATIO x
    the rest's, BURST_RATIO_WHITE x in white noise (a fall or a level shift moves its points together, a burst scatters them), with the median
    of the `min_points` points after it back in the held zone, unless the env's other points that far off
    make such a group likely by chance. A rank scan weighs each large change no more than the top of the
    noise: a burst of twenty evals in a few hundred ranks too little, though every other point of it lies far
    off the level. A binomial rate widened for overdispersion is judged against its model itself where its
    points after graduation outside the group are no wider than the model: twenty bad evals among sixty
    widen the whole series' noise by half, and then lie within it."""
    width = volatility_width(env)
    if not width > 0 or not s["dip_points"]:
        return []
    value, noise, sd = _held_noise(env, sig)
    widened = widening(noise)
    if widened > 1.0:  # the model's own reading where the rest fits it: its noise dates the burst too
        found = _scattered(env, sig, s, width, value, noise, sd / widened, widened,
                           lambda a, b: _model_fits_rest(sig, noise, widened, a, b))
        if found:
            return found
    return _scattered(env, sig, s, width, value, noise, sd, 1.0)


def _scattered(env: EnvData, sig: dict, s: dict, width: float, value: np.ndarray, noise, sd: np.ndarray,
               widened: float, accept=None) -> list[dict]:
    """_scatter's groups with each point's noise sd `sd` (the model's widened `widened` x: 1 as fitted)."""
    r = s["regression"]
    raw, after = sig["raw"], sig["after"]
    off = after & (np.abs(value - sig["baseline"]) > np.maximum(SCATTER_NOISE * sd, s["threshold"] * width))
    idx = np.flatnonzero(off)
    n_after = int(np.count_nonzero(after))
    first = int(np.argmax(after))
    # on the noise's own scale: a rate that fell is noisier there (its model's, or the shape of a rate's noise)
    shape = np.broadcast_to(_rate_noise_shape(env, sig["series"], first), np.shape(noise.z))
    change = np.abs(np.diff(noise.z)) / np.sqrt((shape[1:] ** 2 + shape[:-1] ** 2) / 2)
    # white noise's changes are independent: a smaller excess stands out there, as for a rank-found burst
    ratio = BURST_RATIO_WHITE if _white(value[first:]) else BURST_RATIO
    out = []
    for g in _near_groups(idx, s["dip_points"]):
        g = g[_lone_lead(g, value - sig["baseline"], sd):]
        a, b = int(g[0]), int(g[-1])
        tail = raw[b + 1: b + 1 + s["min_points"]]
        if len(g) < SCATTER_POINTS or len(tail) < s["min_points"] or not median(tail) >= held_zone(r):
            continue
        inside = change[a: b]
        rest = np.concatenate([change[first: a], change[b:]])
        # the rest's changes, never below what the noise model makes of a change (a rate's lattice at its bound
        # hardly changes at all: a fall away from it shows the model's full noise)
        calm = max(median(rest), MEDIAN_ABS_CHANGE * median(np.asarray(noise.sigma, dtype=np.float64)) / widened)
        if not len(rest) or not median(inside) >= ratio * calm:
            continue  # its points moved together: a fall or a shift, not a burst
        rate = (len(idx) - len(g) + 1) / max(n_after - len(g), 1)
        # ... or nearby, where more (a noise level that drifts makes far points bunch where it runs high)
        lo, hi = _neighbourhood(a, b, first, len(raw))
        near = int(np.count_nonzero((idx >= lo) & (idx < hi))) - len(g)
        rate = max(rate, (near + 1) / max(hi - lo - len(g), 1))
        if _group_by_chance(g, n_after, rate, SCATTER_CHANCE) \
                or _chain_by_chance(len(g), n_after, rate, s["dip_points"], SCATTER_CHANCE):
            continue  # the env's other points that far off (heavy-tailed noise) make such a group now and then
        if accept is not None and not accept(a, b):
            continue
        lowest = a + int(np.argmin(raw[a: b + 1]))
        spread = float(np.sqrt(np.mean((value[a: b + 1] - sig["baseline"]) ** 2)))
        out.append({"kind": "burst", "split": sig["series"], "first_step": int(sig["steps"][a]),
                    "last_step": int(sig["steps"][b]), "ratio": float(median(inside) / calm),
                    "z": None, "spread": spread, "series_last_step": int(sig["steps"][-1]), "weight": 0,
                    "off_points": len(g), "points": b - a + 1, "low": float(value[lowest]),
                    "as_one": _as_one(env, value, value[a: b + 1], float(sig["baseline"]), spread)})
    return out


def _model_fits_rest(sig: dict, noise, widened: float, a: int, b: int) -> bool:
    """Whether the series' points after graduation outside a..b (and the point either side of it) change no
    more than the binomial model itself says (within OVERDISPERSION, over REST_CHANGES changes or more)."""
    z = np.asarray(noise.z, dtype=np.float64)
    sigma = np.broadcast_to(np.asarray(noise.sigma, dtype=np.float64) / widened, z.shape)
    ratios = _changes_outside(z, sigma, int(np.argmax(sig["after"])), a, b)
    return len(ratios) >= REST_CHANGES and dispersion_of(ratios) <= OVERDISPERSION


def _changes_outside(z: np.ndarray, sigma: np.ndarray, first: int, a: int, b: int) -> np.ndarray:
    """change_ratios of a series from point `first` (graduation) to its end outside points a..b, the changes into
    and out of them left out."""
    return np.concatenate([change_ratios(z[first: a], sigma[first: a]), change_ratios(z[b + 1:], sigma[b + 1:])])


def _chain_by_chance(k: int, n: int, rate: float, gap: int, bound: float) -> bool:
    """Whether a chain of k points, each within `gap` of the last, among n at `rate` each, is expected more than
    `bound` times by chance (however close together they came: the chain is what was looked for)."""
    return n * rate * (1.0 - (1.0 - rate) ** gap) ** (k - 1) > bound


def _held_noise(env: EnvData, sig: dict):
    """The regression signal's points in the series' own units, its noise model, and each point's noise sd
    for judging it against the held level: the larger of the held level's and its own (a rate is noisier
    away from its bound)."""
    value = sig["start"] + sig["raw"] * sig["gain"]
    noise = fit(env, sig["series"]).noise
    sd = np.maximum(np.atleast_1d(noise.raw_sd(sig["baseline"])), np.atleast_1d(noise.raw_sd(value)))
    if noise.relative is not None:  # a point over fewer trials than the typical one is noisier
        sd = sd * noise.relative
    return value, noise, sd


def _group_by_chance(g: np.ndarray, n: int, rate: float, bound: float = CHANCE_RUNS) -> bool:
    """Whether len(g) points as close together as g (indices), among n at `rate` each, are expected more than
    `bound` times by chance."""
    return n * math.comb(int(g[-1] - g[0]) + 1, len(g)) * rate ** len(g) > bound


def _outlier_bursts(sig: dict, s: dict) -> list[dict]:
    """Low outliers that come back again and again: after graduation, points the segmentation set apart
    as outliers (too short to be a level of their own) below the regression line, in at least
    BURST_STRETCHES separate stretches each within `dip_points` points of the last, and at least
    BURST_POINTS points in all. Sparse evals catch a burst of instability as a few bad evals between good
    ones; one bad eval, or two, is an outlier."""
    steps, raw = sig["steps"], sig["raw"]
    low = np.flatnonzero(sig["outlier"] & sig["after"] & (raw < s["regression"]["regression_threshold"]))
    if len(low) < BURST_POINTS or not s["dip_points"]:
        return []
    out = []
    n_after = int(np.count_nonzero(sig["after"]))
    for g in _near_groups(low, s["dip_points"]):
        stretches = 1 + int(np.sum(np.diff(g) > 1))
        if len(g) < BURST_POINTS or stretches < BURST_STRETCHES:
            continue
        if _group_by_chance(g, n_after, (len(low) - len(g)) / max(n_after - len(g), 1)):
            continue  # the env's other low outliers come often enough that such a group among them is chance
        lowest = int(g[np.argmin(raw[g])])
        out.append(_dip(sig, g[0], g[-1], len(g), sig["start"] + raw[lowest] * sig["gain"], raw[lowest],
                        sig["level"][min(int(g[-1]) + 1, len(steps) - 1)]))
    return out


def _waves(env: EnvData, split: str, width: float, threshold: float) -> list[dict]:
    """Sustained oscillation of `split` (see curriwatch.oscillation): over the whole series and, for a
    graduated env, from graduation on (a wave that starts late is a small share of the whole); each dated from its
    first point off the level before it (see _first_off_level)."""
    f = fit(env, split)
    y, steps = f.series.values, f.series.steps
    if len(y) < 2:
        return []
    if not width > 0:
        # a wave all its life leaves no learned range (segmentation reads a fast wave as noise about one
        # level): a rate's range is [0, 1]; any other metric's wave is judged against its noise alone
        width = 1.0 if rate_best(env, y) is not None else 0.0
    at_level = np.atleast_1d(f.noise.raw_sd(f.segments.fit()))
    noise = median(at_level)
    # means over numbers of trials that vary: each point's own noise
    local = at_level * f.noise.relative if f.noise.relative is not None else None
    held_from = int(np.searchsorted(steps, env.graduation_step, "left")) if env.graduation_step is not None else 0
    found = oscillations(y, noise, width, local=local)
    if env.graduation_step is not None and not found:
        found = oscillations(y, noise, width, held_from, local=local)
    dt = f.series.median_interval() or 1.0
    out = []
    for o in found:
        mid = float(np.median(y[o.first: o.last + 1]))
        first = _first_off_level(y, o, threshold * width, held_from)
        out.append({"kind": "oscillation", "split": split, "first_step": int(steps[first]),
                    "last_step": int(steps[o.last]), "high": mid + o.peak_to_peak / 2, "low": mid - o.peak_to_peak / 2,
                    "ptp": o.peak_to_peak, "phase_steps": o.period * dt, "series_last_step": int(steps[-1]),
                    "weight": int((o.last - o.first + 1) / o.period),
                    # half a period on from its start, in its points (a pace that slows where the env is calm
                    # spans half a period in more steps there than the median interval says)
                    "half_period_step": int(steps[min(o.first + int(round(o.period / 2)), len(steps) - 1)])})
    return out


def _first_off_level(y: np.ndarray, o, off: float, held_from: int) -> int:
    """Where oscillation `o` began: the first point from half a period before its envelope reached half height
    whose running median of WAVE_SMOOTH points lies over `off` (`threshold` x the range) from the level before it
    (the median of the period before that, from `held_from` on — graduation: a learning rise is no level), as a
    burst or a fall is dated by its first point off. The envelope, a mean over a period, rises over a whole period
    and reaches half height where the wave begins, a few points before a slow wave's first half period takes it
    that far off. Its own start when no such level or point is found (a wave from the series' start, no range)."""
    half = int(round(o.period / 2))
    a0 = max(o.first - half, 0)
    lo = max(a0 - int(round(o.period)), held_from if held_from < a0 - WAVE_SMOOTH else 0)
    if not off > 0 or a0 - lo < WAVE_SMOOTH:
        return o.first
    level = median(y[lo:a0])
    k = WAVE_SMOOTH // 2
    first, end = max(a0, k), min(o.last + 1, len(y) - k)  # points with WAVE_SMOOTH points about them
    if end <= first:
        return o.first
    around = np.median(np.lib.stride_tricks.sliding_window_view(y[first - k: end + k], WAVE_SMOOTH), axis=1)
    off_at = np.abs(around - level) > off
    if off_at[0]:
        return o.first  # off where the search begins: the points before were no level (a rise, the wave itself)
    return first + int(np.argmax(off_at)) if off_at.any() else o.first


def _bursts(env: EnvData, split: str, s: dict, width: float) -> list[dict]:
    """After graduation, a stretch of at least `min_points` points whose point-to-point changes (second
    differences, on the noise model's scale) rank far above the rest of the series (see
    curriwatch.bursts): BURST_Z, BURST_RATIO x the rest's median change, its points' (or the other
    series' points over its span) root mean square distance from the level held before it over
    `threshold` x the learned range, `min_points` calm points or more after graduation before
    it and after it, at one level (within `threshold` x the range: a lasting change of noise comes with
    a change of level, a regression's); for a binomial rate, a spread over `noise_factor` x the model's
    noise at its level."""
    f = fit(env, split)
    if env.graduation_step is None or not width > 0:
        return []
    steps = f.series.steps
    g = int(np.searchsorted(steps, env.graduation_step, "left"))
    k = s["min_points"]
    z_min = burst_z_min(len(steps) - g)
    scanned = f.noise.z[g:]  # the series b was found on (its indices count from `offset` in the series)
    b = burst(scanned, k, k, z_min)
    shape, offset = f.series.values, g  # the points a burst's scatter is judged on, and where b's indices start
    white = _white(f.series.values[g:])
    if (b is None or b.ratio < BURST_RATIO) and not white and f.noise.kind != "binomial":
        # smoothed noise (a trainer's exponential moving average: AR(1)) blurs a burst's changes into their
        # neighbours and its scatter into a dip: its changes whitened show it as the raw points would
        u = _prewhitened(scanned)
        if u is not None and _white(u):
            bw = burst(u, k, k, z_min - REFINE_GAIN)
            if bw is not None and bw.ratio >= BURST_RATIO_WHITE:
                # the rank statistic of either reading (whitening halves a burst's first and last changes)
                if b is not None and b.first <= bw.last + 1 and bw.first + 1 <= b.last:
                    bw = Burst(bw.first, bw.last, max(bw.z, b.z), bw.ratio)
                b, white, offset, scanned = bw, True, g + 1, u
                shape = np.concatenate([np.full(g + 1, np.nan), u])
    if b is None or not (b.z >= z_min and b.ratio >= BURST_RATIO_WHITE):
        return []
    if _faded(scanned, b, k):
        return []
    moderate = b.ratio < BURST_RATIO
    a, e = offset + b.first, offset + b.last
    if moderate and (not white or e - a + 1 > DRIFT_SHARE * (len(steps) - g)):
        return []  # (a quarter of the series or more whose changes grew less than 2 x: its noise level drifting)
    if f.noise.kind == "binomial":
        # its changes beyond what the binomial model itself makes too: a rate's lattice at its bound hardly
        # changes, and a fall away from it shows the model's full noise, which ranks as high as a burst
        # against those zeros
        inside = median(second_differences(f.noise.z[max(g, a - 1): e + 2]))
        if not inside >= BURST_RATIO * MEDIAN_SECOND_DIFFERENCE * median(np.asarray(f.noise.sigma, dtype=np.float64)):
            return []
    y = f.series.values
    if a - g < k:
        return []
    m = max(k, e - a + 1)  # as long a calm as the burst on each side (a level it fell to shows over time)
    before = median(y[max(g, a - m): a])
    spread = float(np.sqrt(np.mean((y[a: e + 1] - before) ** 2)))  # how far its points fall from the level held
    if moderate:
        held = median(shape[max(offset, a - m): a])
        if abs(median(shape[a: e + 1]) - held) > SCATTER_SHIFT * float(np.sqrt(np.mean((shape[a: e + 1] - held) ** 2))):
            return []  # its points moved together, their noise grown with the level they fell to: a fall's
    as_one = _as_one(env, y, y[a: e + 1], before, spread)
    if not spread > s["threshold"] * width:
        # a smoothed series (SB3's 100-episode mean) shows a burst's rhythm but not its size: the other
        # series' points over the same steps may
        other = fit(env, "eval" if split == "train" else "train").series
        oa, oe = np.searchsorted(other.steps, [steps[a], steps[e]], side="left")
        og = int(np.searchsorted(other.steps, env.graduation_step, "left"))
        if oe - oa >= OTHER_POINTS and oa - og >= OTHER_POINTS:
            held = median(other.values[max(og, oa - max(k, oe - oa)): oa])
            spread = max(spread, float(np.sqrt(np.mean((other.values[oa: oe] - held) ** 2))))
    if not spread > s["threshold"] * width:
        return []
    if abs(before - median(y[e + 1: e + 1 + m])) > s["threshold"] * width:
        return []  # calm at another level after it: noise that changed with the level (a regression's)
    if f.noise.kind == "binomial":  # a rate nearer 0.5 is noisier: the model's noise there must not explain it
        model = np.max(f.noise.raw_sd(np.array([before, median(y[a: e + 1])])))
        if not spread > s["noise_factor"] * model:
            return []
    return [{"kind": "burst", "split": split, "first_step": int(steps[_first_off(f, y, a, e, before)]),
             "last_step": int(steps[e]), "ratio": b.ratio, "z": b.z, "spread": spread,
             "series_last_step": int(steps[-1]), "weight": 0, "as_one": as_one}]


def _faded(z: np.ndarray, b: Burst, k: int) -> bool:
    """Whether a long burst (points b.first..b.last of z) came and went gradually: its changes over the first
    and the last quarter of it (DRIFT_EDGE_POINTS or more each) are under BURST_RATIO x those over as many
    points just outside it (at least k), at both ends. Noise that grows abruptly (an unstable update, a bad
    batch of levels) shows at one end at least; a noise level that drifts over thousands of points leaves
    no edge where the scan set one (eighteenth corpus long_drift: stretches 1,000-2,000 points long whose
    ends are 0.8-1.6 x the changes beside them; long bursts elsewhere, 2.3 x or more at one end)."""
    m = (b.last - b.first + 1) // 4
    if m < DRIFT_EDGE_POINTS or min(b.first, len(z) - 1 - b.last) < max(k, 3):
        return False

    def size(lo: int, hi: int) -> float:
        return median(second_differences(z[max(lo, 0): min(hi, len(z))]))

    ends = ((size(b.first, b.first + m), size(b.first - m, b.first)),
            (size(b.last + 1 - m, b.last + 1), size(b.last + 1, b.last + 1 + m)))
    return all(outside > 0 and inside < BURST_RATIO * outside for inside, outside in ends)


def _first_off(f, y: np.ndarray, a: int, e: int, before: float) -> int:
    """Where a burst found by its ranks (points a..e) began: when its points off the level held before it (by
    over SCATTER_NOISE noise sds there) lie on one side of it (ONE_SIDED of them or more: scatter below a level
    a policy held), its first such point — the scan's ends split the changes' sizes where they grow, a few calm
    points before the first one far off —, but for a lead of lone outliers (_lone_lead); else a (noise that grew
    on both sides of the level begins where its sizes grew)."""
    inside = y[a: e + 1] - before
    off = np.flatnonzero(np.abs(inside) > SCATTER_NOISE * float(np.max(np.atleast_1d(f.noise.raw_sd(before)))))
    if not len(off) or max(np.mean(inside[off] < 0), np.mean(inside[off] > 0)) < ONE_SIDED:
        return a
    return a + int(off[_lone_lead(off, inside, np.max(np.atleast_1d(f.noise.raw_sd(before))))])


def _lone_lead(off: np.ndarray, dev: np.ndarray, sd) -> int:
    """How many of a burst's first points off the level (indices into dev, each point's distance from the level
    held, of noise sd `sd`: one or per point) are lone outliers of the calm noise before it: each LONE_LEAD_GAP calm points or more
    before the next one, further from it than any two later ones are from each other, those calm points about the
    level (their mean within CALM_SE standard errors of it: a one-sided burst's milder points lie below it too),
    while SCATTER_POINTS remain (eighteenth corpus long_drift: a Student-t outlier 5-7 points before a burst dated
    it from there)."""
    calm = np.diff(off) - 1  # the calm points between neighbouring points off the level
    sd = np.broadcast_to(sd, dev.shape)
    lead = 0
    while len(off) - lead - 1 >= SCATTER_POINTS and calm[lead] >= LONE_LEAD_GAP and calm[lead] > calm[lead + 1:].max():
        between = slice(off[lead] + 1, off[lead + 1])
        if abs(float(np.mean(dev[between]))) > CALM_SE * float(np.sqrt(np.mean(sd[between] ** 2) / calm[lead])):
            break
        lead += 1
    return lead


def _as_one(env: EnvData, y: np.ndarray, inside: np.ndarray, held: float, spread: float) -> bool:
    """Whether a burst's points moved as one: their median over AS_ONE_SHIFT x their root mean square
    distance from the held level away from it (their spread about it a third of that distance or less) —
    a fall whose noise grew with the level it fell to — in a metric with no bound (a rate's burst near
    its bound swings one way, and its noise is bounded too)."""
    return bool(abs(median(inside) - held) > AS_ONE_SHIFT * spread and rate_best(env, y) is None)


def _prewhitened(z: np.ndarray) -> np.ndarray | None:
    """z[t] - phi z[t-1] with phi its AR(1) coefficient read from its changes' lag-1 correlation c (an AR(1)
    series' changes correlate at -(1 - phi)/2: phi = 1 + 2c), or None where phi is under SMOOTHED_PHI (no
    smoothing to undo) or c does not stand out of chance (CHANGES_SE standard errors of 1/sqrt(n) below 0: a
    rolling mean's changes are uncorrelated short of its window, and its 100-episode memory is no AR(1)). An
    exponential moving average of white noise is AR(1) with phi = 1 - alpha."""
    d = np.diff(np.asarray(z, dtype=np.float64))
    if len(d) < 3:
        return None
    c = lag1_correlation(d - float(np.mean(d)))
    phi = min(1.0 + 2.0 * c, MAX_PHI)
    return z[1:] - phi * z[:-1] if phi >= SMOOTHED_PHI and c < -CHANGES_SE / np.sqrt(len(d)) else None


def _white(y: np.ndarray) -> bool:
    """Whether a series' noise is white: its changes' lag-1 correlation is below WHITE_CORR (each point's
    own noise enters two changes with opposite signs). Smoothed or wandering noise has correlated ranks of
    second differences that a moderately larger spread can come from."""
    d = np.diff(np.asarray(y, dtype=np.float64))
    return lag1_correlation(d - float(np.mean(d)) if len(d) else d) < WHITE_CORR


def burst_z_min(n: int) -> float:
    """The rank statistic a burst must reach in a series of n points after graduation: BURST_Z_SHORT up to
    SHORT_SERIES points, BURST_Z from LONG_SERIES, linear in log n between (white noise of five shapes,
    150 series each: a 99th percentile of 4.0-4.7 at 300-2,000 points, 4.4-4.8 at 5,000)."""
    if n <= SHORT_SERIES:
        return BURST_Z_SHORT
    share = np.log(n / SHORT_SERIES) / np.log(LONG_SERIES / SHORT_SERIES)
    return float(min(BURST_Z, BURST_Z_SHORT + (BURST_Z - BURST_Z_SHORT) * share))


def _switching_event(env: EnvData, ep, active_from: int | None) -> dict:
    first = ep.first_step
    if active_from is not None and first < active_from <= ep.last_step:
        first = active_from
    series = getattr(env, ep.split)
    v = series.values[(series.steps >= ep.first_step) & (series.steps <= ep.last_step)]
    third = (ep.high - ep.low) / 3
    # a square wave: its points lie at its two levels, next to none in the middle third between them (a
    # smooth wave spends a fifth of its time there)
    square = bool(len(v)) and float(np.mean((v > ep.low + third) & (v < ep.high - third))) <= NO_RANGE_MIDDLE
    if ep.split in env.cache.get("rolling_mean_splits", ()):
        square = None  # a rolling mean crosses the middle on every change, whatever the switching's shape
    return {"kind": "switching", "split": ep.split, "first_step": first, "last_step": ep.last_step,
            "changes": ep.changes, "high": ep.high, "low": ep.low, "phase_steps": ep.phase_steps,
            "series_last_step": ep.series_last_step, "weight": ep.changes, "square": square, "points": len(v),
            "from_series_start": bool(len(series)) and ep.first_step <= int(series.steps[0])}


@lru_cache(maxsize=None)
def _swing_constant(window: int) -> float:
    """E[swing spread] for unit Gaussian noise at this window (a fixed-seed simulation), so the
    spread reads as a standard deviation."""
    rng = np.random.default_rng(12345)
    d = np.sort(np.abs(np.diff(rng.normal(size=(4000, window)), axis=1)), axis=1)
    return float(d[:, : _kept(window - 1)].mean())


def _kept(m: int) -> int:
    """How many of m changes the spread averages: the smaller TRIM_KEEP of them."""
    return max(1, int(round(TRIM_KEEP * m)))


def swing_spread(values: np.ndarray, window: int) -> np.ndarray:
    """At each point, the spread of the last `window` points' changes between neighbours as a noise
    sd (NaN before a full window): the mean of the smaller TRIM_KEEP of the changes. Changes between
    neighbours ignore trends and single steps; leaving the largest fifth out means outliers (each
    makes two large changes) and heavy-tailed noise cannot fire, while swings at most points do."""
    n = len(values)
    out = np.full(n, np.nan)
    m = window - 1
    if n < window:
        return out
    d = np.abs(np.diff(values))
    windows = np.sort(np.lib.stride_tricks.sliding_window_view(d, m), axis=1)
    out[window - 1:] = windows[:, : _kept(m)].mean(axis=1) / _swing_constant(window)
    return out


def _swings(env: EnvData, split: str, s: dict, width: float) -> list[dict]:
    """Stretches of at least `min_points` points where the point-to-point spread is beyond both
    `threshold` x the env's range and `noise_factor` x the noise the series should have."""
    f = fit(env, split)
    y = f.series.values
    window = s["window"]
    if len(y) < max(window, s["min_points"]) or not width > 0:
        return []
    # the spread (a trimmed mean of changes) never exceeds the window's plain mean of changes / TRIM_KEEP:
    # where even that stays under the threshold nothing can fire (most series), and nothing is sorted
    d = np.abs(np.diff(y))
    c = np.concatenate([[0.0], np.cumsum(d)])
    bound = (c[window - 1:] - c[: len(c) - window + 1]) / _kept(window - 1) / _swing_constant(window)
    if not (bound > s["threshold"] * width).any():
        return []
    spread = swing_spread(y, window)
    noise = _expected_noise(env, f, spread, window)
    with np.errstate(invalid="ignore"):
        # a series flat at one value but for a few blips (its calm windows all still) shows no noise to judge
        # swings against: its blips are outliers
        fire = (spread > s["threshold"] * width) & (spread > s["noise_factor"] * noise) & (noise > 0)
    out = []
    steps = f.series.steps
    big = np.abs(np.diff(y)) > s["threshold"] * width  # changes the size swings are made of
    for i0, i1 in runs_of_true(fire):
        if i1 - i0 + 1 < s["min_points"]:
            continue
        if _by_chance(big, max(0, i0 - window + 1), i1):
            continue  # heavy-tailed noise (a rate's rare deep drops) bunches its big changes now and then
        # onset: in the first firing window, the first change far beyond the noise from which on most
        # changes are (a lone noisy jump before the swings began is not their start)
        w0 = max(1, i0 - window + 2)
        jumps = np.abs(np.diff(y[w0 - 1: i0 + 1]))
        far = jumps > max(3 * SQRT2 * noise[i0], s["threshold"] * width)
        dense = [j for j in np.flatnonzero(far) if far[j: j + ONSET_RUN].mean() >= 0.5]
        onset = w0 - 1 + int(dense[0]) if dense else i0
        peak = int(np.nanargmax(spread[i0: i1 + 1] / noise[i0: i1 + 1])) + i0
        out.append({"kind": "swings", "split": split, "first_step": int(steps[onset]), "last_step": int(steps[i1]),
                    "spread": float(spread[peak]), "noise": float(noise[peak]), "peak_step": int(steps[peak]),
                    "series_last_step": int(steps[-1]), "weight": 0})
    return out


def _by_chance(big: np.ndarray, a: int, b: int) -> bool:
    """Whether the big changes among changes a..b-1 (of points a..b) are as many as the series' big changes
    elsewhere, at their rate, would bunch into some stretch that long more often than CHANCE_RUNS."""
    m = b - a
    k = int(np.count_nonzero(big[a:b]))
    rest = len(big) - m
    if m <= 0 or k == 0 or rest <= 0:
        return False
    rate = (np.count_nonzero(big) - k) / rest
    if rate <= 0:
        return False
    if rate >= 1:
        return True
    return len(big) / m * binomial_tail(m, k, rate) > CHANCE_RUNS


def _expected_noise(env: EnvData, f, spread: np.ndarray, window: int) -> np.ndarray:
    """The point noise sd the series should show at each point: for binomial rates the model at the
    local level (its trials widened by any overdispersion the whole series shows), or the spread of its
    calmer stretches nearby where that is more (rates noisier than their declared count); else the spread of
    its calmer stretches nearby, or — for a series that alternates up and down all its life — the
    siblings' noise when that is lower."""
    level = f.segments.fit()
    ref = env.cache.get("noise_reference") or {}
    shared = env.cache.get("reference") is not None
    quiet = _quiet_nearby(spread, window)
    if f.noise.kind == "binomial":  # its own trials are known: the siblings' do not apply
        return np.maximum(_over_window(np.asarray(f.noise.raw_sd(level), dtype=np.float64), window), quiet)
    if not _alternates(f.series.values):
        return quiet  # its own noise, however large: white noise is no swinging
    if rate_best(env, f.series.values) == 1.0 and ref.get("trials"):  # a success rate: its siblings' trials
        p = np.clip(level, 0.02, 0.98)
        return np.minimum(quiet, np.sqrt(p * (1 - p) / ref["trials"]))
    if shared and ref.get("sd"):
        quiet = np.minimum(quiet, ref["sd"])
    return quiet


def _over_window(sd: np.ndarray, window: int) -> np.ndarray:
    """Per point, the noise sd over the window its spread is measured on (the root mean variance of
    its last `window` points): a window that reaches back into a rise holds the larger noise of
    rates nearer 0.5, not only the point's own level's."""
    c = np.concatenate([[0.0], np.cumsum(sd * sd)])
    idx = np.arange(1, len(sd) + 1)
    lo = np.maximum(idx - window, 0)
    return np.sqrt((c[idx] - c[lo]) / (idx - lo))


def _alternates(values: np.ndarray) -> bool:
    """Whether the series goes up and down from point to point far more than noise does: the lag-1
    correlation of its deviations from its median is strongly negative (white noise: about 0).
    Only then may the siblings' noise stand in for its own."""
    return lag1_correlation(values - median(values)) < ALTERNATION_CORR


def _quiet_nearby(spread: np.ndarray, window: int) -> np.ndarray:
    """Per point, the spread of the calmer stretches around it: blocks of `window` points, each
    summarised by its median spread, then the quieter quarter of those of the NEARBY_BLOCKS blocks on
    each side. Noise that grows with the level changes slowly and is matched nearby; a burst is compared
    with the calm before and after it, and a burst longer than that neighbourhood with TYPICAL_CAP x the
    series' median window."""
    n = len(spread)
    nb = (n + window - 1) // window
    padded = np.full(nb * window, np.nan)
    padded[:n] = spread
    q = _row_quantile(padded.reshape(nb, window), 0.5)
    padded_q = np.concatenate([np.full(NEARBY_BLOCKS, np.nan), q, np.full(NEARBY_BLOCKS, np.nan)])
    near = np.lib.stride_tricks.sliding_window_view(padded_q, 2 * NEARBY_BLOCKS + 1)
    ref = QUIET_BIAS * _row_quantile(near, QUIET_QUANTILE)
    # light-tailed noise spreads its windows little: its typical window (the median nearby) is the closer
    # reference there, and heavy tails keep the quieter quarter's
    ref = np.fmin(ref, MEDIAN_BIAS * _row_quantile(near, 0.5))
    finite = np.isfinite(ref)
    ref = np.where(finite, ref, np.min(ref[finite]) if finite.any() else 0.0)
    typical = q[np.isfinite(q)]
    if len(typical):  # a long burst is most of its own neighbourhood: never above a few x the series' typical block
        ref = np.minimum(ref, QUIET_BIAS * TYPICAL_CAP * float(np.median(typical)))
    return np.repeat(ref, window)[:n]


def _row_quantile(a: np.ndarray, q: float) -> np.ndarray:
    """The q-quantile of each row's finite values (linear interpolation; NaN for a row without any):
    numpy's nanquantile along an axis loops in Python."""
    srt = np.sort(a, axis=1)  # NaNs last
    n = np.sum(np.isfinite(a), axis=1)
    pos = q * np.maximum(n - 1, 0)
    lo = np.floor(pos).astype(np.int64)
    hi = np.minimum(lo + 1, np.maximum(n - 1, 0))
    rows = np.arange(len(a))
    frac = pos - lo
    out = srt[rows, lo] * (1 - frac) + srt[rows, hi] * frac
    return np.where(n > 0, out, np.nan)


def _merged(events: list[dict]) -> list[dict]:
    """Events of train and eval (switching or swings) that overlap are one: the earliest start, the
    latest end; the message and evidence of the switching one (else the larger). A sustained event
    also takes in one that adjoins it (see ADJOINING_PHASES). Where switching or oscillation is among
    them, a burst does not date the event: a change of level dates switching to the point, while a
    burst's changes of size blur its start; nor, where the switching is a square wave (its points at its two
    levels), does an oscillation (read from the same switching) that begins less than half its period before
    it: its envelope blurs its start over a period (a smooth wave's envelope dates it better), and the
    switching describes the event (half its period in its own points: a pace that slows where the env is calm
    stretches them)."""
    out = []
    for ev, *members in _groups([_no_earlier_than_finer(e, events) for e in events]):
        kinds = {e["kind"] for e in members}
        dating = [e for e in members if e["kind"] != "burst"] if kinds & set(SUSTAINED) else members
        switched = [e for e in members if e["kind"] == "switching"]
        # (a few sparse evals of a smooth wave may miss its middle: every series must read square — but a rolling
        # mean, SB3's ep_rew_mean, rounds square switching off, and does not say)
        said = [e for e in switched if e["square"] is not None]
        if said and all(e["square"] for e in said):
            # a square wave's envelope reaches half height up to half a period early: its changes date it
            first = min(e["first_step"] for e in switched)
            dating = [e for e in dating if e["kind"] != "oscillation" or e["half_period_step"] < first]
            if ev["kind"] == "oscillation":  # and describe it: a wave's line is read in any square wave
                ev = dict(max(switched, key=lambda e: e["weight"]), first_step=ev["first_step"],
                          last_step=ev["last_step"], series_last_step=ev["series_last_step"])
        if dating and len(dating) < len(members):
            ev = dict(ev, first_step=_groups(dating)[0][0]["first_step"])
        out.append(ev)
    return out


def _from_activation(env: EnvData, ev: dict, active_from: int | None) -> dict:
    """Switching or oscillation found within LIFELONG_PHASES of its phases (half periods) of the env's
    activation, before any graduation, with the points before it at one of its two levels, crossing
    between them back and forth, or falling from the better one: the env has done so since its activation
    (a wave's envelope, a first phase, reach their height a little late). A learning rise through its
    levels is no part of it."""
    if ev["kind"] not in SUSTAINED or active_from is None or ev["first_step"] <= active_from \
            or (env.graduation_step is not None and env.graduation_step < ev["first_step"]):
        return ev
    series = getattr(env, ev["split"])
    was = (series.steps >= active_from) & (series.steps < ev["first_step"])
    before = series.values[was]
    if _learned_and_held(before, series.steps[was], ev):
        return ev
    if _at_two_levels_from_the_better(before, ev):
        # phases before it, however long (Markov dwells run long), are its own when the env began at the
        # better level and held nothing but the two: it never learned into them
        return dict(ev, first_step=int(active_from))
    if ev["first_step"] - active_from > LIFELONG_PHASES * _phase(ev):
        return ev
    if len(before):
        band = ev["high"] - ev["low"]
        q10, q90 = np.quantile(before, 0.1), np.quantile(before, 0.9)
        at_one = any(q10 >= lv - BAND_SLACK * band and q90 <= lv + BAND_SLACK * band for lv in (ev["low"], ev["high"]))
        side = before > (ev["high"] + ev["low"]) / 2
        # from the better level down is the wave's first half (learning climbs, it does not fall)
        if not at_one and not _begins_at_the_better(before, ev) and np.count_nonzero(side[1:] != side[:-1]) < 2:
            return ev  # a rise through its levels: learning before it
    return dict(ev, first_step=int(active_from))


def _learned_and_held(before: np.ndarray, steps: np.ndarray, ev: dict) -> bool:
    """Whether points (before a switching episode) began on its worse side, crossed once to its better one and
    held there more than HELD_PHASES x its typical phase: the env learned and held what it learned before it
    began to switch, the hold no phase of the switching (SB3's EvalCallback evaluates a level as its training
    starts, then as it learns). Points that began below its worse level (their first FIRST_POINTS' median, by
    over RETURN_TOLERANCE x the gap) were lower than any of its phases took them: the env learned first, and a
    hold of over one typical phase is what it learned (eleventh corpus: a climb from -180 held for 2.9 phases
    before switching between -97 and -145); their crossing is read on running medians of SMOOTH_POINTS (a climb
    through the middle in noise crosses it back and forth)."""
    if ev["kind"] != "switching" or not len(before):
        return False
    below = median(before[:FIRST_POINTS]) < ev["low"] - RETURN_TOLERANCE * (ev["high"] - ev["low"])
    if below and len(before) >= SMOOTH_POINTS:  # its climb crosses the middle once, whatever the noise there
        half = SMOOTH_POINTS // 2
        before = np.median(np.lib.stride_tricks.sliding_window_view(before, SMOOTH_POINTS), axis=1)
        steps = steps[half: len(steps) - half]
    side = before > (ev["high"] + ev["low"]) / 2
    crossings = np.flatnonzero(side[1:] != side[:-1])
    if side[0] or len(crossings) != 1:
        return False
    return ev["first_step"] - int(steps[crossings[0] + 1]) > (1 if below else HELD_PHASES) * ev["phase_steps"]


def _at_two_levels_from_the_better(before: np.ndarray, ev: dict) -> bool:
    """Whether points (before a switching episode) lie at its two levels only — NEAR_SHARE of their running
    medians outside the middle half of the gap between them — and begin at the better one (their first
    FIRST_POINTS' median within a quarter of the gap of it, or beyond it)."""
    if len(before) < FIRST_POINTS:
        return False
    hi, lo = ev["high"], ev["low"]
    slack = BAND_SLACK / 2 * (hi - lo)  # at a level: not in the middle half between them (beyond either is at it)
    begins = _begins_at_the_better(before, ev)
    if len(before) >= SMOOTH_POINTS:  # running medians: the noise about each level would blur it, a rise would not
        before = np.median(np.lib.stride_tricks.sliding_window_view(before, SMOOTH_POINTS), axis=1)
    near = (before >= hi - slack) | (before <= lo + slack)
    return bool(np.mean(near) >= NEAR_SHARE and begins)


def _begins_at_the_better(before: np.ndarray, ev: dict) -> bool:
    """Whether points begin at a switching episode's better level: their first FIRST_POINTS' median within
    a quarter of the gap of it, or beyond it (series values are higher-is-better, see EnvData.show)."""
    return bool(len(before)) and median(before[:FIRST_POINTS]) >= ev["high"] - BAND_SLACK / 2 * (ev["high"] - ev["low"])


def _groups(events: list[dict]) -> list[list[dict]]:
    """The merged events, each followed by the events it took in."""
    out: list[list[dict]] = []
    for ev in sorted(events, key=lambda e: e["first_step"]):
        # a sustained event (switching, oscillation) takes in another that ends or starts within
        # ADJOINING_PHASES of its phases of it: a dip just before switching sets in is its first low phase
        near = ADJOINING_PHASES * max(_phase(ev), _phase(out[-1][0])) if out else 0.0
        # a fall that came back joins switching or oscillation only (as their first low phase)
        joins = not out or "fall" not in (ev["kind"], out[-1][0]["kind"]) \
            or {ev["kind"], out[-1][0]["kind"]} & set(SUSTAINED)
        if out and joins and ev["first_step"] <= out[-1][0]["last_step"] + near:
            prev = out[-1][0]
            # the finer reading of switching describes it (its series judges what came before it), else the weightier
            keep = dict(ev if _finer(ev, prev) or (ev["weight"] > prev["weight"] and not _finer(prev, ev)) else prev)
            # a wave in sparse evals is dated to within half its period: denser training's start within that
            # dates the event
            # (a wave's: switching read from a smooth wave crosses its middle a quarter period after the wave began)
            slack = prev["phase_steps"] / 2 if prev["kind"] == ev["kind"] == "oscillation" and prev["split"] == "eval" \
                and ev["split"] == "train" else 0.0
            keep["first_step"] = ev["first_step"] if ev["first_step"] - prev["first_step"] <= slack \
                else prev["first_step"]
            keep["last_step"] = max(prev["last_step"], ev["last_step"])
            keep["series_last_step"] = max(prev["series_last_step"], ev["series_last_step"])
            out[-1] = [keep] + out[-1][1:] + [ev]
            continue
        out.append([dict(ev), ev])
    return out


def _no_earlier_than_finer(ev: dict, events: list[dict]) -> dict:
    """Switching `ev` starting no earlier than switching of the other series that resolves it finer and overlaps
    it (see _finer)."""
    starts = [f["first_step"] for f in events if _finer(f, ev) and f["first_step"] <= ev["last_step"]
              and ev["first_step"] <= f["last_step"]]
    return dict(ev, first_step=max(ev["first_step"], *starts)) if starts else ev


def _finer(ev: dict, other: dict) -> bool:
    """Whether switching `ev` read from one series resolves switching `other` read from the other one finer:
    over FINER x its changes, its phases under 1 / FINER x as long. Sparse evals' phases span several of the
    denser series' ones, and their first one may be the learning start at a level near the low one (seventh
    corpus: a chain of evals from an env's first point, 2,700 steps before training's 12 changes); other
    events of either series still date the switching where they begin earlier. So does the same rhythm (phases
    within FINER x of each other's) read from FINER x the points a phase, where the sparser reading begins at its
    series' first point (eleventh corpus: training's 33 points a phase from its first drop, beside evals' 7 whose
    first two met the low level on the way up); not a rolling mean's, whose changes lag."""
    if not (ev["kind"] == other["kind"] == "switching" and ev["split"] != other["split"]):
        return False
    changes, other_changes = ev.get("changes", 0), other.get("changes", math.inf)
    if changes >= FINER * other_changes and FINER * ev["phase_steps"] <= other["phase_steps"]:
        return True
    if not (other.get("from_series_start") and ev.get("square") is not None):
        return False
    rhythm = max(ev["phase_steps"], other["phase_steps"]) <= FINER * min(ev["phase_steps"], other["phase_steps"])
    return rhythm and ev["points"] * (other_changes + 1) >= FINER * other["points"] * (changes + 1)


def _phase(ev: dict) -> float:
    """A sustained event's phase (switching) or half period (oscillation) in steps; 0 for others."""
    if ev["kind"] == "switching":
        return float(ev["phase_steps"])
    return float(ev["phase_steps"]) / 2 if ev["kind"] == "oscillation" else 0.0
