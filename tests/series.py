"""A compact series notation for rule tests (after promtool's), and running a case end to end.

Tokens, separated by spaces, each one or more points:
    0.9        one point            _       no point (a gap)
    0.9x30     30 points of 0.9     _x5     five gaps
    0.1+0.05x16   16 points from 0.1 up by 0.05 each (0.1, 0.15, ...); `-` goes down
    0.9~0.03x30   30 points of 0.9 with a seeded uniform jitter in [-0.03, 0.03]
    0.5b32x30     30 success rates of 32 seeded Bernoulli(0.5) trials each (binomial noise)
    0.6w0.3p12x60 60 points of a wave about 0.6, amplitude 0.3, period 12 points (from its top; ~ jitters it)
    (0.2 0.8)x15  the group repeated 15 times
    0.9b20x40h25  any token's points each held (logged again unchanged) 25 times: a measurement a tracker repeats
                  at every update until the next one (Syllabus' curricula)
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

_TOKEN = re.compile(r"^(?P<a>-?[\d.]+|_)(?:(?P<op>[+-])(?P<b>[\d.]+))?(?:w(?P<wa>[\d.]+)p(?P<wp>[\d.]+))?"
                    r"(?:~(?P<j>[\d.]+))?(?:b(?P<bn>\d+))?(?:x(?P<n>\d+))?(?:h(?P<h>\d+))?$")


def expand(notation: str, seed: int = 0) -> list[float | None]:
    rng = np.random.default_rng(seed)
    return _expand(notation.strip(), rng)


def _expand(text: str, rng) -> list[float | None]:
    out: list[float | None] = []
    i = 0
    while i < len(text):
        if text[i].isspace():
            i += 1
            continue
        if text[i] == "(":
            depth, j = 1, i + 1
            while depth:
                depth += {"(": 1, ")": -1}.get(text[j], 0)
                j += 1
            m = re.match(r"x(\d+)", text[j:])
            inner = _expand(text[i + 1: j - 1], rng)
            times = int(m.group(1)) if m else 1
            out += [v for _ in range(times) for v in inner]
            i = j + (m.end() if m else 0)
            continue
        j = i
        while j < len(text) and not text[j].isspace():
            j += 1
        m = _TOKEN.match(text[i:j])
        if not m:
            raise ValueError(f"bad series token {text[i:j]!r}")
        n = int(m["n"] or 1)
        if m["a"] == "_":
            vals = [None] * n
        else:
            a, b = float(m["a"]), float(m["b"] or 0) * (-1 if m["op"] == "-" else 1)
            jitter = float(m["j"] or 0)
            if m["wa"]:  # a wave: amplitude wa, period wp points, starting at its top
                amp, period = float(m["wa"]), float(m["wp"])
                vals = [a + amp * float(np.cos(2 * np.pi * k / period)) + (rng.uniform(-jitter, jitter) if jitter else 0.0)
                        for k in range(n)]
            elif m["bn"]:
                trials = int(m["bn"])
                vals = [float(rng.binomial(trials, min(max(a + k * b, 0.0), 1.0))) / trials for k in range(n)]
            else:
                vals = [a + k * b + (rng.uniform(-jitter, jitter) if jitter else 0.0) for k in range(n)]
        out += [v for v in vals for _ in range(int(m["h"] or 1))]
        i = j
    return out


def test_notation_itself():
    assert expand("0.1+0.05x3 _ 0.9x2") == [0.1, 0.15000000000000002, 0.2, None, 0.9, 0.9]
    assert expand("(0.2 0.8)x2 _x2 1-0.5x2") == [0.2, 0.8, 0.2, 0.8, None, None, 1.0, 0.5]
    noisy = expand("0.9~0.03x100", seed=1)
    assert len(noisy) == 100 and all(0.87 <= v <= 0.93 for v in noisy) and len(set(noisy)) == 100
    rates = expand("0.5b32x400", seed=1)
    assert all(v * 32 == int(v * 32) for v in rates) and abs(np.mean(rates) - 0.5) < 0.02
    assert abs(np.std(rates) - np.sqrt(0.25 / 32)) < 0.01
    held = expand("0.1+0.1x3h2 0.5b20x2h3", seed=1)
    assert held[:6] == [0.1, 0.1, 0.2, 0.2, 0.30000000000000004, 0.30000000000000004]
    assert held[6] == held[7] == held[8] and held[9] == held[10] == held[11] and len(held) == 12
    wave = expand("0.6w0.3p4x8")
    assert np.allclose(wave, [0.9, 0.6, 0.3, 0.6, 0.9, 0.6, 0.3, 0.6])


@dataclass
class EnvSeries:
    """One env's series: notation plus the step of the first point and between points."""

    train: str = ""
    eval: str = ""
    state: str = ""
    train_every: int = 10
    eval_every: int = 50
    state_every: int = 50
    start: int = 0

    def points(self, seed: int) -> dict[str, list[tuple[int, float]]]:
        out = {}
        for split, notation, every in (("train", self.train, self.train_every),
                                       ("eval", self.eval, self.eval_every),
                                       ("state", self.state, self.state_every)):
            vals = expand(notation, seed) if notation else []
            out[split] = [(self.start + k * every, v) for k, v in enumerate(vals) if v is not None]
        return out


@dataclass
class Case:
    """A rule test: envs by name, config overrides, the incidents expected from `rules`.

    expect: (type, env, severity, first_step, tolerance) per incident; [] means must not fire."""

    name: str
    envs: dict[str, EnvSeries]
    expect: list[tuple]
    rules: tuple[str, ...] = ()
    config: dict = field(default_factory=dict)
    seed: int = 7
    metric: str = "reward"  # the metric name the series are logged under


def write_case(case: Case, logdir) -> None:
    """The case as a real TensorBoard run (tensorboardX), in the generic profile's keys."""
    from writers import write_tb

    series = {}
    for env, s in case.envs.items():
        pts = s.points(case.seed)
        if pts["train"]:
            series[f"train/{env}/{case.metric}"] = pts["train"]
        if pts["eval"]:
            series[f"eval/{env}/{case.metric}"] = pts["eval"]
        if pts["state"]:
            series[f"curriculum/{env}/state"] = pts["state"]
    write_tb(logdir / "run", series)


def run_case(case: Case, tmp_path):
    import curriwatch
    from curriwatch.config import load_config

    write_case(case, tmp_path)
    config = load_config(None, overrides=case.config or None)
    report = curriwatch.analyze(curriwatch.load(tmp_path, config=config), config)
    (run,) = report.runs
    return [w for w in run.warnings if not case.rules or w.type in case.rules], run


def check(case: Case, got) -> None:
    """Every expected incident matched once, nothing else; on failure print expected vs got."""
    remaining = list(got)
    missing = []
    for typ, env, severity, first, tol in case.expect:
        hit = next((g for g in remaining if g.type == typ and g.env_id == env and g.severity == severity
                    and abs(g.first_step - first) <= tol), None)
        if hit is None:
            missing.append((typ, env, severity, first, tol))
        else:
            remaining.remove(hit)
    if missing or remaining:
        shown = "\n".join(f"  {g.type} {g.env_id} {g.severity} first_step={g.first_step} "
                          f"last_step={g.last_step}: {g.message}" for g in got) or "  (nothing)"
        raise AssertionError(f"case {case.name!r}\nexpected:\n" +
                             ("\n".join(f"  {m}" for m in case.expect) or "  (nothing)") +
                             f"\ngot:\n{shown}\nmissing: {missing}\nunexpected: "
                             f"{[(g.type, g.env_id, g.severity, g.first_step) for g in remaining]}")
