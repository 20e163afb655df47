"""Incidents: what rules report. Firing points become incidents; cooldown merges re-firings."""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

import numpy as np

SEVERITIES = ("info", "warning", "critical")
SEVERITY_RANK = {s: i for i, s in enumerate(SEVERITIES)}


@dataclass(frozen=True)
class Incident:
    """One finding of one rule on one env, over a span of steps; evidence holds the numbers."""

    type: str
    env_id: str
    severity: str
    first_step: int
    last_step: int
    resolved: bool
    message: str
    evidence: dict = field(default_factory=dict, hash=False, compare=True)

    def to_dict(self) -> dict:
        return {"type": self.type, "env_id": self.env_id, "severity": self.severity,
                "first_step": self.first_step, "last_step": self.last_step, "resolved": self.resolved,
                "message": self.message, "evidence": self.evidence}


def runs_of_true(mask: np.ndarray) -> list[tuple[int, int]]:
    """(first, last) index of every run of consecutive True values."""
    if len(mask) == 0:
        return []
    padded = np.concatenate([[False], mask.astype(bool), [False]])
    edges = np.flatnonzero(padded[1:] != padded[:-1])
    return [(int(a), int(b) - 1) for a, b in zip(edges[::2], edges[1::2])]


_MERGED_NOTE = re.compile(r" \(one of \d+ incidents merged within the cooldown: from step -?\d+ to -?\d+\)$")


def apply_cooldown(incidents: list[Incident], cooldown: int) -> list[Incident]:
    """Merge incidents of the same (env, type) that start within `cooldown` steps of the previous
    one's end: the same problem is not re-issued. The merged incident keeps the worst severity and
    that incident's message (saying it was merged, and the span it now covers) and evidence, and is resolved
    only if the last part is."""
    out: list[Incident] = []
    for inc in sorted(incidents, key=lambda i: (i.env_id, i.type, i.first_step)):
        prev = out[-1] if out else None
        if prev and prev.env_id == inc.env_id and prev.type == inc.type and \
                inc.first_step - prev.last_step <= cooldown:
            worst = inc if SEVERITY_RANK[inc.severity] > SEVERITY_RANK[prev.severity] else prev
            evidence = {**worst.evidence, "merged_incidents": prev.evidence.get("merged_incidents", 1) + 1}
            # the part that reaches furthest says whether it is resolved (open wins a tie)
            if inc.last_step != prev.last_step:
                resolved = (inc if inc.last_step > prev.last_step else prev).resolved
            else:
                resolved = inc.resolved and prev.resolved
            first, last = prev.first_step, max(prev.last_step, inc.last_step)
            # the message is the worst part's: it says so, and the span the merged incident covers
            message = (_MERGED_NOTE.sub("", worst.message) + f" (one of {evidence['merged_incidents']} incidents "
                       f"merged within the cooldown: from step {first} to {last})")
            out[-1] = replace(worst, first_step=first, last_step=last, resolved=resolved, evidence=evidence,
                              message=message)
        else:
            out.append(inc)
    return out



# One event, one incident: an incident of the key type is left out when one of these types on the same
# env explains it — covers at least EXPLAINED_SHARE of its span (an env that stalls or keeps switching
# also stays active for long; performance that swings also dips below the regression line; a trainer that
# demotes a graduated env once it fell keeps it active at the level it fell to: no progress there is the fall).
EXPLAINED_BY = {"prolonged_training": ("training_stagnation", "performance_volatility"),
                "graduated_regression": ("performance_volatility",),
                "training_stagnation": ("performance_volatility", "graduated_regression")}
EXPLAINED_SHARE = 0.5
LOW_AFTER_SHARE = 0.25  # a standing regression low this share of its span after swings ended fell for good
OVERDUE_STALL_WINDOWS = 1.0  # a stall that began this many stagnation windows after the env was already overdue
                             # (prolonged_training's first step) is that prolonged activity's last part
LAST_PHASE_RATIO = 4.0  # a fall at the series' end this many typical phases long (or less) after switching is
                        # its last phase (levels.SWITCH_PHASE_RATIO: a phase this much longer ends a chain)


def drop_explained(incidents: list[Incident]) -> list[Incident]:
    """The incidents without those another incident of the same env explains (EXPLAINED_BY); a span
    starts at the evidence's `active_since` where there is one (prolonged_training). Point-to-point
    swings or a burst within a regression are the noise of the level it fell to (a rate's noise grows
    away from its bound): the regression's — first where the regression began no later than they did
    (it stands, whatever they cover of it), then within a regression that stands. A fall that began
    within switching or oscillation and came back is its long phase (_long_phase); one at the series' end
    right after it, its last phase or a fall for good (_last_phases). A prolonged activity up to an inferred
    graduation that a regression was dated before is that regression's (_graduated_late); a stall that
    began once the env was overdue is the prolonged activity's last part (_overdue_stalls)."""
    incidents = [inc for inc in incidents if not (_erratic_spell(inc, incidents) or _graduated_late(inc, incidents))]
    incidents = _overdue_stalls(incidents)
    incidents = [inc for inc in incidents if not (_level_noise(inc) and _explained(inc, incidents, (
        "graduated_regression",), since_start=True))]
    incidents, fell = _last_phases(incidents)
    out = [inc for inc in incidents if id(inc) in fell or not (
        _explained(inc, _causes(inc, incidents), EXPLAINED_BY.get(inc.type, ())) or _long_phase(inc, incidents))]
    return [inc for inc in out if not (_level_noise(inc) and _explained(inc, out, ("graduated_regression",)))]


def _causes(inc: Incident, incidents: list[Incident]) -> list[Incident]:
    """The incidents that may explain `inc`: all, but for a regression that stands the swings or a burst that were
    over before it had run LOW_AFTER_SHARE of its span — the env stayed low after them: it fell for good, and the
    swings were its new level's noise (read from a point before the fall, each explained the other and the fall
    went). Swings that go on to the end (or end within a window of it: a window's edge) are the env's state now,
    and explain the fall they pull the mean into."""
    if inc.type != "graduated_regression" or inc.resolved:
        return incidents
    span = max(inc.last_step - inc.first_step, 1)
    return [o for o in incidents if not (_level_noise(o) and o.resolved
                                         and inc.last_step - o.last_step >= LOW_AFTER_SHARE * span)]


def _overdue_stalls(incidents: list[Incident]) -> list[Incident]:
    """A slow climber already overdue before its progress stopped (every stall of the env began over
    OVERDUE_STALL_WINDOWS stagnation windows after its prolonged_training's first step): one event, an env
    that does not graduate, whose climb then stopped. The stalls are folded into the prolonged activity, which
    says from when there was no progress and takes their severity: an env that stopped learning is never
    healthy (ninth corpus: steady risers capped below the shared top, flat from 14 windows on, labelled
    prolonged only). A stall that began earlier explains the prolonged activity instead (EXPLAINED_BY)."""
    out = list(incidents)
    for inc in incidents:
        if inc.type != "prolonged_training":
            continue
        # a stall that spurious progress cut in parts began with its first part
        since = inc.evidence.get("active_since", inc.first_step)
        stalls = [o for o in out if o.type == "training_stagnation" and o.env_id == inc.env_id
                  and since <= o.first_step <= inc.last_step]
        late = inc.first_step + OVERDUE_STALL_WINDOWS * inc.evidence.get("stagnation_window_steps", 0)
        if not stalls or min(o.first_step for o in stalls) <= late:
            continue
        first, last = min(o.first_step for o in stalls), max(o.last_step for o in stalls)
        level = stalls[0].evidence.get("level")
        folded = replace(
            inc, severity=max([inc.severity] + [o.severity for o in stalls], key=SEVERITY_RANK.__getitem__),
            message=f"{inc.message}; no progress from step {first} to {last}"
                    + (f" (level {level:.4g})" if level is not None else ""),
            evidence={**inc.evidence, "stalled_from_step": first, "stalled_to_step": last,
                      **({"stall_level": level} if level is not None else {})})
        out = [folded if o is inc else o for o in out if not any(o is st for st in stalls)]
    return out


def _graduated_late(inc: Incident, incidents: list[Incident]) -> bool:
    """A prolonged activity that ended at an inferred graduation after which a regression was dated before it:
    the env's training had been at its graduation level from `held_from_step` (within the prolonged limit of its
    activation) and its judged series held its level there — graduation was inferred late (a proxy reward that
    climbed again), not the env slow to learn: one event, the regression."""
    return inc.type == "prolonged_training" and any(
        o.type == "graduated_regression" and o.env_id == inc.env_id
        and o.evidence.get("graduation_step") == inc.last_step and "held_from_step" in o.evidence
        and o.evidence["held_from_step"] - inc.evidence.get("active_since", inc.first_step)
        <= inc.evidence.get("limit_steps", 0) for o in incidents)


def _erratic_spell(inc: Incident, incidents: list[Incident]) -> bool:
    """A fall that came back to the held level, over most of which the env swung point to point (a burst
    or swings): an erratic spell whose low points pulled its mean under the line — near a bound, noise
    can only swing down — not a regression of its own level."""
    # a burst whose points moved as one, in a metric with no bound, is a fall that came back: the regression's
    spells = [o for o in incidents if _level_noise(o) and not o.evidence.get("moved_as_one")]
    return inc.type == "graduated_regression" and inc.resolved and _explained(inc, spells, ("performance_volatility",))


def _long_phase(inc: Incident, incidents: list[Incident]) -> bool:
    """A fall that began while the env switched between levels (or oscillated) and came back: one more
    low phase of that unstable period, longer than its others (Markov dwells run to several times
    their median and end the chain's rhythm), not a regression of its own."""
    return inc.type == "graduated_regression" and inc.resolved and any(
        o.type == "performance_volatility" and o.env_id == inc.env_id
        and o.evidence.get("kind") in ("switching", "oscillation") and o.first_step <= inc.first_step <= o.last_step
        for o in incidents)


def _last_phases(incidents: list[Incident]) -> tuple[list[Incident], set[int]]:
    """Falls that go on to the series' end after switching or oscillation ended. Within LAST_PHASE_RATIO
    typical phases of the unstable period's last point, the low stretch at the end is its last phase, cut
    short by the end of the log (Markov dwells run to several times their median): the volatility incident
    goes on through it and says so, and the regression is dropped. Longer, the env fell for good: the
    regression stands whatever the unstable period covers of it (ids of those returned), or an env low at
    the end would be healthy beside switching that is over."""
    out, kept = list(incidents), set()
    for inc in incidents:
        if inc.type != "graduated_regression" or inc.resolved:
            continue
        for k, o in enumerate(out):
            phase = _typical_phase(o)
            if o.env_id != inc.env_id or phase is None or not o.resolved or o.last_step >= inc.last_step \
                    or not o.first_step - phase <= inc.first_step <= o.last_step + phase:
                continue
            tail = inc.last_step - o.last_step
            if tail > LAST_PHASE_RATIO * phase:
                kept.add(id(inc))
                break
            ev = inc.evidence
            gain = ev.get("baseline", 0) - ev.get("start_level", 0)
            now = f" (keeping {(ev['current_value'] - ev['start_level']) / gain:.0%} of the gain)" \
                if gain and "current_value" in ev else ""
            out[k] = replace(o, last_step=inc.last_step, resolved=False,
                             message=f"{o.message}; low again after it to the series' end{now}, "
                                     f"{tail / phase:.1f} typical phases so far",
                             evidence={**o.evidence, "ends_low": True})
            out.remove(inc)
            break
    return out, kept


def _typical_phase(inc: Incident) -> float | None:
    """A switching incident's typical phase or an oscillation's half period, in steps; None for others."""
    if inc.type != "performance_volatility":
        return None
    if inc.evidence.get("kind") == "switching":
        return inc.evidence.get("typical_phase_steps")
    if inc.evidence.get("kind") == "oscillation":
        return inc.evidence.get("period_steps", 0) / 2 or None
    return None


def _level_noise(inc: Incident) -> bool:
    """Volatility read from the size of point-to-point changes (swings, a burst), which the noise of a
    level a regression fell to also shows."""
    return inc.type == "performance_volatility" and inc.evidence.get("kind") in ("swings", "burst")


def _explained(inc: Incident, incidents: list[Incident], causes: tuple, since_start: bool = False) -> bool:
    """Whether an incident of the same env and one of the types `causes` covers EXPLAINED_SHARE of its
    span (with `since_start`: one that began no later than it)."""
    first = inc.evidence.get("active_since", inc.first_step)
    span = max(inc.last_step - first, 1)
    # together: a stall that spurious progress cut in three explains the prolonged activity it spans
    parts = sorted((max(o.first_step, first), min(o.last_step, inc.last_step)) for o in incidents
                   if o.type in causes and o.env_id == inc.env_id and not (since_start and o.first_step > inc.first_step))
    covered, end = 0, first
    for a, b in parts:
        a = max(a, end)
        if b > a:
            covered, end = covered + b - a, b
    return covered >= EXPLAINED_SHARE * span
