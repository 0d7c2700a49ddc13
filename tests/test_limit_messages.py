"""A limit is said once, in the file's words (a hostile review found 10,000 and 5,000 for the same list)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tabletop.scenario_io import MAX_MODELS, ScenarioError, load


def test_too_many_models_names_the_real_limit(tmp_path: Path) -> None:
    lines = ["format = 1", "[table]", "width = 48", "depth = 48"]
    lines += [f'[[model]]\nid = "m{i}"\nx = 1\ny = 1\nbase = 1' for i in range(MAX_MODELS + 1)]
    path = tmp_path / "many.toml"
    path.write_text("\n".join(lines))
    with pytest.raises(ScenarioError) as err:
        load(path)
    text = str(err.value)
    assert f"at most {MAX_MODELS:,} [[model]] tables, got {MAX_MODELS + 1:,}" in text
    assert "List should have" not in text


@pytest.mark.parametrize("xdg", [None, "", "/x/y", "  /z ", "rel/p"])
def test_the_user_catalogue_lives_where_platformdirs_says(xdg: str | None, monkeypatch: pytest.MonkeyPatch) -> None:
    """`check` looks the folder up without importing platformdirs; it must agree with it."""
    import platformdirs

    from tabletop.catalogue import user_catalogue_path

    if xdg is None:
        monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_CONFIG_HOME", xdg)
    assert user_catalogue_path() == Path(platformdirs.user_config_dir("tabletop")) / "templates.toml"
