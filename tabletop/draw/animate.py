"""The Fire sequence as an animation (GIF, WebP or APNG, encoded by Pillow).

Each explained step (:func:`tabletop.explain.beats`: placement, dice, scatter, explosion, result)
is drawn as a slide (:mod:`tabletop.draw.slide`: the table zoomed on the action, the step's
highlight, its caption, rule and seed quote) over a few frames: a scatter slides from the aim to
where it lands, an explosion grows, and a bar under the caption shows the time passing, so a
reader of a forum thread sees the ruling unfold in a few seconds.
"""

from __future__ import annotations

import io
import math
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pygame
from PIL import Image

from tabletop.adjudicate import Adjudication
from tabletop.draw.highlight import ACCENT
from tabletop.draw.slide import draw_slide, layout, slide_viewport
from tabletop.explain import beats
from tabletop.atomic import atomic_write

#: Width / height of the animation.
ASPECT = 1.6
#: Seconds per step when the length is not given: the whole sequence in five or six seconds.
STEP_SECONDS = (0.7, 1.4)
TOTAL_SECONDS = 5.5
FORMATS = {".gif": "GIF", ".webp": "WEBP", ".png": "PNG", ".apng": "PNG"}
#: Pixels of all the frames together (frames x width x height) an animation may take. Each is drawn, held
#: paletted (a byte a pixel) and encoded: a 100-template table at 4000 px was 300 frames of 10 megapixels,
#: 2 GB and minutes of work. 250 megapixels: the default 800 px takes 780 frames, 4000 px 25.
MAX_ANIMATION_PIXELS = 250_000_000
MIN_WIDTH = 160


class AnimationTooLarge(ValueError):
    """An animation over :data:`MAX_ANIMATION_PIXELS`; the message says which width would fit."""


def frame_size(width: int) -> tuple[int, int]:
    """The size of every frame of an animation ``width`` pixels wide."""
    return (int(width), max(120, round(width / ASPECT)))


def frames_per_step(steps: int) -> int:
    """Frames drawn for each step: at least a dozen frames in all."""
    return max(3, math.ceil(12 / max(1, steps)))


def check_size(steps: int, width: int, max_pixels: int = MAX_ANIMATION_PIXELS) -> int:
    """The number of frames of ``steps`` steps at ``width``; AnimationTooLarge beyond ``max_pixels`` in all."""
    frames = steps * frames_per_step(steps)
    w, h = frame_size(width)
    if frames * w * h <= max_pixels:
        return frames
    fits = next((x for x in range(int(width) - 1, MIN_WIDTH - 1, -1) if frames * x * frame_size(x)[1] <= max_pixels), None)
    size = f"{frames:,} frames of {w}x{h} are {frames * w * h / 1e6:,.0f} megapixels; the limit is {max_pixels / 1e6:,.0f}"
    if fits is None:
        raise AnimationTooLarge(f"{size}: {steps:,} steps are too many to animate at any width; animate a table with fewer templates")
    raise AnimationTooLarge(f"{size}: give --width {fits} or less, or animate a table with fewer templates")


@dataclass(frozen=True)
class AnimationInfo:
    """What was written: frame count, length and file size."""

    frames: int
    seconds: float
    bytes: int


def animation_frames(adjudication: Adjudication, width: int = 800, seconds: float | None = None) -> tuple[list[Image.Image], list[int]]:
    """The frames (Pillow RGB images) and their durations (ms) of the Fire sequence."""
    pairs = list(_frames(adjudication, width, seconds))
    return [frame for frame, _ in pairs], [ms for _, ms in pairs]


def _frames(adjudication: Adjudication, width: int, seconds: float | None,
            shown: list | None = None) -> Iterator[tuple[Image.Image, int]]:
    """Each frame (RGB) with its duration in ms, drawn only when asked for: a caller may keep less than all.
    ``shown``: the steps (:func:`tabletop.explain.beats`), if the caller has them already."""
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    if not pygame.font.get_init():
        pygame.font.init()
    size = frame_size(width)
    shown = beats(adjudication) if shown is None else shown
    if not shown:
        raise ValueError("nothing to animate: the scenario has no template")
    per_step = seconds / len(shown) if seconds else min(STEP_SECONDS[1], max(STEP_SECONDS[0], TOTAL_SECONDS / len(shown)))
    count = frames_per_step(len(shown))
    bands = layout(size, shown)
    vp = slide_viewport(adjudication.scenario, shown, bands.table)
    surface = pygame.Surface(size)
    total = len(shown) * count
    for i in range(len(shown)):
        for k in range(count):
            progress = (k + 1) / count
            frame = draw_slide(surface, adjudication, shown, i, bands, vp, progress)
            done = (i * count + k + 1) / total
            bar = frame.caption.copy()
            bar.height = max(3, size[1] // 120)
            bar.bottom = frame.caption.bottom
            pygame.draw.rect(surface, (60, 64, 72), bar)
            bar.width = round(bar.width * done)
            pygame.draw.rect(surface, ACCENT, bar)
            duration = max(20, round(per_step * 1000 / count))
            if i == len(shown) - 1 and k == count - 1:
                duration += 1200  # hold the result before the loop starts again
            yield Image.frombytes("RGB", size, pygame.image.tobytes(surface, "RGB")), duration


def _paletted(frame: Image.Image) -> Image.Image:
    # One adaptive palette per frame; Pillow keeps only the changed rectangle of each frame.
    try:
        return frame.convert("P", palette=Image.Palette.ADAPTIVE, colors=128)
    except ValueError as exc:
        # Pillow's quantizer says only "quantization error" when it cannot allocate its tables: out of memory.
        if "quantization" in str(exc):
            raise MemoryError(f"no memory left to palette a {frame.size[0]}x{frame.size[1]} frame") from None
        raise


def encode(frames: list[Image.Image], durations: list[int], fmt: str) -> bytes:
    """The animation in ``fmt`` (GIF, WEBP or PNG for APNG), looping forever."""
    out = io.BytesIO()
    first, rest = frames[0], frames[1:]
    if fmt == "GIF":
        paletted = [f if f.mode == "P" else _paletted(f) for f in frames]
        paletted[0].save(out, "GIF", save_all=True, append_images=paletted[1:], duration=durations, loop=0, optimize=False, disposal=1)
    elif fmt == "WEBP":
        first.save(out, "WEBP", save_all=True, append_images=rest, duration=durations, loop=0, quality=80, method=4)
    else:
        first.save(out, "PNG", save_all=True, append_images=rest, duration=durations, loop=0, default_image=False)
    return out.getvalue()


def render_animation(adjudication: Adjudication, path: str | Path, width: int = 800, seconds: float | None = None,
                     inputs: Iterable[str | Path | None] = (), progress: Callable[[int, int], None] | None = None) -> AnimationInfo:
    """Write the Fire sequence of ``adjudication`` to ``path``; the format follows the extension of the name given
    (.gif, .webp, .png/.apng), never that of a link's target. Never written over one of ``inputs``.

    Refused before any frame is drawn (:class:`AnimationTooLarge`) beyond :data:`MAX_ANIMATION_PIXELS`.
    ``progress(frames drawn, frames in all)`` is called as the frames are drawn.
    """
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise ValueError(f"{path}: an animation is .gif, .webp, .png or .apng")
    fmt = FORMATS[suffix]
    shown = beats(adjudication)
    if not shown:
        raise ValueError("nothing to animate: the scenario has no template")
    total = check_size(len(shown), width)
    frames: list[Image.Image] = []
    durations: list[int] = []
    for frame, duration in _frames(adjudication, width, seconds, shown):
        # A GIF frame is paletted at once so only one full-colour frame is held at a time (a third of the memory).
        frames.append(_paletted(frame) if fmt == "GIF" else frame)
        durations.append(duration)
        if progress is not None:
            progress(len(frames), total)
    data = encode(frames, durations, fmt)
    atomic_write(path, data, inputs)
    return AnimationInfo(len(frames), sum(durations) / 1000.0, len(data))
