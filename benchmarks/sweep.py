"""Sweep benchmark: a 1,000-run TensorBoard sweep scanned end to end, wall time and CPU per core.

    python benchmarks/sweep.py [--cache DIR] [--runs 1000] [--repeat 3]

Builds once (cached in ~/.cache/curriwatch-bench/sweep, never in the repo) 1,000 runs of 10 envs x
500 steps written by tensorboardX (train every step, eval and state every 10 steps: 6,000 points a
run, 6M in all). Writing 6M scalars through tensorboardX takes ~15 min here, so 10 distinct runs are
written and each is copied 100 times under its own run name (the readers and analysis do the same
work per copy). Then, each in a fresh process and best of `--repeat`:

- `curriwatch report DIR --format json` (read, analyse, render) as a whole process (what a user waits for), with every core
  and with CURRIWATCH_WORKERS=1;
- the stages inside one process (load = read + profile + frame, analyze, JSON render).

CPU per core is (user + sys CPU seconds of the process and its workers) / (wall seconds x cores).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

ENVS, STEPS, EVAL_EVERY, DISTINCT = 10, 500, 10, 10
DEFAULT_CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "curriwatch-bench"
REPO = Path(__file__).resolve().parent.parent


def build(folder: Path, runs: int) -> None:
    from tensorboardX import SummaryWriter

    seeds = folder / "seeds"
    for seed in range(DISTINCT):
        w = SummaryWriter(str(seeds / f"seed{seed}"), flush_secs=3600, max_queue=10_000)
        for step in range(STEPS):
            for env in range(ENVS):
                perf = min(1.0, step / (150 + 40 * env + 13 * seed)) * (0.9 + 0.05 * math.sin(step / 7 + seed))
                w.add_scalar(f"train/env{env:02d}/reward", perf, step)
                if step % EVAL_EVERY == 0:
                    w.add_scalar(f"eval/env{env:02d}/reward", perf - 0.05, step)
                    w.add_scalar(f"curriculum/env{env:02d}/state", 0 if perf < 0.2 else (1 if perf < 0.85 else 2),
                                 step)
        w.close()
    logdir = folder / "logs"
    for i in range(runs):
        src = next((seeds / f"seed{i % DISTINCT}").glob("events.out.tfevents.*"))
        dest = logdir / f"run{i:04d}"
        dest.mkdir(parents=True)
        shutil.copyfile(src, dest / src.name)


STAGES = r"""
import json, sys, time
t0 = time.perf_counter()
import curriwatch
from curriwatch.render.common import select_runs
t1 = time.perf_counter()
ingest = curriwatch.load(sys.argv[1])
t2 = time.perf_counter()
report = curriwatch.analyze(ingest)
t3 = time.perf_counter()
text = json.dumps(report.to_dict())
t4 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "load": t2 - t1, "analyze": t3 - t2, "json": t4 - t3,
                  "points": int(sum(r.points_read for r in ingest.runs)), "runs": len(ingest.runs)}))
"""


def timed(cmd: list[str], env: dict) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds of the process and its children, stdout)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=REPO)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode not in (0, 1):
        sys.exit(f"{' '.join(cmd)} failed ({out.returncode}): {out.stderr.strip()[-400:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, out.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    folder = args.cache / f"sweep{args.runs}"
    if not (folder / ".done").exists():
        shutil.rmtree(folder, ignore_errors=True)
        print(f"building the sweep in {folder} (once) ...", file=sys.stderr, flush=True)
        build(folder, args.runs)
        (folder / ".done").write_text("")
    logdir = str(folder / "logs")
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    env = dict(os.environ, PYTHONPATH=str(REPO))
    rows = []
    for label, extra in (("all cores", {}), ("one worker", {"CURRIWATCH_WORKERS": "1"})):
        best = min((timed([sys.executable, "-m", "curriwatch", "report", logdir, "--format", "json"],
                          dict(env, **extra))[:2] for _ in range(args.repeat)), key=lambda r: r[0])
        rows.append((label, *best))
    stages = [json.loads(timed([sys.executable, "-c", STAGES, logdir], env)[2].strip().splitlines()[-1])
              for _ in range(args.repeat)]
    stage = min(stages, key=lambda s: s["load"] + s["analyze"])

    print(f"sweep: {stage['runs']} runs, {stage['points']:,} points, {cores} core(s); best of {args.repeat}, "
          "each in a fresh process")
    print(f"{'report DIR -f json':<22} {'wall s':>7} {'CPU s':>7} {'CPU per core':>13}")
    for label, wall, cpu in rows:
        print(f"{label:<22} {wall:>7.2f} {cpu:>7.2f} {cpu / (wall * cores):>12.0%}")
    print("\nstages in one process (all cores): " + ", ".join(
        f"{k} {stage[k]:.2f} s" for k in ("import", "load", "analyze", "json")))
    print(f"target: <= 10 s end to end; reached {rows[0][1]:.1f} s")


if __name__ == "__main__":
    main()
