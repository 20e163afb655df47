"""Start-up time of the CLI, timed as whole processes (what a user waits for).

    python benchmarks/startup.py [--repeat 7]

Prints, per command, the median and best wall time over the repeats, next to `python -c pass`
(the interpreter's own start-up on this machine). The tiny logdir (2 envs x 50 steps, written
with tensorboardX) is built in a temporary folder.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def tiny_logdir(folder: Path) -> Path:
    from tensorboardX import SummaryWriter

    run = folder / "logs" / "tiny"
    writer = SummaryWriter(str(run))
    for env in ("easy", "hard"):
        for step in range(0, 500, 10):
            writer.add_scalar(f"train/{env}/reward", 0.5 + step / 1000, step)
    writer.close()
    return run.parent


def timed(cmd: list[str], env: dict, repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        out.append(time.perf_counter() - start)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    repeat = parser.parse_args().repeat
    with tempfile.TemporaryDirectory() as tmp:
        logdir = tiny_logdir(Path(tmp))
        env = {**os.environ, "PYTHONPATH": str(ROOT), "CURRIWATCH_CACHE_DIR": str(Path(tmp) / "cache"),
               "WANDB_MODE": "offline", "WANDB_SILENT": "true"}
        cw = [sys.executable, "-m", "curriwatch"]
        cases = [("python -c pass (interpreter floor)", [sys.executable, "-c", "pass"], None),
                 ("curriwatch --version", cw + ["--version"], 0.3),
                 ("curriwatch --help", cw + ["--help"], 0.3),
                 ("curriwatch schema", cw + ["schema"], 0.3),
                 ("curriwatch config", cw + ["config"], 0.3),
                 ("curriwatch scan TINY (2 envs x 50 steps)", cw + ["scan", str(logdir), "--fail-on", "never"], 1.0)]
        print(f"{'command':<44} {'median s':>9} {'best s':>7} {'target s':>9}")
        for name, cmd, target in cases:
            times = timed(cmd, env, repeat)
            print(f"{name:<44} {statistics.median(times):>9.3f} {min(times):>7.3f} "
                  f"{'' if target is None else f'< {target}':>9}")
    print(f"\n{repeat} runs each; {os.cpu_count()} cores; python {sys.version.split()[0]}")


if __name__ == "__main__":
    main()
