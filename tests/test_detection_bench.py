"""The detection benchmark's scorer on a hand-computable case, and a tiny corpus built by its writers."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import sys

import pytest

BENCH = Path(__file__).parents[1] / "benchmarks"
sys.path.insert(0, str(BENCH))  # detection.py imports its sibling detection_corpus_wide
SPEC = importlib.util.spec_from_file_location("detection", BENCH / "detection.py")
detection = importlib.util.module_from_spec(SPEC)
sys.modules.setdefault("detection", detection)  # dataclasses look their module up
SPEC.loader.exec_module(detection)


def _label(env, typ, onset, severity=None):
    return {"run": "r", "env": env, "type": typ, "onset": onset, "severity": severity, "shape": "s"}


def _det(env, typ, step, severity="warning"):
    return {"run": "r", "env": env, "type": typ, "first_step": step, "severity": severity}


def test_scorer_arithmetic():
    labels = [_label("a", "graduated_regression", 100, "critical"), _label("b", "graduated_regression", 300),
              _label("c", "graduated_regression", 500), _label("d", "eval_gap", 200)]
    dets = [
        _det("a", "graduated_regression", 110, "critical"),  # 0.5 intervals late: match, severity agrees
        _det("a", "graduated_regression", 120),  # second incident for the same event: false positive
        _det("b", "graduated_regression", 341),  # 2.05 intervals late: no match
        _det("c", "graduated_regression", 460),  # 2 intervals early: match (tolerance is inclusive)
        _det("e", "graduated_regression", 100),  # no label on env e: false positive
        _det("d", "training_stagnation", 200),  # right env and onset, wrong type
    ]
    s = detection.match(labels, dets, {"r": 20})
    reg = s["graduated_regression"]
    assert (reg["labels"], reg["detections"], reg["matched"]) == (3, 5, 2)
    assert reg["recall"] == pytest.approx(2 / 3) and reg["precision"] == pytest.approx(2 / 5)
    assert reg["onset_error_median"] == pytest.approx(1.25) and reg["onset_error_max"] == pytest.approx(2.0)
    assert reg["severity_agreement"] == 1.0
    assert reg["recall_any_onset"] == 1.0
    assert [m["env"] for m in reg["missed"]] == ["b"]
    assert s["eval_gap"]["recall"] == 0.0 and s["eval_gap"]["precision"] is None
    assert s["training_stagnation"]["precision"] == 0.0 and s["training_stagnation"]["recall"] is None


def test_tiny_corpus_is_built_labelled_and_scored(tmp_path, capsys):
    assert detection.main(["--runs", "3", "--cache", str(tmp_path), "--json", "--seed", "3"]) == 0
    out = json.loads(capsys.readouterr().out)
    root = Path(out["corpus"])
    labels = json.loads((root / "labels.json").read_text())
    assert out["labels"] == len(labels)
    plans = [json.loads(p.read_text()) for p in root.glob("*/*/plan.json")]
    assert sorted(p["convention"] for p in plans) == ["atropos", "generic", "roll"]
    # Every labelled event is on an env of its run's plan, with the same onset.
    by_env = {(p["name"], e["name"]): e for p in plans for e in p["envs"]}
    for l in labels:
        env = by_env[(l["run"], l["env"])]
        assert env["event"] == l["type"]
    # Every run was read by curriwatch (each wrote event files under its folder) and nothing errored.
    assert out["errors"] == []
    assert all(list((root / p["convention"] / p["name"]).glob("events.out.tfevents.*")) for p in plans)
    for typ, s in out["rules"].items():
        assert s["matched"] <= min(s["labels"], s["detections"]), typ


def test_tiny_wide_corpus_covers_every_convention_and_is_read_whole(tmp_path):
    """One short run of each wide convention: every label is on a planned env of a planned run, with its
    onset inside the run's steps, and curriwatch reads every planned run and env (no errors, nothing
    missing from the report) — whatever the rules then find; the scorer takes each run's tolerance unit."""
    import detection_corpus_wide as wide

    labels = wide.build(tmp_path, len(wide.GROUPS), 5, points=(500, 700))
    plans = detection.load_plans(tmp_path)
    assert sorted(p["convention"] for p in plans.values()) == sorted(wide.GROUPS)
    assert labels == json.loads((tmp_path / "labels.json").read_text()) and labels
    for l in labels:
        plan = plans[l["run"]]
        env = next(e for e in plan["envs"] if e["name"] == l["env"])
        assert l["type"] in (env["event"], *(t for t, _ in env["extra"])), l
        last = plan["unit"] * (plan["length"] - 1 + plan["offset"])
        assert 0 <= l["onset"] <= last and l["onset"] % plan["unit"] == 0, l
    detections, intervals, errors, problems = detection.analyze_corpus(tmp_path)
    assert errors == []
    assert not [p for p in problems if "missing" in p or "no run" in p], problems
    assert intervals == {name: p["tolerance_unit"] for name, p in plans.items()}
    scores = detection.match(labels, detections, intervals)
    for typ, s in scores.items():
        assert s["matched"] <= min(s["labels"], s["detections"]), typ


def test_both_corpora_print_both_tables(monkeypatch, capsys):
    labels = [_label("a", "eval_gap", 100)]
    scores = detection.match(labels, [_det("a", "eval_gap", 110)], {"r": 10})
    seen = []

    def fake_run_corpus(name, args):
        seen.append(name)
        return {"corpus": f"/cache/{name}", "name": name, "runs": 1, "labels": 1, "detections": 1,
                "errors": [], "problems": [], "rules": scores, "by_shape": detection.shape_breakdown(labels, scores),
                "false_positives": detection.false_positive_breakdown(scores, {}),
                "seconds": {"build": 0.0, "analyze": 0.0}}

    monkeypatch.setattr(detection, "run_corpus", fake_run_corpus)
    assert detection.main(["--corpus", "both"]) == 0
    text = capsys.readouterr().out
    assert seen == ["default", "wide"]
    assert text.count("\nrule ") == 2 and "/cache/default" in text and "/cache/wide" in text
    assert detection.main(["--corpus", "both", "--json"]) == 0
    assert set(json.loads(capsys.readouterr().out)) == {"default", "wide"}


def test_tiny_third_corpus_covers_every_convention_and_is_read_whole(tmp_path):
    """One run of each third-corpus convention (SB3, CleanRL, ML-Agents, tinker, Atropos process mode,
    generic W&B, a user profile): every label on a planned env of a planned run, and curriwatch reads every
    planned run and env (no errors, nothing missing, no run judged unknown)."""
    import detection_corpus_third as third

    n = len(dict.fromkeys(third.CYCLE))
    labels = third.build(tmp_path, len(third.CYCLE), 3)
    plans = detection.load_plans(tmp_path)
    assert len({p["convention"] for p in plans.values()}) == n
    assert labels == json.loads((tmp_path / "labels.json").read_text()) and labels
    for l in labels:
        assert l["env"] in [e["name"] for e in plans[l["run"]]["envs"]], l
    detections, intervals, errors, problems = detection.analyze_corpus(tmp_path)
    assert errors == [] and problems == [], (errors, problems)
    assert intervals == {name: p["tolerance_unit"] for name, p in plans.items()}


@pytest.mark.parametrize("name", ["fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh", "twelfth",
                                  "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth",
                                  "eighteenth", "nineteenth", "twentieth", "twentyfirst",
                                  "twentysecond", "twentythird", "twentyfourth", "twentyfifth",
                                  "twentysixth", "twentyseventh", "twentyeighth",
                                  "twentyninth", "thirtieth", "thirtyfirst", "thirtysecond", "thirtythird",
                                  "thirtyfourth", "thirtyfifth", "thirtysixth"])
def test_small_helper_written_corpus_is_read_whole(tmp_path, name):
    """The fifth to thirty-sixth corpora (written from the README alone) built small — fifth: ROLL via W&B with a
    resumed run, Ray Tune's TensorBoard logger, a smoothed generic TensorBoard run resumed in a second event
    file, a flat-tag user profile, Atropos levels; sixth: ML-Agents lesson curricula, SB3 levels mirrored to
    one W&B group, CleanRL `--track` W&B mirrors, generic success rates at a step offset with jumps, NaN values
    and duplicate rows; seventh: RLlib multi-agent modules in Tune trials, tensorboardX `add_scalars` subfolders
    of tiny-batch rates (seed 3's never-learning fail rate crashed swings), a W&B run of 60-150 envs in env
    frames, 16k-28k-point runs, Tune sweeps of `progress.csv` alone; eighth: raw 0/1 outcomes per episode at
    irregular steps, a PLR level pool in one W&B run, a user profile mixing metric kinds with lower-is-better
    overrides, regret evals denser than training resumed into a second event file, percent W&B runs resumed after
    a logging pause; ninth: tinker's W&B run alone, a `count_metric` user profile, scores at two paces with drifting
    noise, a zero-crossing cost over long runs, 30-60 short-lived envs; tenth: CleanRL envpool, SB3 DQN, Tune trials
    stepped by iteration, ROLL's TensorBoard tracker, regret by its name; eleventh: torch `add_scalars` subfolders of
    floored returns, RLlib `custom_metrics` of multi-task trials, CleanRL `dqn.py` timeouts, TF2 tensor scalars, a W&B
    group of worker runs; twelfth: win/draw/loss scores, goal-bonus returns under env-first user-profile tags,
    Poisson collision counts made lower-is-better by an override in W&B, error rates over varying problem counts (some
    runs sparse eval-only), SB3 goal-env success rates; thirteenth: human-normalized Atari scores past 1 in Student-t
    (df 2-4) noise with NaN, +inf and a mid-run change of logging pace, a W&B replay curriculum of raw game returns
    100x apart stepped in 1e8-scale frames, an EMA-smoothed capped distance / time to solve made lower-is-better,
    LLM-judge scores in [0, 10] resumed into a second event file or killed mid-record, two-stage learners; fourteenth:
    a new SummaryWriter per curriculum stage (a new event file or a `stage_{k}/` subfolder) of BLEU scores in [0, 100],
    pass@k of k samples per problem in sibling-seed W&B runs, extremely sparse evals beside dense training with late
    unlocks, a whole-run logging pause and runs cut off mid-rise, losses whose log-normal noise differs ~10x between
    sibling envs; fifteenth: a sequential (continual) curriculum training one task at a time with retention evals of
    every task seen (forgetting), a round-robin evaluator at wall-clock slots in its own SummaryWriter beside the
    trainer's, a learning-progress sampler whose per-env logging pace follows progress, Atropos env processes some of
    them already solved by the base model; sixteenth: CompilerGym-like speedups near 1 with multiplicative noise in a
    W&B run stepped by a `define_metric` samples axis with per-env stop thresholds in `overrides:`, integer Pong
    scores (-21..21) at steps in elapsed wall seconds, a ROLL stdout log judged on its bimodal Sokoban
    `val/{tag}/score/mean` with bare NaN rows, LLM-RL accuracies whose declared sample count changes in batch
    regimes; seventeenth: dcd test returns evaluated on a rotating subset of level seeds, Brax-style eval-only W&B runs
    of a few hundred points at 1e8-1e9 env steps with noise that grows as the agent learns, returns with rare
    env-server crash points (0, the floor or a huge value), a trainer that demotes graduated envs in its logged states
    with success rates saturating at 1.0; eighteenth: seed replicas `{task}_s{k}` of D4RL-style normalized scores in
    one W&B run with doubling-then-regular evals, two DDP ranks writing the same tags into two event files of one
    folder, log-likelihoods with states as words logged only at transitions, 5,000-9,000-point runs with drifting
    Student-t noise, NaN points and a resume rewriting a span in a second event file; nineteenth: EfficientZero-style
    test results written late into the event file at the step their test began (behind train rows of later steps),
    garage MTSAC per-task Meta-World success rates under a user profile with per-task ceilings and per-run, per-env
    `stop_threshold` overrides, reward hacking (a proxy train score rising while the gold eval score of the same name
    falls) with a stderr series beside it, a Population-Based-Training population whose exploits jump members'
    curves up and down; twentieth: rsl_rl/legged_gym per-terrain-type tracking rewards (train only, NaN where no robot
    of a type reset, a second wall-clock step axis in the file), verl's eval-only `val-core/{data_source}/acc/mean@{n}`
    (env ids holding `/`, greedy or sampled on a fixed problem set, locked sources evaluated beside logged states),
    Craftax's 22 achievement percentages in a W&B run logged without `step=`, MiniHack tasks in polybeast's
    FileWriter CSV (sparse per-task cells, columns appearing as tasks unlock, `step_key` and `count_metric`);
    twenty-first: Sample Factory's per-level DMLab human-normalized scores in its hidden `.summary/0/` folder (IMPALA
    windows written only once every level has a new episode, env frames at a drifting throughput), TRL GRPO's
    per-task reward functions through transformers' WandbCallback (`define_metric("*")` on `train/global_step`, null
    means in windows without the task, fixed-set evals, resumed runs), TorchRL's WandbLogger per-group step keys over
    multi-game Procgen returns on their own scales; twenty-second: Isaac Lab `Metrics/{task}/…` through skrl's
    write-interval means (tags with spaces beside them; success rates or orientation errors), rl_games'
    IsaacAlgoObserver `Episode/{obj}_consecutive_successes` at epochs beside frame and time axes, OpenRLHF's eval-only
    `eval/eval_{datasource}_pass1` through its TensorboardLogger (resumed into a second event file) and its
    WandbLogger (whose runs are the one known exception below); twenty-third: d3rlpy's TensorboardAdapter (eval-only
    per-task `metrics/eval_{task}` at the epoch beside an `add_hparams` subfolder that gets a new event file every
    epoch; AntMaze success rates, or dense returns on their own scales with a lower-is-better distance by an override),
    Tianshou's TensorboardLogger (one run folder per task named by its start time, read with `env: "{run}"`; test and
    training returns with `n_collected_episodes` as `count_metric`, update / info / save scalars on other axes,
    resumed from the log into a second event file), JaxUED's PLR maze W&B run (`solve_rate/{level}` on
    `define_metric`'s `num_updates` axis, logged without `step=`, images in the rows); twenty-fourth: PufferLib's
    clean_pufferl W&B rows (no `step=`, `0verview/agent_steps` as the profile's `step_key`, nested infos as
    `environment/{task}/{stat}`, resumed into a second offline folder of the same id), rl-starter-files / torch-ac
    `return_mean` at `num_frames` (one model dir per MiniGrid level, env by `run_env`, resumed into a second event
    file), Dopamine's per-iteration `Train|Eval/AverageReturns` (TF1 multi-value Summary events or TF2 tensor scalars,
    the loss on a training-step axis, the collector's copy under `metrics/tensorboard/`, train-only resumes);
    twenty-fifth: OpenAI baselines' logger `tensorboard` format (one Summary of every key a dump, at the dump count)
    as HER writes it per Fetch/Hand task (`test|train/success_rate`, params.json and progress.csv beside `tb/`) and as
    PPO2 writes it (`eprewmean`, a 100-episode deque mean, NaN until an episode ended), AllenAct's per-object-type
    `train-metrics/{type}/success` beside `valid-metrics/…` of each checkpoint written late, SkyRL's per-data-source
    `eval/{ds}/avg_score` through W&B (resumed under the same id) or TensorBoard (a second event file);
    twenty-sixth: EPyMARL's `tensorboard_logger` stats at irregular env steps (SMAC `test_battle_won_mean`, gymma
    `test_return_mean`, one `{alg}_seed{n}_{map}_{datetime}` folder a map, env by `run_env`, sacred JSON beside it),
    prime-rl's orchestrator `metrics.jsonl` (per-env `train|eval/{env}/effective/agent/…` rows, eval rows written
    behind later steps, trainer rows interleaved, resumes appended; some mirrored to offline W&B runs stepped by
    `define_metric("*", step_metric="step")`), MTRL's JSON-lines `eval.log` (unread when the corpus was written; a
    corpus may name such groups UNREAD, and exactly those must then fail to load); twenty-seventh: NeMo-RL's
    TensorboardLogger of NeMo-Gym per-agent `train|validation/{agent}/reward/mean` (train means over each step's
    varying rollouts of the agent, agents joining in waves in train-only runs), BenchMARL experiments through TorchRL's
    TensorboardLogger (`/` written as `_`, steps in iterations, restores into a second event file) or its WandbLogger
    (rows without a step, `counters/total_frames` as `step_key`, grouped by task, restores under the same id), Acme's
    run_experiment CSV logs behind its 1 s TimeFilter (restored jobs appending rows whose fields differ from the
    header), one group judged on MountainCar/Acrobot episode lengths made lower-is-better; twenty-eighth: Stoix's
    TensorboardLogger (the evaluator at the evaluation index, read eval-only by a user profile, env by `run_env`) and
    WandBLogger (every event at the env steps, `/mean` keys only), slime's per-dataset `eval/{dataset}` on fixed sets
    (0/1 or ±1 rewards, irregular evals at epoch boundaries, `eval/step` by `define_metric`, three offline W&B folders
    of one id), TorchRL's MLFlowLogger in an MLflow file store (PPO / SAC MuJoCo returns, env = MLflow's random run
    name); twenty-ninth: DreamerV3's `metrics.jsonl` / `scores.jsonl` (a line per finished episode at the counter times
    the action repeat, killed runs restarted into the same logdir), SheepRL's Fabric TensorBoardLogger
    (`Rewards/rew_avg` every log_every policy steps, absent when no episode ended), and a user profile judging its
    `Game/ep_len_avg` lower-is-better; thirtieth: RL Zoo folders without TensorBoard (`{rank}.monitor.csv` of
    vectorized envs interleaving in wall time and EvalCallback's `evaluations.npz`, or Monitor files alone; a MiniGrid
    level sequence a folder a level), RL Zoo goal envs judged on `is_success` flags through `performance_metric:
    success_rate`, d3rlpy's FileAdapter CSV files (offline `environment.csv` evaluations, fit_online's `evaluation`
    and `rollout_return`, antmaze fine-tuning epochs without a finished episode); thirty-first: RAGEN's per-tag
    `train/{tag}/success` beside `val-env/{tag}/success` (verl's Tracking to W&B or TensorBoard, `non-zero/` keys),
    verl-agent's ALFWorld `episode/{task}_success_rate` (absent for the types a batch did not draw) and
    `val/{task}_success_rate`, open-instruct's per-verifier `objective/{verifier}_correct_rate` on the `training_step`
    axis (zero-std filtered groups, evals collected late, histograms in the rows, train-only runs), AReaL's
    `rollout/reward` and `eval-rollout/reward` in `{fileroot}/logs/{user}/{experiment}/{trial}/wandb/`; thirty-second:
    rLLM's per-source `val/{data_source}/pass@1` (W&B or `tensorboard_log/{project}/{experiment}`, raw `@` tags),
    OpenPipe ART's `train|val/reward` a model a W&B run (`env: "{run}"`, restarts under the same id), AgileRL's
    population `eval/mean_fitness` and `train/mean_score` (W&B rows without `step=` on `train/global_step`, or
    TensorBoard; `run_env`), its CSVLogger file kept though unread; thirty-third: Syllabus' learning-progress
    `curriculum/{task}_success_rate` (the last evaluation's rate logged again every update, 200 `_prob` keys beside
    it, a key at a fixed step every update), Kinetix's per-level `eval_avg/solve_rate_{level}` (level names holding
    `/`, W&B rows on `define_metric`'s `timing/num_env_steps`), Continual World's TF2 tensor scalars
    `test/stochastic/{i}/{task}/success` (tensor_content float32, `.v2` file, progress.tsv beside); thirty-fourth:
    TD-MPC2's multi-task `pretrain/episode_reward|success+{task}` (W&B rows with `step=` the iteration, DMControl
    returns and Meta-World success rates under one `score`), robomimic's `Rollout/Success_Rate/{env}` beside its
    running `-mean|std|min|max` stats (tensorboardX, a resumed job's second event file), ManiSkill's PPO baseline
    `train|eval/success_once` in `runs/{run_name}` (`env: "{run}"` by `run_env`); thirty-fifth: MAPPO's (on-policy)
    SMAC win rates and MPE returns through tensorboardX `add_scalars` subfolders (`logs/{k}/{k}/`) or W&B a key a
    `log`, two user profiles in one config, LeRobot's eval-only `eval/pc_success` percentages in W&B (resumed into a
    second offline folder of the same id), habitat-baselines' rolling-window `metrics/success` and its eval job's
    `eval_metrics/success` in one `tb/` folder (preempted jobs resumed with `purge_step`), a configured
    `stagnation_window` in frames; thirty-sixth: CORL's D4RL normalized scores in W&B (`d4rl_normalized_score` at
    step=total_it, finetune's `eval/d4rl_normalized_score`, ReBRAC/EDAC rows without step= read by `step_key:
    epoch`; the env by `run_env` in the run's name, seeds of a dataset in one W&B group), rlkit's `progress.csv`
    (`eval|expl/Average Returns`, returns of either sign, `step_key: expl/num steps total`), oat's eval-only
    `eval/{benchmark}/accuracy` of several benchmarks a run (rows without step=, the `eval/average/…` aggregate
    left out):
    every label on a planned env of a planned run, and curriwatch reads every
    planned run and env (no errors, nothing missing, no run or env judged unknown)."""
    corpus = importlib.import_module(f"detection_corpus_{name}")
    labels = corpus.build(tmp_path, corpus.SMALL_RUNS, 3)
    plans = detection.load_plans(tmp_path)
    assert {p["convention"] for p in plans.values()} == set(corpus.CYCLE)
    assert labels == json.loads((tmp_path / "labels.json").read_text()) and labels
    for l in labels:
        assert l["env"] in [e["name"] for e in plans[l["run"]]["envs"]], l
        assert l["type"] in corpus.EVENTS, l
    detections, intervals, errors, problems = detection.analyze_corpus(tmp_path)
    unread = getattr(corpus, "UNREAD", ())  # conventions a corpus keeps although curriwatch reads none of their files
    assert sorted(e.split(":")[0] for e in errors) == sorted(unread) and problems == [], (errors, problems)
    assert intervals == {name: p["tolerance_unit"] for name, p in plans.items()}


def test_twentysecond_openrlhf_wandb_evals_keep_their_steps(tmp_path):
    """OpenRLHF's WandbLogger (openrlhf/utils/logging_utils.py) defines `eval/*` on `eval/epoch` but logs
    `eval/global_step`: W&B fills the axis with 0 in every row; the evals keep their steps (by the profile's
    `step_key`) and the frozen axis is reported, instead of collapsing into one point at step 0."""
    import detection_corpus_twentysecond as corpus

    labels = corpus.build(tmp_path, 6, 3)  # one run of each convention; the sixth is openrlhf_wandb
    assert labels is not None
    detections, intervals, errors, problems = detection.analyze_corpus(tmp_path)
    assert errors == [] and problems == [], problems
