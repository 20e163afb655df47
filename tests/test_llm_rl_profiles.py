"""LLM-RL trainers' per-task keys read by their built-in profiles: verl, OpenRLHF, SkyRL, prime-rl and TRL.

Each run is written the way the trainer's own logger writes it (keys character for character, each on its own step
axis; file:line in curriwatch/profiles.py): verl's and SkyRL's tracking `wandb.log(data, step=step)` /
`add_scalar(key, value, step)`, OpenRLHF's and TRL's W&B rows without `step=` on `define_metric` axes, prime-rl's
FileMonitor `metrics.jsonl`. Per task, what the model achieves at each evaluation (or logging step) is in the series
notation of tests/series.py: one task falls from the level it held, its sibling holds.
"""
from __future__ import annotations

import json

import pytest

import curriwatch
from series import expand
from writers import write_tb, write_wandb

FALLS = "0.1+0.02x30 0.72~0.02x30 0.3~0.02x20"
HOLDS = "0.15+0.02x30 0.76~0.02x50"


def _levels(seed: int = 0) -> dict[str, list[float]]:
    return {"falls": expand(FALLS, seed), "holds": expand(HOLDS, seed + 1)}


def _verdicts(logdir) -> dict[str, list[str]]:
    report = curriwatch.analyze(curriwatch.load(logdir)).to_dict()
    (run,) = report["runs"]
    got = {e["env_id"]: [] for e in run["environments"]}
    for w in run["warnings"]:
        got[w["env_id"]].append(w["type"])
    return got


def write_verl(folder, levels, test_freq: int = 5):
    """verl's Tracking (verl/utils/tracking.py:269-271): add_scalar(key, value, global_steps); validation before
    training at step 0, then every test_freq steps (ray_trainer.py:1320-1346); `training/global_step` in every row."""
    series: dict[str, list] = {}
    sources = {"falls": "openai/gsm8k", "holds": "DigitalLearningGmbH/MATH-lighteval"}
    n = len(levels["falls"])
    for k in range(n):
        step = k * test_freq
        for name, source in sources.items():
            series.setdefault(f"val-core/{source}/acc/mean@4", []).append((step, levels[name][k]))
            series.setdefault(f"val-aux/{source}/acc/std@4", []).append((step, 0.3))
            series.setdefault(f"val-aux/{source}/reward/mean@4", []).append((step, levels[name][k]))
        series.setdefault("val-aux/num_turns/mean", []).append((step, 1.0))
    for step in range(1, (n - 1) * test_freq + 1):
        series.setdefault("critic/score/mean", []).append((step, 0.5))
        series.setdefault("training/global_step", []).append((step, float(step)))
    # torch's SummaryWriter.add_scalar (verl's) keeps the key as it is (tensorboardX's would make `mean@4` `mean_4`)
    write_tb(folder, series, writer="raw_tags")
    return sources


def test_verl_validation_per_data_source(tmp_path):
    sources = write_verl(tmp_path / "tensorboard_log" / "verl_examples" / "gsm8k", _levels())
    ingest = curriwatch.load(tmp_path)
    (run,) = ingest.runs
    assert (run.profile, sorted(run.envs)) == ("verl", sorted(sources.values()))  # env ids hold `/`
    assert set(ingest.frame.split) == {"eval"} and set(ingest.frame.metric) == {"score"}
    assert _verdicts(tmp_path) == {sources["falls"]: ["graduated_regression"], sources["holds"]: []}


def test_openrlhf_eval_rows_on_their_global_step(tmp_path):
    """OpenRLHF's W&B logger (openrlhf/utils/logging_utils.py:79-105): define_metric("train/*",
    step_metric="train/global_step"), define_metric("eval/*", step_metric="eval/epoch") — a column no row holds —,
    rows without step=: train rows every step, eval rows `eval/eval_{ds}_pass1` with `eval/global_step`."""
    levels, rows, eval_every = _levels(2), [], 4
    for k in range(len(levels["falls"])):
        for s in range(k * eval_every + 1, (k + 1) * eval_every + 1):
            rows.append({"train/global_step": s, "train/rollout/reward_mean": 0.5, "train/policy_loss": 0.1})
        rows.append({"eval/global_step": (k + 1) * eval_every, "eval/eval_response_length_mean": 300.0,
                     **{f"eval/eval_{ds}_pass1": levels[ds][k] for ds in levels},
                     **{f"eval/eval_{ds}_pass4": min(1.0, levels[ds][k] + 0.1) for ds in levels}})
    write_wandb(tmp_path / "wandb", rows, run_id="openrlhf1", name="ppo_0301T10:00",
                define_metrics=(("train/*", "train/global_step"), ("eval/*", "eval/epoch")))
    ingest = curriwatch.load(tmp_path)
    (run,) = ingest.runs
    assert (run.profile, sorted(run.envs)) == ("openrlhf", ["falls", "holds"])
    evals = ingest.frame[(ingest.frame.metric == "pass1") & (ingest.frame.env_id == "holds")]
    assert evals.step.tolist() == [(k + 1) * eval_every for k in range(len(levels["holds"]))]
    assert _verdicts(tmp_path) == {"falls": ["graduated_regression"], "holds": []}


def test_skyrl_eval_per_data_source_without_the_aggregate(tmp_path):
    """SkyRL's tracking (skyrl/train/utils/tracking.py:79-83): wandb.log(data, step=global_step); evaluation before
    training at step 0 and every eval_interval: `eval/{ds}/avg_score`, `pass_at_{n}`, and `eval/all/…`."""
    levels, rows, steps = _levels(4), [], []
    for k in range(len(levels["falls"])):
        row = {"trainer/global_step": 5 * k, "eval/all/avg_score": 0.5, "eval/all/pass_at_4": 0.6}
        for ds in levels:
            row.update({f"eval/{ds}/avg_score": levels[ds][k], f"eval/{ds}/pass_at_4": min(1.0, levels[ds][k] + 0.1)})
        rows.append(row)
        steps.append(5 * k)
    write_wandb(tmp_path / "wandb", rows, steps=steps, run_id="skyrl1", name="test_run")
    ingest = curriwatch.load(tmp_path)
    (run,) = ingest.runs
    assert (run.profile, sorted(run.envs)) == ("skyrl", ["falls", "holds"])  # `all` is no env
    assert _verdicts(tmp_path) == {"falls": ["graduated_regression"], "holds": []}


@pytest.mark.parametrize("version", ["0.8", "0.5"])
def test_prime_rl_metrics_jsonl(tmp_path, version):
    """prime-rl's FileMonitor (src/prime_rl/monitors/file.py:25-41): `{"step": ..., "time": ..., **metrics}` a line;
    the orchestrator's step a float (orchestrator.py:937). Per env `train/{env}/{all|effective}/{agent}/reward/…`
    every step and `eval/{env}/{subset}/{agent}/avg@{k}` every few (v0.5-0.6: `reward/{env}/mean`,
    `eval/{env}/avg@{k}`), beside the trainer's own lines."""
    levels, lines = _levels(6), []
    envs = {"falls": "primeintellect/reverse-text", "holds": "wiki-search"}
    for k in range(len(levels["falls"])):
        for s in range(4 * k + 1, 4 * k + 5):
            row = {"step": float(s), "time": 1000.0 + s}
            for name, env in envs.items():
                level = levels[name][k]
                if version == "0.8":
                    row.update({f"train/{env}/all/agent/reward/mean": level, f"train/{env}/all/agent/reward/max": 1.0,
                                f"train/{env}/effective/agent/reward/mean": level + 0.05})
                else:
                    row.update({f"reward/{env}/mean": level, f"reward/{env}/max": 1.0})
            row.update({"train/agg/all/reward/mean": 0.5} if version == "0.8" else {"reward/all/mean": 0.5})
            lines.append(row)
            lines.append({"step": s, "time": 1000.5 + s, "loss/mean": 0.1, "optim/lr": 1e-6})  # the trainer's
        lines.append({"step": float(4 * k + 4), "time": 1001.0 + 4 * k,
                      **{(f"eval/{env}/all/agent/avg@8" if version == "0.8" else f"eval/{env}/avg@8"): levels[n][k]
                         for n, env in envs.items()}})
    out = tmp_path / "outputs" / "reverse-text+wiki-search--qwen3-0.6b--1a2b3c4d"
    out.mkdir(parents=True)
    (out / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    ingest = curriwatch.load(tmp_path)
    (run,) = ingest.runs
    assert (run.profile, sorted(run.envs)) == ("prime_rl", sorted(envs.values()))
    assert set(ingest.frame.split) == {"train", "eval"}
    got = _verdicts(tmp_path)
    assert got[envs["holds"]] == [] and got[envs["falls"]] == ["graduated_regression"], got


def test_trl_reward_functions_of_a_multi_task_run(tmp_path):
    """transformers' WandbCallback (integrations/integration_utils.py:550-563, :770-772, :900): rows without step=,
    define_metric("*", step_metric="train/global_step"), GRPO's `rewards/{fn}/mean` as `train/rewards/{fn}/mean`
    (trl/trainer/grpo_trainer.py:2741-2750); a task's function returns None for other tasks' samples, so its mean is
    null in a window that held none of its prompts."""
    levels, rows = _levels(8), []
    for k in range(len(levels["falls"])):
        step = 10 * (k + 1)
        row = {"train/global_step": step, "train/reward": 0.5, "train/reward_std": 0.2, "train/loss": 0.01,
               "train/rewards/countdown_reward/mean": levels["falls"][k],
               "train/rewards/gsm8k_reward/mean": levels["holds"][k] if k % 7 != 3 else None}
        rows.append(row)
    write_wandb(tmp_path / "wandb", rows, run_id="trl1", name="grpo-multitask",
                define_metrics=(("*", "train/global_step"),))
    ingest = curriwatch.load(tmp_path)
    (run,) = ingest.runs
    assert (run.profile, sorted(run.envs)) == ("trl", ["countdown_reward", "gsm8k_reward"])
    assert _verdicts(tmp_path) == {"countdown_reward": ["graduated_regression"], "gsm8k_reward": []}
