"""One explained step as a full picture (pygame): a head band (the table's title, which step of
which template), the table zoomed on the action with the step's highlight, and a caption panel
(the step, the rule it applies, the seed sentence it rests on) in type sized from the picture's
height, so it reads on a projector across a room. Presenter mode and the animation draw these.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field, replace

import pygame

from tabletop.adjudicate import Adjudication
from tabletop.draw.compose import draw_scene
from tabletop.draw.frame import Frame as TableFrame
from tabletop.draw.highlight import ACCENT, DIM, beat_words, draw_beat, font, paint_words
from tabletop.draw.style import DrawOptions
from tabletop.explain import Beat
from tabletop.label_layout import Placement
from tabletop.model import Scenario
from tabletop.shapes import template_polygon
from tabletop.viewport import Viewport

BACKGROUND = (18, 20, 24)
PANEL = (28, 31, 38)
PAPER = (245, 245, 240)
DIM_TEXT = (200, 204, 210)
#: The action view is never narrower than this (mm): a lone blast still shows the table around it.
MIN_VIEW_MM = 8 * 25.4
#: The table as a slide shows it: no editing chrome, no rulers, legend or title (the head band has it).
SLIDE_OPTIONS = DrawOptions(
    show_grid=True, show_names=True, show_visibility=True, show_legend=False, show_rulers=False, show_title=False, template_alpha=70
)


@dataclass
class Frame:
    """Where a slide put things (screen rects): for hit-testing and for tests."""

    table: pygame.Rect
    caption: pygame.Rect
    head: pygame.Rect
    viewport: Viewport
    texts: list[pygame.Rect] = field(default_factory=list)  # the highlight's labels and dice
    #: Every label on the table band: the scene's and, in ``scene.extra``, the step's (``scene.to_json()``
    #: is the layout JSON of the slide, for :func:`~tabletop.label_layout.check_layout`).
    scene: TableFrame | None = None
    words: tuple[Placement, ...] = ()  # the step's labels (its statuses and dice)


@dataclass(frozen=True)
class Layout:
    """The three bands of a slide of one size."""

    head: pygame.Rect
    table: pygame.Rect
    caption: pygame.Rect


def type_sizes(height: int) -> dict[str, int]:
    """Pixel sizes of the slide's type for a picture ``height`` px tall (1080 px: 46 px captions,
    27 px words on the table: the step's statuses and dice, names, the ruleset's boxes)."""
    return {
        "caption": max(18, round(height / 23.5)),
        "rule": max(15, round(height / 32)),
        "quote": max(14, round(height / 34)),
        "head": max(13, round(height / 42)),
        "label": max(13, round(height / 40)),
    }


#: Nominal px of the table's body text (a badge's lines, most names) at UI scale 1.
_TABLE_TEXT_PX = 13


def table_scales(height: int) -> list[float]:
    """The UI scales tried for the table's words on a slide ``height`` px tall, largest first: as large
    as the step's words (``type_sizes()["label"]``), then two steps down, then 1."""
    top = max(1.0, type_sizes(height)["label"] / _TABLE_TEXT_PX)
    return sorted({round(1.0 + (top - 1.0) * k / 3, 2) for k in range(4)}, reverse=True)


def table_scale(size: tuple[int, int], adjudication: Adjudication, beats: list[Beat], bands: Layout, viewport: Viewport) -> float:
    """The UI scale of the table's words on these slides: the largest of :func:`table_scales` at which
    no template's result hides a label that scale 1 shows (a projector must not lose a damage box to
    bigger type). Remembered for the table, size and view: a what-if drag keeps its type size."""
    scenario = adjudication.scenario
    key = (tuple(size), tuple(bands.table), viewport, scenario.title, tuple(m.id for m in scenario.models), tuple(r.template.id for r in adjudication.results))
    got = _scales.get(key)
    if got is not None:
        return got
    scales = table_scales(size[1])
    results = [i for i, b in enumerate(beats) if b.kind == "result"]
    choice = scales[-1]
    if len(scales) > 1 and results:
        scratch = pygame.Surface(size)

        def hidden(scale: float) -> list[set[str]]:
            return [set(_draw(scratch, adjudication, beats, i, bands, viewport, 1.0, "", scale).scene.hidden) for i in results]  # type: ignore[union-attr]

        base = hidden(1.0)
        for scale in scales[:-1]:
            if all(h <= b for h, b in zip(hidden(scale), base)):
                choice = scale
                break
    if len(_scales) > 16:
        _scales.clear()
    _scales[key] = choice
    return choice


_scales: dict[tuple[object, ...], float] = {}


def scene_adjudication(adjudication: Adjudication, beat: Beat | None) -> Adjudication:
    """What the table shows under ``beat``: the templates explained before its own, resolved; its own
    only at its result (before, the step's highlight shows where the template is and who it has
    reached so far, nothing of what is still to come). The same object for the same question, so the
    scene's prepared geometry is reused from frame to frame."""
    results = adjudication.results
    if beat is None:
        return adjudication
    k = next((i for i, r in enumerate(results) if r.template.id == beat.template_id), len(results) - 1)
    n = k + 1 if beat.kind == "result" else k
    if n >= len(results):
        return adjudication
    key = (id(adjudication), n)
    got = _partial.get(key)
    if got is None or got[0] is not adjudication:
        got = _partial[key] = (adjudication, replace(adjudication, results=results[:n]))
        while len(_partial) > 16:
            _partial.popitem(last=False)
    return got[1]


_partial: OrderedDict[tuple[int, int], tuple[Adjudication, Adjudication]] = OrderedDict()


def wrap(text: str, f: pygame.font.Font, width: int) -> list[str]:
    """``text`` broken into lines no wider than ``width`` px in font ``f`` (a word longer than a line is cut)."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        trial = f"{line} {word}" if line else word
        if f.size(trial)[0] <= width or not line:
            line = trial
        else:
            lines.append(line)
            line = word
        while f.size(line)[0] > width and len(line) > 1:
            cut = len(line) - 1
            while cut > 1 and f.size(line[:cut])[0] > width:
                cut -= 1
            lines.append(line[:cut])
            line = line[cut:]
    if line:
        lines.append(line)
    return lines


def _blocks(beat: Beat, sizes: dict[str, int], width: int, scale: float) -> list[tuple[pygame.font.Font, list[str], tuple[int, int, int]]]:
    cf = font(max(12, int(sizes["caption"] * scale)), bold=True)
    rf = font(max(11, int(sizes["rule"] * scale)), bold=True)
    qf = font(max(11, int(sizes["quote"] * scale)))
    blocks = [(cf, wrap(beat.caption, cf, width), PAPER)]
    if beat.rule:
        blocks.append((rf, wrap(f"Rule: {beat.rule}", rf, width), ACCENT))
        blocks.append((qf, wrap(f"“{beat.quote}”", qf, width), DIM_TEXT))
    elif beat.kind == "result":
        blocks.append((rf, ["Result"], ACCENT))
    return blocks


def _height(blocks: list[tuple[pygame.font.Font, list[str], tuple[int, int, int]]], pad: int) -> int:
    return sum(f.get_linesize() * len(lines) for f, lines, _ in blocks) + pad * 2 + (pad // 2) * (len(blocks) - 1)


def layout(size: tuple[int, int], beats: list[Beat]) -> Layout:
    """The bands for a picture of ``size``: the caption panel as tall as the longest step needs at full
    size (16–34 % of the height), a thin head band, the table in between."""
    w, h = size
    sizes = type_sizes(h)
    pad = max(10, sizes["caption"] // 2)
    need = max((_height(_blocks(b, sizes, w - 2 * pad, 1.0), pad) for b in beats), default=0)
    panel_h = max(int(h * 0.16), min(int(h * 0.34), need))
    head = pygame.Rect(0, 0, w, int(sizes["head"] * 2.0))
    caption = pygame.Rect(0, h - panel_h, w, panel_h)
    table = pygame.Rect(0, head.bottom, w, max(40, caption.top - head.bottom))
    return Layout(head, table, caption)


def action_box(scenario: Scenario, beats: list[Beat]) -> tuple[float, float, float, float]:
    """World box of what the steps show: each step's template (and where it scattered from) and the
    bases it touches, with a margin; at least :data:`MIN_VIEW_MM` across."""
    boxes: list[tuple[float, float, float, float]] = []
    models = {m.id: m for m in scenario.models}
    for beat in beats:
        for placed in (beat.placed, beat.previous):
            if placed is not None:
                boxes.append(template_polygon(placed, segments=32, outer=True).bounds)
        for mid in beat.touched:
            m = models.get(mid)
            if m is not None:
                r = m.base.bounding_radius
                boxes.append((m.x - r, m.y - r, m.x + r, m.y + r))
    t = scenario.table
    if not boxes:
        return (0.0, 0.0, t.width, t.depth)
    x0, y0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
    x1, y1 = max(b[2] for b in boxes), max(b[3] for b in boxes)
    pad = max(25.4, 0.12 * max(x1 - x0, y1 - y0))
    x0, y0, x1, y1 = x0 - pad, y0 - pad, x1 + pad, y1 + pad
    grow_x = max(0.0, MIN_VIEW_MM - (x1 - x0)) / 2
    grow_y = max(0.0, MIN_VIEW_MM - (y1 - y0)) / 2
    return (x0 - grow_x, y0 - grow_y, x1 + grow_x, y1 + grow_y)


def slide_viewport(scenario: Scenario, beats: list[Beat], table: pygame.Rect) -> Viewport:
    """The view of the action fitted into the ``table`` band."""
    box = action_box(scenario, beats)
    margin = max(8, table.height // 40)
    w, h = max(1, table.width - 2 * margin), max(1, table.height - 2 * margin)
    scale = min(w / (box[2] - box[0]), h / (box[3] - box[1]))
    return Viewport(((box[0] + box[2]) / 2, (box[1] + box[3]) / 2), scale, (table.x, table.y, table.width, table.height))


def draw_slide(
    surface: pygame.Surface,
    adjudication: Adjudication,
    beats: list[Beat],
    index: int,
    bands: Layout,
    viewport: Viewport,
    progress: float = 1.0,
    message: str = "",
) -> Frame:
    """Draw beat ``index`` of ``beats`` into ``surface``: the head band, the table with the step's highlight
    (``progress`` 0..1 animates a scatter or an explosion) and the caption panel."""
    scale = table_scale(surface.get_size(), adjudication, beats, bands, viewport)
    return _draw(surface, adjudication, beats, index, bands, viewport, progress, message, scale)


def _draw(
    surface: pygame.Surface, adjudication: Adjudication, beats: list[Beat], index: int, bands: Layout, viewport: Viewport, progress: float, message: str, scale: float
) -> Frame:
    sizes = type_sizes(surface.get_height())
    surface.set_clip(None)
    surface.fill(BACKGROUND)
    beat = beats[index] if 0 <= index < len(beats) else None
    options = replace(SLIDE_OPTIONS, ui_scale=scale)
    table = bands.table.clip(surface.get_rect())
    canvas = (table.x, table.y, table.width, table.height)
    placed: tuple[Placement, ...] = ()
    hidden: tuple[str, ...] = ()
    words = None
    if beat is not None:
        # The step's words first, by the table's label layout; the table's own labels keep off them.
        words = beat_words(viewport, adjudication.scenario, beat, sizes["label"])
        step_layout = words.layout(canvas)
        placed, hidden = step_layout.placements, step_layout.hidden
        options = replace(options, reserved=tuple(p.rect for p in placed))
    scene = draw_scene(surface, viewport, scene_adjudication(adjudication, beat), options)
    if beat is not None and words is not None:
        pixels = _label_pixels(surface, scene.layout.placements, bands.table)
        earlier = [b.placed for b in beats[:index] if b.template_id == beat.template_id and b.placed is not None]
        earlier = [p for p in dict.fromkeys(earlier) if p != beat.placed]
        draw_beat(surface, viewport, adjudication.scenario, beat, progress, sizes["label"], earlier)
        _restore_words(surface, pixels)
        old_clip = surface.get_clip()
        surface.set_clip(table)
        paint_words(surface, placed, words)
        surface.set_clip(old_clip)
        scene = scene.adding(placed, hidden)
    _draw_head(surface, bands.head, sizes, adjudication, beat, index, len(beats), message)
    _draw_caption(surface, bands.caption, sizes, beat)
    return Frame(bands.table, bands.caption, bands.head, viewport, [pygame.Rect(p.rect) for p in placed], scene, placed)


def _label_pixels(surface: pygame.Surface, placements: tuple[Placement, ...], area: pygame.Rect) -> list[tuple[pygame.Surface, pygame.Rect]]:
    """Copies of the table's label boxes as drawn, to lay back over the step's highlight."""
    out = []
    for p in placements:
        r = pygame.Rect(p.rect).clip(area).clip(surface.get_rect())
        if r.width > 0 and r.height > 0:
            out.append((surface.subsurface(r).copy(), r))
    return out


def _restore_words(surface: pygame.Surface, words: list[tuple[pygame.Surface, pygame.Rect]]) -> None:
    """The table's words back on top of the step's fills (an explosion's burst must not hide a name),
    dimmed like the rest of the table (the step's own words, laid out clear of them, go on top)."""
    for patch, r in words:
        patch.blit(_dim_patch(r.size), (0, 0))
        surface.blit(patch, r)


def _dim_patch(size: tuple[int, int]) -> pygame.Surface:
    dim = pygame.Surface(size, pygame.SRCALPHA)
    dim.fill(DIM)
    return dim


def _draw_head(
    surface: pygame.Surface, rect: pygame.Rect, sizes: dict[str, int], adj: Adjudication, beat: Beat | None, index: int, count: int, message: str
) -> None:
    pygame.draw.rect(surface, PANEL, rect)
    pad = sizes["head"] // 2 + 4
    f = font(sizes["head"], bold=True)
    title = adj.scenario.title or "Untitled table"
    where = f"{beat.heading}   ({index + 1}/{count})" if beat is not None else "nothing to explain"
    right = f.render(where, True, ACCENT)
    surface.blit(right, right.get_rect(midright=(rect.right - pad, rect.centery)))
    room = rect.width - right.get_width() - 3 * pad
    text = f"{title} — {message}" if message else title
    while text and f.size(text)[0] > room:
        text = text[:-2] + "…" if len(text) > 2 else ""
    surface.blit(f.render(text, True, PAPER), (rect.left + pad, rect.centery - f.get_height() // 2))


def _draw_caption(surface: pygame.Surface, rect: pygame.Rect, sizes: dict[str, int], beat: Beat | None) -> None:
    pygame.draw.rect(surface, PANEL, rect)
    pygame.draw.line(surface, ACCENT, rect.topleft, rect.topright, 3)
    if beat is None:
        return
    pad = max(10, sizes["caption"] // 2)
    width = rect.width - 2 * pad
    scale = 1.0
    blocks = _blocks(beat, sizes, width, scale)
    while _height(blocks, pad) > rect.height and scale > 0.45:
        scale *= 0.9  # a long step: smaller type rather than text cut off
        blocks = _blocks(beat, sizes, width, scale)
    y = rect.top + pad
    old_clip = surface.get_clip()
    surface.set_clip(rect)
    for f, lines, colour in blocks:
        for line in lines:
            surface.blit(f.render(line, True, colour), (rect.left + pad, y))
            y += f.get_linesize()
        y += pad // 2
    surface.set_clip(old_clip)
