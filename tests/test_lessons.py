"""Lesson curricula (ML-Agents `Environment/Lesson Number/{param}`): timelines, time per lesson,
falls back, reward after an advance, unknown without reward, every report format.

Inputs are written the way ML-Agents writes them: tests/writers.py MLAgentsRun reproduces its
StatsReporter + TensorboardWriter calls (file:line of mlagents 0.28.0 in its docstring), including
the results/{run_id}/{behavior}/ layout, the Cumulative Reward histogram and the hyperparameter text.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
from typer.testing import CliRunner

import curriwatch
from curriwatch.cli import app
from writers import MLAgentsRun, write_wandb

runner = CliRunner()
FREQ = 10_000  # summary_freq


def write_lessons(root, lessons: list[tuple[int, dict[str, int]]], reward, *, last: int = 600_000,
                  behaviors=("BigWallJump",), run_id: str = "wall_jump", seed: int = 0, episodes: int = 8):
    """One ML-Agents run: `lessons` is [(from_step, {param: lesson})]; `reward(step, behavior)` the
    mean episode return (None: no episode finished in that summary period)."""
    rng = np.random.default_rng(seed)
    run = MLAgentsRun(root / "results", run_id, behaviors)
    for step in range(FREQ, last + 1, FREQ):
        now = [ls for s, ls in lessons if s <= step][-1]
        eps = {}
        for b in behaviors:
            mu = reward(step - FREQ // 2, b)
            eps[b] = [] if mu is None else list(np.clip(rng.normal(mu, 0.05, episodes), -1, 1))
        run.summary(step, now, eps)
    run.close()
    return root / "results"


def lesson_curve(changes: list[int], dip: float = 0.4, tau: float = 15_000, collapse_at: int | None = None):
    """Learn lesson 0 from -0.5 to 0.9; each advance costs `dip` that recovers with time constant
    `tau`; from `collapse_at` the reward is -0.6 for good."""
    def reward(step, _behavior=None):
        if collapse_at is not None and step >= collapse_at:
            return -0.6
        since = max([c for c in changes if c <= step], default=0)
        t = step - since
        if since == 0:
            return -0.5 + 1.4 * (1 - math.exp(-t / 40_000))
        return 0.9 - dip * math.exp(-t / tau)
    return reward


def analyse(path, config=None):
    return curriwatch.analyze(curriwatch.load(path, config=curriwatch.load_config(config)))


def env_of(report, run: str, env: str):
    (r,) = [r for r in report.runs if r.run == run]
    (e,) = [e for e in r.environments if e.env_id == env]
    return r, e


def test_folder_layout_lesson_timeline_and_time_per_lesson(tmp_path):
    """The behavior folders of results/{run_id} are one run whose envs are the behaviors (one
    mlagents-learn process trains them all); every parameter's lesson is logged into every behavior's
    folder (TrainerController.advance loops over all trainers)."""
    lessons = [(0, {"big_wall_height": 0, "small_wall_height": 0}),
               (150_000, {"big_wall_height": 1, "small_wall_height": 0}),
               (200_000, {"big_wall_height": 1, "small_wall_height": 1}),
               (350_000, {"big_wall_height": 2, "small_wall_height": 1})]
    curve = lesson_curve([150_000, 200_000, 350_000], dip=0.7)
    results = write_lessons(tmp_path, lessons, lambda s, b: curve(s), last=500_000,
                            behaviors=("BigWallJump", "SmallWallJump"))
    assert sorted(p.name for p in (results / "wall_jump").iterdir()) == ["BigWallJump", "SmallWallJump"]
    ingest = curriwatch.load(tmp_path)
    assert sorted((r.name, r.profile, tuple(r.envs)) for r in ingest.runs) == [
        ("results/wall_jump", "mlagents", ("BigWallJump", "SmallWallJump"))]
    assert ingest.runs[0].group.startswith("ML-Agents run wall_jump")
    (alone,) = curriwatch.load(results / "wall_jump" / "SmallWallJump").runs  # pointed at the behavior folder itself
    assert alone.envs == ["SmallWallJump"]
    frame = ingest.frame
    assert not frame.metric.astype(str).str.contains("_hist|Hyperparameters|Is Training").any()
    report = curriwatch.analyze(ingest)
    run, env = env_of(report, "results/wall_jump", "BigWallJump")
    big, small = env.lessons
    assert (big.parameter, big.metric) == ("big_wall_height", "Lesson Number/big_wall_height")
    assert [(s.lesson, s.start_step, s.end_step) for s in big.spans] == [
        (0, 10_000, 150_000), (1, 150_000, 350_000), (2, 350_000, 500_000)]
    assert [(s.lesson, s.start_step, s.end_step) for s in small.spans] == [(0, 10_000, 200_000), (1, 200_000, 500_000)]
    assert big.time_in_lesson() == [(0, 140_000, 1), (1, 200_000, 1), (2, 150_000, 1)]
    assert (big.current_lesson, big.highest_lesson, small.current_lesson) == (2, 2, 1)
    # a lesson env is active throughout, one active stretch per lesson stage; it never "graduates"
    assert [(iv.state, iv.start_step) for e, iv in run.timeline if e == "BigWallJump"] == [
        ("active", 10_000), ("active", 150_000), ("active", 200_000), ("active", 350_000)]
    assert env.current_state == "active" and env.graduation_step is None
    assert env.time_in_current_state == 150_000
    assert run.state_sources == {"lessons"}
    assert [a.verdict for a in big.advances] == ["recovered", "recovered"]
    assert env.health_status == "healthy" and not run.warnings, run.warnings


def test_fall_back_to_an_earlier_lesson_is_a_lesson_regression(tmp_path):
    """A --resume whose run_logs/training_status.json is gone logs lesson 0 again mid-run."""
    lessons = [(0, {"difficulty": 0, "gap": 0}), (100_000, {"difficulty": 1, "gap": 0}),
               (200_000, {"difficulty": 2, "gap": 1}), (300_000, {"difficulty": 0, "gap": 0}),
               (340_000, {"difficulty": 1, "gap": 1}), (380_000, {"difficulty": 2, "gap": 1})]
    curve = lesson_curve([100_000, 200_000])
    write_lessons(tmp_path / "a", lessons, lambda s, b: curve(min(s, 299_000)), last=500_000)
    report = analyse(tmp_path / "a")
    run, env = env_of(report, "results/wall_jump/BigWallJump", "BigWallJump")
    (w,) = [w for w in run.warnings if w.type == "lesson_regression"]
    assert (w.severity, w.first_step, w.last_step, w.resolved) == ("warning", 300_000, 380_000, True)
    # every parameter fell back at once (the resume resets them all): one incident
    assert w.evidence["fallbacks"] == [
        {"parameter": "difficulty", "from_lesson": 2, "to_lesson": 0, "regained_at_step": 380_000},
        {"parameter": "gap", "from_lesson": 1, "to_lesson": 0, "regained_at_step": 340_000}]
    assert "difficulty from 2 to 0 (lesson 2 again at step 380000); gap from 1 to 0" in w.message
    assert "training_status.json" in w.evidence["note"]
    (fb,) = env.lessons[0].fallbacks()
    assert [t.parameter for t in env.lessons] == ["difficulty", "gap"]
    assert (fb.step, fb.from_lesson, fb.to_lesson, fb.regained_at_step) == (300_000, 2, 0, 380_000)
    assert env.lessons[0].time_in_lesson()[0] == (0, 90_000 + 40_000, 2)
    # never regained: open until the end of the run
    write_lessons(tmp_path / "b", lessons[:4], lambda s, b: curve(min(s, 299_000)), last=500_000)
    run, env = env_of(analyse(tmp_path / "b"), "results/wall_jump/BigWallJump", "BigWallJump")
    (w,) = [w for w in run.warnings if w.type == "lesson_regression"]
    assert (w.first_step, w.last_step, w.resolved) == (300_000, 500_000, False)
    assert env.health_status == "warning" and "still at lesson 0" in w.message


def test_reward_collapse_after_an_advance(tmp_path):
    lessons = [(0, {"big_wall_height": 0}), (200_000, {"big_wall_height": 1}), (400_000, {"big_wall_height": 2})]
    write_lessons(tmp_path, lessons, lambda s, b: lesson_curve([200_000, 400_000], collapse_at=400_000)(s),
                  last=1_000_000)
    report = analyse(tmp_path)
    run, env = env_of(report, "results/wall_jump/BigWallJump", "BigWallJump")
    (w,) = [w for w in run.warnings if w.type == "lesson_reward_collapse"]
    assert w.severity == "critical" and not w.resolved and env.health_status == "critical"
    assert w.first_step == 410_000 and w.last_step == 1_000_000  # the first summary of lesson 2
    ev = w.evidence
    assert (ev["from_lesson"], ev["to_lesson"], ev["advance_step"]) == (1, 2, 400_000)
    assert ev["window_steps"] == 2 * (400_000 - 200_000) and ev["detected_at_step"] == 800_000
    assert 0.85 < ev["held_reward"] < 0.95 and ev["reward_at_window_end"] < -0.5 and ev["kept_at_window_end"] < 0
    assert ev["start_reward"] < -0.3  # where the env began: the gain is what it had learned
    assert [a.verdict for a in env.lessons[0].advances] == ["recovered", "collapsed"]
    assert "from lesson 1 to 2 at step 400000" in w.message and "not recovered" in w.message
    # the same run cut before the recovery window ends: not judged yet
    write_lessons(tmp_path / "short", lessons, lambda s, b: lesson_curve([200_000, 400_000], collapse_at=400_000)(s),
                  last=700_000)
    run, env = env_of(analyse(tmp_path / "short"), "results/wall_jump/BigWallJump", "BigWallJump")
    assert not [w for w in run.warnings if w.type == "lesson_reward_collapse"]
    assert env.lessons[0].advances[-1].verdict == "pending"


def test_partial_recovery_is_a_warning_and_a_late_recovery_resolves_it(tmp_path):
    lessons = [(0, {"p": 0}), (200_000, {"p": 1})]
    def reward(step, _b):
        if step < 200_000:
            return lesson_curve([])(step)
        return 0.55 if step < 800_000 else 0.9  # stuck well below the held level, then back

    write_lessons(tmp_path, lessons, reward, last=1_000_000)
    run, env = env_of(analyse(tmp_path), "results/wall_jump/BigWallJump", "BigWallJump")
    (w,) = [w for w in run.warnings if w.type == "lesson_reward_collapse"]
    assert w.severity == "warning" and w.resolved and w.last_step == 820_000
    assert 0.70 <= w.evidence["kept_at_window_end"] < 0.85


def test_a_normal_dip_that_recovers_is_silent(tmp_path):
    """A harder lesson costs reward for a while: a dip to near the start level that comes back
    within the window, in several advances, never fires."""
    changes = [150_000, 250_000, 350_000]
    lessons = [(0, {"h": 0})] + [(c, {"h": i + 1}) for i, c in enumerate(changes)]
    write_lessons(tmp_path, lessons, lambda s, b: lesson_curve(changes, dip=1.2, tau=20_000)(s), last=600_000)
    run, env = env_of(analyse(tmp_path), "results/wall_jump/BigWallJump", "BigWallJump")
    assert not run.warnings, run.warnings
    advances = env.lessons[0].advances
    assert [a.verdict for a in advances] == ["recovered"] * 3
    assert all(a.lowest_reward < 0 < a.held_reward and a.recovered_at_step < a.step + a.window_steps
               for a in advances)
    assert env.health_status == "healthy"


def test_lessons_without_reward_are_unknown_with_a_reason(tmp_path):
    """No episode ever finished (ML-Agents then writes no Cumulative Reward): the lessons are
    read, but nothing can be judged."""
    lessons = [(0, {"big_wall_height": 0}), (50_000, {"big_wall_height": 1})]
    write_lessons(tmp_path, lessons, lambda s, b: None, last=100_000)
    report = analyse(tmp_path)
    run, env = env_of(report, "results/wall_jump/BigWallJump", "BigWallJump")
    assert env.health_status == "unknown" and run.health_status == "unknown"
    assert "no points of the performance metric 'Cumulative Reward'" in env.status_reason
    assert "lessons Lesson Number/big_wall_height" in env.status_reason
    assert [(s.lesson, s.start_step) for s in env.lessons[0].spans] == [(0, 10_000), (1, 50_000)]
    assert env.lessons[0].advances[0].verdict == "not_judged"
    result = runner.invoke(app, ["scan", str(tmp_path)], env={"NO_COLOR": "1", "COLUMNS": "80"})
    assert result.exit_code == 1 and "could not be judged" in result.stderr


def test_lesson_values_that_are_not_lesson_indexes(tmp_path):
    from writers import MLAgentsStats

    stats = MLAgentsStats(tmp_path / "results", "odd")
    for i, step in enumerate(range(10_000, 300_001, 10_000)):
        stats.add_stat("Walker", "Environment/Cumulative Reward", 0.5 + 0.001 * i, "histogram")
        stats.set_stat("Walker", "Environment/Lesson Number/speed", [0.5, -1.0, float("nan")][i % 3])
        stats.write_stats("Walker", step)
    stats.close()
    run, env = env_of(analyse(tmp_path), "results/odd/Walker", "Walker")
    (track,) = env.lessons
    assert track.spans == () and track.invalid_points == 30
    assert env.health_status == "unknown" and "hold no lesson index" in env.status_reason


def test_user_profile_lessons_with_env_from_the_run_folder_or_fixed(tmp_path):
    from writers import write_tb

    lessons = [(s, float(s >= 2000)) for s in range(0, 4000, 100)]
    reward = [(s, 0.2 + 0.7 * min(1.0, s / 1500) if s < 2000 else 0.6 + 0.3 * min(1.0, (s - 2000) / 500))
              for s in range(0, 4000, 100)]
    write_tb(tmp_path / "runs" / "maze_curriculum", {"stage/level": lessons, "perf/return": reward})
    for env_id, expected in (("{run}", "maze_curriculum"), ("Maze", "Maze")):
        cfg = tmp_path / f"cw-{expected}.yaml"
        cfg.write_text("profiles:\n  mylab:\n    patterns:\n"
                       f"      - {{regex: '^stage/(?P<metric>level)$', env: '{env_id}', split: state}}\n"
                       f"      - {{regex: '^perf/(?P<metric>return)$', env: '{env_id}', split: train}}\n"
                       "    performance_metric: return\n")
        report = analyse(tmp_path / "runs", cfg)
        run, env = env_of(report, "maze_curriculum", expected)
        assert run.profile == "mylab"
        assert [(t.parameter, [(s.lesson, s.start_step) for s in t.spans]) for t in env.lessons] == [
            ("level", [(0, 0), (1, 2000)])]
        assert env.lessons[0].advances[0].verdict in ("held", "recovered") and not run.warnings


@pytest.fixture(scope="module")
def collapse_logdir(tmp_path_factory):
    root = tmp_path_factory.mktemp("lessons")
    lessons = [(0, {"big_wall_height": 0}), (200_000, {"big_wall_height": 1}), (400_000, {"big_wall_height": 2}),
               (600_000, {"big_wall_height": 0})]
    write_lessons(root, lessons, lambda s, b: lesson_curve([200_000, 400_000], collapse_at=400_000)(s),
                  last=1_000_000, run_id="esc|<b>\x1b[31m")
    return root


def test_lessons_in_json_validated_by_the_schema_and_saved_results(collapse_logdir):
    import jsonschema

    result = runner.invoke(app, ["scan", str(collapse_logdir), "--fail-on", "never"], env={"NO_COLOR": "1"})
    assert result.exit_code == 0, result.output
    doc = json.loads(runner.invoke(app, ["report", "--format", "json", "--fail-on", "never"]).stdout)  # saved
    fresh = json.loads(runner.invoke(app, ["report", str(collapse_logdir), "-f", "json", "--fail-on", "never"]).stdout)
    assert doc == fresh
    jsonschema.validate(doc, json.loads(runner.invoke(app, ["schema"]).stdout))
    (env,) = doc["runs"][0]["environments"]
    (track,) = env["lessons"]
    assert track["timeline"] == [{"lesson": 0, "start_step": 10_000, "end_step": 200_000},
                                 {"lesson": 1, "start_step": 200_000, "end_step": 400_000},
                                 {"lesson": 2, "start_step": 400_000, "end_step": 600_000},
                                 {"lesson": 0, "start_step": 600_000, "end_step": 1_000_000}]
    assert track["time_in_lesson"][0] == {"lesson": 0, "steps": 190_000 + 400_000, "visits": 2}
    assert [a["verdict"] for a in track["advances"]] == ["recovered", "interrupted"]
    assert track["fallbacks"] == [{"step": 600_000, "from_lesson": 2, "to_lesson": 0, "regained_at_step": None}]
    types = {w["type"] for w in doc["runs"][0]["warnings"]}
    assert "lesson_regression" in types and "lesson_reward_collapse" not in types  # the fall back came first
    bad = json.loads(json.dumps(doc))
    bad["runs"][0]["environments"][0]["lessons"][0]["advances"][0]["verdict"] = "fine"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, json.loads(runner.invoke(app, ["schema"]).stdout))
    # an env without lessons has no `lessons` key at all (schema_version 1 unchanged for it)
    assert all("lessons" not in e for r in fresh["runs"] for e in r["environments"] if e["env_id"] != "BigWallJump")


def test_lessons_in_terminal_markdown_and_html(collapse_logdir, tmp_path):
    term = runner.invoke(app, ["report", str(collapse_logdir), "--fail-on", "never"],
                         env={"NO_COLOR": "1", "COLUMNS": "80"}).stdout
    assert "\x1b" not in term and "esc|<b>\\x1b[31m" in term
    assert all(len(line) <= 80 for line in term.splitlines())
    block = term[term.index("\nlessons\n"):]
    assert "BigWallJump · big_wall_height · now lesson 0, highest 2" in block
    assert "▲ fell back from lesson 2" in block and "advance from 0: dipped, recovered" in block
    md = runner.invoke(app, ["report", str(collapse_logdir), "-f", "markdown", "--fail-on", "never"]).stdout
    assert "**Lessons**" in md and "| BigWallJump | big\\_wall\\_height | 2 | 400000..600000 |" in md
    assert "🟡 fell back from lesson 2" in md and "esc\\|&lt;b&gt;" in md
    out = tmp_path / "r.html"
    runner.invoke(app, ["report", str(collapse_logdir), "-f", "html", "-o", str(out), "--fail-on", "never"])
    page = out.read_text()
    assert '<table class="lessons">' in page and "esc|<b>" not in page
    assert "esc|&lt;b&gt;\\x1b[31m" in page and "<td>big_wall_height</td><td>0</td><td>600000..1000000 (now)</td>" in page


def _infinimath_rows(rng, overall: bool = True, levels: int = 5, climb: int = 40, tail: int = 0,
                     max_level: int | None = None) -> tuple[list[dict], list[int]]:
    """A level curriculum as Atropos' infinimath logs it per wandb_log (environments/infinimath/
    infinimath_env.py): `train/percent_correct` over the batch (:211-213, whatever level it trained),
    `train/level_{L}_correct|count` of the levels in the batch (:217-221), `curriculum/current_level`
    (:228) and, every 10th step, `eval/level_{L}_accuracy` of the current level (:405). Each level is
    learned from 0.2 to 0.9 over `climb` steps, held, and left for the next after 60 steps; the last one
    is trained `tail` steps longer. `max_level`: `curriculum/max_level` (:229), logged when given."""
    rows, steps = [], []
    level, since = 1, 0
    for step in range(levels * 60 + tail):
        p = 0.2 + 0.7 * min(since / climb, 1.0)
        correct = rng.binomial(64, p) / 64
        row = {f"train/level_{level}_correct": correct, f"train/level_{level}_count": 64,
               "curriculum/current_level": level}
        if overall:
            row["train/percent_correct"] = correct
        if max_level is not None:
            row["curriculum/max_level"] = max_level
        if step % 10 == 9:
            row[f"eval/level_{level}_accuracy"] = rng.binomial(100, p) / 100
        rows.append(row)
        steps.append(step)
        since += 1
        if since == 60 and level < levels:
            level, since = level + 1, 0
    return rows, steps


@pytest.mark.parametrize("overall", [True, False])
def test_an_env_holding_levels_is_judged_through_its_levels(tmp_path, overall):
    # the env's own percent_correct falls at every advance (a new level starts low): by design, not a
    # regression or a swing; without it the env logs only curriculum keys, and is no unknown env either
    rows, steps = _infinimath_rows(np.random.default_rng(3), overall)
    write_wandb(tmp_path, rows, steps=steps, name="infinimath-2026-01-01-abc123", run_id="lv1")
    report = curriwatch.analyze(curriwatch.load(tmp_path))
    (run,) = report.runs
    # evals follow the current level (infinimath_env.py:405): a passed level is no longer evaluated, the
    # blind spot eval_gap reports (info: it was active at its last eval) — nothing else fires
    assert {(w.type, w.severity) for w in run.warnings} == {("eval_gap", "info")}
    assert sorted(w.env_id for w in run.warnings) == ["infinimath/level_1", "infinimath/level_2"]
    assert sorted(e.env_id for e in run.environments) == [f"infinimath/level_{k}" for k in range(1, 6)]
    assert run.health_status == "healthy"
    (note,) = [i for i in run.data_issues if i.kind == "level_holder"]
    assert "'infinimath' holds levels (infinimath/level_1, " in note.detail
    # each level's evals are its own eval series (eval/level_{L}_accuracy)
    frame = curriwatch.load(tmp_path).frame
    evals = frame[(frame.env_id == "infinimath/level_2") & (frame.split == "eval")]
    assert set(evals.metric) == {"percent_correct"} and evals.step.tolist() == list(range(69, 120, 10))


@pytest.mark.parametrize("max_level", [5, 7])
def test_the_last_level_holding_its_top_has_mastered_it(tmp_path, max_level):
    # infinimath never advances past its last level (curriculum.py:274-275): held at its top for 500 steps it
    # has mastered it (graduated where its performance plateaued), no stall; below a level the curriculum
    # could still advance to, the same flat top is the threshold not met — a stall
    rows, steps = _infinimath_rows(np.random.default_rng(5), levels=5, tail=500, max_level=max_level)
    write_wandb(tmp_path, rows, steps=steps, name="infinimath-2026-01-01-abc123", run_id="lv2")
    (run,) = curriwatch.analyze(curriwatch.load(tmp_path)).runs
    last = [iv for env, iv in run.timeline if env == "infinimath/level_5"]
    judged = {(w.type, w.env_id) for w in run.warnings if w.type != "eval_gap"}
    if max_level == 5:
        assert [iv.state for iv in last] == ["locked", "active", "graduated"]
        assert 240 + 30 <= last[-1].start_step <= 240 + 90  # learned over 40 steps from 240, then plateaued
        assert judged == set()
    else:
        assert [iv.state for iv in last] == ["locked", "active"]
        assert ("training_stagnation", "infinimath/level_5") in judged
