"""graduated_regression: a graduated env's smoothed performance falls below its baseline."""
from __future__ import annotations

import numpy as np

from ..envdata import EnvData
from ..incidents import Incident, runs_of_true
from ..stats import trailing_median
from . import register


def regression_signal(env: EnvData, s: dict) -> dict | None:
    """Baseline and per-point ratios after graduation; cached on the env (two rules use it)."""
    if "regression" in env.cache:
        return env.cache["regression"]
    env.cache["regression"] = None
    g = env.graduation_step
    perf = env.performance
    if g is None or len(perf) == 0:
        return None
    nearest = np.argsort(np.abs(perf.steps - g), kind="stable")[: s["baseline_window"]]
    baseline = float(np.median(perf.values[nearest]))
    if not baseline > 0:
        return None  # ratios to a non-positive baseline mean nothing
    smoothed = trailing_median(perf.values, s["smoothing_window"])
    after = perf.steps > perf.steps[nearest].max()
    out = {
        "graduation_step": g, "baseline": baseline, "baseline_steps": sorted(perf.steps[nearest].tolist()),
        "steps": perf.steps, "raw": perf.values / baseline, "ratio": smoothed / baseline,
        "smoothed": smoothed, "after": after, "series": "eval" if len(env.eval) else "train",
    }
    env.cache["regression"] = out
    return out


def regression_spans(env: EnvData, s: dict) -> list[dict]:
    """Spans where the smoothed ratio is under regression_threshold, with their onset."""
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


@register("graduated_regression", "a graduated env's smoothed performance falls below "
          "regression_threshold (warning) / critical_regression_threshold (critical) x its baseline")
def graduated_regression(env: EnvData, s: dict) -> list[Incident]:
    out = []
    sig = regression_signal(env, s)
    for span in regression_spans(env, s):
        i1 = span["last"]
        low = int(np.argmin(sig["ratio"][span["first"]: i1 + 1])) + span["first"]
        severity = "critical" if span["critical"] else "warning"
        ratio = float(sig["ratio"][low])
        out.append(Incident(
            "graduated_regression", env.env_id, severity,
            int(sig["steps"][span["onset"]]), int(sig["steps"][i1]), span["resolved"],
            f"graduated at step {sig['graduation_step']} with {sig['series']} performance "
            f"{sig['baseline']:.3g}; fell to {sig['smoothed'][low]:.3g} ({ratio:.0%} of baseline)",
            {"series": sig["series"], "graduation_step": sig["graduation_step"],
             "baseline": round(sig["baseline"], 6), "baseline_steps": sig["baseline_steps"],
             "lowest_value": round(float(sig["smoothed"][low]), 6), "lowest_step": int(sig["steps"][low]),
             "lowest_ratio": round(ratio, 4), "current_value": round(float(sig["smoothed"][-1]), 6),
             "warning_threshold": s["regression_threshold"],
             "critical_threshold": s["critical_regression_threshold"],
             "smoothing_window_points": s["smoothing_window"]}))
    return out
