"""A rules file's resolution for many dice at once: the odds' ``sample_batch``.

Every place the template can end is known before a die is rolled (where it was aimed, and from
there each direction face × each distance total), so each is judged once with the exact core
(:func:`.engine.judged`); a row of dice then only picks a landing by index, and to hit, partial
rolls, bands, ``none_if`` and saves run on numpy arrays, one column per model. Column k of a roll
is the k-th time :func:`.engine.resolve` takes it, so the two agree row by row (the odds check it).
Where the vocabulary asks for something this path does not vectorise (a reroll of a partial or a
save, a scatter distance that reads the to-hit total, thousands of landings) it returns None and
the odds resolve one sample at a time.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from tabletop.model import PlacedTemplate
from tabletop.resolution import BatchOutcomes, BatchSampler, Context
from tabletop.rulesfile.aim import refusal, take_aim
from tabletop.rulesfile.compile import RollRule, Rules
from tabletop.rulesfile.effects import _pool
from tabletop.rulesfile.engine import combine, judged, scatter_cap, scatter_distance_mm, scatter_heading
from tabletop.rulesfile.values import Stats, Weapon, grid_ring

#: Most distinct landings judged up front.
MAX_LANDINGS = 4000


def _vec(x: Any, n: int, dtype: Any = float) -> NDArray[Any]:
    return np.broadcast_to(np.asarray(x, dtype=dtype), (n,)).copy()


class _Plan:
    """The geometry of one attack worked out once; :meth:`resolve` does the dice of many rows."""

    def __init__(self, rules: Rules, ctx: Context) -> None:
        self.rules = rules
        spec = rules.spec
        scenario = ctx.scenario
        aim = take_aim(rules, ctx)
        per = [judged(rules, ctx, p) for p in aim.placed]
        self.refused = refusal(rules, ctx, aim, [j[0] for j in per], [j[1] for j in per]) is not None
        if self.refused:
            return
        models = scenario.models_by_id()
        self.target_id = aim.target.id if aim.target is not None else None
        weapon = Weapon(rules, ctx.template.weapon, ctx.template.id)
        self.env: dict[str, Any] = {
            "attacker": Stats(rules, aim.firer, "attacker"), "target": Stats(rules, aim.target, "target"), "weapon": weapon,
            "range": aim.range_mm if aim.range_mm is not None else 0.0, "hit": True, "scattered": False, "strike": 0,
            "primary": False, "in_cover": False, "partial": False, "squares": 0, "templates": 1,
        }
        # Landings: index 0 where it was aimed (a battery: its members together), then every scatter landing.
        judged_at: list[tuple[Any, set[str], dict[str, bool], dict[str, Any], dict[str, int]]] = []
        if len(per) > 1:
            cov = combine([j[0] for j in per], aim.placed[aim.primary], scenario, ctx.tolerance_mm)
            counts: dict[str, int] = {}
            whole: dict[str, bool] = {}
            cover: dict[str, Any] = {"in_cover": {}}
            for j in per:
                for mid in j[1]:
                    counts[mid] = counts.get(mid, 0) + 1
                    whole[mid] = whole.get(mid, False) or bool(j[3].get(mid, False))
                cover["in_cover"].update(j[4]["in_cover"])
            judged_at.append((cov, set(counts), whole, cover, counts))
        else:
            j = per[0]
            judged_at.append((j[0], j[1], j[3], j[4], dict.fromkeys(j[1], 1)))
        self.scatter_at: NDArray[np.intp] | None = None
        sc = spec.scatter
        if sc is not None:
            minus = rules.exprs.get("scatter.distance.minus")
            if minus is not None and minus.reads("var"):
                raise _NotHere
            direction, distance = rules.rolls[sc.direction.name], rules.rolls[sc.distance.name]
            if direction.dice.sides * (distance.dice.highest - distance.dice.lowest + 1) > MAX_LANDINGS:
                raise _NotHere
            cap = scatter_cap(rules, ctx, aim)
            aimed = aim.placed[0]
            index: dict[tuple[float, float], int] = {aimed.focus: 0}
            table = np.empty((direction.dice.sides, distance.dice.highest - distance.dice.lowest + 1), dtype=np.intp)
            for d in range(1, direction.dice.sides + 1):
                heading = math.radians(scatter_heading(sc.direction.first, sc.direction.turn, direction.dice.sides, aim.fire, d))
                for t in range(distance.dice.lowest, distance.dice.highest + 1):
                    mm, _capped = scatter_distance_mm(rules, self.env, t, cap)
                    focus = (aimed.focus[0] + mm * math.cos(heading), aimed.focus[1] + mm * math.sin(heading))
                    k = index.get(focus)
                    if k is None:
                        k = index[focus] = len(judged_at)
                        landing = dataclasses.replace(aimed, focus=focus)
                        cov, under, _touching, whole, facts = judged(rules, ctx, landing)
                        judged_at.append((cov, under, whole, facts, dict.fromkeys(under, 1)))
                    table[d - 1, t - distance.dice.lowest] = k
            self.scatter_at = table
        self.landings = tuple(j[0].placed for j in judged_at)
        # Columns: models some landing puts under the template or leaves contested.
        ids = [m.id for m in scenario.models if any(m.id in j[1] or j[0].models[m.id].contested for j in judged_at)]
        self.ids = tuple(ids)
        L, M = len(judged_at), len(ids)
        self.under = np.zeros((L, M), dtype=bool)
        self.whole = np.zeros((L, M), dtype=bool)
        self.cover = np.zeros((L, M), dtype=bool)
        self.contested = np.zeros((L, M), dtype=bool)
        self.squares = np.zeros((L, M), dtype=np.int64)
        self.counts = np.zeros((L, M), dtype=np.int64)
        for k, (cov, under, whole, facts, counts) in enumerate(judged_at):
            focus = cov.placed.focus
            for c, mid in enumerate(ids):
                self.under[k, c] = mid in under
                self.whole[k, c] = bool(whole.get(mid, False))
                self.cover[k, c] = mid in facts["in_cover"]
                self.contested[k, c] = cov.models[mid].contested
                self.counts[k, c] = counts.get(mid, 0)
                if spec.effect.halve_per_square:
                    self.squares[k, c] = grid_ring(scenario, focus, models[mid].centre)
        self.stats = [Stats(rules, models[mid], "model") for mid in ids]
        self.pool_of = {stat: np.array([_pool(rules, models[mid], stat) for mid in ids], dtype=float) for stat in {sv.costs for sv in spec.saves.values() if sv.costs}}
        self.who: dict[str, list[int]] = {}
        column = {mid: c for c, mid in enumerate(ids)}
        for key, sv in spec.saves.items():
            if sv.who == "all":
                listed = sorted(ids)
            else:
                value = weapon[sv.who.split(".", 1)[1]]
                listed = sorted(ids) if value == "all" else [str(v) for v in value] if isinstance(value, list) else []
            self.who[key] = [column[mid] for mid in listed if mid in column]
        rolls: dict[str, tuple[Any, int]] = {}
        if spec.to_hit is not None:
            r = rules.rolls[spec.to_hit.name or "to_hit"]
            rolls[r.name] = (r.spec, 1 + bool(spec.to_hit.reroll))
        if sc is not None:
            if sc.die is not None:
                rolls[sc.die.name] = (rules.rolls[sc.die.name].spec, 1)
            rolls[sc.direction.name] = (rules.rolls[sc.direction.name].spec, 1)
            rolls[sc.distance.name] = (rules.rolls[sc.distance.name].spec, 1 + bool(sc.distance.reroll))
            if sc.then is not None:
                then = rules.rolls[sc.then.name or "scatter_strike"]
                rolls[then.name] = (then.spec, 1 + bool(sc.then.reroll))
        if spec.under.partial is not None:
            p = int((self.under & ~self.whole).sum(axis=1).max()) if L else 0
            if p:
                rolls[spec.under.partial.name] = (rules.rolls[spec.under.partial.name].spec, p)
        for key, sv in spec.saves.items():
            if self.who[key]:
                rolls[sv.name or key] = (rules.rolls[sv.name or key].spec, len(self.who[key]))
        self.rolls = rolls

    # ------------------------------------------------------------------ dice

    def _take(self, rule: RollRule, faces: NDArray[np.int64]) -> NDArray[np.int64]:
        """The total a once-taken roll shows: the second column where the first is a reroll total."""
        first = faces[:, 0]
        if rule.reroll and faces.shape[1] > 1:
            return np.where(np.isin(first, list(rule.reroll)), faces[:, 1], first)
        return first

    def resolve(self, values: Mapping[str, NDArray[np.int64]]) -> BatchOutcomes:
        rules, spec = self.rules, self.rules.spec
        n = len(next(iter(values.values()))) if values else 1
        rows = np.arange(n)
        env = dict(self.env)
        hit = np.ones(n, dtype=bool)
        strike: NDArray[Any] = np.zeros(n)
        if spec.to_hit is not None:
            r = rules.rolls[spec.to_hit.name or "to_hit"]
            face = self._take(r, values[r.name])
            strike = np.asarray(r.value(env, face), dtype=float) * np.ones(n)
            assert r.needs is not None
            hit = strike >= r.needs(env)
        landing = np.zeros(n, dtype=np.intp)
        moved = np.zeros(n, dtype=bool)
        dud = np.zeros(n, dtype=bool)
        sc = spec.scatter
        # A miss that nothing scatters lands nowhere (to_hit.miss = "nothing"): no one under it, nothing contested.
        nowhere = ~hit if spec.to_hit is not None and sc is None and spec.to_hit.miss == "nothing" else np.zeros(n, dtype=bool)
        if sc is not None:
            scatters = np.ones(n, dtype=bool) if sc.when == "always" else ~hit
            go = scatters.copy()
            if sc.die is not None:
                stays = scatters & np.isin(values[sc.die.name][:, 0], sc.die.hit)
                hit = hit | stays
                go = scatters & ~stays
            d = values[sc.direction.name][:, 0]
            t = self._take(rules.rolls[sc.distance.name], values[sc.distance.name])
            assert self.scatter_at is not None
            low = rules.rolls[sc.distance.name].dice.lowest
            landing = np.where(go, self.scatter_at[np.clip(d - 1, 0, None), np.clip(t - low, 0, None)], 0)
            moved = go
            if sc.then is not None:
                then = rules.rolls[sc.then.name or "scatter_strike"]
                scope = {**env, "hit": hit, "strike": strike}
                total = np.asarray(then.value(scope, self._take(then, values[then.name])), dtype=float) * np.ones(n)
                strike = np.where(go, total, strike)
                if then.needs is not None:
                    dud = go & ~(total >= then.needs(scope))
        env.update(hit=hit, scattered=moved, strike=strike)
        under = self.under[landing] & ~nowhere[:, None]
        whole = self.whole[landing]
        cover = self.cover[landing]
        squares = self.squares[landing]
        counts = self.counts[landing]
        M = len(self.ids)
        local = [
            {**env, "model": self.stats[c], "primary": self.ids[c] == self.target_id, "partial": ~whole[:, c], "in_cover": cover[:, c], "squares": squares[:, c], "templates": counts[:, c]}
            for c in range(M)
        ]
        failed = np.zeros((n, M), dtype=bool)
        if spec.under.partial is not None and spec.under.partial.name in values:
            r = rules.rolls[spec.under.partial.name]
            partial = under & ~whole
            nth = np.cumsum(partial, axis=1) - partial
            faces = values[r.name]
            taken = np.take_along_axis(faces, np.minimum(nth, faces.shape[1] - 1), axis=1)
            for c in range(M):
                scope = {**local[c], "partial": True}
                assert r.needs is not None
                ok = np.asarray(r.value(scope, taken[:, c]) >= r.needs(scope)) * np.ones(n, dtype=bool)
                failed[:, c] = partial[:, c] & ~ok
        e = spec.effect
        suffers = np.zeros((n, M), dtype=np.int64)
        hit_by = np.zeros((n, M), dtype=bool)
        none_if = rules.exprs.get("effect.none_if")
        amount_e = rules.exprs["effect.amount"]
        for c in range(M):
            scope = local[c]
            primary = self.ids[c] == self.target_id
            none = np.asarray(none_if(scope), dtype=bool) * np.ones(n, dtype=bool) if none_if is not None else np.zeros(n, dtype=bool)
            amount = np.maximum(np.trunc(np.asarray(amount_e(scope), dtype=float)), 0).astype(np.int64) * counts[:, c]
            if e.halve_per_square:
                amount = np.where(squares[:, c] < 63, amount >> np.minimum(squares[:, c], 62), 0)
            band = _bands(e, primary, hit, moved)
            value = np.where(band == 2, amount, np.where(band == 1, amount // 2, 0))
            ok = under[:, c] & ~failed[:, c] & ~dud & ~none
            suffers[:, c] = np.where(ok, value, 0)
            hit_by[:, c] = ok
        final = suffers.copy()
        cancelled = np.zeros(n, dtype=bool)
        pools = {stat: np.broadcast_to(p, (n, M)).copy() for stat, p in self.pool_of.items()}
        for key, sv in spec.saves.items():
            order = self.who[key]
            if not order:
                continue
            r = rules.rolls[sv.name or key]
            only = rules.exprs.get(f"saves.{key}.only_if")
            allowed = np.asarray(only(env), dtype=bool) * np.ones(n, dtype=bool) if only is not None else np.ones(n, dtype=bool)
            faces = values.get(r.name)
            taken = np.zeros(n, dtype=np.intp)
            for c in order:
                attempt = allowed & under[:, c] & ~cancelled
                if sv.attempt == "damaged":
                    attempt &= final[:, c] > 0
                elif sv.attempt == "hit":
                    attempt &= hit_by[:, c]
                if sv.costs is not None:
                    pool = pools[sv.costs]
                    attempt &= pool[:, c] >= 1
                    pool[attempt, c] -= 1
                assert r.needs is not None
                needs = np.asarray(r.needs(local[c]), dtype=float) * np.ones(n)
                auto = needs == 0
                rolled = attempt & ~auto
                face = faces[rows, np.minimum(taken, faces.shape[1] - 1)] if faces is not None else np.zeros(n, dtype=np.int64)
                taken += rolled
                ok = attempt & (auto | (np.asarray(r.value(local[c], face), dtype=float) >= needs))
                if sv.success == "none":
                    final[ok, c] = 0
                elif sv.success == "half":
                    final[ok, c] //= 2
                else:
                    cancelled |= ok
                    final[ok, :] = 0
        return BatchOutcomes(
            affected=under,
            damage=final.astype(float),
            contested=self.contested[landing] & ~nowhere[:, None],
            landing=landing,
        )


def _bands(e: Any, primary: bool, hit: NDArray[np.bool_], moved: NDArray[np.bool_]) -> NDArray[np.int64]:
    """Each row's band as 2 (full), 1 (half), 0 (none), as :func:`.effects.band_of` chooses it."""
    code = {"full": 2, "half": 1, "none": 0}
    if e.primary == e.others == e.scattered:
        return np.full(len(hit), code[e.others], dtype=np.int64)
    out = np.where(moved, code[e.scattered], np.where(hit & primary, code[e.primary], code[e.others]))
    return np.asarray(out, dtype=np.int64)


class _NotHere(Exception):
    """This attack asks for something the batch path does not vectorise."""


def sample_batch(rules: Rules, ctx: Context) -> BatchSampler | None:
    """The vectorised resolution for the odds; None where it does not apply (a refused attack takes no dice)."""
    try:
        plan = _Plan(rules, ctx)
    except _NotHere:
        return None
    if plan.refused or not plan.rolls:
        return None  # a refusal takes no dice, and an attack without dice has one outcome
    return BatchSampler(plan.ids, plan.rolls, plan.landings, plan.resolve)


__all__ = ["sample_batch", "PlacedTemplate"]
