"""The small expression language of rules files: dice, stats, lengths, comparisons. Pure.

``2d6 + attacker.BS >= 7``, ``d6 + model.PI``, ``model.DF > strike``, ``range > 12in``:
an expression is parsed once (Python's own parser after two rewrites: ``2d6`` becomes a dice
term, ``12in`` a length in mm), checked against a short list of allowed forms and compiled to
a closure. The same closure evaluates one model's numbers or numpy arrays of many samples
(the odds), so the two paths cannot drift apart.
"""

from __future__ import annotations

import ast
import difflib
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tabletop.dice import RollSpec
from tabletop.placement import PlacementError
from tabletop.units import MM_PER_UNIT

#: Who a stat can be read from: ``attacker.BS``, ``target.DF``, ``model.SV`` (the model suffering).
OWNERS = ("attacker", "target", "model")
#: Values a resolution knows, by name (see docs/rules-files.md, "Expressions").
VARIABLES: dict[str, str] = {
    "strike": "the to-hit total that decides this model (after a scatter, the new roll)",
    "hit": "true when the to-hit roll hit where it aimed",
    "scattered": "true when the template scattered",
    "range": "the firer's measured range to the target (mm; write lengths with a unit: 12in)",
    "primary": "true for the target model the attack was aimed at",
    "in_cover": "true when cover that grants a save lies between the blast focus and this model",
    "partial": "true when only part of this model's base is under the template",
    "squares": "grid squares between this model's square and the blast focus's square",
    "templates": "how many templates of a battery cover this model",
}
#: Functions an expression may call.
FUNCTIONS = ("min", "max")
#: Most dice in one term and most sides on one die.
MAX_DICE = 20
MAX_SIDES = 1000

_DICE = re.compile(r"(?<![\w.])(\d*)[dD](\d+)(?![\w.])")
_LENGTH = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?|\.\d+)(mm|cm|in)(?![\w])")


class ExprFailed(PlacementError):
    """An expression that cannot be worked out on a table's numbers (a division by zero, text added to a
    number): a mistake of the rules file (or of the table's stats), reported as bad input, not a crash."""


class ExprError(ValueError):
    """An expression that cannot be read; ``column`` is 1-based where known."""

    def __init__(self, message: str, column: int | None = None) -> None:
        super().__init__(message)
        self.column = column


Env = Mapping[str, Any]


@dataclass(frozen=True)
class Expr:
    """A parsed expression: its text, its closure and what it reads."""

    text: str
    fn: Callable[[Env], Any] = field(repr=False, compare=False)
    dice: RollSpec | None = None
    #: (owner, name) pairs read: ("attacker", "BS"), ("weapon", "md"), ("var", "strike").
    refs: frozenset[tuple[str, str]] = frozenset()
    #: Its value when it reads nothing and rolls nothing.
    constant: Any = None
    #: Where the rules file writes it ("house.rules.toml:44: effect.amount"), for a failure's message.
    where: str = field(default="", compare=False)

    def __call__(self, env: Env) -> Any:
        try:
            value = self.fn(env)
        except (ArithmeticError, TypeError) as exc:
            raise ExprFailed(self._failed(env, str(exc))) from None
        if isinstance(value, float) and not math.isfinite(value):
            raise ExprFailed(self._failed(env, f"it comes to {value}"))
        return value

    def _failed(self, env: Env, why: str) -> str:
        who = getattr(env.get("model"), "thing", None)
        whom = f" for {who.id!r}" if who is not None and hasattr(who, "id") else ""
        where = f"{self.where}: " if self.where else ""
        return f"{where}{self.text!r} cannot be worked out{whom}: {why}"

    def reads(self, owner: str) -> set[str]:
        return {name for who, name in self.refs if who == owner}


def _rewrite(text: str) -> str:
    text = _DICE.sub(lambda m: f"__dice({m.group(1) or 1}, {m.group(2)})", text)
    return _LENGTH.sub(lambda m: f"({float(m.group(1)) * MM_PER_UNIT[m.group(2)]!r})", text)


def _logical(op: str, a: Any, b: Any) -> Any:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.logical_and(a, b) if op == "and" else np.logical_or(a, b)
    return (a and b) if op == "and" else (a or b)


def _not(a: Any) -> Any:
    return np.logical_not(a) if isinstance(a, np.ndarray) else not a


def _minmax(name: str, args: list[Any]) -> Any:
    if any(isinstance(a, np.ndarray) for a in args):
        out = args[0]
        for a in args[1:]:
            out = np.minimum(out, a) if name == "min" else np.maximum(out, a)
        return out
    return min(args) if name == "min" else max(args)


_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Div: lambda a, b: a / b,
}
_COMPARE: dict[type, Callable[[Any, Any], Any]] = {
    ast.GtE: lambda a, b: a >= b,
    ast.Gt: lambda a, b: a > b,
    ast.LtE: lambda a, b: a <= b,
    ast.Lt: lambda a, b: a < b,
    ast.Eq: lambda a, b: a == b,
    ast.NotEq: lambda a, b: a != b,
}


def _in(a: Any, b: Any) -> Any:
    return a in b if isinstance(b, (list, tuple, set, frozenset, str)) else False


class _Compiler:
    def __init__(self, text: str, allow_dice: bool, variables: Mapping[str, str]) -> None:
        self.text = text
        self.allow_dice = allow_dice
        self.variables = variables
        self.dice: RollSpec | None = None
        self.refs: set[tuple[str, str]] = set()

    def fail(self, message: str, node: ast.AST | None = None) -> ExprError:
        col = getattr(node, "col_offset", None)
        return ExprError(message, None if col is None else col + 1)

    def compile(self, node: ast.AST, additive: bool = True) -> Callable[[Env], Any]:
        if isinstance(node, ast.Constant):
            value = node.value
            if isinstance(value, bool) or not isinstance(value, (int, float, str)):
                raise self.fail(f"cannot use {value!r} here", node)
            return lambda env, v=value: v
        if isinstance(node, ast.Name):
            name = node.id
            if name in ("true", "false"):
                return lambda env, v=(name == "true"): v
            if name not in self.variables:
                guess = difflib.get_close_matches(name, [*self.variables, *OWNERS, "weapon"], n=1, cutoff=0.6)
                hint = f' (did you mean "{guess[0]}"?)' if guess else ""
                raise self.fail(f"unknown name {name!r}{hint}; stats are read as attacker.X, target.X or model.X", node)
            self.refs.add(("var", name))
            return lambda env, n=name: env[n]
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            owner, name = node.value.id, node.attr
            if owner not in (*OWNERS, "weapon"):
                guess = difflib.get_close_matches(owner, [*OWNERS, "weapon"], n=1, cutoff=0.5)
                hint = f' (did you mean "{guess[0]}.{name}"?)' if guess else ""
                raise self.fail(f"unknown owner {owner!r} of {name!r}{hint}: attacker, target, model or weapon", node)
            self.refs.add((owner, name))
            return lambda env, o=owner, n=name: env[o][n]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "__dice":
            if not self.allow_dice:
                raise self.fail("dice are only rolled in a roll field (roll = \"2d6 + ...\")", node)
            if not additive:
                raise self.fail("dice are summed into the roll: write them as a term (2d6 + 1), not inside other arithmetic", node)
            if self.dice is not None:
                raise self.fail("one dice term per roll (write 2d6, not d6 + d6)", node)
            count, sides = (a.value for a in node.args)  # type: ignore[attr-defined]
            if not 1 <= count <= MAX_DICE:
                raise self.fail(f"{count}d{sides}: between 1 and {MAX_DICE} dice", node)
            if not 2 <= sides <= MAX_SIDES:
                raise self.fail(f"{count}d{sides}: a die has between 2 and {MAX_SIDES} sides", node)
            self.dice = RollSpec(count, sides)
            return lambda env: env["__dice"]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS and not node.keywords:
            if len(node.args) < 2:
                raise self.fail(f"{node.func.id}() takes two or more values", node)
            args = [self.compile(a, additive=False) for a in node.args]
            return lambda env, f=node.func.id: _minmax(f, [a(env) for a in args])
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            keeps = isinstance(node.op, (ast.Add, ast.Sub))
            left = self.compile(node.left, additive and keeps)
            right = self.compile(node.right, additive and isinstance(node.op, ast.Add))
            op = _BINARY[type(node.op)]
            return lambda env: op(left(env), right(env))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            inner = self.compile(node.operand, additive and isinstance(node.op, ast.UAdd))
            return (lambda env: -inner(env)) if isinstance(node.op, ast.USub) else inner
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            inner = self.compile(node.operand, False)
            return lambda env: _not(inner(env))
        if isinstance(node, ast.BoolOp):
            parts = [self.compile(v, False) for v in node.values]
            word = "and" if isinstance(node.op, ast.And) else "or"

            def boolop(env: Env) -> Any:
                out = parts[0](env)
                for p in parts[1:]:
                    out = _logical(word, out, p(env))
                return out

            return boolop
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            left = self.compile(node.left, False)
            right = self.compile(node.comparators[0], False)
            if isinstance(node.ops[0], ast.In):
                return lambda env: _in(left(env), right(env))
            if isinstance(node.ops[0], ast.NotIn):
                return lambda env: not _in(left(env), right(env))
            if type(node.ops[0]) in _COMPARE:
                cmp = _COMPARE[type(node.ops[0])]
                return lambda env: cmp(left(env), right(env))
        if isinstance(node, ast.Compare):
            raise self.fail("one comparison at a time (write a >= 1 and a <= 3)", node)
        raise self.fail(f"cannot read {ast.unparse(node)!r} in a rules expression", node)


def parse(text: str, *, dice: bool = False, variables: Mapping[str, str] = VARIABLES) -> Expr:
    """Parse ``text``; ``dice=True`` allows (and records) one dice term. Raises ExprError."""
    if not isinstance(text, str) or not text.strip():
        raise ExprError("an empty expression")
    if len(text) > 400:
        raise ExprError("an expression of more than 400 characters")
    source = _rewrite(text.strip())
    try:
        tree = ast.parse(source, mode="eval")
    except SyntaxError as exc:
        raise ExprError(f"cannot read {text.strip()!r}: {exc.msg}") from None
    comp = _Compiler(text, dice, variables)
    fn = comp.compile(tree.body)
    constant = None
    if not comp.refs and comp.dice is None:
        try:
            constant = fn({})
        except (ArithmeticError, TypeError) as exc:
            raise ExprError(f"cannot work out {text.strip()!r}: {exc}") from None
    return Expr(text.strip(), fn, comp.dice, frozenset(comp.refs), constant)


def split_test(text: str) -> tuple[str, str | None]:
    """``"2d6 + attacker.BS >= 7"`` -> ``("2d6 + attacker.BS", "7")``; a roll without a test -> (text, None).

    ``>`` becomes ``>=`` one higher: ``d6 > 3`` needs 4. Only the top-level comparison is split.
    """
    try:
        tree = ast.parse(_rewrite(text.strip()), mode="eval")
    except SyntaxError:
        return text, None
    body = tree.body
    if isinstance(body, ast.Compare) and len(body.ops) == 1 and isinstance(body.ops[0], (ast.GtE, ast.Gt)):
        source = text.strip()
        m = re.search(r">=?", source)
        if m is None:
            return text, None
        left, right = source[: m.start()].strip(), source[m.end() :].strip()
        if isinstance(body.ops[0], ast.Gt):
            right = f"({right}) + 1"
        return left, right
    return text, None


def constant_int(expr: Expr) -> int | None:
    """``expr``'s value when it is a whole-number constant, else None."""
    c = expr.constant
    if isinstance(c, bool) or not isinstance(c, (int, float)):
        return None
    return int(c) if float(c).is_integer() else None
