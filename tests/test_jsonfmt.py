"""readable_json: the same value as json.dumps, flat containers on one line."""

from __future__ import annotations

import json
import math

from hypothesis import given
from hypothesis import strategies as st

from tabletop.jsonfmt import readable_json

SCALARS = st.none() | st.booleans() | st.integers(-10**12, 10**12) | st.floats(allow_nan=False) | st.text(max_size=8)
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4), max_leaves=25)


@given(VALUES)
def test_round_trips_like_json_dumps(value: object) -> None:
    text = readable_json(value)
    assert json.loads(text) == json.loads(json.dumps(value))


def test_layout() -> None:
    value = {"a": 1, "point": [1.5, 2.0], "models": {"m1": {"status": "affected", "margin_mm": 0.4}}, "empty": [], "nested": [[1], {}]}
    assert readable_json(value) == (
        "{\n"
        '  "a": 1,\n'
        '  "point": [1.5, 2.0],\n'
        '  "models": {\n'
        '    "m1": {"status": "affected", "margin_mm": 0.4}\n'
        "  },\n"
        '  "empty": [],\n'
        '  "nested": [\n'
        "    [1],\n"
        "    {}\n"
        "  ]\n"
        "}"
    )


def test_keys_and_specials_as_json_dumps_writes_them() -> None:
    value = {2: "two", True: [1], None: {"x": "é"}, "inf": {"v": math.inf}}
    assert json.loads(readable_json(value)) == json.loads(json.dumps(value))
    assert "é" in readable_json(value)  # not escaped, like ensure_ascii=False


FLAT = SCALARS | st.floats() | st.lists(SCALARS | st.floats(), max_size=5) | st.dictionaries(st.text(max_size=6), SCALARS | st.floats(), max_size=5)


@given(FLAT)
def test_the_reused_flat_encoder_writes_what_json_writes(value: object) -> None:
    from tabletop.jsonfmt import _FLAT, _encode_flat

    assert _encode_flat(value) == _FLAT.encode(value) == json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
