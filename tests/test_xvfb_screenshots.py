"""The README's pictures are what ``make screenshots`` makes now (issue 33).

Each picture is made again (the app's in a real window under Xvfb, driven with xdotool; the
others with the command line) and compared with the one in docs/images by
``tests.screenshots.differs``: a tolerant comparison, so font antialiasing and the status bar's
timings pass, while another toolbar, panel or layout fails. When a change is meant to alter a
picture, run ``make screenshots``, look at the pictures, and commit them.

Skips the window pictures when Xvfb, xdotool or ImageMagick's ``import`` is missing, unless
``CI`` is set.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from . import screenshots
from .xvfb import require

pytestmark = [pytest.mark.xvfb, pytest.mark.slow, pytest.mark.timeout(300)]


@pytest.mark.parametrize("name", list(screenshots.SHOTS))
def test_the_readme_picture_is_what_make_screenshots_makes(name: str, tmp_path: Path) -> None:
    if screenshots.SHOTS[name].window:
        require(("Xvfb", "xdotool", "import"))
    made = screenshots.make(name, tmp_path)
    why = screenshots.differs(screenshots.IMAGES / name, made)
    assert why is None, f"docs/images/{name} is out of date ({why}): run `make screenshots`, look at it, commit it"
