"""Ingest of real logging shapes: distinct observations, step columns, run groups, framework keys.

Inputs come from the real writers (wandb offline mode, tensorboardX); records a writer cannot be
made to produce (a `_step` of 1e30) are real wandb records re-framed with one field changed.
"""
from __future__ import annotations

import math
import struct
import warnings
import zlib
from pathlib import Path

import numpy as np
import pytest

import curriwatch
from curriwatch.discover import discover
from curriwatch.readers.leveldb_log import BLOCK, LogReport, iter_log_records
from writers import write_tb, write_wandb


def series(frame, env, split, metric, run=None):
    sel = (frame.env_id == env) & (frame.split == split) & (frame.metric == metric)
    if run is not None:
        sel &= frame.run == run
    rows = frame[sel]
    return list(zip(rows.step.tolist(), rows.value.tolist()))


def marin_rows(batches, lesson="add"):
    """Rollout rows as Marin's rollout worker logs them: one row per batch, no step=.

    lib/marin/src/marin/rl/rollout_worker.py logs `inference.rollout/{lesson}/...` with
    `total_count` and `inference.weight_step` per batch via tracker.log (no step).
    """
    return [{f"inference.rollout/{lesson}/success_rate": p, f"inference.rollout/{lesson}/total_count": n,
             "inference.weight_step": w} for w, p, n in batches]


# ---- 9.6 every observation kept -------------------------------------------------------------

def test_batches_under_one_weight_step_are_combined_weighted_by_total_count(tmp_path):
    rows = marin_rows([(0, 0.5, 16), (1, 0.25, 16), (1, 0.75, 48), (1, 1.0, 32), (2, 0.4, 10)])
    rows.append({"inference.weight_step": -1, "inference.train_step": 7,
                 "inference.eval/add/success_rate": 0.9, "inference.eval/add/total_count": 20})
    write_wandb(tmp_path, rows)
    ingest = curriwatch.load(tmp_path)
    info = ingest.runs[0]
    frame = ingest.frame
    assert series(frame, "add", "train", "success_rate") == [
        (0, 0.5), (1, (0.25 * 16 + 0.75 * 48 + 1.0 * 32) / 96), (2, 0.4)]
    assert series(frame, "add", "train", "total_count") == [(0, 16), (1, 96), (2, 10)]
    counts = frame[(frame.metric == "success_rate") & (frame.split == "train")]["count"].tolist()
    assert counts == [16, 96, 10]
    # weight_step -1 (initial weights) gives way to the row's train_step
    assert series(frame, "add", "eval", "success_rate") == [(7, 0.9)]
    assert not [i for i in info.issues if i.kind == "duplicate_points"]
    assert info.observations_combined == 4  # two extra rows for success_rate and for total_count


def test_combining_without_counts_is_a_plain_mean_and_count_stays_unknown(tmp_path):
    rows = [{"inference.rollout/a/success_rate": v, "inference.weight_step": 3} for v in (0.2, 0.4, 0.9)]
    write_wandb(tmp_path, rows)
    frame = curriwatch.load(tmp_path).frame
    assert series(frame, "a", "train", "success_rate") == [(3, pytest.approx(0.5))]
    assert math.isnan(frame["count"].iloc[0])


def test_tensorboard_restart_rewriting_a_step_is_a_duplicate_last_write_wins(tmp_path):
    write_tb(tmp_path, {"train/a/reward": [(s, 0.25) for s in range(5)]}, suffix=".1")
    write_tb(tmp_path, {"train/a/reward": [(s, 0.75) for s in range(3, 8)]}, suffix=".2")
    ingest = curriwatch.load(tmp_path)
    assert series(ingest.frame, "a", "train", "reward") == [(s, 0.25 if s < 3 else 0.75) for s in range(8)]
    dup = [i for i in ingest.runs[0].issues if i.kind == "duplicate_points"]
    assert len(dup) == 1 and dup[0].detail.startswith("2 point(s)")


def test_wandb_log_calls_with_one_step_are_merged_by_wandb_itself(tmp_path):
    # wandb keeps one row per step= value (a later call's value for a key replaces the earlier one)
    # and ignores a step lower than its current one: no repeats reach the .wandb file
    rows = [{"train/a/reward": v} for v in (0.125, 0.375, 0.875, 0.5)]
    write_wandb(tmp_path, rows, steps=[5, 5, 6, 5])
    ingest = curriwatch.load(tmp_path)
    assert series(ingest.frame, "a", "train", "reward") == [(5, 0.375), (6, 0.875)]
    assert ingest.runs[0].observations_combined == 0
    assert not [i for i in ingest.runs[0].issues if i.kind == "duplicate_points"]


# ---- 10.3 / 10.1 bad steps and unreadable runs -----------------------------------------------

@pytest.mark.parametrize("bad", [1e30, -1e300, 9.3e18, float("inf"), float("nan")])
def test_marin_step_column_out_of_int64_range_is_a_data_issue_never_a_cast(tmp_path, bad, capfd):
    rows = marin_rows([(1, 0.5, 8), (bad, 0.6, 8), (3, 0.7, 8)])
    write_wandb(tmp_path, rows)
    capfd.readouterr()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ingest = curriwatch.load(tmp_path)
    assert series(ingest.frame, "add", "train", "success_rate") == [(1, 0.5), (3, 0.7)]
    issue = [i for i in ingest.runs[0].issues if i.kind == "bad_step"]
    assert len(issue) == 1 and issue[0].detail.startswith("2 point(s)")
    assert capfd.readouterr().err == ""


def _frame_records(payloads: list[bytes], header: bytes) -> bytes:
    """LevelDB-log framing (FULL/FIRST/MIDDLE/LAST chunks in 32 KiB blocks) of `payloads`."""
    out = bytearray(header)
    for payload in payloads:
        first = True
        while True:
            room = BLOCK - len(out) % BLOCK
            if room < 7:
                out += b"\0" * room
                continue
            chunk, payload = payload[:room - 7], payload[room - 7:]
            kind = (1 if first else 4) if not payload else (2 if first else 3)
            out += struct.pack("<IHB", zlib.crc32(chunk, zlib.crc32(bytes([kind]))), len(chunk), kind) + chunk
            first = False
            if not payload:
                break
    return bytes(out)


def _with_step_items(path: Path, steps: dict[int, str]) -> None:
    """Rewrite a real .wandb file: history row i loses `step` and gets a `_step` item steps[i]."""
    from wandb.proto import wandb_internal_pb2

    data = path.read_bytes()
    payloads, row = [], 0
    for _offset, payload in iter_log_records(data, LogReport()):
        record = wandb_internal_pb2.Record.FromString(payload)
        if record.HasField("history"):
            record.history.ClearField("step")
            for item in record.history.item:
                if (item.key or ".".join(item.nested_key)) == "_step":
                    item.value_json = steps.get(row, str(row))
            payload = record.SerializeToString()
            row += 1
        payloads.append(payload)
    path.write_bytes(_frame_records(payloads, data[:7]))


@pytest.mark.parametrize("bad", ["1e30", "Infinity", "NaN", str(2 ** 63)])
def test_wandb_row_with_impossible_step_costs_that_row_only(tmp_path, bad):
    path = write_wandb(tmp_path / "a", [{"train/x/reward": i / 10} for i in range(5)], steps=list(range(5)))
    _with_step_items(path, {2: bad})
    write_tb(tmp_path / "b", {"train/y/reward": [(1, 0.5)]})
    ingest = curriwatch.load(tmp_path)
    assert {r.name for r in ingest.runs} == {"a/offline-run-20260101_000000-testrun", "b"}
    assert series(ingest.frame, "x", "train", "reward") == [(0, 0.0), (1, 0.1), (3, 0.3), (4, 0.4)]
    run = ingest.run("a/offline-run-20260101_000000-testrun")
    assert [i.kind for i in run.issues if i.kind == "bad_step"] == ["bad_step"]


def test_an_unexpected_error_in_one_run_is_its_read_error_and_the_others_are_reported(tmp_path, monkeypatch):
    write_tb(tmp_path / "good", {"train/a/reward": [(1, 0.5)]})
    write_tb(tmp_path / "bad", {"train/b/reward": [(1, 0.5)]})
    from curriwatch import ingest as ingest_module

    real = ingest_module.read_run

    def flaky(source, reader="native"):
        if source.name == "bad":
            raise OverflowError("Python int too large to convert to C long")
        return real(source, reader)

    monkeypatch.setattr(ingest_module, "read_run", flaky)
    ingest = curriwatch.load(tmp_path)
    assert set(ingest.frame.run) == {"good"}
    issue = ingest.run("bad").issues
    assert [i.kind for i in issue] == ["read_error"] and "OverflowError" in issue[0].detail


# ---- 10.5 / 10.6 discovery ---------------------------------------------------------------

def test_folder_with_event_files_and_a_wandb_file_is_two_runs_with_distinct_names(tmp_path):
    write_tb(tmp_path / "mixed", {"train/tb/reward": [(1, 0.5)]})
    path = write_wandb(tmp_path, [{"train/wb/reward": 0.5}], run_id="mixed1")
    path.rename(tmp_path / "mixed" / path.name)
    with open(tmp_path / "mixed" / path.name, "ab") as f:
        f.write(b"\x01\x02")  # an incomplete tail, which must stay visible
    ingest = curriwatch.load(tmp_path)
    names = sorted(r.name for r in ingest.runs)
    assert names == ["mixed", "mixed [wandb]"]
    assert set(ingest.frame.run) == set(names)
    assert [i.kind for i in ingest.run("mixed [wandb]").issues] == ["incomplete_tail"]


def test_event_files_of_one_second_sort_by_their_numeric_suffix(tmp_path):
    from tensorboardX import SummaryWriter

    # Three writers started within one second: same timestamp, suffixes .2 then .10
    for suffix, value in ((".2", 0.5), (".10", 0.25)):
        w = SummaryWriter(str(tmp_path), filename_suffix=suffix)
        w.add_scalar("train/a/reward", value, 5)  # 0.2 then 0.1: the later file must win
        w.close()
    files = sorted(p.name for p in tmp_path.iterdir())
    stamp = files[0].split(".")[3]
    for p in tmp_path.iterdir():  # same second for both, as when they start together
        parts = p.name.split(".")
        parts[3] = stamp
        p.rename(tmp_path / ".".join(parts))
    runs, _ = discover(tmp_path)
    assert [Path(f).name.endswith(".10") for f in runs[0].files] == [False, True]
    assert series(curriwatch.load(tmp_path).frame, "a", "train", "reward") == [(5, 0.25)]


# ---- 10.7 define_metric and offline resumes ------------------------------------------------

def test_define_metric_step_axis_is_honoured(tmp_path):
    rows = [{"env_step": 1000 * (i + 1), "train/a/reward": i / 10} for i in range(4)]
    write_wandb(tmp_path, rows, define_metrics=(("env_step", None), ("train/*", "env_step")))
    ingest = curriwatch.load(tmp_path)
    assert series(ingest.frame, "a", "train", "reward") == [(1000 * (i + 1), i / 10) for i in range(4)]
    assert "env_step" not in ingest.runs[0].unclaimed_tags


def test_per_group_step_keys_are_axes_not_metrics(tmp_path):
    """TorchRL's WandbLogger (pytorch/rl, torchrl/record/loggers/wandb.py: per-group step injection) gives every
    metric group its own step key in the same row — `train/{game}/step` beside `train/{game}/reward` — and
    `define_metric(key, step_metric=that key)`. The generic profile's `train/{env}/{metric}` also matches the step
    key: it is the group's axis, not a metric `step` of the env (at W&B's row counter, it moved the run's first
    step to 0)."""
    rows = [{"train/coinrun/step": 4096 * (i + 1), "train/coinrun/reward": float(i)} for i in range(4)]
    write_wandb(tmp_path, rows, define_metrics=(("train/coinrun/step", None),
                                                ("train/coinrun/reward", "train/coinrun/step")))
    frame = curriwatch.load(tmp_path).frame
    assert set(frame.metric.astype(str)) == {"reward"}
    assert series(frame, "coinrun", "train", "reward") == [(4096 * (i + 1), float(i)) for i in range(4)]


@pytest.mark.parametrize("step_key", [None, "eval/global_step"])
def test_a_step_axis_that_never_advances_is_no_axis(tmp_path, step_key):
    """OpenRLHF's WandbLogger (OpenRLHF@3c3be62 openrlhf/utils/logging_utils.py:81-82, 105) defines `eval/*` on
    `eval/epoch` (step_sync) but logs `eval/global_step`, never `eval/epoch`: W&B fills the axis with 0 in every
    row, and all evals were one point at step 0 (combined as observations of one step, the envs `unknown`). The
    profile's step key steps them where it has one, else W&B's own row step — reported either way."""
    rows = [{"eval/global_step": 10 * (i + 1), "eval/gsm8k/reward": i / 10} for i in range(5)]
    write_wandb(tmp_path / "run", rows, define_metrics=(("eval/epoch", None), ("eval/*", "eval/epoch")))
    config = None
    if step_key:
        config = tmp_path / "curriwatch.yaml"
        config.write_text("profiles:\n  evals:\n    patterns:\n"
                          "      - {regex: '^eval/(?P<env>[a-z0-9]+)/(?P<metric>reward)$', split: eval}\n"
                          f"    performance_metric: reward\n    step_key: {step_key}\nprofile: evals\n")
    ingest = curriwatch.load(tmp_path / "run", config=str(config) if config else None)
    steps = [10 * (i + 1) for i in range(5)] if step_key else list(range(5))
    assert series(ingest.frame, "gsm8k", "eval", "reward") == [(s, i / 10) for i, s in enumerate(steps)]
    frozen = [i for i in ingest.runs[0].issues if i.kind == "frozen_step_axis"]
    assert len(frozen) == 1 and "eval/epoch holds one value (0) in all 5 rows" in frozen[0].detail, frozen
    assert (step_key or "W&B's _step") in frozen[0].detail


def test_offline_resume_with_one_run_id_is_one_run_with_duplicates(tmp_path):
    wandb_dir = tmp_path / "wandb"
    write_wandb(wandb_dir, [{"train/a/reward": 0.1} for _ in range(6)], steps=list(range(6)),
                run_id="res1", stamp="20260101_000000")
    write_wandb(wandb_dir, [{"train/a/reward": 0.9} for _ in range(4)], steps=list(range(4, 8)),
                run_id="res1", stamp="20260101_010000")
    ingest = curriwatch.load(tmp_path)
    assert [r.name for r in ingest.runs] == ["wandb/offline-run-20260101_000000-res1"]
    info = ingest.runs[0]
    assert len(info.members) == 2 and info.group
    assert series(ingest.frame, "a", "train", "reward") == [(s, 0.1 if s < 4 else 0.9) for s in range(8)]
    dup = [i for i in info.issues if i.kind == "duplicate_points"]
    assert len(dup) == 1 and dup[0].detail.startswith("2 point(s)")



def test_folders_of_one_run_id_join_the_group_one_of_them_records(tmp_path):
    """slime (THUDM/slime@624b824 slime/observability/wandb_utils.py:22-79, :123-176): the driver inits the run with
    its group and logs no row; the rollout manager and the actor log under the same id without a group. One run,
    named after the group, every point; no run of its own for the group's folder (was: `unknown`, no points)."""
    wandb_dir = tmp_path / "wandb"
    write_wandb(wandb_dir, [], run_id="sl1", group="grpo_x1", name="qwen-grpo", stamp="20260101_000000")
    write_wandb(wandb_dir, [{"eval/gsm8k/reward": 0.1 * k} for k in range(5)], steps=list(range(5)), run_id="sl1",
                stamp="20260101_000001")
    write_wandb(wandb_dir, [{"train/gsm8k/reward": 0.2 * k} for k in range(3)], steps=list(range(3)), run_id="sl1",
                stamp="20260101_000002")
    write_wandb(wandb_dir, [{"train/math/reward": 0.5}], steps=[0], run_id="other")  # another id: a run of its own
    ingest = curriwatch.load(tmp_path)
    assert sorted(r.name for r in ingest.runs) == ["wandb/grpo_x1", "wandb/offline-run-20260101_000000-other"]
    info = ingest.run("wandb/grpo_x1")
    assert len(info.members) == 3
    assert series(ingest.frame, "gsm8k", "eval", "reward", "wandb/grpo_x1") == [(k, pytest.approx(0.1 * k))
                                                                              for k in range(5)]
    assert series(ingest.frame, "gsm8k", "train", "reward", "wandb/grpo_x1") == [(k, pytest.approx(0.2 * k))
                                                                               for k in range(3)]
    report = curriwatch.analyze(ingest).to_dict()
    (run,) = [r for r in report["runs"] if r["run"] == "wandb/grpo_x1"]
    assert run["health_status"] != "unknown" and [e["env_id"] for e in run["environments"]] == ["gsm8k"], run


def test_run_env_is_searched_in_a_wandb_runs_folder_path_when_its_name_holds_none(tmp_path):
    """Stoix (EdanToledo/Stoix@8fff19c stoix/utils/logger.py:301-319) names each W&B run by a timestamp token; a sweep
    launched per env from `sweeps/{env}/` leaves the env in the folder's path alone."""
    config = tmp_path / "c.yaml"
    config.write_text("profiles:\n  stoix:\n    patterns:\n"
                      "      - {regex: '^evaluator/episode_return/mean$', env: '{run}', split: eval, metric: return}\n"
                      "    performance_metric: return\n    run_env: 'sweeps/(?P<env>[^/]+)/wandb/'\n")
    for env, token in (("CartPole-v1", "20250912034912"), ("Acrobot-v1", "20250912041002")):
        write_wandb(tmp_path / "sweeps" / env / "wandb", [{"evaluator/episode_return/mean": 10.0 * k} for k in range(4)],
                    steps=[1000 * k for k in range(4)], run_id=token[-8:], name=token)
    ingest = curriwatch.load(tmp_path, config=str(config))
    assert sorted(ingest.frame.env_id.unique()) == ["Acrobot-v1", "CartPole-v1"]
    # a run_env the name matches still wins over the path: BenchMARL's W&B name holds its experiment
    config.write_text(config.read_text().replace("sweeps/(?P<env>[^/]+)/wandb/", "^(?P<env>2025\\d{4})"))
    ingest = curriwatch.load(tmp_path, config=str(config))
    assert sorted(ingest.frame.env_id.unique()) == ["20250912"]


# ---- 11.1 run groups ----------------------------------------------------------------------

def test_marin_rollout_workers_are_one_experiment(tmp_path):
    wandb_dir = tmp_path / "exp" / "wandb"
    w0 = marin_rows([(1, 0.5, 16), (2, 0.6, 16)])
    w0.append({"inference.train_step": 2, "inference.eval/add/success_rate": 0.7,
               "inference.eval/add/total_count": 64})
    write_wandb(wandb_dir, w0, run_id="exp7-rollout-0")
    write_wandb(wandb_dir, marin_rows([(1, 1.0, 48), (3, 0.9, 16)]), run_id="exp7-rollout-1")
    write_wandb(tmp_path / "solo" / "wandb", marin_rows([(1, 0.3, 8)]), run_id="other")
    ingest = curriwatch.load(tmp_path)
    names = sorted(r.name for r in ingest.runs)
    assert names == ["exp/wandb/exp7", "solo/wandb/offline-run-20260101_000000-other"]
    info = ingest.run("exp/wandb/exp7")
    assert [m.run_id for m in info.members] == ["exp7-rollout-0", "exp7-rollout-1"]
    assert all(Path(m.files[0]).is_file() for m in info.members)
    frame = ingest.frame
    assert series(frame, "add", "train", "success_rate", "exp/wandb/exp7") == [
        (1, (0.5 * 16 + 1.0 * 48) / 64), (2, 0.6), (3, 0.9)]
    assert series(frame, "add", "eval", "success_rate", "exp/wandb/exp7") == [(2, 0.7)]
    assert not [i for i in info.issues if i.kind == "duplicate_points"]


def test_seeds_of_one_config_in_one_wandb_group_are_runs_of_their_own(tmp_path):
    """TD-MPC2 names each seed's W&B run by its seed in the group `{task}-{exp_name}`: two seeds log the same
    tasks at the same steps (here under generic keys). Read as one run their points were averaged and seed 2's fall from 0.9 to 0.3 showed
    as a fall to 0.6; they are read as two runs (a `replica_runs` data issue on each says why), every point kept,
    and the fall is its seed's alone. Members logging envs of their own (Atropos) stay one run, as below."""
    for seed in (1, 2):
        rows = [{"eval/mw-door/success": min(0.9, 0.1 + 0.1 * i) if seed == 1 or i < 30 else 0.3,
                 "eval/mw-drawer/success": min(0.9, 0.05 * i)} for i in range(60)]
        write_wandb(tmp_path / "wandb", rows, steps=[1000 * i for i in range(60)], run_id=f"s{seed}x", name=str(seed),
                    group="mt80-default")
    ingest = curriwatch.load(tmp_path)
    assert len(ingest.runs) == 2 and all(r.group is None for r in ingest.runs), [r.name for r in ingest.runs]
    assert all([i.kind for i in r.issues].count("replica_runs") == 1 for r in ingest.runs)
    frame = ingest.frame
    assert len(frame) == 2 * 2 * 60 and set(frame.env_id) == {"mw-door", "mw-drawer"}
    door = {r.name: frame[(frame.run == r.name) & (frame.env_id == "mw-door")].value.tolist() for r in ingest.runs}
    assert sorted(d[-1] for d in door.values()) == [0.3, 0.9]
    # a third seed that stopped before its second task unlocked is a replica too; runs sharing out the envs (one in
    # common of three) are parts of one experiment
    write_wandb(tmp_path / "wandb", [{"eval/mw-door/success": 0.5}], steps=[1000], run_id="s3x", group="mt80-default")
    assert len(curriwatch.load(tmp_path).runs) == 3
    for k, envs in (("p1", ("a", "b", "c")), ("p2", ("c", "d", "e"))):
        write_wandb(tmp_path / "parts" / "wandb", [{f"train/{e}/success": 0.5 for e in envs}], steps=[1], run_id=k,
                    group="exp")
    assert [len(r.members) for r in curriwatch.load(tmp_path / "parts").runs] == [2]
    # Marin's rollout workers log the same lessons too, but are one run's observations, group or none
    for k in (0, 1):
        write_wandb(tmp_path / "marin" / "wandb", [{"train/add/success_rate": 0.5}], steps=[1],
                    run_id=f"exp9-rollout-{k}", group="exp9")
    marin = curriwatch.load(tmp_path / "marin")
    assert [len(r.members) for r in marin.runs] == [2] and not marin.runs[0].issues, marin.runs


def test_wandb_group_and_group_pattern(tmp_path):
    for env in ("gsm8k", "math"):
        write_wandb(tmp_path / "w", [{f"{env}_0_train/percent_correct": 0.5}], steps=[1],
                    run_id=f"{env}id", group="atropos-exp")
    write_tb(tmp_path / "sweep" / "seed1", {"train/a/reward": [(1, 0.1)]})
    write_tb(tmp_path / "sweep" / "seed2", {"train/b/reward": [(1, 0.2)]})
    ingest = curriwatch.load(tmp_path, group=r"^(?P<group>sweep)/seed\d+$")
    names = sorted(r.name for r in ingest.runs)
    assert names == ["sweep", "w/atropos-exp"]
    assert sorted(set(ingest.frame[ingest.frame.run == "w/atropos-exp"].env_id)) == ["gsm8k", "math"]
    assert sorted(set(ingest.frame[ingest.frame.run == "sweep"].env_id)) == ["a", "b"]
    single = curriwatch.load(tmp_path / "sweep")
    assert sorted(r.name for r in single.runs) == ["seed1", "seed2"]


# ---- 11.2 / 11.3 framework details ------------------------------------------------------

def test_marin_tables_micro_eval_steps_and_wandb_columns(tmp_path):
    import wandb

    table = wandb.Table(columns=["prompt", "reward"], data=[["1+1", 1.0]])
    rows = marin_rows([(4, 0.5, 16)])
    rows.append({"inference.micro_eval/add/success_rate": 0.55, "inference.micro_eval/add/sample_table": table})
    rows.append({"inference.train_step": 9, "inference.eval/add/success_rate": 0.6,
                 "inference.eval/add/sample_table": table})
    write_wandb(tmp_path, rows)
    ingest = curriwatch.load(tmp_path)
    info, frame = ingest.runs[0], ingest.frame
    assert set(frame.metric) == {"success_rate", "total_count"}
    assert series(frame, "add", "micro_eval", "success_rate") == [(4, 0.55)]  # last step seen
    assert not [t for t in info.unclaimed_tags if t.startswith("_") or "sample_table" in t]
    assert not [i for i in info.issues if i.kind == "missing_step_key"]


def test_atropos_process_mode_and_level_curriculum(tmp_path):
    # base.py:1270-1279: process mode names the run f"{self.name}-{date}-{random_id}", no key prefix
    rows = [{"train/percent_correct": 0.2 + i / 10, "train/level_1_correct": 0.5, "train/level_1_count": 8,
             "curriculum/current_level": 1 + (i > 2), "train/completion_lengths": 100.0} for i in range(5)]
    rows.append({"eval/percent_correct": 0.7})
    write_wandb(tmp_path, rows, steps=list(range(6)), name="gsm8k-2026-01-01-abcdef", run_id="proc1")
    ingest = curriwatch.load(tmp_path)
    info, frame = ingest.runs[0], ingest.frame
    assert info.profile == "atropos"
    assert series(frame, "gsm8k", "eval", "percent_correct") == [(5, 0.7)]
    assert len(series(frame, "gsm8k", "train", "percent_correct")) == 5
    assert series(frame, "gsm8k", "train", "curriculum/current_level")[-1] == (4, 2.0)
    assert frame[(frame.env_id == "gsm8k/level_1") & (frame.metric == "percent_correct")]["count"].tolist() == [8.0] * 5
    assert info.unclaimed_tags == ["train/completion_lengths"]
    # levels are a curriculum inside the env: level 1 active while current, graduated after
    assert series(frame, "gsm8k/level_1", "state", "state") == [(0, 1.0), (1, 1.0), (2, 1.0), (3, 2.0), (4, 2.0)]


def test_an_env_named_like_a_level_with_a_non_decimal_digit_is_read(tmp_path):
    # `²` is a digit to str.isdigit but no number to int(): an env `x/level_²` beside env `x` made the
    # whole run unreadable ("invalid literal for int()"); it is an env of its own, not a level of `x`
    rows = [{"x_0_train/percent_correct": 0.5, "x_0_curriculum/current_level": 1, "x/level_²_0_train/percent_correct": 0.4,
             "x_0_train/level_1_correct": 0.3} for _ in range(5)]
    write_wandb(tmp_path, rows, steps=list(range(5)))
    report = curriwatch.analyze(curriwatch.load(tmp_path))
    (run,) = report.runs
    assert sorted(e.env_id for e in run.environments) == ["x/level_1", "x/level_²"]
    assert [i.detail.split(" holds")[0] for i in run.data_issues if i.kind == "level_holder"] == ["env 'x'"]


def test_atropos_prefixed_scheduler_keys(tmp_path):
    keys = ["current_level", "items_tracked", "mean_difficulty", "min_difficulty", "max_difficulty",
            "total_updates", "bin_0_count", "bin_7_count"]
    rows = [{**{f"math_1_curriculum/{k}": float(i) for k in keys}, "math_1_train/percent_correct": 0.5,
             "math_1_train/level_3_correct": 0.25} for i in range(3)]
    write_wandb(tmp_path, rows, steps=[10, 20, 30])
    ingest = curriwatch.load(tmp_path)
    frame = ingest.frame
    assert ingest.runs[0].unclaimed_tags == []
    assert set(frame.env_id) == {"math", "math/level_3"}
    assert {f"curriculum/{k}" for k in keys} <= set(frame[frame.env_id == "math"].metric)


def test_tinker_env_all_is_an_aggregate_not_an_env(tmp_path):
    series_in = {f"env/{tag}/{k}": [(s, 0.5) for s in range(3)] for tag in ("maze", "all") for k in ("success", "num_actions")}
    series_in["val/env/all/success"] = [(2, 0.5)]
    write_tb(tmp_path, series_in)
    ingest = curriwatch.load(tmp_path)
    assert set(ingest.frame.env_id) == {"maze"}
    assert ingest.runs[0].unclaimed_tags == []


def test_profile_detection_stays_linear_in_tags():
    from curriwatch.profiles import BUILTIN_PROFILES, detect_profile

    tags = [f"inference.rollout/lesson{i}/success_rate" for i in range(20000)]
    profile, counts = detect_profile(tags, BUILTIN_PROFILES)
    assert profile.name == "marin" and counts["marin"] == 20000
    assert np.isfinite(counts["atropos"])
