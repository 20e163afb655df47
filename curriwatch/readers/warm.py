"""Imported by a sweep's forkserver: loads the compiled readers once, so every forked worker uses
them from its first file on (small files included) without loading them again."""
from __future__ import annotations

from . import native

native.kernels()
