"""analyze() benchmark: time and peak memory on frames of 1M, 3M and 10M rows.

    python benchmarks/analyze.py [--sizes 1,3,10]

Each size runs in a fresh subprocess: it builds a frame in memory (N envs x 20,000 training steps
of a noisy learning curve, with an eval point every 50 steps; a fifth of the envs regress, stall
or swing), then times `curriwatch.analyze` on it. Peak memory is the process's max RSS, and that
minus the RSS after building the frame. Target (issue #12): <= 3 s and <= 1.5 GB at 10M rows on
a 2-core machine, time growing about linearly in rows.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys

STEPS = 20_000
EVAL_EVERY = 50

CHILD = r"""
import json, resource, sys, time
import numpy as np, pandas as pd
import curriwatch
from curriwatch.ingest import Ingest, RunInfo

n_envs, steps, eval_every = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(0)
t = np.arange(steps)
te = t[::eval_every]
env_codes, split_codes, step_col, value_col = [], [], [], []
for e in range(n_envs):
    span = 2000 + 50 * (e % 40)
    curve = 0.1 + 0.85 / (1 + np.exp(-(t - span / 2) / (span / 10)))
    kind = e % 10
    if kind == 1:
        curve[12000:] = 0.45  # regression
    elif kind == 2:
        curve = np.minimum(0.1 + t / 8000, 0.5)  # stagnation
    elif kind == 3:
        curve[10000:] = rng.choice([0.2, 0.8], steps - 10000)  # volatility
    train = np.clip(curve + rng.normal(0, 0.03, steps), 0, 1)
    evals = np.clip(curve[::eval_every] + rng.normal(0, 0.03, len(te)), 0, 1)
    for split, s, v in ((0, te, evals), (1, t, train)):  # sorted order: eval before train
        env_codes.append(np.full(len(s), e)); split_codes.append(np.full(len(s), split))
        step_col.append(s); value_col.append(v)
env = np.concatenate(env_codes)
frame = pd.DataFrame({
    "run": pd.Categorical.from_codes(np.zeros(len(env), np.int64), ["bench"]),
    "env_id": pd.Categorical.from_codes(env, [f"env{e:04d}" for e in range(n_envs)]),
    "split": pd.Categorical.from_codes(np.concatenate(split_codes), ["eval", "train"]),
    "metric": pd.Categorical.from_codes(np.zeros(len(env), np.int64), ["reward"]),
    "step": np.concatenate(step_col).astype(np.int64),
    "value": np.concatenate(value_col),
    "wall_time": np.full(len(env), np.nan),
})
del env_codes, split_codes, step_col, value_col
info = RunInfo("bench", "synthetic", "", "generic", performance_metric="reward")
ingest = Ingest("", frame, [info])
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
report = curriwatch.analyze(ingest)
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"rows": len(frame), "envs": n_envs, "seconds": seconds, "peak_kb": peak, "base_kb": base,
                  "incidents": sum(len(r.warnings) for r in report.runs)}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1,3,10", help="millions of rows, comma-separated")
    args = parser.parse_args()
    results = []
    for millions in [float(s) for s in args.sizes.split(",")]:
        n_envs = max(1, round(millions * 1e6 / (STEPS * (1 + 1 / EVAL_EVERY))))
        out = subprocess.run([sys.executable, "-c", CHILD, str(n_envs), str(STEPS), str(EVAL_EVERY)],
                             capture_output=True, text=True, check=True)
        results.append(json.loads(out.stdout.strip().splitlines()[-1]))
        r = results[-1]
        print(f"  {r['rows']:,} rows done in {r['seconds']:.1f} s", file=sys.stderr, flush=True)
    print(f"{'rows':>12} {'envs':>6} {'seconds':>8} {'rows/s':>11} {'peak MB':>8} {'+above frame':>13} {'incidents':>9}")
    for r in results:
        print(f"{r['rows']:>12,} {r['envs']:>6} {r['seconds']:>8.2f} {r['rows'] / r['seconds']:>11,.0f} "
              f"{r['peak_kb'] / 1024:>8.0f} {(r['peak_kb'] - r['base_kb']) / 1024:>13.0f} {r['incidents']:>9}")
    if len(results) > 1:
        first, last = results[0], results[-1]
        ratio = (last["seconds"] / first["seconds"]) / (last["rows"] / first["rows"])
        print(f"\ntime per row at {last['rows']:,} rows is {ratio:.2f}x that at {first['rows']:,} rows "
              "(1.0 = linear); target: <= 3 s and <= 1536 MB at 10M rows")


if __name__ == "__main__":
    main()
