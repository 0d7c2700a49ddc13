"""A new user's rules files, written from docs/rules-files.md alone, and the mistakes such a user makes:
each gets a located message and exit 2 (never a traceback, never a silent wrong answer).

The game here (a mortar: a 5" blast on the target, D6 4+ to hit, a D6 arrow and D6 inches on a miss,
one hit each, a D6 save) was written for these tests, with its own rules text.
"""

from __future__ import annotations

import dataclasses
import shutil
from fractions import Fraction
from pathlib import Path

import pytest

from tabletop import rulesfile, scenario_io
from tabletop.adjudicate import adjudicate
from tabletop.cli import main
from tabletop.odds import compute_odds

MORTAR_TEXT = """Mortar Rules for a club skirmish

Place the 5 inch blast template with its centre over the target model.
Roll a D6 to see if the mortar lands on target: on a 4 or more it is on target.
If the shot misses, roll a D6 for direction: 1 means straight away from the firer’s side, counting clockwise.
Roll another D6: the template moves that many inches in that direction.
Every model with any part of its base under the template takes one hit.
Each model hit may roll a D6 save: it is saved on its Save value or more.
"""

MORTAR = """format = 1
units = "in"

[game]
name = "club-mortar"
title = "Club mortar"

[source]
file = "mortar.txt"
sentences = [
  "Place the 5 inch blast template with its centre over the target model.",
  "Roll a D6 to see if the mortar lands on target: on a 4 or more it is on target.",
  "If the shot misses, roll a D6 for direction: 1 means straight away from the firer's side, counting clockwise.",
  "Roll another D6: the template moves that many inches in that direction.",
  "Every model with any part of its base under the template takes one hit.",
  "Each model hit may roll a D6 save: it is saved on its Save value or more.",
]

[templates]
mortar5 = { kind = "circle", diameter = 5 }

[stats]
Save = { meaning = "the save", default = 7 }

[placement]
on = "target"

[to_hit]
roll = "d6 >= 4"
quote = 2

[scatter]
when = "miss"
direction = { roll = "d6", first = "away", turn = "clockwise" }
distance = { roll = "d6", unit = "in" }
quote = 3

[under]
quote = 5

[effect]
kind = "hits"
amount = "1"
quote = 5

[saves.save]
roll = "d6"
needs = "model.Save"
quote = 6
"""

TABLE = """format = 1
title = "Mortar"
ruleset = "mortar.rules.toml"
units = "in"

[table]
width = 48
depth = 48

[[model]]
id = "mortar"
side = "red"
x = 5
y = 24
base = 1

[[model]]
id = "orc1"
side = "blue"
x = 30
y = 24
base = 1
stats = { Save = 5 }

[[model]]
id = "orc2"
side = "blue"
x = 31.5
y = 24
base = 1
stats = { Save = 5 }

[[model]]
id = "orc3"
side = "blue"
x = 36
y = 24
base = 1

[[template]]
id = "shot"
shape = "mortar5"
impact = { attacker = "mortar", target = "orc1" }
rolls = { to_hit = 2, scatter_direction = 1, scatter_distance = 4, save = [5, 2] }
"""


def _line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), start=1) if needle in line)


def _game(tmp_path: Path, rules: str = MORTAR, table: str = TABLE, text: str | bytes = MORTAR_TEXT) -> Path:
    """The mortar game in ``tmp_path``: its rules file, rules text and table; returns the table."""
    (tmp_path / "mortar.rules.toml").write_text(rules, encoding="utf-8")
    if isinstance(text, bytes):
        (tmp_path / "mortar.txt").write_bytes(text)
    else:
        (tmp_path / "mortar.txt").write_text(text, encoding="utf-8")
    (tmp_path / "table.toml").write_text(table, encoding="utf-8")
    return tmp_path / "table.toml"


def _errors(capsys: pytest.CaptureFixture[str], argv: list[str]) -> list[str]:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "internal error" not in err
    return [line for line in err.splitlines() if line.strip()]


def test_the_game_works_as_written(tmp_path: Path) -> None:
    """Worked by hand: D6 2 < 4 misses; direction 1 is away from the firer (+x), 4": the blast lands at
    (34, 24). Under it (radius 2.5" + base 0.5" = 3" from the centre): orc2 (2.5" away) and orc3 (2");
    orc1 is 4" away. Saves in table order: orc2 rolls 5 against 5 (saved), orc3 2 against 7 (the default)."""
    s = scenario_io.load(_game(tmp_path))
    r = adjudicate(s).results[0].resolution
    assert r.details["impact_point"] == [34, 24]
    assert set(r.affected) == {"orc2", "orc3"}
    assert r.details["final_damage"] == {"orc2": 0, "orc3": 1}


def test_a_curly_apostrophe_in_the_rules_text_matches_a_typed_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The rules text (copied from a PDF) says firer’s; the file types firer's: the same sentence."""
    _game(tmp_path)
    assert main(["rules", "check", str(tmp_path / "mortar.rules.toml")]) == 0
    assert capsys.readouterr().err == ""


def test_every_problem_at_once_unknown_keys_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A misspelt key used to hide every other problem of the file until it was fixed."""
    text = MORTAR.replace('roll = "d6 >= 4"', 'rol = "d6 >= 4"').replace('needs = "model.Save"', 'needs = "model.Sav"')
    _game(tmp_path, text)
    lines = _errors(capsys, ["rules", "check", str(tmp_path / "mortar.rules.toml")])
    assert any(f":{_line_of(text, 'rol = ')}: to_hit.rol: unknown key 'rol'" in line and 'did you mean "roll"' in line for line in lines), lines
    assert any(f":{_line_of(text, 'model.Sav')}: saves.save.needs: model.Sav:" in line and 'did you mean "model.Save"' in line for line in lines), lines


# --------------------------------------------------------------------------- settings


def test_a_setting_whose_default_the_file_contradicts_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """default = 6 while the field says 4: the setting was shown as 6 (and `--set hard=6` was taken as
    "unchanged") while the file's 4 judged. Refused, at the default's line."""
    text = MORTAR + '\n[settings.hard]\nwhy = "How hard it is to hit."\nsets = "to_hit.roll"\ndefault = "d6 >= 5"\n'
    _game(tmp_path, text)
    lines = _errors(capsys, ["rules", "check", str(tmp_path / "mortar.rules.toml")])
    line_no = _line_of(text, 'default = "d6 >= 5"')
    assert any(f":{line_no}: settings.hard.default:" in line and "to_hit.roll is 'd6 >= 4'" in line for line in lines), lines


def test_a_settings_choice_with_impossible_dice_is_refused_when_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every choice is compiled when the file is checked, not first when a table picks it."""
    text = MORTAR + '\n[settings.difficulty]\nwhy = "How hard it is to hit."\nsets = "to_hit.roll"\nvalues = { normal = "d6 >= 4", hard = "d6 >= 9" }\n'
    _game(tmp_path, text)
    lines = _errors(capsys, ["rules", "check", str(tmp_path / "mortar.rules.toml")])
    assert any("settings.difficulty: the value 'hard' makes to_hit.roll invalid" in line and "can never succeed" in line for line in lines), lines
    numbers = MORTAR + '\n[settings.aim]\nwhy = "The roll to hit."\nsets = "to_hit.needs"\nlow = 1\nhigh = 9\n'
    numbers = numbers.replace('roll = "d6 >= 4"', 'roll = "d6"\nneeds = 4')
    _game(tmp_path, numbers)
    lines = _errors(capsys, ["rules", "check", str(tmp_path / "mortar.rules.toml")])
    assert any("settings.aim: the value 9 makes to_hit.needs invalid" in line for line in lines), lines


# --------------------------------------------------------------------------- install


def test_installing_under_a_built_in_name_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A game called "wwpd" was installed and announced, but ruleset = "wwpd" still got the built-in."""
    monkeypatch.setenv("TABLETOP_RULES_DIR", str(tmp_path / "installed"))
    text = MORTAR.replace('name = "club-mortar"', 'name = "wwpd"')
    _game(tmp_path, text)
    lines = _errors(capsys, ["rules", "install", str(tmp_path / "mortar.rules.toml")])
    line_no = _line_of(text, 'name = "wwpd"')
    assert any(f":{line_no}: game.name: 'wwpd' is the name of a built-in ruleset" in line for line in lines), lines
    assert rulesfile.installed() == {}


def test_two_games_with_rules_texts_of_one_name_both_stay_installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Both games call their text rules.txt: installing the second used to overwrite the first's text, and
    the first then failed to load (its sentences no longer in the text)."""
    monkeypatch.setenv("TABLETOP_RULES_DIR", str(tmp_path / "installed"))
    for game, sentence in (("mortar-a", "Roll a D6 to see if the mortar lands on target: on a 4 or more it is on target."), ("mortar-b", "On a 4 or more the shell is on target.")):
        folder = tmp_path / game
        folder.mkdir()
        text = MORTAR_TEXT if game == "mortar-a" else MORTAR_TEXT.replace("Roll a D6 to see if the mortar lands on target: on a 4 or more it is on target.", sentence)
        (folder / "rules.txt").write_text(text, encoding="utf-8")
        rules = MORTAR.replace('name = "club-mortar"', f'name = "{game}"').replace('file = "mortar.txt"', 'file = "rules.txt"')
        rules = rules.replace('"Roll a D6 to see if the mortar lands on target: on a 4 or more it is on target."', f'"{sentence}"')
        (folder / f"{game}.rules.toml").write_text(rules, encoding="utf-8")
        assert main(["rules", "install", str(folder / f"{game}.rules.toml")]) == 0
    assert "replacing" not in capsys.readouterr().out
    assert set(rulesfile.installed()) == {"mortar-a", "mortar-b"}
    for game in ("mortar-a", "mortar-b"):
        assert main(["rules", "check", str(rulesfile.installed()[game])]) == 0, capsys.readouterr().err
    assert main(["rules", "install", str(tmp_path / "mortar-a" / "mortar-a.rules.toml")]) == 0
    assert "replacing the one installed before" in capsys.readouterr().out


def test_install_shows_the_files_warnings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("TABLETOP_RULES_DIR", str(tmp_path / "installed"))
    _game(tmp_path, MORTAR.replace('file = "mortar.txt"', 'file = "lost.txt"'))
    assert main(["rules", "install", str(tmp_path / "mortar.rules.toml")]) == 0
    assert "warning: source.file: 'lost.txt' not found" in capsys.readouterr().err


# --------------------------------------------------------------------------- the rules text


def test_a_rules_text_that_is_not_text_is_named_as_such(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A PDF, or a text saved as Windows-1252, gave six "sentence N is not (verbatim) in" lines."""
    _game(tmp_path, text=b"%PDF-1.4\n\x00\x01 stream")
    lines = _errors(capsys, ["rules", "check", str(tmp_path / "mortar.rules.toml")])
    assert len(lines) == 1 and "source.file: 'mortar.txt' is not plain text" in lines[0], lines
    _game(tmp_path, text=MORTAR_TEXT.encode("cp1252"))
    lines = _errors(capsys, ["rules", "check", str(tmp_path / "mortar.rules.toml")])
    assert len(lines) == 1 and "source.file: 'mortar.txt' is not UTF-8 text (byte 0x92" in lines[0], lines


def test_a_sentence_not_in_the_text_names_the_nearest_passage(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = MORTAR.replace('"Place the 5 inch blast', '"Place the 3 inch blast')
    _game(tmp_path, text)
    lines = _errors(capsys, ["rules", "check", str(tmp_path / "mortar.rules.toml")])
    assert any("sentence 1 is not (verbatim) in mortar.txt; the nearest in it is 'Place the 5 inch blast template" in line for line in lines), lines


# --------------------------------------------------------------------------- numbers


def test_a_non_finite_default_and_a_negative_amount_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A NaN default made every save "needs nan: fails"; -3 made "suffers -3, final -3"."""
    text = MORTAR.replace("default = 7 }", "default = nan }")
    _game(tmp_path, text)
    lines = _errors(capsys, ["rules", "check", str(tmp_path / "mortar.rules.toml")])
    assert any(f":{_line_of(text, 'default = nan')}: stats.Save.default:" in line and "finite" in line for line in lines), lines
    text = MORTAR.replace('amount = "1"', 'amount = "-3"')
    _game(tmp_path, text)
    lines = _errors(capsys, ["rules", "check", str(tmp_path / "mortar.rules.toml")])
    assert any(f":{_line_of(text, 'amount = ')}: effect.amount: '-3' is less than nothing" in line for line in lines), lines


def test_an_amount_below_nothing_on_the_table_is_nothing(tmp_path: Path) -> None:
    """amount = 4 - Save: orc2 (Save 5) would suffer -1 ("suffers -1, final -1" before); it suffers 0.
    orc3 (Save 7 by default) likewise 0."""
    s = scenario_io.load(_game(tmp_path, MORTAR.replace('amount = "1"', 'amount = "4 - model.Save"')))
    r = adjudicate(s).results[0].resolution
    assert r.details["damage"] == {"orc2": 0, "orc3": 0}


def test_an_expression_that_fails_on_the_table_is_a_located_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Save // (Save - 5) divides by zero for a model with Save 5: it was "internal error: ZeroDivisionError"."""
    text = MORTAR.replace('amount = "1"', 'amount = "model.Save // (model.Save - 5)"')
    table = _game(tmp_path, text)
    for argv in (["check", str(table)], ["odds", str(table)], ["explain", str(table)]):
        (line,) = _errors(capsys, argv)
        assert f"mortar.rules.toml:{_line_of(text, 'amount = ')}: effect.amount: 'model.Save // (model.Save - 5)' cannot be worked out for 'orc" in line, line
        assert "division by zero" in line


def test_in_cover_read_where_no_cover_grants_a_save_is_warned(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = MORTAR.replace('needs = "model.Save"', 'needs = "model.Save"\nmodifiers = [{ if = "in_cover", add = 1 }]')
    _game(tmp_path, text)
    assert main(["rules", "check", str(tmp_path / "mortar.rules.toml")]) == 0
    assert "warning: saves.save.modifiers[0].if: reads in_cover, but no [[cover]] grants a save" in capsys.readouterr().err


def test_a_rules_file_too_big_says_its_limit_in_kilobytes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _game(tmp_path, MORTAR + "#" * (300 * 1024) + "\n")
    (line,) = _errors(capsys, ["rules", "check", str(tmp_path / "mortar.rules.toml")])
    assert "the limit is 256 KB" in line, line


# --------------------------------------------------------------------------- a miss with nothing to scatter it

LANCE = """format = 1
units = "in"

[game]
name = "lance"
title = "Lance"

[source]
cite = "A club's lance rule"
sentences = ["Roll a D20 and add the firer's Skill; the lance fires if the total beats the target's Defence."]

[templates]
lance = { kind = "rect", length = 10, width = 1 }

[stats]
Skill = { meaning = "added to hit" }
Defence = { meaning = "to beat", default = 10 }

[placement]
on = "firer_edge"
orient = "line_of_fire"

[to_hit]
roll = "d20 + attacker.Skill >= target.Defence"
modifiers = [{ if = "range > 8in", add = -2 }]
quote = 1

[under]
counts = "centre"

[effect]
kind = "damage"
amount = 2
unit = "dmg"
"""

LANCE_TABLE = """format = 1
ruleset = "lance.rules.toml"
units = "in"

[table]
width = 24
depth = 24

[[model]]
id = "knight"
side = "a"
x = 2
y = 12
base = 1
stats = { Skill = 3 }

[[model]]
id = "m1"
side = "b"
x = 5
y = 12
base = 1

[[model]]
id = "m3"
side = "b"
x = 12.4
y = 12
base = 1
stats = { Defence = 12 }

[[template]]
id = "lance"
shape = "lance"
impact = { attacker = "knight", target = "m3" }
rolls = { to_hit = 2 }
"""


def _lance(tmp_path: Path, rules: str = LANCE) -> Path:
    (tmp_path / "lance.rules.toml").write_text(rules, encoding="utf-8")
    (tmp_path / "lance.toml").write_text(LANCE_TABLE, encoding="utf-8")
    return tmp_path / "lance.toml"


def test_a_miss_with_nothing_to_scatter_it_harms_no_one(tmp_path: Path) -> None:
    """D20 2 + Skill 3 - 2 (m3 is 9.4" away, edge to edge: more than 8") = 3 against Defence 12: a miss.
    There is no [scatter]: the lance lands nowhere. It used to hit m1 and m3 for 2 each all the same.
    A roll of 11: 11 + 3 - 2 = 12 hits; m1 and m3 have their centres under the 10" x 1" line."""
    s = scenario_io.load(_lance(tmp_path))
    r = adjudicate(s).results[0].resolution
    assert r.details["to_hit"] == {"roll": 2, "total": 3, "needs": 12, "hit": False}
    assert r.affected == () and r.details["damage"] == {}
    assert any("Missed" in step.text for step in r.steps)
    s11 = dataclasses.replace(s, templates=(dataclasses.replace(s.templates[0], rolls={"to_hit": 11}),))
    r11 = adjudicate(s11).results[0].resolution
    assert set(r11.affected) == {"m1", "m3"} and r11.details["damage"] == {"m1": 2, "m3": 2}


def test_the_odds_of_a_miss_with_nothing_to_scatter_it(tmp_path: Path) -> None:
    """Hit on D20 + 3 - 2 >= 12, i.e. D20 >= 11: exactly 1/2 (it was 100 %), by enumeration and by the batch path."""
    s = scenario_io.load(_lance(tmp_path))
    exact = compute_odds(s, keep_fixed_rolls=False).templates[0]
    assert exact.exact
    assert exact.models["m1"].fraction == Fraction(1, 2) and exact.models["m3"].fraction == Fraction(1, 2)
    assert exact.models["m1"].expected_damage == pytest.approx(1.0)
    sampled = compute_odds(s, keep_fixed_rolls=False, samples=4000, exact_limit=0).templates[0]  # batch path, checked against resolve
    assert not sampled.exact
    assert abs(sampled.models["m1"].p_affected - 0.5) < 0.05


def test_a_miss_may_still_land_when_the_file_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    s = scenario_io.load(_lance(tmp_path, LANCE.replace('quote = 1\n', 'quote = 1\nmiss = "lands"\n', 1)))
    r = adjudicate(s).results[0].resolution
    assert set(r.affected) == {"m1", "m3"}
    text = MORTAR.replace("quote = 2\n", 'quote = 2\nmiss = "lands"\n', 1)
    _game(tmp_path, text)
    lines = _errors(capsys, ["rules", "check", str(tmp_path / "mortar.rules.toml")])
    assert any(f":{_line_of(text, 'miss = ')}: to_hit.miss: a miss scatters" in line for line in lines), lines


# --------------------------------------------------------------------------- saving a table


def test_a_shape_of_a_rules_file_no_longer_used_is_saved_in_full(tmp_path: Path) -> None:
    """The table left the mortar's rules for WWPD: its template "mortar5" was saved by name, and the file
    then could not be opened ("no template named 'mortar5'"). Under the mortar's rules the name stays."""
    s = scenario_io.load(_game(tmp_path))
    scenario_io.save(s, tmp_path / "same.toml")
    assert 'shape = "mortar5"' in (tmp_path / "same.toml").read_text(encoding="utf-8")
    moved = dataclasses.replace(s, ruleset="wwpd")
    scenario_io.save(moved, tmp_path / "moved.toml")
    again = scenario_io.load(tmp_path / "moved.toml")
    assert again.templates[0].shape == s.templates[0].shape
    assert "mortar5" not in (tmp_path / "moved.toml").read_text(encoding="utf-8")


def test_the_app_mends_a_table_put_under_a_rules_file_one_field_at_a_time(tmp_path: Path) -> None:
    """Under a rules file whose stats the table's models lack, every typed edit was refused (each left
    the table with the other problem), even a model's name: the table could not be mended in the app."""
    from tabletop.app.commands import EditModel, SetRuleset
    from tabletop.app.pilot import Pilot

    two = LANCE.replace('Defence = { meaning = "to beat", default = 10 }', 'Defence = { meaning = "to beat" }')
    table = _lance(tmp_path, two)
    bare = LANCE_TABLE.replace("stats = { Skill = 3 }\n", "").replace("stats = { Defence = 12 }\n", "").replace('ruleset = "lance.rules.toml"', 'ruleset = "wwpd"')
    bare = bare.replace('shape = "lance"', 'shape = "small_blast"')
    table.write_text(bare, encoding="utf-8")
    p = Pilot(table)
    try:
        assert p.app.dispatch(SetRuleset(rulesfile.ruleset_for(tmp_path / "lance.rules.toml").name))
        assert p.app.dispatch(EditModel("m1", {"name": "Squire"}), validate=True), p.app.message
        assert p.app.dispatch(EditModel("knight", {"stats": {"Skill": 3}}), validate=True), p.app.message
        assert p.app.dispatch(EditModel("m3", {"stats": {"Defence": 12}}), validate=True), p.app.message
        assert not p.app.dispatch(EditModel("m3", {"stats": {}}), validate=True)  # a new problem is still refused
        assert "has no stat 'Defence'" in p.app.message
        assert "lance" in p.app.catalogue  # the rules file's own template, for New template and the inspector
    finally:
        p.close()


def test_a_file_copied_by_hand_into_the_rules_folder_still_counts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TABLETOP_RULES_DIR", str(tmp_path / "installed"))
    (tmp_path / "installed").mkdir()
    _game(tmp_path)
    shutil.copyfile(tmp_path / "mortar.rules.toml", tmp_path / "installed" / "club-mortar.rules.toml")
    assert set(rulesfile.installed()) == {"club-mortar"}
