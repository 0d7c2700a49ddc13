"""A rules file with a mistake is refused with the file, the line, the field and a did-you-mean (exit 2),
never a traceback: unknown keys, impossible dice, stats no model has, contradictions, bad quotes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tabletop import rulesfile
from tabletop.cli import main

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "rules"
GOOD = (EXAMPLES / "club-blast.rules.toml").read_text(encoding="utf-8")
SCENARIO = (EXAMPLES / "club-blast.toml").read_text(encoding="utf-8")


def _line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), start=1) if needle in line)


def _write(tmp_path: Path, text: str, name: str = "house.rules.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    (tmp_path / "club-blast.txt").write_text((EXAMPLES / "club-blast.txt").read_text(encoding="utf-8"), encoding="utf-8")
    return path


def _errors(capsys: pytest.CaptureFixture[str], argv: list[str]) -> list[str]:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return [line for line in err.splitlines() if line.strip()]


def test_the_good_file_is_clean(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "check", str(_write(tmp_path, GOOD))]) == 0
    assert capsys.readouterr().err == ""


def test_unknown_key_named_with_its_line_and_nearest_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = GOOD.replace('roll = "2d6 + attacker.Aim >= 8"', 'rol = "2d6 + attacker.Aim >= 8"').replace("[under]", "[undr]")
    path = _write(tmp_path, text)
    lines = _errors(capsys, ["rules", "check", str(path)])
    assert f"{path}:{_line_of(text, 'rol = ')}: to_hit.rol: unknown key 'rol' in to_hit (did you mean \"roll\"?)" in lines[0] or any(
        f"{path}:{_line_of(text, 'rol = ')}: to_hit.rol: unknown key 'rol'" in line and 'did you mean "roll"' in line for line in lines
    )
    assert any(f":{_line_of(text, '[undr]')}: undr: unknown key 'undr'" in line and 'did you mean "under"' in line for line in lines)
    assert not any("required" in line for line in lines)  # the misspelt key is not also reported missing


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('roll = "2d6 + attacker.Aim >= 8"', 'roll = "2d0 + attacker.Aim >= 8"', "2d0: a die has between 2 and 1000 sides"),
        ('roll = "2d6 + attacker.Aim >= 8"', 'roll = "30d6 + attacker.Aim >= 8"', "30d6: between 1 and 20 dice"),
        ('roll = "2d6 + attacker.Aim >= 8"', 'roll = "2d6 >= 13"', "'2d6 >= 13' can never succeed: 2D6 shows at most 12 against 13"),
        ("hit = [1, 2]", "hit = [1, 7]", "a D6 has no face 7"),
        ("hit = [1, 2]", "hit = [1, 2, 3, 4, 5, 6]", "every face shows HIT: the template can never scatter"),
        ('partial = { roll = "d6", needs = 4, quote = 7 }', 'partial = { roll = "d6", needs = 7, quote = 7 }', "'d6' can never succeed: D6 shows at most 6 against 7"),
        ('direction = { roll = "d12"', 'direction = { roll = "2d6"', "a direction is read off one die's faces, not 2D6"),
        ('roll = "2d6 + attacker.Aim >= 8"', 'roll = "attacker.Aim >= 8"', "rolls no dice"),
        ('roll = "2d6 + attacker.Aim >= 8"', 'roll = "d6 + d6 + attacker.Aim >= 8"', "one dice term per roll"),
    ],
)
def test_impossible_dice(tmp_path: Path, capsys: pytest.CaptureFixture[str], old: str, new: str, message: str) -> None:
    assert old in GOOD
    text = GOOD.replace(old, new)
    path = _write(tmp_path, text)
    lines = _errors(capsys, ["rules", "check", str(path)])
    line = _line_of(text, new)
    assert any(line_text.startswith(f"{path}:{line}:") and message in line_text for line_text in lines), lines


def test_a_stat_the_file_does_not_declare(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = GOOD.replace('needs = "model.Armour"', 'needs = "model.Armor"')
    path = _write(tmp_path, text)
    lines = _errors(capsys, ["rules", "check", str(path)])
    assert any(f":{_line_of(text, 'model.Armor')}: saves.armour.needs: model.Armor: stat 'Armor' is not declared under [stats]" in line and 'did you mean "model.Armour"' in line for line in lines), lines


def test_a_stat_no_model_has(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The rules read the firer's Aim; the scenario's models carry AIM: located in both files."""
    rules = _write(tmp_path, GOOD, "club-blast.rules.toml")
    scenario = tmp_path / "table.toml"
    text = SCENARIO.replace("Aim = 3", "AIM = 3")
    scenario.write_text(text, encoding="utf-8")
    lines = _errors(capsys, ["check", str(scenario)])
    want = f"{scenario}:{_line_of(text, 'impact = ')}: template[0].impact.attacker: attacker 'gunner' has no stat 'Aim', which the rules read (club-blast.rules.toml:{_line_of(GOOD, 'attacker.Aim >= 8')})"
    assert any(line.startswith(want) and 'did you mean "AIM"?' in line for line in lines), lines
    # A model stat without a default that no model on the table has at all:
    no_default = GOOD.replace('Armour = { meaning = "the save: a D6 of this or more", default = 7 }', 'Armour = { meaning = "the save: a D6 of this or more" }')
    rules.write_text(no_default, encoding="utf-8")
    scenario.write_text(SCENARIO.replace("Armour = ", "Armor = "), encoding="utf-8")
    lines = _errors(capsys, ["check", str(scenario)])
    assert any("no model on this table has stat 'Armour'" in line and 'did you mean "Armor"?' in line and "club-blast.rules.toml:" in line for line in lines), lines
    assert main(["rules", "check", str(rules), "--scenario", str(scenario)]) == 2


@pytest.mark.parametrize(
    ("edit", "where", "message"),
    [
        (lambda t: t[: t.index("[to_hit]")] + t[t.index("[scatter]"):], "when = \"miss\"", "scatter on a miss, but nothing is rolled to hit"),
        (lambda t: t.replace('rule = "allowed"', 'rule = "allowed"\nexempt = "heroic"'), "exempt = ", "friendly fire is allowed: there is nothing to be exempt from"),
        (lambda t: t.replace("[[cover]]", "[battery]\n\n[[cover]]"), "[battery]", "a battery is laid as a T, and [scatter] moves one template"),
        (lambda t: t.replace('counts = "any"', 'counts = "fraction"\nfraction = 1.0'), "partial = ", "with fraction = 1 only wholly covered bases count"),
        (lambda t: t.replace('roll = "2d6 + attacker.Aim >= 8"', 'roll = "2d6 + attacker.Aim >= 8"\nneeds = 8'), "needs = 8", "already says what it needs"),
        (lambda t: t.replace('on = "target"', 'on = "range"'), 'on = "range"', "needs a distance"),
    ],
)
def test_contradictions(tmp_path: Path, capsys: pytest.CaptureFixture[str], edit, where: str, message: str) -> None:  # type: ignore[no-untyped-def]
    text = edit(GOOD)
    path = _write(tmp_path, text)
    lines = _errors(capsys, ["rules", "check", str(path)])
    assert any(message in line for line in lines), lines
    located = [line for line in lines if message in line][0]
    assert re.match(rf"{re.escape(str(path))}:\d+: ", located), located


def test_quotes_must_come_from_the_sentences(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = GOOD.replace("quote = 9", 'quote = "A model may save on a D6."').replace("quote = 3", "quote = 30")
    path = _write(tmp_path, text)
    lines = _errors(capsys, ["rules", "check", str(path)])
    assert any(f":{_line_of(text, 'A model may save on a D6.')}: saves.armour.quote: this quote is not (verbatim) in source.sentences" in line for line in lines), lines
    assert any("sentence 30: source.sentences has 11" in line for line in lines), lines
    # ... and the sentences must be in the rules text the file names.
    text = GOOD.replace('"Every model wholly under the template is hit."', '"Every model wholly under the template is hit hard."')
    lines = _errors(capsys, ["rules", "check", str(_write(tmp_path, text))])
    assert any("sentence 6 is not (verbatim) in club-blast.txt" in line for line in lines), lines


def test_all_problems_at_once_and_toml_syntax(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = GOOD.replace("hit = [1, 2]", "hit = [9]").replace('needs = "model.Armour"', 'needs = "model.Armr"')
    lines = _errors(capsys, ["rules", "check", str(_write(tmp_path, text))])
    assert len(lines) >= 2
    lines = _errors(capsys, ["rules", "check", str(_write(tmp_path, GOOD.replace("[game]", "[game")))])
    assert "TOML syntax" in lines[0] and re.search(r"house\.rules\.toml:\d+:", lines[0])


def test_a_scenario_naming_a_broken_rules_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _write(tmp_path, GOOD.replace("hit = [1, 2]", "hit = [7]"), "club-blast.rules.toml")
    scenario = tmp_path / "table.toml"
    scenario.write_text(SCENARIO, encoding="utf-8")
    lines = _errors(capsys, ["check", str(scenario)])
    assert "club-blast.rules.toml:" in lines[0] and "a D6 has no face 7" in lines[0]
    assert lines[-1].startswith(f"{scenario}:{_line_of(SCENARIO, 'ruleset = ')}: ruleset: rules file 'club-blast.rules.toml' has 1 problem(s)")
    scenario.write_text(SCENARIO.replace("club-blast.rules.toml", "nowhere.rules.toml"), encoding="utf-8")
    lines = _errors(capsys, ["check", str(scenario)])
    assert "rules file 'nowhere.rules.toml' not found" in lines[0]


def test_errors_are_rules_file_errors_in_the_api(tmp_path: Path) -> None:
    with pytest.raises(rulesfile.RulesFileError) as info:
        rulesfile.load(_write(tmp_path, GOOD.replace("hit = [1, 2]", "hit = [7]")))
    assert info.value.problems[0].line == _line_of(GOOD, "hit = [1, 2]")
