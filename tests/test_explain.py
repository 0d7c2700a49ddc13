"""``tabletop explain``: the steps as text or Markdown, with rules, seed quotes and who is affected."""

from __future__ import annotations

import re

import argparse
import subprocess
import sys

import pytest

from tabletop.share_cli import add_explain_parser, explain_main

from .conftest import ROOT, SCENARIOS


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    parser = argparse.ArgumentParser()
    add_explain_parser(parser.add_subparsers(dest="command"))
    assert explain_main(parser.parse_args(["explain", *argv])) == 0
    return capsys.readouterr().out


MARKDOWN = {
    "infinity-hellcat-split": [
        "# Infinity: split Burst, the second shot nullified by an Alguacil",
        "## Template `shot2` (infinity_small_teardrop)",
        "2. In the area of effect (base touching or under the template, seen from the Blast Focus): Fusilier 2 (fus2), Alguacil (alguacil).",
        "3. Not allowed: shot nullified: Alguacil (alguacil) is a friendly trooper in the area of effect.",
        "   *Rule: Friendly and Neutral troopers: the shot is null*",
        "4. Fusilier 3: dodge PH-3 (no line of fire to the attacker: blocked by Fusilier 1 (fus1) \\[contested: blockers 1 mm smaller would show it; a judge's call\\]); cannot shoot back.",
        "   > “If the trooper affected by the Template Weapon does not have LoF to the attacker.”",
        "**Result:** shot1: 2 affected: Fusilier 1 (fus1), Fusilier 3 (fus3)",
        "| Model | Status | Margin | Why |",
        "| Alguacil (alguacil) | under it (attack not allowed) | +29.9 mm | — |",
    ],
    "robotech-scatter": [
        "1. Blast: Strike 2 + GN 1 = 3 against DF 5: miss",
        "2. The Blast scatters: direction 2, 6\"; new Strike 4 + 1 = 5",
        "   *Rule: Scatter: D6 direction, 2D6 inches, new Strike D6+1*",
        "   > “Roll a D6 to determine which direction the template will scatter, as per the numbers indicated on the top of the template.”",
        "| Battlepod (pod3) | affected | +77.6 mm | damage 5; final damage 5; df 3 |",
    ],
    "wwpd-friendly-fire": [
        "6. friendly model(s) r1 covered: unit mortars takes a Leadership test",
        "   *Rule: Friendly fire: Leadership test*",
        "   > “If the template covers friendly models, then the firing unit must immediately roll Leadership.”",
        "**Result:** stonk: 3 affected: e1, r1, tank",
        "| r1 | affected | +25.4 mm | templates 1; unit assault |",
    ],
    "increments-wall": [
        "3. wall Damage save 10 (+0) vs 4: holds",
        "   *Rule: Cover stops the blast unless its Damage save fails*",
        "   > “Blast never turns or bends, and only proceeds through cover when the cover fails its Damage save.”",
    ],
    "catastrophic-chain": [
        "6. Chain reaction, link 2: bomber, caught by scout's explosion (a Critical Hit of critical damage 5 >= twice 2 damage tracks), explodes: RAV 3, AOE/3 (+1: Martyr explosives)",
        "   *Rule: Chain reaction: a Martyr destroyed by another Model's explosion, +1*",
        "8. tank, caught by bomber's explosion, does not explode: critical damage 5 \\< 6",
        "**Result:** boom: 4 affected: bomber, scout, tank, troopers",
        # bomber's AOE/3 reaches 3" = 76.2 mm from its centre (15, 24); tank's 40 mm base at 18.5": its near
        # edge 88.9 - 20 = 68.9 mm away, so 76.2 - 68.9 = +7.3 mm into it (the explosion that catches it).
        "| tank | affected | +7.3 mm | caught by bomber |",
    ],
    "default": [
        "*Ruleset: Geometry only (none) · seed 1*",
        "*(no ruleset steps: geometry only)*",
        "| Contested (edge) | affected | +0.4 mm (contested) | — |",
        "| Behind the wall (b2) | total cover | +22.9 mm | — |",
    ],
}


@pytest.mark.parametrize("name", sorted(MARKDOWN))
def test_markdown_lines(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    out = _run(capsys, str(SCENARIOS / f"{name}.toml"), "--markdown").splitlines()
    for line in MARKDOWN[name]:
        assert line in out, f"missing from {name}: {line!r}"


def test_plain_text_lines(capsys: pytest.CaptureFixture[str]) -> None:
    out = _run(capsys, str(SCENARIOS / "robotech-volley.toml")).splitlines()
    for line in [
        "Template volley (robotech_blast)",
        "  13. Battlepod (target) (pod1) is hit by 4 missiles of the volley (1, 2, 3, 4): Inescapable",
        "     Rule: Inescapable: 4 missiles of one volley hit it (rule text)",
        "     “If 4 missiles from the same volley hit any given mecha, they are considered Inescapable for that mecha, and thus can’t be Dodged by it.”",
    ]:
        assert line in out
    assert not any(line.startswith("|") or line.startswith("#") for line in out)  # plain, not Markdown


def _unescape_markdown(line: str) -> str:
    """What a Markdown viewer shows for a line of plain text with backslash escapes."""
    return re.sub(r"\\([!-/:-@[-`{-~])", r"\1", line)


def test_markdown_shows_names_literally(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    """Names full of Markdown (emphasis, links, HTML, a pipe, a backtick) come out as the same text, not markup."""
    source = (SCENARIOS / "default.toml").read_text(encoding="utf-8")
    hostile = "*Boss* [x](http://e.vil) <b>|`_y_`"
    source = re.sub(r'(?m)^title = ".*"$', f'title = "{hostile}"', source, count=1)
    path = tmp_path / "hostile.toml"
    path.write_text(source, encoding="utf-8")
    out = _run(capsys, str(path), "--markdown").splitlines()
    assert out[0] == "# \\*Boss\\* \\[x\\](http://e.vil) \\<b>\\|\\`\\_y\\_\\`"
    assert _unescape_markdown(out[0]) == f"# {hostile}"


def test_every_step_appears_once_per_template(capsys: pytest.CaptureFixture[str]) -> None:
    from tabletop.adjudicate import adjudicate
    from tabletop.scenario_io import load

    for path in sorted(SCENARIOS.glob("*.toml")):
        adj = adjudicate(load(path))
        out = _run(capsys, str(path), "--markdown")
        rendered = [_unescape_markdown(line) for line in out.splitlines()]
        for r in adj.results:
            for k, step in enumerate(r.resolution.steps, 1):
                assert f"{k}. {step.text}" in rendered


def test_writes_a_file(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "ruling.md"
    _run(capsys, str(SCENARIOS / "wwpd-battery-t.toml"), "--markdown", "-o", str(out))
    assert out.read_text(encoding="utf-8").startswith("# ")


def test_explain_never_imports_pygame() -> None:
    code = (
        "import sys, argparse; from tabletop.share_cli import add_explain_parser, explain_main; "
        "p = argparse.ArgumentParser(); add_explain_parser(p.add_subparsers()); "
        f"explain_main(p.parse_args(['explain', {str(SCENARIOS / 'infinity-hellcat.toml')!r}])); "
        "assert 'pygame' not in sys.modules, 'pygame imported'"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_a_tangent_base_shows_a_margin_of_plus_zero(capsys: pytest.CaptureFixture[str]) -> None:
    # tests/rulings/wwpd-tangent.toml: m is 50.6 mm from the 38.1 mm template's centre with a 12.5 mm base:
    # its computed margin is -3e-14 mm, which is 0.0 to a tenth, never "-0.0".
    out = _run(capsys, str(ROOT / "tests" / "rulings" / "wwpd-tangent.toml"), "--markdown")
    assert "| m | outside | +0.0 mm (contested) | templates 0; unit squad; contested templates shell |" in out.splitlines()
    assert "-0.0 mm" not in out


def test_each_step_shows_the_rule_it_names(capsys: pytest.CaptureFixture[str]) -> None:
    # robotech-hit: the officer (DF 6) beats the Strike 5: its step quotes the NO DAMAGE sentence, not the half-damage one.
    out = _run(capsys, str(SCENARIOS / "robotech-hit.toml")).splitlines()
    k = out.index("  4. Blast (Strike 5): Officer's Pod (officer) (DF 6) takes NO DAMAGE: its DF is higher than the Strike")
    assert out[k + 1 : k + 3] == [
        "     Rule: DF above the Strike: NO DAMAGE",
        "     “Any mecha or structure which has a DF attribute higher than the roll to Strike takes NO DAMAGE.”",
    ]
