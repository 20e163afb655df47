"""performance_volatility: performance swings far beyond the env's own noise level."""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import pandas as pd

from ..envdata import EnvData, Series
from ..incidents import Incident, runs_of_true
from ..stats import range_regression, window_sums
from . import register

QUIET_QUANTILE = 0.75  # the env's own noise: read off its quieter windows (a volatile env may be volatile most of its life)
SQRT2 = np.sqrt(2.0)


REGIME_RATIO = 3.0  # detrended spread over the median point noise that counts as switching between levels
REGIME_WINDOWS = 2  # ... sustained over this many windows (a level shift or a learning curve lasts one)


@register("performance_volatility", "point-to-point robust coefficient of variation over `window` points "
          "above `threshold` and above noise_factor x what the env's noise explains; or switching between "
          "levels (detrended spread > 3 x the median point noise) sustained over 2 windows")
def performance_volatility(env: EnvData, s: dict) -> list[Incident]:
    if not len(env.train):  # eval-only logging: the evals are all there is
        return _volatility_in(env, "eval", env.eval, s)
    parts = [("train", env.train.in_states(env.timeline, ("active", "graduated"))),
             ("eval", env.eval.in_states(env.timeline, ("graduated",)))]
    out = []
    for name, part in parts:
        out += _volatility_in(env, name, part, s)
    return out


@lru_cache(maxsize=None)
def _swing_constant(window: int) -> float:
    """E[swing_spread] for unit Gaussian noise at this window (a fixed-seed simulation), so the
    spread reads as a standard deviation."""
    rng = np.random.default_rng(12345)
    d = np.abs(np.diff(rng.normal(size=(4000, window)), axis=1))
    return float(((d.sum(axis=1) - 2 * d.max(axis=1)) / (d.shape[1] - 2)).mean())


def swing_spread(values: np.ndarray, window: int, min_points: int) -> tuple[np.ndarray, np.ndarray]:
    """(rolling median level, rolling spread of point-to-point changes as a noise sd) at each point.

    Changes between neighbours ignore trends and single steps (a learning curve or a regression is
    not volatility). The largest change is taken out twice, so one outlier point — which makes two
    large changes — cannot fire."""
    level = pd.Series(values).rolling(window, min_periods=min_points).median().to_numpy()
    changes = pd.Series(np.abs(np.diff(values, prepend=np.nan)))
    roll = changes.rolling(window - 1, min_periods=max(min_points - 1, 4))
    count = roll.count().to_numpy()
    trimmed = (roll.sum().to_numpy() - 2 * roll.max().to_numpy()) / np.maximum(count - 2, 1)
    return level, trimmed / _swing_constant(window)


def regime_spread(values: np.ndarray, window: int, min_points: int) -> np.ndarray:
    """The spread around each trailing window's fitted line (a population sd), NaN under min_points."""
    n = len(values)
    idx = np.arange(n)
    lo = np.maximum(idx - window + 1, 0)
    x = idx.astype(np.float64)
    cnt, _m, slope, _t, std = range_regression(window_sums(x - x.mean() if n else x, values), lo, idx + 1)
    with np.errstate(invalid="ignore"):
        sxx = cnt * (cnt * cnt - 1) / 12.0  # consecutive indices
        resid = np.sqrt(np.maximum(std * std - np.nan_to_num(slope) ** 2 * sxx / np.maximum(cnt, 1), 0.0))
    resid[cnt < min_points] = np.nan
    return resid


def median_point_noise(values: np.ndarray, window: int, min_points: int) -> np.ndarray:
    """Each window's median |change between neighbours| as a noise sd: level switches (a minority
    of the changes) do not move it."""
    changes = pd.Series(np.abs(np.diff(values, prepend=np.nan)))
    return changes.rolling(window - 1, min_periods=max(min_points - 1, 4)).median().to_numpy() / 0.9539


def expected_noise(values: np.ndarray, level: np.ndarray, sd: np.ndarray, counts: np.ndarray | None = None,
                   window: int = 30, n_ref: float | None = None) -> np.ndarray:
    """The spread noise explains at each point.

    For rates in [0, 1] the binomial sqrt(p(1-p)/n): with n from the log's observation counts where
    it carries them, else the run's other envs' effective n (`n_ref`). Otherwise (or with neither)
    the larger of two models fitted on the env's own quieter windows: a constant noise floor and
    the binomial shape for rates."""
    valid = ~np.isnan(sd) & ~np.isnan(level)
    if not valid.any():
        return np.full(len(values), np.nan)
    rate = values.min() >= 0 and values.max() <= 1
    p = np.clip(level, 0.02, 0.98)
    var = p * (1 - p)
    if rate and counts is not None and np.isfinite(counts).all() and (counts > 0).all():
        return np.sqrt(var / pd.Series(counts).rolling(window, min_periods=1).mean().to_numpy())
    if rate and n_ref is not None:
        return np.sqrt(var / n_ref)
    noise = np.full(len(values), float(np.quantile(sd[valid], 1 - QUIET_QUANTILE)))
    if rate:
        ok = valid & (sd > 0)
        if ok.any():
            n_eff = float(np.quantile(var[ok] / sd[ok] ** 2, QUIET_QUANTILE))
            noise = np.fmax(noise, np.sqrt(var / n_eff))
    return noise


def effective_n(values: np.ndarray) -> float | None:
    """A rate series' effective observations per point: p(1-p) / its point-to-point noise variance
    (half the mean squared change), None when it is not a rate or too short to say."""
    if len(values) < 20 or values.min() < 0 or values.max() > 1:
        return None
    var = float(np.mean(np.diff(values) ** 2)) / 2
    p = min(max(float(np.median(values)), 0.02), 0.98)
    return p * (1 - p) / var if var > 0 else None


def _volatility_in(env: EnvData, name: str, part: Series, s: dict) -> list[Incident]:
    window, min_points = s["window"], s["min_points"]
    if len(part) < max(min_points, 3):
        return []
    y = part.values
    level, sd = swing_spread(y, window, min_points)
    noise = expected_noise(y, level, sd, part.counts, window, env.cache.get("run_effective_n"))
    resid = regime_spread(y, window, min_points)
    scale = np.fmax(np.abs(level), float(np.subtract(*np.quantile(y, [0.95, 0.05]))))
    with np.errstate(invalid="ignore", divide="ignore"):
        cv = sd / np.abs(level)
        fire = (cv > s["threshold"]) & (sd > s["noise_factor"] * noise)
        regime = (resid / scale > s["threshold"]) & (resid > s["noise_factor"] * noise)
    fire &= ~np.isnan(cv)
    regime &= ~np.isnan(resid)
    point_noise = np.full(len(y), np.nan)
    long_regime = np.zeros(len(y), bool)
    if any(i1 - i0 + 1 >= REGIME_WINDOWS * window for i0, i1 in runs_of_true(regime)):  # the median only if needed
        point_noise = median_point_noise(y, window, min_points)
        with np.errstate(invalid="ignore"):
            regime &= resid > REGIME_RATIO * point_noise
    for i0, i1 in runs_of_true(regime) if not np.isnan(point_noise).all() else []:
        if i1 - i0 + 1 >= REGIME_WINDOWS * window:
            long_regime[i0: i1 + 1] = True  # the onset search below looks back into the first window
    switching = long_regime & ~fire
    fire |= long_regime
    cv = np.where(switching, resid / scale, cv)
    sd = np.where(switching, resid, sd)
    out = []
    for i0, i1 in runs_of_true(fire):
        if i1 - i0 + 1 < min_points:
            continue  # a burst shorter than min_points points is not sustained volatility
        # onset: the first change in the first firing window far beyond the noise
        w0 = max(1, i0 - window + 2)
        jumps = np.abs(np.diff(y[w0 - 1: i0 + 1]))
        far = np.flatnonzero(jumps > 3 * SQRT2 * noise[i0])
        onset = w0 - 1 + int(far[0]) if len(far) else i0
        peak = int(np.nanargmax(cv[i0: i1 + 1])) + i0
        out.append(Incident(
            "performance_volatility", env.env_id, "warning", int(part.steps[onset]), int(part.steps[i1]),
            i1 < len(y) - 1,
            (f"{name} performance switches between levels: spread {sd[peak]:.3g} around its trend over {window} "
             f"points, {resid[peak] / point_noise[peak]:.1f}x its point noise, for {i1 - i0 + 1} points"
             if switching[peak] else
             f"{name} performance swings: robust CV {cv[peak]:.2f} over {window} points "
             f"(threshold {s['threshold']}); spread {sd[peak]:.3g} where its noise explains {noise[peak]:.3g}"),
            {"series": name, "kind": "switching" if switching[peak] else "swings",
             "robust_cv": round(float(cv[peak]), 4), "threshold": s["threshold"],
             "robust_sd": round(float(sd[peak]), 6), "level": round(env.show(float(level[peak])), 6),
             "expected_noise_sd": round(float(noise[peak]), 6), "noise_factor": s["noise_factor"],
             "window_points": window, "peak_step": int(part.steps[peak])}))
    return out
