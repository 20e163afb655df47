"""The periodogram line test of curriwatch.oscillation: waves found and dated, noise of every kind not."""
import numpy as np
import pytest

from curriwatch.oscillation import oscillations


def _rise(n):
    t = np.arange(n)
    return 0.1 + 0.8 * (1 - np.exp(-t / 30))


@pytest.mark.parametrize("period", [6, 11, 24])
def test_a_wave_that_starts_late_is_found_and_dated(period):
    rng = np.random.default_rng(period)
    y = _rise(800)
    y[300:] = 0.6 + 0.3 * np.cos(2 * np.pi * np.arange(500) / period)
    (o,) = oscillations(y + rng.normal(0, 0.03, 800), 0.03, 0.8)
    assert abs(o.period - period) < 0.1 * period
    assert abs(o.first - 300) <= period / 2 and o.last >= 790
    assert o.peak_to_peak == pytest.approx(0.6, rel=0.15)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("kind", ["gauss", "t3", "ar1", "uniform", "binomial8"])
def test_noise_of_any_kind_is_no_wave(kind, seed):
    rng = np.random.default_rng(seed)
    n = 3000
    base = _rise(n)
    if kind == "gauss":
        y, sd = base + rng.normal(0, 0.08, n), 0.08
    elif kind == "t3":
        y, sd = base + 0.05 * rng.standard_t(3, n), 0.05
    elif kind == "uniform":
        y, sd = base + rng.uniform(-0.2, 0.2, n), 0.115
    elif kind == "binomial8":
        y, sd = rng.binomial(8, np.clip(base, 0, 1)) / 8, 0.1
    else:  # AR(1), phi 0.9: slow wander, a smooth red spectrum
        e, z = np.zeros(n), rng.normal(0, 0.03, n)
        for i in range(1, n):
            e[i] = 0.9 * e[i - 1] + z[i]
        y, sd = base + e, 0.03
    assert oscillations(y, sd, 0.8) == []


def test_a_wave_smaller_than_the_range_share_is_not_reported():
    y = _rise(600)
    y[200:] = 0.85 + 0.05 * np.cos(2 * np.pi * np.arange(400) / 10)  # peak-to-peak 0.1 of a 0.8 range
    assert oscillations(y, 0.005, 0.8) == []


@pytest.mark.parametrize("seed", range(5))
def test_a_wave_logged_per_episode_at_irregular_steps_is_found(seed):
    """CleanRL logs a return per finished episode: a wave over training iterations reaches the points
    at irregular phases (here one iteration in ten ends 3 or 5 episodes instead of 4), which spreads
    its line over a few frequencies. The continuum is read beyond that spread. A return oscillating all
    its life has no learned range (width 0): it is judged against its noise alone."""
    rng = np.random.default_rng(seed)
    per_iteration = rng.choice([3, 4, 5], 1000, p=[0.05, 0.9, 0.05])
    t = np.repeat(np.arange(1000), per_iteration) + np.concatenate([np.arange(k) / k for k in per_iteration])
    y = 1500 + 700 * np.cos(2 * np.pi * t / 3) + rng.normal(0, 30, len(t))
    found = oscillations(y, 30.0, 0.0)
    assert found and found[0].peak_to_peak > 700
    assert sum(o.last - o.first + 1 for o in found) > 0.5 * len(y)


@pytest.mark.parametrize("seed", range(8))
def test_a_rolling_mean_of_noise_is_no_wave(seed):
    """Stable-Baselines3's ep_rew_mean is the mean of the last 100 episodes: the noise of an env that never
    learns (no range: width 0) wanders slowly, a red spectrum that falls steeply beside a low frequency."""
    rng = np.random.default_rng(seed)
    episodes = rng.uniform(-300, 500, 4 * 400 + 100)
    y = np.convolve(episodes, np.ones(100) / 100, "valid")[::4]  # 4 episodes per logged iteration
    noise = float(np.std(np.diff(y)) / np.sqrt(2))
    assert oscillations(y, noise, 0.0) == []


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("episodes_per_point", [1, 4])
def test_a_long_rolling_mean_of_noise_is_no_wave_block_by_block_either(seed, episodes_per_point):
    """A series long enough to be searched block by block (a drifting wave's line is sharp over 256 points):
    a 256-point block resolves a rolling mean's spectrum into lobes between its nulls (the sinc of a 100-point
    mean), which a median of neighbours reads as lines. Block lines are judged against the mean of their
    neighbours, at periods of an eighth of a block at most, and must recur in the next block."""
    rng = np.random.default_rng(100 + seed)
    episodes = rng.uniform(-300, 500, episodes_per_point * 4000 + 100)
    y = np.convolve(episodes, np.ones(100) / 100, "valid")[::episodes_per_point][:4000]
    noise = float(np.std(np.diff(y)) / np.sqrt(2))
    assert oscillations(y, noise, 0.0) == []


def test_a_wave_whose_phase_drifts_is_found_block_by_block():
    """About one point in 12 dropped at random (episodes ending together, combined): the wave's phase drifts
    and its line over 3,000 points is smeared below the test's bar; block by block it is a line."""
    rng = np.random.default_rng(3)
    i = np.arange(3300)
    kept = i[rng.random(len(i)) >= 0.08]
    y = 20 + 120 * np.cos(2 * np.pi * kept / 8.8) + rng.normal(0, 1.5, len(kept))
    (o,) = oscillations(y, 1.5, 0.0)
    assert (o.first, o.last) == (0, len(y) - 1) or (o.first <= 9 and o.last >= len(y) - 10)
    assert 7.5 < o.period < 8.8 and o.peak_to_peak > 150  # 8.8 x 0.92 points kept
