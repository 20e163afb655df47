"""The burst scan (curriwatch.bursts): silent on white noise of any shape, exact on a burst's ends."""
import numpy as np
import pytest

from curriwatch.bursts import burst
from curriwatch.rules.volatility import BURST_RATIO, BURST_RATIO_WHITE, BURST_Z, _white, burst_z_min


def _noise(kind: str, n: int, rng) -> np.ndarray:
    return {"gauss": lambda: rng.normal(size=n),
            "cauchy": lambda: rng.standard_t(1, size=n),
            "uniform": lambda: rng.uniform(-1, 1, n),
            "binomial 32 at 0.5": lambda: rng.binomial(32, 0.5, n) / 32,
            "binomial 32 at 0.95": lambda: rng.binomial(32, 0.95, n) / 32,
            "contaminated": lambda: np.where(rng.uniform(size=n) < 0.05, rng.normal(0, 10, n), rng.normal(size=n)),
            "clipped at 1": lambda: np.minimum(rng.normal(0.95, 0.05, n), 1.0)}[kind]()


@pytest.mark.parametrize("kind", ["gauss", "cauchy", "uniform", "binomial 32 at 0.5", "binomial 32 at 0.95",
                                  "contaminated", "clipped at 1"])
@pytest.mark.parametrize("n", [60, 400, 3000])
def test_white_noise_of_any_shape_holds_no_burst(kind, n):
    """Neighbouring second differences share points, and an outlier makes three large ones in a row:
    without the correction for that clustering Cauchy noise reaches z 7 in long series."""
    rng = np.random.default_rng(n)
    for _ in range(20):
        b = burst(_noise(kind, n, rng), 10, 10)
        assert not (b.z >= burst_z_min(n) and b.ratio >= BURST_RATIO_WHITE), (kind, n, b)


@pytest.mark.parametrize("kind,factor,slack", [("gauss", 6.0, 4), ("uniform", 6.0, 4), ("t3", 6.0, 20)])
def test_a_burst_is_found_with_its_ends(kind, factor, slack):
    """Light tails: the ends to within a few points; heavy tails: a calm outlier beside the burst may join it."""
    for seed in (3, 4, 5, 6):
        rng = np.random.default_rng(seed)
        y = rng.standard_t(3, size=600) if kind == "t3" else _noise(kind, 600, rng)
        y[300:330] *= factor
        b = burst(y, 10, 10)
        assert b.z >= BURST_Z and b.ratio >= BURST_RATIO, (seed, b)
        assert abs(b.first - 300) <= slack and abs(b.last - 329) <= slack, (seed, b)


def test_a_level_shift_or_a_trend_is_no_burst():
    rng = np.random.default_rng(4)
    shift = np.concatenate([rng.normal(0, 1, 300), rng.normal(20, 1, 300)])
    trend = rng.normal(0, 1, 600) + np.linspace(0, 200, 600)
    for y in (shift, trend):
        b = burst(y, 10, 10)
        assert b.z < BURST_Z, b


def test_too_short_a_series_holds_none():
    assert burst(np.arange(15.0), 10, 10) is None


@pytest.mark.parametrize("kind", ["gauss", "cauchy", "uniform", "binomial 32 at 0.5", "contaminated", "clipped at 1"])
def test_white_noise_is_told_from_smoothed_or_wandering_noise(kind):
    """A ratio under BURST_RATIO counts only in white noise: its changes' lag-1 correlation is about -0.5;
    a 20-point rolling mean's or an AR(1) wander's (coefficient 0.9) is about 0 (-0.05)."""
    rng = np.random.default_rng(11)
    y = _noise(kind, 400, rng)
    assert _white(y)
    assert not _white(np.convolve(y, np.ones(20) / 20, mode="valid"))
    e = rng.normal(size=400)
    ar = np.zeros(400)
    for i in range(1, 400):
        ar[i] = 0.9 * ar[i - 1] + e[i]
    assert not _white(ar)
