"""training_stagnation: an active env stops making progress for stagnation_window steps."""
from __future__ import annotations

import numpy as np

from ..envdata import EnvData
from ..graduation import top_share, waiting_line
from ..incidents import Incident
from ..segments import OUTLIER_POINTS
from ..levels import env_scale, fit, learned, rate_best, rate_top
from ..stats import lag1_correlation, median
from . import judged_window, register

WARMUP_WINDOWS = 3  # an env flat from its activation is judged once it stayed flat this many windows
RESUMED_WINDOWS = 4  # a stall that progress ends must last this many windows (a slow learner's staircase
                     # pauses for a window or three between significant steps)
HINGE_WINDOWS = 2  # the rise-then-flat fit looks this many windows back for the rise
RISE_T = 2.5  # a slope this many standard errors above zero is progress, however slow ...
RISE_SHARE = 0.5  # ... once it adds up to this share of min_rise over the stretch
CREEP_SHARE = 0.2  # ... and, for an env that learned nothing, climbs this share of min_rise a window (a creep of 1 %
# of the run's range a window is none: TD-MPC2's reacher-three-hard, 65 -> 85 over 120 evals beside tasks at 800)
LOCAL_RHO_MARGIN = 0.15  # the trend's noise autocorrelation: at most the stretch's own residuals' + this
TOP_STALL_WINDOWS = 5  # a trainer that logs its states and keeps an env active this long on a flat top:
                       # its threshold is not met there, so the top is a stall too
RUN_SHARE = 0.1  # the stagnation window is at most this share of the run's span
GRADUATED_POINTS = 10  # the level an env held once graduated: the median of this many points from graduation
REFINE_ROUNDS = 3  # the break of the rise-then-flat fit is refitted over nearer windows up to this many times ...
CURVE_CHI2 = 3.84  # a rise that bends into the break: its curvature must fit it better by this (chi2, 1 df, p 0.05)
REFINE_CHI2 = 6.63  # ... each time it fits its window better by this many residual variances (chi2, 1 df, p 0.01)
EARLY_RISE_CHI2 = 13.8  # a rise from activation the segments missed: its best break beats flat by this many (chi2, 2 df, p 0.001) ...
EARLY_RISE_WANDER = 1.2  # ... in a series whose noise wanders no more than this (autocorrelation's widening of its sd)
SLOWDOWN_SE = 2.0  # after a rise, a stall is a pace significantly (this many standard errors) below the rise's ...
SLOWDOWN_SE_SHORT = 3.0  # ... this many when the stall is under SHORT_WINDOWS windows long: the rise-then-flat
SHORT_WINDOWS = 2        # fit breaks where the flat stretch fits best, and over a short one that choice makes
                         # much of the slowdown
UNSEEN_SHARE = 0.5  # a stall's points must rule out (one-sided 95 %, UNSEEN_Z) a rise of this share of the learned gain:
UNSEEN_Z = 1.645    # 80 single episodes' 0/1 outcomes cannot tell a flat stretch from one rising half the way to the top
FELL_SHARE = 0.15  # a stall whose segments fell by over this share of the range says so (its mean hides it)


@register("training_stagnation", "an active env makes no progress for stagnation_window steps: no rise of "
          "its segmented level by more than min_delta x its learned range, and no significant rising trend, "
          "below the level it would graduate at")
def training_stagnation(env: EnvData, s: dict) -> list[Incident]:
    out = []
    f = fit(env, "learning")
    if len(f.series) < s["min_points"]:
        return out
    scale = env_scale(env)
    if scale is None:
        return out
    graduated = any(iv.state == "graduated" for iv in env.timeline)
    for k, iv in enumerate(env.timeline):
        if iv.state != "active":
            continue
        last = k + 1 == len(env.timeline)
        lo = int(np.searchsorted(f.series.steps, iv.start_step, "left"))
        hi = int(np.searchsorted(f.series.steps, iv.end_step, "right" if last else "left"))
        # a trainer that logs its states and never graduated the env says its top was not enough: a
        # long stall there is a stall, whatever the siblings reached
        # — unless it is the curriculum's last level, which it never advances past
        top_windows = TOP_STALL_WINDOWS if env.explicit_states and last and not graduated \
            and not env.cache.get("last_level") else None
        then = _graduated_level(env, f, env.timeline[k + 1]) if not last else None
        out += _stagnation_in(env, f, lo, hi, scale, s, resolved_after=not last, top_windows=top_windows,
                              graduated_at=then)
    return out


def _graduated_level(env: EnvData, f, nxt) -> float | None:
    """The level an env held once the interval after an active one graduated it: the median of its learning
    series' first GRADUATED_POINTS points from there (None when it did not graduate, or has no such points)."""
    if nxt.state != "graduated":
        return None
    steps = f.series.steps
    a = int(np.searchsorted(steps, nxt.start_step, "left"))
    b = min(int(np.searchsorted(steps, nxt.end_step, "right")), a + GRADUATED_POINTS)
    return median(f.series.values[a:b]) if b > a else None


def _stagnation_in(env: EnvData, f, lo: int, hi: int, scale: tuple[float, float], s: dict,
                   resolved_after: bool, top_windows: float | None = None,
                   graduated_at: float | None = None) -> list[Incident]:
    """Stagnant stretches among points lo..hi-1 of the learning series (one active interval). A flat
    stretch at the top (above top_share of the range: 0.7 for a rate, 0.6 for a metric with no bound) is an env
    waiting to graduate, unless `top_windows` is set and it lasted that many windows; so is one at the level the
    env held once its curriculum graduated it right after (`graduated_at`, less min_delta x its gain to there):
    whatever its siblings reach, the curriculum took that level for mastery."""
    steps, y, seg = f.series.steps, f.series.values, f.segments
    if hi - lo < s["min_points"]:
        return []
    dt = f.series.take(slice(lo, hi)).pace() or 1.0
    # in plain steps a window's size says nothing of the run's: at most RUN_SHARE of its span (a run
    # logged at steps 0..80 cannot hold two 100-step windows), still widened to min_points points
    base = min(s["stagnation_window"], max(RUN_SHARE * (env.run_last_step - env.run_first_step), 1.0))
    window = judged_window(base, s["min_points"], dt)
    start, top = scale
    gain = top - start
    min_rise = s["min_delta"] * gain if gain > 0 else s["min_delta"] * max(abs(top), 1e-12)
    seg_of = seg.index_of()
    best = rate_best(env, y)
    if best is not None and (not learned(env) or gain < s["min_delta"] * abs(best - start)):
        # a rate that learned nothing, or less than min_delta of its range (a rate at 0 but for a few lucky
        # batches: its still points make any sliver "stand out"): progress is measured on its range, not on
        # its own sliver of a gain
        min_rise = max(min_rise, s["min_delta"] * abs(best - start))
    # the range progress is measured on; an env that learned nothing has no gain a stall could hide a share of
    judged_gain = (min_rise / s["min_delta"] if s["min_delta"] > 0 else gain) if learned(env) else 0.0
    rises = _progress(seg, lo, hi, min_rise)
    bounds = [lo, *rises, hi]
    # a stall that progress ends must also be long for this env: longer than RESUMED_WINDOWS of its
    # usual time between steps of progress (a steady climber's segments last as long as each other) —
    # between its other steps: the stretch judged is no measure of its own env's pace
    intervals = np.diff(steps[np.array(bounds[:-1])])
    reach = rate_top(env, y)  # the run's shared ceiling where its learners all stopped short of the bound
    stall_line = start + top_share(best) * ((max(top, reach) if best is not None else top) - start)
    if best is not None:
        # a rate could reach its bound: a stall at 0.5 success is no wait for graduation; but a rate
        # above WAITING_SHARE of its whole range (0.6 success, 0.4 errors) stalls nowhere, though it started there
        # its whole range: best - 1 to best; 0 to best for single episodes' returns worth best when solved
        stall_line = min(stall_line, waiting_line(env, best))
    elif env.cache.get("alone") and not learned(env):
        # the run's only env never learned: nothing (no sibling, no rate's bound) makes its level a top, and a
        # run trained for nothing is stalled. Beside siblings on other scales it may be one already good: not judged
        stall_line = np.inf
    if graduated_at is not None:  # about the level it graduated at (min_delta of its gain to there)
        stall_line = min(stall_line, graduated_at - s["min_delta"] * max(graduated_at - start, 0.0))
    out, held = [], []  # held: each stall's mean level and the level it ended at (oriented)
    for k, (a, b) in enumerate(zip(bounds[:-1], bounds[1:])):
        if b - a < s["min_points"]:
            continue
        need = window * max(WARMUP_WINDOWS if a == lo else 1, RESUMED_WINDOWS if b < hi else 1)
        if b < hi and len(rises) >= 2:
            need = max(need, RESUMED_WINDOWS * median(np.delete(intervals, k)))
        back = max(lo, int(seg.bounds[max(seg_of[a] - 1, 0)]))  # the onset may reach into the segment before
        if steps[b - 1] - steps[back] < need:
            continue
        if top_windows is None and float(np.mean(y[a:b][~seg.outlier[a:b]])) >= stall_line:
            continue
        # where the flat stretch began: the break of a rise-then-flat fit; a wobble just before it (a
        # shallow or brief dip whose recovery counted as progress) may be part of it; failing that, from
        # the segment before (a rise cut late), or from its own first point (the segment before is a dip)
        onset = None
        for reach in dict.fromkeys(_wobbled_back(steps, seg, seg_of[a], lo, min_rise, window) + [back, a]):
            onset = _flat_from(f, lo, a, b, reach, window, need, stall_line, top_windows, min_rise, s, judged_gain)
            if onset is not None:
                break
        if onset is None:
            continue
        lastp = int(steps[b - 1])
        resolved = b < hi or resolved_after
        mean = float(np.mean(y[onset:b]))
        held.append((mean, float(seg.level[seg_of[b - 1]])))
        sparse = window > s["stagnation_window"]
        # a stall that fell on its way (an active env losing what it learned): its mean level alone would hide it
        fell = _fell(seg, seg_of, onset, b, top - start)
        out.append(Incident(
            "training_stagnation", env.env_id, "warning", int(steps[onset]), lastp, resolved,
            f"no progress in {'training' if len(env.train) else 'eval'} performance from step {int(steps[onset])} "
            f"to {lastp}: level {env.show(mean):.4g}"
            + (f" (it {'fell' if env.sign == 1 else 'worsened, rose'} from {env.show(fell[0]):.4g} to "
               f"{env.show(fell[1]):.4g})" if fell else "")
            + f", no rise above {min_rise:.3g} "
            f"({s['min_delta']:.0%} of its learned range) and no significant rising trend"
            + (" (active since this point)" if onset == lo else ""),
            {"window_steps": int(window), "stalled_steps": int(lastp - steps[onset]),
             "level": round(env.show(mean), 6), "min_rise": round(float(min_rise), 6),
             "range": [round(env.show(start), 6), round(env.show(top), 6)], "detected_at_step": int(steps[a] + need)
             if a + 1 < len(steps) else lastp,
             **({"fell_from": round(env.show(fell[0]), 6), "fell_to": round(env.show(fell[1]), 6)} if fell else {}),
             **({"note": f"logging is sparse (one point per ~{dt:g} steps): the window was widened from "
                         f"{s['stagnation_window']} to {int(window)} steps to hold {s['min_points']} points"}
                if sparse else {})}))
    return _rejoined(out, held, min_rise, window)


def _fell(seg, seg_of: np.ndarray, onset: int, b: int, width: float) -> tuple[float, float] | None:
    """(the highest level a stall's segments held, the lowest after it) where that fall is over FELL_SHARE of the
    range (`width`), else None: "no progress" over a plateau and the collapse after it is true, its mean level is no
    account of it (an rLLM data source held 0.70 for 87 evals, then 0.40: "level 0.59")."""
    levels = [(float(seg.level[j]), j) for j in range(int(seg_of[onset]), int(seg_of[b - 1]) + 1) if seg.count[j] > 0]
    if not levels or not width > 0:
        return None
    high, j = max(levels)
    low = min((lv for lv, k in levels if k > j), default=high)
    return (high, low) if high - low > FELL_SHARE * width else None


def _rejoined(stalls: list[Incident], held: list[tuple[float, float]], min_rise: float,
              window: float) -> list[Incident]:
    """Stalls of one active interval split by progress that was given back: the later one begins within
    RESUMED_WINDOWS windows of the earlier one's end and ends at a level no more than min_rise above the
    earlier one's (a never-learner's chance run of lucky successes read as progress, then lost) — one
    stall, one incident."""
    out: list[Incident] = []
    base = 0.0  # the mean level of the stall the last one joins
    for inc, (mean, end) in zip(stalls, held):
        if out and inc.first_step - out[-1].last_step < RESUMED_WINDOWS * window and end <= base + min_rise:
            prev = out[-1]
            ev = dict(prev.evidence, stalled_steps=int(inc.last_step - prev.first_step))
            out[-1] = Incident(prev.type, prev.env_id, prev.severity, prev.first_step, inc.last_step, inc.resolved,
                               prev.message.replace(f"to {prev.last_step}:", f"to {inc.last_step}:", 1), ev)
            continue
        out.append(inc)
        base = mean
    return out


def _flat_from(f, lo: int, a: int, b: int, back: int, window: float, need: float, stall_line: float,
               top_windows: float | None, min_rise: float, s: dict, gain: float) -> int | None:
    """Where the flat stretch a..b-1 began (the break of a rise-then-flat fit, not before point
    `back`), or None when from there it is no stall: too short, at the top, rising, too noisy to rule out
    a rise (of UNSEEN_SHARE x `gain`), or no slower than the rise before it."""
    steps, y, seg = f.series.steps, f.series.values, f.segments
    fit_from = max(lo, min(back, int(np.searchsorted(steps, steps[a] - HINGE_WINDOWS * window, "left"))))
    if a > lo:
        onset = _refined_onset(steps, y, fit_from, a + max(1, (b - a) // 4), s["min_points"])
    else:  # flat from activation as its segments read it: a rise too small for them may still end where it began
        onset = _early_rise(f, lo, a + max(1, (b - a) // 4))
    onset = max(onset, back)
    span = steps[b - 1] - steps[onset]
    if span < need or b - onset < s["min_points"]:
        return None
    if float(np.mean(y[onset:b][~seg.outlier[onset:b]])) >= stall_line and \
            (top_windows is None or span < top_windows * window):
        return None  # at the top: waiting to graduate (prolonged_training reports an env that never does)
    # a never-learner's creep (no gain of its own to speak of) must climb CREEP_SHARE x min_rise a window to be progress
    creep_window = window if not gain > 0 else np.inf
    if _rising(f, onset, b, min_rise, creep_window) or _could_hide_rise(f, onset, b, gain):
        return None
    bar = SLOWDOWN_SE if span >= SHORT_WINDOWS * window else SLOWDOWN_SE_SHORT
    if a > lo and not _slowed(f, fit_from, onset, b, bar):
        return None  # a slow steady climb whose window-long stretches rise too little to tell: no stall
    return onset


def _wobbled_back(steps: np.ndarray, seg, j: int, lo: int, min_rise: float, window: float) -> list[int]:
    """How far back the onset of a flat stretch starting at segment j may reach over a wobble (into the
    segment before the one the env held before it): segment j-1 a dip below segment j-2, less than
    min_rise deep or shorter than a window, and segment j back no more than min_rise above j-2 (a
    recovery that counted as progress from the dip, not progress beyond where it was). [] without one."""
    if j < 2 or seg.bounds[j - 2] < lo:
        return []
    held, dip, now = seg.level[j - 2], seg.level[j - 1], seg.level[j]
    brief = steps[int(seg.bounds[j])] - steps[int(seg.bounds[j - 1])] < window
    if dip < held and (held - dip < min_rise or brief) and now <= held + min_rise:
        return [max(lo, int(seg.bounds[max(j - 3, 0)]))]  # into the segment before, as without a wobble
    return []


def _progress(seg, lo: int, hi: int, min_rise: float) -> list[int]:
    """Points where the env made progress: the first point of a segment whose level is more than
    min_rise above the level at the last progress (or the interval's start) and above the best level held
    since: a return to a level held before a fall is no progress, nor is a wandering series' next swing up.
    Small significant steps add up, so a fine staircase of learning is progress too. A blip — a segment of
    up to OUTLIER_POINTS points whose next one is back within min_rise of the level before it (a never-learner's
    lucky batch or two) — is none either."""
    out = []
    j0 = int(np.searchsorted(seg.bounds, lo, "right")) - 1
    anchor = best = seg.level[j0]
    nonempty = [j for j in range(j0 + 1, len(seg)) if seg.count[j] > 0 and int(seg.bounds[j]) < hi]
    for i, j in enumerate(nonempty):
        level = seg.level[j]
        if level > max(anchor + min_rise, best):
            if seg.count[j] <= OUTLIER_POINTS and i + 1 < len(nonempty) \
                    and seg.level[nonempty[i + 1]] <= anchor + min_rise:
                continue
            out.append(int(seg.bounds[j]))
            anchor = best = level
        elif level < anchor:
            anchor = level  # a fall: progress is counted from the lower level
        best = max(best, level)
    return out


def _rising(f, a: int, b: int, min_rise: float, window: float = np.inf) -> bool:
    """A significant rising trend over points a..b-1 that adds up to more than RISE_SHARE x min_rise (and climbs
    more than CREEP_SHARE x min_rise a `window`, where one is given).

    The noise is the series' point noise, widened by its autocorrelation; but no more than the
    stretch's own residuals about its line show (plus LOCAL_RHO_MARGIN): a steady climb cut into a
    staircase leaves residuals that look like a slow wander to the whole-series estimate."""
    fitted = _slope(f, a, b, min_points=2)
    if fitted is None:
        return False
    slope, se = fitted
    t = slope / se if se > 0 else np.inf * np.sign(slope)
    x, raw_slope, _res, _sxx = _line(f, a, b, f.series.values)  # in the series' own units (not None: _slope fitted)
    return bool(t > RISE_T and raw_slope * (x[-1] - x[0]) > RISE_SHARE * min_rise
                and raw_slope * window > CREEP_SHARE * min_rise)


def _could_hide_rise(f, a: int, b: int, gain: float) -> bool:
    """Whether points a..b-1 are too few for their noise to rule out a rise of UNSEEN_SHARE x the env's learned
    gain: the least-squares rise over the stretch plus UNSEEN_Z of its standard error (from the stretch's own
    residuals, taken as independent: autocorrelated noise would only widen it) exceeds that share. "No
    progress" is a claim the points must support, not a rise they were too noisy to show."""
    if not gain > 0:
        return False
    if int(np.count_nonzero(~f.segments.outlier[a:b])) < 3:
        return True
    line = _line(f, a, b, f.series.values)
    if line is None:
        return False
    x, slope, res, sxx = line
    se = float(np.sqrt(np.dot(res, res) / max(len(res) - 2, 1) / sxx))
    return (slope + UNSEEN_Z * se) * float(x[-1] - x[0]) > UNSEEN_SHARE * gain


def _line(f, a: int, b: int, values: np.ndarray) -> tuple[np.ndarray, float, np.ndarray, float] | None:
    """The least-squares line through `values` (the series' or its noise scale's) over points a..b-1, outliers aside:
    the points' steps from a, its slope, its residuals and the steps' sum of squares about their mean (None when
    they are all one step)."""
    keep = ~f.segments.outlier[a:b]
    x = (f.series.steps[a:b] - f.series.steps[a]).astype(np.float64)[keep]
    v = values[a:b][keep].astype(np.float64)
    xm = x - x.mean()
    sxx = float(np.dot(xm, xm))
    if not sxx > 0:
        return None
    slope = float(np.dot(xm, v - v.mean())) / sxx
    return x, slope, v - v.mean() - slope * xm, sxx


def _slope(f, a: int, b: int, min_points: int = 4) -> tuple[float, float] | None:
    """Least-squares slope of points a..b-1 on the noise scale and its standard error: the point
    noise widened by its autocorrelation, but no more than the stretch's own residuals about its
    line show (plus LOCAL_RHO_MARGIN); None with fewer than min_points points. Outliers aside (an
    env server's crash logs a return 40 x the range: alone it makes a flat series rise)."""
    keep = ~f.segments.outlier[a:b]
    if int(np.count_nonzero(keep)) < min_points:
        return None
    line = _line(f, a, b, f.noise.z)
    if line is None:
        return None
    _x, slope, res, sxx = line
    rho = min(f.segments.rho, max(lag1_correlation(res), 0.0) + LOCAL_RHO_MARGIN)
    sigma = median(f.noise.sigma[a:b][keep]) * np.sqrt((1 + rho) / (1 - rho) ** 2)
    return slope, sigma / np.sqrt(sxx)


def _slowed(f, a: int, onset: int, b: int, bar: float = SLOWDOWN_SE) -> bool:
    """Whether the pace over onset..b-1 is significantly (`bar` standard errors) below the pace the env
    rose at over a..onset-1 (the stretch the rise-then-flat fit looked back on). A steady climb whose
    windows each rise too little to be told from noise has not stalled: its pace did not change.
    Undecidable (too few points before): a stall."""
    before, after = _slope(f, a, onset), _slope(f, onset, b)
    if before is None or after is None:
        return True
    return before[0] - after[0] > bar * float(np.hypot(before[1], after[1]))


def _refined_onset(steps: np.ndarray, y: np.ndarray, lo: int, i0: int, min_points: int) -> int:
    """_onset over lo..i0, then again over a window as long before the break as after it (never under
    min_points points a side), while the nearer break fits that window significantly better (its
    residual sum of squares lower by more than REFINE_CHI2 residual variances): a line fits a curved
    rise badly and its break lands late on a rise that steepens into the flat (a logistic's upper
    half), where the last stretch of the rise alone is nearly straight; on a straight rise in heavy
    noise the nearer fits differ by noise only and the break stays."""
    k = _onset(steps, y, lo, i0)
    for _ in range(REFINE_ROUNDS):
        half = max(min_points, (k - lo) // 2)
        a, b = max(lo, k - half), min(i0, k + half)
        if b - a < 2 * min_points or k <= lo:
            break
        gain = np.maximum(_hinge_gains(steps, y, a, b), 0.0)  # a break after no rise fits as a flat line
        k2 = a + int(np.argmax(gain)) if gain.max() > 0 else a
        if k2 == k or k2 <= a:
            break
        v = y[a: b + 1]
        sse_new = float(np.sum((v - v.mean()) ** 2)) - gain[k2 - a]
        if not gain[k2 - a] - gain[k - a] > REFINE_CHI2 * sse_new / max(len(v) - 3, 1):
            break
        k, lo = k2, a
    return k


def _early_rise(f, lo: int, i0: int) -> int:
    """The break of the best rise-then-flat fit over points lo..i0 when it beats a flat line by more than
    EARLY_RISE_CHI2 residual variances (the best of every break is tried: a stricter bar than one
    break's), else lo: a short rise from activation that the segments took for noise. Not in a series
    whose noise wanders (a rolling mean's slow drift fits such a hinge anywhere)."""
    steps, y = f.series.steps, f.series.values
    if i0 + 1 - lo < 4 or f.segments.wander > EARLY_RISE_WANDER:
        return lo
    gain = _hinge_gains(steps, y, lo, i0)
    k = int(np.argmax(gain))
    if not np.isfinite(gain[k]) or gain[k] <= 0:
        return lo
    v = y[lo: i0 + 1]
    sse = float(np.sum((v - v.mean()) ** 2)) - gain[k]
    return lo + k if gain[k] > EARLY_RISE_CHI2 * sse / max(len(v) - 3, 1) else lo


def _onset(steps: np.ndarray, y: np.ndarray, lo: int, i0: int) -> int:
    """Where the flat stretch detected at point i0 began: the break of the best-fitting hinge
    (a rise up to the break, flat after it: see _curved_hinge_gains) over points lo..i0; lo when nothing rose
    before."""
    if i0 + 1 - lo < 4:
        return lo
    gain = _curved_hinge_gains(steps, y, lo, i0)
    best = int(np.argmax(gain))
    return lo + best if np.isfinite(gain[best]) and gain[best] > 0 else lo


def _curved_hinge_gains(steps: np.ndarray, y: np.ndarray, lo: int, i0: int) -> np.ndarray:
    """_hinge_gains with a rise that may accelerate into the break: where a quadratic rise before it (regressors z and
    z^2, z = min(x - x_k, 0), x scaled to [0, 1]) rises all the way, faster toward the break, and fits CURVE_CHI2
    residual variances better than the line, its gain; else the line's. A line fitted to a rise that steepens into a
    sharp freeze (a smoothstep's first half) reaches the flat level late, and its break lands late (fourth corpus: DCD
    solved rates frozen mid-rise, dated 3-6 evals late); a rise that slows into a plateau bends into it anywhere and
    keeps its line's break. Prefix sums: all breaks in O(n)."""
    span = float(steps[i0] - steps[lo]) or 1.0
    x = (steps[lo: i0 + 1] - steps[lo]).astype(np.float64) / span
    v = y[lo: i0 + 1].astype(np.float64)
    n = len(x)
    k = np.arange(n, dtype=np.float64)
    sx, sx2, sx3, sx4 = (_before_each(x ** p) for p in (1, 2, 3, 4))
    sy, sxy, sx2y = _before_each(v), _before_each(x * v), _before_each(x * x * v)
    xk = x  # the break's own x, for the sums of (x_i - x_k)^p over the points before it
    s1 = sx - k * xk
    s2 = sx2 - 2 * xk * sx + k * xk ** 2
    s3 = sx3 - 3 * xk * sx2 + 3 * xk ** 2 * sx - k * xk ** 3
    s4 = sx4 - 4 * xk * sx3 + 6 * xk ** 2 * sx2 - 4 * xk ** 3 * sx + k * xk ** 4
    sy1 = sxy - xk * sy
    sy2 = sx2y - 2 * xk * sxy + xk ** 2 * sy
    total = v.sum()
    c11, c22, c12 = s2 - s1 * s1 / n, s4 - s2 * s2 / n, s3 - s1 * s2 / n
    c1y, c2y = sy1 - s1 * total / n, sy2 - s2 * total / n
    det = c11 * c22 - c12 * c12
    linear = _hinge_gains(steps, y, lo, i0)
    with np.errstate(invalid="ignore", divide="ignore"):
        ok = det > 1e-12 * np.maximum(c11 * c22, 1e-300)
        b1 = np.where(ok, (c22 * c1y - c12 * c2y) / det, 0.0)
        b2 = np.where(ok, (c11 * c2y - c12 * c1y) / det, 0.0)
        gain = np.where(ok, (c22 * c1y ** 2 - 2 * c12 * c1y * c2y + c11 * c2y ** 2) / det, linear)
        # rising all the way into the break, and faster toward it (a rise that slows into a plateau bends into it
        # anywhere: its line's break stands) — and only where the curvature is significant (chi2, 1 df, p 0.05):
        # a straight rise in noise bends by chance
        convex = ok & (b1 > 0) & (b1 + 2 * b2 * (x[0] - xk) >= 0) & (b2 > 0)
        resid = np.maximum(float(np.sum((v - v.mean()) ** 2)) - gain, 0.0) / max(n - 4, 1)
        return np.where(convex & (gain - linear > CURVE_CHI2 * resid), gain, linear)


def _before_each(a: np.ndarray) -> np.ndarray:
    """The sum of a's values before each index (0 at the first)."""
    return np.concatenate([[0.0], np.cumsum(a)])[:-1]


def _hinge_gains(steps: np.ndarray, y: np.ndarray, lo: int, i0: int) -> np.ndarray:
    """For a break at each point k of lo..i0, how much a hinge (a line up to the break, flat after it)
    lowers the residual sum of squares of a flat line; -inf where the line before the break falls.

    The regressor is z_i = min(x_i - x_k, 0); every break's least-squares fit comes from prefix sums,
    so all breaks cost O(n)."""
    x = (steps[lo: i0 + 1] - steps[lo]).astype(np.float64)
    v = y[lo: i0 + 1]
    n = len(x)
    k = np.arange(n)  # points before the break: 0..k-1
    s1, sxx, sy, sxy = _before_each(x), _before_each(x * x), _before_each(v), _before_each(x * v)
    sz = s1 - k * x
    szz = sxx - 2 * x * s1 + k * x * x
    szy = sxy - x * sy
    vz = szz - sz * sz / n
    cov = szy - sz * v.sum() / n
    with np.errstate(invalid="ignore", divide="ignore"):
        slope = np.where(vz > 0, cov / vz, 0.0)
        gain = np.where(vz > 0, cov * cov / vz, 0.0)  # SSE reduction of the hinge over a flat line
    gain[slope <= 0] = -np.inf  # a break only counts after a rise
    return gain
