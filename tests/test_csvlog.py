"""Training loggers' own CSV files (SB3's progress.csv, rl-starter-files' log.csv) read where no
TensorBoard copy of them exists, and left alone where one does."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import curriwatch
from curriwatch.discover import discover
from writers import AgileRLCsvLogger, RlStarterCsvLogger, write_tb, write_tune_trial

FIXTURES = Path(__file__).parent / "fixtures" / "sb3_csv"
sys.path.insert(0, str(FIXTURES))
import generate as sb3_fixture  # noqa: E402  (the series the committed progress.csv was written from)

RL_STARTER_PROFILE = """\
profiles:
  torch_ac:
    patterns:
      - {regex: '^return_mean$', env: "{run}", split: train, metric: return}
    performance_metric: return
profile: torch_ac
"""


def _points(ingest, metric, split="train"):
    f = ingest.frame
    sel = f[(f.metric == metric) & (f.split == split)].sort_values("step")
    return [(str(e), int(s), float(v)) for e, s, v in zip(sel.env_id, sel.step, sel.value)]


def _log_rl_starter(model_dir, rows, status_frames=0):
    log = RlStarterCsvLogger(model_dir, status_frames)
    for update, frames, value in rows:
        log.log(update, frames, value)
    log.close()


def test_sb3_progress_csv_written_by_sb3s_own_logger(tmp_path):
    shutil.copytree(FIXTURES / "ppo_level_1", tmp_path / "ppo_level_1")
    ingest = curriwatch.load(tmp_path)
    (info,) = ingest.runs
    assert (info.source, info.profile) == ("csvlog", "sb3")
    dumps = sb3_fixture.dumps()
    assert _points(ingest, "ep_rew_mean") == [
        ("ppo_level_1", step, kv["rollout/ep_rew_mean"]) for step, kv in dumps if "rollout/ep_rew_mean" in kv]
    # EvalCallback's rows came after the header was fixed: the file was rewritten with a longer one
    assert _points(ingest, "ep_rew_mean", "eval") == [
        ("ppo_level_1", step, kv["eval/mean_reward"]) for step, kv in dumps if "eval/mean_reward" in kv]
    assert not [i for i in info.issues if i.kind in ("corrupt_record", "duplicate_points")]


def test_rl_starter_files_log_csv_with_its_repeated_header_and_a_resume(tmp_path):
    model = tmp_path / "storage" / "MiniGrid-DoorKey-5x5-v0_ppo_seed1"
    first = [(u, 2048 * u, min(1.0, u / 20)) for u in range(1, 16)]
    _log_rl_starter(model, first)  # killed after update 15; its status was saved at update 10
    again = [(u, 2048 * u, min(1.0, u / 18)) for u in range(11, 31)]
    _log_rl_starter(model, again, status_frames=2048 * 10)
    (tmp_path / "curriwatch.yaml").write_text(RL_STARTER_PROFILE)
    ingest = curriwatch.load(tmp_path, config=str(tmp_path / "curriwatch.yaml"))
    (info,) = ingest.runs
    assert info.source == "csvlog"
    env = "MiniGrid-DoorKey-5x5-v0_ppo_seed1"  # {run}: the model dir
    # the resumed job logged updates 11-15 again: last write wins
    assert _points(ingest, "return") == [(env, f, v) for _u, f, v in first[:10] + again]
    assert not [i for i in info.issues if i.kind == "corrupt_record"]


def test_log_csv_read_as_its_tensorboard_copy_would_be(tmp_path):
    rows = [(u, 1024 * u, round(0.9 * (1 - 0.93 ** u), 6)) for u in range(1, 60)]
    _log_rl_starter(tmp_path / "csv" / "run", rows)
    write_tb(tmp_path / "tb" / "run", {"return_mean": [(f, v) for _u, f, v in rows]})
    (tmp_path / "c.yaml").write_text(RL_STARTER_PROFILE)
    from_csv = curriwatch.load(tmp_path / "csv", config=str(tmp_path / "c.yaml"))
    from_tb = curriwatch.load(tmp_path / "tb", config=str(tmp_path / "c.yaml"))
    assert [(s, pytest.approx(v, rel=1e-6)) for _e, s, v in _points(from_tb, "return")] == \
        [(s, v) for _e, s, v in _points(from_csv, "return")]


def test_csv_beside_its_event_files_is_not_read_twice(tmp_path):
    _log_rl_starter(tmp_path / "run", [(1, 2048, 0.5), (2, 4096, 0.6)])
    write_tb(tmp_path / "run", {"return_mean": [(2048, 0.5), (4096, 0.6)]})
    runs, _ = discover(tmp_path)
    assert [(r.name, r.source) for r in runs] == [("run", "tensorboard")]


def test_baselines_progress_csv_beside_its_tb_subfolder_is_not_read_twice(tmp_path):
    """OpenAI baselines' logger writes progress.csv and its TensorBoard copy into tb/ (logger.py make_output_format)."""
    (tmp_path / "ppo2").mkdir()
    (tmp_path / "ppo2" / "progress.csv").write_text("misc/total_timesteps,eprewmean\n2048,1.5\n4096,2.5\n")
    write_tb(tmp_path / "ppo2" / "tb", {"eprewmean": [(2048, 1.5), (4096, 2.5)]})
    runs, _ = discover(tmp_path)
    assert [(r.name, r.source) for r in runs] == [("ppo2/tb", "tensorboard")]


def test_progress_csv_of_a_tune_trial_stays_tunes(tmp_path):
    write_tune_trial(tmp_path / "t", [{"training_iteration": i + 1, "timesteps_total": 100 * (i + 1),
                                       "episode_reward_mean": float(i)} for i in range(3)], {"env": "E"})
    (tmp_path / "t" / "result.json").unlink()
    runs, _ = discover(tmp_path)
    assert [(r.name, r.source) for r in runs] == [("t", "tune")]


def test_other_csv_files_are_not_runs(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "log.csv").write_text("name,score\nalice,3\nbob,4\n")
    (tmp_path / "data" / "progress.csv").write_bytes(b"\xff\xfe" + bytes(range(256)))
    (tmp_path / "data" / "results.csv").write_text("step,success\n1,0.5\n")
    (tmp_path / "data" / "metrics.csv").write_text("name,accuracy\nresnet,0.9\n")
    runs, issues = discover(tmp_path)
    assert runs == [] and issues == []


AGILERL_PROFILE = """\
profiles:
  agilerl:
    patterns:
      - {regex: '^train/mean_score$', env: "{run}", split: train, metric: score}
      - {regex: '^eval/mean_fitness$', env: "{run}", split: eval, metric: score}
    performance_metric: score
    step_key: train/global_step
    run_env: '(?P<env>[A-Z][A-Za-z0-9]*-v[0-9]+)'
"""


def _agilerl_run(folder, reports):
    log = AgileRLCsvLogger(folder / "training_metrics.csv")
    for step, fitness, score in reports:
        log.write(step, fitness, score)
    log.close()


def test_a_csv_of_any_name_naming_a_user_profiles_step_key_is_read(tmp_path):
    """AgileRL's CSVLogger writes `training_metrics.csv` (its docs' name), one row an evolution step stepped by
    `train/global_step`: a CSV of no logger name the README lists. A user profile whose `step_key` its header holds
    says it is a log of theirs: read, each value at its row's global step (two runs, one a folder)."""
    logs = tmp_path / "logs"
    reports = {"PPO_LunarLander-v3_01": [(4096 * k, -200.0 + 3 * k, -210.0 + 3 * k) for k in range(1, 41)],
               "PPO_CartPole-v1_02": [(2048 * k, 10.0 + 12 * k, 8.0 + 12 * k) for k in range(1, 31)]}
    for name, rows in reports.items():
        _agilerl_run(logs / name, rows)
    cfg = tmp_path / "curriwatch.yaml"
    cfg.write_text(AGILERL_PROFILE)
    ingest = curriwatch.load(logs, config=cfg)
    assert sorted((i.source, i.envs[0]) for i in ingest.runs) == [("user-csv", "CartPole-v1"), ("user-csv", "LunarLander-v3")]
    for name, rows in reports.items():
        env = name.split("_")[1]
        for split, col in (("train", 2), ("eval", 1)):
            assert [(s, v) for e, s, v in _points(ingest, "score", split) if e == env] == [(r[0], r[col]) for r in rows]
    # without the profile nothing names the file a log: no run (exit 2 from the CLI), never a guess
    with pytest.raises(curriwatch.InputError, match="no runs found"):
        curriwatch.load(logs)


def test_several_csvs_naming_the_step_key_in_one_folder_are_runs_of_their_own(tmp_path):
    """Two such files in one folder (a train log and an eval log of one job, each from step 0) are two runs: one
    file's rows after the other's would read as a restart. In a folder another kind reads (a Monitor file here;
    dcd's fields.csv beside its logs.csv, Acme's logs.csv) no CSV is read as a user's log: it is that kind's."""
    folder = tmp_path / "logs" / "job"
    folder.mkdir(parents=True)
    (folder / "train_log.csv").write_text("train/global_step,train/mean_score\n100,1.0\n200,2.0\n")
    (folder / "eval_log.csv").write_text("train/global_step,eval/mean_fitness\n100,1.5\n200,2.5\n")
    (folder / "notes.csv").write_text("name,value\na,1\n")
    zoo = tmp_path / "logs" / "zoo"
    zoo.mkdir()
    (zoo / "0.monitor.csv").write_text('#{"t_start": 1.0, "env_id": "CartPole-v1"}\nr,l,t\n1.0,10,0.1\n')
    (zoo / "extra.csv").write_text("train/global_step,x\n1,2\n")
    runs, issues = discover(tmp_path / "logs", ("train/global_step",))
    assert sorted((r.source, r.name) for r in runs) == [("sb3-monitor", "zoo"), ("user-csv", "job/eval_log.csv"),
                                                      ("user-csv", "job/train_log.csv")] and issues == []
    assert [r.source for r in discover(tmp_path / "logs")[0]] == ["sb3-monitor"]


def test_damaged_rows_are_reported_and_the_rest_kept(tmp_path):
    _log_rl_starter(tmp_path / "run", [(u, 100 * u, u / 10) for u in range(1, 6)])
    with open(tmp_path / "run" / "log.csv", "a") as f:
        f.write("6,600,1.0\n")  # a row cut short
        f.write('7,700,"unclosed\n')
    _log_rl_starter(tmp_path / "run", [(8, 800, 0.8)], status_frames=800)
    (tmp_path / "c.yaml").write_text(RL_STARTER_PROFILE)
    env = {"NO_COLOR": "1", "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-m", "curriwatch", "report", str(tmp_path), "--config",
                          str(tmp_path / "c.yaml"), "--format", "json"], capture_output=True, text=True, env=env)
    assert "Traceback" not in out.stderr
    doc = json.loads(out.stdout)
    (run,) = doc["runs"]
    assert [i["kind"] for i in run["data_issues"]].count("corrupt_record") >= 1, run["data_issues"]
    ingest = curriwatch.load(tmp_path, config=str(tmp_path / "c.yaml"))
    assert [s for _e, s, _v in _points(ingest, "return")] == [100, 200, 300, 400, 500, 800]


def test_profile_step_key_missing_from_a_runs_rows_keeps_their_own_steps(tmp_path):
    """The sb3 profile steps W&B rows by `global_step` (sync_tensorboard's); a W&B run of SB3 keys logged
    without it (or SB3's progress.csv) keeps each row's own step instead of failing to read."""
    from writers import write_wandb

    write_wandb(tmp_path, [{"rollout/ep_rew_mean": 10.0 * i} for i in range(5)], steps=[100 * i for i in range(5)])
    ingest = curriwatch.load(tmp_path)
    (info,) = ingest.runs
    assert info.profile == "sb3"
    assert [(s, v) for _e, s, v in _points(ingest, "ep_rew_mean")] == [(100 * i, 10.0 * i) for i in range(5)]


def _her_logdir(folder, epochs=6, tb=True):
    """An OpenAI baselines HER logdir: params.json (her/her.py:100-118, json.dump of its params), progress.csv
    with the keys her.py logs each epoch, and with OPENAI_LOG_FORMAT holding `tensorboard` the same dumps in
    `tb/` (logger.py make_output_format)."""
    from writers import BaselinesCsvOutput

    folder.mkdir(parents=True)
    (folder / "params.json").write_text(json.dumps({"env_name": "FetchPush-v1", "n_cycles": 50, "buffer_size": 1000000}))
    out = BaselinesCsvOutput(folder / "progress.csv")
    series = {}
    for epoch in range(epochs):
        kv = {"epoch": epoch, "test/episode": 10.0 * (epoch + 1), "test/success_rate": round(epoch / epochs, 4),
              "train/episode": 100.0 * (epoch + 1), "train/success_rate": round(epoch / (2 * epochs), 4)}
        out.writekvs(kv)
        for key, value in kv.items():
            series.setdefault(key, []).append((epoch + 1, float(value)))  # the TensorBoard format counts dumps from 1
    out.close()
    if tb:
        write_tb(folder / "tb", series)
    return series


def test_baselines_her_logdir_is_no_tune_trial_and_is_read_once(tmp_path):
    """HER writes a params.json of its own beside progress.csv: no Ray Tune trial (no Tune column in the CSV), and
    the tb/ copy of the same dumps is the one read. Was: a Tune trial and a TensorBoard run, every incident twice."""
    _her_logdir(tmp_path / "FetchPush")
    runs, issues = discover(tmp_path)
    assert [(r.name, r.source) for r in runs] == [("FetchPush/tb", "tensorboard")] and issues == []


def test_baselines_her_progress_csv_alone_is_read_by_its_epochs(tmp_path):
    series = _her_logdir(tmp_path / "FetchPush", tb=False)
    runs, _ = discover(tmp_path)
    assert [(r.name, r.source) for r in runs] == [("FetchPush", "csvlog")]
    from curriwatch.readers import read_run

    raw = read_run(runs[0])
    got = sorted((s, v) for t, s, v in zip(raw.tag_code, raw.step, raw.value) if raw.tags[t] == "test/success_rate")
    assert got == [(s - 1, v) for s, v in series["test/success_rate"]]  # epoch from 0 is the CSV's step


LIGHTNING = Path(__file__).parent / "fixtures" / "lightning"


def test_lightning_metrics_csv_written_by_lightnings_own_csv_logger(tmp_path):
    """The committed metrics.csv was written by Lightning's CSVLogger through a Trainer
    (tests/fixtures/lightning/make_lightning_logs.py): rows of one `log_metrics` call each, validation's keys
    added by rewriting the file with a longer header. Every cell comes back at its row's `step`."""
    import pandas as pd

    envs = ["maze_easy", "maze_keys", "maze_lava"]  # make_lightning_logs.Curriculum.ENVS (the script needs torch)
    csv_path = LIGHTNING / "logs" / "curriculum" / "version_0" / "metrics.csv"
    (tmp_path / "curriwatch.yaml").write_text("performance_metric: success_rate\n")
    ingest = curriwatch.load(LIGHTNING / "logs", config=tmp_path / "curriwatch.yaml")
    (info,) = ingest.runs
    assert (info.source, info.profile) == ("csvlog", "generic")
    assert info.envs == list(envs)
    oracle = pd.read_csv(csv_path)
    for split in ("train", "eval"):
        for env in envs:
            col = oracle[["step", f"{split}/{env}/success_rate"]].dropna()
            assert _points(ingest, "success_rate", split) and [
                (s, v) for e, s, v in _points(ingest, "success_rate", split) if e == env] == [
                (int(s), float(v)) for s, v in zip(col["step"], col[f"{split}/{env}/success_rate"])]
    report = curriwatch.analyze(ingest, config=tmp_path / "curriwatch.yaml")
    (run,) = report.runs
    incidents = {(w.env_id, w.type) for w in run.warnings}
    assert ("maze_keys", "graduated_regression") in incidents and ("maze_lava", "training_stagnation") in incidents
    assert not {t for e, t in incidents if e == "maze_easy"}


def test_lightning_metrics_csv_beside_its_tensorboard_logger_is_read_once(tmp_path):
    """Lightning's TensorBoardLogger and CSVLogger given the same save_dir and name write into one version folder:
    its event files are the run; metrics.csv is the same data again."""
    folder = tmp_path / "curriculum" / "version_0"
    folder.mkdir(parents=True)
    shutil.copy(LIGHTNING / "logs" / "curriculum" / "version_0" / "metrics.csv", folder)
    write_tb(folder, {"train/maze_easy/reward": [(s, 0.5) for s in range(10)]})
    (info,) = curriwatch.load(tmp_path).runs
    assert info.source == "tensorboard"
