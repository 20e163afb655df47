"""Saved scan results: the JSON report itself (plus the drawing data the HTML report needs), kept
in the user's cache folder (never in the logdir), keyed by logdir, validated on load.

A saved result is data, never code: it is parsed with `json` and rebuilt field by field, so a
planted or damaged file is one clear error, never something that runs.
"""
from __future__ import annotations

import base64
import hashlib
import json
import math
import os
import tempfile
import time
from dataclasses import fields
from pathlib import Path

from . import __version__
from .errors import InputError

FORMAT = "curriwatch-result-2"  # 2: chart series packed as base64 int64/float64
SUFFIX = ".json"
MAX_BYTES = 2 << 30  # a saved result larger than this is not ours


def cache_dir() -> Path:
    from platformdirs import user_cache_dir

    return Path(os.environ.get("CURRIWATCH_CACHE_DIR") or user_cache_dir("curriwatch")) / "results"


def _key(logdir: str) -> str:
    return hashlib.sha256(os.path.abspath(logdir).encode("utf-8", "surrogateescape")).hexdigest()[:20]


def _inside(path: Path, folder: str | None) -> bool:
    if not folder:
        return False
    try:
        return path.resolve().is_relative_to(Path(folder).resolve())
    except OSError:
        return False


def _drawing(report) -> dict:
    """What only the renderers draw (sparklines, decimated chart series) and run facts the JSON
    contract leaves out, keyed by run then env. Chart series are packed (`_pack`): a sweep's
    charts hold millions of numbers, which JSON writes and reads at ~1 µs each."""
    return {r.run: {"performance_metric": r.performance_metric, "state_sources": sorted(r.state_sources),
                    "envs": {e.env_id: {"sparkline": e.sparkline, "chart": _packed_chart(e.chart)}
                             for e in r.environments}}
            for r in report.runs}


def _packed_chart(chart: dict) -> dict:
    out = dict(chart)
    for name in ("train", "eval"):
        if name in chart:
            steps, values = chart[name]
            out[name] = {"steps": _pack(steps, "<i8"), "values": _pack(values, "<f8")}
    return out


def _pack(numbers, dtype: str) -> str:
    """Numbers as the base64 of their little-endian int64 / float64 bytes (exact, NaN kept)."""
    import numpy as np

    return base64.b64encode(np.asarray(numbers, dtype).tobytes()).decode("ascii")


def _unpack(text, dtype: str, what: str) -> list:
    """`_pack` undone, checked: a string of whole 8-byte numbers; values that are not finite are NaN."""
    import numpy as np

    _check(isinstance(text, str), what)
    try:
        raw = base64.b64decode(text, validate=True)
    except ValueError:
        raise ValueError(f"invalid: {what}") from None
    _check(len(raw) % 8 == 0, what)
    array = np.frombuffer(raw, dtype)
    if dtype == "<f8":
        array = np.where(np.isfinite(array), array, np.nan)
    return array.tolist()


def save(report, retention_days: int) -> Path:
    """Save `report` as the last scan (and the last of its logdir), atomically; prune results
    older than `retention_days` (0 keeps only this one)."""
    from .report import json_safe

    folder = cache_dir()
    if _inside(folder, report.logdir):
        raise OSError(f"the cache folder {folder} is inside the scanned logdir; not writing there")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{_key(report.logdir or 'online')}{SUFFIX}"
    payload = {"format": FORMAT, "version": __version__, "saved": time.time(),
               "report": report.to_dict(), "drawing": json_safe(_drawing(report))}
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".partial-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:  # dumps: json's C encoder (dump streams in Python)
            f.write(json.dumps(payload, allow_nan=False, ensure_ascii=True))
        os.replace(tmp, path)
        _write_atomic(folder / "last", path.name)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    cutoff = time.time() - retention_days * 86400
    for old in folder.iterdir():
        stale = old.name.startswith(".partial-") or old.suffix in (".pickle",) or old.suffix == SUFFIX
        try:
            if old != path and stale and old.stat().st_mtime < cutoff:
                old.unlink(missing_ok=True)
        except OSError:
            pass
    return path


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f".partial-{path.name}-{os.getpid()}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def load_last(logdir: str | None = None):
    """The last saved scan (of `logdir`, if given)."""
    folder = cache_dir()
    if logdir is not None:
        path = folder / f"{_key(logdir)}{SUFFIX}"
    else:
        last = folder / "last"
        try:
            name = last.read_text(encoding="utf-8").strip() if last.is_file() else ""
        except (OSError, UnicodeDecodeError):
            name = ""
        # only a plain file name in the cache folder; anything else is not ours
        path = folder / name if name and "/" not in name and "\\" not in name and not name.startswith(".") else None
    if path is None or not path.is_file():
        raise InputError("no saved scan result: run `curriwatch scan LOGDIR` first, or give LOGDIR")
    try:
        if path.suffix != SUFFIX:
            raise ValueError(f"{path.name} is not a curriwatch JSON result")
        if path.stat().st_size > MAX_BYTES:
            raise ValueError("too large")
        with open(path, "rb") as f:
            saved = json.loads(f.read().decode("utf-8"), parse_constant=_reject_constant)
        if not isinstance(saved, dict) or saved.get("format") != FORMAT:
            raise ValueError("not a curriwatch result file")
        if saved.get("version") != __version__:
            raise ValueError("saved by another curriwatch version")
        return report_from_dict(saved["report"], saved.get("drawing") or {})
    except (ValueError, KeyError, TypeError, AttributeError, OSError, RecursionError) as err:
        reason = str(err) if isinstance(err, ValueError) else f"invalid: {type(err).__name__}"
        raise InputError(f"cannot use the saved scan result ({reason[:200]}); run `curriwatch scan` again") from None


def _reject_constant(token: str):
    raise ValueError(f"{token} is not valid JSON")


def _check(cond: bool, what: str) -> None:
    if not cond:
        raise ValueError(f"invalid: {what}")


def _int(v, what: str) -> int:
    _check(isinstance(v, int) and not isinstance(v, bool), what)
    return v


def _opt_num(v, what: str):
    _check(v is None or (isinstance(v, (int, float)) and not isinstance(v, bool)), what)
    return None if v is None else float(v)


def _str(v, what: str) -> str:
    _check(isinstance(v, str), what)
    return v


def _opt_str(v, what: str):
    _check(v is None or isinstance(v, str), what)
    return v


def _known(cls, data: dict) -> dict:
    """The keys of `data` that are fields of `cls` (a newer saved field is ignored, not an error)."""
    names = {f.name for f in fields(cls)}
    return {k: v for k, v in data.items() if k in names}


def report_from_dict(data: dict, drawing: dict | None = None):
    """Rebuild a Report from its JSON form (`Report.to_dict()`), checking every field's type.
    `drawing` restores what only renderers use (see `_drawing`)."""
    from .health import EnvHealth
    from .incidents import SEVERITIES, Incident
    from .lessons import tracks_from_dicts
    from .model import DataIssue
    from .report import SCHEMA_VERSION, Report, RunReport
    from .timeline import STATES, Interval

    drawing = drawing if isinstance(drawing, dict) else {}
    _check(isinstance(data, dict) and data.get("schema_version") == SCHEMA_VERSION, "schema_version")

    def issue(d) -> DataIssue:
        _check(isinstance(d, dict), "data issue")
        return DataIssue(_str(d["kind"], "kind"), _str(d["path"], "path"), _str(d["detail"], "detail"))

    def incident(d) -> Incident:
        _check(isinstance(d, dict) and d["severity"] in SEVERITIES, "incident severity")
        _check(isinstance(d["evidence"], dict) and isinstance(d["resolved"], bool), "incident")
        return Incident(_str(d["type"], "type"), _str(d["env_id"], "env_id"), d["severity"],
                        _int(d["first_step"], "first_step"), _int(d["last_step"], "last_step"), d["resolved"],
                        _str(d["message"], "message"), d["evidence"])

    def env(d, extra) -> EnvHealth:
        _check(isinstance(d, dict), "environment")
        kw = _known(EnvHealth, d)
        for k in ("current_train_performance", "current_eval_performance", "peak_performance",
                  "graduation_baseline"):
            kw[k] = _opt_num(kw.get(k), k)
        for k in ("env_id", "current_state", "performance_trend", "health_status"):
            _str(kw.get(k), k)
        for k in ("time_in_current_state", "total_training_steps"):
            _int(kw.get(k), k)
        _check(kw.get("graduation_step") is None or isinstance(kw["graduation_step"], int), "graduation_step")
        _check(isinstance(kw.get("warnings", []), list) and all(isinstance(w, str) for w in kw.get("warnings", [])),
               "warnings")
        if "status_reason" in kw:
            _opt_str(kw["status_reason"], "status_reason")
        if kw.get("lessons") is not None:
            kw["lessons"] = tracks_from_dicts(kw["lessons"])
        extra = extra if isinstance(extra, dict) else {}
        spark = extra.get("sparkline") or []
        _check(isinstance(spark, list) and all(v is None or isinstance(v, (int, float)) for v in spark), "sparkline")
        kw["sparkline"] = [math.nan if v is None else float(v) for v in spark]
        chart = extra.get("chart") or {}
        _check(isinstance(chart, dict), "chart")
        for name in ("train", "eval"):
            if name in chart:
                series = chart[name]
                _check(isinstance(series, dict), "chart")
                steps = _unpack(series.get("steps"), "<i8", "chart steps")
                values = _unpack(series.get("values"), "<f8", "chart values")
                _check(len(steps) == len(values), "chart")
                chart[name] = (steps, values)
        levels = chart.get("levels", {})
        _check(isinstance(levels, dict) and all(isinstance(k, str) for k in levels), "chart levels")
        chart["levels"] = {k: _opt_num(v, "chart level") for k, v in levels.items()}
        kw["chart"] = chart
        return EnvHealth(**kw)

    def run(d) -> RunReport:
        _check(isinstance(d, dict), "run")
        extra = drawing.get(d.get("run")) if isinstance(drawing.get(d.get("run")), dict) else {}
        envs_extra = extra.get("envs") if isinstance(extra.get("envs"), dict) else {}
        step_range = d["step_range"]
        _check(step_range is None or (isinstance(step_range, list) and len(step_range) == 2), "step_range")
        timeline = []
        for t in d["timeline"]:
            _check(isinstance(t, dict) and t.get("state") in STATES, "timeline state")
            timeline.append((_str(t["env_id"], "env_id"),
                             Interval(t["state"], _int(t["start_step"], "start_step"), _int(t["end_step"], "end_step"))))
        kw = dict(run=_str(d["run"], "run"), source=_str(d["source"], "source"),
                  profile=_opt_str(d["profile"], "profile"),
                  step_range=tuple(_int(s, "step") for s in step_range) if step_range else None,
                  environments=[env(e, envs_extra.get(e.get("env_id")) if isinstance(e, dict) else None)
                                for e in d["environments"]],
                  timeline=timeline, warnings=[incident(w) for w in d["warnings"]],
                  data_issues=[issue(i) for i in d["data_issues"]],
                  performance_metric=_opt_str(extra.get("performance_metric"), "performance_metric"),
                  state_sources={_str(s, "state source") for s in extra.get("state_sources") or []})
        if "status_reason" in {f.name for f in fields(RunReport)}:
            kw["status_reason"] = _opt_str(d.get("status_reason"), "status_reason")
        return RunReport(**kw)

    _check(isinstance(data["runs"], list), "runs")
    return Report(_opt_str(data["logdir"], "logdir") or "", [run(r) for r in data["runs"]],
                  _str(data.get("curriwatch_version", ""), "curriwatch_version"),
                  [issue(i) for i in data.get("data_issues", [])])
