"""Sweep benchmark: a 1,000-run TensorBoard sweep scanned end to end, wall time and CPU per core.

    python benchmarks/sweep.py [--cache DIR] [--runs 1000] [--repeat 3]

Builds once (cached in ~/.cache/curriwatch-bench/sweep, never in the repo) 1,000 runs of 10 envs x
500 steps written by tensorboardX (train every step, eval and state every 10 steps: 6,000 points a
run, 6M in all). Writing 6M scalars through tensorboardX takes ~15 min here, so 10 distinct runs are
written and each is copied 100 times under its own run name (the readers and analysis do the same
work per copy). Then, each in a fresh process and best of `--repeat`:

- `curriwatch report DIR --format json` and `curriwatch scan DIR` (read, analyse, render; scan also
  saves the result for `report`) as whole processes (what a user waits for), with every core and
  with CURRIWATCH_WORKERS=1;
- the stages inside one process: `curriwatch.scan` (read + profile + frame + analyse, run by run in
  the workers), the JSON report, saving the result, the terminal report.

CPU per core is (user + sys CPU seconds of the process and its workers) / (wall seconds x cores);
the process reaps its worker pool's server before it reports, so the workers' time is counted.
"""
from __future__ import annotations

import argparse
import json
import math
import os
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
import io, json, os, sys, tempfile, time
os.environ["CURRIWATCH_CACHE_DIR"] = tempfile.mkdtemp()
t0 = time.perf_counter()
import curriwatch
from curriwatch import store
from curriwatch.render.terminal import report_text
from rich.console import Console
t1 = time.perf_counter()
report = curriwatch.scan(sys.argv[1])
t2 = time.perf_counter()
text = json.dumps(report.to_dict(), indent=2)
t3 = time.perf_counter()
store.save(report, 30)
t4 = time.perf_counter()
report_text(report, Console(file=io.StringIO(), no_color=True, width=100))
t5 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "scan": t2 - t1, "json": t3 - t2, "save": t4 - t3, "terminal": t5 - t4,
                  "runs": len(report.runs), "envs": sum(len(r.environments) for r in report.runs)}))
"""

# the CLI in this process, then its worker pool's server reaped, so that the CPU time of the workers
# (children of that server) is in RUSAGE_CHILDREN; printed as the last line on stderr
HARNESS = r"""
import json, resource, sys
import multiprocessing.forkserver as forkserver
from curriwatch.__main__ import main
sys.argv = ["curriwatch", *sys.argv[1:]]
code = 0
try:
    main()
except SystemExit as exit:
    code = exit.code
forkserver._forkserver._stop()
mine, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = mine.ru_utime + mine.ru_stime + kids.ru_utime + kids.ru_stime
print(json.dumps({"cpu": cpu, "code": code}), file=sys.stderr)
"""


def timed(cmd: list[str], env: dict) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds of the process and its workers, stdout) of the CLI run by HARNESS."""
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", HARNESS, *cmd], capture_output=True, text=True, env=env, cwd=REPO)
    wall = time.perf_counter() - t
    result = json.loads(out.stderr.strip().splitlines()[-1])
    if result["code"] not in (0, 1):
        sys.exit(f"{' '.join(cmd)} failed ({result['code']}): {out.stderr.strip()[-400:]}")
    return wall, result["cpu"], out.stdout


def stages(logdir: str, env: dict) -> dict:
    out = subprocess.run([sys.executable, "-c", STAGES, logdir], capture_output=True, text=True, env=env, cwd=REPO)
    if out.returncode:
        sys.exit(f"stages failed: {out.stderr.strip()[-400:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


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
    cases = (("report -f json, all cores", ["report", logdir, "--format", "json"], {}),
             ("scan, all cores", ["scan", logdir, "--fail-on", "never"], {}),
             ("report -f json, 1 worker", ["report", logdir, "--format", "json"], {"CURRIWATCH_WORKERS": "1"}))
    for label, cmd, extra in cases:
        best = min((timed(cmd, dict(env, **extra, CURRIWATCH_CACHE_DIR=str(folder / "cache")))[:2]
                    for _ in range(args.repeat)), key=lambda r: r[0])
        rows.append((label, *best))
    stage = min((stages(logdir, env) for _ in range(args.repeat)), key=lambda s: s["scan"])
    load = os.getloadavg()

    print(f"sweep: {stage['runs']} runs, {stage['envs']} envs, {cores} core(s); best of {args.repeat}, each in a "
          f"fresh process; load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    print(f"{'whole process':<28} {'wall s':>7} {'CPU s':>7} {'CPU per core':>13}")
    for label, wall, cpu in rows:
        print(f"{label:<28} {wall:>7.2f} {cpu:>7.2f} {cpu / (wall * cores):>12.0%}")
    print("\nstages in one process (all cores): " + ", ".join(
        f"{k} {stage[k]:.2f} s" for k in ("import", "scan", "json", "save", "terminal")))
    print(f"target: <= 10 s end to end; reached {rows[0][1]:.1f} s")


if __name__ == "__main__":
    main()
