"""The app's Export dialog writes PNG, SVG, an animated GIF or the Markdown ruling, by extension."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pygame
import pygame_gui
import pytest
from PIL import Image
from pygame_gui.windows import UIFileDialog

from tabletop.app.pilot import Pilot

from .conftest import SCENARIOS


@pytest.mark.parametrize("suffix", [".png", ".svg", ".gif", ".md"])
def test_export_dialog_writes_each_format(suffix: str, tmp_path: Path) -> None:
    pilot = Pilot(SCENARIOS / "robotech-scatter.toml")
    try:
        pilot.key(pygame.K_e, mod=pygame.KMOD_LCTRL)
        dialogs = [d for d in pilot.app._dialogs if isinstance(d, UIFileDialog)]
        assert len(dialogs) == 1
        out = tmp_path / f"ruling{suffix}"
        pilot.post(pygame_gui.UI_FILE_DIALOG_PATH_PICKED, ui_element=dialogs[0], text=str(out))
        pilot.step()
        assert out.is_file() and out.stat().st_size > 0
        if suffix == ".png":
            assert Image.open(out).format == "PNG"
        elif suffix == ".svg":
            ids = {e.get("id") for e in ET.parse(out).getroot().iter()}
            assert {"pod3", "blast"} <= ids
        elif suffix == ".gif":
            im = Image.open(out)
            assert im.format == "GIF" and im.n_frames >= 10
        else:
            text = out.read_text(encoding="utf-8")
            assert text.startswith("# Robotech") and "| Model | Status | Margin | Why |" in text
        assert not pilot.app.message_is_error
    finally:
        pilot.close()
