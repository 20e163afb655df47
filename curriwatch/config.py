"""Configuration: YAML validated against one spec of keys, types, ranges and defaults.

Accepts the `health_monitoring:` block a curriculum trainer already carries, plus curriwatch's own
keys. Unknown keys, wrong types and out-of-range values are ConfigErrors naming the key.
"""
from __future__ import annotations

import copy
import math
import os
from dataclasses import dataclass

import yaml

from .errors import ConfigError
from .profiles import Profile, profile_from_config, short

CONFIG_FILENAME = "curriwatch.yaml"
MAX_CONFIG_BYTES = 1 << 20  # a config is a few hundred bytes; 1 MiB bounds parse time and memory
MAX_CONFIG_VALUES = 100_000  # values after alias expansion (a "billion laughs" stops here)
SANE_NUMBER = 1e9  # any numeric key without its own maximum: windows, steps, counts
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class Key:
    """One setting: its type(s), default, allowed range, and a line of help."""

    types: tuple
    default: object
    help: str
    low: float | None = None
    high: float | None = None
    nullable: bool = False
    choices: tuple | None = None


def _num(default, help, low=None, high=None, nullable=False):
    return Key((int, float), default, help, low, high, nullable)


def _int(default, help, low=None, high=None, nullable=False):
    return Key((int,), default, help, low, high, nullable)


def _bool(default, help):
    return Key((bool,), default, help)


SPEC: dict = {
    "health_monitoring": {
        "enabled": _bool(True, "run the health rules at all"),
        "regression_threshold": _num(0.85, "warn when a graduated env keeps less than this share of its learned "
                                     "gain (held level - starting level)", 0, 1),
        "stagnation_window": _int(100, "steps without progress before an active env is stagnant (at most 10 % of "
                                  "the run's span, widened to hold min_points points)", 1),
        "evaluation_frequency": _int(50, "expected steps between evals (eval_gap uses 3x this)", 1),
        "warning_cooldown": _int(200, "steps before the same (env, type) may be reported again", 0),
        "metrics_retention_days": _int(30, "days to keep saved scan results", 0),
    },
    "critical_regression_threshold": _num(0.70, "critical when a graduated env keeps less than this share of its "
                                          "learned gain", 0, 1),
    "direction": Key((str,), None, "higher | lower: which way the performance metric is better (default: the "
                     "profile's, else lower for loss/error-like metric names, else higher)", nullable=True,
                     choices=("higher", "lower")),
    "performance_metric": Key((str,), None, "metric used as performance (default: the profile's)",
                              nullable=True),
    "profile": Key((str,), None, "profile for every run instead of auto-detection", nullable=True),
    "graduation": {
        "stop_threshold": _num(None, "the trainer's own graduation line (inferred states), in the metric's units: "
                               "the env graduates once its level and smoothed performance reach it and it plateaus; "
                               "default none: 90 % of the env's gain (on its run's shared scale), then a plateau", nullable=True),
        "plateau_window": _num(50, "span of the plateau test in the trainer's units: rollouts where the log "
                               "carries counts, else steps, then at most 5 % of the run's span (held for at least 3 points, "
                               "judged flat over at least 8)", 1, 1e12),
        "plateau_threshold": _num(0.05, "max rise across the plateau window (fitted slope x span), as a share of "
                                  "the env's gain (or half the rise of the window before)", 0),
        "ema_alpha": _num(0.1, "EMA weight of the newest point in smoothed train performance (Marin: 0.1)", 0, 1),
    },
    "rules": {
        "graduated_regression": {
            "enabled": _bool(True, "report graduated envs whose performance falls"),
            "baseline_window": _int(5, "points in a row a level must hold to count as the held level (baseline; at "
                                    "most a quarter of the points after graduation)", 1),
            "smoothing_window": _int(3, "points below the line a fall needs (one or two bad evals never fire)", 1),
        },
        "training_stagnation": {
            "enabled": _bool(True, "report active envs that stop improving"),
            "min_points": _int(20, "fewest points that may judge a stagnation window (widens it)", 3),
            "min_delta": _num(0.05, "rise, as a share of the env's learned range, that counts as progress", 0),
        },
        "performance_volatility": {
            "enabled": _bool(True, "report envs whose performance switches between levels or swings"),
            "window": _int(30, "points over which point-to-point swings are measured", 3),
            "threshold": _num(0.15, "a change of level, or a swing, this share of the env's learned range counts", 0),
            "min_points": _int(10, "fewest firing points that make swings sustained", 3),
            "noise_factor": _num(2.0, "swings must exceed this x the noise the series should have", 1),
            "dip_points": _int(10, "a graduated env's fall that recovers to its held level within this many points is "
                               "a dip (volatility), not a graduated_regression; 0: never", 0),
        },
        "unexpected_transition": {
            "enabled": _bool(True, "report logged states that go backwards or take unknown values"),
            "rapid_regression_window": _int(500, "a graduated_regression starting within this many steps of graduation "
                                            "is marked rapid: true in its evidence", 0),
        },
        "prolonged_training": {
            "enabled": _bool(True, "report envs active for very long without graduating"),
            "steps": _int(None, "steps active before reporting (default 10 x stagnation_window)", 1,
                          nullable=True),
        },
        "eval_gap": {
            "enabled": _bool(True, "report envs whose eval data stops while the run goes on"),
            "factor": _num(3, "gap, in evaluation_frequency units, that counts as missing", 1),
        },
        "lesson_regression": {
            "enabled": _bool(True, "report lesson curricula that fall back to an earlier lesson"),
        },
        "lesson_reward_collapse": {
            "enabled": _bool(True, "report reward that falls after a lesson advance and does not come back"),
            "recovery_factor": _num(2.0, "recovery window after an advance, in multiples of the steps the lesson "
                                    "before took", 0.1),
            "recovery_steps": _int(None, "a fixed recovery window in steps instead", 1, nullable=True),
            "min_points": _int(5, "fewest reward points (logging intervals) in the recovery window", 2),
        },
    },
    "profiles": None,  # free-form: name -> profile spec, validated by profiles.profile_from_config
    "overrides": Key((list,), [], "per-env settings: a list of {env: GLOB, [run: GLOB], direction, "
                     "regression_threshold, critical_regression_threshold, graduation: {...}}; later entries win"),
}

# keys an `overrides:` entry may set besides `env` and `run` (the same meaning as at top level)
OVERRIDE_KEYS = ("direction", "regression_threshold", "critical_regression_threshold", "graduation")


def defaults(spec: dict = SPEC) -> dict:
    out = {}
    for key, item in spec.items():
        if item is None:
            out[key] = {}
        elif isinstance(item, dict):
            out[key] = defaults(item)
        else:
            out[key] = copy.deepcopy(item.default)
    return out


@dataclass(frozen=True)
class Config:
    """The effective configuration: plain nested values plus the parsed user profiles."""

    values: dict
    source: str | None = None  # the file it was read from, if any

    def __getitem__(self, key):
        return self.values[key]

    @property
    def user_profiles(self) -> dict[str, Profile]:
        return {name: profile_from_config(name, spec) for name, spec in self.values["profiles"].items()}

    def get(self, dotted: str):
        node = self.values
        for part in dotted.split("."):
            node = node[part]
        return node


def _merge(spec: dict, base: dict, given: dict, where: str) -> None:
    if not isinstance(given, dict):
        raise ConfigError(f"{where or 'config'}: expected a mapping, got {type(given).__name__}")
    for key, value in given.items():
        path = f"{where}.{key}" if where else str(key)
        if not isinstance(key, str):
            raise ConfigError(f"{where or 'config'}: keys must be strings, got {type(key).__name__} {short(key)}")
        if key not in spec:
            raise ConfigError(f"{short(path)[1:-1]}: unknown key (allowed: {', '.join(sorted(spec))})")
        item = spec[key]
        if item is None:  # free-form block
            if value is None:
                value = {}
            if not isinstance(value, dict):
                raise ConfigError(f"{path}: expected a mapping of name -> settings")
            base[key] = value
        elif isinstance(item, dict):
            _merge(item, base[key], value if value is not None else {}, path)
        else:
            base[key] = _check(item, value, path)


def _check(item: Key, value, path: str):
    if value is None:
        if item.nullable:
            return None
        raise ConfigError(f"{path}: needs a value")
    if isinstance(value, bool) and bool not in item.types:
        raise ConfigError(f"{path}: expected {_type_name(item)}, got a boolean")
    if not isinstance(value, item.types):
        raise ConfigError(f"{path}: expected {_type_name(item)}, got {type(value).__name__} {short(value)}")
    if isinstance(value, float) and not math.isfinite(value):
        raise ConfigError(f"{path}: must be a finite number, got {value!r}")
    if isinstance(value, (int, float)) and item.high is None and abs(value) > SANE_NUMBER:
        raise ConfigError(f"{path}: {short(value)} is beyond the sane maximum {SANE_NUMBER:.0e}")
    if item.low is not None and value < item.low:
        raise ConfigError(f"{path}: {value!r} is below the allowed minimum {item.low}")
    if item.high is not None and value > item.high:
        raise ConfigError(f"{path}: {value!r} is above the allowed maximum {item.high}")
    if item.choices is not None and value not in item.choices:
        raise ConfigError(f"{path}: {value!r} is not one of {', '.join(item.choices)}")
    return value


def _check_overrides(entries: list) -> list:
    """Each `overrides:` entry: env glob (and optional run glob) plus settings from OVERRIDE_KEYS,
    checked against the same spec as the top-level keys."""
    out = []
    for i, entry in enumerate(entries):
        where = f"overrides[{i}]"
        if not isinstance(entry, dict):
            raise ConfigError(f"{where}: expected a mapping with `env:` and settings")
        for key in ("env", "run"):
            if key in entry and not isinstance(entry[key], str):
                raise ConfigError(f"{where}.{key}: expected a glob string")
        if "env" not in entry:
            raise ConfigError(f"{where}: needs `env:` (a glob of env ids)")
        settings = {k: v for k, v in entry.items() if k not in ("env", "run")}
        spec = {k: SPEC["health_monitoring"]["regression_threshold"] if k == "regression_threshold" else SPEC[k]
                for k in OVERRIDE_KEYS}
        base = {k: (defaults(spec[k]) if isinstance(spec[k], dict) else None) for k in spec}
        _merge(spec, base, settings, where)
        given = {k: ({g: base[k][g] for g in (settings[k] or {})} if isinstance(spec[k], dict) else base[k])
                 for k in settings}
        out.append({"env": entry["env"], "run": entry.get("run", "*"), **given})
    return out


def _type_name(item: Key) -> str:
    names = {int: "an integer", float: "a number", str: "a string", bool: "true or false", list: "a list"}
    if item.types == (int, float):
        return "a number"
    return " or ".join(names[t] for t in item.types)


def load_config(path: str | os.PathLike | None = None, overrides: dict | None = None) -> Config:
    """Defaults, updated from `path` (or ./curriwatch.yaml when present), then from `overrides`."""
    values = defaults()
    source = None
    if path is None and os.path.isfile(CONFIG_FILENAME):
        path = CONFIG_FILENAME
    if path is not None:
        source = os.fspath(path)
        try:
            given = _load_yaml(path)
        except FileNotFoundError:
            raise ConfigError(f"config file not found: {source}") from None
        except (OSError, UnicodeDecodeError) as err:
            raise ConfigError(f"cannot read config file {source}: {err}") from None
        except yaml.YAMLError as err:
            mark = getattr(err, "problem_mark", None)
            at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
            problem = getattr(err, "problem", None) or str(err).splitlines()[0]
            raise ConfigError(f"config file {source} is not valid YAML{at}: {problem[:200]}") from None
        except RecursionError:
            raise ConfigError(f"config file {source}: nested too deeply") from None
        _check_size(given, source)
        if given is not None:
            _merge(SPEC, values, given, "")
    if overrides:
        _merge(SPEC, values, overrides, "")
    values["overrides"] = _check_overrides(values["overrides"])
    config = Config(values, source)
    config.user_profiles  # validate profile specs now, so errors surface at load time
    return config


def _load_yaml(path):
    """Parse at most MAX_CONFIG_BYTES of YAML with the safe (C when available) loader."""
    with open(path, "rb") as f:
        data = f.read(MAX_CONFIG_BYTES + 1)
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigError(f"config file {path} is larger than {MAX_CONFIG_BYTES >> 10} KiB")
    return yaml.load(data.decode("utf-8"), Loader=_LOADER)


def _check_size(given, source) -> None:
    """Refuse YAML whose aliases expand to more than MAX_CONFIG_VALUES values (or loop)."""
    budget = MAX_CONFIG_VALUES
    stack = [given]
    while stack:
        node = stack.pop()
        budget -= 1
        if budget < 0:
            raise ConfigError(f"config file {source}: more than {MAX_CONFIG_VALUES} values once its "
                              "aliases are expanded (a YAML alias bomb?)")
        if isinstance(node, dict):
            stack.extend(node.keys())
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, str) and len(node) > MAX_CONFIG_BYTES:
            raise ConfigError(f"config file {source}: a string longer than {MAX_CONFIG_BYTES >> 10} KiB")


def to_yaml(config: Config) -> str:
    return yaml.safe_dump(config.values, sort_keys=False, default_flow_style=False)
