"""Sustained oscillation: a series that rises and falls with one period, far beyond its noise.

Switching (levels.switching) wants two flat levels and swings (rules/volatility) a change at every
point; a wave that takes a few points to rise and a few to fall is neither. Its periodogram has a line:
one frequency whose power stands far above the continuum of the frequencies around it (noise, a
learning curve, a wander of AR(1) noise or Markov switching all make a smooth spectrum). Where the
wave is, complex demodulation at that frequency gives its local amplitude; the oscillation is where
that amplitude is a large share of the env's range for a few periods in a row.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .incidents import runs_of_true
from .levels import JOIN_SPANS
from .segments import robust_sd
from .stats import centred_mean

MIN_PERIOD = 4  # points: a faster alternation is swings
MAX_PERIOD = 64  # points ... and a slower one is read as levels (switching) or a trend
MIN_PERIODS = 3  # a stretch must hold this many periods (and the series 4) to show a wave ...
NO_RANGE_PERIODS = 8  # ... and this many when the env has no range (it never learned) to judge its size by
LINE_P = 0.01  # the line: power that noise reaches at any of the frequencies tried with this probability ...
NEIGHBOURS = 8  # ... judged against the median power of this many frequencies on each side (the continuum)
MIN_POINTS = 2 * (2 * NEIGHBOURS + 1)  # a shorter series has too few frequencies beside a line to judge it by
                                       # (43 sparse evals show 5 periods of a wave of 8.6)
LINE_BINS = 4  # ... leaving out up to this many frequencies on each side of the line (its spread) ...
LINE_SPREAD_BINS = 64  # ... one per this many frequency bins below it
LINE_NOISE = 2.0  # ... and against this many times what the point noise alone would make of it
PEAK_TO_PEAK = 0.3  # the wave's local peak-to-peak, as a share of the env's range ...
BLOCK = 256  # points: a series of two blocks or more is also searched block by block (see oscillations) ...
BLOCK_AGREE = 1.15  # ... for a line at periods this close in two blocks side by side ...
BLOCK_PERIODS = 8  # ... of this many periods in a block at least (a slower wave drifts less in phase, and a
                   # block resolves a smoothed series' red spectrum into lines at its low end)
ENVELOPE_NOISE = 3.0  # ... and this many times the peak-to-peak noise alone shows over one period
GAUSSIAN_CHANGES = 0.5  # changes whose median-based sd is under this share of their rms are no gaussian noise


@dataclass(frozen=True)
class Oscillation:
    first: int  # point indices of the oscillating stretch
    last: int
    period: float  # points
    peak_to_peak: float  # raw scale, the stretch's median


def oscillations(values: np.ndarray, noise_sd: float, width: float, start: int = 0,
                 local: np.ndarray | None = None) -> list[Oscillation]:
    """Oscillating stretches of `values` (raw scale, from point `start` on) whose peak-to-peak is at
    least PEAK_TO_PEAK x `width` (the env's range; 0 when it has none: then against the noise alone);
    `noise_sd` is the series' point noise; `local`, where given, each point's own (means over numbers of
    episodes that vary: a wave must stand out of the noise of the points it spans)."""
    y = np.asarray(values[start:], dtype=np.float64)
    m = len(y)
    if not width >= 0 or m < MIN_POINTS:
        return []
    longest = min(MAX_PERIOD, m // (MIN_PERIODS + 1))
    x = y - centred_mean(y, longest)  # a trend is not a wave
    line = _line(x, longest)
    if line is None and m >= 2 * BLOCK:
        # a wave whose phase drifts (a period that wanders, points merged or dropped along the way) smears
        # its line over the whole series; over a block of BLOCK points it is still one, in the next block too
        # (noise makes a line in one block now and then: never at the same period in two blocks side by side)
        line = _block_line(x)
    if line is None:
        return []
    period = line[0]
    q = line[1]
    half = int(round(period)) // 2
    window = 2 * half + 1
    phasor = np.exp(-2j * np.pi * np.arange(m) / period)
    # local amplitude: the series times the line's phasor, averaged over one period
    demod = centred_mean(x * phasor, half)
    ptp = 4 * np.abs(demod)  # amplitude a gives |mean| a / 2; peak-to-peak 2 a
    # the point noise without the wave (a noise estimate from changes between neighbours holds the wave's) — but not
    # where the changes are far from gaussian (their median-based sd under GAUSSIAN_CHANGES x their root mean
    # square): single episodes' outcomes, 0/1 or a return of 0 unless solved, change little between most
    # neighbours and a lot now and then, so their median change shows almost no noise, and a few failures close
    # together by chance among thousands of successes were a wave; the given noise stands
    resid = x - 2 * np.real(demod * np.conj(phasor))
    changes = np.diff(resid)
    from_changes = robust_sd(changes)
    if from_changes >= GAUSSIAN_CHANGES * float(np.sqrt(np.mean(changes * changes) / 2)):
        noise_sd = min(noise_sd, from_changes)
    if not line[2] > LINE_NOISE * q * noise_sd ** 2:
        return []
    floor = max(PEAK_TO_PEAK * width, ENVELOPE_NOISE * 4 * noise_sd / np.sqrt(window))
    if local is not None:
        here = np.sqrt(centred_mean(np.asarray(local[start:], dtype=np.float64) ** 2, half))
        floor = np.maximum(floor, ENVELOPE_NOISE * 4 * here / np.sqrt(window))
    out = []
    # without a range to compare with, a wave must keep its rhythm many times over: the slow wander of
    # smoothed noise (a rolling mean of episodes) makes a few wave-like periods
    periods = MIN_PERIODS if width > 0 else NO_RANGE_PERIODS
    for a, b in runs_of_true(ptp >= floor):
        if b - a + 1 < periods * period:
            continue
        # the averaging spreads the wave's ends over a period: where it begins and ends its envelope is
        # half its height
        top = float(ptp[a: b + 1].max())
        half = np.flatnonzero(ptp[a: b + 1] >= top / 2)
        a, b = a + int(half[0]), a + int(half[-1])
        if out and a - (out[-1].last - start) <= JOIN_SPANS * max(b - a, out[-1].last - out[-1].first):
            # the wave's envelope sank for less than twice the longer stretch (a wave whose phase drifts, as
            # CleanRL's per-episode points at irregular steps do, loses the fixed line's phase now and then):
            # one unstable period, as switching's episodes are
            a = out.pop().first - start
        out.append(Oscillation(start + a, start + b, float(period), float(np.median(ptp[a: b + 1]))))
    return out


def _line(x: np.ndarray, longest: int) -> tuple[float, float, float] | None:
    """The periodogram line of detrended `x` between periods MIN_PERIOD and `longest` points: (its period
    in points, the q its power had to reach x the continuum, its power), or None when no frequency
    stands out."""
    m = len(x)
    power = np.abs(np.fft.rfft(x)) ** 2 / m
    k_lo, k_hi = int(np.ceil(m / longest)), int(np.floor(m / MIN_PERIOD))
    if k_hi <= k_lo:
        return None
    k = k_lo + int(np.argmax(power[k_lo: k_hi + 1]))
    # the continuum beside the line, leaving out its spread: a wave sampled at jittered steps (per-episode
    # logging at irregular global steps) spreads its line over more frequencies the higher it is (the jitter
    # moves a faster wave's phase more); a low line's near neighbours are the continuum already
    gap = int(np.clip(round(k / LINE_SPREAD_BINS), 1, LINE_BINS))
    side = np.concatenate([power[max(1, k - gap - NEIGHBOURS): max(1, k - gap)],
                           power[k + gap + 1: k + gap + NEIGHBOURS + 1]])
    # noise's periodogram ordinates are exponential about the continuum (median ln 2 of its mean): the
    # largest of n tried exceeds q x its mean with probability ~ n exp(-q)
    q = float(np.log((k_hi - k_lo + 1) / LINE_P))
    if len(side) < NEIGHBOURS or not power[k] > q / np.log(2) * float(np.median(side)):
        return None
    return m / k, q, float(power[k])


def _block_line(x: np.ndarray) -> tuple[float, float, float] | None:
    """The line of detrended `x` found block by block (BLOCK points, half overlapping; periods MIN_PERIOD to
    BLOCK / BLOCK_PERIODS): in two blocks side by side (a block apart) at periods within BLOCK_AGREE, each
    over q (the chance widened by the blocks' number) x the mean power of the NEIGHBOURS frequencies on
    either side of it — a short block resolves a smoothed series' spectrum down to its nulls (a rolling
    mean's sinc), where a median of neighbours falls into them. The strongest such line, as `_line` gives
    it, or None."""
    blocks = np.lib.stride_tricks.sliding_window_view(x, BLOCK)[:: BLOCK // 2]
    power = np.abs(np.fft.rfft(blocks, axis=1)) ** 2 / BLOCK
    k_lo, k_hi = BLOCK_PERIODS, BLOCK // MIN_PERIOD
    k = k_lo + np.argmax(power[:, k_lo: k_hi + 1], axis=1)
    gap = np.clip(np.round(k / LINE_SPREAD_BINS), 1, LINE_BINS).astype(np.int64)
    rows = np.arange(len(blocks))[:, None]
    offsets = np.arange(1, NEIGHBOURS + 1)
    below = np.maximum(k[:, None] - gap[:, None] - offsets, 1)  # at low k these repeat bin 1: conservative enough
    above = np.minimum(k[:, None] + gap[:, None] + offsets, power.shape[1] - 1)
    continuum = (power[rows, below].sum(axis=1) + power[rows, above].sum(axis=1)) / (2 * NEIGHBOURS)
    q = float(np.log(len(blocks) * (k_hi - k_lo + 1) / LINE_P))
    peak = power[np.arange(len(blocks)), k]
    found = peak > q * continuum
    period = BLOCK / k
    pair = found[:-2] & found[2:] & (np.maximum(period[:-2], period[2:]) <= BLOCK_AGREE * np.minimum(period[:-2], period[2:]))
    if not pair.any():
        return None
    i = int(np.flatnonzero(pair)[np.argmax(peak[:-2][pair])])
    return float(period[i]), q, float(peak[i])
