"""The segmentation every rule reads: noise models, the compiled kernel against the numpy path, and
what a segment is (a level held beyond noise) on series written in the notation of series.py."""
from __future__ import annotations

import numpy as np
import pytest

from curriwatch import segment_kernels, segments
from curriwatch.segments import lattice_trials, noise_model, segment
from series import expand


def _both(values: np.ndarray, counts=None):
    noise = noise_model(values, counts)
    saved = segments._NUMPY_PATH, segments._calls
    try:
        segments._NUMPY_PATH = True
        numpy_path = segment(noise, values)
        segments._NUMPY_PATH, segments._calls = False, segments.NUMPY_FIRST + 1
        compiled = segment(noise, values)
    finally:
        segments._NUMPY_PATH, segments._calls = saved
    return numpy_path, compiled


@pytest.mark.skipif(not segment_kernels.AVAILABLE, reason="numba is not installed (or CURRIWATCH_NO_JIT is set)")
def test_compiled_kernel_cuts_exactly_as_the_numpy_path():
    rng = np.random.default_rng(11)
    for trial in range(120):
        n = int(rng.integers(5, 1500))
        t = np.arange(n)
        v = 0.1 + 0.8 / (1 + np.exp(-(t - n / 3) / max(n / 15, 1)))
        if trial % 4 == 1:
            v = np.where((t // int(rng.integers(2, 40))) % 2 == 0, 0.2, 0.85)
        v = v + rng.normal(0, rng.uniform(0.002, 0.12), n)
        if trial % 4 == 2:
            v[rng.integers(0, n, 4)] = 0.0
        if trial % 4 == 3:
            v = np.clip(np.round(v * 16) / 16, 0, 1)
        a, b = _both(v)
        assert np.array_equal(a.bounds, b.bounds) and np.array_equal(a.outlier, b.outlier), trial
        assert np.allclose(a.level, b.level, equal_nan=True)


def test_levels_changes_and_outliers():
    v = np.array(expand("0.2~0.02x40 0.8~0.02x40 0.05 0.8~0.02x40 0.4~0.02x40", seed=3))
    seg = segment(noise_model(v), v)
    assert seg.bounds.tolist() == [0, 40, 121, 161]  # three levels; the lone 0.05 is no segment of its own
    assert np.flatnonzero(seg.outlier).tolist() == [80]
    assert np.allclose(seg.level, [0.2, 0.8, 0.4], atol=0.01)


def test_noise_alone_is_one_segment_whatever_its_size():
    for scale, sd in ((1.0, 0.05), (1000.0, 80.0), (-500.0, 5.0)):
        v = scale + np.random.default_rng(5).normal(0, sd, 2000)
        assert len(segment(noise_model(v), v)) == 1, (scale, sd)


def test_binomial_rates_on_their_lattice_and_with_counts():
    v = np.array(expand("0.5b32x300", seed=2))
    assert lattice_trials(v) == 32
    noise = noise_model(v)
    assert noise.kind == "binomial" and noise.trials == pytest.approx(32, rel=0.35)
    assert len(segment(noise, v)) == 1  # p = 0.5, n = 32: noise, no levels
    counted = noise_model(v, np.full(len(v), 32.0))
    assert counted.kind == "binomial"
    # counts that do not fit the values (a rate is no successes / count) leave the gaussian model
    assert noise_model(np.linspace(0.1, 0.9, 50), np.ones(50)).kind == "gaussian"


@pytest.mark.parametrize("sizes", [(1, 6), (1, 4), (2, 5), (1, 30), (5, 30)])
def test_means_of_a_varying_few_episodes_are_no_lattice_of_their_common_multiple(sizes):
    """A success rate over the 1..6 episodes of a type that ended in an interval (AllenAct's per-type metrics)
    holds halves, thirds, quarters, fifths and sixths: all on the 1/60 lattice, none k/60 in lowest terms. It is
    no rate of 60 (or 12) trials — whose noise would be a third of its own — but batches of varying size: a
    binomial model fitted to its changes (its sd that of the points about their level, p fixed here), and no
    floor below that fit. So are means of 1..30 episodes, whose common multiple is past any lattice: each value a
    fraction of at most 32. Binomial rates of n trials, at any p, keep their n; continuous values are no batches."""
    rng = np.random.default_rng(11)
    k = rng.integers(sizes[0], sizes[1] + 1, 2000)
    v = rng.binomial(k, 0.75) / k
    assert segments.mixed_batches(v) and lattice_trials(v) is None
    noise = noise_model(v)
    assert noise.kind == "binomial" and float(np.median(noise.sigma)) == pytest.approx(float(np.std(noise.z)), rel=0.15)
    assert float(np.median(noise.sigma)) < 0.7 * float(np.median(noise_model(rng.binomial(1, 0.75, 2000) * 1.0).sigma))
    assert noise.base_sigma == pytest.approx(float(np.median(noise.sigma)))
    for n in (2, 3, 4, 6, 8, 12, 30, 60, 210):
        for p in (0.05, 0.3, 0.5, 0.9):
            b = rng.binomial(n, p, 400) / n
            assert lattice_trials(b) == n and not segments.mixed_batches(b), (n, p)
    for continuous in (np.clip(rng.normal(0.6, 0.1, 2000), 0, 1), rng.beta(5, 2, 500).astype(np.float32)):
        assert not segments.mixed_batches(continuous.astype(np.float64))


def test_success_flags_of_single_episodes_are_a_rate_of_one_trial():
    """0/1 flags (one episode a point) are Bernoulli noise: binomial with n = 1, one level at p = 0.7 — not a
    gaussian whose calm windows (a run of 1s) make every 0 a swing. Flags from a lower-is-better failure
    metric too; a constant series, or 0/1 beside values that are no rate, is not."""
    v = np.array(expand("0.7b1x400", seed=3))
    assert set(np.unique(v)) == {0.0, 1.0} and lattice_trials(v) is None
    noise = noise_model(v)
    assert noise.kind == "binomial" and noise.trials == pytest.approx(1, rel=0.35)
    assert len(segment(noise, v)) == 1
    assert noise_model(-v, sign=-1).kind == "binomial"  # oriented values of a failure flag
    assert noise_model(np.ones(50)).kind == "gaussian"
    assert noise_model(np.concatenate([v[:50], [1.5]])).kind == "gaussian"  # not a rate


def test_sparse_reward_returns_of_single_episodes_are_a_scaled_rate_of_one_trial():
    """A MiniGrid-style return a point (a PLR level's replay): 0 unless solved, else 0.9 x (1 - 0.1 U) — one
    trial worth ~0.9 (the 90th percentile of the solved ones), the rate's best; its noise at a level is
    0.9 x the Bernoulli's. A mean over many episodes (values just above 0) or a rate on a lattice is not."""
    rng = np.random.default_rng(4)
    solved = rng.random(400) < 0.6
    v = np.where(solved, 0.9 * (1 - 0.1 * rng.random(400)), 0.0)
    worth = segments.outcome_scale(v)
    assert worth == pytest.approx(np.quantile(v[solved], 0.9))
    noise = noise_model(v)
    assert noise.kind == "binomial" and noise.trials == pytest.approx(1, rel=0.35)
    level = float(np.mean(v))
    assert noise.raw_sd(level) == pytest.approx(worth * np.sqrt(level / worth * (1 - level / worth)), rel=0.01)
    assert len(segment(noise, v)) == 1
    assert segments.outcome_scale(np.clip(rng.normal(0.05, 0.05, 400), 0, 1)) is None  # clipped at 0
    # a level solved nearly always (eighth corpus: 1-4 % failures) is the same noise; one 0 is a glitch
    rare = np.where(rng.random(400) < 0.02, 0.0, 0.9 * (1 - 0.1 * rng.random(400)))
    assert np.count_nonzero(rare == 0) >= 2 and segments.outcome_scale(rare) is not None
    assert segments.outcome_scale(np.where(np.arange(400) == 7, 0.0, np.where(rare == 0, 0.5, rare))) is None
    # a rate averaged over many episodes, exactly 0 for its first few points, then a jump to ~0.8 (a fast learner
    # logged sparsely): its zeros all come before its first success — no outcomes (read as one trial, its noise
    # was overstated 7-fold)
    jump = np.concatenate([[0.0, 0.0, 0.0], np.clip(0.8 + rng.normal(0, 0.05, 200), 0, 1)])
    assert segments.outcome_scale(jump) is None and noise_model(jump).kind == "gaussian"
    assert segments.outcome_scale(np.array(expand("0.5b8x100", seed=1))) is None  # a lattice: n = 8
    # a never-learning rate of 5 trials: 0 but for a lucky 0.2 now and then (seventh corpus seed 2's slide) —
    # no returns worth 0.2 (its stall went unseen, the rate's best read as 0.2)
    assert segments.outcome_scale(np.array(expand("0.02b5x300", seed=2))) is None
    # nor a rate over however many episodes ended in the step (RLlib's custom_metrics): one success of the 9-20 of them
    # now and then, stored as float32 (its values, 1/20..1/9, are as close to each other as returns worth ~0.11)
    few = np.where(rng.random(400) < 0.15, 1 / rng.integers(9, 21, 400), 0.0).astype(np.float32).astype(np.float64)
    assert np.count_nonzero(few) > 20 and segments.outcome_scale(few) is None


@pytest.mark.parametrize("sign", [1, -1])
def test_means_of_plus_minus_one_outcomes_are_a_rate_from_minus_one(sign):
    """A reward that is the mean of 6 +-1 outcomes ((2k - 6)/6: a win/loss game's, a tinker reward's) is a rate
    of 6 trials on the scale from -1 to 1: its noise at a level v is 2 sqrt(p (1 - p) / 6) with p = (1 + v)/2,
    oriented either way. Continuous values in [-1, 1] are not, nor is a rate in [0, 1] (its own lattice)."""
    rng = np.random.default_rng(3)
    v = 2 * rng.binomial(6, 0.8, 400) / 6 - 1
    assert segments.signed_lattice_trials(v) == 6
    noise = noise_model(sign * v, sign=sign)
    assert noise.kind == "binomial" and noise.floor == -1 and noise.scale == 2
    assert noise.trials == pytest.approx(6, rel=0.35)
    assert noise.raw_sd(0.6) == pytest.approx(2 * np.sqrt(0.8 * 0.2 / noise.trials))
    assert len(segment(noise, sign * v)) == 1
    assert segments.signed_lattice_trials(np.clip(rng.normal(0.3, 0.3, 400), -1, 1)) is None
    assert segments.signed_lattice_trials(rng.binomial(6, 0.8, 400) / 6) is None  # no value below 0


@pytest.mark.parametrize("timeout, solved, sign", [(200, (90, 160), 1), (500, (60, 120), 1), (200, (90, 160), -1)])
def test_goal_or_timeout_returns_are_outcomes_above_their_floor(timeout, solved, sign):
    """MountainCar's and Acrobot's per-episode returns (-1 a step): -timeout when time ran out, else the
    goal's -steps; or the same episodes' lengths, lower is better (sign -1, oriented: -length). One trial each
    above the floor (the timeout's value), worth the 90th percentile of the successes above it; their noise
    at a level is the Bernoulli's, scaled. Means over many episodes (values just above the floor) are not, nor
    are returns of no single failure value."""
    rng = np.random.default_rng(timeout + sign)
    ok = rng.random(500) < 0.7
    length = np.where(ok, rng.integers(solved[0], solved[1] + 1, 500), timeout).astype(np.float64)
    oriented = -length  # a return (sign 1), or a length oriented (sign -1): the same values
    floor, worth = segments.floored_outcomes(oriented)
    assert floor == -timeout and worth == pytest.approx(np.quantile(oriented[ok] + timeout, 0.9))
    noise = noise_model(oriented, sign=sign)
    assert noise.kind == "binomial" and noise.floor == -timeout and noise.trials == pytest.approx(1, rel=0.35)
    p = 0.7 * float(np.mean(oriented[ok] + timeout)) / worth
    assert noise.raw_sd(-timeout + p * worth) == pytest.approx(worth * np.sqrt(p * (1 - p)), rel=0.01)
    assert len(segment(noise, oriented)) == 1
    # means of 10 episodes: few at the floor, the others spread from just above it
    means = -np.array([length[k: k + 10].mean() for k in range(0, 500, 10)] * 4)
    assert segments.floored_outcomes(means) is None and noise_model(means).kind == "gaussian"
    # continuous returns whose worst value repeats by chance (integers near the floor): no outcomes
    assert segments.floored_outcomes(-np.round(rng.normal(150, 20, 500))) is None


def test_overdispersed_rates_take_their_own_spread():
    rng = np.random.default_rng(4)
    p = np.clip(0.6 + rng.normal(0, 0.12, 400), 0, 1)  # tasks of unequal difficulty per batch
    v = rng.binomial(64, p) / 64
    noise = noise_model(v, np.full(400, 64.0))
    assert noise.trials < 30  # widened from 64 by the series' own spread
    assert len(segment(noise, v)) == 1


def test_arcsine_sd_is_exact_for_few_trials():
    rng = np.random.default_rng(11)
    for n, p in ((8, 0.94), (8, 0.5), (4, 0.2), (64, 0.97)):
        z = np.arcsin(np.sqrt(rng.binomial(n, p, 200_000) / n))
        assert segments.arcsine_sd(np.array([p]), np.array([n]))[0] == pytest.approx(z.std(), rel=0.02), (n, p)


@pytest.mark.parametrize("notation", ["0.94b8x600", "0.97b4x600", "0.9b16x600"])
def test_few_trials_near_a_bound_are_not_overdispersed(notation):
    # the lattice's coarse steps near 1 make a MAD of changes read ~2x the model: the exact model does not
    v = np.array(expand(notation, seed=3))
    noise = noise_model(v)
    assert noise.kind == "binomial" and noise.trials == lattice_trials(v)


def test_switching_rates_are_not_overdispersed():
    # a switch of level every 3 points is a third of all changes: the robust spread is not fooled by it
    v = np.array(expand("(0.2b32x3 0.85b32x3)x60", seed=3))
    assert noise_model(v).trials == 32


def test_autocorrelated_noise_is_not_a_staircase():
    rng = np.random.default_rng(8)
    e = np.zeros(3000)
    for i in range(1, 3000):
        e[i] = 0.85 * e[i - 1] + rng.normal(0, 0.01)
    v = 0.7 + e
    plain = segment(noise_model(v), v)
    assert plain.inflation > 5 and len(plain) <= 4


def _rolling_mean(episodes: np.ndarray, per_point: int, window: int) -> np.ndarray:
    """SB3's ep_rew_mean: after every `per_point` episodes, the mean of the last `window` (fewer at first)."""
    return np.array([episodes[max(0, e - window): e].mean() for e in range(per_point, len(episodes) + 1, per_point)])


@pytest.mark.parametrize("seed", range(6))
def test_a_rolling_mean_changes_where_its_disjoint_windows_do(seed):
    # 100-episode mean, 4 episodes a point: a 25-point window. The episodes' level steps up by one sd at episode
    # 80 (point 20) and holds over 312 points: the mean ramps over the next window. Read as AR(1) noise at the
    # window's lag-1 correlation this change seldom stands out (the first segment is a window long, as uncertain
    # as a point); among disjoint windows it is one sd over ~12 windows
    rng = np.random.default_rng(seed)
    level = np.where(np.arange(1248) < 80, 0.0, 1.0)
    v = _rolling_mean(level + rng.normal(0, 1, 1248), 4, 100)
    seg = segment(noise_model(v), v, rho_floor=1 - 1 / 25, span=25)
    assert len(seg) == 2 and 20 <= seg.bounds[1] <= 20 + 25 and seg.level[1] - seg.level[0] > 0.7, seg.bounds
    # the same noise with no change: no cut
    still = _rolling_mean(rng.normal(0, 1, 1248), 4, 100)
    assert len(segment(noise_model(still), still, rho_floor=1 - 1 / 25, span=25)) == 1


def test_an_env_that_rises_at_once_began_at_the_foot_of_its_ramp():
    # dcd-like eval returns: the first segment binary segmentation makes of a rise that starts at once is
    # a ramp; its mean (~-150) is far above where the env began (~-186), which hid the start the run's
    # lessons share
    from curriwatch.envdata import Series
    from curriwatch.levels import Fit, start_level

    rng = np.random.default_rng(4)
    x = np.arange(100)
    v = np.where(x < 8, -186 + 7 * x, np.where(x < 40, -130 + 2.5 * (x - 8), -50.0)) + rng.normal(0, 8, 100)
    noise = noise_model(v)
    seg = segment(noise, v)
    fit = Fit(Series(x * 50, v), noise, seg)
    assert seg.bounds[1] >= 4  # the first segment is a ramp of several points
    assert abs(start_level(fit) - (-186)) < 12 < abs(float(seg.level[0]) - (-186))
    flat = np.where(x < 20, -186.0, -50.0) + rng.normal(0, 4, 100)  # a start that was held: its level
    f2 = Fit(Series(x * 50, flat), noise_model(flat), segment(noise_model(flat), flat))
    assert start_level(f2) == pytest.approx(float(f2.segments.level[0]))


def test_where_the_readings_overlap_the_one_with_more_changes_is_kept():
    """Segmentation may break a long run of switching that the two-level reading follows whole (the
    third corpus's t009 Crawler: 34 changes against 8 + 48); episodes apart from the other reading's
    stay, and a tie keeps the segments'."""
    from curriwatch.levels import Episode, _either_reading

    def ep(a, b, changes):
        return Episode("train", a, b, changes, 0.7, -0.2, 90.0, 9000)
    segmented = [ep(4870, 8190, 34), ep(9500, 9900, 4)]
    two_level = [ep(4700, 5360, 8), ep(5370, 9000, 48), ep(100, 300, 4)]
    got = sorted((e.first_step, e.last_step) for e in _either_reading(segmented, two_level))
    assert got == [(100, 300), (4700, 5360), (5370, 9000), (9500, 9900)]
    tie = _either_reading([ep(0, 100, 8)], [ep(50, 150, 8)])
    assert [(e.first_step, e.last_step) for e in tie] == [(0, 100)]


def test_a_window_of_points_spans_the_median_of_regular_logging_and_the_mean_of_irregular_logging():
    """ML-Agents logs nothing for a summary period without an episode (a missed point: the median
    stays the period); CleanRL logs each finished episode (its intervals spread: k points span k x
    their mean); a pause in logging is no part of either."""
    from curriwatch.envdata import Series

    regular = np.cumsum(np.where(np.arange(300) % 7 == 0, 2000, 1000))  # every 7th period missed
    assert Series(regular, np.zeros(300)).pace() == 1000
    rng = np.random.default_rng(3)
    gaps = 4 * rng.integers(6, 19, 400)
    gaps[200] = 5000  # a pause
    irregular = np.cumsum(gaps)
    kept = np.delete(gaps[1:], 199)
    assert Series(irregular, np.zeros(400)).pace() == pytest.approx(kept.mean())
    assert Series(irregular, np.zeros(400)).median_interval() != pytest.approx(kept.mean())
    # the intervals under 3 x the median (README): a learning-progress sampler's env logged every 1..10
    # iterations (median 2) — an interval of exactly 6 is a pause, not its pace (fifteenth corpus's lp_sampler)
    sampled = np.array([1, 2, 2, 3, 6, 2, 1, 4, 2, 6, 2, 5, 2, 10, 1] * 20)
    pace = Series(np.cumsum(sampled), np.zeros(len(sampled))).pace()
    assert pace == pytest.approx(sampled[1:][sampled[1:] < 6].mean())


def test_means_of_episodes_that_fail_or_succeed_are_a_rate_of_their_count():
    """A sparse task's mean return over the k episodes that ended in a batch (a success 1 - 0.001 x its length, a
    timeout -0.3), k logged beside it, is successes / k on the scale from a failure's value to a success's:
    binomial with k trials, the floor and worth read as the medians of the points near either end. Means of a dense
    reward's returns beside their counts fall anywhere between whole numbers of successes: gaussian."""
    rng = np.random.default_rng(4)
    k = 1 + rng.poisson(6, 1500)
    p = np.clip(np.arange(1500) / 60, 0.02, 0.93)
    wins = rng.binomial(k, p)
    # a point's successes' mean return: each episode's length varies (sd 40 steps), their mean by less
    success = 1 - 0.001 * (150 + 40 * rng.normal(size=1500) / np.sqrt(np.maximum(wins, 1)))
    values = (wins * success - 0.3 * (k - wins)) / k
    noise = noise_model(values, k.astype(float))
    assert noise.kind == "binomial" and noise.floor == pytest.approx(-0.3)
    assert noise.floor + noise.scale == pytest.approx(0.85, abs=0.02)  # a success's typical worth, not the best point
    assert noise.relative is not None and noise.relative[k == 1].min() > 1 > noise.relative[k == k.max()].max()
    assert len(segment(noise, values)) <= 4  # a rise, then one held level
    dense = rng.normal(200, 60, 1500) / np.sqrt(k) + np.linspace(0, 300, 1500)
    assert segments.counted_outcomes(dense, k.astype(float)) is None and noise_model(dense, k.astype(float)).kind == "gaussian"
    assert segments.counted_outcomes(values, np.ones(1500)) is None  # single episodes: floored_outcomes' case


def test_means_of_episodes_that_pay_a_fixed_reward_or_nothing_are_a_scaled_rate():
    """Procgen's success-or-nothing games pay 10 for a solved episode and 0 otherwise; a point is the mean of the
    k episodes that ended in a batch, k not logged. Batches where every episode succeeded score exactly 10, again
    and again (a ceiling), and every point is a whole number of successes out of its k: a rate of the typical k
    (the median least k of the points between the bounds — a point with one failure shows its k exactly), scaled
    by 10. Float32 storage (TensorBoard) keeps them on that lattice. A continuous score clipped at a cap has values
    just below it (no failure's gap): no ceiling, gaussian; nor is a value repeated in one stretch; rates in [0, 1]
    are rates."""
    rng = np.random.default_rng(7)
    k = 8 + rng.integers(0, 5, 1200)
    p = np.clip(np.arange(1200) / 50, 0.1, 0.95)
    values = (10.0 * rng.binomial(k, p) / k).astype(np.float32).astype(np.float64)
    assert segments.ceiling(values) == 10.0
    assert segments.scaled_outcomes(values) == (10.0, 10)
    noise = noise_model(values)
    assert noise.kind == "binomial" and noise.scale == 10.0 and noise.floor == 0.0 and noise.trials == 10
    clipped = np.minimum(rng.normal(9.0, 1.0, 1200), 10.0)
    assert segments.ceiling(clipped) is None and segments.scaled_outcomes(clipped) is None
    assert noise_model(clipped).kind == "gaussian"
    held = np.concatenate([rng.normal(5.0, 1.0, 100), np.full(30, 9.0), rng.normal(5.0, 1.0, 100)])
    assert segments.ceiling(held) is None  # one stretch at its top: a value repeated while nothing new came
    assert segments.scaled_outcomes(values / 10.0) is None  # a rate's own
