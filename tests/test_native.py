"""The compiled kernels: loaded without numba, refused when foreign, and the exact number parser."""
from __future__ import annotations

import json
import math
import os
import struct
import subprocess
import sys
from decimal import Decimal, getcontext

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from curriwatch.readers import native

KERNELS = native.kernels()
needs_kernels = pytest.mark.skipif(KERNELS is None, reason="numba/llvmlite not installed: numpy paths only")


def parse(texts: list[str]) -> list[tuple[int, float | None]]:
    """(code, value) of each text by the compiled parser (code 1: converted; 2: a number float()
    converts; 0: not a JSON number)."""
    blob = "".join(texts).encode()
    ends = np.cumsum([len(t.encode()) for t in texts]).astype(np.int64)
    starts = (ends - [len(t.encode()) for t in texts]).astype(np.int64)
    bits = np.zeros(len(texts), np.uint64)
    code = np.zeros(len(texts), np.uint8)
    KERNELS.parse_numbers(np.frombuffer(blob, np.uint8), starts, ends, bits, code)
    return [(int(c), float(b) if c == 1 else None) for c, b in zip(code, bits.view(np.float64))]


def same_bits(a: float, b: float) -> bool:
    return struct.pack("<d", a) == struct.pack("<d", b)


def check(texts: list[str]) -> None:
    """Every text the parser converts is bit for bit what float() gives; every number it leaves
    to float() (code 2) is one float() takes."""
    for text, (code, value) in zip(texts, parse(texts)):
        if code == 1:
            assert same_bits(value, float(text)), (text, value, float(text))
        elif code == 2:
            float(text)


HARD = [
    "0", "-0", "0.0", "-0.0", "0e0", "1", "-1", "0.1", "0.2", "0.3", "1e23", "8.98846567431158e307",
    "9007199254740993", "9007199254740992", "9007199254740994", "9007199254740995",  # ties to even at 2**53
    "18014398509481986", "18014398509481990", "295147905179352825856",  # 2**68: 21 digits
    "2.2250738585072011e-308", "2.2250738585072012e-308", "2.2250738585072014e-308",  # the smallest normal
    "4.9406564584124654e-324", "2.4703282292062327e-324", "2.4703282292062328e-324",  # subnormal limits
    "5e-324", "1e-323", "3e-324", "2e-324", "1.7976931348623157e308", "1.7976931348623158e308",
    "1.7976931348623159e308", "1e308", "1e309", "1e400", "-1e400", "1e-400", "1e-342", "1e-343", "1e-341",
    "7.2057594037927933e16", "0.12345678901234568", "123456789012345678", "1234567890123456789",
    "12345678901234567890", "9999999999999999999", "10000000000000000000", "0.000000000000000000001",
    "100000000000000000000000", "1.00000000000000011102230246251565404236316680908203125",
    "1.5e00001", "1e-27", "1e-28", "1e55", "1e56", "3.0517578125e-05", "6.103515625e-05",
    "NaN", "-NaN", "Infinity", "-Infinity", "infinity", "nan", "inf",
    "1_000", " 1", "1 ", "+1", ".5", "5.", "1e", "1e+", "-", "", "\"abc\"", "true", "null", "{}", "[1]", "0x10",
]


@needs_kernels
def test_hard_cases_are_bit_identical_to_float():
    check(HARD)
    got = dict(zip(HARD, parse(HARD)))
    assert got["0.1"][0] == got["9007199254740993"][0] == got["2.2250738585072011e-308"][0] == 1
    assert got["NaN"][0] == got["Infinity"][0] == got["-Infinity"][0] == 1
    assert same_bits(got["-0.0"][1], -0.0) and same_bits(got["1e-400"][1], 0.0)
    assert got["-NaN"][0] == 0  # float() keeps its sign bit: float() converts it
    assert got["12345678901234567890"][0] == 2 and got["1.5e00001"][0] == 2  # beyond the parser: float()
    assert got["1_000"][0] == got["+1"][0] == got["\"abc\""][0] == got[""][0] == 0


@needs_kernels
@settings(max_examples=3000, deadline=None, database=None)
@given(st.floats(allow_nan=False))
def test_every_repr_converts_exactly(x):
    """What json.dumps writes (repr: the shortest string that round-trips, up to 17 digits)."""
    text = repr(x) if x == x and abs(x) != float("inf") else json.dumps(x)
    ((code, value),) = parse([text])
    assert code == 1 and same_bits(value, float(text))


@needs_kernels
@settings(max_examples=3000, deadline=None, database=None)
@given(st.integers(0, 10 ** 19 - 1), st.integers(-360, 330), st.booleans(), st.integers(0, 19))
def test_decimal_strings_convert_exactly(w, q, negative, point):
    """Any significand of up to 19 digits with any exponent, written plain or scientific."""
    digits = str(w)
    point = min(point, len(digits))
    plain = (digits[:len(digits) - point] or "0") + ("." + digits[len(digits) - point:] if point else "")
    texts = [f"{w}e{q}", f"{plain}E{q - 1:+d}", plain]
    if negative:
        texts = ["-" + t for t in texts]
    check(texts)
    assert all(code == 1 for code, _ in parse(texts))


@needs_kernels
@settings(max_examples=1500, deadline=None, database=None)
@given(st.floats(min_value=0, allow_nan=False, allow_infinity=False, exclude_min=True), st.integers(15, 19))
def test_near_halfway_strings_convert_exactly(x, digits):
    """The exact midpoint between a double and the next, cut to 15-19 digits and nudged by one in
    the last place: the cases where rounding is decided by the last bits."""
    getcontext().prec = 800
    nxt = math.nextafter(x, math.inf)
    if nxt == math.inf:
        return
    mid = (Decimal(x) + Decimal(nxt)) / 2
    sign, ds, exp = mid.as_tuple()
    texts = []
    for bump in (-1, 0, 1):
        w = int("".join(map(str, ds[:digits]))) + bump
        if w > 0:
            texts.append(f"{w}e{exp + len(ds) - digits}")
    check(texts)


@needs_kernels
def test_wrong_arrays_are_refused():
    """A wrong dtype or layout would be read as raw memory: the call refuses it."""
    buf = np.zeros(8, np.uint8)
    with pytest.raises(TypeError):
        KERNELS.parse_numbers(buf, np.zeros(1, np.int32), np.zeros(1, np.int64), np.zeros(1, np.uint64),
                              np.zeros(1, np.uint8))
    with pytest.raises(TypeError):
        KERNELS.parse_numbers(buf, np.zeros(4, np.int64)[::2], np.zeros(2, np.int64), np.zeros(2, np.uint64),
                              np.zeros(2, np.uint8))


def test_damaged_or_foreign_cache_files_are_not_loaded(tmp_path):
    obj = b"\x7fELF" + bytes(100)
    symbols = {"scan": "cfunc.x"}
    assert native._write_cache(str(tmp_path), "k.o", "KEY", "cpu", obj, symbols)
    path = str(tmp_path / "k.o")
    assert native._read_cache(path, "KEY") == (obj, symbols)
    assert native._read_cache(path, "OTHER KEY") is None  # another CPU, Python, llvmlite or kernel source
    data = (tmp_path / "k.o").read_bytes()
    (tmp_path / "k.o").write_bytes(data[:-1] + bytes([data[-1] ^ 1]))  # one bit of the code changed
    assert native._read_cache(path, "KEY") is None
    (tmp_path / "k.o").write_bytes(data[:40])  # cut short
    assert native._read_cache(path, "KEY") is None
    assert native._read_cache(str(tmp_path / "missing.o"), "KEY") is None


@needs_kernels
def test_a_fresh_process_loads_the_kernels_without_numba():
    """numba compiles once; later processes load the machine code with llvmlite alone."""
    code = ("import sys; from curriwatch.readers import native; k = native.kernels(); "
            "print(k is not None, 'numba' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert out.stdout.split() == ["True", "False"]


def test_no_jit_means_no_kernels():
    code = "from curriwatch.readers import native; print(native.kernels())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "CURRIWATCH_NO_JIT": "1", "PYTHONPATH": os.pathsep.join(sys.path)})
    assert out.stdout.strip() == "None"
