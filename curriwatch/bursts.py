"""Bursts: a stretch where a series' point-to-point changes grow far beyond the rest of it.

The scan ranks the sizes of the series' second differences (which ignore its level and any local
trend) and finds the stretch whose ranks sit highest: a rank statistic, so heavy tails, outliers and
ties (rates on a lattice) keep its null distribution, and a burst of any shape — gaussian, clipped at a
bound, one-sided — moves it the same way.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

LENGTH_RATIO = 1.2  # candidate lengths grow geometrically by this ratio (then refined point by point)
REFINE_MAX = 200  # the refinement moves each end by at most this many points
REFINE_GAIN = 2.0  # refining a stretch's ends raises its z by less than this (at most 1.5 seen; lengths 1.2 x apart)
CAP = 10.0  # the ends are set by sizes capped at this x the median size outside the burst
LAGS = (1, 2)  # second differences of neighbouring points share points up to this lag


@dataclass(frozen=True)
class Burst:
    """Points first..last (indices into the series) of a burst; `z` its rank statistic (a z score)
    and `ratio` the median change inside over the median change outside."""

    first: int
    last: int
    z: float
    ratio: float


def second_differences(y: np.ndarray) -> np.ndarray:
    """|y[i-1] - 2 y[i] + y[i+1]| at each inner point i (index i-1 of the result)."""
    return np.abs(y[:-2] - 2.0 * y[1:-1] + y[2:])


def burst(y: np.ndarray, min_len: int, min_after: int, z_min: float = -np.inf) -> Burst | None:
    """The stretch of at least `min_len` points whose second differences rank highest against the
    rest of the series (the largest standardised rank sum), at most as long as the rest and ending at
    least `min_after` points before the series does; None for a series too short to hold one, or when
    no stretch comes within REFINE_GAIN of `z_min` before its ends are refined. Its ends
    are then set by the sizes themselves, where a burst's large changes stand out from the top of the
    noise that ranks alone do not tell apart."""
    d = second_differences(np.asarray(y, dtype=np.float64))
    n = len(d)
    if n < min_len + max(min_after, min_len):
        return None
    c = _centred(_ranks(d))
    prefix = np.concatenate([[0.0], np.cumsum(c)])
    var = float(np.mean(c * c))
    if not var > 0:
        return None
    last_end = n - min_after  # a stretch [a, b) of changes ends by here
    longest = min(last_end, n // 2)
    best = (-np.inf, 0, 0)
    length = min_len
    while length <= longest:
        s = prefix[length: last_end + 1] - prefix[: last_end + 1 - length]
        a = int(np.argmax(s))
        z = s[a] / _sd(length, n, var)
        if z > best[0]:
            best = (float(z), a, a + length)
        length = max(length + 1, int(length * LENGTH_RATIO))
    if not np.isfinite(best[0]) or best[0] < z_min - REFINE_GAIN:
        return None
    z, a, b = _refined(prefix, n, var, best[1], best[2], min_len, longest, last_end)
    z /= _inflation(np.concatenate([c[:a], c[b:]]))  # the burst's own clustering is not noise
    a, b = _ends(d, a, b, min_len, longest, last_end)
    inside = float(np.median(d[a:b]))
    outside = float(np.median(np.concatenate([d[:a], d[b:]])))
    ratio = inside / outside if outside > 0 else (np.inf if inside > 0 else 1.0)
    # d[k] = |y[k] - 2 y[k+1] + y[k+2]|: changes a..b-1 are large when points a+2..b-1 moved (the
    # first and the last of them also reach one point outside)
    return Burst(min(a + 2, b - 1), b - 1, z, ratio)


def _ends(d: np.ndarray, a: int, b: int, min_len: int, longest: int, last_end: int) -> tuple[int, int]:
    """The ends near (a, b) under which the sizes are likeliest as two gaussian scales, one inside and
    one outside, each size capped at CAP x the median outside (a stray outlier cannot pull an end to it)."""
    n = len(d)
    cap = CAP * float(np.median(np.concatenate([d[:a], d[b:]])))
    if not cap > 0:
        cap = CAP * float(np.median(d[a:b]))
        if not cap > 0:
            return a, b
    u = np.minimum(d, cap) ** 2
    floor = 1e-12 * cap * cap  # a stretch of exact zeros (a rate at its bound)
    prefix = np.concatenate([[0.0], np.cumsum(u)])
    total = prefix[-1]
    starts, ends = _near(a, b, last_end)
    s_in = prefix[ends][None, :] - prefix[starts][:, None]
    length = ends[None, :] - starts[:, None]
    ok = (length >= min_len) & (length <= longest)
    length = np.maximum(length, 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        cost = length * np.log(np.maximum(s_in / length, floor)) + \
            (n - length) * np.log(np.maximum((total - s_in) / (n - length), floor))
    cost = np.where(ok, cost, np.inf)
    i, j = np.unravel_index(int(np.argmin(cost)), cost.shape)
    return int(starts[i]), int(ends[j])


def _ranks(d: np.ndarray) -> np.ndarray:
    """Ranks 1..n, ties sharing their average rank (a lattice's equal changes)."""
    _, inv, cnt = np.unique(d, return_inverse=True, return_counts=True)
    return (np.cumsum(cnt) - (cnt - 1) / 2.0)[inv]


def _centred(x: np.ndarray) -> np.ndarray:
    return x - float(np.mean(x))


def _inflation(c: np.ndarray) -> float:
    """How much wider a long stretch's rank sum spreads than for independent ranks: neighbouring
    second differences share points (an outlier makes three large ones in a row), and heavy tails make
    that sharing matter: sqrt(1 + 2 x the ranks' lag-1 and lag-2 autocorrelations), never below 1."""
    c = _centred(c)
    den = float(np.sum(c * c))
    if not den > 0:
        return 1.0
    rho = sum(float(np.sum(c[k:] * c[:-k])) / den for k in LAGS)
    return float(np.sqrt(max(1.0, 1.0 + 2.0 * rho)))


def _sd(length, n: int, var: float):
    """The sd of the sum of `length` of n exchangeable centred values of variance `var` (drawn
    without replacement)."""
    return np.sqrt(var * length * (n - length) / (n - 1))


def _refined(prefix: np.ndarray, n: int, var: float, a: int, b: int, min_len: int, longest: int,
             last_end: int) -> tuple[float, int, int]:
    """The best stretch with ends near (a, b): every start within reach of a against every end within
    reach of b (min_len to `longest` long, ending by last_end)."""
    starts, ends = _near(a, b, last_end)
    s = prefix[ends][None, :] - prefix[starts][:, None]
    length = ends[None, :] - starts[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        z = np.where((length >= min_len) & (length <= longest), s / _sd(np.maximum(length, 1), n, var), -np.inf)
    i, j = np.unravel_index(int(np.argmax(z)), z.shape)
    return float(z[i, j]), int(starts[i]), int(ends[j])


def _near(a: int, b: int, last_end: int) -> tuple[np.ndarray, np.ndarray]:
    """Starts within reach of a and ends within reach of b (half the stretch, at most REFINE_MAX)."""
    reach = min(REFINE_MAX, max(1, (b - a) // 2))
    return (np.arange(max(0, a - reach), min(a + reach, last_end) + 1),
            np.arange(max(b - reach, 1), min(b + reach, last_end) + 1))
