"""Each ruleset's page states its readings of the seed, and quotes the seed only verbatim.

Every page (``tabletop/rulesets/<name>/README.md``) ends with a "Readings" table: the seed's sentence,
the reading taken, the setting that changes it and a case that shows it. ``docs/rulesets/README.md``
holds the readings issue 32 changed, in the same form. A text in curly quotes (“…”) on these pages is a
quotation: it must appear word for word in a seed text (an ellipsis … marks a cut), so a paraphrase can
never pass for the seed's words.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from tabletop import rulesets

from .conftest import ROOT
from .test_step_rules import SEEDS, WITH_RULES, needs_seeds

DOCS = ROOT / "docs" / "rulesets" / "README.md"
HEADER = "| Seed sentence | Reading taken | Setting | Case |"
QUOTE = re.compile(r"“([^”]+)”")
BACKTICKED = re.compile(r"`([^`]+)`")


def _page(name: str) -> Path:
    return ROOT / "tabletop" / "rulesets" / name / "README.md"


def _seed(name: str) -> str:
    module = importlib.import_module(f"tabletop.rulesets.{name}.rules_text")
    return " ".join((SEEDS / module.SEED).read_text(encoding="utf-8").split())


def _all_seeds() -> str:
    return " ".join(" ".join(p.read_text(encoding="utf-8").split()) for p in sorted(SEEDS.glob("*.txt")))


def _verbatim(quote: str, seed: str) -> bool:
    parts = [p.strip(" .,;") for p in " ".join(quote.split()).split("…")]
    return all(p in seed for p in parts if p)


def _rows(text: str, header: str) -> list[list[str]]:
    """The rows of the Markdown table that starts with ``header`` (cells stripped; escaped pipes kept)."""
    lines = text.splitlines()
    start = lines.index(header)
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        rows.append(cells)
    return rows


def _check_case(case: str) -> None:
    paths = BACKTICKED.findall(case)
    assert paths, f"no case named in {case!r}"
    for ref in paths:
        file, _, test = ref.partition("::")
        path = ROOT / file
        assert path.is_file(), f"case {ref!r}: no such file"
        if test:
            assert re.search(rf"^def {re.escape(test)}\(", path.read_text(encoding="utf-8"), re.M), f"case {ref!r}: no such test"


@needs_seeds
@pytest.mark.parametrize("name", WITH_RULES)
def test_every_page_has_a_readings_table(name: str) -> None:
    text = _page(name).read_text(encoding="utf-8")
    assert "\n## Readings\n" in text
    rows = _rows(text, HEADER)
    assert len(rows) >= 4
    seed = _seed(name)
    settings = set(rulesets.get(name).settings)
    for sentence, reading, setting, case in rows:
        quotes = QUOTE.findall(sentence)
        assert quotes, f"{name}: no seed sentence in {sentence!r}"
        for q in quotes:
            assert _verbatim(q, seed), f"{name}: not the seed's words: {q!r}"
        assert reading.strip()
        named = BACKTICKED.findall(setting)
        assert setting == "—" or named, setting
        for word in named:
            if not word.startswith('"') and not word.replace(".", "").isdigit() and word not in ("true", "false"):
                assert word in settings, f"{name}: {word!r} is not a setting"
        _check_case(case)


@needs_seeds
@pytest.mark.parametrize("name", WITH_RULES)
def test_every_curly_quote_on_a_page_is_a_seeds_words(name: str) -> None:
    text, seeds = _page(name).read_text(encoding="utf-8"), _all_seeds()
    quotes = QUOTE.findall(text)
    assert quotes
    bad = [q for q in quotes if not _verbatim(q, seeds)]
    assert bad == []


@needs_seeds
def test_the_rulesets_page_lists_issue_32s_readings_in_the_seeds_words() -> None:
    text = DOCS.read_text(encoding="utf-8")
    rows = _rows(text, "| ruleset | seed sentence | reading taken | setting | case |")
    assert {r[0].strip("`") for r in rows} == set(WITH_RULES)
    for name_cell, sentence, _reading, _setting, case in rows:
        seed = _seed(name_cell.strip("`"))
        for q in QUOTE.findall(sentence):
            assert _verbatim(q, seed), q
        _check_case(case)
    seeds = _all_seeds()
    assert [q for q in QUOTE.findall(text) if not _verbatim(q, seeds)] == []


def test_a_paraphrase_in_curly_quotes_is_caught() -> None:
    seed = "Special Note: Unless otherwise specified, any blast attack has an increment of 1 square and expands as a radius."
    assert _verbatim("Unless otherwise specified, any blast attack has an increment of 1 square", seed)
    assert _verbatim("Special Note: … expands as a radius.", seed)
    assert not _verbatim("unless otherwise specified … an increment of 1 square", seed)  # the page's old paraphrase


@pytest.mark.parametrize("name", WITH_RULES)
def test_the_settings_tables_give_each_default(name: str) -> None:
    # docs/rulesets/README.md lists every setting with its default, as the ruleset declares it.
    text = DOCS.read_text(encoding="utf-8")
    section = text[text.index(f"## `{name}` settings") :]
    section = section[: section.find("\n## ", 5) if "\n## " in section[5:] else len(section)]
    for setting, (default, _why) in rulesets.get(name).settings.items():
        assert f"| `{setting}` | `{default!r}` |" in section, setting
