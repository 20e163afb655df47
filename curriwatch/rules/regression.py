"""graduated_regression: a graduated env's smoothed performance falls below its baseline."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..envdata import EnvData
from ..incidents import Incident, runs_of_true
from ..stats import trailing_median
from . import register


def regression_signal(env: EnvData, s: dict) -> dict | None:
    """Start level, held level (the baseline) and the share of the learned gain each point keeps.

    Values are oriented (higher is better). The start level is where the env began (the median of
    its first points before graduation, train or eval); the held level is the best centred rolling
    median of 2 x `baseline_window` + 1 points from just before graduation on — the level the env held once graduated,
    wherever graduation was inferred. gain = held - start; kept = (smoothed - start) / gain. Points
    count only from the first time the env was halfway from the warning line to its held level, at or after graduation, so an
    early inferred graduation on the rising edge is not a regression. When no start is visible and
    the held level is positive, the start is 0 (a plain ratio to the baseline). Cached on the env."""
    if "regression" in env.cache:
        return env.cache["regression"]
    env.cache["regression"] = None
    g = env.graduation_step
    perf = env.performance
    if g is None or len(perf) == 0:
        return None
    w = s["baseline_window"]
    gi = int(np.searchsorted(perf.steps, g, "left"))
    if gi >= len(perf):
        return None
    lo = max(0, gi - w)
    # a centred median over 2w+1 points: one lucky stretch of noise does not raise the held level
    rolled = pd.Series(perf.values[lo:]).rolling(2 * w + 1, center=True, min_periods=w).median().to_numpy()
    held = float(np.nanmax(rolled)) if np.isfinite(rolled).any() else float(np.median(perf.values[lo:]))
    start = _start_level(env, g)
    if start is None or not held > start:
        if not held > 0:
            return None  # no visible gain and no natural zero: the share means nothing
        start = 0.0 if env.sign == 1 else None
        if start is None:
            return None
    gain = held - start
    smoothed = trailing_median(perf.values, s["smoothing_window"])
    with np.errstate(invalid="ignore", divide="ignore"):
        kept = (smoothed - start) / gain
        raw = (perf.values - start) / gain
    # judged once the env is well inside its held zone (halfway from the warning line to the held
    # level): noise around the threshold on the rising edge is not a regression
    zone = (1 + s["regression_threshold"]) / 2
    reached = np.flatnonzero((np.arange(len(perf)) >= lo) & (kept >= zone))
    first = max(gi, int(reached[0])) if len(reached) else len(perf)
    after = np.arange(len(perf)) >= first
    out = {
        "graduation_step": g, "baseline": held, "start": start, "gain": gain,
        "steps": perf.steps, "raw": raw, "ratio": kept, "smoothed": smoothed, "after": after,
        "series": "eval" if len(env.eval) else "train",
    }
    env.cache["regression"] = out
    return out


def _start_level(env: EnvData, g: int) -> float | None:
    """The level the env started from: the lowest rolling median of 3 before graduation, on the
    series (train or eval) with more points there — a learning curve's foot, not its rise."""
    best = None
    for series in (env.train, env.eval):
        before = series.values[: int(np.searchsorted(series.steps, g, "left"))]
        if len(before) >= 2 and (best is None or len(before) > len(best)):
            best = before
    if best is None:
        return None
    return float(np.min(trailing_median(best, 3)[min(2, len(best) - 1):]))


def regression_spans(env: EnvData, s: dict) -> list[dict]:
    """Spans where the smoothed share of the gain is under regression_threshold, with their onset."""
    sig = regression_signal(env, s)
    if sig is None:
        return []
    warn = sig["after"] & (sig["ratio"] < s["regression_threshold"])
    crit = sig["after"] & (sig["ratio"] < s["critical_regression_threshold"])
    first_after = int(np.argmax(sig["after"])) if sig["after"].any() else len(warn)
    spans = []
    for i0, i1 in runs_of_true(warn):
        # the smoothing lags: the onset is the first raw point of the low stretch that fired
        onset = i0
        while onset - 1 >= max(first_after, i0 - s["smoothing_window"] + 1) and \
                sig["raw"][onset - 1] < s["regression_threshold"]:
            onset -= 1
        spans.append({"onset": onset, "first": i0, "last": i1, "critical": bool(crit[i0:i1 + 1].any()),
                      "resolved": i1 < len(warn) - 1})
    return spans


@register("graduated_regression", "a graduated env keeps less than regression_threshold (warning) / "
          "critical_regression_threshold (critical) of its learned gain (start level to the level it held)")
def graduated_regression(env: EnvData, s: dict) -> list[Incident]:
    out = []
    sig = regression_signal(env, s)
    show = env.show
    for span in regression_spans(env, s):
        i1 = span["last"]
        low = int(np.argmin(sig["ratio"][span["first"]: i1 + 1])) + span["first"]
        severity = "critical" if span["critical"] else "warning"
        share = float(sig["ratio"][low])
        onset = int(sig["steps"][span["onset"]])
        since = onset - sig["graduation_step"]
        rapid = since <= s["rapid_regression_window"]
        out.append(Incident(
            "graduated_regression", env.env_id, severity, onset, int(sig["steps"][i1]), span["resolved"],
            f"graduated at step {sig['graduation_step']} and held {sig['series']} performance "
            f"{show(sig['baseline']):.4g} (from {show(sig['start']):.4g}); fell to {show(sig['smoothed'][low]):.4g}, "
            f"keeping {share:.0%} of the gain" + (f", {since} steps after graduating" if rapid else ""),
            {"series": sig["series"], "graduation_step": sig["graduation_step"],
             "baseline": round(show(sig["baseline"]), 6), "start_level": round(show(sig["start"]), 6),
             "lowest_value": round(show(float(sig["smoothed"][low])), 6), "lowest_step": int(sig["steps"][low]),
             "lowest_gain_share": round(share, 4), "current_value": round(show(float(sig["smoothed"][-1])), 6),
             "warning_threshold": s["regression_threshold"],
             "critical_threshold": s["critical_regression_threshold"],
             "direction": "higher" if env.sign == 1 else "lower",
             "smoothing_window_points": s["smoothing_window"],
             "rapid": rapid, "steps_after_graduation": since}))
    return out
