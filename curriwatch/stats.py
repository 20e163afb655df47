"""Vectorised statistics over one series: medians, range regressions from prefix sums, trends (no scipy)."""
from __future__ import annotations

import math

import numpy as np

Z_975 = 1.959963984540054  # standard normal quantile at 0.975
MEDIAN_ABS_CHANGE = 0.954  # the median |change| between two independent points of unit noise (sqrt 2 x 0.6745)
T_975 = np.array([np.nan, 12.7062047362, 4.3026527297, 3.1824463053, 2.7764451052, 2.5705818356, 2.4469118511,
                  2.3646242516, 2.3060041352, 2.2621571628, 2.228138852])  # Student t quantiles, df 1..10


def median(values) -> float:
    """The median of a 1-d array, NaN when empty: numpy's np.median costs ~20 µs a call in checks,
    which an analysis of 10,000 small envs pays hundreds of thousands of times."""
    a = np.asarray(values, dtype=np.float64)
    n = a.size
    if n == 0:
        return float("nan")
    m = n // 2
    if n <= 64:
        a = np.sort(a, axis=None)
    else:
        a = np.partition(a.ravel(), (m - 1, m) if n % 2 == 0 else m)
    return float(a[m]) if n % 2 else 0.5 * (float(a[m - 1]) + float(a[m]))


def trailing_median(values: np.ndarray, window: int) -> np.ndarray:
    """Median of the last `window` points at each point (fewer at the start)."""
    if window <= 1 or len(values) == 0:
        return values.astype(np.float64, copy=True)
    if window <= 8:  # small windows: numpy over a sliding view (pandas' rolling costs ~0.5 ms a call)
        v = values.astype(np.float64)
        out = np.empty(len(v))
        head = min(window - 1, len(v))
        for i in range(head):  # fewer points at the start
            out[i] = median(v[: i + 1])
        if len(v) >= window:
            out[window - 1:] = np.median(np.lib.stride_tricks.sliding_window_view(v, window), axis=1)
        return out
    import pandas as pd

    return pd.Series(values).rolling(window, min_periods=1).median().to_numpy()


def centred_mean(x: np.ndarray, half: int) -> np.ndarray:
    """Centred running mean over 2 * half + 1 points (fewer at the ends); real or complex values."""
    c = np.concatenate([[0.0], np.cumsum(x)])
    i = np.arange(len(x))
    lo, hi = np.maximum(i - half, 0), np.minimum(i + half + 1, len(x))
    return (c[hi] - c[lo]) / (hi - lo)


def window_sums(x: np.ndarray, y: np.ndarray):
    """Cumulative sums (with a leading 0) used for O(1) regressions over any index range."""
    def c(a):
        out = np.empty(len(a) + 1)
        out[0] = 0.0
        np.cumsum(a, out=out[1:])
        return out

    return c(np.ones_like(y)), c(x), c(y), c(x * x), c(x * y), c(y * y)


def range_regression(sums, lo: np.ndarray, hi: np.ndarray, with_t: bool = False):
    """OLS of y on x over index ranges [lo, hi) for many ranges at once.

    Returns (n, mean_y, slope, t, std_y (population)); t is the slope's t statistic (n - 2 degrees
    of freedom), NaN where n < 3 or x is constant, and only computed when `with_t` (else None).
    x is shifted per range before use, so large step numbers do not lose precision.
    """
    n_c, x_c, y_c, xx_c, xy_c, yy_c = sums
    n = n_c[hi] - n_c[lo]
    sx, sy = x_c[hi] - x_c[lo], y_c[hi] - y_c[lo]
    sxx, sxy, syy = xx_c[hi] - xx_c[lo], xy_c[hi] - xy_c[lo], yy_c[hi] - yy_c[lo]
    t = None
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_y = sy / n
        vxx = sxx - sx * sx / n
        vxy = sxy - sx * sy / n
        vyy = np.maximum(syy - sy * sy / n, 0.0)
        slope = np.where(vxx > 0, vxy / vxx, np.nan)
        if with_t:
            resid = np.maximum(vyy - slope * vxy, 0.0)
            df = n - 2
            se = np.sqrt(resid / df / vxx)
            t = np.where(se > 0, slope / se, np.where(slope != 0, np.inf * np.sign(slope), 0.0))
            t = np.where((df >= 1) & (vxx > 0), t, np.nan)
        std = np.sqrt(vyy / n)
    return n, mean_y, slope, t, std


def t_critical(df: np.ndarray) -> np.ndarray:
    """Two-sided 5 % critical value of Student's t for each df: a table up to df 10, a
    Cornish-Fisher expansion above (under 1e-5 off there)."""
    df = np.asarray(df, dtype=np.float64)
    z = Z_975
    with np.errstate(invalid="ignore", divide="ignore"):
        v = np.maximum(df, 1.0)
        cf = (z + (z ** 3 + z) / (4 * v) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * v ** 2)
              + (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / (384 * v ** 3)
              + (79 * z ** 9 + 776 * z ** 7 + 1482 * z ** 5 - 1920 * z ** 3 - 945 * z) / (92160 * v ** 4))
    small = T_975[np.clip(np.nan_to_num(df, nan=0.0), 0, 10).astype(np.int64)]
    return np.where(df < 10.5, small, cf)


def significant_trend(steps: np.ndarray, values: np.ndarray) -> float:
    """The slope per step of one series when it differs from 0 at the two-sided 5 % level (|t| over
    Student's critical value: no p-value to compute), else NaN."""
    if len(values) < 3:
        return float("nan")
    x = steps.astype(np.float64) - float(steps[0])
    sums = window_sums(x, values.astype(np.float64))
    n, _m, slope, t, _s = range_regression(sums, np.array([0]), np.array([len(values)]), with_t=True)
    if not np.isfinite(t[0]) or abs(t[0]) <= t_critical(n - 2)[0]:
        return float("nan")
    return float(slope[0])


def lag1_correlation(x: np.ndarray) -> float:
    """Lag-1 autocorrelation of x as given (centre it first): sum x_t x_t-1 / sum x_t^2; 0 for fewer than
    3 points or none off zero."""
    x = np.asarray(x, dtype=np.float64)
    d = float(np.dot(x, x))
    return float(np.dot(x[1:], x[:-1])) / d if d > 0 and len(x) > 2 else 0.0


def binomial_tail(m: int, k: int, p: float) -> float:
    """P(Binomial(m, p) >= k), summed in log space (long stretches, small rates)."""
    if k <= 0:
        return 1.0
    if k > m or p <= 0:
        return 0.0
    if p >= 1:
        return 1.0
    logs = [math.lgamma(m + 1) - math.lgamma(j + 1) - math.lgamma(m - j + 1) + j * math.log(p)
            + (m - j) * math.log1p(-p) for j in range(k, m + 1)]
    top = max(logs)
    return math.exp(top) * sum(math.exp(x - top) for x in logs)
