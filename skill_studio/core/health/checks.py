"""Health checks on demand (SPEC §4, §5): every skill's scores, the maintenance plan with the rule
and reason of each action, applying it through the lifecycle moves, and the runs kept for trends.

A run computes first and changes nothing; :func:`apply` makes the planned moves (audited and
undoable like a reviewer's). Thresholds and weights come from the store's settings
(``health.*`` keys), with the defaults of SPEC §5.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from datetime import datetime

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
    "health.sustained": 0.5, "health.sustained_runs": 3,
    "health.duplicate": 0.75,
    "health.only_llm": True,                 # move only llm skills; report the others
}
#: Bands for the summary: the lowest health of each.
BANDS = (("healthy", 0.7), ("fair", 0.5), ("poor", 0.3), ("critical", 0.0))
#: Each band's colour role (the theme paints the role).
BAND_ROLES = {"healthy": "success", "fair": "attention", "poor": "warning", "critical": "danger"}

Progress = Callable[[str, int, int], None]   # (stage, done, total)


def settings(store: Store) -> dict:
    """The thresholds and weights in force: the defaults overlaid by the store's settings."""
    stored = store.settings()  # JSON values: numbers and booleans come back typed
    return {k: stored.get(k, v) for k, v in DEFAULTS.items()}


def redundancy(max_similarity: float, floor: float = 0.6) -> float:
    return min(1.0, max(0.0, (max_similarity - floor) / (1.0 - floor)))


def health_score(utility: float, redundancy_: float, freshness: float, failure_risk: float, cfg: dict) -> float:
    return (utility * cfg["health.weight_utility"] + (1 - redundancy_) * cfg["health.weight_redundancy"]
            + freshness * cfg["health.weight_freshness"] + (1 - failure_risk) * cfg["health.weight_failure"])


def band(health: float) -> str:
    return next(name for name, low in BANDS if health >= low)


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

    @property
    def band(self) -> str:
        return band(self.health)


@dataclass
class PlannedAction:
    skill: str
    action: str              # a lifecycle move, or "review" for a near-duplicate pair
    rule: str                # stale, low-health, sustained-drop, near-duplicate
    reason: str
    applies: bool = True     # False: reported only (not llm, pinned, or the state does not allow it)
    target: str | None = None          # near-duplicate: the suggested merge target
    similarity: float | None = None


@dataclass
class HealthRun:
    skills: list[SkillHealth]
    actions: list[PlannedAction]
    pairs: list = field(default_factory=list)      # similarity.Pair, best first
    summary: dict = field(default_factory=dict)
    run_id: int | None = None


def compute(store: Store, *, now: datetime | None = None, index=None, progress: Progress | None = None,
            cancelled: Callable[[], bool] | None = None, parallel: bool = False) -> tuple[list[SkillHealth], list]:
    """Every skill's scores (freshness brought up to ``now`` in the store first) and the
    near-duplicate pairs. Raises InterruptedError when ``cancelled``. ``parallel``: vectors may
    be computed in worker processes (see SimilarityIndex.refresh)."""
    from skill_studio.core.health.similarity import SimilarityIndex

    cfg = settings(store)
    cancelled = cancelled or (lambda: False)
    store.refresh_freshness(now)
    index = index or SimilarityIndex(store)
    index.refresh(progress=(lambda d, t: progress("vectors", d, t)) if progress else None, cancelled=cancelled,
                  parallel=parallel)
    if cancelled():
        raise InterruptedError("health check cancelled")
    pairs, best = index.scan(cfg["health.duplicate"],  # the pairs and each skill's best match, one pass
                             progress=(lambda d, t: progress("pairs", d, t)) if progress else None,
                             cancelled=cancelled)
    if cancelled():
        raise InterruptedError("health check cancelled")
    out = []
    for name, origin, lifecycle, tier, pinned, uses, utility, success, freshness in store.health_rows():
        red = redundancy(best.get(name, 0.0), cfg["health.redundancy_floor"])
        risk = 1.0 - success
        h = health_score(utility, red, freshness, risk, cfg)
        out.append(SkillHealth(name, Origin(origin), Lifecycle(lifecycle), TrustTier(tier), bool(pinned), uses,
                               utility, red, freshness, risk, round(h, 6)))
    return out, pairs


def _movable(s: SkillHealth, action: str, cfg: dict) -> tuple[bool, str]:
    if s.origin == Origin.BUILTIN:
        return False, "builtin: read-only"
    if s.pinned:
        return False, "pinned: never moved by a health check"
    if cfg["health.only_llm"] and s.origin != Origin.LLM:
        return False, f"{s.origin.value} skill: reported, not moved"
    if s.lifecycle not in MOVES[action]:
        return False, f"already {s.lifecycle.value}"
    return True, ""


def plan(store: Store, skills: list[SkillHealth], pairs: Iterable = ()) -> list[PlannedAction]:
    """The actions of SPEC §5 for these scores, each with its rule and reason (nothing is written)."""
    cfg = settings(store)
    history = store.recent_health(int(cfg["health.sustained_runs"]) - 1)
    actions: list[PlannedAction] = []
    for s in skills:
        if s.lifecycle in SHELVED_STATES:
            continue
        found = None
        if s.freshness < cfg["health.stale_freshness"] and s.uses < cfg["health.stale_max_uses"]:
            found = ("deprecate", "stale", f"freshness {s.freshness:.2f} < {cfg['health.stale_freshness']} "
                                           f"with {s.uses} use(s) (< {int(cfg['health.stale_max_uses'])})")
        elif s.health < cfg["health.low"] and s.uses >= cfg["health.low_min_uses"]:
            act = "degrade" if s.lifecycle in MOVES["degrade"] else "deprecate"
            found = (act, "low-health", f"health {s.health:.2f} < {cfg['health.low']} after {s.uses} uses")
        else:
            past = history.get(s.name, [])
            needed = int(cfg["health.sustained_runs"]) - 1
            if s.lifecycle in MOVES["degrade"] and len(past) >= needed \
                    and s.health < cfg["health.sustained"] and all(h < cfg["health.sustained"] for h in past[:needed]):
                found = ("degrade", "sustained-drop", f"health below {cfg['health.sustained']} in each of the last "
                                                      f"{needed + 1} runs ({s.health:.2f} now)")
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
        actions.append(PlannedAction(other.name, "review", "near-duplicate",
                                     f"{p.similarity:.2f} similar to {keep.name}; suggested: merge into {keep.name}",
                                     applies=False, target=keep.name, similarity=p.similarity))
    return actions


def summarize(skills: list[SkillHealth], actions: list[PlannedAction]) -> dict:
    bands = {name: 0 for name, _ in BANDS}
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
    skills, pairs = compute(store, now=now, progress=progress, cancelled=cancelled, parallel=parallel)
    actions = plan(store, skills, pairs)
    summary = summarize(skills, actions)
    result = HealthRun(skills, actions, pairs, summary)
    if keep:
        rows = [(s.name, s.utility, s.redundancy, s.freshness, s.failure_risk, s.health) for s in skills]
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
