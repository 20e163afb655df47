"""Bounded memory on big files: peak RSS of a scan over a 4 GiB sparse file and a 1 GB event file of
mostly images (not a timed test; issue #10 item 2 asks for < 300 MB on both).

    python benchmarks/big_files.py [--cache DIR]

Builds once in ~/.cache/curriwatch-bench/big (never in the repo):
- `sparse/run/events.out.tfevents.0.sparse`: a 4 GiB sparse file (all zero bytes, takes no disk);
- `images/run/events.out.tfevents.*`: ~1 GB written by tensorboardX, `add_image` of a 1000x1000 RGB
  noise image (PNG ~3 MB, incompressible) and an `add_scalar` every step, plus a histogram.
Each logdir is then loaded by `curriwatch.load` in a fresh process; the table gives its wall time,
the records and points read, and peak RSS (ru_maxrss, which counts mapped file pages touched too).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

DEFAULT_CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "curriwatch-bench"
REPO = Path(__file__).resolve().parent.parent
IMAGES, SIDE = 340, 1000


def build_sparse(folder: Path) -> None:
    path = folder / "sparse" / "run" / "events.out.tfevents.0.sparse"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        f.truncate(4 << 30)


def build_images(folder: Path) -> None:
    import numpy as np
    from tensorboardX import SummaryWriter

    rng = np.random.default_rng(0)
    w = SummaryWriter(str(folder / "images" / "run"), flush_secs=3600)
    for step in range(IMAGES):
        w.add_image("obs/frame", rng.integers(0, 256, (3, SIDE, SIDE), dtype=np.uint8), step)
        w.add_histogram("policy/logits", rng.normal(size=1000), step)
        w.add_scalar("train/env0/reward", step / IMAGES, step)
    w.close()


CHILD = r"""
import json, resource, sys, time
import curriwatch
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = time.perf_counter()
try:
    ingest = curriwatch.load(sys.argv[1])
    points = int(sum(r.points_read for r in ingest.runs))
    issues = [f"{i.kind}" for i in ingest.all_issues]
except Exception as err:  # the sparse file alone: no readable points is an input error
    points, issues = 0, [type(err).__name__ + ": " + str(err)[:120]]
dt = time.perf_counter() - t
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"seconds": dt, "points": points, "issues": issues, "peak_kb": peak, "base_kb": base}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    args = parser.parse_args()
    folder = args.cache / "big"
    for name, build in (("sparse", build_sparse), ("images", build_images)):
        if not (folder / f".{name}.done").exists():
            print(f"building {name} in {folder} (once) ...", file=sys.stderr, flush=True)
            build(folder)
            (folder / f".{name}.done").write_text("")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    print(f"{'logdir':<8} {'file GB':>8} {'seconds':>8} {'points':>7} {'peak RSS MB':>12} {'above base':>11}  issues")
    for name in ("sparse", "images"):
        logdir = folder / name
        size = sum(f.stat().st_size for f in logdir.rglob("events.out.tfevents.*")) / 1e9
        out = subprocess.run([sys.executable, "-c", CHILD, str(logdir)], capture_output=True, text=True, env=env)
        r = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"{name:<8} {size:>8.2f} {r['seconds']:>8.2f} {r['points']:>7} {r['peak_kb'] / 1024:>12.0f} "
              f"{(r['peak_kb'] - r['base_kb']) / 1024:>11.0f}  {'; '.join(r['issues'])[:100]}")


if __name__ == "__main__":
    main()
