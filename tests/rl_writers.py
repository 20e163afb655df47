"""Stable-Baselines3 and CleanRL runs, written the way those libraries write them.

Both need torch, which no test install may hold, so their logging is reproduced call for call from
their source with tensorboardX's SummaryWriter in place of torch's (both write `add_scalar` as a
`simple_value` Summary; wall times are given explicitly so files repeat):

* Stable-Baselines3 2.9.0a4 (DLR-RM/stable-baselines3 e05d2db), `stable_baselines3/...`;
* CleanRL (vwxyzjn/cleanrl fe8d8a0), `cleanrl/ppo.py`, `cleanrl/dqn.py`,
  `cleanrl/ppo_atari_envpool_xla_jax.py`.

What the agent achieves is given as an expected episode return per iteration (use
`series.expand`); episodes draw their return around it, so the logged curves carry the libraries'
own smoothing (SB3's mean over the last 100 episodes) and timing (steps in env timesteps).
"""
from __future__ import annotations

import glob
import os
from collections import deque
from pathlib import Path

import numpy as np

WALL0 = 1_700_000_000.0


# --------------------------------------------------------------------------- Stable-Baselines3

def sb3_latest_run_id(log_path: str, log_name: str) -> int:
    """common/utils.py:246-262 get_latest_run_id."""
    max_run_id = 0
    for path in glob.glob(os.path.join(log_path, f"{glob.escape(log_name)}_[0-9]*")):
        file_name = path.split(os.sep)[-1]
        ext = file_name.split("_")[-1]
        if log_name == "_".join(file_name.split("_")[:-1]) and ext.isdigit() and int(ext) > max_run_id:
            max_run_id = int(ext)
    return max_run_id


class SB3Logger:
    """common/utils.py:265-299 configure_logger with tensorboard output, and common/logger.py's
    Logger.record (:506-517), Logger.dump (:534-546) and TensorBoardOutputFormat.write (:404-439):
    every recorded key, sorted, add_scalar(key, value, step) unless excluded from "tensorboard";
    strings go to add_text; then flush. The values are cleared after each dump."""

    def __init__(self, tensorboard_log, tb_log_name: str, reset_num_timesteps: bool = True):
        from tensorboardX import SummaryWriter

        latest_run_id = sb3_latest_run_id(str(tensorboard_log), tb_log_name)
        if not reset_num_timesteps:
            latest_run_id -= 1  # continue training in the same directory (utils.py:290-291)
        self.folder = os.path.join(str(tensorboard_log), f"{tb_log_name}_{latest_run_id + 1}")
        self.writer = SummaryWriter(log_dir=self.folder, flush_secs=3600)  # logger.py:400-402
        self.name_to_value: dict = {}
        self.name_to_excluded: dict = {}

    def record(self, key: str, value, exclude: str | None = None) -> None:
        self.name_to_value[key] = value
        self.name_to_excluded[key] = (exclude,) if isinstance(exclude, str) else exclude

    def dump(self, step: int = 0) -> None:
        for (key, value), (_, excluded) in zip(sorted(self.name_to_value.items()),
                                               sorted(self.name_to_excluded.items()), strict=True):
            if excluded is not None and "tensorboard" in excluded:
                continue
            if isinstance(value, str):
                self.writer.add_text(key, value, step, walltime=WALL0 + step / 1000)
            else:
                self.writer.add_scalar(key, value, step, walltime=WALL0 + step / 1000)
        self.writer.flush()
        self.name_to_value.clear()
        self.name_to_excluded.clear()

    def close(self) -> None:
        self.writer.close()


def _safe_mean(values):
    """common/utils.py safe_mean: NaN for an empty buffer."""
    return np.nan if len(values) == 0 else np.mean(values)


class _Episodes:
    """`n_envs` envs under SB3's Monitor: each episode runs `length` steps and returns the expected
    return of the iteration it ends in, plus gaussian noise; `success` episodes report is_success."""

    def __init__(self, n_envs: int, rng, length: int, noise: float, success_at: float | None):
        self.left = [length - 7 * i % length or length for i in range(n_envs)]  # staggered starts
        self.length, self.noise, self.rng, self.success_at = length, noise, rng, success_at

    def step(self, level: float) -> list[dict | None]:
        infos = []
        for i in range(len(self.left)):
            self.left[i] -= 1
            if self.left[i]:
                infos.append(None)
                continue
            self.left[i] = self.length
            r = round(float(level + self.rng.normal(0.0, self.noise)), 6)
            info = {"episode": {"r": r, "l": self.length}}  # Monitor.step, common/monitor.py
            if self.success_at is not None:
                info["is_success"] = r >= self.success_at
            infos.append(info)
        return infos


class SB3OnPolicy:
    """A PPO learn() call, in OnPolicyAlgorithm's order (common/on_policy_algorithm.py):

    per iteration, collect_rollouts (:162-266): n_steps vector steps, each adding n_envs to
    num_timesteps (:220), calling the callbacks (:224; EvalCallback below) and then
    _update_info_buffer (:227; base_class.py:438-457, a deque of the last stats_window_size=100
    episodes); then dump_logs(iteration) every log_interval iterations (:329-335, :277-298) and
    train() (:337), whose PPO records (ppo/ppo.py:287-300) wait in the logger for the next dump.

    EvalCallback (common/callbacks.py:447-516), when n_calls % eval_freq == 0: evaluate_policy over
    n_eval_episodes (their mean around the expected return, noise / sqrt(n)), record
    eval/mean_reward, eval/mean_ep_length, eval/success_rate (with successes),
    time/total_timesteps (excluded) and dump(num_timesteps).
    """

    def __init__(self, tensorboard_log, *, n_envs: int = 4, n_steps: int = 128, episode_length: int = 64,
                 noise: float = 10.0, eval_freq: int | None = None, n_eval_episodes: int = 5,
                 success_at: float | None = None, seed: int = 0):
        self.tensorboard_log = tensorboard_log
        self.n_envs, self.n_steps, self.eval_freq, self.n_eval_episodes = n_envs, n_steps, eval_freq, n_eval_episodes
        self.rng = np.random.default_rng(seed)
        self.episodes = _Episodes(n_envs, self.rng, episode_length, noise, success_at)
        self.noise, self.episode_length, self.success_at = noise, episode_length, success_at
        self.num_timesteps = 0
        self.n_calls = 0
        self._n_updates = 0
        self.ep_info_buffer: deque = deque(maxlen=100)
        self.ep_success_buffer: deque = deque(maxlen=100)

    def learn(self, returns: list[float], tb_log_name: str = "PPO", reset_num_timesteps: bool = True,
              log_interval: int = 1) -> str:
        """One learn() of len(returns) iterations, the agent's expected return in each; the run folder."""
        if reset_num_timesteps:  # base_class.py:403-413 _setup_learn
            self.num_timesteps = 0
            self.ep_info_buffer.clear()
            self.ep_success_buffer.clear()
        self.logger = SB3Logger(self.tensorboard_log, tb_log_name, reset_num_timesteps)
        start = self.num_timesteps
        for iteration, level in enumerate(returns, start=1):
            for _ in range(self.n_steps):
                infos = self.episodes.step(level)
                self.num_timesteps += self.n_envs
                self._on_step_callback(level)
                for info in infos:  # _update_info_buffer
                    if info is None:
                        continue
                    self.ep_info_buffer.extend([info["episode"]])
                    if "is_success" in info:
                        self.ep_success_buffer.append(info["is_success"])
            if log_interval is not None and iteration % log_interval == 0:
                self.dump_logs(iteration, start)
            self.train(level)
        self.logger.close()
        return self.logger.folder

    def _on_step_callback(self, level: float) -> None:
        self.n_calls += 1
        if not self.eval_freq or self.n_calls % self.eval_freq:
            return
        rewards = level + self.rng.normal(0.0, self.noise, self.n_eval_episodes) / 2
        log = self.logger
        log.record("eval/mean_reward", float(np.mean(rewards)))
        log.record("eval/mean_ep_length", float(self.episode_length))
        if self.success_at is not None:
            log.record("eval/success_rate", float(np.mean(rewards >= self.success_at)))
        log.record("time/total_timesteps", self.num_timesteps, exclude="tensorboard")
        log.dump(self.num_timesteps)

    def dump_logs(self, iteration: int, start: int) -> None:
        log = self.logger
        fps = int((self.num_timesteps - start) / (self.num_timesteps / 5000.0))
        if iteration > 0:
            log.record("time/iterations", iteration, exclude="tensorboard")
        if len(self.ep_info_buffer) > 0 and len(self.ep_info_buffer[0]) > 0:
            log.record("rollout/ep_rew_mean", _safe_mean([ep["r"] for ep in self.ep_info_buffer]))
            log.record("rollout/ep_len_mean", _safe_mean([ep["l"] for ep in self.ep_info_buffer]))
        log.record("time/fps", fps)
        log.record("time/time_elapsed", int(self.num_timesteps / 5000.0), exclude="tensorboard")
        log.record("time/total_timesteps", self.num_timesteps, exclude="tensorboard")
        if len(self.ep_success_buffer) > 0:
            log.record("rollout/success_rate", _safe_mean(self.ep_success_buffer))
        log.dump(step=self.num_timesteps)

    def train(self, level: float) -> None:
        self._n_updates += 10  # n_epochs
        log = self.logger
        loss = 1.0 / (1.0 + abs(level))
        log.record("train/entropy_loss", -0.6)
        log.record("train/policy_gradient_loss", -0.01)
        log.record("train/value_loss", loss * 10)
        log.record("train/approx_kl", 0.01)
        log.record("train/clip_fraction", 0.1)
        log.record("train/loss", loss)
        log.record("train/explained_variance", 0.9)
        log.record("train/n_updates", self._n_updates, exclude="tensorboard")
        log.record("train/clip_range", 0.2)


class SB3DQN:
    """A DQN learn() with one env (common/off_policy_algorithm.py:514-610 collect_rollouts): per env
    step num_timesteps += 1, callbacks, _update_info_buffer, DQN._on_step recording
    rollout/exploration_rate every step (dqn/dqn.py:171-185); at each episode end
    dump_logs() when _episode_num % log_interval == 0 (log_interval 4, :600-605; dump_logs
    :417-439 with time/episodes excluded); train() every train_freq steps after learning_starts
    (learn :334-354), recording train/n_updates (excluded) and train/loss (dqn.py:230-231)."""

    def __init__(self, tensorboard_log, *, episode_length: int = 50, noise: float = 5.0,
                 train_freq: int = 4, learning_starts: int = 100, seed: int = 0):
        self.tensorboard_log = tensorboard_log
        self.rng = np.random.default_rng(seed)
        self.episodes = _Episodes(1, self.rng, episode_length, noise, None)
        self.train_freq, self.learning_starts = train_freq, learning_starts
        self.num_timesteps = self._episode_num = self._n_updates = 0
        self.ep_info_buffer: deque = deque(maxlen=100)

    def learn(self, returns: list[float], steps_per_level: int, tb_log_name: str = "DQN",
              log_interval: int = 4) -> str:
        self.logger = log = SB3Logger(self.tensorboard_log, tb_log_name)
        total = steps_per_level * len(returns)
        while self.num_timesteps < total:
            level = returns[self.num_timesteps // steps_per_level]
            (info,) = self.episodes.step(level)
            self.num_timesteps += 1
            if info is not None:
                self.ep_info_buffer.extend([info["episode"]])
            exploration = max(0.05, 1.0 - self.num_timesteps / (0.1 * total))
            log.record("rollout/exploration_rate", exploration)
            if info is not None:
                self._episode_num += 1
                if self._episode_num % log_interval == 0:
                    self.dump_logs()
            if self.num_timesteps > self.learning_starts and self.num_timesteps % self.train_freq == 0:
                self._n_updates += 1
                log.record("train/n_updates", self._n_updates, exclude="tensorboard")
                log.record("train/loss", 1.0 / (1.0 + abs(level)))
        log.close()
        return log.folder

    def dump_logs(self) -> None:
        log = self.logger
        log.record("time/episodes", self._episode_num, exclude="tensorboard")
        if len(self.ep_info_buffer) > 0 and len(self.ep_info_buffer[0]) > 0:
            log.record("rollout/ep_rew_mean", _safe_mean([ep["r"] for ep in self.ep_info_buffer]))
            log.record("rollout/ep_len_mean", _safe_mean([ep["l"] for ep in self.ep_info_buffer]))
        log.record("time/fps", 1000)
        log.record("time/time_elapsed", self.num_timesteps // 1000, exclude="tensorboard")
        log.record("time/total_timesteps", self.num_timesteps, exclude="tensorboard")
        log.dump(step=self.num_timesteps)


# --------------------------------------------------------------------------- CleanRL

def cleanrl_run_name(env_id: str, exp_name: str, seed: int, start: int = 1_700_000_000) -> str:
    """cleanrl/ppo.py:134 (every script): f"{env_id}__{exp_name}__{seed}__{int(time.time())}"."""
    return f"{env_id}__{exp_name}__{seed}__{start}"


def _cleanrl_writer(runs_dir, run_name: str, args: dict):
    """cleanrl/ppo.py:147-151: SummaryWriter(f"runs/{run_name}") and the hyperparameter table."""
    from tensorboardX import SummaryWriter

    writer = SummaryWriter(str(Path(runs_dir) / run_name), flush_secs=3600)
    writer.add_text("hyperparameters", "|param|value|\n|-|-|\n%s" % (
        "\n".join([f"|{key}|{value}|" for key, value in args.items()])), walltime=WALL0)
    return writer


def cleanrl_ppo(runs_dir, env_id: str, returns: list[float], *, seed: int = 1, num_envs: int = 4,
                num_steps: int = 128, episode_length: int = 64, noise: float = 10.0) -> Path:
    """cleanrl/ppo.py's loop (:185-309), one iteration per entry of `returns`: global_step +=
    num_envs per vector step (:193); per finished episode (final_info, :211-215)
    charts/episodic_return and charts/episodic_length at global_step (float32, as
    RecordEpisodeStatistics keeps them); after the update charts/learning_rate, losses/*,
    charts/SPS (:300-309)."""
    run_name = cleanrl_run_name(env_id, "ppo", seed)
    args = {"exp_name": "ppo", "seed": seed, "env_id": env_id, "num_envs": num_envs, "num_steps": num_steps}
    writer = _cleanrl_writer(runs_dir, run_name, args)
    rng = np.random.default_rng(seed)
    episodes = _Episodes(num_envs, rng, episode_length, noise, None)
    global_step = 0
    for iteration, level in enumerate(returns, start=1):
        for _step in range(num_steps):
            global_step += num_envs
            wall = WALL0 + global_step / 1000
            for info in episodes.step(level):
                if info and "episode" in info:
                    writer.add_scalar("charts/episodic_return", np.float32(info["episode"]["r"]), global_step, walltime=wall)
                    writer.add_scalar("charts/episodic_length", np.int32(info["episode"]["l"]), global_step, walltime=wall)
        wall = WALL0 + global_step / 1000
        frac = 1.0 - (iteration - 1.0) / len(returns)
        writer.add_scalar("charts/learning_rate", frac * 2.5e-4, global_step, walltime=wall)
        for key, value in (("losses/value_loss", 1.0), ("losses/policy_loss", -0.01), ("losses/entropy", 0.6),
                           ("losses/old_approx_kl", 0.01), ("losses/approx_kl", 0.01), ("losses/clipfrac", 0.1),
                           ("losses/explained_variance", 0.9)):
            writer.add_scalar(key, value, global_step, walltime=wall)
        writer.add_scalar("charts/SPS", 5000, global_step, walltime=wall)
    writer.close()
    return Path(runs_dir) / run_name


def cleanrl_dqn(runs_dir, env_id: str, returns: list[float], steps_per_level: int, *, seed: int = 1,
                episode_length: int = 50, noise: float = 5.0, learning_starts: int = 100,
                train_frequency: int = 10, eval_returns: list[float] | None = None) -> Path:
    """cleanrl/dqn.py's loop (:163-216), one env: `for global_step in range(total_timesteps)`; per
    finished episode charts/episodic_return|length at global_step (:176-181); every 100 steps of
    training losses/td_loss, losses/q_values, charts/SPS (:194-207). With `save_model`, the saved
    model's evaluation is logged after training as eval/episodic_return at step idx, the episode's
    index 0..9 (:221-238)."""
    run_name = cleanrl_run_name(env_id, "dqn", seed)
    writer = _cleanrl_writer(runs_dir, run_name, {"exp_name": "dqn", "seed": seed, "env_id": env_id})
    episodes = _Episodes(1, np.random.default_rng(seed), episode_length, noise, None)
    for global_step in range(steps_per_level * len(returns)):
        level = returns[global_step // steps_per_level]
        wall = WALL0 + global_step / 1000
        for info in episodes.step(level):
            if info and "episode" in info:
                writer.add_scalar("charts/episodic_return", np.float32(info["episode"]["r"]), global_step, walltime=wall)
                writer.add_scalar("charts/episodic_length", np.int32(info["episode"]["l"]), global_step, walltime=wall)
        if global_step > learning_starts and global_step % train_frequency == 0 and global_step % 100 == 0:
            writer.add_scalar("losses/td_loss", 0.1, global_step, walltime=wall)
            writer.add_scalar("losses/q_values", float(level), global_step, walltime=wall)
            writer.add_scalar("charts/SPS", 1000, global_step, walltime=wall)
    for idx, episodic_return in enumerate(eval_returns or []):
        writer.add_scalar("eval/episodic_return", np.float32(episodic_return), idx, walltime=WALL0 + 1e6 + idx)
    writer.close()
    return Path(runs_dir) / run_name


def cleanrl_dqn_outcomes(runs_dir, env_id: str, success: list[float], *, seed: int = 1, timeout: int = 200,
                         solved: tuple[int, int] = (100, 160)) -> tuple[Path, list[int]]:
    """cleanrl/dqn.py (:176-181) on a goal-or-timeout env (MountainCar-v0, Acrobot-v1: -1 a step until the goal or
    the time limit), one episode per `success` entry: reaches the goal with that probability in a uniform
    `solved` number of steps, else times out at `timeout` — its return -steps, logged with its length at the
    global step it ended on (one env, so the step advances by each episode's length). Returns the run folder and
    each episode's step."""
    run_name = cleanrl_run_name(env_id, "dqn", seed)
    writer = _cleanrl_writer(runs_dir, run_name, {"exp_name": "dqn", "seed": seed, "env_id": env_id})
    rng = np.random.default_rng(seed)
    global_step, steps = 0, []
    for p in success:
        length = int(rng.integers(solved[0], solved[1] + 1)) if rng.random() < p else timeout
        global_step += length
        steps.append(global_step)
        wall = WALL0 + global_step / 1000
        writer.add_scalar("charts/episodic_return", np.float32(-length), global_step, walltime=wall)
        writer.add_scalar("charts/episodic_length", np.int32(length), global_step, walltime=wall)
    writer.close()
    return Path(runs_dir) / run_name, steps


def cleanrl_ppo_envpool_xla(runs_dir, env_id: str, returns: list[float], *, seed: int = 1,
                            num_envs: int = 8, num_steps: int = 128) -> Path:
    """cleanrl/ppo_atari_envpool_xla_jax.py (:412-447): per iteration, after the update,
    charts/avg_episodic_return and charts/avg_episodic_length (the means over the envs' last
    finished episodes), charts/learning_rate, losses/*, charts/SPS, charts/SPS_update; no
    per-episode keys."""
    run_name = cleanrl_run_name(env_id, "ppo_atari_envpool_xla_jax", seed)
    writer = _cleanrl_writer(runs_dir, run_name, {"exp_name": "ppo_atari_envpool_xla_jax", "seed": seed})
    rng = np.random.default_rng(seed)
    global_step = 0
    for level in returns:
        global_step += num_steps * num_envs
        wall = WALL0 + global_step / 1000
        writer.add_scalar("charts/avg_episodic_return", np.float32(level + rng.normal(0, 1.0)), global_step, walltime=wall)
        writer.add_scalar("charts/avg_episodic_length", np.float32(1000.0), global_step, walltime=wall)
        for key, value in (("charts/learning_rate", 2.5e-4), ("losses/value_loss", 1.0), ("losses/policy_loss", -0.01),
                           ("losses/entropy", 0.6), ("losses/approx_kl", 0.01), ("losses/loss", 0.5),
                           ("charts/SPS", 20000), ("charts/SPS_update", 25000)):
            writer.add_scalar(key, value, global_step, walltime=wall)
    writer.close()
    return Path(runs_dir) / run_name


# --------------------------------------------------------------------------- OpenAI baselines

class BaselinesPPO2:
    """baselines' ppo2.learn logging (openai/baselines@ea25b9e baselines/ppo2/ppo2.py), call for call: per update,
    a runner batch of nsteps x nenvs steps whose finished episodes' infos extend `epinfobuf`, a deque of the last
    100 (:118, :141-146); every log_interval updates (and the first) logkv of misc/serial_timesteps, misc/nupdates,
    misc/total_timesteps, fps, misc/explained_variance, eprewmean and eplenmean (`safemean` of the deque: NaN while
    it is empty), misc/time_elapsed and the losses (:185-209), then dumpkvs. The logger (baselines/logger.py:389-395)
    writes progress.csv in `folder` (tests/writers.BaselinesCsvOutput) and, with `tensorboard` among its formats,
    every numeric value at the dump count from 1 into `folder/tb/` (TensorBoardOutputFormat, :139-170; tensorboardX in
    place of TensorFlow's event writer)."""

    LOSS_NAMES = ("policy_loss", "value_loss", "policy_entropy", "approxkl", "clipfrac")

    def __init__(self, folder, *, nenvs: int = 4, nsteps: int = 128, episode_length: int = 64, noise: float = 10.0,
                 tensorboard: bool = False, seed: int = 0):
        from writers import BaselinesCsvOutput

        os.makedirs(folder, exist_ok=True)
        self.csv = BaselinesCsvOutput(os.path.join(folder, "progress.csv"))
        self.tb = None
        if tensorboard:
            from tensorboardX import SummaryWriter

            self.tb = SummaryWriter(os.path.join(folder, "tb"), flush_secs=3600)
        self.tb_step = 1
        self.nenvs, self.nsteps = nenvs, nsteps
        self.rng = np.random.default_rng(seed)
        self.episodes = _Episodes(nenvs, self.rng, episode_length, noise, None)
        self.epinfobuf: deque = deque(maxlen=100)

    def learn(self, returns: list[float], log_interval: int = 1) -> None:
        nbatch = self.nenvs * self.nsteps
        for update, level in enumerate(returns, start=1):
            for _ in range(self.nsteps):
                self.epinfobuf.extend(info["episode"] for info in self.episodes.step(level) if info is not None)
            if update % log_interval == 0 or update == 1:
                rewards = [ep["r"] for ep in self.epinfobuf]
                kvs = {"misc/serial_timesteps": update * self.nsteps, "misc/nupdates": update,
                       "misc/total_timesteps": update * nbatch, "fps": 1000, "misc/explained_variance": 0.5,
                       "eprewmean": float(np.mean(rewards)) if rewards else float("nan"),
                       "eplenmean": float(np.mean([ep["l"] for ep in self.epinfobuf])) if rewards else float("nan"),
                       "misc/time_elapsed": update * 0.5}
                kvs.update({"loss/" + name: 0.01 for name in self.LOSS_NAMES})
                self.dumpkvs(kvs)
        self.csv.close()
        if self.tb is not None:
            self.tb.close()

    def dumpkvs(self, kvs: dict) -> None:
        self.csv.writekvs(kvs)
        if self.tb is not None:
            for key, value in kvs.items():
                self.tb.add_scalar(key, value, self.tb_step, walltime=WALL0 + self.tb_step)
            self.tb.flush()
            self.tb_step += 1
