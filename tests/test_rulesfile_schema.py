"""The rules file's JSON Schema for editors is current, and docs/rules-files.md names every key."""

from __future__ import annotations

import json
import re
import typing
from pathlib import Path

from pydantic import BaseModel

from tabletop.cli import main
from tabletop.rulesfile.reading import _inner
from tabletop.rulesfile.schema import RulesFile, json_schema

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "docs" / "rules-file.schema.json"
DOC = ROOT / "docs" / "rules-files.md"


def test_the_schema_file_is_current() -> None:
    """Regenerate with: tabletop rules schema > docs/rules-file.schema.json"""
    assert json.loads(SCHEMA.read_text(encoding="utf-8")) == json_schema()


def test_the_schema_command_prints_it(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["rules", "schema"]) == 0
    assert json.loads(capsys.readouterr().out) == json_schema()


def _keys(model: type[BaseModel], seen: set[type[BaseModel]]) -> set[str]:
    out: set[str] = set()
    if model in seen:
        return out
    seen.add(model)
    for name, info in model.model_fields.items():
        out.add(info.alias or name)
        inner = _inner(info.annotation)
        for candidate in (inner, *typing.get_args(info.annotation)):
            if isinstance(candidate, type) and issubclass(candidate, BaseModel):
                out |= _keys(candidate, seen)
    return out


def test_the_documentation_names_every_key() -> None:
    text = DOC.read_text(encoding="utf-8")
    missing = sorted(k for k in _keys(RulesFile, set()) if not re.search(rf"(?<![\w-]){re.escape(k)}(?![\w-])", text))
    assert not missing, f"docs/rules-files.md does not mention: {missing}"


def test_the_examples_name_the_schema() -> None:
    for path in (ROOT / "examples" / "rules").glob("*.rules.toml"):
        assert path.read_text(encoding="utf-8").startswith("#:schema ../../docs/rules-file.schema.json"), path.name
