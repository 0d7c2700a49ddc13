"""Fonts, cached text surfaces and badges (pygame)."""

from __future__ import annotations

import importlib.util
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pygame

from tabletop.draw.scene import _ModelData, _Scene
from tabletop.draw.style import Colour, FloatArray, ui_scale
from tabletop.marks import BADGE_BACK, TEXT


_fonts: dict[tuple[int, bool], pygame.font.Font] = {}


_texts: OrderedDict[tuple[str, int, Colour, tuple[int, ...] | None, bool, Colour | None, float], pygame.Surface] = OrderedDict()


_TEXT_CACHE_SIZE = 1024  # a frame needs a few hundred; more only holds hover texts long gone


_font_files: dict[bool, Path | None] = {}


def _font_file(bold: bool) -> Path | None:
    """A clean sans-serif TTF: ``assets/fonts`` first, then the Noto Sans that pygame-gui ships."""
    if bold in _font_files:
        return _font_files[bold]
    name = "Bold" if bold else "Regular"
    candidates = [Path(__file__).resolve().parents[2] / "assets" / "fonts" / f"NotoSans-{name}.ttf"]  # the repository's assets/
    spec = importlib.util.find_spec("pygame_gui")  # locate without importing the GUI package
    if spec is not None and spec.origin:
        candidates.append(Path(spec.origin).parent / "data" / f"NotoSans-{name}.ttf")
    found = next((c for c in candidates if c.is_file()), None)
    _font_files[bold] = found
    return found


def _font(size: int, bold: bool = False) -> pygame.font.Font:
    """The font of nominal ``size`` px at the UI scale in use."""
    size = max(6, round(size * ui_scale()))
    font = _fonts.get((size, bold))
    if font is None:
        if not pygame.font.get_init():
            pygame.font.init()
        path = _font_file(bold)
        try:
            font = pygame.font.Font(str(path), size) if path else None
        except (OSError, pygame.error):
            font = None
        if font is None:
            # pygame's built-in font runs small: scale it up to the same cap height.
            font = pygame.font.Font(None, int(size * 1.3))
        _fonts[(size, bold)] = font
    return font


_KEY: Colour = (255, 0, 255)


def _text(
    text: str,
    size: int,
    colour: Colour = TEXT,
    pill: tuple[int, ...] | None = None,
    bold: bool = False,
    bg: Colour | None = None,
) -> pygame.Surface:
    """Rendered text, cached by its arguments.

    ``pill`` puts it on a rounded backing and ``bg`` on a plain one: both give opaque
    (colour-keyed) surfaces, which blit several times faster than per-pixel alpha.
    """
    scale = ui_scale()
    key = (text, size, colour, pill, bold, bg, scale)
    surf = _texts.get(key)
    if surf is not None:
        _texts.move_to_end(key)
        return surf
    font = _font(size, bold)
    if pill is not None:
        back = (pill[0], pill[1], pill[2])
        glyphs = font.render(text, True, colour, back)
        px = round(size * scale)
        pad_x = max(3, px // 3)
        surf = pygame.Surface((glyphs.get_width() + 2 * pad_x, glyphs.get_height()))
        surf.fill(_KEY)
        pygame.draw.rect(surf, back, surf.get_rect(), border_radius=max(3, px // 3))
        surf.blit(glyphs, (pad_x, 0))
        surf.set_colorkey(_KEY, pygame.RLEACCEL)
    elif bg is not None:
        surf = font.render(text, True, colour, bg)
    else:
        surf = font.render(text, True, colour)
    _texts[key] = surf
    if len(_texts) > _TEXT_CACHE_SIZE:
        _texts.popitem(last=False)
    return surf


def _blit_centred(surface: pygame.Surface, text: pygame.Surface, x: float, y: float, anchor: str = "center") -> pygame.Rect:
    rect = text.get_rect(**{anchor: (int(x), int(y))})
    surface.blit(text, rect)
    return rect


_badges: OrderedDict[tuple[object, ...], pygame.Surface] = OrderedDict()


def _badge(lines: tuple[tuple[str, Colour], ...], accent: Colour) -> pygame.Surface:
    """A label's lines on an opaque rounded panel with an accent border (cached)."""
    key = (lines, accent, ui_scale())
    surf = _badges.get(key)
    if surf is not None:
        _badges.move_to_end(key)
        return surf
    texts = [_text(t, 14 if k == 0 else 13, c, bold=k == 0, bg=BADGE_BACK) for k, (t, c) in enumerate(lines)]
    pad = round(5 * ui_scale())
    width = max(t.get_width() for t in texts) + 2 * pad + 2
    height = sum(t.get_height() for t in texts) + 2 * pad - 2 * (len(texts) - 1)
    surf = pygame.Surface((width, height))
    surf.fill(_KEY)
    pygame.draw.rect(surf, BADGE_BACK, surf.get_rect(), border_radius=6)
    y = pad - 1
    for t in texts:
        surf.blit(t, (pad + 1, y))
        y += t.get_height() - 2
    pygame.draw.rect(surf, accent, surf.get_rect(), 2, border_radius=6)
    surf.set_colorkey(_KEY, pygame.RLEACCEL)
    _badges[key] = surf
    while len(_badges) > 512:
        _badges.popitem(last=False)
    return surf


def _name_size(md: _ModelData, size: int) -> FloatArray:
    """Width and height (px) of every model's name pill at font ``size`` (cached on ``md``)."""
    out = md.name_sizes.get((size, ui_scale()))
    if out is None:
        font = _font(size, True)
        pad = 2 * max(3, round(size * ui_scale()) // 3)
        dims = [font.size(m.label) for m in md.models]
        out = md.name_sizes[(size, ui_scale())] = np.array([(w + pad, h) for w, h in dims], dtype=float).reshape(-1, 2)
    return out


def _name_sizer(scene: _Scene, names: bool = True) -> Callable[[int], FloatArray] | None:
    """What measures the model name pills of ``scene`` for label placement (None: names not drawn)."""
    md = scene.model_data
    if not names or md is None:
        return None
    return lambda size: _name_size(md, size)
