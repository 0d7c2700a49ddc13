"""The README's sample commands print what the README shows (so the samples cannot drift)."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys

import pytest

from .conftest import ROOT

README = ROOT / "README.md"
# A fenced block whose first line is "$ tabletop ...": the command, then its output.
_SAMPLE = re.compile(r"^```[a-z]*\n\$ (tabletop [^\n]*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)
# Links into the repository (not http, not an anchor on the same page).
_LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def _samples() -> list[tuple[str, str]]:
    return _SAMPLE.findall(README.read_text(encoding="utf-8"))


def _normal(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip("\n").split("\n"))


def test_the_readme_has_samples() -> None:
    assert [command for command, _ in _samples()] == ["tabletop check scenarios/default.toml"]


@pytest.mark.parametrize(("command", "shown"), _samples())
def test_a_readme_sample_prints_what_the_readme_shows(command: str, shown: str) -> None:
    argv = shlex.split(command)[1:]
    env = {**os.environ, "PYTHONIOENCODING": "utf-8", "COLUMNS": "200"}
    # The installed `tabletop` script is tabletop.cli:main; run that in a fresh process.
    program = "import sys; from tabletop.cli import main; sys.exit(main(sys.argv[1:]))"
    run = subprocess.run([sys.executable, "-c", program, *argv], cwd=ROOT, capture_output=True, text=True, encoding="utf-8", env=env, timeout=120)
    assert run.returncode == 0, run.stderr
    assert _normal(run.stdout) == _normal(shown)


def test_the_readme_links_stay_inside_the_repository() -> None:
    for target in _LINK.findall(README.read_text(encoding="utf-8")):
        if "://" in target or target.startswith("mailto:"):
            continue
        path = (ROOT / target).resolve()
        assert path.is_relative_to(ROOT.resolve()), f"{target} points outside the repository"
        assert path.exists(), f"{target} does not exist"
