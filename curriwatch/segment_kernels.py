"""Compiled binary segmentation: the same cuts and outliers as segments.py's numpy path, in one pass
per series (no Python call per split), so an env of a few hundred points costs microseconds.

numba compiles these the first time `kernel()` is asked for (cached on disk after that); numba is
not even imported before, so a small scan never pays for it. Without numba (or with
CURRIWATCH_NO_JIT set) segments.py uses its numpy path; tests run both and compare.
"""
from __future__ import annotations

import importlib.util
import os

import numpy as np

AVAILABLE = not os.environ.get("CURRIWATCH_NO_JIT") and importlib.util.find_spec("numba") is not None
_COMPILED = ("_prefix", "_gain", "_binseg", "_outliers", "segment_core")  # callees first
_kernel = None


def kernel():
    """The compiled `segment_core` (numba), compiling this module's functions on first use."""
    global _kernel
    if _kernel is None:
        import numba

        for name in _COMPILED:  # each compiled function calls the compiled versions of the others
            globals()[name] = numba.njit(cache=True, nogil=True)(globals()[name])
        _kernel = globals()["segment_core"]
    return _kernel


def njit(func):  # marks what `kernel()` compiles; plain Python until then
    return func


@njit
def _prefix(z, w, outlier):
    n = len(z)
    ws = np.zeros(n + 1)
    zs = np.zeros(n + 1)
    for i in range(n):
        wi = 0.0 if outlier[i] else w[i]
        ws[i + 1] = ws[i] + wi
        zs[i + 1] = zs[i] + wi * z[i]
    return ws, zs


@njit
def _gain(ws, zs, a, k, b):
    wl = ws[k] - ws[a]
    wr = ws[b] - ws[k]
    if wl <= 0.0 or wr <= 0.0:
        return -1.0
    d = (zs[k] - zs[a]) / wl - (zs[b] - zs[k]) / wr
    return d * d * wl * wr / (wl + wr)


@njit
def _binseg(z, w, outlier, penalty, max_segments):
    """Cuts of a binary segmentation (sorted), weakest insignificant cuts merged away."""
    n = len(z)
    ws, zs = _prefix(z, w, outlier)
    cuts = np.empty(max_segments + 1, np.int64)
    ncuts = 0
    stack_a = np.empty(2 * max_segments + 2, np.int64)
    stack_b = np.empty(2 * max_segments + 2, np.int64)
    top = 0
    stack_a[0] = 0
    stack_b[0] = n
    top = 1
    while top > 0 and ncuts < max_segments:
        top -= 1
        a = stack_a[top]
        b = stack_b[top]
        if b - a < 2 or ws[b] - ws[a] <= 0.0:
            continue
        best = -1.0
        bk = -1
        for k in range(a + 1, b):
            g = _gain(ws, zs, a, k, b)
            if g > best:  # the first of equal gains, as numpy's argmax
                best = g
                bk = k
        if best <= penalty:
            continue
        cuts[ncuts] = bk
        ncuts += 1
        stack_a[top] = a
        stack_b[top] = bk
        top += 1
        stack_a[top] = bk
        stack_b[top] = b
        top += 1
    bounds = np.empty(ncuts + 2, np.int64)
    bounds[0] = 0
    bounds[1: ncuts + 1] = np.sort(cuts[:ncuts])
    bounds[ncuts + 1] = n
    m = ncuts + 2
    while m > 2:  # merge: drop the weakest cut while it is not significant
        wj = -1
        wg = 0.0
        for j in range(1, m - 1):
            g = _gain(ws, zs, bounds[j - 1], bounds[j], bounds[j + 1])
            if wj < 0 or g < wg:
                wj = j
                wg = g
        if wg > penalty:
            break
        for j in range(wj, m - 1):
            bounds[j] = bounds[j + 1]
        m -= 1
    return bounds[1: m - 1].copy()


@njit
def _outliers(z, w, outlier, cuts, outlier_points):
    """Points of short segments standing alone between two longer ones that agree with each other."""
    n = len(z)
    nseg = len(cuts) + 1
    bounds = np.empty(nseg + 1, np.int64)
    bounds[0] = 0
    bounds[1:nseg] = cuts
    bounds[nseg] = n
    means = np.empty(nseg)
    lens = np.zeros(nseg, np.int64)
    for j in range(nseg):
        sw = 0.0
        sz = 0.0
        for i in range(bounds[j], bounds[j + 1]):
            if not outlier[i]:
                lens[j] += 1
                sw += w[i]
                sz += w[i] * z[i]
        means[j] = sz / sw if sw > 0 else np.nan
    found = np.zeros(n, np.bool_)
    for j in range(1, nseg - 1):
        if lens[j] == 0 or lens[j] > outlier_points:
            continue
        if lens[j - 1] < 2 * lens[j] + 1 or lens[j + 1] < 2 * lens[j] + 1:
            continue
        jump = abs(means[j] - 0.5 * (means[j - 1] + means[j + 1]))
        if abs(means[j - 1] - means[j + 1]) < 0.5 * jump:
            for i in range(bounds[j], bounds[j + 1]):
                if not outlier[i]:
                    found[i] = True
    return found


@njit
def segment_core(z, w, penalty, max_segments, outlier_points, rounds):
    """(cuts, outlier mask) of one series: binary segmentation, then up to `rounds` passes taking out
    outliers and segmenting again."""
    outlier = np.zeros(len(z), np.bool_)
    cuts = _binseg(z, w, outlier, penalty, max_segments)
    for _ in range(rounds):
        found = _outliers(z, w, outlier, cuts, outlier_points)
        if not found.any():
            break
        outlier = outlier | found
        cuts = _binseg(z, w, outlier, penalty, max_segments)
    return cuts, outlier
