"""Robotech for many dice at once (the odds): the geometry of an attack worked out once, the dice as arrays.

:func:`sample_batch` is the ruleset's ``sample_batch`` hook; :mod:`.rules` attaches it.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping

import numpy as np
from numpy.typing import NDArray

from tabletop.plugin import BatchOutcomes, BatchSampler, Context, Coverage, Model, PlacedTemplate, Resolution
from tabletop.rulesets.robotech.rules import (
    AIM_DF,
    INCH_MM,
    INESCAPABLE,
    ROLLS,
    SCATTER_BONUS,
    SETTINGS,
    SHOOT_DOWN_FACE,
    _Attack,
    _prepare,
    _weapon_list,
    scatter_point,
)


class _Batch:
    """``resolve`` for many dice at once: the geometry is worked out once, the dice are arrays.

    Every place a template can end is known before any die: each missile's aim, and from it
    6 directions × 11 distances (2D6 inches, capped at the range). Each of those placements
    is covered once with ``ctx.cover`` (the exact core); a sample then only picks placements
    by index and does the Robotech arithmetic on (samples, missiles, models) arrays.
    """

    def __init__(self, ctx: Context, atk: _Attack, attacker: Model, aims: list[tuple[str | None, PlacedTemplate]], aimed_cov: dict[str, Coverage]) -> None:
        weapon = ctx.template.weapon
        self.split = isinstance(weapon.get("targets"), list) and bool(weapon.get("targets"))
        self.gn = int(attacker.stats.get("GN", 0))
        self.md = atk.md
        self.abilities = atk.abilities
        self.volley = len(aims)
        settings = ctx.settings
        self.full_on_whole_miss = settings.get("whole_volley_miss_damage", SETTINGS["whole_volley_miss_damage"][0]) == "full"
        self.hits_only = str(settings.get("inescapable_counts", SETTINGS["inescapable_counts"][0])) == "hits"
        self.rwi_needs = int(settings.get("roll_with_impact_needs", 0) or 0)

        placements: list[PlacedTemplate] = []
        coverages: list[Coverage] = []
        index: dict[PlacedTemplate, int] = {}

        def add(placed: PlacedTemplate, coverage: Coverage | None = None) -> int:
            k = index.get(placed)
            if k is None:
                k = index[placed] = len(placements)
                placements.append(placed)
                coverages.append(ctx.cover(placed) if coverage is None else coverage)
            return k

        directions = ROLLS["scatter_direction"]
        distances = ROLLS["scatter_distance"]
        self.aim_at = np.empty(self.volley, dtype=np.intp)
        #: Placement of missile k after a scatter: [k, direction - 1, distance rolled - lowest].
        self.scatter_at = np.empty((self.volley, directions.sides, distances.highest - distances.lowest + 1), dtype=np.intp)
        cache: dict[tuple[str | None, PlacedTemplate], tuple[int, NDArray[np.intp]]] = {}
        for k, (target, aim) in enumerate(aims):
            key = (target, aim)
            if key not in cache:
                at = add(aim, aimed_cov[aim.id])
                cap_mm = atk.distance(attacker, target, aim)
                table = np.empty(self.scatter_at.shape[1:], dtype=np.intp)
                for d in range(directions.lowest, directions.highest + 1):
                    for rolled in range(distances.lowest, distances.highest + 1):
                        focus = scatter_point(aim.focus, attacker.centre, d, min(rolled * INCH_MM, cap_mm))
                        table[d - 1, rolled - distances.lowest] = add(dataclasses.replace(aim, focus=focus))
                cache[key] = (at, table)
            self.aim_at[k], self.scatter_at[k] = cache[key]
        self.primary = np.array([aim.id == ctx.placed.id for _, aim in aims])

        geometry_ids = ctx.geometry.ids
        under = np.zeros((len(placements), len(geometry_ids)), dtype=bool)
        contested = np.zeros_like(under)
        for p, cov in enumerate(coverages):
            for i in cov.affected:
                under[p, ctx.geometry.index[i]] = True
            contested[p] = [cov.models[i].contested for i in geometry_ids]
        # Only models some placement reaches can be affected, damaged or contested.
        columns = np.nonzero(under.any(axis=0) | contested.any(axis=0))[0]
        self.ids = tuple(geometry_ids[c] for c in columns)
        self.under = under[:, columns]
        self.contested = contested[:, columns]
        self.landings = tuple(dataclasses.replace(p, id=ctx.placed.id) for p in placements)
        column = {u: c for c, u in enumerate(self.ids)}
        models = atk.models
        self.df = np.array([atk.df(u) for u in self.ids], dtype=float)
        self.pi = np.array([int(models[u].stats.get("PI", 0)) for u in self.ids], dtype=np.int64)
        self.cp = np.array([float(models[u].stats.get("CP", math.inf)) for u in self.ids], dtype=float)
        self.is_target = np.array([[u == target for u in self.ids] for target, _ in aims], dtype=bool).reshape(self.volley, len(self.ids))

        def order(key: str) -> list[int]:
            # The mecha that react, in the order ``resolve`` takes them (only those under a template do).
            value = _weapon_list(weapon, key)
            listed = sorted(self.ids) if value == "all" else value
            return [column[u] for u in listed if u in column]

        self.shoot_down = order("shoot_down") if "missile" in self.abilities else []
        self.dodge = order("dodge")
        self.roll_with_impact = order("roll_with_impact")
        counts = {
            "strike": self.volley,
            "scatter_direction": self.volley,
            "scatter_distance": self.volley,
            "scatter_strike": self.volley,
            "shoot_down": len(self.shoot_down),
            "dodge": len(self.dodge),
            "roll_with_impact": len(self.roll_with_impact) if self.rwi_needs else 0,
        }
        self.rolls = {name: (ROLLS[name], k) for name, k in counts.items() if k}

    def sampler(self) -> BatchSampler:
        return BatchSampler(self.ids, self.rolls, self.landings, self.resolve)

    def resolve(self, rolls: Mapping[str, NDArray[np.int64]]) -> BatchOutcomes:
        """What ``resolve`` makes of each row of dice (see :class:`BatchSampler`)."""
        n = len(rolls["strike"])
        rows = np.arange(n)
        v = self.volley
        strike = rolls["strike"][:, :v] + self.gn
        hit = strike >= AIM_DF
        live = np.ones((n, v), dtype=bool)  # missiles still in play (a whole-volley miss keeps one)
        whole_miss = np.zeros(n, dtype=bool)
        if v > 1 and not self.split:
            whole_miss = ~hit.any(axis=1)
            live[whole_miss, 1:] = False
        missed = live & ~hit
        # The k-th scatter rolls go to the k-th missile that missed, as ``resolve`` takes them.
        nth = np.cumsum(missed, axis=1) - missed
        direction = np.take_along_axis(rolls["scatter_direction"], nth, axis=1)
        distance = np.take_along_axis(rolls["scatter_distance"], nth, axis=1)
        rescore = np.take_along_axis(rolls["scatter_strike"], nth, axis=1) + SCATTER_BONUS
        lowest = ROLLS["scatter_distance"].lowest
        scattered_at = self.scatter_at[np.arange(v)[None, :], np.clip(direction - 1, 0, None), np.clip(distance - lowest, 0, None)]
        at = np.where(missed, scattered_at, self.aim_at[None, :])
        against = np.where(missed, rescore, strike)

        covers = self.under[at] & live[:, :, None]  # (n, missiles, models)
        half = self.md // 2
        full = (hit[:, :, None] & self.is_target[None, :, :]) | (missed & (whole_miss & self.full_on_whole_miss)[:, None])[:, :, None]
        reached = self.df[None, None, :] <= against[:, :, None]
        per_missile = np.where(full, self.md, half) * (covers & reached)

        cp = np.broadcast_to(self.cp, (n, len(self.ids))).copy()
        shot = np.zeros((n, v), dtype=bool)
        if self.shoot_down:
            faces, taken = rolls["shoot_down"], np.zeros(n, dtype=np.intp)
            for c in self.shoot_down:
                # Only the missiles that would have hit this mecha (Strike >= its DF) can be shot down by it.
                alive = covers[:, :, c] & ~shot & (self.df[c] <= against)
                tries = alive.any(axis=1) & (cp[:, c] >= 1)
                cp[tries, c] -= 1
                face = faces[rows, np.minimum(taken, faces.shape[1] - 1)]
                taken += tries
                shot |= alive & (tries & (face >= SHOOT_DOWN_FACE))[:, None]
        final = (per_missile * ~shot[:, :, None]).sum(axis=1)
        if self.dodge:
            faces, taken = rolls["dodge"], np.zeros(n, dtype=np.intp)
            for c in self.dodge:
                alive = covers[:, :, c] & ~shot
                counted = alive & (self.df[c] <= against) if self.hits_only else alive
                inescapable = counted.sum(axis=1) >= INESCAPABLE
                tries = (final[:, c] != 0) & ~inescapable & (cp[:, c] >= 1)
                cp[tries, c] -= 1
                need = np.where(counted, against, np.iinfo(np.int64).min).max(axis=1)
                face = faces[rows, np.minimum(taken, faces.shape[1] - 1)]
                taken += tries
                final[tries & (face + self.pi[c] >= need), c] = 0
        if self.roll_with_impact:
            taken = np.zeros(n, dtype=np.intp)
            for c in self.roll_with_impact:
                tries = (final[:, c] != 0) & (cp[:, c] >= 1)
                cp[tries, c] -= 1
                halves = tries
                if self.rwi_needs:
                    faces = rolls["roll_with_impact"]
                    face = faces[rows, np.minimum(taken, faces.shape[1] - 1)]
                    taken += tries
                    halves = tries & (face >= self.rwi_needs)
                final[halves, c] //= 2

        # The main template: the first hit aimed at the template's own point, else the first missile.
        main = np.where((hit & self.primary[None, :]).any(axis=1), np.argmax(hit & self.primary[None, :], axis=1), 0)
        landing = at[rows, main]
        # Contested unless one template surely covers it; when none covers it, when one is within the band.
        near = self.contested[at] & live[:, :, None]
        affected = covers.any(axis=1)
        sure = (covers & ~near).any(axis=1)
        return BatchOutcomes(
            affected=affected,
            damage=final.astype(float),
            contested=(affected & ~sure) | (~affected & near.any(axis=1)),
            landing=landing,
        )


def sample_batch(ctx: Context) -> BatchSampler | None:
    """The vectorised ``resolve`` of one Blast attack or volley for the odds (None when refused:
    a refusal takes no dice, and ``resolve`` answers it once)."""
    ready = _prepare(ctx)
    if isinstance(ready, Resolution):
        return None
    return _Batch(ctx, *ready).sampler()
