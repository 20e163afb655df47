"""d3rlpy's FileAdapter folders (`d3rlpy_logs/{experiment}_{timestamp}/{metric}.csv` of `epoch,step,value` lines):
files d3rlpy itself wrote (tests/fixtures/d3rlpy/make_d3rlpy_logs.py), read by the `d3rlpy` reader and profile."""
from __future__ import annotations

import shutil
from pathlib import Path

import curriwatch
from curriwatch.discover import discover
from curriwatch.readers import read_run

FIXTURES = Path(__file__).parent / "fixtures" / "d3rlpy" / "d3rlpy_logs"


def _experiment(prefix: str) -> Path:
    (folder,) = FIXTURES.glob(prefix + "_*")
    return folder


def _oracle(path: Path) -> list[tuple[int, float]]:
    rows = [line.split(",") for line in path.read_text().splitlines()]
    return [(int(r[1]), float(r[2])) for r in rows]


def _points(raw, tag: str) -> list[tuple[int, float]]:
    code = raw.tags.index(tag)
    return sorted((s, v) for c, s, v in zip(raw.tag_code, raw.step, raw.value) if c == code)


def test_every_file_d3rlpy_wrote_is_read_exactly():
    ingest = curriwatch.load(FIXTURES)
    assert sorted((r.source, r.profile, tuple(r.envs)) for r in ingest.runs) == [
        ("d3rlpy", "d3rlpy", ("DQN_online",)), ("d3rlpy", "d3rlpy", ("hopper-medium-v2",)),
        ("d3rlpy", "d3rlpy", ("walker2d-medium-v2",))]
    assert [i.kind for i in ingest.all_issues if i.kind != "unclaimed_tags"] == []
    sources, issues = discover(FIXTURES)
    assert issues == [] and len(sources) == 3
    for source in sources:
        raw, folder = read_run(source), Path(source.path)
        assert not raw.issues and all(f.endswith(".csv") for f in source.files)  # model_*.d3, params.json unread
        for csv in folder.glob("*.csv"):
            if csv.name.endswith("_grad.csv"):
                header, *lines = csv.read_text().splitlines()
                assert header == "epoch,step,min,max,mean,std"
                want = [(int(r.split(",")[1]), float(r.split(",")[4])) for r in lines]
                assert _points(raw, f"{csv.stem}/mean") == want, csv
            else:
                assert _points(raw, csv.stem) == _oracle(csv), csv


def test_the_evaluators_scores_are_judged_and_a_collapse_is_reported():
    hopper, walker = _experiment("BC_hopper-medium-v2_1"), _experiment("BC_walker2d-medium-v2_1")
    frame = curriwatch.load(FIXTURES).frame
    for folder, env in ((hopper, "hopper-medium-v2"), (walker, "walker2d-medium-v2")):
        evals = frame[(frame.env_id == env) & (frame.metric == "return")]
        assert set(evals.split) == {"eval"}
        assert list(zip(evals.step.astype(int), evals.value)) == _oracle(folder / "environment.csv")
    report = curriwatch.analyze(curriwatch.load(FIXTURES)).to_dict()
    runs = {r["environments"][0]["env_id"]: r for r in report["runs"]}
    assert [(w["type"], w["severity"]) for w in runs["walker2d-medium-v2"]["warnings"]] == [
        ("graduated_regression", "critical")]
    assert runs["walker2d-medium-v2"]["warnings"][0]["first_step"] in range(100 * 20, 104 * 20 + 1)
    assert runs["hopper-medium-v2"]["warnings"] == [] and runs["hopper-medium-v2"]["health_status"] == "healthy"
    online = frame[frame.env_id == "DQN_online"]
    assert sorted(set(zip(online.split, online.metric))) == [("eval", "return"), ("train", "return")]


def test_a_damaged_line_is_reported_and_the_rest_is_kept(tmp_path):
    folder = tmp_path / "d3rlpy_logs" / _experiment("BC_walker2d-medium-v2_1").name
    shutil.copytree(_experiment("BC_walker2d-medium-v2_1"), folder)
    lines = (folder / "environment.csv").read_text().splitlines(keepends=True)
    (folder / "environment.csv").write_text("".join(lines[:50] + ["51,1020,\x00\x00garbage\n", "52,oops\n"]
                                                    + lines[50:]))
    ingest = curriwatch.load(tmp_path)
    evals = ingest.frame[ingest.frame.metric == "return"]
    assert len(evals) == len(lines) == 150
    issues = [i for r in ingest.runs for i in r.issues] + list(ingest.issues)
    assert any("environment.csv" in i.detail or "environment.csv" in getattr(i, "path", "") for i in issues), issues


def test_a_folder_with_params_json_and_other_csvs_is_not_d3rlpy(tmp_path):
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "params.json").write_text("{}")
    (folder / "metrics.csv").write_text("step,train/maze/reward\n1,0.5\n")
    ingest = curriwatch.load(tmp_path)
    assert all(r.source != "d3rlpy" for r in ingest.runs)


def test_a_dataset_id_holding_slashes_names_the_env_whole(tmp_path):
    """iql_finetune.py names its experiment `IQL_pretraining_D4RL/antmaze/umaze-v1_{seed}`: FileAdapter's
    os.path.join makes folders of the `/`, below its `d3rlpy_logs` root (logging/file_adapter.py:135-145). The env is
    the dataset all the same."""
    nested = tmp_path / "d3rlpy_logs" / "IQL_pretraining_D4RL" / "antmaze" / "umaze-v1_1_20261129014834"
    shutil.copytree(_experiment("BC_hopper-medium-v2_1"), nested)
    ingest = curriwatch.load(tmp_path)
    (run,) = ingest.runs
    assert (run.profile, run.envs) == ("d3rlpy", ["D4RL/antmaze/umaze-v1"])
