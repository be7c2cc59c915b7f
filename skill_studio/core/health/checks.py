"""Health checks on demand (SPEC §4, §5): every skill's scores, the maintenance plan with the rule
and reason of each action, applying it through the lifecycle moves, and the runs kept for trends.

A run computes first and changes nothing; :func:`apply` makes the planned moves (audited and
undoable like a reviewer's). Thresholds and weights come from the store's settings
(``health.*`` keys), with the defaults of SPEC §5.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from typing import Any

from skill_studio.core.health import scores
from skill_studio.core.model import SHELVED_STATES, Lifecycle, Origin, TrustTier
from skill_studio.core.review.lifecycle import MOVES, Change, move
from skill_studio.core.store import Store, StoreError

DEFAULTS: dict[str, float | bool] = {
    "health.weight_utility": 0.4, "health.weight_redundancy": 0.2, "health.weight_freshness": 0.2,
    "health.weight_failure": 0.2,
    "health.redundancy_floor": 0.6,          # similarity below this is no redundancy at all
    "health.stale_freshness": 0.1, "health.stale_max_uses": 3,
    "health.low": 0.3, "health.low_min_uses": 5,
    "health.failing_rate": 0.3,              # with low_min_uses uses or more: failing, whatever else
    "health.sustained": 0.5, "health.sustained_runs": 3,
    "health.sustained_days": 7,              # the counted runs of a drop span at least this
    "health.sustained_gap_hours": 24,        # a run counts when this long after the last counted one
    "health.duplicate": 0.75,
    "health.only_llm": True,                 # move only llm skills; report the others
}
#: Bands for the summary: the lowest health of each.
BANDS = (("healthy", 0.7), ("fair", 0.5), ("poor", 0.3), ("critical", 0.0))
#: The band of a skill that fails most of its uses, whatever its health (SPEC §5: it stands below
#: a skill never used, which the score alone does not always give).
FAILING = "failing"
#: Every band, best first.
BAND_NAMES = tuple(name for name, _ in BANDS) + (FAILING,)
#: Each band's colour role (the theme paints the role).
BAND_ROLES = {"healthy": "success", "fair": "attention", "poor": "warning", "critical": "danger", FAILING: "danger"}

Progress = Callable[[str, int, int], None]   # (stage, done, total)


def settings(store: Store) -> dict:
    """The thresholds and weights in force: the defaults overlaid by the store's settings."""
    stored = store.settings()  # JSON values: numbers and booleans come back typed
    return {k: stored.get(k, v) for k, v in DEFAULTS.items()}


def redundancy(max_similarity: float, floor: float = 0.6) -> float:
    return min(1.0, max(0.0, (max_similarity - floor) / (1.0 - floor)))


def health_score(utility: Any, redundancy_: Any, freshness: Any, failure_risk: Any, cfg: Mapping) -> Any:
    """The §4 health of one skill (floats) or of many at once (numpy arrays)."""
    return (utility * cfg["health.weight_utility"] + (1 - redundancy_) * cfg["health.weight_redundancy"]
            + freshness * cfg["health.weight_freshness"] + (1 - failure_risk) * cfg["health.weight_failure"])


def band(health: float) -> str:
    return next(name for name, low in BANDS if health >= low)


def below(value: float, limit: float) -> str:
    """``value`` with two decimals, or as many more as it takes not to read as ``limit``."""
    for digits in (2, 3, 4, 6):
        text = f"{value:.{digits}f}"
        if float(text) < limit:
            return text
    return repr(value)


def is_failing(uses: int, success_rate: float, cfg: Mapping) -> bool:
    """Failing (SPEC §5): enough uses to say, and most of them failed."""
    return uses >= cfg["health.low_min_uses"] and success_rate < cfg["health.failing_rate"]


@dataclass
class SkillHealth:
    name: str
    origin: Origin
    lifecycle: Lifecycle
    trust_tier: TrustTier
    pinned: bool
    uses: int
    utility: float
    redundancy: float
    freshness: float
    failure_risk: float
    health: float
    failing: bool = False      # enough uses, most of them failed (SPEC §5)

    @property
    def band(self) -> str:
        return FAILING if self.failing else band(self.health)

    @property
    def standing(self) -> tuple[int, float]:
        """Sort key, worst first: failing skills below all others, then by health."""
        return (0 if self.failing else 1, self.health)

    @property
    def why(self) -> str:
        """One line on what the band rests on."""
        if self.failing:
            rate = below(1 - self.failure_risk, DEFAULTS["health.failing_rate"])
            return (f"fails most of its uses: success rate {rate} after {self.uses} uses; "
                    f"its health {self.health:.2f} still counts freshness and uniqueness, so the band says failing")
        if self.uses == 0:
            return f"never used: health {self.health:.2f} rests on the prior success rate and freshness"
        return f"health {self.health:.2f} after {self.uses} use(s)"


@dataclass
class PlannedAction:
    skill: str
    action: str              # a lifecycle move, or "review" for a near-duplicate pair
    rule: str                # stale, low-health, sustained-drop, near-duplicate
    reason: str
    applies: bool = True     # False: reported only (not llm, pinned, or the state does not allow it)
    target: str | None = None          # near-duplicate: the suggested merge target
    similarity: float | None = None
    members: list[str] = field(default_factory=list)   # template-family: every skill of the family


@dataclass
class HealthRun:
    skills: list[SkillHealth]
    actions: list[PlannedAction]
    pairs: list = field(default_factory=list)      # similarity.Pair, best first: duplicates to merge
    summary: dict = field(default_factory=dict)
    run_id: int | None = None
    families: list = field(default_factory=list)   # duplicates.Family: skills from one template


def compute(store: Store, *, now: datetime | None = None, index=None, progress: Progress | None = None,
            cancelled: Callable[[], bool] | None = None,
            parallel: bool = False) -> tuple[list[SkillHealth], list, list]:
    """Every skill's scores (freshness brought up to ``now`` in the store first), the
    near-duplicate pairs a maintainer would merge and the template families (see
    core.health.duplicates). Raises InterruptedError when ``cancelled``. ``parallel``: vectors
    may be computed in worker processes (see SimilarityIndex.refresh)."""
    from skill_studio.core.health import duplicates
    from skill_studio.core.health.similarity import Pair, SimilarityIndex

    cfg = settings(store)
    cancelled = cancelled or (lambda: False)
    store.refresh_freshness(now)
    index = index or SimilarityIndex(store)
    index.refresh(progress=(lambda d, t: progress("vectors", d, t)) if progress else None, cancelled=cancelled,
                  parallel=parallel)
    if cancelled():
        raise InterruptedError("health check cancelled")
    floor = min(duplicates.CANDIDATE_FLOOR, cfg["health.duplicate"])
    candidates, best = index.scan(floor,  # the candidate pairs and each skill's best match, one pass
                                  progress=(lambda d, t: progress("pairs", d, t)) if progress else None,
                                  cancelled=cancelled)
    if cancelled():
        raise InterruptedError("health check cancelled")
    verdicts = duplicates.judge(store, candidates, threshold=cfg["health.duplicate"], index=index)
    pairs = [Pair(d.a, d.b, d.similarity, d.reason) for d in verdicts.duplicates]
    out = []
    for name, origin, lifecycle, tier, pinned, uses, utility, success, freshness in store.health_rows():
        red = redundancy(best.get(name, 0.0), cfg["health.redundancy_floor"])
        risk = 1.0 - success
        h = health_score(utility, red, freshness, risk, cfg)
        out.append(SkillHealth(name, Origin(origin), Lifecycle(lifecycle), TrustTier(tier), bool(pinned), uses,
                               utility, red, freshness, risk, round(h, 6), is_failing(uses, success, cfg)))
    return out, pairs, verdicts.families


def _movable(s: SkillHealth, action: str, cfg: dict) -> tuple[bool, str]:
    if s.origin == Origin.BUILTIN:
        return False, "builtin: read-only"
    if s.pinned:
        return False, "pinned: never moved by a health check"
    if cfg["health.only_llm"] and s.origin != Origin.LLM:
        return False, f"{s.origin.value} skill: reported, not moved"
    if s.lifecycle not in MOVES[action]:
        if s.lifecycle in MOVES[action].values():
            return False, f"already {s.lifecycle.value}"
        states = " or ".join(state.value for state in MOVES[action])
        return False, f"{s.lifecycle.value}: only a {states} skill is moved to {action}"
    return True, ""


def plan(store: Store, skills: list[SkillHealth], pairs: Iterable = (), *, now: datetime | None = None,
         families: Iterable = ()) -> list[PlannedAction]:
    """The actions of SPEC §5 for these scores, each with its rule and reason (nothing is written):
    failing, low health, stale, a sustained drop over earlier runs, near-duplicate pairs (to
    review) and template families (reported once)."""
    cfg = settings(store)
    now = now or scores.utcnow()
    trails = _trails(store, skills, now, cfg)
    actions: list[PlannedAction] = []
    for s in skills:
        if s.lifecycle in SHELVED_STATES:
            continue
        found = None
        fallback = "degrade" if s.lifecycle in MOVES["degrade"] else "deprecate"
        if s.failing:    # degraded if verified or released; in any other state reported, not moved
            rate = below(1 - s.failure_risk, cfg["health.failing_rate"])
            found = ("degrade", "failing", f"success rate {rate} < {cfg['health.failing_rate']} after {s.uses} uses")
        elif s.health < cfg["health.low"] and s.uses >= cfg["health.low_min_uses"]:
            found = (fallback, "low-health", f"health {below(s.health, cfg['health.low'])} < {cfg['health.low']} "
                                             f"after {s.uses} uses")
        elif s.freshness < cfg["health.stale_freshness"] and s.uses < cfg["health.stale_max_uses"]:
            found = ("deprecate", "stale", f"freshness {s.freshness:.2f} < {cfg['health.stale_freshness']} "
                                           f"with {s.uses} use(s) (< {int(cfg['health.stale_max_uses'])})")
        elif s.name in trails and s.lifecycle in MOVES["degrade"]:
            reason = sustained_drop(trails[s.name], (now, s.health, s.uses), cfg)
            if reason:
                found = ("degrade", "sustained-drop", reason)
        if found:
            action, rule, reason = found
            ok, why = _movable(s, action, cfg)
            actions.append(PlannedAction(s.name, action, rule, reason + ("" if ok else f" — {why}"), ok))
    by_name = {s.name: s for s in skills}
    for p in pairs:
        a, b = by_name.get(p.a), by_name.get(p.b)
        if a is None or b is None:
            continue
        keep, other = sorted((a, b), key=lambda s: (-int(s.trust_tier), -s.utility, s.name))
        why = f" ({p.reason})" if getattr(p, "reason", "") else ""
        reason = f"{p.similarity:.2f} similar to {keep.name}{why}; suggested: merge into {keep.name}"
        actions.append(PlannedAction(other.name, "review", "near-duplicate", reason, applies=False,
                                     target=keep.name, similarity=p.similarity))
    for f in families:
        actions.append(PlannedAction(f.members[0], "review", "template-family", f.reason, applies=False,
                                     similarity=f.similarity, members=list(f.members)))
    return actions


Run = tuple[datetime, float, "int | None"]   # (when, health, uses then)


def _trails(store: Store, skills: list[SkillHealth], now: datetime, cfg: dict) -> dict[str, list[Run]]:
    """The earlier runs of the skills a drop could concern (below the line now, used, movable
    by a degrade), oldest first."""
    names = [s.name for s in skills if s.health < cfg["health.sustained"] and s.uses > 0
             and s.lifecycle in MOVES["degrade"]]
    if not names:
        return {}
    window = timedelta(days=max(90.0, 4 * float(cfg["health.sustained_days"])))
    out: dict[str, list[Run]] = {}
    for name, rows in store.health_trail(names, scores.format_time(now - window)).items():
        # A run kept before use counts were is no evidence either way: it is left out.
        runs: list[Run] = [(t, h, u) for at, h, u in rows
                           if u is not None and (t := scores.parse_time(at)) is not None and t <= now]
        if runs:
            out[name] = runs
    return out


def sustained_drop(earlier: list[Run], current: Run, cfg: dict) -> str | None:
    """The reason a skill's health dropped for good (SPEC §5), or None. The drop is the latest
    unbroken streak of runs below ``health.sustained``, this one included; of it, runs count from
    the oldest on, each ``health.sustained_gap_hours`` after the last one counted (runs closer
    together are no new evidence). It takes ``health.sustained_runs`` counted runs spanning
    ``health.sustained_days`` with a use recorded between the first and the last: a skill that
    nobody used meanwhile has not dropped, however often it is checked."""
    line = cfg["health.sustained"]
    streak: list[Run] = []
    for run in reversed([*earlier, current]):
        if run[1] >= line:
            break
        streak.append(run)
    streak.reverse()
    gap = timedelta(hours=float(cfg["health.sustained_gap_hours"]))
    counted: list[Run] = []
    for run in streak:
        if not counted or run[0] - counted[-1][0] >= gap:
            counted.append(run)
    if len(counted) < int(cfg["health.sustained_runs"]):
        return None
    first, last = counted[0], counted[-1]
    days = (last[0] - first[0]).total_seconds() / 86400
    if days < float(cfg["health.sustained_days"]):
        return None
    if first[2] is None or last[2] is None or last[2] <= first[2]:
        return None
    return (f"health below {line} in {len(counted)} runs over {days:.0f} days ({current[1]:.2f} now), "
            f"with {last[2] - first[2]} use(s) in between")


def summarize(skills: list[SkillHealth], actions: list[PlannedAction]) -> dict:
    bands = dict.fromkeys(BAND_NAMES, 0)
    for s in skills:
        bands[s.band] += 1
    planned: dict[str, int] = {}
    for a in actions:
        key = a.action if a.applies else f"{a.action} (reported)"
        planned[key] = planned.get(key, 0) + 1
    return {"skills": len(skills), "bands": bands, "actions": planned}


def run(store: Store, *, now: datetime | None = None, progress: Progress | None = None,
        cancelled: Callable[[], bool] | None = None, keep: bool = True, author: str | None = None,
        parallel: bool = False) -> HealthRun:
    """Compute scores, near-duplicates and the plan; keep the run with every skill's scores."""
    skills, pairs, families = compute(store, now=now, progress=progress, cancelled=cancelled, parallel=parallel)
    actions = plan(store, skills, pairs, now=now, families=families)
    summary = summarize(skills, actions)
    result = HealthRun(skills, actions, pairs, summary, families=families)
    if keep:
        rows = [(s.name, s.utility, s.redundancy, s.freshness, s.failure_risk, s.health, s.uses) for s in skills]
        result.run_id = store.save_health_run(settings(store), summary, rows, actor=author,
                                              at=scores.format_time(now or scores.utcnow()))
    return result


def apply(store: Store, actions: list[PlannedAction], exclude: Iterable[str] = (), *,
          author: str | None = None) -> tuple[Change, list[str]]:
    """Make the planned moves (not the excluded skills, not those reported only) through the
    lifecycle moves, so each is audited; returns one undoable change and the refusals."""
    skip = set(exclude)
    change, refused = Change("Apply the health plan"), []
    for a in actions:
        if not a.applies or a.skill in skip or a.action not in MOVES:
            continue
        try:
            c = move(store, a.skill, a.action, f"health check ({a.rule}): {a.reason}", author=author, by_health=True)
        except StoreError as e:  # moved meanwhile, pinned since the run, ...
            refused.append(str(e))
            continue
        change.add(c)
    return change, refused


def as_json(result: HealthRun) -> dict:
    return {"summary": result.summary, "run": result.run_id,
            "skills": [dict(asdict(s), origin=s.origin.value, lifecycle=s.lifecycle.value,
                            trust_tier=int(s.trust_tier), band=s.band) for s in result.skills],
            "actions": [asdict(a) for a in result.actions]}
