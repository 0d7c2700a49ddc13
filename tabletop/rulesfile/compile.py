"""A validated rules file checked for sense and compiled: expressions parsed, quotes found, rules named.

:func:`compile_rules` turns a :class:`~.schema.RulesFile` into :class:`Rules` or reports, each at its
line: expressions that cannot be read, stats and weapon keys the file does not declare (with a
did-you-mean), dice that cannot succeed, quotes that are not in the quoted sentences, and
contradictions between sections.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tabletop.catalogue import shape_from_table
from tabletop.dice import RollSpec
from tabletop.model import TemplateShape
from tabletop.rulesfile.expr import Expr, ExprError, constant_int, parse, split_test
from tabletop.rulesfile.reading import Located
from tabletop.rulesfile.schema import Modifier, Quote, RulesFile
from tabletop.scenario_io.lines import format_path
from tabletop.units import LengthError, parse_length


@dataclass(frozen=True)
class RuleText:
    """A rule a step applies: its id (``Step.rule``), title and verbatim quote (None: the file quotes none)."""

    id: str
    title: str
    quote: str | None


@dataclass(frozen=True)
class RollRule:
    """A named roll: its dice, its total (modifiers included) and what it needs."""

    name: str
    dice: RollSpec
    total: Expr
    needs: Expr | None
    modifiers: tuple[tuple[Expr, Expr], ...] = ()
    reroll: frozenset[int] = frozenset()
    meaning: str = ""

    @property
    def spec(self) -> RollSpec:
        return RollSpec(self.dice.count, self.dice.sides, self.meaning)

    def value(self, env: Mapping[str, Any], face: int) -> Any:
        """The total with ``face`` on the dice and every modifier that applies."""
        scope = {**env, "__dice": face}
        out = self.total(scope)
        for cond, add in self.modifiers:
            out = out + add(scope) * cond(scope)
        return out


@dataclass
class Rules:
    """A compiled rules file: the validated spec plus everything parsed from its text."""

    spec: RulesFile
    data: dict[str, Any]
    path: Path | None
    exprs: dict[str, Expr] = field(default_factory=dict)
    rolls: dict[str, RollRule] = field(default_factory=dict)
    texts: dict[str, RuleText] = field(default_factory=dict)
    shapes: dict[str, TemplateShape] = field(default_factory=dict)
    lines: dict[str, int | None] = field(default_factory=dict)
    #: Length fields: mm, or "weapon.KEY" (read in the scenario's units), or a word ("range", "model.height").
    lengths: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.spec.game.name

    def rule(self, rule_id: str) -> RuleText | None:
        return self.texts.get(rule_id)

    def reads(self, owner: str) -> bool:
        """Whether any expression reads ``owner`` (attacker, target, model, weapon, var)."""
        return any(e.reads(owner) for e in self.exprs.values())


#: Typographic marks a word processor or a PDF puts where a keyboard types plain ones.
_TYPOGRAPHIC = str.maketrans({
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"',
    "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2212": "-",
    "\u00ad": None,
})
#: Largest rules text read to check the quotes against.
MAX_TEXT_BYTES = 16 * 1024 * 1024


def _norm(text: str) -> str:
    """Text as compared for "verbatim": the same words and punctuation, whatever the spacing, ligatures
    (NFKC) or typographic quotes and dashes (a sentence typed with ' matches the rulebook's ’)."""
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text).translate(_TYPOGRAPHIC)).strip()


def _read_rules_text(path: Path) -> tuple[str | None, str | None]:
    """(the rules text, None) or (None, why it cannot be read as text)."""
    from tabletop.atomic import InputError, read_regular

    try:
        raw = read_regular(path, MAX_TEXT_BYTES)
    except InputError as exc:
        return None, str(exc)
    if b"\x00" in raw[:65536] or raw.startswith(b"%PDF"):
        return None, "is not plain text (a PDF or a word processor's file?): save the rules as a .txt file beside this one, or name them with url = \"...\" or cite = \"...\""
    try:
        return raw.decode("utf-8-sig"), None
    except UnicodeDecodeError as exc:
        return None, f"is not UTF-8 text (byte 0x{raw[exc.start]:02x} at {exc.start}): save it as UTF-8 (most editors: Save as… › Encoding)"


def _nearest_passage(sentence: str, body: str) -> str | None:
    """The passage of the rules text most like ``sentence`` (a did-you-mean for a sentence not found)."""
    passages = [_norm(p) for p in re.split(r"(?<=[.!?:;])\s+|\n\s*\n", body) if p.strip()]
    best = difflib.get_close_matches(sentence, passages, n=1, cutoff=0.6)
    return best[0] if best else None


class _Compiler:
    def __init__(self, spec: RulesFile, where: Located, path: Path | None) -> None:
        self.spec = spec
        self.where = where
        self.path = path
        self.out = Rules(spec, {}, path)

    # ------------------------------------------------------------------ helpers

    def expr(self, loc: tuple[Any, ...], value: Any, *, dice: bool = False, store: tuple[Any, ...] | None = None) -> Expr | None:
        """Parse an expression found at ``loc`` (problems go there); filed under ``store`` (default ``loc``)."""
        text = str(value) if not isinstance(value, str) else value
        try:
            e = parse(text, dice=dice)
        except ExprError as exc:
            self.where.add(loc, f"{text!r}: {exc}")
            return None
        self.check_refs(loc, e)
        key = ".".join(map(str, store if store is not None else loc))
        line = self.where.line(loc)
        e = dataclasses.replace(e, where=f"{self.where.name}:{line}: {format_path(loc)}" if line else f"{self.where.name}: {format_path(loc)}")
        self.out.exprs[key] = e
        self.out.lines[key] = line
        return e

    def check_refs(self, loc: tuple[Any, ...], e: Expr) -> None:
        for owner, name in sorted(e.refs):
            if owner in ("attacker", "target", "model") and name not in self.spec.stats and name != "height":
                known = sorted(self.spec.stats)
                guess = difflib.get_close_matches(name, known, n=1, cutoff=0.5)
                hint = f' (did you mean "{owner}.{guess[0]}"?)' if guess else ""
                self.where.add(loc, f"{owner}.{name}: stat {name!r} is not declared under [stats]{hint}")
            elif owner == "weapon" and name not in self.spec.weapon:
                guess = difflib.get_close_matches(name, sorted(self.spec.weapon), n=1, cutoff=0.5)
                hint = f' (did you mean "weapon.{guess[0]}"?)' if guess else ""
                self.where.add(loc, f"weapon.{name}: weapon key {name!r} is not declared under [weapon]{hint}")

    def quote(self, loc: tuple[Any, ...], q: Quote | None) -> str | None:
        if q is None:
            return None
        sentences = self.spec.source.sentences
        if isinstance(q, int):
            if q > len(sentences):
                self.where.add(loc, f"sentence {q}: source.sentences has {len(sentences)}")
                return None
            return sentences[q - 1]
        if not any(_norm(q) in _norm(s) for s in sentences):
            best = difflib.get_close_matches(q, sentences, n=1, cutoff=0.3)
            hint = f"; the nearest is {best[0][:80]!r}" if best else ""
            self.where.add(loc, f"this quote is not (verbatim) in source.sentences{hint}")
            return None
        return q

    def text(self, rule_id: str, title: str, *quotes: tuple[tuple[Any, ...], Quote | None]) -> None:
        """Name a rule: the first quote given (a specific one, then its section's) is its sentence."""
        chosen = None
        for loc, q in quotes:
            if q is not None:
                chosen = self.quote(loc, q)
                break
        self.out.texts[rule_id] = RuleText(rule_id, title, chosen)

    def roll(self, loc: tuple[Any, ...], name: str, roll_text: str, needs: Any, modifiers: list[Modifier], reroll: list[int], meaning: str) -> RollRule | None:
        left, test = split_test(roll_text)
        if test is not None and needs is not None:
            self.where.add((*loc, "needs"), f"the roll {roll_text!r} already says what it needs; give needs once")
            return None
        total = self.expr((*loc, "roll"), left, dice=True)
        needs_e = None
        needs_loc = (*loc, "needs") if needs is not None else (*loc, "roll")
        if test is not None or needs is not None:
            needs_e = self.expr(needs_loc, test if test is not None else needs, store=(*loc, "needs"))
        if total is None:
            return None
        if total.dice is None:
            self.where.add((*loc, "roll"), f"{roll_text!r} rolls no dice (write e.g. \"d6\" or \"2d6 + attacker.BS\")")
            return None
        mods: list[tuple[Expr, Expr]] = []
        for k, m in enumerate(modifiers):
            cond, add = self.expr((*loc, "modifiers", k, "if"), m.if_), self.expr((*loc, "modifiers", k, "add"), m.add)
            if cond is not None and add is not None:
                mods.append((cond, add))
        for face in reroll:
            if not total.dice.lowest <= face <= total.dice.highest:
                self.where.add((*loc, "reroll"), f"{total.dice.label()} never totals {face}")
        rule = RollRule(name, total.dice, total, needs_e, tuple(mods), frozenset(reroll), meaning)
        self.check_possible(needs_loc, rule, roll_text)
        if name in self.out.rolls:
            self.where.add((*loc, "name"), f"two rolls are called {name!r}: give one of them another name")
        self.out.rolls[name] = rule
        return rule

    def check_possible(self, needs_loc: tuple[Any, ...], rule: RollRule, text: str) -> None:
        """Refuse a roll that can never succeed (or always does, needing dice it never reads)."""
        if rule.needs is None or rule.total.refs or rule.needs.refs:
            return
        need = rule.needs.constant
        low = rule.value({}, rule.dice.lowest) if not rule.modifiers else None
        high = rule.value({}, rule.dice.highest) if not rule.modifiers else None
        if low is None or high is None or not isinstance(need, (int, float)):
            return
        if need > high:
            self.where.add(needs_loc, f"{text!r} can never succeed: {rule.dice.label()} shows at most {high:g} against {need:g}")
        elif need <= low and need != 0:
            self.where.add(needs_loc, f"{text!r} always succeeds ({rule.dice.label()} shows at least {low:g}): write no roll", warning=True)

    def length(self, loc: tuple[Any, ...], value: Any, words: tuple[str, ...] = ()) -> Any:
        """A length field: mm for a number (the file's units) or a length with a unit; ``weapon.KEY`` or one of
        ``words`` kept as text. Recorded in ``lengths`` under its dotted path."""
        key = ".".join(map(str, loc))
        out: Any = None
        if isinstance(value, str) and (value in words or value.startswith("weapon.")):
            if value.startswith("weapon.") and value.split(".", 1)[1] not in self.spec.weapon:
                name = value.split(".", 1)[1]
                guess = difflib.get_close_matches(name, sorted(self.spec.weapon), n=1, cutoff=0.5)
                hint = f' (did you mean "weapon.{guess[0]}"?)' if guess else ""
                self.where.add(loc, f"{value}: weapon key {name!r} is not declared under [weapon]{hint}")
            out = value
        else:
            try:
                out = parse_length(value, self.spec.units)
            except LengthError as exc:
                also = f", {', '.join(repr(w) for w in words)}" if words else ""
                self.where.add(loc, f"{exc}; or \"weapon.KEY\" (a weapon key read as a length){also}")
        self.out.lengths[key] = out
        return out

    # ------------------------------------------------------------------ sections

    def compile(self) -> Rules:
        s = self.spec
        src = s.source
        if src.file is None and src.url is None and src.cite is None:
            self.where.add(("source",), "name the rules text: file = \"...\" (relative to this file), url = \"https://...\" or cite = \"...\"")
        if src.file is not None and self.path is not None:
            text_path = (self.path.parent / src.file) if not Path(src.file).is_absolute() else Path(src.file)
            if not text_path.exists():
                self.where.add(("source", "file"), f"{src.file!r} not found (looked for {text_path}): the quotes are not checked against it", warning=True)
            else:
                raw_text, why = _read_rules_text(text_path)
                if raw_text is None:
                    self.where.add(("source", "file"), f"{src.file!r} {why}")
                else:
                    body = _norm(raw_text)
                    for k, sentence in enumerate(src.sentences):
                        if _norm(sentence) not in body:
                            near = _nearest_passage(_norm(sentence), raw_text)
                            hint = f"; the nearest in it is {near[:160]!r}" if near else ""
                            self.where.add(("source", "sentences", k), f"sentence {k + 1} is not (verbatim) in {src.file}{hint}")
        for name, table in s.templates.items():
            data = {k: v for k, v in table.model_dump().items() if v is not None}
            shape, problems = shape_from_table(data, s.units)
            for fld, message in problems:
                self.where.add(("templates", name, *([fld] if fld else [])), message)
            if shape is not None:
                self.out.shapes[name] = shape
        self.placement()
        self.target()
        self.hit_and_scatter()
        self.under_and_cover()
        self.effect()
        self.saves()
        self.contradictions()
        return self.out

    def placement(self) -> None:
        p = self.spec.placement
        if p.on == "range" and p.distance is None:
            self.where.add(("placement", "distance"), "placement.on = \"range\" needs a distance (e.g. \"weapon.range\")")
        if p.distance is not None:
            if p.on != "range":
                self.where.add(("placement", "distance"), f"a distance is only used with on = \"range\", not {p.on!r}")
            self.length(("placement", "distance"), p.distance)
        self.text("place", f"Placing the template ({p.on.replace('_', ' ')})", (("placement", "quote"), p.quote))
        b = self.spec.battery
        if b is not None:
            self.text("battery_centre", "Battery: the target in the centre of the line", (("battery", "quote"), b.quote))
            self.text("battery_line", "Battery: templates side by side across the line of fire", (("battery", "line_quote"), b.line_quote), (("battery", "quote"), b.quote))

    def target(self) -> None:
        t = self.spec.target
        q = (("target", "quote"), t.quote)
        self.text("aim", "What may be aimed at", q)
        self.text("sight", "The target in line of sight", (("target", "sight_quote"), t.sight_quote), q)
        self.text("range", "The target in range", (("target", "range_quote"), t.range_quote), q)
        if t.range is not None:
            self.length(("target", "range"), t.range)
        f = self.spec.friendly_fire
        self.text("friendly", f"Friendly fire: {f.rule}", (("friendly_fire", "quote"), f.quote))

    def hit_and_scatter(self) -> None:
        h = self.spec.to_hit
        if h is not None:
            if self.roll(("to_hit",), h.name or "to_hit", h.roll, h.needs, h.modifiers, h.reroll, "to hit") is not None:
                if self.out.rolls[h.name or "to_hit"].needs is None:
                    self.where.add(("to_hit", "needs"), "a roll to hit needs a number to reach: roll = \"2d6 >= 7\" or needs = 7")
            self.text("to_hit", f"To hit: {h.roll}" + (f" needs {h.needs}" if h.needs is not None else ""), (("to_hit", "quote"), h.quote))
        sc = self.spec.scatter
        if sc is None:
            return
        q = (("scatter", "quote"), sc.quote)
        if sc.die is not None:
            die = self.roll(("scatter", "die"), sc.die.name, sc.die.roll, None, [], [], "scatter die")
            if die is not None:
                if die.dice.count != 1:
                    self.where.add(("scatter", "die", "roll"), f"a scatter die is one die, not {die.dice.label()}")
                bad = [f for f in sc.die.hit if not 1 <= f <= die.dice.sides]
                if bad:
                    self.where.add(("scatter", "die", "hit"), f"a {die.dice.label()} has no face {bad[0]}")
                elif len(set(sc.die.hit)) >= die.dice.sides:
                    self.where.add(("scatter", "die", "hit"), "every face shows HIT: the template can never scatter")
            self.text("scatter_die", "The scatter die: HIT or an arrow", (("scatter", "die", "quote"), sc.die.quote), q)
        d = self.roll(("scatter", "direction"), sc.direction.name, sc.direction.roll, None, [], [], "scatter direction")
        if d is not None and d.dice.count != 1:
            self.where.add(("scatter", "direction", "roll"), f"a direction is read off one die's faces, not {d.dice.label()}")
        dist = sc.distance
        self.roll(("scatter", "distance"), dist.name, dist.roll, None, [], dist.reroll, f"scatter distance ({dist.unit})")
        if dist.minus is not None:
            self.expr(("scatter", "distance", "minus"), dist.minus)
        if dist.max is not None:
            self.length(("scatter", "distance", "max"), dist.max, words=("range",))
        self.text("scatter", f"Scatter: {sc.direction.roll} for the direction, {dist.roll} {dist.unit}", q)
        self.text("scatter_cap", "The scatter's limit", (("scatter", "distance", "quote"), dist.quote), q)
        if sc.then is not None:
            self.roll(("scatter", "then"), sc.then.name or "scatter_strike", sc.then.roll, sc.then.needs, sc.then.modifiers, sc.then.reroll, "new roll after a scatter")
            self.text("scatter_then", f"After the scatter: {sc.then.roll}", (("scatter", "then", "quote"), sc.then.quote), q)

    def under_and_cover(self) -> None:
        u = self.spec.under
        q = (("under", "quote"), u.quote)
        words = {"any": "any part of its base", "centre": "its base's centre", "fraction": f"at least {u.fraction:g} of its base"}
        self.text("under", f"Under the template: {words[u.counts]}", q)
        self.text("touching", "Touching the edge is not under it", (("under", "touching_quote"), u.touching_quote), q)
        if u.partial is not None:
            self.roll(("under", "partial"), u.partial.name, u.partial.roll, u.partial.needs, [], [], "partly covered model")
            self.text("partial", "A partly covered model rolls", (("under", "partial", "quote"), u.partial.quote), q)
        for k, c in enumerate(self.spec.cover):
            if c.min_height is not None:
                self.length(("cover", k, "min_height"), c.min_height, words=("model.height",))
            self.text(f"cover.{k}", f"Cover ({', '.join(c.kinds)}): {c.effect}", (("cover", k, "quote"), c.quote))
        sight = self.spec.sight
        self.text("sight_focus", f"Line of sight from the blast focus ({sight.from_focus})", (("sight", "quote"), sight.quote))

    def effect(self) -> None:
        e = self.spec.effect
        amount = self.expr(("effect", "amount"), e.amount)
        if amount is not None and isinstance(amount.constant, (int, float)) and not isinstance(amount.constant, bool) and amount.constant < 0:
            self.where.add(("effect", "amount"), f"{e.amount!r} is less than nothing: a model suffers 0 or more")
        if e.none_if is not None:
            self.expr(("effect", "none_if"), e.none_if)
        if e.structures is not None and e.structures not in self.spec.stats:
            self.where.add(("effect", "structures"), f"stat {e.structures!r} is not declared under [stats]")
        q = (("effect", "quote"), e.quote)
        self.text("effect", f"What each model under it suffers: {e.kind}", q)
        if e.halve_per_square:
            self.text("effect_ground", "In the blast's square: in full", (("effect", "primary_quote"), e.primary_quote), q)
            self.text("effect_square", "Halved for each square out", q)
        self.text("effect_primary", f"The target: {e.primary}", (("effect", "primary_quote"), e.primary_quote), q)
        self.text("effect_others", f"Everyone else under it: {e.others}", (("effect", "others_quote"), e.others_quote), q)
        self.text("effect_scattered", f"After a scatter: {e.scattered}", (("effect", "scattered_quote"), e.scattered_quote), q)
        self.text("effect_none", "Nothing suffered", (("effect", "none_quote"), e.none_quote), q)

    def saves(self) -> None:
        for key, sv in self.spec.saves.items():
            loc = ("saves", key)
            self.roll(loc, sv.name or key, sv.roll, sv.needs, sv.modifiers, [], f"{key.replace('_', ' ')}")
            if sv.costs is not None and sv.costs not in self.spec.stats:
                self.where.add((*loc, "costs"), f"stat {sv.costs!r} is not declared under [stats]")
            if sv.only_if is not None:
                self.expr((*loc, "only_if"), sv.only_if)
            if sv.who != "all" and not re.fullmatch(r"weapon\.[A-Za-z][\w\-]*", sv.who):
                self.where.add((*loc, "who"), f"who is \"all\" or \"weapon.KEY\", got {sv.who!r}")
            elif sv.who != "all" and sv.who.split(".", 1)[1] not in self.spec.weapon:
                self.where.add((*loc, "who"), f"{sv.who}: weapon key not declared under [weapon]")
            self.text(f"save.{key}", f"{key.replace('_', ' ').capitalize()}: {sv.roll} needs {sv.needs} ({sv.success} on a success)", ((*loc, "quote"), sv.quote))

    def contradictions(self) -> None:
        s = self.spec
        strike_makers = s.to_hit is not None or (s.scatter is not None and s.scatter.then is not None)
        for path, e in self.out.exprs.items():
            loc = tuple(int(p) if p.isdigit() else p for p in path.split("."))
            if ("var", "strike") in e.refs and not strike_makers:
                self.where.add(loc, "reads strike, but nothing is rolled to hit ([to_hit] or scatter.then)")
            if ("var", "in_cover") in e.refs and not any(c.effect == "save" for c in s.cover):
                self.where.add(loc, "reads in_cover, but no [[cover]] grants a save (effect = \"save\"): it is never true", warning=True)
        if s.scatter is not None and s.scatter.when == "miss" and s.to_hit is None:
            self.where.add(("scatter", "when"), "scatter on a miss, but nothing is rolled to hit: add [to_hit] or scatter when = \"always\"")
        if s.to_hit is not None and s.scatter is not None and "miss" in s.to_hit.model_fields_set:
            self.where.add(("to_hit", "miss"), "a miss scatters ([scatter]): to_hit.miss only says what a miss does without one")
        if s.scatter is not None and s.battery is not None:
            self.where.add(("battery",), "a battery is laid as a T, and [scatter] moves one template: use one or the other")
        if s.under.partial is not None and s.under.counts == "fraction" and s.under.fraction >= 1.0:
            self.where.add(("under", "partial"), "with fraction = 1 only wholly covered bases count: none is partly covered")
        if s.friendly_fire.rule == "allowed" and s.friendly_fire.exempt is not None:
            self.where.add(("friendly_fire", "exempt"), "friendly fire is allowed: there is nothing to be exempt from")
        if any(c.effect == "save" for c in s.cover) and not s.saves:
            self.where.add(("cover",), "cover grants a save, but there are no [saves]")
        if s.effect.primary != s.effect.others and s.placement.on in ("point", "range") and s.target.points:
            self.where.add(("effect", "primary"), f"a primary target gets its own band, but placement.on = {s.placement.on!r} aims at no model")
        if s.to_hit is not None and s.scatter is None and s.effect.scattered != "full":
            self.where.add(("effect", "scattered"), "a band after a scatter, but there is no [scatter]", warning=True)
        for key, sv in s.saves.items():
            if sv.success == "cancel" and sv.attempt == "damaged" and s.effect.kind == "hits":
                pass
            n = self.out.exprs.get(f"saves.{key}.needs")
            if n is not None and constant_int(n) == 0 and sv.modifiers:
                self.where.add(("saves", key, "modifiers"), "an automatic save (needs = 0) has no roll to modify")


def compile_rules(spec: RulesFile, where: Located, path: Path | None, data: dict[str, Any]) -> Rules:
    """Check ``spec`` for sense and compile it; problems go to ``where`` (the caller raises)."""
    rules = _Compiler(spec, where, path).compile()
    rules.data = data
    return rules
