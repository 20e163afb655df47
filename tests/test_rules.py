"""Rule tests in the series notation of series.py: each case is written to a real event file with
tensorboardX, loaded and analysed; expected incidents are (type, env, severity, first_step, ±tol),
and an empty list means the rules named must not fire."""
from __future__ import annotations

import numpy as np
import pytest

import curriwatch
from curriwatch.rules import volatility
from series import Case, EnvSeries as E, check, run_case
from writers import write_tb

RISE = "0.1+0.045x20"  # 20 evals (0..950) from 0.1 to ~0.95
GRADUATED_AT_1000 = "1x20 2x60"  # state every 50: active 0..950, graduated 1000..3950
TRAIN_TO_1000 = "0.1+0.01x86 0.95~0.02x10"  # train every 10 while active
EXP_RISE = " ".join(f"{0.95 - 0.9 * np.exp(-k / 8):.3f}" for k in range(30))  # 0.05 -> 0.926, fast then slow

MARKOV_DWELLS = [8, 21, 15, 77, 43, 158, 6, 17, 54, 68, 6, 6, 11, 68, 8, 19, 11, 37]
CASES = [
    # graduated_regression
    Case("graduated env collapses", {"a": E(state=GRADUATED_AT_1000, train=TRAIN_TO_1000,
                                            eval=f"{RISE} 0.95~0.02x30 0.4~0.02x30")},
         [("graduated_regression", "a", "critical", 2500, 50)], ("graduated_regression",)),
    Case("graduated env sags to a warning level", {"a": E(state=GRADUATED_AT_1000, train=TRAIN_TO_1000,
                                                         eval=f"{RISE} 0.95~0.02x30 0.78~0.01x30")},
         [("graduated_regression", "a", "warning", 2500, 50)], ("graduated_regression",)),
    Case("one bad eval after graduation", {"a": E(state=GRADUATED_AT_1000, train=TRAIN_TO_1000,
                                                  eval=f"{RISE} 0.95~0.02x30 0.05 0.95~0.02x29")},
         [], ("graduated_regression", "unexpected_transition", "performance_volatility")),
    Case("noise around the graduated level", {"a": E(state=GRADUATED_AT_1000, train=TRAIN_TO_1000,
                                                     eval=f"{RISE} 0.9~0.06x60")},
         [], ("graduated_regression", "performance_volatility")),
    Case("regression without eval data uses train", {"a": E(state=GRADUATED_AT_1000,
                                                            train=f"{TRAIN_TO_1000} 0.95~0.02x100 0.3~0.02x100")},
         [("graduated_regression", "a", "critical", 1960, 20)], ("graduated_regression",)),
    # training_stagnation
    # a plateau far below what the run's other envs reach is not graduation (alone, it would be)
    Case("learns, then flat", {"a": E(train="0.1+0.01x40 0.5~0.03x160"), "b": E(train="0.1+0.02x45 0.95~0.02x155"),
                               "c": E(train="0.1+0.03x30 0.95~0.02x170")},
         [("training_stagnation", "a", "warning", 400, 100)], ("training_stagnation",)),
    # a rise that steepens into the flat (a logistic's upper half): a line through all of it breaks late
    Case("a rise steepening into a stall is dated at the knee",
         {"a": E(train="0.02+0.0005x50 0.045+0.002x30 0.105+0.005x20 0.205+0.01x10 0.31~0.004x400"),
          "b": E(train="0.1+0.05x16 0.9~0.02x494")},
         [("training_stagnation", "a", "warning", 1100, 20)], ("training_stagnation",)),
    # heavy noise holds 0.88 for 420 points, then 8 points happen to sit near 1: a short segment above a long
    # held level is a top only as far as its points tell (2 standard errors lower): the env graduated
    Case("a short lucky stretch above the held level", {"a": E(train="0.1+0.1x8 0.88~0.1x420 0.99~0.005x8")},
         [], ("prolonged_training", "training_stagnation")),
    # a burst of noise swings above the held level too: segments of a point or two there are no top — the
    # noise where they were reached (the burst's, not the calm's) puts them within 2 standard errors of it
    Case("a symmetric burst sets no top", {"a": E(train="10+10x9 90~0.5x300 85~35x15 90~0.5x200")},
         [], ("prolonged_training", "training_stagnation")),
    # one quick rise, a stall of 240 points, one small step up: the stall is judged against the env's pace
    # between its other steps of progress (5 points), not against a median its own length dominates
    Case("a long stall that one late step ends", {"a": E(train="0.15~0.02x5 0.43~0.02x240 0.48~0.02x20",
                                                          train_every=1000)},
         [("training_stagnation", "a", "warning", 5000, 2000)], ("training_stagnation", "prolonged_training"),
         config={"performance_metric": "success"}, metric="success"),  # a success rate (a return's top is its own)
    # a brief dip soon after the rise stopped: its recovery is no progress, the stall began at the top of the rise
    Case("a stall with a brief shallow dip", {"a": E(train="0.1+0.05x10 0.6~0.01x9 0.54~0.01x4 0.6~0.01x150"),
                                              "b": E(train="0.1+0.02x45 0.95~0.02x159"),
                                              "c": E(train="0.1+0.03x30 0.95~0.02x174")},
         [("training_stagnation", "a", "warning", 100, 20)], ("training_stagnation",)),
    Case("a stall with a brief deep dip", {"a": E(train="0.1+0.05x10 0.6~0.01x9 0.5~0.01x4 0.6~0.01x150"),
                                           "b": E(train="0.1+0.02x45 0.95~0.02x159"),
                                           "c": E(train="0.1+0.03x30 0.95~0.02x174")},
         [("training_stagnation", "a", "warning", 100, 140)], ("training_stagnation",)),
    # flat from its activation (a staircase whose first stair comes after the run's end, beside a learner):
    # 2.5 windows (of 20 points here) is not yet a stall, 3.5 is
    Case("flat from activation for 2.5 windows", {"a": E(train="0.1~0.02x50"), "b": E(train="0.1+0.05x16 0.9~0.02x34")},
         [], ("training_stagnation",)),
    Case("flat from activation for 3.5 windows", {"a": E(train="0.1~0.02x70"), "b": E(train="0.1+0.05x16 0.9~0.02x54")},
         [("training_stagnation", "a", "warning", 0, 0)], ("training_stagnation",)),
    # a staircase that waits at its first stair 3.5 windows (30 steps here: 10 % of the span) is a pause
    # between steps; waiting 4.3 windows before progress came is a stall
    Case("a pause of 3.5 windows before the next stair", {"a": E(train="0.001~0.001x106 0.0+0.1x9 0.9~0.03x185", train_every=1),
                                                        "b": E(train="0.1+0.1x9 0.9~0.03x291", train_every=1)},
         [], ("training_stagnation",)),
    Case("a stall of 4.3 windows that progress ended", {"a": E(train="0.001~0.001x130 0.0+0.1x9 0.9~0.03x161", train_every=1),
                                                      "b": E(train="0.1+0.1x9 0.9~0.03x291", train_every=1)},
         [("training_stagnation", "a", "warning", 0, 0)], ("training_stagnation",)),
    # a gain of ~2.3 point-noise sds, but each level the mean of dozens of points: it learned, and graduated
    Case("a plain step up in heavy noise graduates", {"a": E(train="0~1.5x40 2~1.5x300")}, [],
         ("prolonged_training", "training_stagnation")),
    Case("heavy noise about one level never graduates", {"a": E(train="0~1.5x340")},
         [("training_stagnation", "a", "warning", 0, 0)], ("prolonged_training", "training_stagnation")),
    Case("slow steady learner", {"a": E(train="0.1+0.0025~0.03x300")}, [], ("training_stagnation",)),
    Case("plateau while waiting for graduation", {"a": E(state="1x15 2x65", train="0.1+0.05x18 0.95~0.02x52")},
         [], ("training_stagnation",)),
    Case("sparse logging widens the window", {"a": E(train="0.1+0.02x20 0.5~0.02x60", train_every=50),
                                              "b": E(train="0.1+0.05x17 0.95~0.02x63", train_every=50)},
         [("training_stagnation", "a", "warning", 1000, 150)], ("training_stagnation",)),
    Case("locked env with no data", {
        "locked": E(state="0x80"),
        "fine": E(state="1x6 2x74", train="0.1+0.04x21 0.95~0.02x9", eval="0.1+0.2x4 0.95~0.02x76")},
         [], ()),
    # performance_volatility
    Case("swings after a calm start", {"a": E(train="0.1+0.01x40 0.5~0.02x30 (0.2 0.8)x40")},
         [("performance_volatility", "a", "warning", 700, 20)], ("performance_volatility",)),
    Case("one outlier in training", {"a": E(train="0.1+0.01x40 0.5~0.02x30 0.0 0.5~0.02x60")},
         [], ("performance_volatility",)),
    Case("a level shift is not volatility", {"a": E(train="0.5~0.02x60 0.2~0.02x60")},
         [], ("performance_volatility",)),
    # noise or switching while it learned that stopped before it graduated: the learning's noise
    Case("a rise in heavy noise to a calm plateau", {"a": E(train="0.05~0.03x20 0.1+0.02~0.3x40 0.9~0.03x200",
                                                         train_every=10),
                                                   "b": E(train="0.05~0.03x20 0.1+0.02x40 0.9~0.03x200",
                                                          train_every=10)},
         [], ("performance_volatility",)),
    Case("switching while it learned, then a calm plateau",
         {"a": E(train="0.05~0.03x20 (0.2 0.7 0.4 0.9 0.3 0.8)x8 0.9~0.03x200", train_every=10),
          "b": E(train="0.05~0.03x20 0.1+0.02x40 0.9~0.03x200", train_every=10)},
         [], ("performance_volatility",)),
    # a burst of noise too short for swings (20 points: a 30-point window's smaller changes stay under
    # threshold x the range) whose changes rank far above the calm's, dated at its first point (its
    # deepest points alone are a dip 5 points later); a noisier level it fell to and stays at is the
    # regression's, and noise that grows for good with a level it moved to is no burst
    Case("a burst of noise in a calm series", {"a": E(train="0.1+0.1x9 0.9~0.005x300 0.8~0.3x20 0.9~0.005x200")},
         [("performance_volatility", "a", "warning", 3090, 20)], ("performance_volatility",)),
    # noise of 3 x the calm's over 40 of 340 points: its rank statistic (4.7, 4.7 for these two seeds) is
    # beyond what white noise of that length reaches (the bar rises with the log of the points, from 4.5 at
    # 200 points to 5.5 at 8,000), though under the 5.5 of the longest series
    *(Case(f"a burst of 3 x the noise over 40 of 340 points (seed {seed})",
           {"a": E(train="10+4x20 90~12x150 90~35x40 90~12x150")},
           [("performance_volatility", "a", "warning", 1700, 20)], ("performance_volatility",), seed=seed)
      for seed in (2, 7)),
    # noise of 1.8 x the calm's over 60 of 660 points, its median 5 below the held level: in white noise
    # (changes anti-correlated) a ratio under 2 counts where the rank statistic reaches its bar (z 4.9, bar 4.8)
    Case("a burst of 1.8 x the white noise over 60 of 660 points",
         {"a": E(train="10+4x20 90~20x300 85~36x60 90~20x300")},
         [("performance_volatility", "a", "warning", 3200, 50)], ("performance_volatility",), seed=3),
    # ... but not where the stretch's points moved as one (median 30 below, noise grown with the level it
    # fell to and came back from): a regression's
    Case("a fall and back whose noise grew with the level it fell to is no burst",
         {"a": E(train="10+4x20 90~10x300 60~18x60 90~10x300")},
         [("graduated_regression", "a", "critical", 3200, 50)], ("performance_volatility", "graduated_regression"),
         seed=3),
    # a score (no bound) that fell from 90 to 40 for 60 points and came back, its noise 3 x as large there
    # (noise that grows with the level, as a perplexity's does): its changes rank as a burst's, but its
    # points moved as one (their median 0.95 x or more of their root mean square from the held level) —
    # a regression that came back, not an erratic spell
    Case("a fall and back whose noise grew 3 x is the regression's",
         {"a": E(train="10+4x20 90~2x300 40~6x60 90~2x300")},
         [("graduated_regression", "a", "critical", 3200, 20)], ("performance_volatility", "graduated_regression")),
    Case("a fall to a noisier level is no burst", {"a": E(train="0.1+0.1x9 0.9~0.005x300 0.5~0.2x200")},
         [("graduated_regression", "a", "critical", 3090, 0)], ("performance_volatility", "graduated_regression")),
    Case("noise that grows with a level it moved to is no burst",
         {"a": E(train="0.1+0.1x9 0.9~0.005x300 0.75~0.1x60 0.6~0.2x200")},
         [], ("performance_volatility",)),
    # two lone deep evals within dip_points of each other after a calm: a burst sparse evals catch one bad
    # eval at a time; one alone is an outlier; beside outliers far above the held level (contaminated
    # noise, whose outliers fall either way) such a pair is chance
    Case("two lone bad evals close together", {"a": E(eval="10+10x9 95~1x40 30 95~1x5 30 95~1x40")},
         [("performance_volatility", "a", "warning", 2450, 0)], ("performance_volatility",)),
    Case("one lone bad eval", {"a": E(eval="10+10x9 95~1x40 30 95~1x40")}, [], ("performance_volatility",)),
    Case("two lone bad evals among outliers either way",
         {"a": E(eval="10+10x9 95~1x20 160 95~1x20 30 95~1x5 30 95~1x20 160 95~1x20")}, [], ("performance_volatility",)),
    # two deep points in a row: a burst after a calm, chance among a series' many lone outliers
    Case("two deep points in a row after a calm", {"a": E(train="0.1+0.1x9 0.9~0.02x600 0.1 0.1 0.9~0.02x150")},
         [("performance_volatility", "a", "warning", 6090, 0)], ("performance_volatility",)),
    Case("two deep points in a row among many lone outliers",
         {"a": E(train="0.1+0.1x9 (0.9~0.02x30 0.1)x20 0.1 (0.9~0.02x30 0.1)x5")}, [], ("performance_volatility",)),
    # Markov switching after graduation: phases of 6..158 points (the third corpus's t048 dwell times);
    # its rhythm breaks a few times, but changes go on between the runs: one unstable period, no regression
    Case("switching of irregular rhythm is one period", {"a": E(train="0.1+0.1x9 0.85~0.03x200 " + " ".join(
        f"{0.35 if i % 2 == 0 else 0.85}~0.03x{d}" for i, d in enumerate(MARKOV_DWELLS)))},
         [("performance_volatility", "a", "warning", 2090, 0)], ("performance_volatility", "graduated_regression")),
    Case("two bursts apart by a long calm are two", {"a": E(train="0.1+0.1x9 0.85~0.03x200 (0.35~0.03x5 0.85~0.03x5)x4 "
                                                                   "0.85~0.03x300 (0.35~0.03x5 0.85~0.03x5)x4 0.85~0.03x50")},
         [("performance_volatility", "a", "warning", 2090, 0), ("performance_volatility", "a", "warning", 5490, 0)],
         ("performance_volatility",)),
    Case("a noisy low performer is as noisy as its level explains", {"a": E(train="0.1~0.05x200")},
         [], ("performance_volatility",)),
    Case("graduated env's evals swing", {"a": E(state="1x10 2x70", train="0.1+0.09x10 0.95~0.01x40",
                                                eval="0.1+0.09x10 0.95~0.02x30 (0.3 0.9)x20")},
         [("performance_volatility", "a", "warning", 2000, 50)], ("performance_volatility",)),
    # a few low evals that climb back to the held level: a burst of instability (a dip), not a
    # lasting regression; one event, one incident
    Case("a dip of 4 evals that recovers is volatility", {"a": E(state=GRADUATED_AT_1000, train=TRAIN_TO_1000,
                                                                 eval=f"{RISE} 0.95~0.02x20 0.3x4 0.95~0.02x30")},
         [("performance_volatility", "a", "warning", 2000, 50)], ("graduated_regression", "performance_volatility")),
    # sparse evals catch a burst as bad evals between good ones: each stretch is too short to be a level of
    # its own (an outlier), but they keep coming back
    Case("low evals that keep coming back are a burst", {"a": E(state=GRADUATED_AT_1000, train=TRAIN_TO_1000,
                                                            eval=f"{RISE} 0.95~0.02x20 0.4x2 0.95~0.02x3 0.35 0.95~0.02x34")},
         [("performance_volatility", "a", "warning", 2000, 50)], ("performance_volatility", "graduated_regression")),
    Case("two bad evals far apart are outliers", {"a": E(state=GRADUATED_AT_1000, train=TRAIN_TO_1000,
                                                     eval=f"{RISE} 0.95~0.02x20 0.4 0.95~0.02x20 0.35 0.95~0.02x18")},
         [], ("performance_volatility", "graduated_regression")),
    # back in the held zone 7 points after it fell, by way of two points between the line and the zone
    Case("a dip that climbs back by way of the zone's edge", {"a": E(train="0.1+0.1x9 0.95~0.01x100 0.5~0.01x5 "
                                                                       "0.85~0.01x2 0.95~0.01x50")},
         [("performance_volatility", "a", "warning", 1090, 0)], ("performance_volatility", "graduated_regression")),
    Case("a fall that takes longer than dip_points to climb back is a regression",
         {"a": E(train="0.1+0.1x9 0.95~0.01x100 0.5~0.01x5 0.85~0.01x12 0.95~0.01x50")},
         [("graduated_regression", "a", "critical", 1090, 0)], ("performance_volatility", "graduated_regression")),
    Case("a fall that lasts is a regression, not a dip", {"a": E(state=GRADUATED_AT_1000, train=TRAIN_TO_1000,
                                                                 eval=f"{RISE} 0.95~0.02x20 0.3~0.02x30")},
         [("graduated_regression", "a", "critical", 2000, 50)], ("graduated_regression", "performance_volatility")),
    Case("a fall that climbs back only part way stays a regression",
         {"a": E(state=GRADUATED_AT_1000, train=TRAIN_TO_1000, eval=f"{RISE} 0.95~0.01x20 0.3x4 0.85~0.01x30")},
         [("graduated_regression", "a", "critical", 2000, 50)], ("graduated_regression", "performance_volatility")),
    Case("a long fall that recovers is a regression", {"a": E(state=GRADUATED_AT_1000, train=TRAIN_TO_1000,
                                                              eval=f"{RISE} 0.95~0.02x20 0.3~0.02x15 0.95~0.02x20")},
         [("graduated_regression", "a", "critical", 2000, 50)], ("graduated_regression", "performance_volatility")),
    # a lone outlier of the calm noise a few points before a burst does not date it (eighteenth corpus long_drift)
    Case("an outlier 6 calm points before a burst", {"a": E(train="0.1+0.08x10 0.9~0.01x100 0.7 0.9~0.01x6 "
                                                            "(0.6 0.85 0.5 0.9 0.7 0.55 0.88 0.65 0.8 0.6)x2 0.9~0.01x60")},
         [("performance_volatility", "a", "warning", 1170, 10)], ("performance_volatility", "graduated_regression")),
    # ... but one whose calm points after it lie below the level too is the burst's (a one-sided burst's milder
    # points: twelfth corpus sb3_goal, an EvalCallback burst whose first point was 6 mild ones before the rest)
    Case("a burst's first point 6 mild ones before the rest", {"a": E(train="0.1+0.08x10 0.9~0.03x100 0.6 0.865~0.02x6 "
                                                                      "(0.6 0.85 0.5 0.9 0.7 0.55 0.88 0.65 0.8 0.6)x2 0.9~0.01x60")},
         [("performance_volatility", "a", "warning", 1100, 10)], ("performance_volatility", "graduated_regression")),
    # unexpected_transition
    Case("state goes backwards", {"a": E(state="1x10 2x10 1x10")},
         [("unexpected_transition", "a", "warning", 1000, 0)], ("unexpected_transition",)),
    Case("unknown state value", {"a": E(state="1x10 5 1x10")},
         [("unexpected_transition", "a", "warning", 500, 0)], ("unexpected_transition",)),
    # one event, one incident: a collapse right after graduation is a rapid graduated_regression
    Case("collapse right after graduation", {"a": E(state="1x10 2x70", train="0.1+0.09x10 0.95~0.01x40",
                                                    eval="0.1+0.09x10 0.95~0.01x4 0.4~0.02x60")},
         [("graduated_regression", "a", "critical", 700, 50)], ("graduated_regression", "unexpected_transition")),
    Case("collapse long after graduation is not unexpected",
         {"a": E(state=GRADUATED_AT_1000, train=TRAIN_TO_1000, eval=f"{RISE} 0.95~0.02x30 0.4~0.02x30")},
         [], ("unexpected_transition",)),
    # prolonged_training
    # 10 stagnation windows: 100 steps widened to hold 20 points logged every 10 steps -> 2,000 steps
    Case("active for 3000 steps, still learning slowly", {"a": E(state="1x60", train="0.3+0.0015~0.02x300")},
         [("prolonged_training", "a", "info", 2000, 0)], ("prolonged_training", "training_stagnation")),
    Case("active for 3000 steps, logged every step", {"a": E(state="1x60", state_every=50, train_every=1,
                                                            train="0.3+0.00015~0.02x3000")},
         [("prolonged_training", "a", "info", 1000, 0)], ("prolonged_training", "training_stagnation")),
    # eval-only: the windows hold 20 evals (every 50 steps -> 1,000-step windows, 10,000 steps)
    Case("eval-only env active for 12,000 steps", {"a": E(state="1x240", eval="0.2+0.0015~0.01x240", eval_every=50,
                                                          state_every=50)},
         [("prolonged_training", "a", "info", 10000, 0)], ("prolonged_training",)),
    Case("eval-only env active for 8,000 steps", {"a": E(state="1x160", eval="0.2+0.002~0.01x160", eval_every=50,
                                                         state_every=50)},
         [], ("prolonged_training",)),
    # one event, one incident: a stall explains why the env stays active
    Case("active for 3000 steps because it stalled", {"a": E(state="1x60", train="0.3~0.02x300")},
         [("training_stagnation", "a", "warning", 0, 0)], ("prolonged_training", "training_stagnation")),
    Case("graduates in time", {"a": E(state="1x16 2x44", train="0.3~0.02x160")}, [], ("prolonged_training",)),
    # a rate's graduation line is never above 70 % of its whole range, where the stall rule reads it as waiting at its
    # top: one that rose from 0.3 and holds 0.72 graduates (it neither stalled nor was ever done: `prolonged` before)
    Case("rates from a high start holding 0.72 graduate", {k: E(train="0.3+0.04x11 0.72~0.01x300") for k in "ab"}, [],
         ("prolonged_training", "training_stagnation"), {"performance_metric": "success"}, metric="success"),
    # ... but a slow climber that was already overdue when it stalled: one event, the prolonged activity, whose
    # climb then stopped — a warning, as the stall was (ninth corpus: a steady riser capped at 0.68 of its gain,
    # flat from 14 windows on, labelled prolonged only)
    Case("overdue while still climbing, then stalled", {"a": E(state="1x130", train="0.05+0.0012~0.01x250 0.35~0.01x400")},
         [("prolonged_training", "a", "warning", 2000, 0)], ("prolonged_training", "training_stagnation")),
    # a tracker that logs each evaluation again at every update until the next (Syllabus' learning-progress
    # curricula: a task's rate over 20 episodes every 25 updates): the 25 points of one evaluation are one
    # measurement, not 25 that agree — held, an evaluation a little low is a fall that lasted 25 points
    Case("evaluations held between updates are judged as evaluations",
         {"a": E(eval="0.05+0.2x5h25 0.92b20x40h25", eval_every=10)}, [],
         ("graduated_regression", "performance_volatility", "training_stagnation")),
    Case("a held evaluation series that falls is a regression from its first fallen evaluation",
         {"a": E(eval="0.05+0.2x5h25 0.92b20x30h25 0.3b20x15h25", eval_every=10)},
         [("graduated_regression", "a", "critical", 8750, 250)], ("graduated_regression",)),
    # eval_gap
    Case("graduated env's evals stop while the run goes on", {
        "a": E(state="1x10 2x70", train="0.1+0.09x10 0.95~0.01x40", eval="0.1+0.09x10 0.95~0.01x20"),
        "b": E(train="0.5~0.02x400")},
         [("eval_gap", "a", "warning", 1450 + 50, 0)], ("eval_gap",)),
    Case("eval merely sparse", {"a": E(eval="0.5~0.01x20", eval_every=200), "b": E(train="0.5~0.02x400")},
         [], ("eval_gap",)),
    Case("active env's evals stop", {"a": E(train="0.5~0.02x400", eval="0.5~0.02x10")},
         [("eval_gap", "a", "info", 450 + 50, 0)], ("eval_gap",)),
    Case("the whole run logs nothing for a while (its step counter jumped): no blind spot", {
        "a": E(train="0.5~0.02x60 _x60 0.5~0.02x60", eval="0.5~0.02x12 _x12 0.5~0.02x12"),
        "b": E(train="0.5~0.02x60 _x60 0.5~0.02x60")},
         [], ("eval_gap",)),
    Case("... but an env's evals stopping across it while its training goes on are one", {
        "a": E(train="0.5~0.02x60 _x60 0.5~0.02x60", eval="0.5~0.02x12 _x12 0.5~0.02x2"),
        "b": E(train="0.5~0.02x60 _x60 0.5~0.02x60")},
         [("eval_gap", "a", "info", 1250 + 50, 0)], ("eval_gap",)),
    # configuration reaches the rules
    Case("a disabled rule never fires", {"a": E(state=GRADUATED_AT_1000, train=TRAIN_TO_1000,
                                                eval=f"{RISE} 0.95~0.02x30 0.4~0.02x30")},
         [], ("graduated_regression",), {"rules": {"graduated_regression": {"enabled": False}}}),
    Case("a re-tuned threshold turns critical into warning",
         {"a": E(state=GRADUATED_AT_1000, train=TRAIN_TO_1000, eval=f"{RISE} 0.95~0.02x30 0.6~0.02x30")},
         [("graduated_regression", "a", "warning", 2500, 50)], ("graduated_regression",),
         {"critical_regression_threshold": 0.5}),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_rule_case(case, tmp_path):
    got, _run = run_case(case, tmp_path)
    check(case, got)


# two falls of 4 evals, 1,000 steps apart: two events (not switching), one incident within the cooldown.
# By default a fall that recovers within dip_points points is a dip (volatility); these tests judge
# the regressions' cooldown and resolution, so they count every fall as a regression
DIPS_TWICE = f"{RISE} 0.95~0.02x20 0.4x4 0.95~0.02x20 0.4x4 0.95~0.02x20"
NO_DIPS = {"performance_volatility": {"dip_points": 0}}


def test_recovery_resolves_the_incident_and_cooldown_merges_refirings(tmp_path):
    case = Case("dips twice, recovers", {"a": E(state=GRADUATED_AT_1000, train=TRAIN_TO_1000, eval=DIPS_TWICE)},
                [("graduated_regression", "a", "critical", 2000, 50)],
                ("graduated_regression", "performance_volatility"),
                {"health_monitoring": {"warning_cooldown": 1500}, "rules": NO_DIPS})
    got, run = run_case(case, tmp_path)
    check(case, got)
    (incident,) = got
    assert incident.resolved and incident.evidence["merged_incidents"] == 2
    # its message is the worst part's, and says so: no span in it contradicts the incident's own
    assert incident.message.endswith(f"(one of 2 incidents merged within the cooldown: from step "
                                     f"{incident.first_step} to {incident.last_step})"), incident.message
    assert incident.evidence["baseline"] == pytest.approx(0.95, abs=0.03)
    (env,) = run.environments
    assert env.health_status == "warning"  # a past critical leaves a warning


def test_no_cooldown_keeps_refirings_apart(tmp_path):
    case = Case("dips twice", {"a": E(state=GRADUATED_AT_1000, train=TRAIN_TO_1000, eval=DIPS_TWICE)},
                [("graduated_regression", "a", "critical", 2000, 50),
                 ("graduated_regression", "a", "critical", 3200, 50)], ("graduated_regression", "performance_volatility"),
                {"health_monitoring": {"warning_cooldown": 0}, "rules": NO_DIPS})
    got, _run = run_case(case, tmp_path)
    check(case, got)


def test_held_values_are_told_and_judged_on_their_measurements(tmp_path):
    case = next(c for c in CASES if c.name == "evaluations held between updates are judged as evaluations")
    _got, run = run_case(case, tmp_path)
    (issue,) = [i for i in run.data_issues if i.kind == "held_values"]
    assert "'a' eval (1,125 points, 45 measurements, each logged ~25 times)" in issue.detail


@pytest.mark.parametrize("p", [0.0, 0.02, 0.5, 0.97, 1.0])
@pytest.mark.parametrize("n", [1, 4, 20])
def test_lattice_noise_is_no_held_series(p, n):
    """A small batch's rate repeats a value by chance (at a bound, for long): runs of every length, no measurement
    held; a rolling mean that no episode updated between two logs repeats one now and then."""
    from curriwatch.envdata import Series, held_measurements

    rng = np.random.default_rng(3)
    steps = np.arange(600) * 10
    assert held_measurements(Series(steps, rng.binomial(n, p, 600) / n)) is None
    episodes = np.cumsum(rng.random(600) < 0.6)  # a 100-episode rolling mean, logged whether or not one ended
    returns = rng.normal(p, 0.1, episodes[-1] + 1)
    rolling = np.array([returns[max(0, e - 100): e + 1].mean() for e in episodes])
    assert held_measurements(Series(steps, rolling)) is None


def test_a_held_run_as_long_as_several_is_that_many_measurements():
    """Two evaluations that agree hold their value twice as long: two measurements, the second where it was due."""
    from curriwatch.envdata import Series, held_measurements

    values = np.repeat([0.0, 0.0, 0.0, 0.2, 0.5, 0.5, 0.7, 0.9, 0.85, 0.9, 0.95, 0.9], 10).astype(float)
    series, typical = held_measurements(Series(np.arange(len(values)) * 5, values))
    assert typical == 10
    assert series.steps.tolist() == [k * 50 for k in range(12)]
    assert series.values.tolist() == [0.0, 0.0, 0.0, 0.2, 0.5, 0.5, 0.7, 0.9, 0.85, 0.9, 0.95, 0.9]


def test_a_stall_of_an_overdue_climber_is_told_within_its_prolonged_training(tmp_path):
    """One event, one incident: the climb stopped at step 2500, after the env was overdue (2000); the prolonged
    activity says since when there was no progress, and the env is no healthier than the stall made it."""
    case = Case("overdue, then stalled", {"a": E(state="1x130", train="0.05+0.0012~0.01x250 0.35~0.01x400")},
                [("prolonged_training", "a", "warning", 2000, 0)])
    got, run = run_case(case, tmp_path)
    check(case, got)
    (incident,) = got
    assert incident.evidence["stalled_from_step"] == pytest.approx(2500, abs=100)
    assert incident.evidence["stalled_to_step"] == incident.last_step == 6490
    assert incident.evidence["stall_level"] == pytest.approx(0.35, abs=0.01)
    assert f"; no progress from step {incident.evidence['stalled_from_step']} to 6490 (level 0.35" in incident.message
    (env,) = run.environments
    assert env.health_status == "warning" and env.warnings == ["prolonged_training"]


def test_health_fields_of_a_regressed_env(tmp_path):
    case = Case("collapse", {"a": E(state=GRADUATED_AT_1000, train=TRAIN_TO_1000,
                                    eval=f"{RISE} 0.95~0.02x30 0.4~0.02x30")}, [])
    _got, run = run_case(case, tmp_path)
    (env,) = run.environments
    assert env.current_state == "graduated" and env.graduation_step == 1000
    assert env.graduation_baseline == pytest.approx(0.95, abs=0.03)
    assert env.health_status == "critical" and env.warnings[0] == "graduated_regression"
    assert env.current_eval_performance == pytest.approx(0.4, abs=0.03)
    assert env.peak_performance == pytest.approx(0.97, abs=0.03)
    assert env.time_in_current_state == 3950 - 1000 and env.total_training_steps == 1000
    assert [(iv.state, iv.start_step, iv.end_step) for _e, iv in run.timeline] == [
        ("active", 0, 1000), ("graduated", 1000, 3950)]


# Issue 9: any metric, any logging shape. States are inferred (no state series) unless given.
_UNEVEN = "0.85~0.01x4 0.35~0.01x3 0.85~0.01x5 0.35~0.01x4 0.85~0.01x3 0.35~0.01x4"
SHAPES = [
    # returns, positive scale (CartPole-like 0..500): a fall from the held level is a regression
    Case("returns 0..500 fall after graduating", {"cp": E(train="20+20x24 500~10x76", eval="20+80x6 500~10x24 250~15x20")},
         [("graduated_regression", "cp", "critical", 1500, 50)], ("graduated_regression", "performance_volatility")),
    Case("returns 0..500 held", {"cp": E(train="20+20x24 500~10x76", eval="20+80x6 500~10x44")},
         [], ("graduated_regression", "performance_volatility", "training_stagnation")),
    # returns, negative (Pendulum-like -1500 -> -160, then -900): critical, keeps ~45 % of the gain
    Case("negative returns fall after graduating",
         {"pend": E(train="-1500+60x23 -160~20x77", eval="-1500+270x5 -160~20x25 -900~40x30")},
         [("graduated_regression", "pend", "critical", 1500, 50)], ("graduated_regression",)),
    Case("negative returns held", {"pend": E(train="-1500+60x23 -160~20x77", eval="-1500+270x5 -160~20x55")},
         [], ("graduated_regression", "performance_volatility", "training_stagnation")),
    # lower is better: a loss (direction from the metric's name) that climbs back up
    Case("loss climbs back up", {"l": E(train="2.0-0.06x25 0.5~0.03x75", eval="2.0-0.3x5 0.5~0.03x25 1.5~0.03x30")},
         [("graduated_regression", "l", "critical", 1500, 50)], ("graduated_regression",),
         {"performance_metric": "loss"}, metric="loss"),
    Case("loss stays low", {"l": E(train="2.0-0.06x25 0.5~0.03x75", eval="2.0-0.3x5 0.5~0.03x55")},
         [], ("graduated_regression", "performance_volatility", "training_stagnation"),
         {"performance_metric": "loss"}, metric="loss"),
    Case("direction by per-env override", {"cost_a": E(train="2.0-0.06x25 0.5~0.03x75",
                                                       eval="2.0-0.3x5 0.5~0.03x25 1.5~0.03x30")},
         [("graduated_regression", "cost_a", "critical", 1500, 50)], ("graduated_regression",),
         {"overrides": [{"env": "cost_*", "direction": "lower"}]}),
    # a cost (lower is better, by override) beside success rates: oriented -50 to -14, all of it further from the
    # rates' shared scale than that scale is wide — judged on its own, it graduates and is no prolonged training
    # (eighth corpus seed 2's lift-cost, which paused on its way down: never graduated, its top read against the
    # rates' 0.9)
    Case("a cost beside success rates", {"cost_a": E(train="50-3x5 33~0.1x30 33-3x7 14~0.1x270"),
                                         "r": E(train="0.05+0.05x17 0.9~0.02x295"),
                                         "s": E(train="0.05+0.05x18 0.95~0.02x294")},
         [], ("prolonged_training", "training_stagnation", "graduated_regression"),
         {"overrides": [{"env": "cost_*", "direction": "lower"}]}),
    # metrics of different kinds under one name (a user profile's `score`): percents (0..100) and returns (0..500),
    # three of each, every one learned and held — the percents reach a top of their own and share it; they are
    # no lessons stalled at a fifth of the returns' scale (eighth corpus seed 1's mixed suite)
    Case("percents beside returns", {f"{k}-pct": E(train=f"{2 + k}+{4 - k}x24 {98 - 3 * k}~0.2x276") for k in range(3)}
         | {f"{k}-ret": E(train=f"{20 + k}+{19 + k}x24 {480 + 10 * k}~15x276") for k in range(3)},
         [], ("prolonged_training", "training_stagnation", "graduated_regression")),
    # ... but two lessons of six stalled at one level stay lessons stalled on their siblings' scale
    Case("two lessons stalled at one level", {f"{k}-ret": E(train=f"{20 + k}+{19 + k}x24 {480 + 10 * k}~15x276")
                                              for k in range(4)}
         | {f"{k}-low": E(train=f"{20 + k}+4x24 {116 + k}~15x276") for k in range(2)},
         [("training_stagnation", f"{k}-low", "warning", 1200, 1200) for k in range(2)], ("training_stagnation",)),
    # returns of -1500..-200 beside returns of 0..500: all of its range below the level its siblings start from
    # is no lesson stalled on their scale (eighth corpus seed 1's swing-return)
    Case("negative returns beside positive returns", {"swing": E(train="-1500+55x24 -180~15x276"),
                                                     "a": E(train="25+19x24 480~15x276"),
                                                     "b": E(train="30+19x24 490~15x276")},
         [], ("prolonged_training", "training_stagnation", "graduated_regression")),
    # eval-only logging: graduation inferred from eval, regression and stagnation judged on eval
    Case("eval-only: regression", {"e": E(eval="0.1+0.05x17 0.95~0.02x30 0.3~0.02x30")},
         [("graduated_regression", "e", "critical", 2350, 50)], ("graduated_regression",)),
    Case("eval-only: stagnation", {"e": E(eval="0.1+0.02x10 0.3~0.02x70", eval_every=20),
                                   "f": E(eval="0.1+0.05x17 0.95~0.02x63", eval_every=20)},
         [("training_stagnation", "e", "warning", 200, 100)], ("training_stagnation",)),
    Case("eval-only: healthy", {"e": E(eval="0.1+0.05x17 0.95~0.02x60")},
         [], ("graduated_regression", "training_stagnation", "performance_volatility")),
    # sparse per-lesson rows: training stops at graduation while evals go on (Marin stops sampling)
    Case("training stops at graduation, eval falls later",
         {"a": E(train="0.2+0.1x7 0.9~0.02x10", train_every=40, eval="0.2+0.2x3 0.9~0.02x30 0.4~0.02x30"),
          "b": E(train="0.2+0.01x70 0.9~0.02x330", eval="0.2+0.1x7 0.9~0.02x53")},
         [("graduated_regression", "a", "critical", 1650, 50)], ("graduated_regression",)),
    # ... and b, trained on to the run's end beside it, was never graduated by that curriculum: it learned
    # and held its level for 3,000 steps more, still sampled (prolonged_training, info)
    Case("training stops at graduation, eval holds",
         {"a": E(train="0.2+0.1x7 0.9~0.02x10", train_every=40, eval="0.2+0.2x3 0.9~0.02x77"),
          "b": E(train="0.2+0.01x70 0.9~0.02x330", eval="0.2+0.1x7 0.9~0.02x73")},
         [("prolonged_training", "b", "info", 2000, 0)], ()),
    # volatility: an env switching levels all its life beside one with binomial noise (p=0.5, n=32)
    Case("lifelong switching beside binomial noise",
         {"osc": E(train="(0.2~0.05x6 0.85~0.05x5 0.2~0.05x8 0.85~0.05x6)x12"), "noisy": E(train="0.5b32x300")},
         [("performance_volatility", "osc", "warning", 0, 60)], ("performance_volatility",)),
    # evals caught midway through each change (or overshooting it) are part of the switching, not phases
    Case("lifelong switching with points caught mid-change",
         {"osc": E(eval="(0.85~0.02x10 0.5 0.2~0.02x10 0.0 0.2~0.02x2 0.45)x8"), "noisy": E(eval="0.5b32x200")},
         [("performance_volatility", "osc", "warning", 0, 60)], ("performance_volatility", "graduated_regression")),
    Case("lifelong point-to-point swings, judged against the run's other envs",
         {"sw": E(train="(0.2~0.05 0.8~0.05)x150"), "calm": E(train="0.7b32x300"), "calm2": E(train="0.4b32x300")},
         [("performance_volatility", "sw", "warning", 0, 100)], ("performance_volatility",)),
    # phases of 4-7 evals of 8 trials each: the switching inflates the noise estimate (n reads as ~2.5)
    # and no single cut of the whole stretch explains much, yet the two levels are plain
    Case("lifelong switching in short phases of binomial-8 evals",
         {"osc": E(eval="(0.2b8x5 0.85b8x6 0.2b8x7 0.85b8x4)x5", eval_every=10),
          "calm": E(eval="0.1+0.05x16 0.9b8x94", eval_every=10)},
         [("performance_volatility", "osc", "warning", 0, 60)], ("performance_volatility",)),
    Case("binomial-8 evals near a bound are not two levels",
         {"hi": E(eval="0.1+0.05x16 0.9b8x184", eval_every=10), "lo": E(eval="0.08b8x200", eval_every=10)},
         [], ("performance_volatility",)),
    # a swing window reaching back into the rise holds the larger binomial noise of rates nearer 0.5
    Case("a binomial-8 rise is not swings", {"a": E(train="0.05b8x10 0.05+0.02b8x45 0.96b8x400")},
         [], ("performance_volatility",), seed=6),
    # a burst longer than the calm stretches the noise is taken from (5 windows either side) is one burst:
    # its middle is not judged against its own swings
    Case("a long burst is one incident", {"a": E(train="0.1+0.04x20 0.9~0.02x800 (0.35~0.05 0.9~0.05)x250 0.9~0.02x600")},
         [("performance_volatility", "a", "warning", 8200, 50)], ("performance_volatility", "graduated_regression"), seed=1),
    # a burst of switching after graduation: its low phases fit neither of the whole series' levels (start,
    # held) and segmentation makes most of it one long segment at a middle level, read as a regression
    Case("a burst of switching after graduation in binomial-8 rates",
         {"a": E(train="0.05+0.045b8x20 0.95b8x280 0.4b8x10 0.95b8x10 (0.4b8x8 0.95b8x12 0.38b8x11 0.93b8x9)x4 "
                       "0.95b8x200"),
          "b": E(train="0.05+0.045b8x20 0.95b8x620")},
         [("performance_volatility", "a", "warning", 3000, 100)], ("performance_volatility", "graduated_regression"),
         seed=0),
    Case("binomial-8 rates held near 1 after graduation are not switching",
         {"a": E(train="0.05+0.045b8x20 0.96b8x900"), "b": E(train="0.05+0.045b8x20 0.9b8x900")},
         [], ("performance_volatility", "graduated_regression")),
    # switching whose phases vary in length (a long phase now and then breaks the chain's rhythm) is one
    # unstable period: one incident, and its low phases are not regressions
    Case("lifelong switching with phases of uneven length is one incident",
         {"a": E(train=f"({_UNEVEN} 0.85~0.01x30 {_UNEVEN} 0.35~0.01x25)x4 {_UNEVEN}"),
          "b": E(train="0.1+0.05x16 0.9~0.02x500")},
         [("performance_volatility", "a", "warning", 0, 50)], ("performance_volatility", "graduated_regression")),
    # Markov switching from activation whose first phase happens to last 3.5x the usual one (third corpus
    # seed 24's WallJump: dwell times run to several times their median): switching since activation,
    # not since its first change
    Case("lifelong switching with a long first phase is dated from activation",
         {"a": E(train="-0.4~0.01x21 (0.6~0.01x6 -0.4~0.01x6 0.6~0.01x4 -0.4~0.01x8)x10"),
          "b": E(train="-0.5+0.1x10 0.6~0.01x250")},
         [("performance_volatility", "a", "warning", 0, 30)], ("performance_volatility",)),
    # evals every 10 steps after a sudden fall at step 410 that dense training shows: noisy one by
    # one, a few still read as held (1.0) for 40 steps, but together they already lie below the held zone
    Case("a fall dated by dense training when the sparse evals after it are noisy",
         {"a": E(train="0.1+0.1x9 0.97b32x401 0.75b32x300", train_every=1,
                 eval="0.1+0.3x3 0.97b8x38 0.75 1.0 0.875 0.75 1.0 0.75 0.625 0.75b32x24", eval_every=10)},
         [("graduated_regression", "a", "warning", 410, 10)], ("graduated_regression",)),
    # an env at its top from its first point (for at least half its points), beside a sibling that shows
    # the run's scale, already knew its task (third corpus top_plateau): graduated, not stalled or
    # prolonged — and judged for regressions
    Case("an env at its top from its first point has graduated",
         {"a": E(train="88~2x300"), "b": E(train="5+10x9 92~2x291")},
         [], ("training_stagnation", "prolonged_training")),
    Case("an env at its top from its first point that falls has regressed",
         {"a": E(train="88~2x180 40~2x120"), "b": E(train="5+10x9 92~2x291")},
         [("graduated_regression", "a", "critical", 1800, 0)], ("graduated_regression", "training_stagnation")),
    # success rates where no env learned (two at their top from the first point, one that never learns):
    # a rate's scale starts at its worst, 0, not at the median start of envs that began at their top
    # (third corpus seed 35's tinker run: both top envs read as prolonged)
    Case("rates at their top from the first point beside a never-learner have graduated",
         {"a": E(train="0.88b64x300"), "b": E(train="0.9b64x300"), "c": E(train="0.13~0.01x300")},
         [("training_stagnation", "c", "warning", 0, 0)], ("training_stagnation", "prolonged_training")),
    Case("a rate at its top from the first point beside no learner that falls has regressed",
         {"a": E(train="0.88b64x180 0.4b64x120"), "b": E(train="0.9b64x300"), "c": E(train="0.13~0.01x300")},
         [("graduated_regression", "a", "critical", 1800, 0)], ("graduated_regression", "prolonged_training")),
    Case("an env flat near the start beside a learner has stalled",
         {"a": E(train="8~2x300"), "b": E(train="5+10x9 92~2x291")},
         [("training_stagnation", "a", "warning", 0, 0)], ("training_stagnation",)),
    # learned as fast as its sibling to 0.83 of the run's scale and held it for long, then fell: graduated
    # at its own top (siblings' tops differ), so the fall is a regression (third corpus seed 23's lm_long)
    Case("an env held short of its sibling's top graduates at its own",
         {"a": E(train="0+10x8 75~1x150 35~1x100"), "b": E(train="0+10x9 95~1x291")},
         [("graduated_regression", "a", "critical", 1580, 0)], ("graduated_regression", "training_stagnation")),
    # ... once it held its top as long as it took to climb there (a 14-point climb, held 24 evals at 88 % of the
    # siblings' gain): a dip after that hold is a dip after graduation — the hold back from it, a little higher,
    # that first reached the run's line is no later graduation (twenty-fifth corpus: SkyRL's list_functions)
    Case("an env held short of its siblings' top graduated before its dip",
         {"a": E(eval="0.17+0.03x20 0.75~0.01x24 0.45x3 0.76~0.01x33", eval_every=10),
          **{k: E(eval="0.15+0.035x20 0.85~0.01x60", eval_every=10) for k in "bcd"}},
         [("performance_volatility", "a", "warning", 440, 0)], ("performance_volatility", "graduated_regression")),
    # ... and a climb its segments read as one jump took no time: the fastest, not none (Continual World's tasks,
    # tested on 10 episodes, jump from 0.19 to 0.82 in one segment beside siblings near 0.95: every one was active
    # to the end, prolonged, its falls never judged)
    Case("an env that jumped to a level short of its siblings' top graduates at its own",
         {"a": E(eval="0.2~0.05x15 0.8~0.05x150 0.3~0.05x60", eval_every=10),
          **{k: E(eval="0.1+0.04x20 0.95~0.03x205", eval_every=10) for k in "bc"}},
         [("graduated_regression", "a", "critical", 1650, 0)], ("graduated_regression", "prolonged_training")),
    # ... and one that climbed a few times slower than its siblings, then held its top for long, has arrived too
    # (Continual World's push-wall: 18 evals to 0.81 against its siblings' 6 to 0.95, then 217 evals held there)
    Case("an env that climbed three times slower than its siblings graduates at its own top",
         {"a": E(eval="0.26~0.03x15 0.26+0.03x18 0.8~0.03x150 0.3~0.03x60", eval_every=10),
          **{k: E(eval="0.1+0.14x6 0.95~0.03x237", eval_every=10) for k in "bc"}},
         [("graduated_regression", "a", "critical", 1830, 0)], ("graduated_regression", "prolonged_training")),
    # ... but one that crept there far slower than its sibling learned is still creeping up (default corpus)
    Case("a slow climber short of its sibling's top has not graduated",
         {"a": E(train="0+0.5x150 75~1x150"), "b": E(train="0+10x9 95~1x291")},
         [("prolonged_training", "a", "info", 2000, 0)], ("prolonged_training", "graduated_regression")),
    # returns have no bound: a task that climbed with its siblings to 0.65 of their top (TD-MPC2's DMControl tasks
    # top out anywhere from 550 to 1,000) waits at its own top above 0.6 of the run's gain — it has not stalled ...
    Case("a return short of its siblings' top above 0.6 of their gain graduates at its own top",
         {"a": E(eval="50+60x10 640~10x150", eval_every=10),
          **{k: E(eval="50+90x10 950~10x150", eval_every=10) for k in "bc"}},
         [], ("training_stagnation", "prolonged_training")),
    # ... one that froze below half of it has
    Case("a return frozen below half of its siblings' gain is stalled",
         {"a": E(eval="50+40x10 450~10x150", eval_every=10),
          **{k: E(eval="50+90x10 950~10x150", eval_every=10) for k in "bc"}},
         [("training_stagnation", "a", "warning", 100, 10)], ("training_stagnation",)),
    # ... so is one that never learned and creeps up by 1 % of the run's gain a window (thirty-fourth corpus: TD-MPC2's
    # reacher-three-hard, 65 -> 85 over 120 evals beside tasks climbing to 800): a significant trend, but no progress
    Case("a never-learner creeping by a sliver of the run's gain is stalled",
         {"a": E(eval="100+0.2~40x160", eval_every=10),
          **{k: E(eval="50+90x10 950~10x150", eval_every=10) for k in "bc"}},
         [("training_stagnation", "a", "warning", 0, 0)], ("training_stagnation",)),
    # ... and so is one beside success rates logged under the same name (TD-MPC2's MT80: Meta-World's success rates and
    # DMControl's returns as one `score`): each kind shares a scale of its own
    Case("a never-learner among returns beside success rates is stalled",
         {"a": E(eval="120~8x160", eval_every=10),
          **{k: E(eval=f"{s0}+{(top - s0) / 10:g}x10 {top}~10x150", eval_every=10)
             for k, s0, top in zip("bcd", (20, 150, 300), (950, 800, 900))},
          **{k: E(eval="0.1+0.08x10 0.9b10x150", eval_every=10) for k in "efghij"}},
         [("training_stagnation", "a", "warning", 0, 0)], ("training_stagnation",),
         config={"performance_metric": "score"}, metric="score"),
    # a success rate that never learned, wandering between 0.005 and 0.017 (habitat's rolling mean over 49 updates of
    # a never-learner, thirty-fifth corpus): plainly two levels in so smooth a series, but a sliver of the rate's
    # range — no switching; a rate switching by most of it still is
    Case("a never-learning rate wandering by a sliver of its range is no switching",
         {"a": E(train="(0.005~0.001x8 0.017~0.001x8)x8")},
         [], ("performance_volatility",), config={"performance_metric": "success"}, metric="success"),
    Case("a rate switching by most of its range from its first point is switching",
         {"a": E(train="(0.2~0.01x8 0.85~0.01x8)x8")},
         [("performance_volatility", "a", "warning", 0, 0)], ("performance_volatility",),
         config={"performance_metric": "success"}, metric="success"),
    # ... but evals logged while the lesson was still locked (near its low level) are no part of it
    Case("lifelong switching is dated from activation, not from evals while locked",
         {"a": E(state="0x3 1x20", eval="0.16~0.01x15 (0.2~0.01x8 0.85~0.01x8)x6", eval_every=10),
          "b": E(eval="0.05+0.1x9 0.9~0.02x100", eval_every=10)},
         [("performance_volatility", "a", "warning", 150, 10)], ("performance_volatility",)),
    # Markov switching after graduation whose low phase once lasts 6 x the others (third corpus seed 27's
    # SoccerTwos): the long phase ends the chain's rhythm, but a fall that began while the env switched and
    # came back is one more low phase of that unstable period, not a regression of its own
    Case("a long low phase within switching is no regression",
         {"a": E(train="0.1+0.1x8 0.9~0.01x100 (0.35~0.01x4 0.9~0.01x4)x8 0.35~0.01x25 0.9~0.01x100"),
          "b": E(train="0.1+0.1x8 0.9~0.01x290")},
         [("performance_volatility", "a", "warning", 1080, 20)], ("performance_volatility", "graduated_regression")),
    # a wave (it takes a few points to rise and a few to fall) is neither two flat levels nor swings from
    # point to point: its periodogram has a line
    Case("a wave after graduation is volatility, not a regression",
         {"a": E(train="0.1+0.05x16 0.9~0.02x200 0.6w0.3p11~0.06x150 0.9~0.02x100"),
          "b": E(train="0.1+0.05x16 0.9~0.02x450")},
         [("performance_volatility", "a", "warning", 2160, 50)], ("performance_volatility", "graduated_regression"),
         seed=0),
    # a slow wave (18 points a period) is dated where its first half period takes it `threshold` x the range off the
    # held level (k = 3: 0.3 cos(2 pi k / 18) < 0.3 - 0.15 x 0.8), as a burst or a fall is by its first point off; its
    # envelope, a mean over a period, reaches half height where the wave begins (twenty-sixth corpus: SMAC win rates
    # 5 evals early, past the 2-eval tolerance)
    Case("a slow wave is dated by its first point off the held level",
         {"a": E(train="0.1+0.05x16 0.9~0.02x200 0.6w0.3p18~0.02x180 0.9~0.02x100"),
          "b": E(train="0.1+0.05x16 0.9~0.02x480")},
         [("performance_volatility", "a", "warning", 2190, 10)], ("performance_volatility", "graduated_regression"),
         seed=0),
    Case("a rate that oscillates all its life is volatility, not a stall",
         {"a": E(train="0.5w0.3p9~0.05x400"), "b": E(train="0.1+0.05x16 0.9~0.02x384")},
         [("performance_volatility", "a", "warning", 0, 50)], ("performance_volatility", "training_stagnation")),
    # square switching after a calm hold: a periodogram reads it as a wave too, whose envelope reaches half
    # height half a period early; the first change of level dates it (third corpus seed 22's letter_count)
    Case("square switching is dated by its first change, not a wave's envelope",
         {"a": E(train="0.1+0.05x16 0.85~0.05x70 (0.5~0.05x15 0.87~0.05x15)x6", train_every=1)},
         [("performance_volatility", "a", "warning", 86, 2)], ("performance_volatility",)),
    # a lifelong wave whose envelope sinks for less than twice its longer stretch is one wave, one incident
    # (third corpus seed 43's WallJump: two incidents, the second from its 43rd period; seed 49's CleanRL
    # CartPole, its phase drifting with per-episode points at irregular steps: twelve)
    Case("a lifelong wave with a short lull is one incident",
         {"a": E(train="0.5w0.3p8~0.05x200 0.5~0.05x20 0.5w0.3p8~0.05x200"), "b": E(train="0.1+0.05x16 0.9~0.02x400")},
         [("performance_volatility", "a", "warning", 0, 50)], ("performance_volatility", "training_stagnation")),
    Case("a lifelong wave with a lull of five periods is one incident",
         {"a": E(train="0.5w0.3p8~0.05x200 0.5~0.05x40 0.5w0.3p8~0.05x200"), "b": E(train="0.1+0.05x16 0.9~0.02x420")},
         [("performance_volatility", "a", "warning", 0, 50)], ("performance_volatility", "training_stagnation")),
    # a return waving all its life has no learned range (segmentation reads a fast wave as noise about one
    # level): judged against its noise alone, it is volatility, not an env that never learned
    Case("a return that oscillates all its life is volatility, not a stall",
         {"a": E(train="1500w700p12~50x600")}, [("performance_volatility", "a", "warning", 0, 50)],
         ("performance_volatility", "training_stagnation")),
    Case("long noisy plateaus are no wave",
         {"a": E(train="0.1+0.05x16 0.85~0.1x3000"), "b": E(train="0.1+0.04x20 0.9b8x3000")},
         [], ("performance_volatility",)),
    # fourth corpus seed 6 (ROLL's LargerSokoban): 6 points that lost half the gain and more, then back, in a
    # dense binomial-32 series — too short a dip for binary segmentation to cut out of 300 points, its last
    # three shallower than half the gain: the deep points' run takes in the points below the line after it
    Case("a six-point dip whose tail is shallower",
         {"a": E(train="0.1+0.05x18 0.95b32x100 0.38 0.44 0.47 0.59 0.56 0.53 0.95b32x200"),
          "b": E(train="0.1+0.05x18 0.95b32x306")},
         [("performance_volatility", "a", "warning", 1180, 0)], ("performance_volatility", "graduated_regression")),
    # two evals in a row that lost more than half the gain, far beyond the binomial noise, then back: a burst
    # too short for a regression's 3 points; one such eval is an outlier
    Case("two deep bad evals in a row after graduation are a dip",
         {"a": E(eval="0.1+0.1x9 0.96b64x40 0.4b64x2 0.96b64x30", eval_every=25),
          "b": E(eval="0.1+0.1x9 0.96b64x72", eval_every=25)},
         [("performance_volatility", "a", "warning", 1225, 0)], ("performance_volatility", "graduated_regression")),
    Case("one deep bad eval after graduation is an outlier",
         {"a": E(eval="0.1+0.1x9 0.96b64x40 0.4b64 0.96b64x31", eval_every=25),
          "b": E(eval="0.1+0.1x9 0.96b64x72", eval_every=25)},
         [], ("performance_volatility", "graduated_regression")),
    Case("binomial noise at p=0.5, n=32 is silent", {"noisy": E(train="0.5b32x400"), "other": E(train="0.3b32x400")},
         [], ("performance_volatility",)),
    # sixth corpus (SB3 levels, EvalCallback): a level's first evals as its training starts, a rise, a hold of
    # five phases, then switching — it learned and held before it switched, the switching begins at its
    # first drop; a hold of two phases after a lone first eval at the low level is a phase of it, from the start
    Case("switching after a rise and a long hold begins at its first drop",
         {"a": E(eval="-1180 -870 -640 -460 -300 -250~15x20 (-930~15x5 -245~15x5)x7", eval_every=1000,
                 state="1x190", state_every=500)},
         [("performance_volatility", "a", "warning", 25000, 1000)], ("performance_volatility",)),
    Case("switching after a lone first eval and a long hold begins at its first drop",
         {"a": E(eval="-930 -250~15x25 (-930~15x5 -245~15x5)x7", eval_every=1000, state="1x192", state_every=500)},
         [("performance_volatility", "a", "warning", 26000, 1000)], ("performance_volatility",)),
    Case("switching after a lone first eval and a hold of two phases began with it",
         {"a": E(eval="-930 -250~15x10 (-930~15x5 -245~15x5)x7", eval_every=1000, state="1x162", state_every=500)},
         [("performance_volatility", "a", "warning", 0, 0)], ("performance_volatility",)),
    Case("a learning curve and a level shift are not switching",
         {"a": E(train="0.1+0.02x40 0.9~0.02x100 0.5~0.02x100"), "b": E(train="0.1+0.1x8 0.9~0.03x232")},
         [], ("performance_volatility",)),
    # a steady climb (a reward, one env: no shared scale) never plateaus: still active, not graduated at
    # its last level; the staircase its segments make of the climb is no stall
    Case("a steady climber is not graduated at its last level", {"a": E(train="-0.7+0.003~0.03x300", train_every=5)},
         [("prolonged_training", "a", "info", 1000, 0)], ("prolonged_training", "training_stagnation")),
    # a slow climb whose window-long stretches rise too little to tell from the noise keeps the pace it
    # rose at: no stall at the end of the run (a stall is a pace significantly below the rise's)
    Case("a slow climb in heavy noise keeps its pace",
         {"slow": E(train="-45+0.16~5x300"), "fast": E(train="-45+4x20 45~5x280")},
         [], ("training_stagnation",), seed=1),
    # a trainer that logs its states keeps both envs active on flat tops for 15 windows: its threshold is
    # not met there, so both stalled, though each is at the top the run's envs reach
    Case("flat for 15 windows while the trainer keeps it active",
         {"a": E(state="1x40", train="-50+2x20 -10~0.5x180"), "b": E(state="1x40", train="-50+2.2x20 -6~0.5x180")},
         [("training_stagnation", "a", "warning", 200, 100), ("training_stagnation", "b", "warning", 200, 100)],
         ("training_stagnation",)),
    # an error rate of 4 trials: near 0 its lattice steps are coarse, yet 0.6 -> 0.03 is learning, and the
    # climb back to 0.5 a critical regression (lower is better by the metric's name)
    Case("an error rate of 4 trials learns, then regresses", {"a": E(train="0.6b4x26 0.03b4x300 0.5b4x100")},
         [("graduated_regression", "a", "critical", 3260, 50)], ("graduated_regression", "prolonged_training"),
         {"performance_metric": "error"}, seed=1, metric="error"),
    # an error rate (lower is better by its name) is a rate too: its best is 0, so a plateau at 0.5 errors
    # is a stall, not graduation
    Case("an error rate that stalls at 0.5 has not graduated", {"a": E(train="0.95-0.03x15 0.5~0.03x200")},
         [("training_stagnation", "a", "warning", 150, 100)], ("training_stagnation", "graduated_regression"),
         {"performance_metric": "error_rate"}, metric="error_rate"),
    Case("an error rate that falls to 0.05 graduates", {"a": E(train="0.95-0.06x15 0.05~0.02x200")},
         [], ("training_stagnation", "prolonged_training"), {"performance_metric": "error_rate"}, metric="error_rate"),
    # a success rate above 0.7 of its whole range stalls nowhere, though it never rose (it started there)
    Case("a rate held at 0.9 from its first point has not stalled",
         {"a": E(train="0.88~0.02x300")}, [], ("training_stagnation",), config={"performance_metric": "success"},
         metric="success"),
    # a run of one env that never learned (a return flat from its first point) is stalled from the start:
    # nothing says its level is a top (beside siblings on other scales it may be one already good: unknown)
    # a rate's temporary fall whose noise grew with the level it fell to (read as gaussian: more trials than a
    # lattice shows) moved as one: a regression that came back, not a burst (fifth corpus's ROLL Sokoban evals)
    Case("a temporary fall with the noise of its level is a regression",
         {"a": E(eval="0.1+0.1x8 0.9~0.01x100 0.7~0.02x20 0.9~0.01x100")},
         [("graduated_regression", "a", "warning", 5400, 100)], ("graduated_regression", "performance_volatility"),
         {"performance_metric": "success"}, metric="success"),
    Case("the only env of a run never learns", {"a": E(train="-1200~20x400")},
         [("training_stagnation", "a", "warning", 0, 100)], ("training_stagnation", "prolonged_training")),
    # a never-learner's lucky batch or two (a one-point segment back at 0 right after) is no progress: its
    # stall runs from activation (seventh corpus seed 3's drawer — was: stalled from the second blip only)
    Case("a never-learner's lucky batches are no progress",
         {"a": E(train="0x51 0.2 0x2 0.2 0x245"), "b": E(train="0.1+0.05x17 0.95~0.02x282")},
         [("training_stagnation", "a", "warning", 0, 100)], ("training_stagnation",),
         {"performance_metric": "success"}, metric="success"),
    # envs of one task start from one level: what one reaches is reachable, so a stall far below it is
    # a stall, not graduation at the env's own top (rewards: no natural scale)
    Case("a stall below what a sibling from the same start reaches",
         {"a": E(train="-0.9+0.06x30 0.9~0.02x170"), "b": E(train="-0.9+0.03x20 -0.3~0.02x180")},
         [("training_stagnation", "b", "warning", 200, 100)], ("training_stagnation",)),
    Case("envs that start apart share no scale",
         {"a": E(train="-0.9+0.06x30 0.9~0.02x170"), "b": E(train="5+0.3x20 11~0.2x180")},
         [], ("training_stagnation",)),
    # baselines: a fall from the held level after a late inferred graduation (on the rising edge)
    Case("fall from the held level after a late graduation",
         {"a": E(train="0.1+0.004x200 0.9+0.01x7 0.97~0.005x93", eval="0.1+0.02x40 0.9+0.01x7 0.97~0.005x13 0.77~0.01x30")},
         [("graduated_regression", "a", "warning", 3000, 100)], ("graduated_regression",)),
    Case("held level after a late graduation",
         {"a": E(train="0.1+0.004x200 0.9+0.01x7 0.97~0.005x93", eval="0.1+0.02x40 0.9+0.01x7 0.97~0.005x43")},
         [], ("graduated_regression",)),
    # evals that start late on a fast rise never see where the env began; training did (0.05): the fall to
    # 0.71 keeps 73 % of the gain from there (a warning, crossing 0.85 of it at ~1550), not 7 % of the gain
    # from the first eval's 0.69
    Case("evals that start late on a fast rise: the start is where training began",
         {"a": E(train=f"{EXP_RISE} 0.95~0.01x90 0.95-0.004x60 0.71~0.01x96",
                 eval="_x2 0.692 0.812 0.876 0.910 0.95~0.01x18 0.95-0.02x12 0.71~0.01x20")},
         [("graduated_regression", "a", "warning", 1550, 50)], ("graduated_regression",)),
    # a run's only env, a success rate already at 0.95 from its first point (it knew the lesson): its rate's own
    # bounds show its top (no sibling does), so it graduated once it held it; a fall to 0.6 keeps 63 % of the
    # gain from the rate's 0 — was: never seen to learn, it never graduated, and the fall was `healthy`
    Case("a rate at its top from its first point, alone, then a fall",
         {"a": E(train="0.95b32x200 0.6b32x100")}, [("graduated_regression", "a", "critical", 2000, 20)]),
    Case("a rate at its top from its first point, alone, holds", {"a": E(train="0.95b32x300")}, []),
    # an error rate (lower is better by its name) at 0.05 from its first point, then 0.4: it keeps 63 % of the gain
    # from its worst, 1 (as accuracy 0.95 -> 0.6) — was: never graduated, `healthy`
    # a cost (collisions an episode, lower is better) already low when its trainer graduated it, that rises 20-fold:
    # no gain shows and a cost has no worst to measure one from — the plain ratio's mirror (a cost up by 15 % keeps
    # 0.85 of it, as a return down by 15 %): critical — was: no share meant anything, `healthy`
    Case("a cost low from its first point, graduated by its trainer, then a 20-fold rise",
         {"a": E(train="0.15~0.05x200 3~0.5x100", state="1x2 2x58")}, [("graduated_regression", "a", "critical", 2000, 20)],
         config={"performance_metric": "collisions", "direction": "lower"}, metric="collisions"),
    Case("an error rate at its best from its first point, alone, then a rise",
         {"a": E(train="0.05b32x200 0.4b32x100")}, [("graduated_regression", "a", "critical", 2000, 20)],
         config={"performance_metric": "error_rate"}, metric="error_rate"),
    Case("a rate flat at 0.5 from its first point, alone, is no graduate", {"a": E(train="0.5b32x300")},
         [("training_stagnation", "a", "warning", 0, 20)]),
]


def test_a_rates_lone_successes_among_many_episodes_are_no_returns(tmp_path):
    """RLlib's custom_metrics success mean of a never-learner (eleventh corpus seed 3's button-press): 0, or one success
    among the 9-20 episodes that ended in the iteration (1/16, 1/9, 1/13 ...). Those values were read as single
    episodes' sparse-reward returns worth ~0.11: the env's best 0.11, its ~0.01 a level near it, no stall — `healthy`
    for 2.6M steps. A rate's successes of a whole number of episodes are no returns: it stalled from its first point."""
    values = _fixture_series("rllib_rare_successes_among_many")
    case = Case("rare successes", {"a": E(train=values, train_every=4000, start=4000)},
                [("training_stagnation", "a", "warning", 4000, 4000)])
    got, run = run_case(case, tmp_path)
    check(case, got)
    assert run.environments[0].health_status == "warning"


@pytest.mark.parametrize("case", SHAPES, ids=[c.name for c in SHAPES])
def test_shape_case(case, tmp_path):
    got, _run = run_case(case, tmp_path)
    check(case, got)


def test_training_stopped_at_graduation_ends_graduated(tmp_path):
    case = next(c for c in SHAPES if c.name == "training stops at graduation, eval holds")
    _got, run = run_case(case, tmp_path)
    a = next(e for e in run.environments if e.env_id == "a")
    assert a.current_state == "graduated" and a.graduation_step == 640  # its last training point
    assert a.health_status == "healthy" and a.graduation_baseline == pytest.approx(0.9, abs=0.03)


def test_one_event_one_incident_and_no_contradictions(tmp_path):
    case = Case("collapse right after graduation", {"a": E(state="1x10 2x70", train="0.1+0.09x10 0.95~0.01x40",
                                                        eval="0.1+0.09x10 0.95~0.01x4 0.4~0.02x60")}, [])
    got, run = run_case(case, tmp_path)
    (incident,) = [w for w in got if w.severity == "critical"]
    assert incident.type == "graduated_regression" and incident.evidence["rapid"] is True
    assert 0 <= incident.evidence["steps_after_graduation"] <= 500
    (env,) = run.environments
    assert env.performance_trend != "stable" and env.health_status == "critical"
    assert env.peak_performance >= max(env.current_train_performance, env.current_eval_performance)


def test_switching_is_reported_as_switching(tmp_path):
    case = next(c for c in SHAPES if c.name == "lifelong switching beside binomial noise")
    got, _run = run_case(case, tmp_path)
    (incident,) = got
    assert incident.evidence["kind"] == "switching" and not incident.resolved


def test_a_dip_just_before_switching_sets_in_is_the_switching(tmp_path):
    """Two bad points, a dozen good ones, then switching in phases of 10 points: one unstable period,
    dated from the dip and reported as switching (not as the dip the switching was taken into)."""
    case = Case("dip then switching", {
        "a": E(train="0.1+0.1x8 0.9~0.02x40 0.2~0.02x2 0.9~0.02x12 (0.3~0.02x10 0.9~0.02x10)x10"),
        "b": E(train="0.1+0.05x16 0.9~0.02x400")}, [])
    got, _run = run_case(case, tmp_path)
    (incident,) = got
    assert (incident.type, incident.first_step, incident.evidence["kind"]) == ("performance_volatility", 480, "switching")


def _fixture_lines(name: str) -> list[str]:
    """A committed fixture's series lines (tests/fixtures/series/NAME.txt, comment lines aside)."""
    from pathlib import Path

    lines = (Path(__file__).parent / "fixtures" / "series" / f"{name}.txt").read_text().splitlines()
    return [line for line in lines if line and not line.startswith("#")]


def _fixture_series(name: str) -> str:
    """A committed series (tests/fixtures/series/NAME.txt: a comment line, then the values) in the notation."""
    return " ".join(_fixture_lines(name))


@pytest.mark.parametrize("more", [0, 60])
def test_switching_that_ends_the_log_at_its_low_level(tmp_path, more):
    """An Atropos rate (third corpus seed 84's tool_calling) switches between ~0.86 and ~0.43 in phases of ~22
    steps after graduating, and its log ends 66 steps into a low phase: that is one more phase, cut short by the
    end of the log — the switching goes on to the end and says the env is low again; no regression beside it.
    Was: the regression's spans (merged by the cooldown) were explained by the switching, which had ended —
    the env healthy at 42 % of its gain. With 60 more low points (5.7 phases) the env fell for good: a critical
    regression going on to the end, beside the switching."""
    train = _fixture_series("atropos_tool_calling_switching_train") + (f" 0.43~0.02x{more}" if more else "")
    case = Case("ends low", {"a": E(train=train, train_every=1)}, [])
    got, run = run_case(case, tmp_path)
    (env,) = run.environments
    vol = [w for w in got if w.type == "performance_volatility"]
    reg = [w for w in got if w.type == "graduated_regression"]
    assert len(vol) == 1 and vol[0].evidence["kind"] == "switching" and abs(vol[0].first_step - 187) <= 3, got
    if not more:
        assert reg == [] and not vol[0].resolved and vol[0].last_step == 399 and "low again" in vol[0].message, got
        assert vol[0].evidence["ends_low"] and env.health_status == "warning"
    else:
        assert len(reg) == 1 and reg[0].severity == "critical" and not reg[0].resolved, got
        assert env.health_status == "critical"


@pytest.mark.parametrize("with_states", [False, True])
def test_a_burst_over_a_third_of_sparse_binomial_evals(tmp_path, with_states):
    """A lesson trained until it graduated (ninth corpus seed 3's door-46: training rows stop at ~15,000) keeps
    being evaluated, 82 trials every 700 steps; a third of its evals scatter below the held level from step
    24,500, then it is calm again. Those widen the whole eval series' noise by half (read as overdispersion), and
    within that noise few of them lie far off: a warning regression that came back. The evals outside them fit
    the binomial model itself: judged against it, they are a burst."""
    evals, train = _fixture_lines("many_short_burst_in_sparse_evals")
    evals = "_x3 " + " _x6 ".join(evals.split())  # every 700 steps from 11,900 on a grid of 100 from 11,600
    states = "1x34 2x348" if with_states else ""
    sibling = E(train="0.05+0.05x18 0.94b52x16", eval="0.1+0.4x2 0.94b82x53", state=states, train_every=100,
                eval_every=700, state_every=100, start=11600)  # a lesson of the same run: where lessons start
    case = Case("burst in sparse evals", {"a": E(train=train, eval=evals, state=states, train_every=100,
                                                 eval_every=100, state_every=100, start=11600), "b": sibling},
                [("performance_volatility", "a", "warning", 24500, 700)],
                ("performance_volatility", "graduated_regression"))
    got, _run = run_case(case, tmp_path)
    check(case, got)
    assert got[0].evidence["kind"] == "burst" and got[0].resolved


def test_a_burst_in_widened_evals_is_dated_by_the_model(tmp_path):
    """Ninth corpus seed 2's maze-01: 95-trial evals every 900 steps, a burst from step 17,100 that widens the
    series' noise (read as overdispersion) though the evals outside it fit the binomial model. Within the widened
    noise the burst is found too, but its first points lie within that noise: dated by the model, whose noise the
    rest of the series shows, it begins at 17,100. Was: at 19,800."""
    evals, train = _fixture_lines("many_short_burst_dated")
    case = Case("burst dated", {"a": E(train=train, eval=evals, train_every=100, eval_every=900),
                                "b": E(train="0.05+0.05x18 0.95b19x39", eval="0.05+0.45x2 0.95b95x56",
                                       train_every=100, eval_every=900)},
                [("performance_volatility", "a", "warning", 17100, 450)], ("performance_volatility",))
    got, _run = run_case(case, tmp_path)
    check(case, got)


def test_switching_after_a_learned_hold_is_dated_from_its_first_drop(tmp_path):
    """A lesson (ninth corpus seed 2's door-26) learns from ~0 to ~0.95 by step 10,500, holds it for about one and a
    half of the phases to come, then switches between ~0.95 and ~0.42 from step 16,500 to the end. The first high
    phase is the level it learned into from below the low one, held until the switching began: the switching is
    dated from its first drop. Was: from step 10,500, where the learning reached the top."""
    evals, train = _fixture_lines("many_short_switching_after_a_hold")
    evals = "_x3 " + " _x4 ".join(evals.split())  # every 500 steps from 7,500 on a grid of 100 from 7,200
    sibling = E(train="0.02+0.05x19 0.95b38x20", eval="0.02+0.3x3 0.95b75x80", train_every=100, eval_every=500,
                start=7200)
    case = Case("switching after a hold", {"a": E(train=train, eval=evals, train_every=100, eval_every=100,
                                                  start=7200), "b": sibling},
                [("performance_volatility", "a", "warning", 16500, 500)], ("performance_volatility",))
    got, _run = run_case(case, tmp_path)
    check(case, got)
    assert got[0].evidence["kind"] == "switching"


def test_switching_that_climbs_out_of_a_deep_drop_is_no_learned_hold(tmp_path):
    """Third corpus seed 93's SoccerTwos learns in stairs, holds ~0.83, then at step 2,030,000 drops to ~0, climbs
    back and swings between ~0.45 and ~0.95. The climb out of the drop is no learning rise into a held level: the
    unstable period is dated from the drop (within 3 summary periods; the learned-hold dating, walking back
    through the climb, dated it 5 periods late)."""
    envs = {name: E(train=values, train_every=10000, start=int(first)) for name, first, values in
            (line.split(" ", 2) for line in _fixture_lines("mlagents_burst_from_a_deep_drop"))}
    case = Case("drop then swings", envs, [("performance_volatility", "SoccerTwos", "warning", 2030000, 30000)],
                ("performance_volatility",))
    got, _run = run_case(case, tmp_path)
    check(case, got)


@pytest.mark.parametrize("seed", range(4))
def test_overdispersed_sparse_binomial_evals_stay_calm(tmp_path, seed):
    """Evals that log 78 trials but scatter like 30 (batches of problems of unequal difficulty) all their life are
    widened all their life: a stretch whose points lie 4 of the model's sds off but within their widened noise
    (0.74-0.77 among values about 0.92) is no burst."""
    rng = np.random.default_rng(seed)
    wide = np.round(rng.binomial(30, 0.92, 54) / 30 * 78) / 78
    wide[30:37] = np.array([53, 70, 54, 72, 53, 71, 54]) / 78
    evals = "0.1 0.5 " + " ".join(f"{v:.6f}" for v in wide)
    lesson = dict(train="0.05+0.05x18 0.94b52x16", train_every=100, eval_every=700, start=11600)
    case = Case("overdispersed evals", {"a": E(eval=evals, **lesson), "b": E(eval="0.1+0.4x2 0.94b82x53", **lesson)},
                [], ("performance_volatility", "graduated_regression"))
    got, _run = run_case(case, tmp_path)
    check(case, got)


def _outcomes(seed: int, returns: bool, n: int = 700) -> str:
    """One episode's outcome a point: solved with probability 0.02 -> 0.9 over ~100 points, then held; a 0/1
    success flag, or its MiniGrid-style return (0 unless solved, else 0.9 x (1 - 0.1 U))."""
    rng = np.random.default_rng(seed)
    won = rng.random(n) < 0.02 + 0.88 * (1 - np.exp(-np.arange(n) / 40))
    worth = 0.9 * (1 - 0.1 * rng.random(n)) if returns else np.ones(n)
    return " ".join(f"{v:.4f}" for v in np.where(won, worth, 0.0))


@pytest.mark.parametrize("returns", [False, True])
def test_single_episode_outcomes_graduate_and_their_noise_is_no_volatility(tmp_path, returns):
    """Six levels logging one episode's outcome a point (eighth corpus: raw 0/1 outcomes at irregular steps; a
    PLR level's return of the episode it replayed): Bernoulli noise, a binomial rate of one trial (a return's
    worth ~0.9 its best). Read as gaussian, its calm windows (runs of successes) made every failure a swing, a
    dip or a wave, and some levels never graduated; read as a rate of best 1, the returns never reached 0.7
    of it. (Chance waves still show in such noise now and then: seeds 6 and 18 hold one or two.)"""
    envs = {f"lvl_{k}": E(train=_outcomes(12 + k, returns), train_every=1) for k in range(6)}
    got, run = run_case(Case("outcomes", envs, []), tmp_path)
    assert [w for w in got if w.type == "performance_volatility"] == [], got
    assert all(e.current_state == "graduated" and e.graduation_step < 200 for e in run.environments), \
        [(e.env_id, e.current_state, e.graduation_step) for e in run.environments]


def test_chance_dips_of_lattice_noise_in_a_long_series_are_not_switching(tmp_path):
    """759 points of an ML-Agents behavior held near 1 (means of ~8 episodes): somewhere in so long a
    series its lattice noise makes a chain of one- and two-point dips that alternate 4 times. Short
    phases need 8 changes in a series of over 100 points."""
    case = Case("lattice noise near 1", {"a": E(train=_fixture_series("mlagents_pushblock_near_1"), train_every=1000),
                                         "b": E(train="0.1+0.1x9 0.96b8x750", train_every=1000)}, [])
    got, _run = run_case(case, tmp_path)
    assert [w for w in got if w.type == "performance_volatility"] == []


def test_a_learning_stair_is_no_phase_of_a_burst_read_as_switching(tmp_path):
    """800 Atropos points that learn slowly to ~0.95, then burst for 111 steps from step 310. The segments
    read the middle of the rise as one low phase, the held level high, the burst's first two points low
    and the burst (its mean pulled down) high again: four changes, so switching from step 40 — and
    graduation, never inside switching, came only after it, so the burst was learning noise. Without
    its first phase (a stair of the rise) the chain has too few changes: no switching; the burst is."""
    case = Case("burst after a slow approach", {
        "a": E(train=_fixture_series("atropos_burst_after_slow_approach"), train_every=1)}, [])
    got, run = run_case(case, tmp_path)
    (env,) = run.environments
    assert env.graduation_step < 310
    (incident,) = got
    assert (incident.type, incident.evidence["kind"]) == ("performance_volatility", "burst")
    assert abs(incident.first_step - 310) <= 2


def test_a_wave_from_its_best_level_is_dated_from_activation(tmp_path):
    """A per-env NLL that waves all its life from its first point, where it is at its best: its first half
    period falls from the better level to the worse one before the first change that segmentation reads.
    Learning climbs into switching; falling from the better level is the wave's own first half: dated from
    activation (step 1), not from step 28."""
    train, evals = _fixture_lines("userprof_nll_wave_from_its_best")
    case = Case("wave from its best", {"a": E(train=train, train_every=1, start=1, eval=evals, eval_every=10)}, [],
                config={"performance_metric": "nll", "direction": "lower"}, metric="nll")
    got, _run = run_case(case, tmp_path)
    (incident,) = got
    assert (incident.type, incident.first_step) == ("performance_volatility", 1)


def test_a_learning_rest_at_the_low_level_is_no_phase_of_later_switching(tmp_path):
    """An Atropos env learns in stairs (a rest at ~0.67), holds ~0.91, then switches between ~0.91 and ~0.56
    from step 181. Read two-level, the rise below both levels is left out, so the rest became the chain's
    first phase with nothing before it, and switching ran from step 43 (before graduation, so dated from
    activation). The points just before the rest lie far lower: it is a stair of the rise, and the
    switching begins at its first change."""
    train, evals = _fixture_lines("atropos_switching_after_a_learning_rest")
    case = Case("switching after a learning rest", {"a": E(train=train, train_every=1, eval=evals, eval_every=5),
                                                    "b": E(train="0.1+0.05x17 0.95~0.03x383", train_every=1)}, [])
    got, _run = run_case(case, tmp_path)
    (incident,) = got
    assert (incident.type, incident.evidence["kind"]) == ("performance_volatility", "switching")
    assert abs(incident.first_step - 181) <= 2


def test_a_burst_of_short_phases_in_a_few_dozen_sparse_evals_is_switching(tmp_path):
    """In 47 sparse evals the same kind of chain (phases of 1-2 evals, 6 changes) is a burst."""
    case = Case("burst in sparse evals", {
        "a": E(eval="0.1+0.1x9 0.95~0.02x15 0.5~0.02 0.95~0.02 0.5~0.02x2 0.95~0.02 0.5~0.02 0.95~0.02x15", eval_every=20),
        "b": E(eval="0.1+0.1x9 0.95~0.02x38", eval_every=20)}, [])
    got, _run = run_case(case, tmp_path)
    (incident,) = got
    assert (incident.type, incident.first_step, incident.evidence["kind"]) == ("performance_volatility", 480, "switching")


def test_a_climber_whose_series_ends_in_a_wobble_has_not_graduated(tmp_path):
    """289 points of an SB3 return that rises steadily and jumps, then settles, in its last 9 points:
    fewer than half the points a slope needs to tell its pace from flat, so it was not seen to stop. It
    stays active, and active that long it is prolonged training."""
    case = Case("steady riser", {"a": E(train=_fixture_series("sb3_halfcheetah_steady_riser"), train_every=2048)}, [])
    got, run = run_case(case, tmp_path)
    (env,) = run.environments
    assert (env.current_state, env.graduation_step) == ("active", None)
    assert [w.type for w in got] == ["prolonged_training"]


def test_a_steady_riser_whose_last_window_lies_flat_has_not_stalled(tmp_path):
    """An ML-Agents riser (0.15 -> 0.6 over 265 points, never flat) whose last 22 points happen to lie
    flat, beside a sibling that learned to 0.9: the rise-then-flat fit breaks where the flat end fits best,
    so the pace after the break, 2.6 standard errors below the rise's, is largely the fit's own choice.
    Under two windows after the break the pace must fall 3 standard errors; a frozen learner's does by far
    more."""
    case = Case("riser with a flat end", {
        "a": E(train=_fixture_series("mlagents_steady_riser_flat_end"), train_every=1000, start=1000),
        "b": E(train="0.1+0.04x20 0.9~0.01x245", train_every=1000, start=1000)}, [])
    got, run = run_case(case, tmp_path)
    assert [(w.type, w.env_id) for w in got] == [("prolonged_training", "a")]


def test_a_gradual_fall_is_dated_where_its_points_cross_the_line(tmp_path):
    """77 evals of a gradual fall: segmentation ends the held segment after the fall began, so that
    segment's last points are already below the regression line. first_step is the first point below
    the line: the one before it is still above."""
    values = [float(v) for v in _fixture_series("atropos_gradual_fall").split()]
    case = Case("gradual fall", {"a": E(eval=" ".join(map(str, values)), eval_every=10)}, [])
    got, _run = run_case(case, tmp_path)
    (incident,) = got
    assert incident.type == "graduated_regression"
    start, held = incident.evidence["start_level"], incident.evidence["baseline"]
    share = [(v - start) / (held - start) for v in values]
    i = incident.first_step // 10
    assert share[i] < 0.85 <= share[i - 1], (incident.first_step, share[i - 1], share[i])


def test_a_linear_fall_is_dated_where_its_ramp_crosses_the_line(tmp_path):
    """A fall of 0.005 per point over 80 points: segmentation cuts the ramp into a staircase whose
    first step below the line begins after the ramp crossed it. The fitted ramp dates it at the first
    point past the crossing (to within a point); a sudden fall stays dated at its first low point."""
    case = Case("linear fall", {"a": E(train="0.1+0.1x9 0.95~0.03x60 0.95-0.005x80 0.55~0.03x40", train_every=10),
                                "b": E(train="0.1+0.1x9 0.95b32x60 0.79b32x40", train_every=10)}, [])
    got, _run = run_case(case, tmp_path)
    by_env = {w.env_id: w for w in got if w.type == "graduated_regression"}
    ramp = by_env["a"]
    line = ramp.evidence["start_level"] + 0.85 * (ramp.evidence["baseline"] - ramp.evidence["start_level"])
    crossing = 10 * (69 + next(k for k in range(80) if 0.95 - 0.005 * k < line))
    assert abs(ramp.first_step - crossing) <= 10, (ramp.first_step, crossing)
    assert by_env["b"].first_step == 690


def test_a_gradual_fall_in_sparse_evals_is_dated_within_two_evals_of_its_true_crossing(tmp_path):
    """112 tinker evals (third corpus) of a linear fall over 94 steps whose true curve crosses 0.85 of
    the gain at step 1014; the low segment begins earlier, on a noisy point."""
    case = Case("linear fall in evals", {"a": E(eval=_fixture_series("tinker_linear_fall"), eval_every=10)}, [])
    got, _run = run_case(case, tmp_path)
    (incident,) = got
    assert incident.type == "graduated_regression" and abs(incident.first_step - 1014) <= 20, incident.first_step


def test_a_fall_found_in_sparse_noisy_evals_is_dated_on_denser_training(tmp_path):
    """Evals every 50 steps (noise +-0.08) and training every 10 (+-0.01) fall together from 0.95 to
    0.65 over 300 steps. The evals' noise keeps two of them above the line: they date the fall 13
    training points late. Training's own fall crosses 85 % of its gain at step 3220; it overlaps the
    evals' and crossed within three eval intervals of them, so it dates the incident."""
    case = Case("gradual fall, sparse evals", {"a": E(
        train="0.1+0.1x9 0.95~0.01x300 0.95-0.01x30 0.65~0.01x200", train_every=10,
        eval="0.1+0.2x5 0.95~0.08x57 0.95-0.05x6 0.65~0.08x40", eval_every=50)}, [])
    got, _run = run_case(case, tmp_path)
    (incident,) = got
    assert incident.type == "graduated_regression" and incident.evidence["series"] == "eval"
    line = 0.1 + 0.85 * 0.85
    crossing = 3090 + 10 * next(k for k in range(30) if 0.95 - 0.01 * k < line)
    assert abs(incident.first_step - crossing) <= 10, (incident.first_step, crossing)


def test_a_wave_after_a_long_calm_is_dated_where_it_leaves_the_held_level(tmp_path):
    """200 evals (third corpus): a slow wave sets in after a long calm and is read as switching.
    A wave leaves its level gradually and its first points on the way down join the calm phase; the
    episode is dated back to where they were already on their way (the true start is eval 156.4)."""
    case = Case("wave after calm", {"a": E(eval=_fixture_series("userprof_sinus_after_graduation"), eval_every=50)}, [])
    got, _run = run_case(case, tmp_path)
    (incident,) = got
    assert incident.evidence["kind"] == "switching"
    assert abs(incident.first_step - 50 * 156.4) <= 2 * 50, incident.first_step


def test_swings_at_the_level_a_regression_fell_to_are_the_regression(tmp_path):
    """An ML-Agents rate (third corpus) falls from ~0.94 to ~0.34 and stays: its beta-binomial noise
    there, far from the bound, is wider than at the top, and swings over it. One event: the regression."""
    case = Case("fall to a noisy level", {"a": E(train=_fixture_series("mlagents_fall_to_noisy_level"), train_every=1000)}, [])
    got, _run = run_case(case, tmp_path)
    assert [(w.type, w.severity) for w in got] == [("graduated_regression", "critical")]


def test_a_burst_in_light_tailed_noise_clipped_at_a_bound_swings(tmp_path, monkeypatch):
    """An ML-Agents reward (third corpus) with uniform noise clipped at 1 and a 28-period burst: against
    1.5 x its quieter windows the burst's swings read 1.9 x the noise; light-tailed noise spreads its
    windows little, and against 1.2 x its median window they are swings (the burst began at step 279,000
    here: the series starts at step 0). Its points far off the held level and its changes' ranks show it
    too (one incident); with those (and dips, `dip_points: 0`) turned off, the swings alone find it."""
    series = _fixture_series("mlagents_clipped_burst")
    case = Case("clipped burst", {"a": E(train=series, train_every=1000)}, [])
    got, _run = run_case(case, tmp_path)
    (incident,) = got
    assert abs(incident.first_step - 279000) <= 4000, incident
    monkeypatch.setattr(volatility, "burst_z_min", lambda n: np.inf)
    case = Case("clipped burst", {"a": E(train=series, train_every=1000)}, [],
                config={"rules": NO_DIPS})
    got, _run = run_case(case, tmp_path / "swings")
    (incident,) = got
    assert incident.evidence["kind"] == "swings" and abs(incident.first_step - 279000) <= 4000, incident


def test_a_burst_in_very_low_noise_is_dated_where_it_began(tmp_path):
    """An ML-Agents reward (third corpus) with noise of ~0.003 and a 27-period burst clipped at 1: its
    swings stay under 0.15 x the range (the clipped side is lost) and only its deepest points were seen, as
    a dip 17 periods late; its changes rank far above the calm's from its first point on (the burst began at
    step 1,570,000 here: the series starts at step 0)."""
    case = Case("burst in low noise", {"a": E(train=_fixture_series("mlagents_burst_in_low_noise"), train_every=10000)}, [])
    got, _run = run_case(case, tmp_path)
    (incident,) = got
    assert incident.evidence["kind"] == "burst" and abs(incident.first_step - 1570000) <= 20000, incident


def test_a_burst_is_sized_on_the_envs_own_gain_not_the_runs_wider_scale(tmp_path):
    """A score that learned from 14 to 95 beside a sibling from the same start to 200 (one shared scale,
    14..200): a burst of 145 points scattered +-40 about 85 after graduating, in noise of +-2, is volatility —
    its size (rms ~25) is a third of the env's own gain, though under 0.15 x the run's range (third corpus
    seed 85's duel_easy: healthy)."""
    a = "14+1x81 95~2x500 85~40x145 95~2x200"
    case = Case("burst on a narrower gain", {"a": E(train=a, train_every=1),
                                             "b": E(train="14+2x93 200~3x833", train_every=1)}, [])
    got, _run = run_case(case, tmp_path)
    vol = [w for w in got if w.type == "performance_volatility" and w.env_id == "a"]
    assert len(vol) == 1 and abs(vol[0].first_step - 581) <= 10, got
    assert [w for w in got if w.env_id == "b"] == [], got


def test_a_burst_a_rolling_mean_smooths_is_sized_on_the_evals(tmp_path):
    """SB3 (third corpus): `rollout/ep_rew_mean` is the mean of the last 100 episodes, and a burst of
    noise shows in it as a wander whose changes rank far above the calm's but whose points stay near the
    held level; the evals over the same steps show its size (the burst began at step 477,184 here: both
    series start at step 0)."""
    case = Case("smoothed burst", {"a": E(train=_fixture_series("sb3_hopper_burst_train"), train_every=2048,
                                          eval=_fixture_series("sb3_hopper_burst_eval"), eval_every=10240)}, [])
    got, _run = run_case(case, tmp_path)
    (incident,) = got
    assert incident.evidence["kind"] == "burst" and abs(incident.first_step - 477184) <= 2 * 10240, incident


def test_a_collapse_120_points_after_the_rise_is_no_rolling_window(tmp_path):
    """SB3 DQN's `ep_rew_mean` (tenth corpus seed 1's FrozenLake, alone in its run): a rise over 60 points, a hold, a
    collapse ~120 points after the rise, then a low level for good. The rise's and the collapse's changes correlate
    negatively at that lag, as a rolling window's entering and leaving episodes do, but only through those two
    runs of changes: pair by pair (a quadrant correlation) they do not. Read as a 122-point window, the series'
    noise wandered so far that nothing but the collapse was a change of level, and the env — never seen to learn
    — stalled from its first point. One critical regression."""
    from curriwatch.levels import rolling_span

    from writers import write_tb

    values = [float(v) for v in _fixture_series("sb3_dqn_collapse_after_hold").split()]
    assert rolling_span(np.array(values)) is None
    # as SB3 writes it (RL-Zoo's {EnvId}/DQN_1 folder): the sb3 profile reads ep_rew_mean as a rolling mean
    write_tb(tmp_path / "FrozenLake-v1" / "DQN_1", {"rollout/ep_rew_mean": [(200 * (k + 1), v) for k, v in
                                                                             enumerate(values)]})
    ingest = curriwatch.load(tmp_path)
    assert [r.profile for r in ingest.runs] == ["sb3"]
    (run,) = curriwatch.analyze(ingest).runs
    got = run.warnings
    assert [(w.type, w.severity) for w in got] == [("graduated_regression", "critical")], got
    assert abs(got[0].first_step - 30200) <= 2 * 200 and run.environments[0].graduation_step is not None


def test_a_steady_riser_in_a_rolling_mean_is_no_graduate(tmp_path):
    """SB3 PPO (third corpus seed 81's CartPole): `rollout/ep_rew_mean`, a 5-point rolling mean, rises steadily over
    the whole run and never levels; EvalCallback's evals rise with it. Read as AR(1) noise with the window's lag-1
    correlation, the rise's late stretch was one level: graduated on the rising line, healthy. Every 5th point is the
    mean of its own episodes, and read that way the rise goes on to the end: never graduated, prolonged_training."""
    from curriwatch.levels import rolling_span

    from writers import write_tb

    train = [float(v) for v in _fixture_series("sb3_steady_riser_train").split()]
    evals = [float(v) for v in _fixture_series("sb3_steady_riser_eval").split()]
    assert rolling_span(np.array(train)) == 5
    write_tb(tmp_path / "CartPole-v1" / "PPO_1", {
        "rollout/ep_rew_mean": [(2048 * (k + 1), v) for k, v in enumerate(train)],
        "eval/mean_reward": [(2048 + 8192 * k, v) for k, v in enumerate(evals)]})
    ingest = curriwatch.load(tmp_path)
    assert [r.profile for r in ingest.runs] == ["sb3"]
    (run,) = curriwatch.analyze(ingest).runs
    (env,) = run.environments
    assert env.graduation_step is None and [w.type for w in run.warnings] == ["prolonged_training"], run.warnings


def test_a_rolling_mean_of_outliers_holds_no_moderate_burst(tmp_path, monkeypatch):
    """SB3's `ep_rew_mean` (third corpus, healthy) over episodes with 3 % outliers: each outlier moves the
    100-episode mean as it enters and again as it leaves, and the changes of such a smoothed series are not
    white (their lag-1 correlation is near 0, not -0.5), so a stretch's ranks reach the bar with a ratio
    under 2 by chance; only white noise lets a ratio under 2 count (over a stretch short enough: see
    test_a_drifting_noise_level_is_no_burst)."""
    case = Case("rolling mean of outliers", {"a": E(train=_fixture_series("sb3_acrobot_contaminated_rolling_mean"),
                                                    train_every=2048, start=2048)}, [], ("performance_volatility",))
    got, _run = run_case(case, tmp_path)
    assert got == []
    monkeypatch.setattr(volatility, "_white", lambda y: True)
    monkeypatch.setattr(volatility, "DRIFT_SHARE", 1.0)
    got, _run = run_case(case, tmp_path / "white")
    assert [i.evidence["kind"] for i in got] == ["burst"], got


def test_outliers_at_the_other_level_are_no_phases(tmp_path):
    """A CleanRL return (third corpus) with heavy outlier-contaminated noise, clipped at 500: it learns
    to ~440, holds it for 400 episodes and collapses to ~170 for good. Its outliers reach the other
    level alone and, now and then, two in a row: read as two levels, those runs were phases and the
    rise and collapse switching, so it never graduated. Runs no longer than its lone outliers make by
    chance are noise: one critical regression, at episode 443 (step 21,264 here)."""
    case = Case("collapse in contaminated noise",
                {"a": E(train=_fixture_series("cleanrl_collapse_in_contaminated_noise"), train_every=48)}, [])
    got, run = run_case(case, tmp_path)
    assert [(w.type, w.severity) for w in got] == [("graduated_regression", "critical")], got
    assert abs(got[0].first_step - 443 * 48) <= 2 * 48 and run.environments[0].graduation_step is not None


def test_switching_at_every_point_is_one_episode(tmp_path):
    """After a calm, a return is drawn anew at every point from two levels (random switching): a quarter
    of its points are lone runs, and runs of any length are chance — not the rare outliers of a calm
    series, whose chance runs are noise. One switching incident from the first change (erasing its
    chance runs split it into switching, a regression and a wave)."""
    draws = np.random.default_rng(3).choice([20.0, 80.0], 1000) + np.random.default_rng(4).uniform(-1, 1, 1000)
    case = Case("random switching", {"a": E(train="10+10x8 90~1x300 " + " ".join(f"{v:.2f}" for v in draws))}, [])
    got, _run = run_case(case, tmp_path)
    (incident,) = got
    assert incident.evidence["kind"] == "switching" and abs(incident.first_step - 3080) <= 20, incident


def test_noise_straddling_the_line_at_the_end_is_no_dip(tmp_path):
    """1,381 evals (third corpus) of a score with heavy outlier-contaminated noise, healthy to the end:
    three of its last points sit below the regression line and the next is back. Their mean is within
    4 standard errors of the held level: noise, not a dip (one was reported at step 1,495)."""
    case = Case("noisy end", {"a": E(eval=_fixture_series("userprof_noisy_end"), eval_every=1)}, [])
    got, run = run_case(case, tmp_path)
    assert run.environments[0].graduation_step is not None
    assert [w for w in got if w.type == "performance_volatility"] == []


def test_a_burst_does_not_date_switching_it_is_part_of():
    """A burst's ends are set by the sizes of changes, which blur where switching began (a rate held at
    its bound has mostly changes of 0, and calm points that happen to leave it join the burst); the
    first change of level dates the event. Beside swings or a dip the burst's start stands."""
    from curriwatch.rules.volatility import _merged

    def ev(kind, first, last, weight=0, phase=0.0, square=True, half=None):
        # half: the step half a period of a wave's own points after its start (one point a step unless given)
        return {"kind": kind, "split": "train", "first_step": first, "last_step": last, "weight": weight,
                "phase_steps": phase, "series_last_step": 1000, "square": square,
                "half_period_step": first + phase / 2 if half is None else half}

    burst = ev("burst", 810, 922)
    (switching,) = _merged([burst, ev("switching", 836, 922, weight=8, phase=13.0)])
    assert (switching["kind"], switching["first_step"], switching["last_step"]) == ("switching", 836, 922)
    (swings,) = _merged([burst, ev("swings", 840, 930)])
    assert (swings["first_step"], swings["last_step"]) == (810, 930)
    (dip,) = _merged([ev("dip", 860, 870), burst])
    assert dip["first_step"] == 810
    # a wave read from square switching, its envelope half a period early at most: the switching dates it;
    # from a smooth wave (points in the middle third between its levels), or a period earlier, the wave does
    wave = ev("oscillation", 825, 922, weight=4, phase=26.0)
    assert _merged([wave, ev("switching", 836, 922, weight=8, phase=13.0)])[0]["first_step"] == 836
    assert _merged([wave, ev("switching", 836, 922, weight=8, phase=13.0, square=False)])[0]["first_step"] == 825
    assert _merged([ev("oscillation", 800, 922, weight=4, phase=26.0),
                    ev("switching", 836, 922, weight=8, phase=13.0)])[0]["first_step"] == 800
    # ... in its own points: logged three times as sparsely before the switching, half a period of them spans
    # 39 steps, and the wave 36 steps early is the switching's envelope
    assert _merged([ev("oscillation", 800, 922, weight=4, phase=26.0, half=839),
                    ev("switching", 836, 922, weight=8, phase=13.0)])[0]["first_step"] == 836


def test_switching_through_points_caught_mid_change_is_one_episode(tmp_path):
    case = next(c for c in SHAPES if c.name == "lifelong switching with points caught mid-change")
    got, _run = run_case(case, tmp_path)
    (incident,) = got
    assert incident.evidence["kind"] == "switching" and incident.evidence["changes"] >= 12


def test_graduation_is_judged_in_rollouts_when_the_log_carries_counts():
    """The plateau window is in the trainer's units: 50 rollouts at 1 rollout per point is 50
    points (500 steps here); without counts it is 50 steps (never fewer than 8 points)."""
    import numpy as np
    import pandas as pd

    import curriwatch

    rng = np.random.default_rng(3)
    steps = np.arange(0, 3000, 10)
    values = np.clip(np.minimum(0.1 + steps / 1000, 0.95) + rng.uniform(-0.02, 0.02, len(steps)), 0, 1)

    def frame(count):
        n = len(steps)
        data = {"run": pd.Categorical(["r"] * n), "env_id": pd.Categorical(["a"] * n),
                "split": pd.Categorical(["train"] * n), "metric": pd.Categorical(["reward"] * n),
                "step": steps.astype(np.int64), "value": values, "wall_time": np.full(n, np.nan)}
        if count is not None:
            data["count"] = np.full(n, float(count))
        return pd.DataFrame(data)

    plain = curriwatch.analyze(frame(None)).runs[0].environments[0].graduation_step
    counted = curriwatch.analyze(frame(1)).runs[0].environments[0].graduation_step
    assert plain is not None and counted is not None
    assert 700 <= plain < 1200 and counted >= plain + 350  # 500 steps of plateau against 8 points (80 steps)


def test_a_noiseless_curve_that_falls_after_graduating_is_a_regression(tmp_path):
    # no noise at all: the segmentation cuts the smooth rise into one-point segments, and the held level
    # is where the curve stayed (5 points in a row), not the one long segment it fell to
    steps = np.arange(0, 3000, 10)
    curve = 0.05 + 0.9 * (1 - np.exp(-steps / 200))
    curve[steps >= 2000] = 0.5
    healthy = 0.05 + 0.9 * (1 - np.exp(-steps / 300))
    case = Case("noiseless", {}, [("graduated_regression", "a", "critical", 2000, 0)], ("graduated_regression",))
    write_tb(tmp_path / "run", {"train/a/reward": list(zip(steps.tolist(), curve.tolist())),
                                "train/b/reward": list(zip(steps.tolist(), healthy.tolist()))})
    (run,) = curriwatch.analyze(curriwatch.load(tmp_path)).runs
    check(case, [w for w in run.warnings if w.type in case.rules])
    assert {e.env_id: e.health_status for e in run.environments} == {"a": "critical", "b": "healthy"}


def test_a_short_run_in_small_steps_graduates_and_regresses(tmp_path):
    # 80 points at steps 0..79 (epochs, say): a 50-step plateau window would be most of the run, so the
    # env that held its top for 30 epochs and then fell would stay "active" and healthy
    x = np.arange(80)
    rng = np.random.default_rng(5)
    good = 0.05 + 0.9 * (1 - np.exp(-x / 8))
    fell = np.where(x >= 48, 0.4, good)
    write_tb(tmp_path / "run", {f"train/{name}/reward": list(zip(x.tolist(), np.clip(v + rng.normal(0, 0.03, 80), 0, 1).tolist()))
                                for name, v in (("good", good), ("good2", good), ("fell", fell))})
    (run,) = curriwatch.analyze(curriwatch.load(tmp_path)).runs
    case = Case("short run", {}, [("graduated_regression", "fell", "critical", 48, 2)], ("graduated_regression",))
    check(case, [w for w in run.warnings if w.type in case.rules])
    assert all(e.graduation_step is not None and e.graduation_step < 40 for e in run.environments)


def test_a_dozen_sparse_evals_graduate_and_regress(tmp_path):
    # eval-only, one eval every 500 steps: a plateau judged over 8 points would leave no room to graduate
    # before the fall at the 9th eval, and the env would stay "active" and healthy
    te = np.arange(0, 6000, 500)
    rng = np.random.default_rng(7)
    good = 0.05 + 0.9 * (1 - np.exp(-te / 800))
    fell = np.where(te >= 4000, 0.4, good)
    write_tb(tmp_path / "run", {f"eval/{name}/reward": list(zip(te.tolist(), np.clip(v + rng.normal(0, 0.03, len(te)), 0, 1).tolist()))
                                for name, v in (("a", good), ("b", fell), ("c", good))})
    (run,) = curriwatch.analyze(curriwatch.load(tmp_path)).runs
    case = Case("sparse evals", {}, [("graduated_regression", "b", "critical", 4000, 0)], ("graduated_regression",))
    check(case, [w for w in run.warnings if w.type in case.rules])


def test_a_stall_in_a_short_run_in_small_steps(tmp_path):
    # 80 epochs: two 100-step windows never fit, so the lesson stalled at 0.4 from epoch 12 stayed "active"
    x = np.arange(80)
    rng = np.random.default_rng(3)
    good = 0.05 + 0.9 * (1 - np.exp(-x / 8))
    stall = np.where(x >= 12, 0.05 + 0.9 * (1 - np.exp(-12 / 30)), 0.05 + 0.9 * (1 - np.exp(-x / 30)))
    write_tb(tmp_path / "run", {f"train/{name}/reward": list(zip(x.tolist(), np.clip(v + rng.normal(0, 0.03, 80), 0, 1).tolist()))
                                for name, v in (("good", good), ("good2", good), ("stall", stall))})
    (run,) = curriwatch.analyze(curriwatch.load(tmp_path)).runs
    case = Case("short stall", {}, [("training_stagnation", "stall", "warning", 12, 3)], ("training_stagnation",))
    check(case, [w for w in run.warnings if w.type in case.rules])


@pytest.mark.parametrize("games", [[(0, 500), (0, 480), (0, 520), (0, 10), (0, 12)],
                                   [(-1500, -150), (-1400, -160), (-1600, -140), (-1500, -155), (0, 1), (0, 0.9)]],
                         ids=["games starting at 0 on scales 50x apart", "returns beside rates"])
def test_games_on_other_scales_are_judged_on_their_own(games, tmp_path):
    # different games in one run, each learning healthily: a game whose returns run 0..10 beside games of
    # 0..500 did not stall far below them, and rates beside returns do not make the returns' scale
    steps = np.arange(0, 3000, 5)
    rng = np.random.default_rng(1)
    series = {}
    for lo, hi in games:
        s = 0.05 + 0.9 * (1 - np.exp(-steps / rng.uniform(100, 400)))
        series[f"train/g{lo}_{hi}/reward"] = list(zip(steps.tolist(), (lo + (hi - lo) * (s + rng.normal(0, 0.04, len(steps)))).tolist()))
    write_tb(tmp_path / "run", series)
    (run,) = curriwatch.analyze(curriwatch.load(tmp_path)).runs
    assert [(w.type, w.env_id) for w in run.warnings] == []
    assert all(e.graduation_step is not None for e in run.environments)


def test_the_held_level_of_a_few_evals_is_not_the_fall_after_it(tmp_path):
    # six evals of a loss, 0.14 held for two of them, then 0.61: baseline_window (5) points in a row
    # would span the fall itself; no more points in a row than the longest segment holds are asked for
    case = Case("few evals", {"a": E(train="0.9-0.03x25 0.14~0.005x75 0.608~0.005x50", train_every=1,
                                          eval="0.86 0.157 0.14 0.14 0.608 0.608", eval_every=25)},
                [], (), {"performance_metric": "loss"}, metric="loss")
    _got, run = run_case(case, tmp_path)
    (env,) = run.environments
    assert env.graduation_baseline == pytest.approx(0.14, abs=0.02)


def test_a_fall_late_in_a_dozen_evals_is_measured_from_the_level_held_before_it(tmp_path):
    # eval-only, 12 evals: held -220 for two evals after graduating, then fell to ~-1010 for five; five
    # points in a row would only fit the fall, which then became the "held level" (healthy)
    case = Case("late fall", {"a": E(eval="-1430 -717 -432 -314 -254 -233 -204 -1019 -1015 -1006 -1006 -1001"),
                              "b": E(eval="-1423 -524 -302 -242 -217 -225 -239 -200 -215 -216 -214 -235"),
                              "c": E(eval="-1436 -600 -330 -250 -230 -221 -218 -222 -219 -217 -220 -216")},
                [("graduated_regression", "a", "critical", 350, 0)], ("graduated_regression",))
    got, _run = run_case(case, tmp_path)
    check(case, got)


def test_a_fall_that_six_evals_barely_show_is_judged_on_dense_training(tmp_path):
    # train every step, an eval every 25: the fall at step 95 is two evals but 55 training points
    case = Case("fall under sparse evals",
                {"a": E(train="0.1+0.04x22 0.95~0.02x73 0.4~0.02x55", train_every=1, eval="0.1 0.9 0.95 0.95 0.4 0.4",
                        eval_every=25),
                 "b": E(train="0.1+0.04x22 0.95~0.02x128", train_every=1, eval="0.1 0.9 0.95 0.95 0.95 0.95", eval_every=25)},
                [("graduated_regression", "a", "critical", 95, 2)], ("graduated_regression",))
    got, _run = run_case(case, tmp_path)
    check(case, got)


def test_the_last_lesson_to_stop_training_has_graduated_too(tmp_path):
    """Marin stops sampling a lesson once it graduates; when the last one does, the run's training ends a
    few rows later (the other lessons' last rows), not three eval intervals later: graduated all the same."""
    case = Case("last lesson stops training", {
        "a": E(train="0.2+0.05x10 0.9~0.02x12", train_every=20, eval="0.2+0.2x3 0.9~0.02x37"),
        "b": E(train="0.2+0.1x7 0.9~0.02x17", train_every=20, eval="0.2+0.2x3 0.9~0.02x37")}, [], ())
    _got, run = run_case(case, tmp_path)
    a = next(e for e in run.environments if e.env_id == "a")
    assert a.current_state == "graduated" and a.graduation_step == 420  # its last training point


def test_a_lesson_trained_to_the_end_beside_lessons_that_stopped_did_not_graduate(tmp_path):
    """Marin stops sampling a lesson once it graduates: where the run's other lessons stopped training while
    evals went on, one still trained at the run's end had not graduated, though it levelled off at 0.88
    (short of the trainer's threshold, which the log does not carry) — it is active and, after 10
    stagnation windows, prolonged; without that evidence the same plateau is inferred graduated."""
    slow = E(train="0.1+0.02x39 0.88~0.02x211", train_every=10, eval="0.1+0.1x8 0.88~0.02x42", eval_every=50)
    stopped = E(train="0.1+0.1x8 0.95~0.02x12", train_every=10, eval="0.1+0.2x4 0.95~0.02x46", eval_every=50)
    trained = E(train="0.1+0.1x8 0.95~0.02x242", train_every=10, eval="0.1+0.2x4 0.95~0.02x46", eval_every=50)
    case = Case("slow lesson", {"slow": slow, "a": stopped, "b": stopped}, [], ())
    got, run = run_case(case, tmp_path)
    states = {e.env_id: e.current_state for e in run.environments}
    assert states == {"slow": "active", "a": "graduated", "b": "graduated"}, states
    assert [(g.type, g.env_id, g.first_step) for g in got] == [("prolonged_training", "slow", 2000)], got
    case = Case("slow lesson, all trained on", {"slow": slow, "a": trained, "b": trained}, [], ())
    got, run = run_case(case, tmp_path / "trained")
    assert next(e for e in run.environments if e.env_id == "slow").current_state == "graduated"
    assert got == [], got


def test_switching_levels_in_the_message_are_apart(tmp_path):
    """A triangle wave in sparse evals switches between its crests and troughs: the two levels the
    message names are those, not one median twice ("between ~0.45 and ~0.45")."""
    case = Case("triangle evals", {
        "a": E(eval="0.1+0.1x8 0.9~0.02x40 (0.9-0.15x4 0.3+0.15x4)x6 0.9~0.02x20", eval_every=20),
        "b": E(eval="0.1+0.1x8 0.9~0.02x108", eval_every=20)}, [], ("performance_volatility",), seed=0)
    got, _run = run_case(case, tmp_path)
    (inc,) = got
    assert inc.evidence["high_level"] - inc.evidence["low_level"] > 0.2
    assert f"~{inc.evidence['high_level']:.3g}" in inc.message and f"~{inc.evidence['low_level']:.3g}" in inc.message


def test_a_steady_climber_that_wobbles_near_its_end_has_not_graduated(tmp_path):
    """A return climbing at one pace all run (steps of 2,048, as Stable-Baselines3 logs) whose last points
    dip and climb on: flat behind a point near the end, not ahead of it — still active, and prolonged."""
    case = Case("wobbling climber", {"a": E(train="0+5x280 1400-6x4 1376+5x16", train_every=2048)}, [],
                ("prolonged_training",))
    got, run = run_case(case, tmp_path)
    (a,) = run.environments
    assert a.graduation_step is None and a.current_state == "active"
    assert [g.type for g in got] == ["prolonged_training"]


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_heavy_beta_binomial_noise_is_not_switching(tmp_path, seed):
    """Rates of 64 episodes a batch (tinker logs the count) whose success probability itself varies from
    batch to batch (beta-binomial, concentration 2): a tight top at 1 and a long loose tail, which 2-means
    splits in two. Loose clusters must lie further apart than the binomial noise says: a noisy healthy env."""
    from writers import TinkerJsonLogger

    rng = np.random.default_rng(seed)
    n = 1200
    mean = np.clip(0.05 + 0.85 * np.minimum(np.arange(n) / 240, 1.0), 0.01, 0.99)  # a linear rise, then flat
    noisy = rng.binomial(64, rng.beta(mean * 2, (1 - mean) * 2)) / 64
    calm = rng.binomial(64, mean) / 64
    log = TinkerJsonLogger(tmp_path / "run")
    for i in range(n):
        log.log_metrics({"env/a/reward/total": float(noisy[i]), "env/a/total_episodes": 64,
                         "env/b/reward/total": float(calm[i]), "env/b/total_episodes": 64}, step=i)
    (run,) = curriwatch.analyze(curriwatch.load(tmp_path)).runs
    assert [(w.type, w.env_id, w.first_step) for w in run.warnings if w.type == "performance_volatility"] == []


def test_heavy_beta_binomial_noise_at_a_bound_is_rarely_switching(tmp_path):
    """A rate held near 0.92 with beta-binomial noise of overdispersion phi 2 (most batches near 1, a
    long tail down): 2-means splits it into two clusters whose points follow each other at random
    (a runs test), which is no switching. Six seeded series of 600 points: the code before read switching
    in all six."""
    switching = 0
    for seed in range(6):
        rng = np.random.default_rng(seed)
        values = rng.binomial(32, rng.beta(0.92 * 2, 0.08 * 2, 600)) / 32
        case = Case("beta-binomial", {"a": E(train="0.05+0.1x9 " + " ".join(f"{v:.4f}" for v in values),
                                             train_every=1)}, [])
        got, _run = run_case(case, tmp_path / str(seed))
        switching += any(w.evidence.get("kind") == "switching" for w in got)
    assert switching <= 1, switching


def test_evals_noisier_than_their_declared_count_everywhere_do_not_swing(tmp_path):
    """tinker evals logged with 100 episodes whose rates vary like 8 (third corpus): the binomial model
    of the declared count explains a fraction of the spread they show all along. The series' own calmer
    stretches nearby set the noise they should have where they show more than the model."""
    from pathlib import Path

    from series import expand
    from writers import TinkerJsonLogger

    lines = (Path(__file__).parent / "fixtures" / "series" / "tinker_overdispersed_evals.txt").read_text().splitlines()
    train, evals = (expand(line) for line in lines if not line.startswith("#"))
    log = TinkerJsonLogger(tmp_path / "run")
    for k, v in enumerate(train):
        step = 294 + k
        metrics = {"env/arith_hard/reward/total": v, "env/arith_hard/total_episodes": 8}
        if k % 2 == 0 and evals[k // 2] is not None:
            metrics.update({"test/env/arith_hard/reward/total": evals[k // 2],
                            "test/env/arith_hard/total_episodes": 100})
        log.log_metrics(metrics, step=step)
    (run,) = curriwatch.analyze(curriwatch.load(tmp_path)).runs
    assert [(w.type, w.first_step) for w in run.warnings if w.type == "performance_volatility"] == []


def test_an_env_at_its_top_in_heavy_noise_is_graduated_and_its_noisy_end_no_fall(tmp_path):
    """Third corpus seed 27: a score at its top (~89) from its first eval in heavy noise, beside a sibling
    that learns to ~90. It already knew its task: graduated (not stalled from step 1); its last six evals
    average 72, about 2.4 standard errors below the level it held — a chance stretch, not a regression."""
    case = Case("top plateau in heavy noise", {
        "a": E(eval=_fixture_series("userprof_top_plateau"), eval_every=2, start=1),
        "b": E(eval=_fixture_series("userprof_top_plateau_sibling"), eval_every=2, start=1)}, [])
    got, run = run_case(case, tmp_path)
    assert [(w.type, w.env_id) for w in got if w.type in ("graduated_regression", "training_stagnation",
                                                          "prolonged_training")] == []
    assert {e.env_id: e.current_state for e in run.environments}["a"] == "graduated"


def test_a_wave_from_activation_is_dated_from_it(tmp_path):
    """Third corpus seed 27: an nll waving (period 9 points) from its activation in heteroscedastic noise;
    the wave's envelope reaches half its height a few periods in, but the env has waved since its first
    point. Its peak-to-peak reads positive though lower is better."""
    case = Case("wave from activation", {"a": E(train=_fixture_series("userprof_wave_from_activation"),
                                                  train_every=1000, start=190_000)},
                [], config={"direction": "lower"})
    got, _run = run_case(case, tmp_path)
    (incident,) = [w for w in got if w.type == "performance_volatility"]
    assert (incident.first_step, incident.evidence["kind"]) == (190_000, "oscillation")
    assert incident.evidence["peak_to_peak"] > 0 and "peak-to-peak -" not in incident.message


def test_a_wave_whose_phase_drifts_is_found_block_by_block(tmp_path):
    """Third corpus seeds 26, 28: CleanRL's per-episode returns wave with a period of ~8.8 episodes all their
    life, but episodes that end at the same global step are combined, so about one point in 12 drops out and
    the wave's phase drifts: over 3,000 points its line is smeared over many frequencies, over 256 points it
    is sharp. A wave all its life, not an env that never learned."""
    rng = np.random.default_rng(3)
    i = np.arange(3300)
    kept = i[rng.random(len(i)) >= 0.08]  # the combined episodes
    y = 20 + 120 * np.cos(2 * np.pi * kept / 8.8) + rng.normal(0, 1.5, len(kept))
    case = Case("drifting wave", {"a": E(train=" ".join(f"{v:.2f}" for v in y), train_every=48)}, [])
    got, _run = run_case(case, tmp_path)
    assert [(w.type, w.first_step, w.evidence["kind"]) for w in got] == [("performance_volatility", 0, "oscillation")]


def test_a_burst_at_a_rates_bound_that_pulls_its_mean_under_the_line_is_volatility(tmp_path):
    """Fourth corpus seed 6: a pass@8 rate held near 0.87 turns erratic for ~100 steps, its points scattered
    one-sided below the held level (at the bound noise can only swing down), then calm at the held level
    again. The low points pull its mean under the regression line, but the fall came back and the env swung
    point to point over it: one burst, not a critical regression."""
    case = Case("burst near the bound", {"a": E(train=_fixture_series("fourth_pass_at_8_burst_near_bound"),
                                                train_every=2, start=61),
                                         "b": E(train="0.1+0.05x16 0.87~0.02x984", train_every=2)}, [])
    got, _run = run_case(case, tmp_path)
    assert [(w.type, w.evidence.get("kind")) for w in got] == [("performance_volatility", "burst")]
    assert abs(got[0].first_step - 1420) <= 10


def test_a_burst_in_a_hundred_sparse_evals_is_found(tmp_path):
    """Fourth corpus seed 5: DCD's eval-only solved rate, 100 evals, ~69 after graduation; ~28 of them
    scatter below the held level, then it is calm there again. Its rank statistic reaches 4.5 (white noise
    of any shape stays under that in so short a series; the 5.5 that long series need left it a critical
    regression)."""
    case = Case("burst in sparse evals", {
        "a": E(eval=_fixture_series("fourth_dcd_burst_in_sparse_evals"), eval_every=51200, start=2048),
        "b": E(eval="0.1+0.1x8 0.9~0.02x92", eval_every=51200, start=2048)}, [])
    got, _run = run_case(case, tmp_path)
    assert [(w.type, w.evidence.get("kind")) for w in got] == [("performance_volatility", "burst")]
    assert abs(got[0].first_step - 2_613_248) <= 4 * 51200


def test_switching_that_began_at_the_better_level_is_dated_from_activation_however_long_its_first_phases(tmp_path):
    """Fourth corpus seed 6: a perplexity (lower is better) switching between ~12 and ~33 from its unlock
    at 515 — a Markov chain whose first two dwells (125 and 150 steps) are 4-5 x its typical phase. Its
    points before the chain's rhythm sets in lie at the two levels only and begin at the better one: it
    never learned into them, and switched from its activation, not from its third phase (795)."""
    case = Case("switching from activation", {
        "a": E(eval=_fixture_series("fourth_ppl_switching_from_activation"), eval_every=5, start=515),
        "b": E(eval="40-1.75x20 5~0.3x480", eval_every=5)}, [], config={"direction": "lower"})
    got, _run = run_case(case, tmp_path)
    assert [(w.env_id, w.type, w.first_step, w.evidence["kind"]) for w in got] == [
        ("a", "performance_volatility", 515, "switching")]


def test_switching_from_the_better_level_in_heavy_binomial_noise_is_dated_from_activation(tmp_path):
    """Third corpus seed 33 (tinker's countdown, beta-binomial noise): a rate switching between ~0.75 and
    ~0.25 from its first point, its first two phases 3-6 x the typical one. Its points scatter about each
    level by a fifth of the gap: judged by their running medians (5 points), outside the middle half of
    the gap, not point by point."""
    case = Case("switching in heavy noise", {
        "a": E(train="0.75b16x40 0.25b16x70 (0.75b16x10 0.25b16x14 0.75b16x12 0.25b16x9)x12", start=1000),
        "b": E(train="0.1+0.05x16 0.9~0.02x570")}, [])
    got, _run = run_case(case, tmp_path)
    assert [(w.env_id, w.type, w.first_step, w.evidence["kind"]) for w in got] == [
        ("a", "performance_volatility", 1000, "switching")]


@pytest.mark.parametrize("seed", [0, 3])
def test_a_lone_env_switching_all_its_life_is_volatility_not_a_stall(tmp_path, seed):
    """Third corpus seed 31: a CleanRL run's only env switching between two returns ~210 apart (Markov dwells of
    3+ episodes) in noise of sd 36 for 3,000 episodes. Segmentation reads one level (no single cut explains
    much), so it has no learned range — but its points fall into two clusters far apart, not at random, with
    the middle third between them nearly empty: the gap is its range, and it switched from its first point."""
    rng = np.random.default_rng(seed)
    levels, high = [], rng.random() < 0.5
    while len(levels) < 3000:
        levels += [105.0 if high else -105.0] * int(max(3, rng.exponential(4) + 2))
        high = not high
    y = np.array(levels[:3000]) + rng.normal(0, 36, 3000)
    case = Case("lone switching", {"a": E(train=" ".join(f"{v:.1f}" for v in y), train_every=48, start=52)}, [])
    got, _run = run_case(case, tmp_path)
    assert [(w.type, w.first_step, w.evidence.get("kind")) for w in got] == [("performance_volatility", 52, "switching")]


@pytest.mark.parametrize("seed", range(4))
def test_a_lone_rolling_mean_of_noise_is_no_switching(tmp_path, seed):
    """SB3's 100-episode mean of an env that never learns wanders; cut in two clusters its runs are far from
    random (the mean is smoothed), but the middle third between them is full: one wide cluster, a stall."""
    rng = np.random.default_rng(seed)
    y = np.convolve(rng.uniform(-300, 500, 2500), np.ones(100) / 100, "valid")[::4][:600]
    case = Case("rolling mean", {"a": E(train=" ".join(f"{v:.2f}" for v in y), train_every=2048, start=2048)}, [])
    got, _run = run_case(case, tmp_path)
    assert [w.type for w in got] == ["training_stagnation"]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_slow_wave_in_heavy_noise_is_dated_near_where_it_leaves_the_held_level(tmp_path, seed):
    """Third corpus seeds 27, 31, 32: a wave of 100 points (read as switching: too slow for the periodogram)
    sets in after graduation, from its top, in noise of a third of its amplitude. Its first points leave
    the held level by less than two noise sds each; the mean of the points about them (3 either side, none
    past the first change) shows it — dated within 15 points of its start, not ~22."""
    case = Case("slow wave", {"a": E(train="0.1+0.05x16 0.9~0.12x300 0.6w0.3p100~0.12x500"),
                              "b": E(train="0.1+0.05x16 0.9~0.02x800")}, [], seed=seed)
    got, _run = run_case(case, tmp_path)
    (w,) = got
    assert w.type == "performance_volatility" and 3160 <= w.first_step <= 3160 + 150


def _contaminated(seed: int, n: int = 1500, share: float = 0.08) -> np.ndarray:
    """A rate at its bound (16 trials: 1 or 15/16) whose noise is now and then (`share` of points) a deep drop
    anywhere in [0.05, 0.7], after a 20-point rise."""
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < share, rng.uniform(0.05, 0.7, n), 1.0 - rng.integers(0, 2, n) / 16)
    y[:20] = np.linspace(0.05, 0.95, 20)
    return y


def _beside_a_steady_sibling(y: np.ndarray) -> dict:
    """Envs of a case: `y` as env a's training series, beside a sibling b that learns and holds steadily
    (it shows the run's scale)."""
    return {"a": E(train=" ".join(f"{v:.4f}" for v in y)), "b": E(train="0.1+0.05x18 0.95~0.02x1482")}


@pytest.mark.parametrize("seed", [3, 4])
def test_rare_deep_drops_that_bunch_by_chance_are_no_swings(tmp_path, seed):
    """A rate held near its bound whose noise is mostly the lattice's but now and then (8 % of points) a deep
    drop: somewhere in 1,500 points a few drops bunch within 30 points, and their changes make a spread far
    beyond the calm windows'. The series' big changes elsewhere, at their rate, bunch that much in some
    stretch that long more often than 5 % of the time: chance, not swings (third corpus seed 33)."""
    y = _contaminated(seed)
    case = Case("bunched drops", _beside_a_steady_sibling(y), [])
    got, _run = run_case(case, tmp_path)
    assert [w.first_step for w in got if w.evidence.get("kind") == "swings"] == []


@pytest.mark.parametrize("seed", [10, 11])
def test_an_early_pair_of_deep_drops_in_outlier_noise_is_chance(tmp_path, seed):
    """The same rate with rare deep drops: two of them in a row soon after graduation, when few lone drops
    had come yet. Whether such a run is chance is judged by the env's lone deep points over its whole life
    after graduation (dozens), not only those before it (third corpus seed 32: an ML-Agents rate in
    beta-binomial noise)."""
    y = _contaminated(seed)
    case = Case("early pair", _beside_a_steady_sibling(y), [])
    got, _run = run_case(case, tmp_path)
    assert [w.first_step for w in got if w.evidence.get("kind") == "dip" and w.first_step < 1000] == []


@pytest.mark.parametrize("share, fires", [(0.0, True), (0.08, False)])
def test_two_deep_evals_in_a_row_beside_a_train_series_of_deep_outliers_are_chance(tmp_path, share, fires):
    """Two evals in a row that lost half the gain, then back, among 80 sparse evals that show no other deep
    point: beside a calm dense train series a dip; beside a train series whose noise is a deep drop 8 % of the
    time, the env's noise makes such a pair by chance — the evals are too few to show its outliers, the train
    series beside them shows them (third corpus seeds 82-84: tinker, contaminated user-profile scores)."""
    train = _contaminated(5, n=2000, share=share)
    case = Case("eval pair", {"a": E(train=" ".join(f"{v:.4f}" for v in train), train_every=1,
                                     eval="0.1+0.1x9 0.96b64x40 0.3b64x2 0.96b64x30", eval_every=25),
                              "b": E(train="0.1+0.05x18 0.95~0.02x1982", train_every=1,
                                     eval="0.1+0.1x9 0.96b64x72", eval_every=25)}, [])
    got, _run = run_case(case, tmp_path)
    dips = [w.first_step for w in got if w.type == "performance_volatility" and w.evidence.get("kind") == "dip"]
    assert dips == ([1225] if fires else []), dips


def _lone_drops_and_a_triple(seed: int, share: float = 0.09, n: int = 230) -> np.ndarray:
    """A rate learned in 10 points, then held at its bound (16 trials: 1 or 15/16) whose noise is now and then
    (`share` of points) a lone deep drop to [0.2, 0.65]; three such drops in a row at point 160."""
    rng = np.random.default_rng(seed)
    y = 1.0 - rng.integers(0, 2, n) / 16
    lone = np.flatnonzero(rng.random(n) < share)
    lone = lone[(lone > 12) & (np.abs(lone - 161) > 3)]
    lone = lone[np.concatenate([[True], np.diff(lone) > 1])]  # lone: none next to another
    y[lone] = rng.uniform(0.2, 0.65, len(lone))
    y[160:163] = [0.5, 0.2, 0.6]
    y[:10] = np.linspace(0.05, 0.95, 10)
    return y


@pytest.mark.parametrize("seed", [2, 3])
def test_three_drops_in_a_row_among_a_few_hundred_with_brief_drops_are_chance(tmp_path, seed):
    """Third corpus seed 81 (key_door, beta-binomial noise): three deep drops in a row among ~220 points after
    graduation whose noise is a lone deep drop now and then (up to 9 % of points). Stretches of three start at
    any of ~220 points: such a run comes by chance over 5 % of the time — counting only the ~73 disjoint
    stretches said under 5 %, and the run was a dip or a regression. Neither."""
    y = _lone_drops_and_a_triple(seed)
    case = Case("triple", {"a": E(train=" ".join(f"{v:.4f}" for v in y)), "b": E(train="0.1+0.1x9 0.97~0.02x221")}, [])
    got, _run = run_case(case, tmp_path)
    assert [(w.type, w.first_step) for w in got if w.env_id == "a" and w.type in (
        "graduated_regression", "performance_volatility")] == []


@pytest.mark.parametrize("seed", [2, 4])
def test_two_triples_of_drops_among_brief_drops_are_no_switching(tmp_path, seed):
    """Third corpus seed 81 (key_door again): two runs of three deep drops eight points apart, among 290
    points whose noise is a lone deep drop now and then (up to 9 %): four changes of level — but whether its
    low phases stand out of the series' brief dips is judged against the dips outside its low phases: the
    chain's long high phases before and after them hold most of the series and its brief dips (judged outside
    the whole chain, 60 points were left and the test was skipped)."""
    y = _lone_drops_and_a_triple(seed, n=300)
    y[148:153] = [0.97, 0.55, 0.55, 0.31, 0.97]
    case = Case("two triples", {"a": E(train=" ".join(f"{v:.4f}" for v in y)), "b": E(train="0.1+0.1x9 0.97~0.02x291")},
                [])
    got, _run = run_case(case, tmp_path)
    assert [(w.type, w.first_step) for w in got if w.env_id == "a"] == []


def test_switching_is_dated_by_a_smooth_wave_and_square_switching_by_its_changes():
    """Third corpus seed 86 (an SB3 env whose level turns into a sine after a calm plateau): the sparse evals'
    wave begins at 239,616, the dense training's at 245,760 (within half a period: training dates the wave),
    and switching read from the same smooth wave crosses its middle at 272,384. Half a period of slack lets a
    training wave date an eval wave; it let the switching date the event too, 3 tolerance units late."""
    def ev(kind, split, first, weight, square=False):
        return {"kind": kind, "split": split, "first_step": first, "last_step": 598016, "series_last_step": 598016,
                "phase_steps": 85430.9 if kind == "oscillation" else 34816.0, "weight": weight, "square": square,
                "high": 187.0, "low": -36.0, "half_period_step": first + 85430.9 / 2}
    (merged,) = volatility._merged([ev("switching", "train", 272384, 8), ev("oscillation", "train", 245760, 4),
                                    ev("oscillation", "eval", 239616, 4)])
    assert (merged["kind"], merged["first_step"]) == ("switching", 245760)
    # sixth corpus seed 2 (SB3 levels): square switching in the evals, the same switching rounded off by
    # ep_rew_mean (a rolling mean says nothing of the shape: square None) — the changes date it, not the waves
    # read from it a period earlier
    (merged,) = volatility._merged([ev("switching", "train", 86528, 10, square=None), ev("switching", "eval", 87040, 11, True),
                                    ev("oscillation", "train", 83712, 5), ev("oscillation", "eval", 82944, 5)])
    assert (merged["kind"], merged["first_step"]) == ("switching", 86528)


def test_a_flat_series_with_a_few_blips_shows_no_swings_and_no_error(tmp_path):
    """Seventh corpus seed 3 (a fail rate of tiny batches, `drawer`): a series at 0 but for four blips of 0.2
    within 200 steps. Its calm windows are all still, so the noise expected of it is 0 and any spread beat
    `noise_factor` x 0: swings, whose message then divided by that 0 — the env's analysis failed
    (`analysis_error`, the env unknown). No noise to judge swings against: the blips are outliers."""
    case = Case("blips", {"drawer": E(train="0x215 0.2 0x6 0.2 0x4 0.2 0x7 0.2 0x64")}, [])
    got, run = run_case(case, tmp_path)
    assert [i.kind for i in run.data_issues if i.kind == "analysis_error"] == []
    assert [w.type for w in got if w.type == "performance_volatility"] == []


def test_a_success_rate_at_zero_but_for_a_few_lucky_batches_has_stalled(tmp_path):
    """Seventh corpus (tiny-batch rates): the run's only env, a success rate at 0 for 300 points but for 15
    batches at 0.2, more of them late in the run. Its still points make its own sliver of a gain (0.007)
    "stand out" of its noise, so it counted as learned and that sliver as its range: a trend of a few
    thousandths was progress, and the env that never learned was healthy. Progress is measured on the
    rate's range when it learned less than `min_delta` of it: a stall from its first point."""
    lucky = {10, 41, 73, 77, 81, 91, 125, 135, 146, 217, 240, 247, 257, 274, 277}
    case = Case("never learns", {"drawer": E(train=" ".join("0.2" if k in lucky else "0" for k in range(300)))},
                [("training_stagnation", "drawer", "warning", 0, 0)], ("training_stagnation",),
                config={"performance_metric": "success"}, metric="success")
    got, _run = run_case(case, tmp_path)
    check(case, got)


def test_a_fall_that_came_back_as_switching_set_in_is_its_first_low_phase(tmp_path):
    """Fourth corpus seed 2 (gomoku, a DCD maze): switching after graduation whose first low phase is long
    enough to read as a fall that came back. One event: switching dated from that fall, no regression."""
    case = Case("first low phase", {"a": E(train="0.85~0.03x12 0.3~0.03x15 (0.85~0.03x3 0.3~0.03x3 0.85~0.03x4 "
                                                  "0.3~0.03x2)x20", start=1000)}, [])
    got, _run = run_case(case, tmp_path)
    assert [(w.type, w.first_step, w.evidence.get("kind")) for w in got] == [("performance_volatility", 1120, "switching")]


def test_an_env_at_the_top_from_its_start_keeps_the_runs_gain(tmp_path):
    """Fourth corpus seed 2: an Elo rating at its siblings' top (~1780, from ~1070) from its first point, in
    AR(1) noise of a few points. It learned nothing, so its own 'start' (its lowest level before
    graduating, 1780) measures no gain: a wobble from 1786 to 1781 kept "9 % of the gain", a critical
    regression. Its gain is the run's, from where its siblings began: it kept 99 %."""
    case = Case("top from start", {
        # (the evals, every 10 steps from 90, are written from the train series' start: 86, 96, ...)
        "a": E(train=_fixture_series("fourth_elo_at_the_top_from_its_start"), train_every=1, start=86,
               eval=_fixture_series("fourth_elo_at_the_top_from_its_start_eval"), eval_every=10),
        "b": E(train="1070+70x10 1780~5x290", train_every=1, eval="1070+140x5 1780~5x25", eval_every=10),
        "c": E(train="1075+60x12 1782~5x288", train_every=1, eval="1075+140x5 1782~5x25", eval_every=10)}, [])
    got, run = run_case(case, tmp_path)
    assert got == [] and {e.env_id: e.current_state for e in run.environments}["a"] == "graduated"


def test_switching_after_a_learning_rise_is_dated_from_its_first_change(tmp_path):
    """An env that learns (0.05 -> 0.85 over 20 points) and then switches between 0.85 and 0.2 without
    graduating: the switching began at its first change — its first fall, at step 260 — not at the
    activation before the rise, nor where the rise reached the better level: the level it climbed to in
    stairs is what it learned (every benchmark corpus dates switching from its first low phase)."""
    case = Case("rise then switching", {"a": E(train="0.05+0.04x20 (0.85~0.02x6 0.2~0.02x6)x12")}, [])
    got, _run = run_case(case, tmp_path)
    (incident,) = [w for w in got if w.type == "performance_volatility"]
    assert 250 <= incident.first_step <= 260


def test_a_return_waving_from_its_top_all_its_life_is_volatility(tmp_path):
    """Third corpus seed 30: SB3's HalfCheetah waves (period ~80,000 steps) from its activation, starting at
    the wave's top — its start is its top, so it learned nothing on its own scale. The range of levels it
    held is what the wave is judged against (five periods, not the eight a wave judged against noise
    alone needs)."""
    case = Case("wave from the top", {"a": E(train=_fixture_series("sb3_halfcheetah_wave_train"), train_every=2048,
                                              eval=_fixture_series("sb3_halfcheetah_wave_eval"), eval_every=8192,
                                              start=2048)}, [])
    got, _run = run_case(case, tmp_path)
    (incident,) = [w for w in got if w.type == "performance_volatility"]
    assert (incident.first_step, incident.evidence["kind"]) == (2048, "oscillation")


def test_a_fast_learner_held_in_heavy_noise_has_learned(tmp_path):
    """Third corpus seed 28: a run's only env (CleanRL per-episode returns) learns fast, then holds its level in
    heavy noise. Its gain is within 3 point sds, and its ramp makes a segment whose mean is no start, but that
    segment stands far below the top by their standard errors: it learned and graduated — no stall ("never
    learned") and no prolonged training."""
    case = Case("learner in heavy noise", {"a": E(train=_fixture_series("cleanrl_learner_in_heavy_noise"),
                                                    train_every=48)}, [])
    got, run = run_case(case, tmp_path)
    assert [w.type for w in got if w.type in ("training_stagnation", "prolonged_training")] == []
    assert {e.env_id: e.current_state for e in run.environments}["a"] == "graduated"


def test_a_stall_after_a_short_rise_the_segments_missed_is_dated_at_its_end(tmp_path):
    """Default corpus seed 21: eval-only binomial-16 rates rise from ~0.06 to ~0.3 over their first 6 evals,
    then stay flat beside a sibling that learns. The segments read it flat from activation; the best
    rise-then-flat fit beats flat by far more than chance: the stall began where the rise ended (~300),
    not at activation (240)."""
    case = Case("stall after a short rise", {
        "a": E(eval=_fixture_series("generic_stall_after_short_rise"), eval_every=10, start=240),
        "b": E(eval="0.05+0.1x9 0.95b16x66", eval_every=10, start=240)}, [], ("training_stagnation",))
    got, _run = run_case(case, tmp_path)
    (incident,) = [w for w in got if w.type == "training_stagnation"]
    assert incident.env_id == "a" and 280 <= incident.first_step <= 320, incident


def _scattered_burst(seed: int, points: int = 20, sd: float = 0.2, held: float = 0.9) -> str:
    """A burst's points in the notation: each |N(0, sd)| below the held level (a policy turned erratic near
    a rate's bound scatters only down), drawn from a seed."""
    rng = np.random.default_rng(seed)
    return " ".join(f"{held - abs(v):.4f}" for v in rng.normal(0, sd, points))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_burst_of_scattered_evals_in_a_few_hundred_is_found_where_it_began(tmp_path, seed):
    """DCD-like sparse evals of a rate (256 episodes each): 20 evals after graduation scatter up to
    half the gain below the held level, every other one far off it, in 300 evals. Their second differences
    rank high but a rank sums twenty of them to z ~4 (under 5.5), the deepest few alone were a dip dated
    up to a dozen evals late, and a fall pulled the mean under the line was a regression; the burst is the
    points far off the level, dated from the first."""
    burst = _scattered_burst(seed)
    first_off = next(i for i, v in enumerate(burst.split()) if 0.9 - float(v) > 0.15 * 0.8)
    case = Case("scattered burst", {"a": E(eval=f"0.1+0.08x10 0.9b256x100 {burst} 0.9b256x170", eval_every=50)}, [])
    got, _run = run_case(case, tmp_path)
    assert [i.type for i in got] == ["performance_volatility"] and got[0].evidence["kind"] in ("burst", "dip"), got
    assert got[0].first_step == (110 + first_off) * 50, (got[0].first_step, (110 + first_off) * 50)


def test_a_fall_to_a_noisier_level_and_back_is_no_scattered_burst(tmp_path):
    """A rate that fell to 0.5 for 30 evals and came back: every point far off the held level, but they
    moved together (on the binomial model's scale their changes are the calm's): a regression, not a burst."""
    case = Case("fall and back", {"a": E(eval="0.1+0.08x10 0.9b256x100 0.5b256x30 0.9b256x160", eval_every=50)}, [])
    got, _run = run_case(case, tmp_path)
    assert [i.type for i in got] == ["graduated_regression"], got


def test_deep_drops_that_bunch_by_chance_are_no_fall_and_no_dip(tmp_path):
    """Twelve 1,500-point series of a rate whose noise is a deep drop 8 % of the time: segmentation reads
    a few drops that came close together as a low level now and then (critical regressions and dips in
    most series); with the series' other brief drops at their rate, such a bunch is chance (at most one
    of those per four series stays: a bunch expected under 0.05 times is still reported)."""
    found = []
    for seed in range(12):
        y = _contaminated(seed)
        case = Case("contaminated", _beside_a_steady_sibling(y), [])
        got, _run = run_case(case, tmp_path / str(seed))
        found += [(seed, i.type, i.first_step) for i in got
                  if i.type == "graduated_regression" or i.evidence.get("kind") == "dip"]
    assert len(found) <= 3, found


def test_a_fall_among_deep_drops_is_still_a_regression(tmp_path):
    """The same contaminated rates falling to 0.5 for 60 points and coming back: nearly all of the fall's
    points lie below the line, far beyond what the brief drops at their rate would bunch. (Volatility is
    off here: in half of these series the drops and the fall also read as switching, which then explains the
    fall — a misreading this test does not cover.)"""
    for seed in range(6):
        y = _contaminated(seed)
        y[800:860] = 0.5 + (y[800:860] - 0.97) / 4
        case = Case("fall among drops", _beside_a_steady_sibling(y), [],
                    config={"rules": {"performance_volatility": {"enabled": False}}})
        got, _run = run_case(case, tmp_path / str(seed))
        assert any(i.type == "graduated_regression" and abs(i.first_step - 8000) <= 20 for i in got), (seed, got)


def test_a_stair_of_the_rise_is_no_phase_of_later_switching(tmp_path):
    """Marin sparse evals (fourth corpus): a rise that rests a few evals at 0.72 on its way to 0.91, a long
    calm, then a burst that swings between 0.91 and ~0.75. The rest on the way up matched the burst's low
    level and became the chain's first phase: the switching began while the env learned, and, over before
    the series ended, was dropped as its learning's noise. A low phase the phase before it climbed to from
    further down is a stair of the rise: the switching begins at its first change."""
    case = Case("stair then switching", {"a": E(eval="0.1~0.01x12 0.35 0.55 0.72~0.01x4 0.91~0.01x18 0.74~0.01x3 "
                                                     "0.89~0.01x2 0.75~0.01x7 0.92~0.01x40", eval_every=20)},
                [("performance_volatility", "a", "warning", 720, 20)], ("performance_volatility",))
    got, _run = run_case(case, tmp_path)
    check(case, got)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_fall_from_a_rates_bound_is_no_scattered_burst(tmp_path, seed):
    """A success rate of 16 trials held at ~0.99 (nearly every eval 1.0: its changes are mostly zero) falls to
    0.5 for 30 evals and comes back. Every point of the fall lies far off the held level, and its changes,
    at 0.5, dwarf the lattice's zeros at the bound — but not the binomial model's noise, which the calm's
    changes are never taken below: a regression, not a burst."""
    case = Case("fall from the bound", {"a": E(eval="0.1b16x5 0.3b16x5 0.6b16x5 0.99b16x200 0.5b16x30 0.99b16x150")},
                [("graduated_regression", "a", "critical", 10750, 0)], ("graduated_regression", "performance_volatility"),
                seed=seed)
    got, _run = run_case(case, tmp_path)
    check(case, got)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_fall_in_the_middle_of_a_long_segment_in_heavy_noise_is_a_regression(tmp_path, seed):
    """Evals of 8 trials held at 0.99 for 200 evals fall to 0.6 for 20 and come back for 150: binary
    segmentation cuts one end at a time, and either cut alone explains too little of so short a stretch
    in such noise — the whole series read as one level and the critical fall went unreported. The stretch
    whose mean lies below the rest's by more than two cuts must explain is cut out."""
    case = Case("hidden fall", {"a": E(eval="0.1b8x5 0.3b8x5 0.6b8x5 0.99b8x200 0.6b8x20 0.99b8x150")},
                [("graduated_regression", "a", "critical", 10750, 50)], ("graduated_regression",), seed=seed)
    got, _run = run_case(case, tmp_path)
    check(case, got)


def test_heavy_noise_at_a_held_level_makes_no_hidden_fall(tmp_path):
    """The same evals without the fall: no stretch stands out by two cuts' worth."""
    for seed in range(6):
        case = Case("no fall", {"a": E(eval="0.1b8x5 0.3b8x5 0.6b8x5 0.99b8x370")}, [],
                    ("graduated_regression", "performance_volatility"), seed=seed)
        got, _run = run_case(case, tmp_path / str(seed))
        check(case, got)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_fall_from_a_rates_bound_is_no_ranked_burst(tmp_path, seed):
    """Evals of 8 trials at ~0.99 (nearly all 1.0: their second differences mostly zero) fall to 0.5 for 30
    and come back. Against those zeros the binomial noise at 0.5 ranks as high as a burst (the rank scan
    found one in 2 of 3 seeds); its changes are no more than the model's own: a regression."""
    case = Case("ranked fall", {"a": E(eval="0.1b8x5 0.3b8x5 0.6b8x5 0.99b8x200 0.5b8x30 0.99b8x150")},
                [("graduated_regression", "a", "critical", 10750, 50)], ("graduated_regression", "performance_volatility"),
                seed=seed)
    got, _run = run_case(case, tmp_path)
    check(case, got)


def test_a_fall_among_deep_drops_does_not_read_as_switching(tmp_path):
    """The contaminated rates with a 60-point fall to 0.5 again, volatility on: two or three deep drops that
    came close together made low phases of a switching chain with the fall, and the switching explained the
    fall away (4 of 8 series). Against the series' brief dips below the chain's middle at their rate, such
    low phases are chance; with fewer than two real ones left there is no switching, and the fall is the
    regression it is (at most one series of eight still misread)."""
    falls = 0
    for seed in range(8):
        y = _contaminated(seed)
        y[800:860] = 0.5 + (y[800:860] - 0.97) / 4
        case = Case("fall among drops", _beside_a_steady_sibling(y), [])
        got, _run = run_case(case, tmp_path / str(seed))
        falls += any(i.type == "graduated_regression" and abs(i.first_step - 8000) <= 20 for i in got)
    assert falls >= 7, falls


def test_a_gradual_fall_cut_into_stairs_is_dated_on_one_ramp():
    """Segmentation cuts a gradual fall into a staircase: a short segment on the way down (its mean just
    under the line), then the bottom. A ramp only down to the first stair, fitted through noisy points,
    reaches the line early; one ramp down to the bottom, which fits the fall as well as the stairs do, crosses
    it where the true ramp does (third corpus seed 28's Pyramids was dated 5 summary periods early)."""
    from curriwatch.rules.regression import _crossed

    class Stairs:
        def __init__(self, bounds, level):
            self.bounds, self.level = bounds, level

        def __len__(self):
            return len(self.level)

    crossing = 50 + 0.15 / 0.5 * 40  # where the true ramp (1.0 down to 0.5 over points 50..90) reaches 0.85
    bounds = np.array([0, 50, 76, 150])
    segment = np.repeat(np.arange(3), np.diff(bounds))
    for seed in range(6):
        rng = np.random.default_rng(seed)
        raw = np.concatenate([np.full(50, 1.0), np.linspace(1.0, 0.5, 41)[1:], np.full(60, 0.5)]) + rng.normal(0, 0.08, 150)
        level = np.array([raw[a:b].mean() for a, b in zip(bounds[:-1], bounds[1:])])
        assert level[1] < 0.85 < level[0]  # the first stair already lies under the line
        sig = {"segments": Stairs(bounds, level), "segment": segment, "raw": raw, "ratio": level[segment],
               "outlier": np.zeros(150, bool), "after": np.ones(150, bool)}
        assert abs(_crossed(sig, 50, 149, 0.85) - crossing) <= 3, seed


def test_a_regression_that_stands_is_not_explained_by_the_swings_of_its_level():
    """Twelfth corpus seed 1's town06 (collisions, lower is better): a collapse from ~0.16 to ~2.8 collisions an
    episode that stands to the end, whose new level swings far more than the old one for a while. The swings were
    read from one point before the fall was dated; each incident then explained the other, and the regression went
    (the env `healthy` at 20 x its held collisions, the swings over). Swings over before the series ended leave an
    env low at the end: it fell for good, and they were its new level's noise. Swings that go on to the end (evals
    swinging 0.9, 0.3, 0.9 ...) are the env's state now, and explain the fall they pull the mean into."""
    from curriwatch.incidents import Incident, drop_explained

    def fall(resolved=False, last=423000):
        return Incident("graduated_regression", "town06", "critical", 269000, last, resolved, "fell", {})

    def swings(last=359000, resolved=True):
        return Incident("performance_volatility", "town06", "warning", 268000, last, resolved, "swings",
                        {"kind": "swings"})

    stands, swung = fall(), swings()
    assert drop_explained([stands, swung]) == [stands]
    stands, swinging = fall(), swings(last=423000, resolved=False)
    assert drop_explained([stands, swinging]) == [swinging]
    stands, edge = fall(), swings(last=420000)  # over a few points before the end: a swing window's edge
    assert drop_explained([stands, edge]) == [edge]
    # a fall that came back over which the env swung is that erratic spell: volatility's
    back, swung = fall(resolved=True, last=350000), swings()
    assert drop_explained([back, swung]) == [swung]


def test_switching_in_heavy_tailed_noise_is_read_by_its_typical_spread(tmp_path):
    """A human-normalized score in Student t noise with 2 degrees of freedom (thirteenth corpus) switches
    between ~3.6 and ~1.9 from step 123 to the end. The switching read as a wander (AR(1) 0.6) left the t
    noise's lone spikes (10.5, 12.8) in its fit; they swelled the two clusters' spread until they lay 2.9 of it
    apart (3 needed): read as a lasting fall, a critical regression. Without lone spikes the spread reads the
    switching. Its sibling in the same noise, held to the end, stays silent."""
    case = Case("switching in t noise", {"a": E(train=_fixture_series("hns_switching_in_student_t_noise"), train_every=1),
                                         "b": E(train=_fixture_series("hns_held_in_student_t_noise"), train_every=1)},
                [("performance_volatility", "a", "warning", 123, 5)],
                ("graduated_regression", "performance_volatility", "training_stagnation"))
    got, _run = run_case(case, tmp_path)
    check(case, got)


def _replayed(top: float, rise: int, flat: int, sparse: int, evals: str) -> E:
    """Trained every 10 steps while active, then every 50 (a graduated env replayed now and then)."""
    return E(train=f"0+{top / rise:.4f}x{rise} {top}~{top / 40:.3f}x{flat} ({top}~{top / 40:.3f} _x4)x{sparse}",
             train_every=10, eval=evals, eval_every=50)


@pytest.mark.parametrize("together", [False, True])
def test_training_thinned_out_for_good_while_evals_go_on_is_the_curriculums_graduation(tmp_path, together):
    """A replay curriculum trains a graduated game every 5th iteration (against forgetting) while it evaluates
    every game to the end (thirteenth corpus). Game a's returns top out at 38 beside games reaching 97-100 from
    the same start: judged on their scale it sits at 38 % and stalls — but the curriculum graduated it, where its
    training thinned out. A run whose every env thins out at the same step (within one sparse interval) logs
    less often: no graduation."""
    flat_a, flat_b, flat_c = (20, 20, 20) if together else (18, 26, 34)  # graduated 8 intervals apart
    evals = lambda top: f"0+{top / 11:.3f}x11 {top}~{top / 40:.3f}x45"  # noqa: E731  # to step 2750
    sparse = lambda flat: (278 - 40 - flat) // 5  # noqa: E731  # every env trained to about step 2780
    case = Case("replayed after graduating", {
        "a": _replayed(38, 40, flat_a, sparse(flat_a), evals(38)),
        "b": _replayed(100, 40, flat_b, sparse(flat_b), evals(100)),
        "c": _replayed(97, 40, flat_c, sparse(flat_c), evals(97))}, [], ("training_stagnation", "graduated_regression"))
    got, run = run_case(case, tmp_path)
    states = {e.env_id: e.current_state for e in run.environments}
    if together:
        assert states["a"] == "active" and [(w.type, w.env_id) for w in got] == [("training_stagnation", "a")], got
        return
    assert states == {"a": "graduated", "b": "graduated", "c": "graduated"}
    grads = {e.env_id: e.graduation_step for e in run.environments}
    assert grads == {"a": 10 * (40 + flat_a), "b": 10 * (40 + flat_b), "c": 10 * (40 + flat_c)}  # the last dense point
    check(case, got)


def test_a_never_learner_whose_chance_drift_adds_up_to_little_has_stalled(tmp_path):
    """A never-learner (fourteenth corpus) flat near 5 in noise of sd ~13 beside siblings that reach ~250; the run
    logged nothing for 84 steps, and its points after the pause sit ~6 higher by chance. That drift is a trend of
    t 2.5 which added up to 2.3 % of the range — over a quarter of `min_delta` (5 %): read as a slow climb, the env
    was healthy. A trend is progress once it adds up to half of `min_delta`; the siblings stay silent."""
    case = Case("never-learner with a chance drift", {
        "a": E(train=_fixture_series("sparse_pause_reach"), train_every=1, start=112),
        "b": E(train=_fixture_series("sparse_pause_turn_valve"), train_every=1),
        "c": E(train=_fixture_series("sparse_pause_place"), train_every=1)},
        [("training_stagnation", "a", "warning", 112, 5)], ("training_stagnation", "prolonged_training"))
    got, _run = run_case(case, tmp_path)
    check(case, got)


def test_a_wave_in_a_few_dozen_sparse_evals_is_oscillation(tmp_path):
    """A loss that never learns and rises and falls all its life, judged on 43 evals (fourteenth corpus: a period
    of ~100 steps, over 64 points of its training — a slow wave, levels or a trend to the periodogram — but 8.6
    evals, 5 periods). A series of fewer than 48 points was never searched for a wave, and the env was healthy;
    34 points (17 frequencies: a line and 8 on either side to judge it by) are enough. Its siblings, which
    learn, stay silent."""
    case = Case("wave in sparse evals", {
        "a": E(eval="2.0w0.6p8.6~0.03x43", eval_every=12),
        "b": E(eval="3.2-0.6x4 0.8~0.03x39", eval_every=12),
        "c": E(eval="3.0-0.55x4 0.85~0.03x39", eval_every=12)},
        [("performance_volatility", "a", "warning", 0, 12)], ("performance_volatility",), {"performance_metric": "loss"},
        metric="loss")
    got, _run = run_case(case, tmp_path)
    check(case, got)


def test_a_running_mean_of_rare_far_episodes_is_no_gain_of_its_own(tmp_path):
    """Time to solve (lower is better, capped at 767 steps) logged as a running mean (thirteenth corpus; phi 0.85,
    as reinforce.py's running reward): a never-learner times out nearly always, a rare solved episode drops the
    mean, which creeps back to the cap. Its changes between neighbours are mostly tiny, so its wander (705..767)
    read as a gain of its own — 'plainly learned', judged on that sliver, where its jumps were switching between
    ~737 and ~751. Measured against its points' distance from their running median, it learned nothing; its
    siblings learned to ~180 and hold it: no volatility anywhere."""
    series = {name: _fixture_series(f"nav_running_time_{name}") for name in ("maze_large", "maze_rooms", "maze_open")}
    case = Case("running mean of rare far episodes", {name: E(train=v, train_every=1) for name, v in series.items()},
                [], ("performance_volatility",), {"performance_metric": "to_goal", "direction": "lower"},
                metric="to_goal")
    got, _run = run_case(case, tmp_path)
    check(case, got)


def _pm1(seed: int, trials: int, top: float, n: int = 270) -> str:
    """A reward that is the mean of `trials` +-1 episode outcomes ((2k - n)/n: a win/loss game, a tinker reward of
    -1 or 1 a sample): won with probability 0.05 -> `top` over ~37 points (a square root), then held."""
    rng = np.random.default_rng(seed)
    p = 0.05 + (top - 0.05) * np.sqrt(np.minimum(np.arange(n) / 37.0, 1.0))
    return " ".join(f"{2 * k / trials - 1:.6f}" for k in rng.binomial(trials, p))


@pytest.mark.parametrize("seed", range(4))
def test_means_of_plus_minus_one_outcomes_are_a_rate_and_their_noise_no_volatility(tmp_path, seed):
    """Eight envs logging the mean of 6 +-1 outcomes a point (seventh corpus: W&B rewards in [-1, 1]), held near
    0.92 of their wins once learned: values on the lattice (2k - 6)/6, a rate of 6 trials from -1. Read as gaussian,
    the runs at 1 made its calm windows silent and its drops to 0.33 swings (one env volatile on seeds 2 and 3)."""
    envs = {f"maze_{k}": E(train=_pm1(40 * seed + k, 6, 0.95), train_every=1) for k in range(8)}
    got, run = run_case(Case("pm1", envs, []), tmp_path)
    assert [w for w in got if w.type == "performance_volatility"] == [], got
    assert all(e.current_state == "graduated" for e in run.environments), \
        [(e.env_id, e.current_state) for e in run.environments]


def test_a_sequential_curriculums_last_task_trains_on_after_graduating(tmp_path):
    """One task trained at a time, its training stopped at graduation (which unlocks the next), every task seen
    so far evaluated to the end (fifteenth corpus: retention evals): the last task has no next one to move on
    to, so it trains on after it graduated. That is no sign the curriculum never graduated it (a lesson trained
    to the end beside lessons that stopped, as Marin's, is one): its fall from 0.9 to 0.6 long after it
    learned is a regression, not a prolonged active task. Was: `active`, prolonged_training, the fall unseen."""
    case = Case("sequential tasks", {
        "a": E(train="0.1+0.1x8 0.9~0.02x12", eval="0.1+0.2x4 0.9~0.02x56"),
        "b": E(train="0.1+0.1x8 0.9~0.02x12", eval="0.1+0.2x4 0.9~0.02x52", start=200),
        "c": E(train="0.1+0.1x8 0.9~0.02x112 0.6~0.02x135", eval="0.1+0.2x4 0.9~0.02x22 0.6~0.02x25", start=400)},
        [("graduated_regression", "c", "critical", 1650, 60)])
    got, run = run_case(case, tmp_path)
    check(case, got)
    assert {e.env_id: e.current_state for e in run.environments} == {"a": "graduated", "b": "graduated",
                                                                      "c": "graduated"}


def test_switching_after_a_calm_stretch_logged_sparsely_is_dated_from_its_first_change(tmp_path):
    """A learning-progress sampler logs an env densely while it learns or switches and every third iteration
    once it is flat (fifteenth corpus's lp_sampler): Markov switching between ~0.85 and ~0.35 after 60 sparse
    calm points is dated from its first low phase. The wave read from the same switching reaches half height
    half a period early in its points — but the calm points before it lie three times as far apart as the
    switching's, so half a period of them spans 1.5 periods of steps: it dated the switching 40 steps early."""
    rng = np.random.default_rng(5)
    dwell = rng.integers(12, 25, 20)
    phases = " ".join(f"{0.35 if k % 2 == 0 else 0.85}b27x{d}" for k, d in enumerate(dwell))
    case = Case("sparse calm, dense switching", {
        "a": E(train="0.1+0.05x15 " + "(0.85b27 _ _)x60 " + phases, train_every=1),
        "b": E(train="0.1+0.05x15 0.85b27x500", train_every=1)}, [], ("performance_volatility",), seed=3)
    got, _run = run_case(case, tmp_path)
    start = 16 + 180  # the first low phase's first point
    assert [(g.type, g.env_id) for g in got] == [("performance_volatility", "a")], got
    assert abs(got[0].first_step - start) <= 3, got



def test_a_gradual_fall_cut_into_stairs_above_the_line_is_dated_where_its_ramp_crosses(tmp_path):
    """An Atropos rate held at 0.88 (123 problems a point) slides to 0.70 over steps 246..299 (fifteenth corpus's
    pretrained_top): segmentation cuts the slide into a stair at ~0.78 from step 258 — above the regression
    line, 0.85 of the gain — and a low segment from step 300; the ramp fitted from the stair's level alone
    crossed the line at its end (step 300). The stair is part of the fall (one ramp from the held level fits
    it no worse): dated where the ramp crosses, at ~282 (the expected value's crossing)."""
    case = Case("slide in stairs", {"a": E(train=_fixture_series("atropos_slide_in_stairs"), train_every=1),
                                    "b": E(train="0.1+0.08x10 0.88b123x420", train_every=1)},
                [("graduated_regression", "a", "warning", 282, 6)], ("graduated_regression",))
    got, _run = run_case(case, tmp_path)
    check(case, got)


@pytest.mark.parametrize("seed", [4, 5])
def test_a_stall_through_a_lucky_run_given_back_is_one_incident(tmp_path, seed):
    """A never-learner's rate of 4 trials at ~0.02 has a lucky run at ~0.25 for 50 points, then is back at
    0.02 (eighth corpus: a PLR level's chance cluster of solved replays): the run reads as progress, which
    ends the stall — but it was given back within 4 windows, back to where it stalled: one stall from its
    activation to the end, not two incidents (one event, one incident)."""
    case = Case("never, lucky run", {"never": E(train="0.02b4x300 0.25b4x50 0.02b4x40", train_every=10),
                                     "a": E(train="0.05+0.1x9 0.95b1x440", train_every=10),
                                     "b": E(train="0.05+0.1x9 0.95b1x440", train_every=10)},
                [("training_stagnation", "never", "warning", 0, 0)], ("training_stagnation",), seed=seed)
    got, _run = run_case(case, tmp_path)
    check(case, got)
    assert got[0].last_step == 3890 and not got[0].resolved


def test_a_level_held_from_its_first_replays_then_switching_graduates(tmp_path):
    """A PLR level logs the return of the one episode it replayed (0 unless solved, ~0.9 solved): solved from its
    fifth replay on, held ~0.9, then from ~31M env steps it switches between ~0.9 and ~0.4 of its replays (eighth
    corpus). One trial a point: segmentation reads all its life as one segment whose mean (0.72), pulled down by
    the switching, lies under the line a level that knew its task must reach beside siblings that start at 0.36 —
    so it never graduated and was `prolonged` for 22M steps. The level it held over its first half (0.8) is
    its level: graduated after the trainer's wait."""
    case = Case("plr level", {"lvl": E(train=_fixture_series("plr_level_held_then_switching"), train_every=16384,
                                       start=17465344),
                              "a": E(train="0.36b1x40 0.9b1x600", train_every=81920),
                              "b": E(train="0.36b1x60 0.9b1x580", train_every=81920)}, [], (), seed=1)
    got, run = run_case(case, tmp_path)
    lvl = next(e for e in run.environments if e.env_id == "lvl")
    assert lvl.current_state == "graduated" and lvl.graduation_step < 18_000_000, \
        (lvl.current_state, lvl.graduation_step)
    assert [g for g in got if g.type == "prolonged_training"] == [], got


def test_a_burst_in_a_smoothed_series_is_read_from_its_whitened_changes(tmp_path):
    """A return logged as an exponential moving average (alpha 0.3) of noisy iteration rewards (fifth corpus's
    gen_ema): a burst of one-sided noise for 100 steps from step 1059. Smoothing blurs its changes into their
    neighbours (its second differences only 1.7 x the rest's, and not white: the burst test's 2 x) and its scatter
    into a dip — a regression that came back. Its changes whitened (x[t] - 0.78 x[t-1], the series' AR(1)
    coefficient) are white and scatter 1.8 x the rest's: a burst, volatility, not a regression."""
    case = Case("ema burst", {"a": E(train=_fixture_series("ema_burst_after_graduation"), train_every=1),
                              "b": E(train="-130+20x17 210~8x1223", train_every=1)},
                [("performance_volatility", "a", "warning", 1059, 10)], (), seed=1)
    got, _run = run_case(case, tmp_path)
    check(case, got)
    assert got[0].evidence["kind"] == "burst"


def test_switching_after_a_sparse_rise_is_dated_from_its_first_drop(tmp_path):
    """Sixth corpus seed 2's SB3 level (ep_rew_mean mirrored to W&B): learns from ~-1400 to ~-230 by step ~35,000,
    holds it to ~61,000, then switches between ~-230 and ~-780 to the end. Its evals, every 2,048 steps, pass
    ~-480 on the way up: read as two levels, that rise is left out and the first phase is the level it learned
    into, which lasts about as long as the held phases of the switching. That phase is no part of the switching:
    dated from its first drop (the evals' at 61,440), and the env graduated before it. Was: from the rise's end
    (34,816; then from its activation, 24,832), with no graduation at all and the env `prolonged`."""
    evals, train = _fixture_lines("sb3_switching_after_a_sparse_rise")
    case = Case("sparse rise then switching", {"a": E(train=train, eval="_x7 " + evals, train_every=256,
                                                      eval_every=256, start=24832)},
                [("performance_volatility", "a", "warning", 61440, 2048)], ("performance_volatility",
                                                                           "prolonged_training"))
    got, run = run_case(case, tmp_path)
    check(case, got)
    (env,) = run.environments
    assert env.graduation_step is not None and env.graduation_step < 61440, env.graduation_step



def _thinned_train(rise: str, top: str, held: int, replays: int) -> str:
    """A train series that rises, holds `top` for `held` points, then is trained every 6th point only."""
    return f"{rise} {top}x{held} " + " ".join([f"_x5 {top}"] * replays)


@pytest.mark.parametrize("states", [True, False])
def test_a_flat_stretch_the_curriculum_then_graduates_is_no_stall(tmp_path, states):
    """Thirteenth corpus's frames_replay: Atari games on their own scales (SpaceInvaders ~2,000 beside Qbert's
    ~12,000, all from ~0, so the run's shared scale reads from their common start) under a curriculum that waits a
    while at the top before it graduates a game. SpaceInvaders, flat at ~2,000 for 10 windows before the
    curriculum graduated it there (its states, or its training thinned to a replay every 6th point while its evals
    went on), was waiting to graduate: the curriculum took that level for mastery, whatever its siblings reach.
    Was: stalled (at 22 % of the shared scale) up to its graduation. A stall well below the level it graduated
    at (Pong, flat at ~500 before it learned on to ~1,200) is still one."""
    if states:
        games = {"SpaceInvaders": ("0+100x20", "2000~60", 200, "1x12 2x20"),  # graduated at step 1,200
                 "Qbert": ("0+600x20", "12000~300", 200, "1x4 2x28"),
                 "Breakout": ("0+300x20", "6000~150", 200, "1x4 2x28")}
        envs = {name: E(train=f"{rise} {top}x{held}", state=state, train_every=10, state_every=100)
                for name, (rise, top, held, state) in games.items()}
        envs["Pong"] = E(train="0+25x20 500~20x100 500+70x10 1200~20x90", state="1x14 2x18", train_every=10,
                         state_every=100)
        expect = [("training_stagnation", "Pong", "warning", 200, 100)]
    else:
        games = {"SpaceInvaders": ("0+100x20", "2000~60", 100, 16, "0+500x4"),
                 "Qbert": ("0+600x20", "12000~300", 10, 31, "0+3000x4"),
                 "Breakout": ("0+300x20", "6000~150", 10, 31, "0+1500x4")}
        envs = {name: E(train=_thinned_train(rise, top, held, replays), eval=f"{ev} {top}x28", train_every=10,
                        eval_every=100)
                for name, (rise, top, held, replays, ev) in games.items()}
        expect = []
    case = Case("waits at the top", envs, expect, ("training_stagnation",))
    got, run = run_case(case, tmp_path)
    check(case, got)
    si = next(e for e in run.environments if e.env_id == "SpaceInvaders")
    assert si.graduation_step is not None and 1100 <= si.graduation_step <= 1250, si.graduation_step


def _sparse_solves(n: int, every: int, seed: int) -> str:
    """A never-learner's mean test return: 0 but for one solved episode of a dozen now and then."""
    rng = np.random.default_rng(seed)
    return " ".join(f"{rng.uniform(0.55, 0.9) / 12:.4f}" if k % every == every // 2 else "0" for k in range(n))


@pytest.mark.parametrize("metric, sibling", [("test_returns", False), ("solved_rate", False),
                                             ("cumulative_reward", True)])
def test_returns_in_0_1_are_no_success_rate(tmp_path, metric, sibling):
    """Seventeenth corpus's dcd_rotate: dcd's `test_returns:{env}` alone (eval-only), the mean return of a dozen
    MiniGrid test episodes (0 unsolved, else 1 - 0.9 x steps / max steps): in [0, 1], continuous, topping out
    near 0.5. Read as a success rate (best 1), every learner held at 0.5 was stalled below the rate's waiting line
    (0.6 of its range) and never graduated. A return by its name, its values on no lattice, no env of its run near 1: its top is its own. A
    never-learner's rare solved episodes (a twelfth of a return each) read as single episodes' outcomes worth
    ~0.06 — whose whole range is 0 to that, so it stalls below 0.7 x 0.06, not below 0.06 - 0.3 (nowhere).
    Named a rate (`solved_rate`), the same values stay one: held at 0.5, stalled. So do they beside a sibling
    held at 0.97 (third corpus: ML-Agents' cumulative reward of a sparse task, 1 per success, is a success
    rate, and its best envs show its scale)."""
    learner = "0+0.025x20 0.5~0.08x180"
    envs = {"Maze": E(eval=learner, eval_every=100), "FourRooms": E(eval=learner, eval_every=100),
            "SixteenRooms": E(eval=_sparse_solves(200, 9, 3), eval_every=100)}
    if sibling:
        envs["PushBlock"] = E(eval="0+0.05x20 0.97~0.02x180", eval_every=100)
    rate = metric != "test_returns"
    case = Case("dcd", envs, [("training_stagnation", "SixteenRooms", "warning", 0, 0)] + (
                    [("training_stagnation", env, "warning", 2000, 1000) for env in ("Maze", "FourRooms")]
                    if rate else []),
                ("training_stagnation", "prolonged_training"), config={"performance_metric": metric}, metric=metric)
    got, run = run_case(case, tmp_path)
    check(case, got)
    states = {e.env_id: e.current_state for e in run.environments if e.env_id != "PushBlock"}
    assert states == {"Maze": "active" if rate else "graduated", "FourRooms": "active" if rate else "graduated",
                      "SixteenRooms": "active"}, states


def test_a_crash_point_makes_no_rising_trend(tmp_path):
    """Seventeenth corpus's crash_returns: a walker that never learned (returns about -200) beside siblings that
    learned to ~470; near its log's end an env-server crash logged one return of 8,000 (40 x the run's range),
    and a few crashed episodes logged 0. That one point made the least-squares trend of the whole flat stretch
    rise significantly, so it never stalled (and was `prolonged` instead). Outliers make no trend: stalled from
    its first point."""
    flat = "-200~30x150 0 -200~30x200 0 -200~30x280 8000 -200~30x20"
    learner = "-215+34x20 470~30x633"
    case = Case("crash", {"slope": E(train=flat, train_every=1000), "flat": E(train=learner, train_every=1000),
                          "hurdles": E(train=learner, train_every=1000)},
                [("training_stagnation", "slope", "warning", 0, 0)], ("training_stagnation", "prolonged_training"),
                metric="return", config={"performance_metric": "return"})
    got, _run = run_case(case, tmp_path)
    check(case, got)


def test_a_demoted_env_at_the_level_it_fell_to_has_not_stalled_too(tmp_path):
    """Seventeenth corpus's demote_states: a trainer that demotes a graduated env (its logged state 2 -> 1) once its
    success fell keeps it active at the level it fell to, where it makes no progress. That is the fall — one
    event: the regression (and the backward transition the trainer logged), not a stall beside them."""
    case = Case("demoted", {"a": E(train="0.05+0.1x10 0.97~0.02x190 0.56~0.03x300", state="1x1 2x27 1x22",
                                   train_every=1, state_every=10),
                            "b": E(train="0.05+0.1x10 0.97~0.02x490", state="1x1 2x49", train_every=1, state_every=10)},
                [("graduated_regression", "a", "critical", 200, 2), ("unexpected_transition", "a", "warning", 280, 0)],
                ("graduated_regression", "training_stagnation", "unexpected_transition"),
                config={"performance_metric": "success"}, metric="success")
    got, _run = run_case(case, tmp_path)
    check(case, got)


def test_a_burst_read_from_its_points_in_white_noise_needs_the_white_ratio(tmp_path):
    """Eighteenth corpus seed 1's humanoid-stand_s0 (a normalized score, gaussian noise): after holding ~92 it
    scatters for 20 points from ~735,000 (6 of 15 points far off the level, down to 18), then settles. Its changes
    there are 1.9 x the rest's: under the 2 x a burst read from its points needed, it was a regression. In white
    noise (changes' lag-1 correlation under -0.3) each point's changes are independent, and 1.6 x stands out, as
    for a burst found by its ranks; a fall moves its points together (about 1 x)."""
    case = Case("burst", {"a": E(train=_fixture_series("replica_burst_in_white_noise"), train_every=2048,
                                 start=2048)},
                [("performance_volatility", "a", "warning", 741376, 4096)],
                ("performance_volatility", "graduated_regression"))
    got, _run = run_case(case, tmp_path)
    check(case, got)
    assert got[0].evidence["kind"] == "burst"


def test_a_burst_found_by_its_ranks_is_dated_from_its_first_point_off_the_level(tmp_path):
    """Fifteenth corpus seed 3's swimmer (returns in Laplace noise, evaluated at wall-clock slots): after holding
    ~440 it scatters below it from step ~415,000. The rank scan's ends split its changes' sizes where they grow —
    a few calm evals before the first one far off (25,000 steps early, 6 eval slots): the burst is dated from its
    first point off the level held before it (by `threshold` x the range and 4 noise sds), as a burst read from
    its points is."""
    evals, train = _fixture_lines("rr_burst_dated_by_its_first_point_off")
    case = Case("burst", {"swimmer": E(train=train, eval="_x3 " + evals, train_every=1000, eval_every=1000,
                                       start=145000)},
                [("performance_volatility", "swimmer", "warning", 415000, 4000)], ("performance_volatility",))
    got, _run = run_case(case, tmp_path)
    check(case, got)
    assert got[0].evidence["kind"] == "burst"



def test_a_drifting_noise_level_is_no_burst(tmp_path):
    """Eighteenth corpus's long_drift: 7,000 points in Student t noise whose level drifts slowly over the run (x0.67
    to x1.75). A stretch of 2,600 points where it runs high ranks above the rest, its changes 1.9 x the rest's —
    over the bar for white noise —, and read as a burst. A stretch of over a quarter of the series after
    graduation whose changes grew less than 2 x is the noise level drifting, not a burst."""
    case = Case("drift", {"a": E(train=_fixture_series("long_drift_noise_level"), train_every=1000, start=1000)}, [],
                ("performance_volatility",))
    got, _run = run_case(case, tmp_path)
    check(case, got)


def test_noise_that_fades_in_and_out_over_a_long_stretch_is_no_burst(tmp_path):
    """Eighteenth corpus's long_drift (bossfight, healthy): Student t noise whose level drifts slowly (x0.66 to x1.43)
    over 6,800 points. The rank scan found a stretch of ~1,600 points where it ran high, its changes 1.7 x the
    rest's, white noise: a burst under a quarter of the series. Its first and last quarters change no more than
    the points just outside it (1.2 x and 0.8 x): the noise level came and went gradually — a drift, not a burst,
    which shows where its noise grew or settled (long bursts elsewhere: 2.3 x or more at one end)."""
    case = Case("drift", {"a": E(train=_fixture_series("long_drift_faded_noise"), train_every=4000, start=4000)}, [],
                ("performance_volatility",))
    got, _run = run_case(case, tmp_path)
    check(case, got)


def test_far_points_bunched_where_a_drifting_noise_runs_high_are_no_burst(tmp_path):
    """Eighteenth corpus's long_drift (dodgeball, healthy): Student t noise (5 df) whose level drifts slowly (x0.65 to
    x1.79). Where it runs high, points 4 noise sds off the held level come often: five within 16 points were a burst
    by the rate of such points over the whole series since graduation, which the quiet stretches keep low. Taken
    also over the group's neighbourhood (10 x its span, at least 200 points, either side), they are chance."""
    case = Case("drift", {"a": E(train=_fixture_series("long_drift_far_points_bunch"), train_every=1000, start=1000)},
                [], ("performance_volatility",))
    got, _run = run_case(case, tmp_path)
    check(case, got)


def test_a_deep_pair_where_a_drifting_noise_runs_high_is_chance(tmp_path):
    """Eighteenth corpus's long_drift (coinrun, noisy but healthy): Student t noise (3 df) whose level drifts slowly
    (x0.51 to x1.46) over 5,158 points. Two points in a row lost half the gain and came back: by the rate of lone
    deep points over the whole series since graduation (the quiet stretches keep it low) such a pair is rare, a dip.
    Near it (10 x its span, at least 200 points, either side) the noise runs high and lone deep points come four
    times as often: there such a pair is chance, as the burst scan's far points already are."""
    case = Case("drift", {"a": E(train=_fixture_series("long_drift_deep_pair_where_noise_runs_high"), train_every=4000,
                                 start=4000)}, [], ("performance_volatility",))
    got, _run = run_case(case, tmp_path)
    check(case, got)


# An LLM's eval sets (OpenRLHF's per-datasource pass@1, twenty-second corpus): every datasource of the run tops out
# at the model's reach on its problems, 0.62 here — the run's top, not three stalls; a datasource frozen far below
# it is stalled, and a fall from the shared top is a regression. Two envs at one level are no evidence of a ceiling.
SHARED_CEILING = {k: E(eval="0.2+0.04x11 0.62b200x150") for k in ("a", "b")}


@pytest.mark.parametrize("case", [
    Case("three learners stop at a shared ceiling, one frozen below it",
         SHARED_CEILING | {"c": E(eval="0.2+0.04x11 0.62b200x150"), "d": E(eval="0.2+0.015x10 0.35b200x151")},
         [("training_stagnation", "d", "warning", 500, 150)], ("training_stagnation", "graduated_regression")),
    Case("a fall from the shared ceiling", SHARED_CEILING | {"c": E(eval="0.2+0.04x11 0.62b200x60 0.35b200x90"),
                                                             "d": E(eval="0.2+0.04x11 0.62b200x150")},
         [("graduated_regression", "c", "critical", 3550, 50)], ("training_stagnation", "graduated_regression")),
    Case("two learners at one level below the bound are no ceiling",
         {k: E(eval="0.2+0.03x11 0.5b200x150") for k in ("a", "b")},
         [("training_stagnation", "a", "warning", 550, 300), ("training_stagnation", "b", "warning", 550, 300)],
         ("training_stagnation",)),
    # ... but above 0.6 of a rate's whole range a rate waits at its top: two eval sets at 0.62 are no stalls (slime's
    # and open-instruct's runs of two data sources, each topping out at the model's reach on its own problems)
    Case("two learners at one level above 0.6 wait at their top", SHARED_CEILING, [], ("training_stagnation",)),
], ids=lambda c: c.name)
def test_rates_whose_learners_all_stop_short_of_the_bound_share_that_ceiling(case, tmp_path):
    got, _run = run_case(case, tmp_path)
    check(case, got)


def test_switching_that_sparse_evals_read_from_the_learning_start_is_dated_by_training(tmp_path):
    """Seventh corpus's tbx_scalars (place): training (5 episodes a point, every 10 steps) switches 12 times in
    phases of ~200 steps from step 4,240, 2,700 steps after it graduated. Its evals (10 episodes, every 30-70
    steps) read 5 changes in phases of ~1,200 steps from their first point, the learning start near the low
    level: merged, the switching began before graduation and ended before the log did — the noise of learning,
    not reported — and the fall it held was a critical regression. Switching the denser series resolves finer
    starts it no earlier than that."""
    grid = {f"{split}_every": 10 for split in ("train", "eval", "state")}
    case = Case("place", {"a": E(start=1130, **grid, **{split: _fixture_series(
        f"seventh_switching_sparse_evals_from_the_start_{split}") for split in ("train", "eval", "state")})},
                [("performance_volatility", "a", "warning", 4240, 20)], ("performance_volatility", "graduated_regression"))
    got, _run = run_case(case, tmp_path)
    check(case, got)


# A Meta-World-style task whose ceiling lies far below its siblings' (peg-insert near 0.25 beside tasks at 0.95),
# with its trainer's own per-task threshold given as an override: it graduates once its smoothed rate reaches that
# threshold and plateaus (Marin's rule: success ratio >= stop_threshold, and plateaued), whatever share of the
# siblings' scale it is — no stall, no prolonged training — and a fall from the level it then held is its
# regression (nineteenth corpus mt_tasks: 34 false stalls in seeds 1-3 while the override only gated graduation).
LOW_CEILING = {"reach": E(train="0.05+0.05x18 0.95~0.015x282"), "push": E(train="0.05+0.04x20 0.85~0.015x280")}
THRESHOLD = {"overrides": [{"env": "peg", "graduation": {"stop_threshold": 0.2}}]}


@pytest.mark.parametrize("case", [
    Case("a low ceiling graduated at the trainer's threshold", LOW_CEILING | {"peg": E(train="0.05+0.01x20 0.25~0.01x280")},
         [], ("training_stagnation", "prolonged_training", "graduated_regression"), THRESHOLD),
    Case("a low ceiling's fall after its trainer's threshold", LOW_CEILING | {"peg": E(
        train="0.05+0.01x20 0.25~0.01x180 0.08~0.01x100")},
         [("graduated_regression", "peg", "critical", 2000, 60)], ("training_stagnation", "prolonged_training",
                                                                 "graduated_regression"), THRESHOLD),
], ids=lambda c: c.name)
def test_a_per_env_stop_threshold_is_the_trainers_graduation_line(case, tmp_path):
    got, _run = run_case(case, tmp_path)
    check(case, got)


@pytest.mark.parametrize("held", [70, 250])
def test_a_fall_of_the_judged_evals_before_a_late_inferred_graduation_is_a_regression(tmp_path, held):
    """Reward hacking (nineteenth corpus reward_hacking): a proxy reward model's train score rises to ~0.72 and holds,
    then climbs again to 0.80 as the policy learns to game it, while the gold eval accuracy of the same name falls
    from 0.68 to 0.32. Graduation is inferred where training's level plateaus above 90 % of its gain — at its
    second plateau, after the evals fell — and the level held from there was the fallen one: `healthy`. The
    level the env held once it had learned is counted from where training reached the hold line (80 % of its
    gain) and stayed there up to its inferred graduation: the evals' fall is the regression, dated where it
    happened, and its message says it came before the inferred graduation. Held long (250 points), the late
    graduation also made the env `prolonged`: one event — training sat at its graduation level within the
    prolonged limit of its activation — one incident, the regression."""
    fall = 200 + 10 * held
    case = Case("reward hacking", {"a": E(train=f"0.15+0.03x19 0.72~0.01x{held} 0.72+0.008x10 0.80~0.01x40",
                                          eval=f"0.1+0.06x10 0.68~0.02x{held // 2} 0.32~0.02x25", eval_every=20),
                                   # siblings that graduate fast: the run's envs take ~200 steps (prolonged's limit)
                                   **{k: E(train="0.15+0.06x10 0.80~0.01x310") for k in ("b", "c")}},
                [("graduated_regression", "a", "critical", fall, 50)],
                ("graduated_regression", "performance_volatility", "training_stagnation", "prolonged_training"),
                config={"performance_metric": "score"}, metric="score")
    got, _run = run_case(case, tmp_path)
    check(case, got)
    assert got[0].evidence["steps_after_graduation"] < 0 and "before its inferred graduation" in got[0].message


def test_a_hold_that_began_while_the_env_switched_graduates_once_the_switching_ends(tmp_path):
    """Sixteenth corpus cg_speedup with the trainer's threshold as its line: an env that rises straight into
    switching (dated from its activation) above that line, then holds its top. Every point is above the line, so its
    one hold began inside the switching and was skipped: never graduated, `prolonged_training`. The hold is judged
    from where the switching ended, and the env graduates there."""
    case = Case("switching then a hold",
                {"a": E(train="0.05+0.3x2 0.9~0.01x8 0.65~0.01x8 0.9~0.01x8 0.65~0.01x8 0.9~0.01x8 0.65~0.01x8 "
                              "0.9~0.01x250"),
                 "b": E(train="0.05+0.1x9 0.95~0.01x300")},
                [], ("prolonged_training", "training_stagnation"),
                {"overrides": [{"env": "a", "graduation": {"stop_threshold": 0.6}}]})
    got, run = run_case(case, tmp_path)
    check(case, got)
    env = next(e for e in run.environments if e.env_id == "a")
    assert env.current_state == "graduated" and 470 <= env.graduation_step <= 700


COUNTED_PROFILE = {"profiles": {"tasks": {
    "patterns": [{"regex": r"^train/(?P<env>[^/]+)/(?P<metric>return|episodes)$", "split": "train"}],
    "performance_metric": "return", "count_metric": "episodes"}}}


def _counted_run(tmp_path, envs: dict[str, tuple[list[int], list[float], list[float]]]):
    """Envs' mean returns and the episodes behind each point, written with tensorboardX and read through a user
    profile that names the count (`count_metric`), as torchbeast's mean_episode_return beside num_episodes is."""
    from curriwatch.config import load_config

    series = {}
    for env, (steps, values, counts) in envs.items():
        series[f"train/{env}/return"] = list(zip(steps, values))
        series[f"train/{env}/episodes"] = list(zip(steps, counts))
    write_tb(tmp_path / "run", series)
    config = load_config(None, overrides=COUNTED_PROFILE)
    (run,) = curriwatch.analyze(curriwatch.load(tmp_path, config=config), config).runs
    return run


def _counted_fixture(name: str) -> tuple[list[int], list[float], list[float]]:
    """A committed counted series: its first step then the gaps between steps, its values, its counts."""
    steps, values, counts = _fixture_lines(name)
    return (np.cumsum([int(x) for x in steps.split()]).tolist(), [float(x) for x in values.split()],
            [float(x) for x in counts.split()])


def _sparse_task(rng, p, success_steps: float, timeout: float = -0.3, batch: float = 8.0):
    """A sparse task's mean return over the episodes that ended in each batch (at least one): a success worth
    1 - 0.001 x its length, a timeout `timeout`; more episodes end as it succeeds (they are shorter)."""
    values, counts = [], []
    for q in p:
        k = 1 + int(rng.poisson(batch * q + 1.5 * (1 - q)))
        won = rng.random(k) < q
        length = np.clip(rng.normal(success_steps, 0.25 * success_steps, k), 10, None)
        values.append(float(np.where(won, 1 - 0.001 * length, timeout).mean()))
        counts.append(float(k))
    return values, counts


@pytest.mark.parametrize("seed", [3, 5, 11])
def test_means_of_a_few_episodes_that_fail_or_succeed_are_a_rate_of_that_many_trials(tmp_path, seed):
    """MiniHack tasks through torchbeast (twentieth corpus): each point the mean return of the 1 to a dozen
    episodes that ended in a batch — a success worth 1 - 0.001 x its length, a timeout -0.3 — beside their count.
    Read as gaussian (a robust sd from neighbours, most of which agree: no failure in either), a batch with one
    failure was a dip, a run of batches without one a higher level — switching, prolonged activity, stalls on
    healthy tasks. They are successes / count of that many trials from a failure's value to a success's worth, whose
    typical values (a success's return varies with its length) are the medians near either end. Each task's worth
    is its own: one whose successes take 200 steps (worth ~0.8) beside ones worth ~0.94 graduates at its own top.
    After `c`'s fall only one to three episodes end a batch: its points' own trials, not the typical one, judge
    them (a few high batches there are no phase of switching). Only `c`'s regression is reported."""
    rng = np.random.default_rng(seed)
    t = np.arange(1500)
    learn = np.clip(0.02 + 0.93 * t / 40, 0, 0.95)
    fall = np.where(t >= 1000, 0.3, learn)
    envs = {}
    for env, p, length in (("a", learn, 60), ("b", learn, 200), ("c", fall, 60), ("d", learn, 120)):
        values, counts = _sparse_task(rng, p, length)
        envs[env] = ((t * 2560).tolist(), values, counts)
    run = _counted_run(tmp_path, envs)
    case = Case("counted", {}, [("graduated_regression", "c", "critical", 1000 * 2560, 2 * 2560)])
    check(case, run.warnings)
    assert {e.env_id: e.current_state for e in run.environments} == dict.fromkeys("abcd", "graduated")


def _procgen_games(rng, fall_at: int | None = None) -> dict[str, tuple[list[int], list[float]]]:
    """Procgen games of one run (twenty-first corpus's torchrl_procgen, reduced): each point the mean return of the
    episodes that ended in a batch of frames, none logged when none did. `coinrun` and `heist` pay 10 on success
    and nothing otherwise (a few to a dozen episodes a batch, the share solved rising to 0.95 in 40 batches);
    `bossfight` and `chaser` score continuously on scales of their own, topping out near 11 and 12.5 from about
    the same start. `heist` falls to half its success rate at batch `fall_at`."""
    t = np.arange(900)
    learn = np.clip(0.35 + 0.6 * t / 40, 0, 0.95)
    games = {}
    for name, top in (("coinrun", None), ("heist", None), ("bossfight", 11.0), ("chaser", 12.5)):
        steps, values = [], []
        for i, q in enumerate(learn):
            if top is None:
                p = q if fall_at is None or name != "heist" or i < fall_at else 0.5
                k = int(rng.poisson(3 + 9 * p))
                if k == 0:
                    continue
                values.append(float(10.0 * np.mean(rng.random(k) < p)))
            else:
                values.append(float(rng.normal(3.0 + (top - 3.0) * q / 0.95, 0.03 * top)))
            steps.append(int((i + 1) * 4096))
        games[name] = (steps, values)
    return games


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_means_of_episodes_that_pay_a_fixed_reward_or_nothing_are_a_scaled_rate(tmp_path, seed):
    """Success-or-nothing Procgen games (10 for a solved episode, 0 otherwise; the mean of the few episodes that
    ended in a batch, their number not logged) beside continuous games on scales of their own. A batch of games
    that all succeeded scores exactly 10 — again and again, never more: that ceiling is the best such a game can
    do, not the continuous games' 11 to 12.5, so it graduates near its own top (was: prolonged training, never
    graduated). Their values are whole numbers of successes out of k: a rate of the typical k scaled by 10, not
    gaussian noise whose robust sd, from neighbours mostly both at 10, made each batch with a failure a dip. Nothing
    is reported; when `heist` falls to half its successes, only its regression is."""
    for fall_at, expect in ((None, []), (600, [("graduated_regression", "heist", "critical", 601 * 4096, 4 * 4096)])):
        rng = np.random.default_rng(seed)
        folder = tmp_path / f"fall{fall_at}"
        write_tb(folder / "run", {f"train/{g}/reward": list(zip(st, v))
                                  for g, (st, v) in _procgen_games(rng, fall_at).items()})
        (run,) = curriwatch.analyze(curriwatch.load(folder)).runs
        check(Case(f"procgen fall at {fall_at}", {}, expect), run.warnings)
        assert {e.env_id: e.current_state for e in run.environments} == dict.fromkeys(
            ("coinrun", "heist", "bossfight", "chaser"), "graduated")


def test_the_next_swing_up_of_a_wandering_never_learner_is_no_progress(tmp_path):
    """Thirteenth corpus's nav_ar1 (seed 3, committed series): training's time to goal, a running mean logged every
    step, of a maze never solved (at the 767-step timeout but for runs of luck that wander ~50 steps down and back)
    beside two mazes learned to ~250. Each swing back up from a trough rose more than min_delta of the shared range,
    and was read as progress: no stall was ever long enough. Progress is a level above the best held so far: the
    maze has stalled since its first point."""
    envs = {name: E(train=_fixture_series(f"thirteenth_nav_{name}"), train_every=1) for name in ("moving", "open", "rooms")}
    case = Case("a wandering never-learner", envs, [("training_stagnation", "moving", "warning", 0, 20)],
                ("training_stagnation",), {"direction": "lower", "performance_metric": "to_goal"}, metric="to_goal")
    got, run = run_case(case, tmp_path)
    check(case, got)
    assert {e.env_id: e.current_state for e in run.environments} == {"moving": "active", "open": "graduated",
                                                                     "rooms": "graduated"}


def test_a_one_sided_burst_of_few_attempt_evals_is_no_fall(tmp_path):
    """Twenty-third corpus's JaxUED maze (seed 3, committed series): solve rates over 40 attempts an eval, held at
    ~0.92, then 19 evals scattered below it (0.47-0.88: a policy's misses, one draw each) and back. The segments
    read one lower level (0.79, 84 % of the gain: a warning regression that came back); the rank scan weighs a
    dozen scattered evals among 260 too little. Its changes disperse over twice the rest's on the binomial
    model's scale: a burst, one incident, no regression."""
    envs = {"maze": E(eval=_fixture_series("twentythird_jaxued_standardmaze"), eval_every=50, start=50)}
    case = Case("jaxued burst", envs, [("performance_volatility", "maze", "warning", 11150, 100)],
                ("performance_volatility", "graduated_regression"), {"performance_metric": "solve_rate"},
                metric="solve_rate")
    got, _run = run_case(case, tmp_path)
    check(case, got)
    assert got[0].evidence["kind"] == "burst"


def _episode_pairs(levels, seed: int, bad=()) -> str:
    """CleanRL-like per-episode returns in the notation: two vectorized envs end an episode 7 steps apart, then
    nothing for 98 steps (one update); the updates in `bad` are catastrophic for both episodes."""
    rng = np.random.default_rng(seed)
    out = []
    for k, level in enumerate(levels):
        a, b = 50 + rng.normal(0, 20, 2) if k in bad else level + rng.normal(0, 30, 2)
        out.append(f"{a:.1f} {b:.1f} _x14")
    return " ".join(out)


@pytest.mark.parametrize("bad, dips", [((150,), False), ((150, 151), True)])
def test_deep_points_logged_at_one_moment_are_one_outlier(tmp_path, bad, dips):
    """Sixth corpus's CleanRL `--track` runs: a single bad update makes both vectorized envs' episodes that end in it
    deep, two points 7 steps apart where updates are 112 apart — read as a two-point dip. Points closer together
    than a quarter of the series' mean interval show one moment of the policy: a lone outlier. Two bad updates in
    a row are two moments: a dip, as before."""
    levels = list(np.minimum(100 + 30 * np.arange(300), 1000.0))
    for seed in range(1, 5):
        envs = {"a": E(train=_episode_pairs(levels, seed, bad), train_every=7),
                "b": E(train=_episode_pairs(levels, seed + 100), train_every=7)}
        expect = [("performance_volatility", "a", "warning", 150 * 112, 0)] if dips else []
        case = Case("one bad update", envs, expect, ("performance_volatility", "graduated_regression"), seed=seed)
        got, _run = run_case(case, tmp_path / str(seed))
        check(case, got)


def _drops_drawn_anew(seed: int, points: int = 20, sd: float = 0.2, held: float = 0.95, n: int = 20) -> str:
    """A burst's evals in the notation: each a rate of n attempts at its own level |N(0, sd)| below the held one
    (a policy erratic near a rate's bound misses more at every eval, by a new amount each time)."""
    rng = np.random.default_rng(seed)
    return " ".join(f"{held - abs(v):.4f}b{n}" for v in rng.normal(0, sd, points))


def test_a_long_burst_of_drops_drawn_anew_is_volatility_not_a_fall(tmp_path):
    """Kinetix-like solve rates of 20 attempts held at 0.95, then 20 evals each at its own level up to ~0.5 below
    (thirty-third corpus: half-normal drops for twice `dip_points`), then back. Binomial noise at the lower levels
    hides much of the drops' spread (their changes disperse 1.3-1.6 x the rest's, under the 1.6 x a fall needs
    to be a burst), but their median lies well short of their root mean square distance from the held level
    (about 2/3 for half-normal drops; a fall with noise keeps nearly all of it): a burst, never a regression."""
    found = []
    for seed in range(1, 13):
        case = Case("drops", {"a": E(eval=f"0.1b20x3 0.3b20x3 0.6b20x3 0.95b20x60 {_drops_drawn_anew(seed)} "
                                          "0.95b20x60", eval_every=50)}, [], seed=seed)
        got, _run = run_case(case, tmp_path / str(seed))
        assert "graduated_regression" not in [i.type for i in got], (seed, got)
        found += [seed for i in got if i.type == "performance_volatility"]
    assert len(found) >= 6, found


@pytest.mark.parametrize("low", [0.8, 0.75, 0.65])
def test_a_fall_of_few_attempt_evals_and_back_stays_a_regression(tmp_path, low):
    """The same evals falling to one lower level for 20 evals and back: their points move together, their changes
    the binomial model's at that level — a regression (resolved) in every seed that finds it, never volatility."""
    types = []
    for seed in range(1, 7):
        case = Case("fall", {"a": E(eval=f"0.1b20x3 0.3b20x3 0.6b20x3 0.95b20x60 {low}b20x20 0.95b20x60",
                                    eval_every=50)}, [], seed=seed)
        got, _run = run_case(case, tmp_path / str(seed))
        types += [i.type for i in got]
    assert set(types) == {"graduated_regression"} and len(types) >= 5, types


def test_switching_inside_one_long_segment_of_a_binomial_rate_is_read_on_its_own(tmp_path):
    """Seventh corpus's tensorboardX success rate of 8 episodes a point (seed 2, stack; committed series): graduated
    at step 226, it switches between ~0.9 and ~0.4 in phases of 8-25 points from step 517. Binary segmentation cut
    the first low phase and made the next eight one segment at 0.56, whose points spread 1.8 noise sds (one level:
    about 1); the whole series' two-level reading splits the lattice near 1 (0.875 from 1) instead. Read alone, that
    segment holds ten changes: switching from 517, no regression."""
    train = _fixture_series("seventh_tbx_stack_switching")
    case = Case("stack", {"stack": E(state="1x45 2x155", train=train, train_every=1, state_every=5)},
                [("performance_volatility", "stack", "warning", 517, 4)],
                ("performance_volatility", "graduated_regression"), {"performance_metric": "success"}, metric="success")
    got, _run = run_case(case, tmp_path)
    check(case, got)
    assert got[0].evidence["kind"] == "switching" and got[0].evidence["changes"] >= 8


def test_switching_in_sparse_evals_is_dated_by_the_denser_training_that_saw_the_learning(tmp_path):
    """Eleventh corpus's torch add_scalars returns (seed 2, crossing; committed series): the env rose from -180 to
    -97 within 15 training points, held it for 92, then switched between -97 and -145 (phases of ~33 training points,
    ~7 evals) from step 1,753,088. Its evals read the same switching from their first point: their first two (-176,
    -145) met the low level on the way up. Training reads it with 4.6 x the points a phase and from its first drop:
    the denser reading of the same rhythm dates and describes it, and an env that began below the switching's worse
    level learned before it — no switching since its activation."""
    train, evals = _fixture_lines("eleventh_torch_crossing_switching")
    case = Case("crossing", {"crossing": E(train=train, eval=evals, train_every=16384, eval_every=16384, start=16384)},
                [("performance_volatility", "crossing", "warning", 1753088, 0)], ("performance_volatility",))
    got, _run = run_case(case, tmp_path)
    check(case, got)
    assert got[0].evidence["kind"] == "switching" and got[0].evidence["series"] == "train"


def test_a_stall_after_a_rise_that_steepened_into_it_is_dated_where_the_rise_stopped(tmp_path):
    """Fourth corpus's DCD solved rate over 128 episodes (seed 1, MultiGrid-Maze2-v0; committed series): a smoothstep
    learning curve frozen at 39 % of its rise at step 1,435,648, its rise steepening into the freeze. A line fitted to
    that rise reached the flat level late: the stall was dated at 1,691,648, five evals late. A rise that bends into
    the break fits it significantly better, and dates the freeze within an eval."""
    envs = {"maze2": E(eval=_fixture_series("fourth_dcd_maze2_freeze"), eval_every=51200, start=2048)}
    case = Case("dcd freeze", envs, [("training_stagnation", "maze2", "warning", 1435648, 51200)],
                ("training_stagnation",), {"performance_metric": "solved_rate"}, metric="solved_rate")
    got, _run = run_case(case, tmp_path)
    check(case, got)


def test_a_rate_that_fell_toward_one_half_is_noisier_there_not_erratic(tmp_path):
    """Twenty-fourth corpus's PufferLib solved rate (seed 2, keyroom; committed series): the share of a varying 3-45
    episodes, off any lattice, so its noise model is one gaussian sd. It fell gradually from 0.90 to about 0.45, where
    a rate's noise is twice what it is at 0.9: its changes there, against the model's one sd, read 2-3 x the rest's —
    a burst that settled. On a rate's noise shape (sqrt(p (1 - p)) at each point's level) they are the noise of the
    level it fell to: a critical regression, no burst."""
    envs = {"keyroom": E(train=_fixture_series("twentyfourth_puffer_keyroom_fall"), train_every=917504, start=108822528)}
    case = Case("puffer fall", envs, [("graduated_regression", "keyroom", "critical", 220921856, 2 * 917504)],
                ("graduated_regression", "performance_volatility"), {"performance_metric": "solved"}, metric="solved")
    got, _run = run_case(case, tmp_path)
    check(case, got)


def test_a_lower_is_better_metric_shares_no_scale_with_returns(tmp_path):
    """Twenty-third corpus's d3rlpy locomotion run (seed 3, committed series): one evaluator per task logs under one
    metric name, returns of 0..10,000 for three tasks and a distance to the goal (0.85 -> 0.15, lower is better by an
    override glob) that switches between 0.15 and 0.55 from epoch 83. Oriented (-0.85..-0.15), the distance fell
    within the returns' shared scale, which read its switching as a stall far below them. A metric of the other
    direction is another kind of metric: its own scale, and its switching is found from its first low phase."""
    envs = {n: E(eval=_fixture_series(f"twentythird_d3rlpy_{n}"), eval_every=1, start=1)
            for n in ("halfcheetah", "hopper", "walker2d", "pusher_dist")}
    case = Case("distance beside returns", {}, [("performance_volatility", "pusher_dist", "warning", 83, 2)])
    got, _run = run_case(Case("d3rlpy", envs, [], (), {"overrides": [{"env": "*_dist", "direction": "lower"}]}), tmp_path)
    check(case, [g for g in got if g.env_id == "pusher_dist"])
    assert next(g for g in got if g.env_id == "pusher_dist").evidence["kind"] == "switching"


def test_success_or_nothing_games_top_out_where_the_games_sharing_their_ceiling_do(tmp_path):
    """Twenty-first corpus's torchrl_procgen (seed 2, committed series): maze and ninja pay 10 or nothing and hold
    94-96 % success (9.4-9.6) beside dodgeball, waving all its life, and plunder, continuous. The run's shared start
    (7.6) and their ceiling (10) put their graduation line at 9.76, out of reach: `prolonged`, never graduated. Like a
    success rate's, their top is what the games sharing the ceiling reach: both graduate, no prolonged training."""
    envs = {name: E(train=_fixture_series(f"twentyfirst_procgen_{name}"), train_every=8192, start=8192)
            for name in ("maze", "ninja", "dodgeball", "plunder")}
    case = Case("procgen at 95 %", envs, [], ("prolonged_training",))
    got, run = run_case(case, tmp_path)
    check(case, got)
    assert {e.env_id: e.current_state for e in run.environments if e.env_id in ("maze", "ninja")} == dict.fromkeys(
        ("maze", "ninja"), "graduated")


@pytest.mark.parametrize("name, expect", [
    # one-episode batches that fail are no deep drops: each is judged with its own count's noise
    ("minihack_counted_one_failed_episode_at_a_time", []),
    # the fallen level's batches of one to three episodes make no wave: a wave must stand out of their own noise
    ("minihack_counted_fall_to_few_episodes", [("graduated_regression", "a", "critical", 4997120, 2 * 5120)]),
    # a gradual fall's few-episode batches are no second level to switch to: the two-level reading's clusters
    # are judged against the noise of the points clustered, not the held level's many-episode batches
    ("minihack_counted_gradual_fall", [("graduated_regression", "a", "critical", 6720000, 2 * 5120)]),
])
def test_counted_minihack_tasks_from_the_twentieth_corpus(tmp_path, name, expect):
    """Committed MiniHack tasks of the twentieth corpus (each a mean return beside its episode count, as
    torchbeast's FileWriter logged them there), each alone in a run: a healthy task with a lone outlier, a sudden
    and a gradual critical regression — nothing else is reported."""
    run = _counted_run(tmp_path, {"a": _counted_fixture(name)})
    check(Case(name, {}, expect), run.warnings)


def test_incidents_that_together_cover_a_prolonged_activity_explain_it():
    """A never-learner's stall, cut in three by two stretches the noise made look like progress, covers 81 % of
    its prolonged activity though no one stall covers half: one event, the stalls; no prolonged_training."""
    from curriwatch.incidents import Incident, drop_explained

    prolonged = Incident("prolonged_training", "a", "info", 514560, 12508160, False, "active",
                         {"active_since": 2560})
    stalls = [Incident("training_stagnation", "a", "warning", a, b, b < 12508160, "stalled", {})
              for a, b in ((2560, 3939840), (4298240, 6922240), (8911360, 12508160))]
    other = Incident("training_stagnation", "b", "warning", 2560, 12508160, False, "stalled", {})
    kept = drop_explained([prolonged, *stalls, other])
    assert prolonged not in kept and all(s in kept for s in stalls) and other in kept
    # two of them (50 % of it together) still do; one alone (31 %) does not
    assert prolonged not in drop_explained([prolonged, stalls[0], stalls[2]])
    assert drop_explained([prolonged, stalls[0]]) == [prolonged, stalls[0]]
    # the last one alone began once the env was overdue: the prolonged activity's last part, told in it
    (folded,) = drop_explained([prolonged, stalls[2]])
    assert (folded.type, folded.severity, folded.evidence["stalled_from_step"]) == ("prolonged_training", "warning",
                                                                                   8911360)


def test_a_dip_that_quieter_training_shows_beside_noisy_evals(tmp_path):
    """A Dopamine JAX agent (twenty-fourth corpus seed 2): every iteration logs training's mean return over ~14
    episodes and the eval phase's over 3, with rare catastrophic episodes. The policy broke for iterations
    75-78 (train: ~150 -> -48..-6, five of its noise sds) and came back; the evals, judged for regressions,
    show it as 4 points among their own catastrophes (3.6 of their sds at most). Training, as dense and half
    as noisy, dates the dip. Was: healthy."""
    case = Case("dip in quieter training", {
        "a": E(train=_fixture_series("twentyfourth_dopamine_dip_train"), train_every=1,
               eval=_fixture_series("twentyfourth_dopamine_dip_eval"), eval_every=1)}, [])
    got, _run = run_case(case, tmp_path)
    vol = [w for w in got if w.type == "performance_volatility"]
    assert len(vol) == 1 and vol[0].evidence["series"] == "train" and abs(vol[0].first_step - 75) <= 1 \
        and vol[0].last_step <= 80, got
    assert [w for w in got if w.type != "performance_volatility"] == [], got


def test_an_env_whose_evals_graduate_above_its_exploring_training(tmp_path):
    """OpenAI baselines HER on FetchReach (twenty-fifth corpus seed 1): train/success_rate is its exploring
    workers' (noisy actions), held near 0.68 — under a success rate's graduation line (0.7 of the way to 1) —
    while test/success_rate, the deterministic policy, holds ~0.88 from epoch ~18 on. The env graduated on its
    evals: no stall. Was: 'no progress in training performance from step 15', never graduated."""
    case = Case("evals graduate", {
        "a": E(train=_fixture_series("twentyfifth_her_train_under_its_evals"), train_every=1,
               eval=_fixture_series("twentyfifth_her_evals_over_their_line"), eval_every=1)}, [])
    got, run = run_case(case, tmp_path)
    (env,) = run.environments
    assert got == [] and env.current_state == "graduated", got
    assert 12 <= env.graduation_step <= 40, env.graduation_step


def test_a_score_on_a_lattice_in_one_env_is_a_rate_in_all(tmp_path):
    """SkyRL's eval/{source}/avg_score per data source (twenty-fifth corpus seed 2): the mean reward of one sample
    on each problem of a fixed set — 16 problems in one source (values k/16), 83 and 174 in two more, 362 and 398
    in the others, whose values look continuous. A 'score' in [0, 1] that looks continuous and tops out well
    below 1 is read as a return; but the lattice of the smaller sets says the metric is a share of solved problems
    in every source of the run. Read as one rate, the sources share a ceiling (~0.73, the model's reach): word_sort,
    frozen at ~0.43, stalled; arith_chain, holding ~0.63 on its 16 problems, learned most of the way and did not.
    Was: the sources read as rates beside returns shared no ceiling, and arith_chain stalled under 0.7 of 1."""
    envs = {env: E(eval=_fixture_series(f"twentyfifth_skyrl_{env}"), eval_every=10)
            for env in ("arith_chain", "countdown3", "maze_path", "syllogism", "word_sort")}
    got, _run = run_case(Case("lattice says rate", envs, []), tmp_path)
    stalls = [w for w in got if w.type == "training_stagnation"]
    assert [(w.env_id, w.first_step) for w in stalls] == [("word_sort", 90)], got
    assert [w.env_id for w in got if w.type == "graduated_regression"] == ["syllogism"], got


def test_a_rate_over_a_varying_few_episodes_is_not_switching_after_its_fall(tmp_path):
    """AllenAct's per-type training success (twenty-fifth corpus seed 3's AlarmClock): each point the mean of the
    1..6 AlarmClock episodes that ended in an interval — halves, thirds, quarters, mostly 0 and 1 — beside the
    valid worker's success on a fixed set, which fell from ~0.74 to ~0.59 at ~870 (steps in 500,000s). Read as a
    rate of 12 trials (the values' common lattice), its two-level reading's floor was a third of its noise, and
    the lower level's noise after the fall was 'switching between ~0.914 and ~0.257' twice. Now: the regression."""
    case = Case("varying few episodes", {
        "AlarmClock": E(train=_fixture_series("twentyfifth_allenact_alarmclock_train"), train_every=1,
                        eval=_fixture_series("twentyfifth_allenact_alarmclock_eval"), eval_every=10)},
        [("graduated_regression", "AlarmClock", "warning", 870, 10)], config={"performance_metric": "success"},
        metric="success")
    got, _run = run_case(case, tmp_path)
    check(case, got)


def test_a_rate_near_one_over_a_varying_few_episodes_has_no_burst_in_its_misses(tmp_path):
    """AllenAct's per-type training success over the 1..30 Vase episodes that ended in an interval (twenty-fifth
    corpus seed 3): fractions of up to 30, on no one lattice, mostly exactly 1 once it learned (0.88). Read as
    gaussian, its calm windows were still and a stretch of ordinary misses 'turned erratic: its point-to-point
    changes grew inf x'. As means of small batches of varying size — a binomial model fitted to its changes — it is
    a learner whose held level shifted up a little after graduating: nothing to report."""
    case = Case("few episodes near 1", {
        "Vase": E(train=_fixture_series("twentyfifth_allenact_vase_train"), train_every=277777,
                  eval=_fixture_series("twentyfifth_allenact_vase_eval"), eval_every=2500000)},
        [], config={"performance_metric": "success"}, metric="success")
    got, run = run_case(case, tmp_path)
    check(case, got)
    assert run.environments[0].current_state == "graduated"


def test_a_lone_first_point_is_no_start_of_a_never_learner(tmp_path):
    """EPyMARL's gymma on MPE simple-spread (twenty-sixth corpus seed 1), the only map of its run: its first
    training stats (a window of few episodes) read -230, every later point ~-201 for 5M env steps, its tests ~-201
    from their first. The lone first point was its start: a gain of 29 against noise of ~1 — learned, graduated
    at once, never stalled. A lone first point before a long segment, in a dense series, is no start where the env
    learned nothing from the level after it: a never-learner, the only env of its run, stalled."""
    case = Case("lone first point", {
        "mpe": E(train=_fixture_series("twentysixth_epymarl_mpe_never_train"), train_every=10000,
                 eval=_fixture_series("twentysixth_epymarl_mpe_never_eval"), eval_every=25000, start=25)},
        [("training_stagnation", "mpe", "warning", 25, 10000)], config={"performance_metric": "return"},
        metric="return")
    got, run = run_case(case, tmp_path)
    check(case, got)
    assert run.environments[0].current_state == "active"


@pytest.mark.parametrize("train, expect", [
    # a lone first point, then 200 points flat: no start, no gain — the only env of its run stalled from its start
    ("2 45~2x200", [("training_stagnation", "a", "warning", 1, 1)]),
    # a lone first point, a level, then a rise beyond it: the lone point stays the start ("from 2"), and the fall
    # to 60 keeps 66 % of the gain from it (38 % from 45): critical either way, dated where it fell
    ("2 45~2x15 45+3x15 90~2x100 60~2x40", [("graduated_regression", "a", "critical", 131, 1)]),
])
def test_a_lone_first_point_in_the_notation(tmp_path, train, expect):
    case = Case("lone first point", {"a": E(train=train, train_every=1)}, expect)
    got, _run = run_case(case, tmp_path)
    check(case, got)
    if expect[0][0] == "graduated_regression":
        assert "(from 2)" in got[0].message, got[0].message


@pytest.mark.parametrize("returns, n", [(False, 9000), (True, 6000)])
def test_chance_clusters_of_failures_among_thousands_of_single_episode_successes_are_no_wave(tmp_path, returns, n):
    """A goal env's per-episode `is_success` (SB3's Monitor under HER: one 0/1 a point), or a MiniGrid level's
    per-episode return (0 unless solved, else 0.9 x (1 - 0.1 U)), held near 0.9 for thousands of episodes: somewhere
    among them a few failures come close together by chance. Such a series changes little between most neighbours
    and a lot now and then, so a noise read from its median change is almost none, and the clusters were waves (14
    in one run of the thirtieth corpus); where the changes are that far from gaussian the noise model's sd stands."""
    rng = np.random.default_rng(1)
    won = rng.random(n) < 0.05 + 0.85 * (1 - np.exp(-np.arange(n) / 60))
    worth = 0.9 * (1 - 0.1 * rng.random(n)) if returns else np.ones(n)
    series = " ".join(f"{v:.4f}" for v in np.where(won, worth, 0.0))
    case = Case("an outcome a point", {"FetchReach": E(train=series, train_every=50)}, [])
    got, run = run_case(case, tmp_path)
    assert [w for w in got if w.type == "performance_volatility"] == [], got
    assert run.environments[0].current_state == "graduated"


@pytest.mark.parametrize("flat, stalled", [(80, False), (600, True)])
def test_single_episodes_too_few_to_rule_out_a_rise_are_no_stall(tmp_path, flat, stalled):
    """One episode's 0/1 outcome a point (a goal env's `is_success` in SB3's Monitor), about 0.3 for its first `flat`
    episodes, then 0.8 until the end: 80 coin flips cannot tell a flat stretch from one rising half the way to the top
    (its slope's upper bound is most of the gain: thirtieth corpus, Fetch envs read as stalled from their first
    episode), 600 can."""
    case = Case("outcomes a point", {"FetchReach": E(train=f"0.3b1x{flat} 0.8b1x1500", train_every=50)},
                [("training_stagnation", "FetchReach", "warning", 0, 100)] if stalled else [],
                rules=("training_stagnation",), seed=6)
    got, _run = run_case(case, tmp_path)
    check(case, got)


def test_a_short_collapse_inside_a_long_calm_segment_is_a_dip(tmp_path):
    """Thirtieth corpus seed 2: a graduated MiniGrid level's evals (RL Zoo's EvalCallback, 5 episodes each, ~0.85)
    fall to ~0.15 for six evals (steps 49,000-54,000 of 167,000), then come back. No single cut of the series moves
    enough for binary segmentation to take it, and each low eval alone lies within 5 of the series' (gaussian) noise
    sds of the held level: nothing was reported. The six together lie far below it: a dip (volatility)."""
    case = Case("short collapse", {"DoorKey": E(eval=_fixture_series("thirtieth_minigrid_dip_evals"), eval_every=1000,
                                                start=1000)},
                [("performance_volatility", "DoorKey", "warning", 49000, 0)],
                ("performance_volatility", "graduated_regression"), config={"performance_metric": "return"},
                metric="return")
    got, _run = run_case(case, tmp_path)
    check(case, got)


def test_a_short_fall_whose_segment_runs_on_is_still_a_dip(tmp_path):
    """Thirtieth corpus seed 2: a graduated MiniGrid level's evals (10 episodes each, ~0.87) fall to ~0.3 for five
    evals (steps 240,000-256,000), then come back. Binary segmentation began their segment seven evals early, at a lone
    low eval, so the fall read 12 points long — past `dip_points` — and a critical regression. Its own run of low
    points is the dip: five points, keeping a third of the gain."""
    case = Case("short fall, long segment", {"DoorKey": E(eval=_fixture_series("thirtieth_minigrid_dip_cut_late_evals"),
                                                          eval_every=4000, start=4000)},
                [("performance_volatility", "DoorKey", "warning", 240000, 0)],
                ("performance_volatility", "graduated_regression"), config={"performance_metric": "return"},
                metric="return")
    got, _run = run_case(case, tmp_path)
    check(case, got)
    assert got[0].evidence["points"] == 5 and got[0].evidence["lowest_gain_share"] < 0.4, got[0].evidence


def test_a_stall_that_fell_on_its_way_says_so(tmp_path):
    """An active env that held 0.5 (below its sibling's line: a stall) and then fell to 0.25, never graduated (an rLLM
    data source: 0.70 for 87 evals, then 0.40): "no progress" is true, its mean level alone hides the collapse — the
    message and evidence give the level it held and the level it fell to. A stall that did not fall says nothing of it."""
    case = Case("stall that fell", {"a": E(train="0.1+0.1x4 0.5~0.01x150 0.25~0.01x100"),
                                    "b": E(train="0.1+0.1x9 0.95~0.01x245")}, [], ("training_stagnation",))
    got, _run = run_case(case, tmp_path)
    (stall,) = [w for w in got if w.env_id == "a"]
    assert abs(stall.evidence["fell_from"] - 0.5) < 0.02 and abs(stall.evidence["fell_to"] - 0.25) < 0.02
    assert f"fell from {stall.evidence['fell_from']:.4g} to {stall.evidence['fell_to']:.4g}" in stall.message
    flat = Case("stall", {"a": E(train="0.1+0.1x4 0.5~0.01x250"), "b": E(train="0.1+0.1x9 0.95~0.01x245")}, [],
                ("training_stagnation",))
    got, _run = run_case(flat, tmp_path / "flat")
    (stall,) = [w for w in got if w.env_id == "a"]
    assert "fell_from" not in stall.evidence and "fell from" not in stall.message
    # lower is better (an error rate): the level it held and the worse one, oriented back for the message
    errors = Case("error stall that worsened", {"a": E(train="0.9-0.1x4 0.5~0.01x150 0.75~0.01x100"),
                                                "b": E(train="0.9-0.1x9 0.05~0.01x245")}, [], ("training_stagnation",),
                  {"performance_metric": "error_rate"}, metric="error_rate")
    got, _run = run_case(errors, tmp_path / "errors")
    (stall,) = [w for w in got if w.env_id == "a"]
    assert abs(stall.evidence["fell_from"] - 0.5) < 0.02 and abs(stall.evidence["fell_to"] - 0.75) < 0.02
    assert "worsened, rose from" in stall.message
