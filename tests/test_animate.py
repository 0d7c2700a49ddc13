"""``tabletop animate``: the Fire sequence as a GIF (WebP, APNG) encoded by Pillow."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
from PIL import Image, ImageChops, features

from tabletop.adjudicate import adjudicate
from tabletop.draw.animate import animation_frames, render_animation
from tabletop.scenario_io import load
from tabletop.share_cli import add_animate_parser, animate_main

from .conftest import SCENARIOS

MB = 1_000_000


def _frames(path: Path) -> list[Image.Image]:
    im = Image.open(path)
    out = []
    for k in range(getattr(im, "n_frames", 1)):
        im.seek(k)
        out.append(im.convert("RGB").copy())
    return out


@pytest.mark.parametrize("name", ["default", "robotech-scatter", "catastrophic-chain"])
def test_gif_of_the_fire_sequence(name: str, tmp_path: Path) -> None:
    out = tmp_path / f"{name}.gif"
    info = render_animation(adjudicate(load(SCENARIOS / f"{name}.toml")), out, width=800)
    assert out.stat().st_size == info.bytes < 5 * MB
    frames = _frames(out)
    assert len(frames) == info.frames >= 10
    assert frames[0].size[0] == 800
    assert 2.0 <= info.seconds <= 12.0  # a few seconds
    # Every frame differs from the one before it (no frame is a copy of the last).
    for a, b in zip(frames, frames[1:]):
        assert ImageChops.difference(a, b).getbbox() is not None
    with Image.open(out) as im:
        assert im.format == "GIF" and im.info.get("loop") == 0


def test_a_scatter_moves_across_frames() -> None:
    adj = adjudicate(load(SCENARIOS / "robotech-scatter.toml"))
    frames, durations = animation_frames(adj, width=640)
    assert len(frames) == len(durations) >= 10 and all(d > 0 for d in durations)
    # The scatter step (2nd of 6) spans several frames whose table differs, not only the time bar.
    per = len(frames) // 6
    a, b = frames[per], frames[2 * per - 1]
    table = (0, 30, 640, 300)
    assert ImageChops.difference(a.crop(table), b.crop(table)).getbbox() is not None


@pytest.mark.parametrize("suffix", [".webp", ".apng"])
def test_other_formats(suffix: str, tmp_path: Path) -> None:
    if suffix == ".webp" and not features.check("webp"):
        pytest.skip("Pillow without WebP")
    out = tmp_path / f"fire{suffix}"
    info = render_animation(adjudicate(load(SCENARIOS / "wwpd-friendly-fire.toml")), out, width=480)
    assert len(_frames(out)) == info.frames >= 10


def test_animate_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser()
    add_animate_parser(parser.add_subparsers(dest="command"))
    out = tmp_path / "ruling.gif"
    args = parser.parse_args(["animate", str(SCENARIOS / "increments-wall.toml"), "-o", str(out), "--width", "400", "--seconds", "3"])
    assert animate_main(args) == 0
    assert "frames" in capsys.readouterr().out
    assert Image.open(out).size[0] == 400
    with pytest.raises(SystemExit):  # argparse: bad input, before any work
        parser.parse_args(["animate", str(SCENARIOS / "increments-wall.toml"), "-o", str(tmp_path / "x.mp4")])
    assert "extension must be one of .gif" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["robotech-scatter", "catastrophic-chain"])
def test_every_frame_keeps_the_steps_words_off_the_tables(name: str) -> None:
    """The issue: ``animate`` step 2 of robotech-scatter drew "Battlepod: affected" over the "Battlepod"
    name and "Officer's Pod: affected" over the "0 MD" box. In every frame of every step (a scatter
    sliding, an explosion growing) the step's words and the table's are one layout: none overlaps
    another or a base, one away from its anchor has a leader."""
    import pygame

    from tabletop.draw.slide import draw_slide, layout, slide_viewport
    from tabletop.explain import beats
    from tabletop.label_layout import check_layout

    pygame.font.init()
    adj = adjudicate(load(SCENARIOS / f"{name}.toml"))
    shown = beats(adj)
    size = (800, 500)
    bands = layout(size, shown)
    vp = slide_viewport(adj.scenario, shown, bands.table)
    surface = pygame.Surface(size)
    words = 0
    for i in range(len(shown)):
        for progress in (0.25, 0.5, 1.0):
            frame = draw_slide(surface, adj, shown, i, bands, vp, progress)
            assert frame.scene is not None
            assert not check_layout(frame.scene.to_json()), (i, progress, check_layout(frame.scene.to_json())[:3])
            words += len(frame.words)
            for p in frame.words:
                assert all(not pygame.Rect(p.rect).colliderect(q.rect) for q in frame.scene.layout.placements), p.text
    assert words >= 6
