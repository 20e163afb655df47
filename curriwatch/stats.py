"""Vectorised rolling statistics over one series (numpy / pandas, no Python loop per point)."""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import special


def trailing_median(values: np.ndarray, window: int) -> np.ndarray:
    """Median of the last `window` points at each point (fewer at the start)."""
    if window <= 1 or len(values) == 0:
        return values.astype(np.float64, copy=True)
    return pd.Series(values).rolling(window, min_periods=1).median().to_numpy()


def window_sums(x: np.ndarray, y: np.ndarray):
    """Cumulative sums (with a leading 0) used for O(1) regressions over any index range."""
    def c(a):
        out = np.empty(len(a) + 1)
        out[0] = 0.0
        np.cumsum(a, out=out[1:])
        return out

    return c(np.ones_like(y)), c(x), c(y), c(x * x), c(x * y), c(y * y)


def range_regression(sums, lo: np.ndarray, hi: np.ndarray):
    """OLS of y on x over index ranges [lo, hi) for many ranges at once.

    Returns (n, mean_y, slope, p_two_sided, std_y (population)); p is NaN where n < 3 or x is constant.
    x is shifted per range before use, so large step numbers do not lose precision.
    """
    n_c, x_c, y_c, xx_c, xy_c, yy_c = sums
    n = n_c[hi] - n_c[lo]
    sx, sy = x_c[hi] - x_c[lo], y_c[hi] - y_c[lo]
    sxx, sxy, syy = xx_c[hi] - xx_c[lo], xy_c[hi] - xy_c[lo], yy_c[hi] - yy_c[lo]
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_y = sy / n
        vxx = sxx - sx * sx / n
        vxy = sxy - sx * sy / n
        vyy = np.maximum(syy - sy * sy / n, 0.0)
        slope = np.where(vxx > 0, vxy / vxx, np.nan)
        resid = np.maximum(vyy - slope * vxy, 0.0)
        df = n - 2
        se = np.sqrt(resid / df / vxx)
        t = np.where(se > 0, slope / se, np.where(slope != 0, np.inf * np.sign(slope), 0.0))
        p = np.where((df >= 1) & (vxx > 0), 2 * special.stdtr(np.maximum(df, 1), -np.abs(t)), np.nan)
        std = np.sqrt(vyy / n)
    return n, mean_y, slope, p, std


def trend(steps: np.ndarray, values: np.ndarray) -> tuple[float, float]:
    """(slope per step, two-sided p) of one series; NaNs when it cannot be judged."""
    if len(values) < 3:
        return float("nan"), float("nan")
    x = steps.astype(np.float64) - float(steps[0])
    sums = window_sums(x, values.astype(np.float64))
    _n, _m, slope, p, _s = range_regression(sums, np.array([0]), np.array([len(values)]))
    return float(slope[0]), float(p[0])
