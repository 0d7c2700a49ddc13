"""``tabletop photo``'s words from h50's hostile review (stop 50): ``markers -o`` with another suffix says what is wrong
with it, and the report says where its corners came from (typed, the printed markers, or found on the table's edges).
Fast: the analysis is stood in for by a result of each kind (what it finds is tested in test_photo*.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")

from tabletop.photo import pipeline  # noqa: E402
from tabletop.photo.cli import main as photo_main  # noqa: E402
from tabletop.photo.values import PhotoResult  # noqa: E402

CORNERS = ((40.0, 210.0), (290.0, 215.0), (250.0, 50.0), (70.0, 45.0))


def test_markers_with_another_suffix_says_it_is_not_a_pdf_or_png(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Before: "give -o markers.pdf (or .png)", as if no -o had been given (h50). Nothing is written."""
    out = tmp_path / "m.txt"
    assert photo_main(["markers", "-o", str(out)]) != 0
    err = capsys.readouterr().err
    assert f"{out} is not a .pdf or .png" in err and not out.exists()
    assert photo_main(["markers"]) != 0
    assert "give -o markers.pdf (or .png)" in capsys.readouterr().err


@pytest.mark.parametrize("typed, given, said", [
    (False, True, "corners (from the printed markers): "),
    (True, True, "corners (given): "),
    (False, False, "corners (found, confidence 0.83): "),
])
def test_the_report_says_where_the_corners_came_from(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                                                     typed: bool, given: bool, said: str) -> None:
    """Corners taken from the printed markers printed "corners (given, confidence 1.00)", as if typed and measured sure
    (h50). Now: "from the printed markers"; typed ones "given"; found ones keep their confidence."""
    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), np.full((240, 320, 3), 110, np.uint8))

    def analysed(loaded: object, table: tuple[float, float], corners: object, **_: object) -> PhotoResult:
        assert (corners is not None) == typed
        return PhotoResult(path=str(photo), image_size=(320, 240), table_mm=table, corners_px=CORNERS, corners_given=given,
                           table_confidence=1.0 if given else 0.83, calibration_rms_mm=0.4, bases=())

    monkeypatch.setattr(pipeline, "analyse_image", analysed)
    args = [str(photo), "--table", "24x24in"] + (["--corners", *(f"{x:g},{y:g}" for x, y in CORNERS)] if typed else [])
    assert photo_main(args) == 0
    out = capsys.readouterr().out
    assert said in out, out
    assert "confidence 1.00" not in out
