"""Draw the app icon: a blast template over a round base on a green mat.

Run from the repository root (``.venv/bin/python packaging/make_icon.py``); it
writes ``tabletop/share/icon.png`` (256 px) and ``tabletop/share/icon.ico``.
The generated files are committed, so building never needs this script.
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw, ImageFilter

SHARE = Path(__file__).resolve().parent.parent / "tabletop" / "share"
SIZE = 256
SCALE = 4  # draw large, then downsample: smooth edges without an antialiasing API

MAT = (58, 110, 62)
MAT_EDGE = (34, 70, 40)
GRID = (72, 128, 76)
BASE = (40, 40, 46)
BASE_RIM = (200, 70, 60)
TEMPLATE = (255, 214, 90)


def draw_icon(size: int = SIZE) -> Image.Image:
    """The icon at ``size`` px, RGBA."""
    s = size * SCALE
    img = Image.new("RGBA", (s, s), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    pad = s * 0.04
    radius = s * 0.18
    d.rounded_rectangle((pad, pad, s - pad, s - pad), radius=radius, fill=MAT_EDGE)
    inset = pad + s * 0.03
    d.rounded_rectangle((inset, inset, s - inset, s - inset), radius=radius * 0.8, fill=MAT)
    step = (s - 2 * inset) / 4
    for i in range(1, 4):
        x = inset + i * step
        d.line((x, inset + s * 0.02, x, s - inset - s * 0.02), fill=GRID, width=max(1, s // 128))
        d.line((inset + s * 0.02, x, s - inset - s * 0.02, x), fill=GRID, width=max(1, s // 128))

    # The model's base, lower right, partly under the template.
    bx, by, br = s * 0.64, s * 0.64, s * 0.17
    d.ellipse((bx - br, by - br, bx + br, by + br), fill=BASE_RIM)
    d.ellipse((bx - br * 0.8, by - br * 0.8, bx + br * 0.8, by + br * 0.8), fill=BASE)

    # The blast template: translucent disc with a solid rim and a focus mark.
    tx, ty, tr = s * 0.40, s * 0.40, s * 0.27
    layer = Image.new("RGBA", (s, s), (0, 0, 0, 0))
    ld = ImageDraw.Draw(layer)
    ld.ellipse((tx - tr, ty - tr, tx + tr, ty + tr), fill=TEMPLATE + (110,), outline=TEMPLATE + (255,), width=round(s * 0.025))
    arm = s * 0.05
    w = round(s * 0.018)
    ld.line((tx - arm, ty, tx + arm, ty), fill=TEMPLATE + (255,), width=w)
    ld.line((tx, ty - arm, tx, ty + arm), fill=TEMPLATE + (255,), width=w)
    img = Image.alpha_composite(img, layer)
    return img.resize((size, size), Image.Resampling.LANCZOS).filter(ImageFilter.SMOOTH_MORE if size < 64 else ImageFilter.SHARPEN)


def main() -> None:
    """Write the PNG and the Windows ICO next to the desktop entry."""
    SHARE.mkdir(parents=True, exist_ok=True)
    icon = draw_icon(SIZE)
    icon.save(SHARE / "icon.png", optimize=True)
    icon.save(SHARE / "icon.ico", sizes=[(16, 16), (32, 32), (48, 48), (64, 64), (128, 128), (256, 256)])
    print(f"wrote {SHARE / 'icon.png'} and {SHARE / 'icon.ico'}")


if __name__ == "__main__":
    main()
