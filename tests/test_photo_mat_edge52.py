"""The table's edge is the mat's own (stop 52): where a front face a few pixels tall shows below the near side in a
colour unlike both the mat's and the floor's, the edge fit used to take the face's foot, a sure and wrong corner.

On the generator's photos with the true corners given or typed, this was the one failure the measure set found twice
(docs/photo.md, "The mat's own edge"): a black face under a felt mat on a white floor, a face lighter than both a rocky
mat and its floor. The step from the floor to such a face runs along the room-to-mat colour change the fit measures
edges by, and the step from the face to the mat against it, so the fit saw only the foot."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

import tabletop.photo.rectify as rectify
from tabletop.photo.rectify import mat_edge_inside, refine_corners

NEAR = (2.0, 0.0, 0.0, 0.0)
"""The camera sees the lower side from outside the table: a face shows below it, at least 2 px tall
(``rectify.refine_corners``'s faces)."""
TOP = ((149.5, 449.5), (649.5, 449.5), (649.5, 99.5), (149.5, 99.5))
"""The mat's corners (pixel centres at whole numbers: the mat drawn over pixels 150-649 and 100-449)."""
MAT = (150.0, 175.0, 185.0)  # BGR, a felt mat's
FLOOR = (245.0, 248.0, 250.0)  # a white floor


def _photo(face: tuple[float, float, float] | None, face_px: float, sharpen: float = 0.6, blur: float = 0.9,
           seed: int = 0) -> np.ndarray:
    """A drawn 800 x 600 photo: the floor, the mat inside ``TOP`` with a texture, and below its lower edge a front face
    of colour ``face`` ``face_px`` tall (none: the floor meets the mat), blurred and sharpened as a phone does."""
    scale = 4  # drawn at 4x and shrunk, so that the face's foot may lie between pixels
    img = np.empty((600 * scale, 800 * scale, 3), np.float32)
    img[:] = FLOOR
    img[100 * scale:450 * scale, 150 * scale:650 * scale] = MAT
    if face is not None:
        img[450 * scale:int(round((450 + face_px) * scale)), 150 * scale:650 * scale] = face
    img = cv2.resize(img, (800, 600), interpolation=cv2.INTER_AREA)
    rng = np.random.default_rng(seed)
    img[100:450, 150:650] += rng.normal(0.0, 5.0, (350, 500, 1)).astype(np.float32)  # the mat's texture
    soft = cv2.GaussianBlur(img, (0, 0), blur)
    sharp = soft + sharpen * (soft - cv2.GaussianBlur(soft, (0, 0), 1.5))  # the phone's sharpening: a halo each side
    return np.clip(sharp + rng.normal(0.0, 1.5, sharp.shape), 0, 255).astype(np.uint8)


def _near_side_off(fit_corners: tuple[tuple[float, float], ...]) -> float:
    """How far the fitted near corners lie below the top's edge (px, the worse of the two)."""
    return max(abs(fit_corners[0][1] - TOP[0][1]), abs(fit_corners[1][1] - TOP[1][1]))


DARK_FACE = (20.0, 20.0, 25.0)
"""A black face: darker than the mat and the floor."""
PALE_FACE = (193.0, 208.0, 216.0)
"""A face between the mat and the floor, nearer the mat (about 0.4 of the way): the step from the mat is weaker than the
step to the floor, but still over ``MAT_EDGE_BAND`` of the floor's (at 3.5 px the blur merges the two and the fit
took the mat's edge without the rule)."""


@pytest.mark.parametrize(("face", "face_px"), [(DARK_FACE, 3.5), (DARK_FACE, 5.0), (DARK_FACE, 7.0), (PALE_FACE, 5.0),
                                               (PALE_FACE, 7.0)], ids=["dark-3.5", "dark-5", "dark-7", "pale-5", "pale-7"])
def test_true_corners_stay_on_the_mats_edge_above_a_face(face: tuple[float, float, float], face_px: float,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The true corners given: the near side stays on the mat's edge (within 0.5 px), not the face's foot. Without the
    rule (``MAT_EDGE_BAND`` out of reach) it went to the foot, ``face_px`` below."""
    img = _photo(face, face_px)
    fit = refine_corners(img, TOP, search_px=8.0, faces=NEAR)
    assert _near_side_off(fit.corners_px) < 0.5, fit.corners_px
    assert max(np.linalg.norm(np.subtract(fit.corners_px[2:], TOP[2:]), axis=1)) < 0.5
    monkeypatch.setattr(rectify, "MAT_EDGE_BAND", float("inf"))
    assert _near_side_off(refine_corners(img, TOP, search_px=8.0, faces=NEAR).corners_px) > face_px - 1.0


@pytest.mark.parametrize("move", [(0.0, 2.5), (1.5, 1.5)])
def test_typed_corners_off_the_edge_come_to_the_mats_edge(move: tuple[float, float]) -> None:
    """Corners typed 2-2.5 px off, below the edge (on the face): the fit still ends on the mat's edge above a black face
    5 px tall, the foot 2.5-3 px further from the typed side than the mat's edge is."""
    img = _photo(DARK_FACE, 5.0)
    typed = tuple((x + move[0], y + move[1]) for x, y in TOP)
    fit = refine_corners(img, typed, search_px=8.0, faces=NEAR)  # type: ignore[arg-type]
    assert _near_side_off(fit.corners_px) < 0.5, fit.corners_px


@pytest.mark.parametrize(("sharpen", "blur"), [(0.0, 0.7), (0.6, 0.9), (1.2, 0.9), (1.2, 1.6), (0.3, 2.2)])
def test_a_plain_edge_has_no_band_inside_it(sharpen: float, blur: float) -> None:
    """The mat meeting the floor, blurred and sharpened from none to twice a phone's: no side has a band inside it
    (the halo and the blur's tail at ``MAT_EDGE_READ_PX`` stay under ``MAT_EDGE_BAND`` of the step), and the fit is
    where it was."""
    img = _photo(None, 0.0, sharpen=sharpen, blur=blur)
    quad = np.asarray(TOP)
    for points, normal in rectify.inward_sides(quad, 120):
        side = rectify.fit_side(img, points, normal, ((8.0, 0.5), (5.0, 0.5), (3.0, 0.25)), None)
        assert mat_edge_inside(img, side, 8.0, None) is None
    fit = refine_corners(img, TOP, search_px=8.0, faces=(2.0,) * 4)
    assert max(np.linalg.norm(np.subtract(fit.corners_px, TOP), axis=1)) < 0.5


def test_the_band_is_measured_from_the_face_foot() -> None:
    """Worked numbers: fitted on the foot of a black face 6 px tall, the colour 2 px inside is the face's, (20, 20, 25)
    against the mat's (150, 175, 185): a difference of about 258 in the norm over channels; 2 px outside, the floor's
    (245, 248, 250): about 136. A band. It ends where the colour is half way back to the mat's, at the mat's edge,
    6 px in (to within the blur), and the change across it is from the face's colour to the mat's."""
    img = _photo(DARK_FACE, 6.0)
    foot = ((149.5, 455.5), (649.5, 455.5), (649.5, 99.5), (149.5, 99.5))
    points, normal = rectify.inward_sides(np.asarray(foot), 120)[0]
    side = rectify.fit_side(img, points, normal, ((2.0, 0.25),), None)
    found = mat_edge_inside(img, side, 8.0, None)
    assert found is not None
    inside, change = found
    assert inside == pytest.approx(6.0, abs=1.0)
    assert np.all(change > 100.0)  # from the black face to the mat: brighter in every channel


def test_a_band_inside_a_side_the_camera_sees_from_inside_is_not_a_face() -> None:
    """The same black face, but the camera said to see the lower side from inside the table (as a far side): no face
    can show there, so the band is not taken for one and the fit stays on the strongest edge, the band's foot."""
    img = _photo(DARK_FACE, 5.0)
    assert _near_side_off(refine_corners(img, TOP, search_px=8.0, faces=(0.0, 2.0, 2.0, 2.0)).corners_px) > 4.0
    assert _near_side_off(refine_corners(img, TOP, search_px=8.0).corners_px) > 4.0  # no camera: no side


@pytest.mark.parametrize("thickness_mm", [8.0, 10.0])
def test_given_corners_above_a_white_face_are_kept_through_the_pipeline(thickness_mm: float,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The pipeline with the true corners given, a camera 650 mm in front of the table and 1,300 mm up, a white front
    face 8-10 mm deep (5-6 px), lighter than the cream mat above it and the grey floor below: the camera the corners give sees the near side from
    outside (``pipeline.face_sides``) and the fit stays on the top's edge. Without
    the rule the fit went to the face's foot, 5-6 px below (4-5 mm on the table), beyond the 3 px a given corner may
    move: the corners were then used as given."""
    from tabletop.photo.pipeline import analyse_image, face_sides
    from tabletop.photo.values import LoadedImage

    from .test_photo_camera import _slab_seen_from_the_front

    img, top, _, _ = _slab_seen_from_the_front(thickness_mm, face_bgr=(250.0, 250.0, 250.0))
    faces = face_sides(top, (1200.0, 1200.0), (2400, 1800), None, None)
    assert faces is not None and faces[0] == pytest.approx(6.3, abs=0.5) and faces[1:] == (0.0, 0.0, 0.0)

    def analysed():  # noqa: ANN202
        return analyse_image(LoadedImage(img, "slab.png", (2400, 1800)), (1200.0, 1200.0), corners=top,  # type: ignore[arg-type]
                             base_height_mm=0.0)

    result = analysed()
    # Within 1.2 px: the drawing's anti-aliased fill reaches past the projected corners (the far corners, with no face,
    # come out 0.8 px off as well), against 5-6 px on the foot.
    assert np.max(np.linalg.norm(np.subtract(result.corners_px, top), axis=1)) < 1.2
    assert any("refined on the table's edges" in n for n in result.notes)
    monkeypatch.setattr(rectify, "MAT_EDGE_BAND", float("inf"))
    assert any("do not confirm the given corners" in n for n in analysed().notes)


def test_the_fit_through_the_lens_is_judged_from_the_corners_as_given(monkeypatch: pytest.MonkeyPatch) -> None:
    """As on a generator's photo of a table with typed corners: the straight fit, off at a bowed side's ends by the
    bow, moved the near corners 2.9 px (within the 3 px a given corner may move); the fit through the lens put them
    0.3 px from the given corners, 3.2 px from the straight fit's. Judged from the straight fit's corners, that was a
    move over ``MAX_CORNER_MOVE_PX`` with another straight edge inside a side (the face's), and the straight fit, 2.9
    px off, was kept; judged from the corners as given, as the straight fit was, the fit through the lens is kept."""
    import tabletop.photo.pipeline as pipeline
    from tabletop.photo.camera import Distortion
    from tabletop.photo.values import LoadedImage, TableFit

    given = ((200.0, 500.0), (600.0, 500.0), (560.0, 150.0), (240.0, 150.0))

    def fit(dy_near: float) -> TableFit:
        corners = tuple((x, y + (dy_near if k < 2 else 0.0)) for k, (x, y) in enumerate(given))
        return TableFit(corners_px=corners, confidence=0.9, corner_sigma_px=(0.2,) * 4,  # type: ignore[arg-type]
                        edge_rms_px=(0.3,) * 4)

    def refine(image, corners, search_px=12.0, samples=240, lens=None, faces=None):  # noqa: ANN001, ANN202
        return fit(2.9) if lens is None or lens.identity else fit(-0.3)

    bending = Distortion((399.5, 299.5), 500.0, -0.05)
    monkeypatch.setattr(pipeline, "refine_corners", refine)
    monkeypatch.setattr(pipeline, "measure_lens", lambda image, corners, fit, faces=None: (bending, 0.3, 0.001))
    monkeypatch.setattr(pipeline, "_edges_inside", lambda *args, **kwargs: ([[(0, 3.0)]], [0.0, 0.0]))
    image = np.full((600, 800, 3), 128, np.uint8)
    result = pipeline.analyse_image(LoadedImage(image, "t.png", (800, 600)), (1200.0, 900.0), corners=given,
                                    base_height_mm=0.0)
    assert np.max(np.abs(np.subtract(result.corners_px, fit(-0.3).corners_px))) < 1e-9
    assert any("through the lens (moved up to 0.3 px)" in n for n in result.notes), result.notes


@pytest.mark.parametrize("rim_px", [3.0, 5.0, 8.0])
def test_a_dark_rim_round_the_mat_is_not_taken_for_a_face(rim_px: float) -> None:
    """A dark rim stitched round the mat, ``rim_px`` wide just inside its edge, and no face: the colour 2 px inside the
    fitted edge is the rim's, not the mat's, as above a face, but the rim's inner edge lies inside the side as given
    and the fitted edge on it, so the fitted edge is kept (review r53: the side was moved in by the rim's width, and
    bases 1 mm off were called sure)."""
    img = _photo(None, 0.0)
    rim = img.copy()
    top = int(round(TOP[0][1] + 0.5 - rim_px))
    rim[top:int(round(TOP[0][1] + 0.5)), 150:650] = (40, 45, 50)
    rim = cv2.GaussianBlur(rim, (0, 0), 0.7)
    fit = refine_corners(rim, TOP, search_px=8.0, faces=NEAR)
    assert _near_side_off(fit.corners_px) < 0.5, fit.corners_px
    points, normal = rectify.inward_sides(np.asarray(TOP), 120)[0]
    side = rectify.fit_side(rim, points, normal, ((8.0, 0.5), (5.0, 0.5), (3.0, 0.25)), None)
    assert mat_edge_inside(rim, side, 8.0, None) is not None  # the band is seen: the given side decides


@pytest.mark.parametrize(("sharpen", "blur"), [(2.0, 0.5), (3.0, 0.7)])
def test_an_over_sharpened_edge_typed_inside_is_not_taken_for_a_face(sharpen: float, blur: float) -> None:
    """A plain edge sharpened two to three times as hard as a phone does, its corners typed 1.5 px inside the table:
    the halo inside the edge is a band about 2 px wide, and its inner edge lies nearer the typed side than the edge
    does, but it is narrower than the thinnest top's face from this camera (here 4 px), so the edge is kept (review
    r53: pulled 2 px in, called sure)."""
    img = _photo(None, 0.0, sharpen=sharpen, blur=blur)
    typed = tuple((x, y - (1.5 if k < 2 else 0.0)) for k, (x, y) in enumerate(TOP))
    fit = refine_corners(img, typed, search_px=8.0, faces=(4.0, 0.0, 0.0, 0.0))  # type: ignore[arg-type]
    assert _near_side_off(fit.corners_px) < 0.5, fit.corners_px
    assert _near_side_off(refine_corners(img, typed, search_px=8.0, faces=(0.5, 0.0, 0.0, 0.0)).corners_px) > 1.5  # type: ignore[arg-type]


def test_corners_clicked_coarsely_are_left_as_they_were(monkeypatch: pytest.MonkeyPatch) -> None:
    """Corners clicked where a screen pixel covered 9 of the photo's (a click may be 6 px off): such a click cannot say
    which of two edges a few pixels apart it meant (a face's foot, a dark rim round the mat), so the band rule is not
    applied, and the analysis is the one without it (review r53: a coarse click past a rim let the side move in by
    the rim's width)."""
    from tabletop.photo.pipeline import analyse_image
    from tabletop.photo.values import LoadedImage

    from .test_photo_camera import _slab_seen_from_the_front

    img, top, _, _ = _slab_seen_from_the_front(10.0, face_bgr=(250.0, 250.0, 250.0))

    def analysed():  # noqa: ANN202
        return analyse_image(LoadedImage(img, "slab.png", (2400, 1800)), (1200.0, 1200.0), corners=top,  # type: ignore[arg-type]
                             base_height_mm=0.0, corner_step_px=(9.0,) * 4)

    clicked = analysed()
    monkeypatch.setattr(rectify, "MAT_EDGE_BAND", float("inf"))
    assert analysed().corners_px == clicked.corners_px
