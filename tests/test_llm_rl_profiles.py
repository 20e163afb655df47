"""LLM-RL trainers' per-task keys read by their built-in profiles: verl, OpenRLHF, SkyRL, prime-rl, TRL, RAGEN,
verl-agent, open-instruct, and AReaL's (which has none: the run is its env).

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


def test_ragen_env_tags_train_and_validation(tmp_path):
    """RAGEN's trainer through verl's Tracking (wandb.log(data, step=global_steps); ragen/trainer/agent_trainer.py:516,
    :245-247, :697): per env tag `train/{tag}/success|pass@{group}|num_actions` and the custom `non-zero` means every
    step, `val-env/{tag}/…` before training and every test_freq steps, beside `val-core/unknown/reward/mean@1` (every
    tag's data source is `unknown`: the all-env aggregate) and untagged `response_length`."""
    levels, rows, steps, test_freq = _levels(10), [], [], 5
    tags = {"falls": "SimpleSokoban", "holds": "FrozenLake"}
    n = len(levels["falls"])
    for step in range((n - 1) * test_freq + 1):
        k = step // test_freq
        row = {"train/response_length": 180.0}
        for name, tag in tags.items():
            row.update({f"train/{tag}/success": levels[name][k], f"train/{tag}/pass@16": min(1.0, levels[name][k] + 0.2),
                        f"train/{tag}/num_actions": 4.0, f"train/{tag}/action_is_valid": 0.9,
                        f"train/{tag}/non-zero/success": 1.0})
        if step % test_freq == 0:
            row.update({f"val-env/{tag}/success": levels[name][k] for name, tag in tags.items()})
            row.update({f"val-env/{tag}/pass@1": levels[name][k] for name, tag in tags.items()})
            row.update({"val-env/response_length": 175.0, "val-core/unknown/reward/mean@1": 0.4})
        rows.append(row)
        steps.append(step)
    write_wandb(tmp_path / "wandb", rows, steps=steps, run_id="ragen1", name="sokoban_frozenlake")
    ingest = curriwatch.load(tmp_path)
    (run,) = ingest.runs
    assert (run.profile, sorted(run.envs)) == ("ragen", sorted(tags.values()))  # `unknown` and `non-zero` no envs
    assert not [i for i in run.issues if i.kind == "unclaimed_tags" and "non-zero" in i.detail]
    evals = ingest.frame[(ingest.frame.split == "eval") & (ingest.frame.metric == "success")]
    assert sorted(set(evals.step)) == list(range(0, (n - 1) * test_freq + 1, test_freq))
    got = _verdicts(tmp_path)
    assert got == {tags["falls"]: ["graduated_regression"], tags["holds"]: []}, got


def test_a_generic_run_of_success_keys_is_not_taken_for_ragen(tmp_path):
    """RAGEN's train keys have the generic `train/{env}/{metric}` shape: without its `val-env/…/success` the profile
    is never chosen, so a generic run keeps its evals."""
    write_tb(tmp_path / "run", {"train/a/success": [(s, 0.5) for s in range(40)],
                                "eval/a/success": [(s, 0.5) for s in range(0, 40, 5)]})
    ingest = curriwatch.load(tmp_path)
    (run,) = ingest.runs
    assert run.profile == "generic" and set(ingest.frame.split) == {"train", "eval"}


def test_verl_agent_task_types_of_alfworld(tmp_path):
    """verl-agent's ALFWorld manager (agent_system/environments/env_manager.py:214-242): each episode's `won` under its
    task type, `episode/{task}_success_rate` (metric_utils.py:187) in the steps that sampled the type, beside the
    aggregate `episode/success_rate`; validation's `val/{task}_success_rate` and `val/{data_source}/test_score`
    (ray_trainer.py:814-824) at step 0 and every test_freq; all wandb.log(data, step=global_steps)."""
    levels, rows, steps, test_freq = _levels(12), [], [], 5
    tasks = {"falls": "pick_heat_then_place_in_recep", "holds": "look_at_obj_in_light"}
    n = len(levels["falls"])
    for step in range((n - 1) * test_freq + 1):
        k = step // test_freq
        row = {"episode/success_rate": 0.5, "episode/length/mean": 30.0,
               "episode/webshop_task_score (not success_rate)": 0.3}
        row.update({f"episode/{task}_success_rate": levels[name][k] for name, task in tasks.items()
                    if (step + len(task)) % 4})  # a type not sampled in a step has no key there
        if step % test_freq == 0:
            row.update({f"val/{task}_success_rate": levels[name][k] for name, task in tasks.items()})
            row.update({"val/success_rate": 0.5, "val/text/test_score": 2.0})
        rows.append(row)
        steps.append(step)
    write_wandb(tmp_path / "wandb", rows, steps=steps, run_id="gigpo1", name="gigpo_alfworld")
    ingest = curriwatch.load(tmp_path)
    (run,) = ingest.runs
    assert (run.profile, sorted(run.envs)) == ("verl_agent", sorted(tasks.values()))
    assert set(ingest.frame.split) == {"train", "eval"}
    got = _verdicts(tmp_path)
    assert got == {tasks["falls"]: ["graduated_regression"], tasks["holds"]: []}, got


def test_open_instruct_verifiers(tmp_path):
    """open-instruct's GRPO (open_instruct/ground_truth_utils.py:1399-1408, grpo_utils.py:843, :885,
    grpo_fast.py:1078-1079, :1617-1649): define_metric("*", step_metric="training_step"); each step's row
    `objective/{verifier}_correct_rate|_reward` beside the aggregate `objective/verifiable_…` and `training_step`,
    wandb.log(…, step=training_step); the evaluation's `eval/objective/…` rows every few steps, without a
    training_step of their own."""
    levels, rows, steps, eval_every = _levels(14), [], [], 4
    verifiers = {"falls": "gsm8k", "holds": "ifeval"}
    n = len(levels["falls"])
    for step in range(1, n * eval_every + 1):
        k = (step - 1) // eval_every
        rows.append({"training_step": step, "episode": 64 * step, "global_step": 64 * step,
                     "objective/verifiable_reward": 5.0, "objective/verifiable_correct_rate": 0.5,
                     "val/stop_rate": 0.98,
                     **{f"objective/{v}_correct_rate": levels[name][k] for name, v in verifiers.items()},
                     **{f"objective/{v}_reward": 10.0 * levels[name][k] for name, v in verifiers.items()}})
        steps.append(step)
        if step % eval_every == 0:
            rows.append({"eval/scores": 5.0, "eval/stop_rate": 0.97, "eval/objective/verifiable_correct_rate": 0.5,
                         **{f"eval/objective/{v}_correct_rate": levels[name][k] for name, v in verifiers.items()}})
            steps.append(step)
    write_wandb(tmp_path / "wandb", rows, steps=steps, run_id="oi1", name="grpo_tulu",
                define_metrics=(("*", "training_step"),))
    ingest = curriwatch.load(tmp_path)
    (run,) = ingest.runs
    assert (run.profile, sorted(run.envs)) == ("open_instruct", sorted(verifiers.values()))
    evals = ingest.frame[(ingest.frame.split == "eval") & (ingest.frame.env_id == "ifeval")]
    assert evals.step.tolist() == [eval_every * (k + 1) for k in range(n)]
    got = _verdicts(tmp_path)
    assert got == {"gsm8k": ["graduated_regression"], "ifeval": []}, got


def test_areal_run_is_its_experiment(tmp_path):
    """AReaL's StatsLogger (areal/utils/stats_logger.py:63-77, :135-159): a W&B run named by the trial in
    `{fileroot}/logs/{user}/{experiment}/{trial}/wandb/`, wandb.log(stats, step=global_step); the workflow's
    per-sample rewards as `rollout/reward` (their mean) and, when evaluating, `eval-rollout/reward`, with no per-task
    keys (areal/workflow/rlvr.py:135, areal/infra/workflow_context.py:51-59)."""
    levels, rows, steps = _levels(16), [], []
    for step in range(len(levels["falls"]) * 3):
        k = step // 3
        row = {"rollout/reward": levels["falls"][k], "ppo_actor/task_reward/avg": levels["falls"][k],
               "ppo_actor/update/grad_norm": 0.3}
        if step % 3 == 2:
            row["eval-rollout/reward"] = levels["falls"][k]
        rows.append(row)
        steps.append(step)
    write_wandb(tmp_path / "logs" / "root" / "gsm8k-grpo" / "trial0" / "wandb", rows, steps=steps,
                run_id="gsm8k-grpo_trial0_train", name="trial0", group="gsm8k-grpo_trial0")
    ingest = curriwatch.load(tmp_path)
    (run,) = ingest.runs
    assert (run.profile, run.envs) == ("areal", ["gsm8k-grpo"])
    assert set(ingest.frame.split) == {"train", "eval"}
    assert _verdicts(tmp_path) == {"gsm8k-grpo": ["graduated_regression"]}
