"""training_stagnation: an active env stops making progress for stagnation_window steps."""
from __future__ import annotations

import numpy as np

from ..envdata import EnvData
from ..incidents import Incident, runs_of_true
from ..stats import range_regression, t_critical, t_pvalue, window_sums
from ..timeline import start_level
from . import register

TREND_HORIZON = 3  # the trend test looks back this many windows: slow learners show there
ONSET_LOOKBACK = 2000  # points the onset search may look back from detection (since activation)


@register("training_stagnation", "an active env shows no progress beyond noise for stagnation_window "
          "steps: window mean not above the previous window's and no significant upward trend")
def training_stagnation(env: EnvData, s: dict) -> list[Incident]:
    out = []
    for k, iv in enumerate(env.timeline):
        if iv.state != "active":
            continue
        last = k + 1 == len(env.timeline)
        graduates = not last and env.timeline[k + 1].state == "graduated"
        part = env.learning.in_interval(env.timeline, k)
        out += _stagnation_in(env, part, iv.start_step, s, resolved_after=not last, graduates=graduates)
    return out


def _stagnation_in(env: EnvData, part, active_from: int, s: dict, resolved_after: bool,
                   graduates: bool) -> list[Incident]:
    """Stagnant stretches of one active interval. The flat stretch an env spends on its plateau
    right before graduating is what graduation waits for, not stagnation, and is not reported."""
    min_points = s["min_points"]
    if len(part) < min_points:
        return []
    steps, y = part.steps, part.values
    dt = part.median_interval() or 1.0
    window = max(float(s["stagnation_window"]), min_points * dt)
    x = (steps - steps[0]).astype(np.float64)
    idx = np.arange(len(steps))
    a = np.searchsorted(steps, steps - window, "left")  # window [a, i]
    c = np.searchsorted(steps, steps - 2 * window, "left")  # previous window [c, a)
    b = np.searchsorted(steps, steps - TREND_HORIZON * window, "left")
    sums = window_sums(x, y)
    n_w, mean_w, _sl, _p, std_w = range_regression(sums, a, idx + 1)
    n_p, mean_p, _sl2, _p2, std_p = range_regression(sums, c, a)
    n_t, _m, slope, t, _sd = range_regression(sums, b, idx + 1, with_t=True)
    abs_sums = np.concatenate([[0.0], np.cumsum(np.abs(y))])
    scale = (abs_sums[idx + 1] - abs_sums[c]) / np.maximum(idx + 1 - c, 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        noise = np.sqrt(std_w ** 2 / n_w + std_p ** 2 / n_p)
        improvement = mean_w - mean_p
        progress = improvement > np.maximum(s["min_delta"] * scale, 2 * noise)
        rising = (slope > 0) & (t > t_critical(n_t - 2))  # one-sided view of the two-sided 5 % test
    # judged only once the env has been active for two windows: the start of learning is often flat
    eligible = (steps - 2 * window >= max(active_from, int(steps[0]))) & (n_w >= min_points) & (n_p >= 2)
    # a rise larger than min_delta that the noise could explain is not judged either way: calling it
    # "no progress" would contradict the numbers
    stagnant = eligible & ~progress & ~rising & (improvement <= s["min_delta"] * scale)
    out = []
    # the level the env graduated at: a plateau there is graduation's wait, not stagnation
    grad_level = float(np.mean(y[max(0, len(y) - min_points):])) if graduates else None
    for i0, i1 in runs_of_true(stagnant):
        if grad_level is not None and (i1 == len(steps) - 1 or
                                       mean_w[i0:i1 + 1].min() >= grad_level - (1 - s["regression_threshold"])
                                       * abs(grad_level - start_level(y))):
            continue
        start = int(steps[_onset(steps, y, max(0, i0 - ONSET_LOOKBACK), i0)])
        resolved = i1 < len(steps) - 1 or resolved_after
        sparse = window > s["stagnation_window"]
        out.append(Incident(
            "training_stagnation", env.env_id, "warning", start, int(steps[i1]), resolved,
            f"no progress in {'training' if len(env.train) else 'eval'} performance since step {start} (judged over "
            f"{int(window)}-step windows: mean {env.show(mean_w[i0]):.4g} vs {env.show(mean_p[i0]):.4g} in the window "
            f"before, a change below the {max(s['min_delta'] * scale[i0], 2 * noise[i0]):.3g} that counts as progress, "
            f"and no significant rising trend)",
            {"window_steps": int(window), "points_in_window": int(n_w[i0]), "window_mean": round(env.show(float(mean_w[i0])), 6),
             "previous_window_mean": round(env.show(float(mean_p[i0])), 6),
             "improvement": round(float(improvement[i0]), 6),
             "min_improvement": round(float(max(s["min_delta"] * scale[i0], 2 * noise[i0])), 6),
             "trend_slope_per_step": None if np.isnan(slope[i0]) else float(slope[i0]),
             "trend_p_value": None if np.isnan(t[i0]) else round(t_pvalue(float(t[i0]), float(n_t[i0]) - 2), 4),
             "trend_horizon_steps": int(TREND_HORIZON * window), "detected_at_step": int(steps[i0]),
             **({"note": f"logging is sparse (one point per ~{dt:g} steps): the window was widened from "
                         f"{s['stagnation_window']} to {int(window)} steps to hold {min_points} points"}
                if sparse else {})}))
    return out


def _onset(steps: np.ndarray, y: np.ndarray, lo: int, i0: int) -> int:
    """Where the flat stretch detected at point i0 began: the break of the best-fitting hinge
    (a line up to the break, flat after it) over points lo..i0 (the active interval, at most
    ONSET_LOOKBACK points back); lo when nothing rose before.

    For a break at point k the regressor is z_i = min(x_i - x_k, 0); every break's least-squares
    fit comes from prefix sums, so all breaks cost O(n)."""
    x = (steps[lo: i0 + 1] - steps[lo]).astype(np.float64)
    v = y[lo: i0 + 1]
    n = len(x)
    if n < 4:
        return lo
    k = np.arange(n)  # points before the break: 0..k-1
    s1 = np.concatenate([[0.0], np.cumsum(x)])[:-1]
    sxx = np.concatenate([[0.0], np.cumsum(x * x)])[:-1]
    sy = np.concatenate([[0.0], np.cumsum(v)])[:-1]
    sxy = np.concatenate([[0.0], np.cumsum(x * v)])[:-1]
    sz = s1 - k * x
    szz = sxx - 2 * x * s1 + k * x * x
    szy = sxy - x * sy
    vz = szz - sz * sz / n
    cov = szy - sz * v.sum() / n
    with np.errstate(invalid="ignore", divide="ignore"):
        slope = np.where(vz > 0, cov / vz, 0.0)
        gain = np.where(vz > 0, cov * cov / vz, 0.0)  # SSE reduction of the hinge over a flat line
    gain[slope <= 0] = -np.inf  # a break only counts after a rise
    best = int(np.argmax(gain))
    return lo + best if np.isfinite(gain[best]) and gain[best] > 0 else lo
