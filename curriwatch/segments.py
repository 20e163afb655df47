"""Noise models and noise-aware segmentation of one series: the levels an env held, and where they changed.

Every rule reads an env's performance through these. A series is split into segments of constant
level by binary segmentation: a change is kept only where the two sides' means differ by more than
the series' own noise explains (a likelihood-ratio test with a penalty that grows with the length).
Points that stand alone — a short segment between two longer ones at about the same level — are
outliers: they are left out of the levels and never start a change.

Noise is modelled per series, so one threshold means the same on every scale:
- binomial: rates in [0, 1] that are means of n trials (the log's observation counts, or values on
  the 1/n lattice; means of n +-1 outcomes, (2k - n)/n, read as the rate (1 + v)/2; single episodes'
  outcomes — 0/1 flags, or sparse-reward returns, 0 unless solved,
  divided by what a success is worth — one trial): analysed on the arcsine scale, where the noise sd is
  1/(2 sqrt(n)) at every level;
- otherwise gaussian: a robust sd from changes between neighbours, per block of points (noise may grow
  with the level), inflated for autocorrelation (AR(1), from how the spread grows from lag 1 to lag 2).
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from . import segment_kernels
from .stats import centred_mean, median

_NUMPY_PATH = bool(os.environ.get("CURRIWATCH_NUMPY_SEGMENTS"))  # tests compare both paths
NUMPY_FIRST = 300  # series segmented with numpy before loading the compiled kernel (~0.5 s once) pays off ...
LONG_SERIES = 5000  # ... unless one is this long
_calls = 0

MAD_SD = 1.4826  # MAD -> sd for gaussian data
BLOCK = 32  # points per block of the local noise estimate
BLOCK_FLOOR = 0.2  # ... never below this x the median block's
MAX_TRIALS = 256  # largest n of a 1/n lattice recognised as a binomial rate
LATTICE_SHARE = 0.98  # ... that this share of the points sit on
MAX_BATCH = 32  # means of up to this many episodes a point, of varying number, are recognised by their fractions
MIXED_INTERIOR = 40  # a lattice's values between 0 and 1: with this many, ...
MIXED_FULL_SHARE = 0.05  # ... under this share of them k/n in lowest terms are means of smaller batches
OUTCOME_ZEROS = 0.005  # values in [0, 1] exactly 0 this often (twice at least; not always) ...
OUTCOME_WORTH = 0.9   # ... and otherwise at least OUTCOME_GAP x their 90th percentile (what a success is worth)
OUTCOME_GAP = 0.25    # are one or two episodes' outcomes: a binomial rate of one trial (two read as one: noisier)
OUTCOME_VALUES = 3    # ... when the others take this many values at least (returns; a rate's few successes, 1/n)
PENALTY_SLOPE, PENALTY_BASE = 2.0, 6.0  # a change must explain 2 log(n) + 6 of squared noise
OUTLIER_POINTS = 2  # a segment this short between two longer, similar ones is an outlier stretch
OUTLIER_ROUNDS = 3  # passes of taking out outliers and segmenting again
MAX_SEGMENTS = 4096
LOCAL_HALF = 4  # a binomial point's noise is judged at the mean level of the 2 x this + 1 points around it
LOCAL_EDGE = 0.5 / (2 * LOCAL_HALF + 1)  # ... half a point of those from a bound
OVERDISPERSION = 1.3  # a binomial series whose own spread exceeds its model's by this much takes its own
AR_MIN_PAIRS, AR_MIN_RHO = 30, 0.25  # autocorrelation is estimated from this many residual pairs, used above this
AR_ROUNDS = 4  # ... re-estimated on coarser cuts until it settles


@dataclass(frozen=True)
class Noise:
    """A series' noise: `z` is the series on the scale where its noise is `sigma` per point
    (arcsine for binomial rates); `trials` the binomial n (after any overdispersion)."""

    kind: str  # "binomial" | "gaussian" | "none"
    z: np.ndarray
    sigma: np.ndarray
    trials: float | None = None
    base_sigma: float = 0.0  # binomial: the model's sd before any overdispersion widened it
    scale: float = 1.0  # binomial: what one success is worth (a solved episode's return; 1 for a rate)
    floor: float | None = None  # what a failed episode scores, oriented, when it is not 0: a return's timeout value
    edge: float | None = None  # binomial: how near a bound p is taken at most (None: half a trial)
    relative: np.ndarray | None = None  # binomial with trials varying point to point: each point's sd over raw_sd's
    counted: bool = False  # binomial: means of a logged count of episodes that fail or succeed (counted_outcomes)

    def raw_sd(self, level: float | np.ndarray) -> float | np.ndarray:
        """The point noise sd in the series' own units at a level (oriented values): the binomial
        model's at that level, else the series' typical (median) noise."""
        if self.kind == "binomial":
            p = np.clip(np.abs(level - (self.floor or 0.0)) / self.scale, 0.0, 1.0)
            edge = 0.5 / self.trials if self.edge is None else self.edge
            p = np.clip(p, edge, 1 - edge)
            return self.scale * np.sqrt(p * (1 - p) / self.trials)
        return median(self.sigma) if np.ndim(level) == 0 else np.full(np.shape(level), median(self.sigma))


def lattice_trials(values: np.ndarray) -> int | None:
    """n when the values are k/n for some n <= MAX_TRIALS (rates of n trials each) — nearly all of
    them: a stray point (an outlier, a partial batch) does not change the lattice — else None; None too
    for means of smaller batches of varying size (see mixed_batches). Values stored as float32
    (TensorBoard) are compared with a float32 tolerance."""
    n, mixed = _lattice(values)
    return None if mixed else n


def mixed_batches(values: np.ndarray) -> bool:
    """Whether the values are means of small batches of varying size: on a 1/n lattice, of their values
    strictly between 0 and 1 (MIXED_INTERIOR or more), hardly any (under MIXED_FULL_SHARE) is k/n in lowest
    terms; or on no lattice, each a fraction of a batch of at most MAX_BATCH (see _small_fractions). n trials
    make such values often (k = 5 or 7 of 12; at p = 0.5 a fifth of them at the least, for any n); means of 1-6
    episodes make halves, thirds, quarters, fifths and sixths: all on the 1/60 lattice, none
    k/60 in lowest terms (AllenAct's per-type success over the few episodes of a type that ended in an interval,
    twenty-fifth corpus: read as 12 trials, the two-level reading's floor a third of its noise, and the noise
    of a regression's lower level read as switching)."""
    return _lattice(values)[1]


def _lattice(values: np.ndarray) -> tuple[int | None, bool]:
    """(the smallest n of a 1/n lattice the values sit on, or None; whether they are means of smaller batches)."""
    if len(values) < 8 or values.min() < 0 or values.max() > 1:
        return None, False
    if len(values) > 4 * MAX_TRIALS and len(np.unique(values[: 4 * MAX_TRIALS])) > MAX_TRIALS + 1:
        return None, False  # continuous values: no need to sort them all
    u, counts = np.unique(values, return_counts=True)
    if len(u) > MAX_TRIALS + 1 or len(u) < 3:
        return None, False
    ns = np.arange(2, MAX_TRIALS + 1, dtype=np.float64)[:, None]
    k = u[None, :] * ns
    on = np.abs(k - np.rint(k)) <= 1e-4 * ns
    share = (on * counts[None, :]).sum(axis=1) / counts.sum()
    fits = (share >= LATTICE_SHARE) & (on.sum(axis=1) >= 3)
    if not fits.any():
        return None, _small_fractions(u, counts)
    row = int(np.argmax(fits))
    n = int(ns[row, 0])
    inner = (u > 0) & (u < 1) & on[row]
    weight = counts[inner]
    if weight.sum() < MIXED_INTERIOR:
        return n, False
    full = np.gcd(np.rint(u[inner] * n).astype(np.int64), n) == 1
    return n, float(weight[full].sum()) < MIXED_FULL_SHARE * float(weight.sum())


def _small_fractions(u: np.ndarray, counts: np.ndarray) -> bool:
    """Whether values on no one lattice are each a fraction k/m of a small batch (m <= MAX_BATCH) — nearly all
    of them (LATTICE_SHARE), MIXED_INTERIOR or more between 0 and 1, of 3 denominators or more: means of however
    few episodes ended in each interval (1..30 of an AllenAct object type), whose common multiple is past any
    lattice. Continuous values lie that near such a fraction about one time in sixteen."""
    inner = (u > 0) & (u < 1)
    if counts[inner].sum() < MIXED_INTERIOR:
        return False
    ms = np.arange(1, MAX_BATCH + 1, dtype=np.float64)[:, None]
    k = u[None, :] * ms
    on = np.abs(k - np.rint(k)) <= 1e-4 * ms
    if float((on.any(axis=0) * counts).sum()) < LATTICE_SHARE * float(counts.sum()):
        return False
    least = np.where(on.any(axis=0), np.argmax(on, axis=0) + 1, 0)  # each value's least denominator
    return len(np.unique(least[inner & (least > 1)])) >= 3


def signed_lattice_trials(values: np.ndarray) -> int | None:
    """n when values in [-1, 1], some below 0, are means of n +-1 outcomes ((2k - n) / n: a win/loss reward
    averaged over n episodes; a tinker reward of -1 or 1 per sample) — their rate (1 + v) / 2 on a 1/n
    lattice (see lattice_trials) — else None."""
    if len(values) < 8 or values.min() < -1 or values.max() > 1 or not values.min() < 0:
        return None
    return lattice_trials((values.astype(np.float64) + 1.0) / 2.0)


def outcome_scale(values: np.ndarray, lattice: bool = True) -> float | None:
    """What one success is worth when values in [0, 1] (on no 1/n lattice) are single episodes' outcomes:
    0/1 success flags (1); or a sparse-reward return, 0 unless solved, then a share of the best
    (MiniGrid's 1 - 0.9 steps/max; a PLR level's replay of an episode or two) — exactly 0 (failed) in
    OUTCOME_ZEROS of them or more, at least once after its first success, the others of OUTCOME_VALUES
    values or more and at least OUTCOME_GAP x their OUTCOME_WORTH quantile, which is the worth. Bernoulli
    noise of one trial, scaled. A mean over many episodes, or noise clipped at 0, leaves values just above 0.
    None otherwise. `lattice=False` skips the test that the values are no rate's 1/n lattice (returns shifted
    to their floor and scaled by their top: integer returns sit on one)."""
    if len(values) < 8 or values.min() < 0 or values.max() > 1:
        return None
    zero = values == 0
    if zero.any() and not zero.all() and np.all(values[~zero] == 1):
        return 1.0  # success flags, however rare their zeros (two values are never a lattice)
    # too few failures for returns' outcomes (most series have none at all): before the costlier lattice test
    if np.count_nonzero(zero) < max(2, OUTCOME_ZEROS * len(values)) or lattice and lattice_trials(values) is not None:
        return None
    solved = values[~zero]
    if not len(solved):
        return None
    # a failure after the first success too: a rate averaged over many episodes may start at exactly 0 for a few
    # points and then jump (a fast learner logged sparsely) — no episode outcomes, however far its values lie from 0
    if not zero[int(np.argmax(~zero)):].any() or len(np.unique(solved[:64])) < OUTCOME_VALUES:
        return None  # (nor a few successes of a rate of n trials, all at 1/n: a lattice, not returns)
    if _few_of_many(solved):
        return None  # a rate's lone successes among however many episodes the point averaged
    worth = float(np.quantile(solved, OUTCOME_WORTH))
    return worth if float(solved.min()) >= OUTCOME_GAP * worth else None


def _few_of_many(solved: np.ndarray) -> bool:
    """Whether nearly all (LATTICE_SHARE) of a [0, 1] series' nonzero values are one, two or three successes
    of a whole number of episodes up to MAX_TRIALS (1/16, 1/9, 2/13: RLlib's custom_metrics mean over the
    episodes that ended in an iteration, their number changing from point to point): a rate, not returns
    worth a share of their best. Float32 values are compared with a float32 tolerance."""
    k = np.arange(1, MAX_TRIALS + 1, dtype=np.float64)
    sample = solved[:256].astype(np.float64)
    on = np.zeros(len(sample), bool)
    for j in (1.0, 2.0, 3.0):
        on |= (np.abs(sample[:, None] * k[None, :] - j) <= 1e-5 * k[None, :]).any(axis=1)
    return bool(np.mean(on) >= LATTICE_SHARE)


def floored_outcomes(values: np.ndarray) -> tuple[float, float] | None:
    """(failure value, what a success is worth above it) when oriented values beyond [0, 1] are single
    episodes' outcomes whose failures all score one value, the worst (a timeout's return: MountainCar's -200,
    Acrobot's -500; a steps-to-goal at its cap) and whose successes score above it — outcome_scale's test,
    shifted to that floor and scaled: the same share of exact failures, after a success too, and successes
    of several values none of them close to the floor (a mean over many episodes leaves values just above
    it, and so does noise clipped at a bound). None otherwise."""
    if len(values) < 8:
        return None
    floor = float(values.min())
    rel = values - floor
    top = float(rel.max())
    if not top > 0:
        return None
    worth = outcome_scale(rel / top, lattice=False)  # integer returns sit on a lattice of 1 / their top
    return None if worth is None else (floor, worth * top)


CEILING_RUNS = 5  # a series at its highest value exactly in this many separate stretches at least ...
CEILING_SHARE = 0.02  # ... holding this share of its points at least, never above it, has a ceiling there
SCALED_TOL = 1e-6  # a value / ceiling x k within this x k of a whole number is a mean of k outcomes (float32 means)


def ceiling(values: np.ndarray) -> float | None:
    """The highest value of an oriented series when its points sit exactly on it in CEILING_RUNS separate
    stretches or more (CEILING_SHARE of them at least): a bound it cannot pass (the mean of episodes that each
    pay a fixed reward when solved and nothing else, a cost of 0), with no value just below it (the next one at
    least 1 / MAX_TRIALS of the range down: one failure among at most that many episodes). A continuous metric's
    best point is one lucky point; a value repeated while nothing new is logged repeats in one stretch; a level
    held in noise finer than its values' rounding repeats every value about it. None otherwise."""
    if len(values) < CEILING_RUNS:
        return None
    top = float(np.max(values))
    at = values == top
    if np.count_nonzero(at) < max(CEILING_RUNS, CEILING_SHARE * len(values)):
        return None
    starts = int(np.count_nonzero(at[1:] & ~at[:-1])) + int(at[0])
    below = values[~at]
    if starts < CEILING_RUNS or not len(below) or top - float(below.max()) < (top - float(below.min())) / MAX_TRIALS:
        return None
    return top


def scaled_outcomes(values: np.ndarray) -> tuple[float, int] | None:
    """(what a success is worth, the typical number of episodes a point) when oriented values beyond [0, 1] are
    means of a varying, unlogged number of episodes that each pay one fixed reward when solved and nothing
    otherwise (Procgen's coinrun, heist or maze: 10 or 0; the share of episodes that unlocked an achievement,
    in percent): nonnegative, a ceiling they reach again and again (every episode solved), and nearly every
    value (LATTICE_SHARE) a whole number of successes out of k <= MAX_TRIALS episodes of it. The typical k is
    the median least such k of the points between the bounds (a point with one failure shows its k exactly; the
    least k never overstates it, so the noise it makes is never understated). None otherwise."""
    if len(values) < 8 or values.min() < 0:
        return None
    top = ceiling(values)
    if top is None or not top > 1.0:  # ([0, 1] is a rate's own)
        return None
    u = values[:1024].astype(np.float64) / top
    inner = u[(u > 0) & (u < 1)]
    if len(np.unique(inner)) < 3:
        return None  # one or two values between the bounds: single episodes' outcomes, or a lattice too coarse
    ks = np.arange(1, MAX_TRIALS + 1, dtype=np.float64)
    x = inner[:, None] * ks[None, :]
    on = np.abs(x - np.rint(x)) <= SCALED_TOL * ks[None, :]
    if np.count_nonzero(on.any(axis=1)) + np.count_nonzero((u == 0) | (u == 1)) < LATTICE_SHARE * len(u):
        return None
    least = ks[np.argmax(on, axis=1)][on.any(axis=1)]
    return top, int(np.median(least))


COUNTED_SLACK = 0.2  # a mean of count outcomes from the worst value to the best lies within this share of an episode
COUNTED_SHARE = 0.85  # ... of a whole number of successes this often (continuous returns: 40 % of the time)
COUNTED_MODE = 0.1  # a failure's and a success's values: the points within this share of the range of either end


def counted_outcomes(values: np.ndarray, counts: np.ndarray) -> tuple[float, float] | None:
    """(failure value, what a success is worth above it) when oriented values beyond [0, 1] are means of `counts`
    episodes each of which fails or succeeds — a sparse task's returns averaged over the episodes that ended
    (torchbeast's mean_episode_return beside a logged episode count): from a failure's typical value to a success's,
    nearly every value x its count lies within COUNTED_SLACK of a whole number of successes (a success's or a
    failure's return varies a little with its length). None otherwise (returns of a dense reward: their fractions
    fall anywhere; single episodes, whose count is 1 nearly everywhere, are floored_outcomes')."""
    ok = np.isfinite(counts) & (counts >= 1)
    if len(values) < 8 or not ok.all() or np.count_nonzero(counts >= 2) < 8:
        return None
    lo, hi = float(values.min()), float(values.max())
    if not hi > lo:
        return None
    # a failure's and a success's typical values: the medians of the points within COUNTED_MODE of the range of the
    # worst and the best (a success's return varies with its length: the best point is a lucky one)
    near = COUNTED_MODE * (hi - lo)
    floor = median(values[values <= lo + near])
    top = median(values[values >= hi - near]) - floor
    if not top > 0:
        return None
    k = (values - floor) / top * counts
    if np.mean(np.abs(k - np.rint(k)) <= COUNTED_SLACK) < COUNTED_SHARE:
        return None
    return floor, top


def _on_lattice(rates: np.ndarray, counts: np.ndarray) -> bool:
    """Whether rates are successes / counts (nearly every rate x count an integer): only then are
    the counts the trials behind each rate."""
    k = rates * counts
    return bool(np.mean(np.abs(k - np.rint(k)) <= 1e-3 * np.maximum(counts, 1.0)) >= 0.9)


def _robust_sds(d: np.ndarray) -> np.ndarray:
    """robust_sd of each block of BLOCK changes, all full blocks at once (the last, partial one alone)."""
    full = len(d) // BLOCK
    out = np.zeros(max(1, (len(d) + BLOCK - 1) // BLOCK))
    if full:
        blocks = d[: full * BLOCK].reshape(full, BLOCK)
        med = np.median(blocks, axis=1)
        mad = np.median(np.abs(blocks - med[:, None]), axis=1)
        out[:full] = MAD_SD * mad / np.sqrt(2)
        zero = np.flatnonzero(~(mad > 0))
        if len(zero):  # more than half the changes equal: mean square of the smaller 90 %
            a = np.sort(np.abs(blocks[zero]), axis=1)[:, : int(np.ceil(0.9 * BLOCK))]
            out[zero] = np.sqrt(np.mean(a * a, axis=1) / 2)
    if len(d) > full * BLOCK:
        out[full] = robust_sd(d[full * BLOCK:])
    return out


def robust_sd(d: np.ndarray) -> float:
    """sd of noise from changes between neighbours: MAD of the changes / sqrt(2); a mean-square
    fallback (its largest tenth left out) when more than half the changes are zero."""
    if len(d) == 0:
        return 0.0
    mad = median(np.abs(d - median(d)))
    if mad > 0:
        return MAD_SD * mad / np.sqrt(2)
    a = np.sort(np.abs(d))[: max(1, int(np.ceil(0.9 * len(d))))]
    return float(np.sqrt(np.mean(a * a) / 2))


def arcsine_sd(p: np.ndarray, trials: np.ndarray, edge: float | None = None) -> np.ndarray:
    """Per point, the exact sd of arcsin(sqrt(X / n)) for X ~ Binomial(n, p), p kept within
    [0.5 / n, 1 - 0.5 / n] (or `edge`). 1 / (2 sqrt(n)) is its limit for large n; with few trials near a bound
    the lattice's coarse steps make it up to ~1.5x that (0.94 with 8 trials: 0.24 against 0.18), or less."""
    out = np.empty(len(p))
    rounded = np.maximum(np.rint(trials), 1).astype(np.int64)
    for n in np.unique(rounded):
        sel = rounded == n
        grid, sd = _arcsine_sd_table(int(n))
        e = 0.5 / n if edge is None else edge
        out[sel] = np.interp(np.clip(p[sel], e, 1 - e), grid, sd)
    return out


@lru_cache(maxsize=None)
def _arcsine_sd_table(n: int) -> tuple[np.ndarray, np.ndarray]:
    """(p grid, exact sd of the arcsine-transformed rate of n trials at each p)."""
    grid = np.linspace(0.0, 1.0, 401)
    k = np.arange(n + 1)
    logc = np.array([math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) for i in k])
    q = np.clip(grid, 1e-12, 1 - 1e-12)[:, None]
    pmf = np.exp(logc[None, :] + k[None, :] * np.log(q) + (n - k)[None, :] * np.log1p(-q))
    z = np.arcsin(np.sqrt(k / n))
    mean = pmf @ z
    var = np.maximum(pmf @ (z * z) - mean * mean, 0.0)
    return grid, np.sqrt(var)


def _dispersion(z: np.ndarray, sigma: np.ndarray) -> float:
    """How much wider than its binomial model a rate series' noise is (1: as wide): the root of the
    mean of each change between neighbours squared over its expected variance, the largest 2 % (changes
    of level) left out. Changes are compared with the exact model point by point, so a lattice's coarse
    steps near a bound (few trials) are not read as overdispersion, as a MAD of changes reads them;
    frequent changes of level are, which the MAD is blind to."""
    return dispersion_of(change_ratios(z, sigma))


def change_ratios(z: np.ndarray, sigma: np.ndarray) -> np.ndarray:
    """Each change between neighbours squared over its expected variance under the model (sd `sigma`)."""
    d = np.diff(z)
    ev = sigma[1:] ** 2 + sigma[:-1] ** 2
    return np.where(ev > 0, d * d / np.where(ev > 0, ev, 1.0), 0.0)


def dispersion_of(ratios: np.ndarray) -> float:
    """The root of the mean of change_ratios, the largest 2 % (changes of level) left out."""
    r = np.sort(ratios)
    keep = r[: max(1, int(math.ceil(0.98 * len(r))))]
    return float(np.sqrt(np.mean(keep)))


def widening(noise: "Noise") -> float:
    """How much a binomial model was widened for the series' overdispersion (1: not at all)."""
    if noise.kind != "binomial" or not noise.base_sigma > 0:
        return 1.0
    return max(1.0, median(noise.sigma) / noise.base_sigma)


def noise_model(values: np.ndarray, counts: np.ndarray | None = None, sign: int = 1) -> Noise:
    """The noise of one oriented series (see the module docstring). A binomial model is widened to
    the series' own spread when that is larger (overdispersion: batches of tasks of unequal
    difficulty, or counts that overstate the trials)."""
    n = len(values)
    if n == 0:
        return Noise("none", values.astype(float), np.zeros(0))
    raw = values * sign  # the metric's own values
    rate = raw.min() >= 0 and raw.max() <= 1
    trials = None
    if rate and counts is not None and np.isfinite(counts).all() and (counts >= 1).all() \
            and _on_lattice(raw, counts):
        trials = counts.astype(np.float64)
    scale, floor, rel, zsign, edge, counted = 1.0, None, raw, sign, None, False
    mixed = False
    if rate and trials is None:
        t, mixed = _lattice(raw)
        if mixed:
            t = 1  # means of batches of 1..n outcomes: fitted below from one trial, the widest they can be
        elif t is None and (worth := outcome_scale(raw)) is not None:  # (its lattice test runs only with failures)
            t, scale = 1, worth
        trials = None if t is None else np.full(n, float(t))
    elif not rate and (t := signed_lattice_trials(values)) is not None:
        # means of n +-1 outcomes: a rate of n trials from -1 (oriented values; -1 is the worst either way)
        floor, scale = -1.0, 2.0
        rel, zsign, trials = values + 1.0, 1, np.full(n, float(t))
    elif not rate and counts is not None and (outcomes := counted_outcomes(values, counts)) is not None:
        # means of `count` episodes that each fail or succeed (MiniHack's mean_episode_return): successes / count
        # of that many trials from the worst value to the best (oriented values)
        floor, scale = outcomes
        rel, zsign, trials, counted = values - floor, 1, counts.astype(np.float64), True
    elif not rate and (outcomes := floored_outcomes(values)) is not None:
        # a return's episodes that fail at one value: one trial each, from that floor (oriented values)
        floor, scale = outcomes
        rel, zsign, trials, edge = values - floor, 1, np.ones(n), LOCAL_EDGE
    elif not rate and (scaled := scaled_outcomes(values)) is not None:
        # means of episodes that each pay a fixed reward or nothing: a rate of their typical number, scaled
        scale, t = scaled
        floor, rel, zsign, trials = 0.0, values.astype(np.float64), 1, np.full(n, float(t))
    if trials is not None:
        clipped = np.clip(rel / scale, 0.0, 1.0)
        z = zsign * np.arcsin(np.sqrt(clipped))
        # the level the noise is judged at; a return's outcomes above a timeout's floor, one trial each: within
        # half an outcome of the local mean's points of either bound (at 0.5, as a rate of one trial is kept,
        # the sd would be the largest there is wherever the env stands, and a learned hold would hide its rise)
        sigma = arcsine_sd(centred_mean(clipped, LOCAL_HALF), trials, edge)
        base = median(sigma)
        if mixed:
            # batches of unknown, varying size: their typical number of outcomes is what the changes show against
            # one trial's model point by point (a MAD of changes reads the many equal neighbours as no noise);
            # that fit is the model itself, not a widening of one (its floor, base_sigma, is the fit's)
            spread = min(max(_dispersion(z, sigma), 1.0 / math.sqrt(MAX_TRIALS)), 1.0)
            sigma = sigma * spread
            trials = trials / spread ** 2
            return Noise("binomial", z, sigma, median(trials), median(sigma), scale, floor, edge, None, counted)
        # overdispersed when both a robust spread of the changes (blind to a few switches of level, fooled
        # by a coarse lattice) and the exact model point by point (the other way round) say so
        own = robust_sd(np.diff(z)) / base if n >= 8 and base > 0 else 1.0
        spread = min(own, _dispersion(z, sigma)) if n >= 8 else 1.0
        if spread > OVERDISPERSION:
            sigma = sigma * spread
            trials = trials / spread ** 2
        typical = median(trials)
        relative = np.sqrt(typical / trials) if trials.min() < trials.max() else None
        return Noise("binomial", z, sigma, typical, base, scale, floor, edge, relative, counted)
    z = values.astype(np.float64)
    d = np.diff(z)
    if n <= 2 * BLOCK:  # too short for blocks: one sd for the whole series
        sd = robust_sd(d) if n > 1 else 0.0
        return Noise("gaussian", z, np.full(n, max(sd, _floor(z))))
    return Noise("gaussian", z, np.maximum(_block_sd(d, n), _floor(z)))


def _autocorrelation(noise: Noise, seg: "Segments") -> float:
    """The noise's AR(1) coefficient: the lag-1 correlation of residuals within segments, when there
    are enough of them and it is clearly positive; 0 otherwise."""
    z = noise.z
    fit = np.repeat(seg.zlevel, np.diff(seg.bounds))
    r = (z - fit) / noise.sigma
    ok = ~seg.outlier
    same = np.repeat(np.arange(len(seg)), np.diff(seg.bounds))
    pair = ok[1:] & ok[:-1] & (same[1:] == same[:-1])
    if pair.sum() < AR_MIN_PAIRS:
        return 0.0
    r = np.clip(r, -3.0, 3.0)
    a, b = r[:-1][pair], r[1:][pair]
    denom = np.sqrt(np.sum(a * a) * np.sum(b * b))
    rho = float(np.sum(a * b) / denom) if denom > 0 else 0.0
    return min(rho, 0.95) if rho >= AR_MIN_RHO else 0.0


def _floor(z: np.ndarray) -> float:
    """A least noise sd, so a constant series still has a scale."""
    span = float(np.max(z) - np.min(z)) if len(z) else 0.0
    return max(1e-9, 1e-6 * max(span, float(np.max(np.abs(z))) if len(z) else 0.0))


def _block_sd(d: np.ndarray, n: int) -> np.ndarray:
    """Per point, the noise sd of its block of BLOCK points (noise may change along a series: with the
    level, or in a burst). A block is never taken as quieter than BLOCK_FLOOR x the median block, so
    one calm stretch does not make every small change there significant."""
    sds = _robust_sds(d)
    nb = len(sds)
    sds = np.maximum(sds, BLOCK_FLOOR * median(sds))
    if nb >= 3:  # neighbouring blocks smooth the estimate (a median of three)
        padded = np.concatenate([[sds[0]], sds, [sds[-1]]])
        sds = np.median(np.stack([padded[:-2], padded[1:-1], padded[2:]]), axis=0)
    per_point = np.repeat(sds, BLOCK)[:n]
    if len(per_point) < n:
        per_point = np.concatenate([per_point, np.full(n - len(per_point), sds[-1])])
    return per_point


@dataclass(frozen=True)
class Segments:
    """A series cut into segments of constant level. Segment j covers points bounds[j]..bounds[j+1]-1;
    `level` is its mean in the series' (oriented) units, `zlevel` on the noise scale, `count` its
    points that are not outliers, `se` the standard error of `zlevel`."""

    bounds: np.ndarray
    level: np.ndarray
    zlevel: np.ndarray
    count: np.ndarray
    se: np.ndarray
    outlier: np.ndarray  # per point
    rho: float = 0.0  # the noise's AR(1) coefficient (0: independent points)

    @property
    def inflation(self) -> float:
        """The variance factor of a mean from autocorrelated noise: sds come from changes between
        neighbours (sd_diff^2 = 2 var (1 - rho)) and a mean of m points has var (1 + rho) / (1 - rho) / m."""
        return (1 + self.rho) / (1 - self.rho) ** 2

    @property
    def wander(self) -> float:
        """How much farther than its point noise (from changes between neighbours) the noise wanders."""
        return float(np.sqrt(1.0 / (1.0 - self.rho)))

    def __len__(self) -> int:
        return len(self.level)

    def fit(self) -> np.ndarray:
        """Each point's segment level."""
        return np.repeat(self.level, np.diff(self.bounds))

    def index_of(self) -> np.ndarray:
        """Each point's segment index."""
        return np.repeat(np.arange(len(self.level)), np.diff(self.bounds))


def _split_gains(zs: np.ndarray, ws: np.ndarray, a: int, b: int) -> tuple[int, float]:
    """Best split k (a < k < b) of [a, b) and its weighted SSE reduction; zs/ws are prefix sums."""
    k = np.arange(a + 1, b)
    wl, wr = ws[k] - ws[a], ws[b] - ws[k]
    zl, zr = zs[k] - zs[a], zs[b] - zs[k]
    with np.errstate(invalid="ignore", divide="ignore"):
        diff = zl / wl - zr / wr
        gain = diff * diff * wl * wr / (wl + wr)
    gain = np.nan_to_num(gain, nan=-1.0)
    j = int(np.argmax(gain))
    return int(k[j]), float(gain[j])


def segment(noise: Noise, values: np.ndarray, penalty: float | None = None, rho_floor: float = 0.0,
            span: int | None = None) -> Segments:
    """Binary segmentation of `noise.z` (noise-weighted), then outliers taken out and segments that
    no longer differ merged. `values` are the same points in the series' own units. `rho_floor`: the
    least autocorrelation the noise is known to have (a rolling mean's); `span`: a rolling mean's window in
    points, whose changes are also sought among its disjoint windows (see _window_cuts)."""
    n = len(values)
    if n == 0:
        e = np.zeros(0)
        return Segments(np.zeros(1, np.int64), e, e, e.astype(np.int64), e, np.zeros(0, bool))
    w = 1.0 / noise.sigma ** 2
    if penalty is None:
        penalty = PENALTY_SLOPE * np.log(max(n, 2)) + PENALTY_BASE
    rho = rho_floor
    seg = _segment_once(noise, values, w * (1 - rho) ** 2 / (1 + rho), penalty, rho)
    for _ in range(AR_ROUNDS if noise.kind == "gaussian" else 0):
        # residuals of a series cut too finely hide part of a slow wander: estimate, cut more coarsely,
        # estimate again (independent noise or switching between levels leaves white residuals: 0)
        found = max(rho, _autocorrelation(noise, seg))
        if found <= rho + 0.02:
            break
        rho = found
        seg = _segment_once(noise, values, w * (1 - rho) ** 2 / (1 + rho), penalty, rho)
    if span and span > 1:
        extra = _window_cuts(noise, seg, span)
        if extra:
            cuts = sorted({*seg.bounds[1:-1].tolist(), *extra})
            seg = build_segments(values, noise.z, w * (1 - rho) ** 2 / (1 + rho), seg.outlier, cuts, rho)
    return seg


def _window_cuts(noise: Noise, seg: Segments, span: int) -> list[int]:
    """Changes of a rolling mean over `span` points that its autocorrelated points hide: the series read
    every span-th point (means of disjoint windows of episodes: independent noise, its sd from their
    changes), segmented, each change placed at the best split of the full series between the two windows
    around it, where no cut lies within a window of it already. Read as AR(1) noise with the window's lag-1
    correlation (1 - 1 / span), a mean of a window's points is as uncertain as one point, and a rise within
    about one window — a change of the episodes' level enters the mean as a ramp that long — is no change."""
    n = len(noise.z)
    idx = np.arange((n - 1) % span, n, span)
    if len(idx) < 6:
        return []
    u = noise.z[idx]
    d = np.diff(u)
    # a disjoint window's mean is as noisy as a point: sqrt(span) x the sd changes between neighbours show (they
    # differ by 1 / span of their episodes); or what the windows' own changes show, when more (a wander)
    sd = max(MAD_SD * median(np.abs(d - median(d))) / math.sqrt(2), math.sqrt(span) * median(noise.sigma))
    if not sd > 0:
        return []
    # a rolling mean's first points average fewer episodes (SB3's deque fills over its first window)
    w = np.minimum(idx + 1, span) / span / sd ** 2
    thin = _binseg(u, w, np.zeros(len(u), bool), PENALTY_SLOPE * np.log(len(u)) + PENALTY_BASE)
    have = seg.bounds[1:-1]
    out = []
    zs = np.concatenate([[0.0], np.cumsum(noise.z)])
    ws = np.arange(n + 1, dtype=np.float64)
    for c in thin:
        a, b = max(int(idx[c - 1]) - span, 0), min(int(idx[c]) + 1, n)
        if b - a < 3:
            continue
        k, _ = _split_gains(zs, ws, a, b)
        if len(have) and np.min(np.abs(have - k)) < span or any(abs(k - o) < span for o in out):
            continue
        out.append(k)
    return out


def _segment_once(noise: Noise, values: np.ndarray, w: np.ndarray, penalty: float,
                  rho: float = 0.0) -> "Segments":
    global _calls
    _calls += 1
    if segment_kernels.AVAILABLE and not _NUMPY_PATH and (_calls > NUMPY_FIRST or len(values) >= LONG_SERIES):
        cuts, outlier = segment_kernels.kernel()(noise.z.astype(np.float64), w.astype(np.float64), float(penalty),
                                                 MAX_SEGMENTS, OUTLIER_POINTS, OUTLIER_ROUNDS)
        return build_segments(values, noise.z, w, outlier, cuts.tolist(), rho)
    outlier = np.zeros(len(values), bool)
    cuts = _binseg(noise.z, w, outlier, penalty)
    # outliers: short segments standing alone between two longer ones that agree with each other
    for _ in range(OUTLIER_ROUNDS):
        found = _outliers(noise.z, w, outlier, cuts)
        if not found.any():
            break
        outlier |= found
        cuts = _binseg(noise.z, w, outlier, penalty)
    return build_segments(values, noise.z, w, outlier, cuts, rho)


def _binseg(z: np.ndarray, w: np.ndarray, outlier: np.ndarray, penalty: float) -> list[int]:
    n = len(z)
    wk = np.where(outlier, 0.0, w)
    ws = np.concatenate([[0.0], np.cumsum(wk)])
    zs = np.concatenate([[0.0], np.cumsum(wk * z)])
    cuts = []
    stack = [(0, n)]
    while stack and len(cuts) < MAX_SEGMENTS:
        a, b = stack.pop()
        if b - a < 2 or ws[b] - ws[a] <= 0:
            continue
        k, gain = _split_gains(zs, ws, a, b)
        if gain <= penalty:
            continue
        cuts.append(k)
        stack += [(a, k), (k, b)]
    cuts.sort()
    return _merge_insignificant(zs, ws, [0, *cuts, n], penalty)


def _merge_insignificant(zs: np.ndarray, ws: np.ndarray, bounds: list[int], penalty: float) -> list[int]:
    """Drop cuts whose two sides no longer differ beyond noise (binary segmentation can leave such
    cuts once later splits took the real change): the weakest first, until every cut is needed."""
    b = list(bounds)
    while len(b) > 2:
        gains = []
        for j in range(1, len(b) - 1):
            a, k, c = b[j - 1], b[j], b[j + 1]
            wl, wr = ws[k] - ws[a], ws[c] - ws[k]
            if wl <= 0 or wr <= 0:
                gains.append(-1.0)
                continue
            d = (zs[k] - zs[a]) / wl - (zs[c] - zs[k]) / wr
            gains.append(d * d * wl * wr / (wl + wr))
        j = int(np.argmin(gains))
        if gains[j] > penalty:
            break
        del b[j + 1]
    return b[1:-1]


def _outliers(z: np.ndarray, w: np.ndarray, outlier: np.ndarray, cuts: list[int]) -> np.ndarray:
    """Points of short segments (<= OUTLIER_POINTS) whose neighbours on both sides are longer and
    closer to each other than to it: one bad eval, not a change of level."""
    bounds = [0, *cuts, len(z)]
    found = np.zeros(len(z), bool)
    keep = ~outlier
    means, lens = [], []
    for a, b in zip(bounds[:-1], bounds[1:]):
        sel = keep[a:b]
        lens.append(int(sel.sum()))
        means.append(float(np.average(z[a:b][sel], weights=w[a:b][sel])) if sel.any() else np.nan)
    for j in range(1, len(means) - 1):
        if lens[j] == 0 or lens[j] > OUTLIER_POINTS:
            continue
        if lens[j - 1] < 2 * lens[j] + 1 or lens[j + 1] < 2 * lens[j] + 1:
            continue
        jump = abs(means[j] - 0.5 * (means[j - 1] + means[j + 1]))
        if abs(means[j - 1] - means[j + 1]) < 0.5 * jump:
            a, b = bounds[j], bounds[j + 1]
            found[a:b] = keep[a:b]
    return found


def build_segments(values: np.ndarray, z: np.ndarray, w: np.ndarray, outlier: np.ndarray, cuts: list[int],
                   rho: float = 0.0) -> Segments:
    """Segments of `values` cut at `cuts` (levels, noise-scale levels and their standard errors, outliers left out)."""
    bounds = np.array([0, *cuts, len(values)], dtype=np.int64)
    keep = ~outlier
    wk = np.where(keep, w, 0.0)
    vs = np.concatenate([[0.0], np.cumsum(np.where(keep, values, 0.0))])
    cs = np.concatenate([[0], np.cumsum(keep)])
    ws = np.concatenate([[0.0], np.cumsum(wk)])
    zs = np.concatenate([[0.0], np.cumsum(wk * z)])
    a, b = bounds[:-1], bounds[1:]
    count = cs[b] - cs[a]
    with np.errstate(invalid="ignore", divide="ignore"):
        level = np.where(count > 0, (vs[b] - vs[a]) / np.maximum(count, 1), np.nan)
        wsum = ws[b] - ws[a]
        zlevel = np.where(wsum > 0, (zs[b] - zs[a]) / wsum, np.nan)
        se = np.where(wsum > 0, 1.0 / np.sqrt(wsum), np.inf)
    # a segment made only of outliers takes its neighbours' level (it cannot exist after merging)
    return Segments(bounds, level, zlevel, count.astype(np.int64), se, outlier.copy(), rho)
