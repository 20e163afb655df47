"""performance_volatility: performance switches between levels, or swings point to point, far beyond
what its noise explains."""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..envdata import EnvData
from ..incidents import Incident, runs_of_true
from ..levels import SWITCH_CHANGES, env_scale, episodes, fit
from . import register

QUIET_QUANTILE = 0.25  # a gaussian series' own noise: the quieter quarter of its windows
SQRT2 = np.sqrt(2.0)


@register("performance_volatility", "train or eval performance switches between two levels (at least "
          f"{SWITCH_CHANGES} alternating changes, each over `threshold` x the env's learned range and 4 standard "
          "errors) or swings point to point (robust spread over `window` points above `threshold` x the range and "
          "`noise_factor` x the noise: binomial for rates, else the env's quieter stretches or its siblings'); a "
          "learning curve, a level shift, a fall that recovers once and single outliers are not volatility")
def performance_volatility(env: EnvData, s: dict) -> list[Incident]:
    scale = env_scale(env)
    width = (scale[1] - scale[0]) if scale else 0.0
    events = [_switching_event(ep) for ep in episodes(env)]
    for split in ("train", "eval"):
        events += _swings(env, split, s, width)
    out = []
    for ev in _merged(events):
        ongoing = ev["last_step"] >= ev["series_last_step"]
        if ev["kind"] == "switching":
            msg = (f"{ev['split']} performance switches between ~{env.show(ev['high']):.3g} and "
                   f"~{env.show(ev['low']):.3g}: {ev['changes']} changes of level from step {ev['first_step']} to "
                   f"{ev['last_step']} (phases of ~{ev['phase_steps']:.0f} steps)")
            evidence = {"series": ev["split"], "kind": "switching", "changes": ev["changes"],
                        "high_level": round(env.show(ev["high"]), 6), "low_level": round(env.show(ev["low"]), 6),
                        "typical_phase_steps": round(ev["phase_steps"], 1)}
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


def _switching_event(ep) -> dict:
    return {"kind": "switching", "split": ep.split, "first_step": ep.first_step, "last_step": ep.last_step,
            "changes": ep.changes, "high": ep.high, "low": ep.low, "phase_steps": ep.phase_steps,
            "series_last_step": ep.series_last_step, "weight": ep.changes}


@lru_cache(maxsize=None)
def _swing_constant(window: int) -> float:
    """E[swing spread] for unit Gaussian noise at this window (a fixed-seed simulation), so the
    spread reads as a standard deviation."""
    rng = np.random.default_rng(12345)
    d = np.abs(np.diff(rng.normal(size=(4000, window)), axis=1))
    return float(((d.sum(axis=1) - 2 * d.max(axis=1)) / (d.shape[1] - 2)).mean())


def swing_spread(values: np.ndarray, window: int) -> np.ndarray:
    """At each point, the spread of the last `window` points' changes between neighbours as a noise
    sd (NaN before a full window). Changes between neighbours ignore trends and single steps; the
    largest change is taken out twice, so one outlier — which makes two large changes — cannot fire."""
    n = len(values)
    out = np.full(n, np.nan)
    m = window - 1
    if n < window:
        return out
    d = np.abs(np.diff(values))
    c = np.concatenate([[0.0], np.cumsum(d)])
    sums = c[m:] - c[:-m]
    maxes = np.lib.stride_tricks.sliding_window_view(d, m).max(axis=1)
    out[window - 1:] = (sums - 2 * maxes) / (m - 2) / _swing_constant(window)
    return out


def _swings(env: EnvData, split: str, s: dict, width: float) -> list[dict]:
    """Stretches of at least `min_points` points where the point-to-point spread is beyond both
    `threshold` x the env's range and `noise_factor` x the noise the series should have."""
    f = fit(env, split)
    y = f.series.values
    window = s["window"]
    if len(y) < max(window, s["min_points"]) or not width > 0:
        return []
    spread = swing_spread(y, window)
    noise = _expected_noise(env, f, spread)
    with np.errstate(invalid="ignore"):
        fire = (spread > s["threshold"] * width) & (spread > s["noise_factor"] * noise)
    out = []
    steps = f.series.steps
    for i0, i1 in runs_of_true(fire):
        if i1 - i0 + 1 < s["min_points"]:
            continue
        # onset: the first change in the first firing window far beyond the noise
        w0 = max(1, i0 - window + 2)
        jumps = np.abs(np.diff(y[w0 - 1: i0 + 1]))
        far = np.flatnonzero(jumps > max(3 * SQRT2 * noise[i0], s["threshold"] * width))
        onset = w0 - 1 + int(far[0]) if len(far) else i0
        peak = int(np.nanargmax(spread[i0: i1 + 1] / noise[i0: i1 + 1])) + i0
        out.append({"kind": "swings", "split": split, "first_step": int(steps[onset]), "last_step": int(steps[i1]),
                    "spread": float(spread[peak]), "noise": float(noise[peak]), "peak_step": int(steps[peak]),
                    "series_last_step": int(steps[-1]), "weight": 0})
    return out


def _expected_noise(env: EnvData, f, spread: np.ndarray) -> np.ndarray:
    """The point noise sd the series should show at each point: for binomial rates the model at the
    local level (its trials widened by any overdispersion the whole series shows); else the quieter
    quarter of its own spreads, or the siblings' noise when that is lower (an env noisy all its life)."""
    level = f.segments.fit()
    ref = env.cache.get("noise_reference") or {}
    shared = env.cache.get("reference") is not None
    if f.noise.kind == "binomial":  # its own trials are known: the siblings' do not apply
        return np.asarray(f.noise.raw_sd(level), dtype=np.float64)
    valid = spread[np.isfinite(spread)]
    quiet = float(np.quantile(valid, QUIET_QUANTILE)) if len(valid) else 0.0
    raw = f.series.values * env.sign
    if env.sign == 1 and raw.min() >= 0 and raw.max() <= 1 and ref.get("trials"):
        p = np.clip(level, 0.02, 0.98)
        return np.minimum(quiet, np.sqrt(p * (1 - p) / ref["trials"]))
    if shared and ref.get("sd"):
        quiet = min(quiet, ref["sd"])
    return np.full(len(level), quiet)


def _merged(events: list[dict]) -> list[dict]:
    """Events of train and eval (switching or swings) that overlap are one: the earliest start, the
    latest end; the message and evidence of the switching one (else the larger)."""
    out: list[dict] = []
    for ev in sorted(events, key=lambda e: e["first_step"]):
        if out and ev["first_step"] <= out[-1]["last_step"]:
            prev = out[-1]
            keep = dict(ev if ev["weight"] > prev["weight"] else prev)
            keep["first_step"] = min(prev["first_step"], ev["first_step"])
            keep["last_step"] = max(prev["last_step"], ev["last_step"])
            keep["series_last_step"] = max(prev["series_last_step"], ev["series_last_step"])
            out[-1] = keep
            continue
        out.append(dict(ev))
    return out
