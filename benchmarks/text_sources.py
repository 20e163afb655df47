"""Text-log readers benchmark: Ray Tune result.json and a ROLL stdout log, time and peak memory.

    python benchmarks/text_sources.py [--rows 100000]

Each source runs in a fresh subprocess: it writes ROWS lines the framework's way into a temporary
folder (Tune: one nested result per line, 9 numbers each; ROLL: logger prefix + metrics_tag with 8
env keys), then times `read_run` on it. Peak memory is the process's max RSS minus the RSS before
reading (the reader streams lines, so it grows with the points kept, not with the file).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys

CHILD = r"""
import json, os, resource, sys, tempfile, time
kind, rows = sys.argv[1], int(sys.argv[2])
from curriwatch.discover import discover
from curriwatch.readers import read_run
d = tempfile.mkdtemp()
if kind == "tune":
    os.makedirs(d + "/t")
    json.dump({"env": "E"}, open(d + "/t/params.json", "w"))
    with open(d + "/t/result.json", "w") as f:
        for i in range(rows):
            f.write(json.dumps({"training_iteration": i + 1, "timesteps_total": 4000 * (i + 1), "timestamp": 1.7e9 + i,
                                "env_runners": {"episode_return_mean": i * 1e-3, "episode_len_mean": 20.0, "num_episodes": 5},
                                "evaluation": {"env_runners": {"episode_return_mean": 1.0}},
                                "learners": {"p": {"a": 1.0, "b": 2.0, "c": 3.0}}}) + "\n")
else:
    with open(d + "/roll.log", "w") as f:
        for i in range(rows):
            m = {f"env/E{k}/success": 0.5 for k in range(8)}
            f.write("[2026-01-01 00:00:00] [tracking.py (161)] [INFO] [DRIVER 0 / 1][PID 1] metrics_tag: "
                    + json.dumps({"step": i, "metrics": m}) + "\n")
size = sum(os.path.getsize(os.path.join(r, n)) for r, _, ns in os.walk(d) for n in ns)
(src,) = discover(d)[0]
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = time.perf_counter()
raw = read_run(src)
dt = time.perf_counter() - t
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"kind": kind, "mb": size / 1e6, "points": len(raw), "s": dt, "rss_mb": (peak - before) / 1024}))
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=100_000)
    rows = parser.parse_args().rows
    print(f"{'source':<8} {'file MB':>8} {'points':>10} {'seconds':>8} {'Mpts/s':>7} {'+RSS MB':>8}")
    for kind in ("tune", "roll"):
        out = subprocess.run([sys.executable, "-c", CHILD, kind, str(rows)], capture_output=True, text=True, check=True)
        r = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"{r['kind']:<8} {r['mb']:>8.1f} {r['points']:>10} {r['s']:>8.2f} {r['points'] / r['s'] / 1e6:>7.2f} "
              f"{r['rss_mb']:>8.0f}")


if __name__ == "__main__":
    main()
