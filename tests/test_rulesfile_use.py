"""Using a rules file: named by a scenario relative to itself (and saved back so), installed by name,
listed with the rulesets, recompiled when it changes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tabletop import rulesets, rulesfile, scenario_io
from tabletop.adjudicate import adjudicate
from tabletop.cli import main

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "rules"


def _copy_example(folder: Path, name: str = "club-blast") -> Path:
    for suffix in (".rules.toml", ".txt", ".toml"):
        shutil.copyfile(EXAMPLES / f"{name}{suffix}", folder / f"{name}{suffix}")
    return folder / f"{name}.toml"


def test_a_scenario_saved_elsewhere_names_its_rules_file_relative_to_itself(tmp_path: Path) -> None:
    (tmp_path / "rules").mkdir()
    (tmp_path / "tables" / "deep").mkdir(parents=True)
    table = _copy_example(tmp_path / "rules")
    s = scenario_io.load(table)
    assert s.ruleset == rulesfile.key_for(tmp_path / "rules" / "club-blast.rules.toml")
    out = tmp_path / "tables" / "deep" / "copy.toml"
    scenario_io.save(s, out)
    assert 'ruleset = "../../rules/club-blast.rules.toml"' in out.read_text(encoding="utf-8")
    again = scenario_io.load(out)
    assert again.ruleset == s.ruleset
    assert adjudicate(again).results[0].resolution.details == adjudicate(s).results[0].resolution.details


def test_installed_by_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("TABLETOP_RULES_DIR", str(tmp_path / "installed"))
    table = _copy_example(tmp_path)
    assert main(["rules", "install", str(tmp_path / "club-blast.rules.toml")]) == 0
    assert "installed" in capsys.readouterr().out
    assert (tmp_path / "installed" / "club-blast" / "club-blast.rules.toml").is_file()  # each game in a folder of its own
    assert (tmp_path / "installed" / "club-blast" / "club-blast.txt").is_file()  # the rules text goes with it
    assert main(["rules", "list"]) == 0
    assert "club-blast" in capsys.readouterr().out
    assert "club-blast" in rulesets.names() and rulesets.is_registered("club-blast")
    by_name = table.with_name("by-name.toml")
    by_name.write_text(table.read_text(encoding="utf-8").replace('ruleset = "club-blast.rules.toml"', 'ruleset = "club-blast"'), encoding="utf-8")
    assert main(["check", "--json", str(by_name)]) == 0
    assert '"ruleset": "club-blast"' in capsys.readouterr().out
    assert rulesets.get("club-blast").title.startswith("Club blast")
    # A name close to an installed one gets a did-you-mean.
    by_name.write_text(by_name.read_text(encoding="utf-8").replace('ruleset = "club-blast"', 'ruleset = "club-blat"'), encoding="utf-8")
    assert main(["check", str(by_name)]) == 2
    assert 'did you mean "club-blast"' in capsys.readouterr().err


def test_a_changed_file_is_compiled_again(tmp_path: Path) -> None:
    table = _copy_example(tmp_path)
    before = adjudicate(scenario_io.load(table)).results[0].resolution.details["damage"]
    rules = tmp_path / "club-blast.rules.toml"
    rules.write_text(rules.read_text(encoding="utf-8").replace('amount = "weapon.damage"', 'amount = "weapon.damage * 2"'), encoding="utf-8")
    import os

    os.utime(rules, ns=(1, 10**18))  # a new modification time, whatever the clock's resolution
    after = adjudicate(scenario_io.load(table)).results[0].resolution.details["damage"]
    assert after == {k: 2 * v for k, v in before.items()}


def test_settings_listed_and_checked_like_a_built_in(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = _copy_example(tmp_path)
    assert main(["check", str(table), "--set", "partials=1"]) == 0
    capsys.readouterr()
    assert main(["check", str(table), "--set", "partials=9"]) == 2
    assert "partials" in capsys.readouterr().err
    assert main(["check", str(table), "--set", "partial=1"]) == 2
    assert "did you mean 'partials'" in capsys.readouterr().err
